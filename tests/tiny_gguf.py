"""A tiny random-weight llama GGUF file with the embedded model's tokenizer, for the llama.cpp backend's tests.

Written with the ``gguf`` package (no download); float32 tensors, so llama.cpp
and PyTorch (transformers reads the same file) compute the same model up to
float rounding.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SHAPE = {"embd": 64, "ff": 128, "layers": 2, "heads": 4, "kv_heads": 2, "context": 4096}


def write_tiny_gguf(out: Path, tokenizer_source: Path, seed: int = 0, scale: float = 0.15) -> Path:
    """Write the model to ``out``, taking every ``tokenizer.*`` field from the GGUF file ``tokenizer_source``."""
    import gguf

    reader = gguf.GGUFReader(str(tokenizer_source))
    vocab = len(reader.fields["tokenizer.ggml.tokens"].data)
    embd, ff, layers = SHAPE["embd"], SHAPE["ff"], SHAPE["layers"]
    heads, kv_heads = SHAPE["heads"], SHAPE["kv_heads"]
    head_dim = embd // heads
    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_name("cad-lsp tiny test model")
    writer.add_context_length(SHAPE["context"])
    writer.add_embedding_length(embd)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(ff)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(vocab)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    for key, field in reader.fields.items():
        if key.startswith("tokenizer."):
            kind = field.types[0]
            sub = field.types[1] if kind == gguf.GGUFValueType.ARRAY else None
            writer.add_key_value(key, field.contents(), kind, sub_type=sub)
    rng = np.random.default_rng(seed)

    def tensor(name: str, *shape: int, std: float = scale) -> None:
        writer.add_tensor(name, (rng.standard_normal(shape) * std).astype(np.float32))

    tensor("token_embd.weight", vocab, embd, std=1.0)
    writer.add_tensor("output_norm.weight", np.ones(embd, np.float32))
    for i in range(layers):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(embd, np.float32))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(embd, np.float32))
        tensor(f"blk.{i}.attn_q.weight", heads * head_dim, embd)
        tensor(f"blk.{i}.attn_k.weight", kv_heads * head_dim, embd)
        tensor(f"blk.{i}.attn_v.weight", kv_heads * head_dim, embd)
        tensor(f"blk.{i}.attn_output.weight", embd, heads * head_dim)
        tensor(f"blk.{i}.ffn_gate.weight", ff, embd)
        tensor(f"blk.{i}.ffn_up.weight", ff, embd)
        tensor(f"blk.{i}.ffn_down.weight", embd, ff)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out
