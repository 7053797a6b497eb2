"""The benchmarks ``cad-lsp bench`` knows, in the order RESULTS.md shows them, and their headings.

Both the runner (which runs them) and the report (which writes their
sections) read this list; neither imports the other for it.
"""

BENCHMARKS = ["apply", "peer", "kernel", "smallforward", "ceiling", "e2e", "speculation", "serve", "cancel", "lossless",
              "perturb", "formats", "quality", "families", "vllm", "kvcache", "layout", "warmedit", "llamacpp",
              "agreement", "answer"]

TITLES = {
    "apply": "Apply: a chat model's update snippet merged into a file by the embedded model, on held-out code",
    "peer": "Apply, on updates others wrote: Continue's fixtures and hand-written chat updates, rules and model",
    "kernel": "Kernel: one N-token splice vs N decode steps",
    "smallforward": "Small forwards: a few tokens through PyTorch's linear layers vs oneDNN's packed ones",
    "ceiling": "Ceiling: copy coverage and the closed-form speedup bound",
    "e2e": "End to end: teacher-forced programs vs autoregressive rewrite",
    "speculation": "Speculation: the embedded model's own programs, drafted from the document and checked",
    "serve": "Editor latency: executeCommand to applyEdit, warm vs cold cache",
    "cancel": "Cancellation: from the editor's cancel to the answer, during decoding and a cold prefill",
    "lossless": "Losslessness: oracle round trip on every pair",
    "perturb": "Perturbation: off-by-one copy boundaries",
    "formats": "Output formats: tokens and fidelity",
    "quality": "Quality: a real model writing programs (zero-shot, few-shot, fine-tuned) vs its baselines",
    "families": "Edit families: what the embedded model edits correctly, on held-out code",
    "vllm": "vLLM: copies as prefix-cached continuations",
    "kvcache": "KV cache: one forward over a long cached document, growing vs dynamic vs static",
    "layout": "Prompt layout: line numbers on every line, only on the selection, or sparse",
    "warmedit": "Warm edit of a long document vs a short one, in the engine: concatenating vs growing cache",
    "llamacpp": "llama.cpp: the embedded model's GGUF file in llama.cpp beside PyTorch",
    "agreement": "llama.cpp and PyTorch: the same greedy programs on the test split, at each precision",
    "answer": "A whole chat answer: every file it changes, from commits of this project, and the time to merged files",
}
