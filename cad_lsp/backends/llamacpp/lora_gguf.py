"""A PEFT LoRA adapter (``adapter_model.safetensors``) written as a llama.cpp GGUF adapter.

llama.cpp applies an adapter at run time (``llama_adapter_lora_init``) from a
GGUF file of ``blk.N.<tensor>.weight.lora_a`` / ``.lora_b`` pairs.  Its own
converter (``convert_lora_to_gguf.py``) needs the base model's Hugging Face
folder; the embedded model exists here only as a GGUF file, so this reads the
shapes it needs from that file.  One thing is not a rename: GGUF stores a
llama model's query and key rows in another order (the rotary halves
interleaved, ``permute`` in llama.cpp's ``convert_hf_to_gguf.py``), so
``lora_b`` of ``q_proj`` and ``k_proj`` gets the same row order.

The rank is padded with zeros to a multiple of ``RANK_MULTIPLE`` (alpha
scaled with it: llama.cpp scales by alpha / rank), which computes the same
product: llama.cpp's fast float kernels (llamafile's) take inner sizes in
multiples of 16, and a rank-8 ``lora_b`` product falls to a loop of short dot
products.  Padded, SmolLM2's adapter costs what no adapter costs (a 2-core
CPU, 3,000 cached tokens: 47/89/151/455 ms for 2/8/16/54-token forwards
against 50/95/163/510 at rank 8), for 5 MB more.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

# PEFT module name -> llama.cpp tensor name
TENSOR_NAMES = {
    "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}
PERMUTED_ARCHITECTURES = ("llama",)  # architectures whose GGUF converter reorders q and k rows
RANK_MULTIPLE = 16  # llamafile's float products need inner sizes in multiples of 16


def rope_permute(rows: np.ndarray, heads: int) -> np.ndarray:
    """The row order llama.cpp's converter gives q/k weights: per head, the two rotary halves interleaved."""
    return rows.reshape(heads, 2, rows.shape[0] // heads // 2, *rows.shape[1:]).swapaxes(1, 2).reshape(rows.shape)


def _field(reader, key: str):
    field = reader.fields.get(key)
    if field is None:
        raise ValueError(f"the base GGUF file has no {key}")
    value = field.parts[field.data[0]]
    return bytes(value).decode() if field.types and field.types[0].name == "STRING" else value.tolist()[0]


def convert(adapter: str | Path, base_gguf: str | Path, out: str | Path) -> int:
    """Write ``adapter`` (a PEFT LoRA folder) as a GGUF adapter for the model in ``base_gguf``; returns pairs."""
    import gguf
    from safetensors.numpy import load_file

    adapter = Path(adapter)
    config = json.loads((adapter / "adapter_config.json").read_text(encoding="utf-8"))
    reader = gguf.GGUFReader(str(base_gguf))
    arch = _field(reader, "general.architecture")
    heads = int(_field(reader, f"{arch}.attention.head_count"))
    kv_heads = int(_field(reader, f"{arch}.attention.head_count_kv"))
    state = load_file(str(adapter / "adapter_model.safetensors"))
    writer = gguf.GGUFWriter(str(out), arch)
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    rank = int(config["r"])
    padded = -(-rank // RANK_MULTIPLE) * RANK_MULTIPLE
    writer.add_float32("adapter.lora.alpha", float(config["lora_alpha"]) * padded / rank)  # alpha / rank kept
    pairs = 0
    for key in sorted(state):
        if not key.endswith(".lora_A.weight"):
            continue
        path = key.removeprefix("base_model.model.model.layers.").removesuffix(".lora_A.weight")
        layer, _, module = path.partition(".")
        if module not in TENSOR_NAMES or not layer.isdigit():
            raise ValueError(f"adapter tensor {key} has no llama.cpp counterpart")
        a, b = state[key], state[key.replace(".lora_A.", ".lora_B.")]
        if a.shape[0] != rank:
            raise ValueError(f"adapter tensor {key} has rank {a.shape[0]}, its config says {rank}")
        a = np.pad(a, ((0, padded - rank), (0, 0)))
        b = np.pad(b, ((0, 0), (0, padded - rank)))
        if arch in PERMUTED_ARCHITECTURES and module in ("self_attn.q_proj", "self_attn.k_proj"):
            b = rope_permute(b, heads if module == "self_attn.q_proj" else kv_heads)
        name = f"blk.{layer}.{TENSOR_NAMES[module]}.weight"
        writer.add_tensor(f"{name}.lora_a", np.ascontiguousarray(a))  # (rank, in): ggml's ne = (in, rank)
        writer.add_tensor(f"{name}.lora_b", np.ascontiguousarray(b))  # (out, rank)
        pairs += 1
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return pairs


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m cad_lsp.backends.llamacpp.lora_gguf",
                                     description="write a PEFT LoRA adapter as a llama.cpp GGUF adapter")
    parser.add_argument("adapter", help="the adapter folder (adapter_config.json, adapter_model.safetensors)")
    parser.add_argument("base", help="the base model's GGUF file")
    parser.add_argument("out", help="the GGUF adapter to write")
    args = parser.parse_args(argv)
    print(f"{convert(args.adapter, args.base, args.out)} adapted layers written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
