"""Training and evaluation data: the corpora, their fixed train/test split, synthetic edit families, and
supervised fine-tuning (``sft``) of a LoRA adapter on oracle programs.

Nothing here runs in an editor: the benchmarks and ``cad-lsp train`` use it.
"""
