"""Loading a model by name into PyTorch: Hugging Face causal LMs, the embedded default, random shapes.

Names and files come from ``backends.catalog``.  The embedded model's GGUF
file is de-quantized once into the cache folder (with the shipped adapter
merged in) and read from there on later runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch

from ..catalog import (
    QWEN_TOKENIZER,
    RANDOM_SHAPES,
    SMOLLM2_ADAPTER,
    ModelLoadError,
    adapter_digest,
    cache_dir,
    cached_folder,
    file_digest,
    is_complete,
    load_tokenizer,
    smollm2_path,
)


@dataclass
class LoadedModel:
    name: str
    model: torch.nn.Module
    tokenizer: object
    device: torch.device
    dtype: torch.dtype
    adapter: str | None = None  # the LoRA adapter folder merged into the weights, if any
    advice: str | None = None  # what the user should know about this choice of model, dtype and device


def parse_dtype(dtype: str | torch.dtype | None, device: str) -> torch.dtype:
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype in (None, "auto"):
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    table = {"bf16": torch.bfloat16, "bfloat16": torch.bfloat16, "fp16": torch.float16,
             "float16": torch.float16, "fp32": torch.float32, "float32": torch.float32}
    if dtype not in table:
        raise ModelLoadError(f"unknown dtype {dtype!r}; use one of {', '.join(table)} or auto")
    return table[dtype]


def half_precision_advice(device: str, dtype: torch.dtype) -> str | None:
    """Why a bf16 or fp16 model will edit slowly on this CPU, if it will.

    Without the CPU's own half-precision products (AVX512-BF16 or AMX),
    PyTorch computes a half-precision matrix product row by row: a forward of
    8 tokens of Qwen2.5-0.5B costs 4.6 decode steps in bf16 against 1.4 in
    fp32 on a 2-core AMD EPYC with AVX2 (``bench kernel``).  Copies and
    drafted tokens ride in such forwards, so they barely pay.
    """
    if not device.startswith("cpu") or dtype not in _HALF_PRECISION:
        return None
    name, instructions, checks = _HALF_PRECISION[dtype]
    if any(getattr(torch.cpu, check, lambda: False)() for check in checks):
        return None
    return (f"{name} on this CPU (no {instructions}) computes every token of a forward on its own, so copies and "
            f"drafted tokens cost nearly what decoding them would and edits gain little; fp32 (--dtype fp32 or "
            f"the dtype setting; the default on a CPU) is faster here")


# a half-precision dtype: its name, the instructions that make its products fast, torch.cpu's checks for them
_HALF_PRECISION = {
    torch.bfloat16: ("bf16", "AVX512-BF16 or AMX", ("_is_avx512_bf16_supported", "_is_amx_tile_supported")),
    torch.float16: ("fp16", "AMX-FP16", ("_is_amx_fp16_supported",)),
}


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def random_model(shape: str, dtype: torch.dtype = torch.float32, seed: int = 0):
    """A random-weight Qwen2 model of a named shape (deterministic for a seed)."""
    from transformers import AutoModelForCausalLM, Qwen2Config

    if shape not in RANDOM_SHAPES:
        raise ModelLoadError(f"unknown random shape {shape!r}; known: {', '.join(RANDOM_SHAPES)}")
    hidden, inter, layers, heads, kv, vocab, tied = RANDOM_SHAPES[shape]
    config = Qwen2Config(
        vocab_size=vocab, hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv, max_position_embeddings=32768,
        tie_word_embeddings=tied, rope_theta=1_000_000.0,
    )
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    return model.eval()


# ---------------------------------------------------------------------------
# The embedded model, converted once


CONVERSION_FORMAT = 1  # bump when what convert_smollm2 or a merge into its weights writes changes


def smollm2_cache_name(gguf: Path) -> str:
    """One folder per GGUF file content, transformers version and conversion format."""
    import transformers

    key = f"{file_digest(gguf)}:{transformers.__version__}:{CONVERSION_FORMAT}"
    return "smollm2-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def convert_smollm2(gguf: Path):
    """De-quantize the GGUF file into a plain fp32 model; returns (model, tokenizer), both savable.

    Transformers refuses to save a model loaded from GGUF, so the weights move
    into a fresh model of the same config without the quantization entry.
    """
    from transformers import AutoModelForCausalLM

    tokenizer = load_tokenizer(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    return model, tokenizer


def read_converted(folder: Path, dtype: torch.dtype):
    """(model, tokenizer) from a cached folder, without the progress bar transformers prints for it.

    The GGUF conversion gives a plain fast tokenizer, the class AutoTokenizer
    also picks for this folder (tested), but AutoTokenizer looks through the
    model's config first: reading it directly starts decoding ~0.3 s sooner
    on a 2-core CPU (median of whole runs).
    """
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(folder))
    with quiet_progress():
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype)
    return model, tokenizer


@contextmanager
def quiet_progress():
    """No "Loading weights" bar on every run: reading a cached model takes about a second."""
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if shown:
            hf_logging.enable_progress_bar()


def load_smollm2(dtype: torch.dtype, log=None, adapter: Path | None = None):
    """The embedded model: converted from its GGUF file on the first run, then read from the cache.

    Converting takes 20-60 s on a laptop-class CPU; reading the converted
    folder takes about a second.  With ``adapter`` the merged weights are
    cached in a folder of their own, named by the base's key and the
    adapter's bytes, so that a run does not merge again (~1 s); the base
    folder is written only when the base itself is asked for
    (``smollm2:base``), so the default costs one copy on disk, not two.
    If the cache cannot be written (read-only home, full disk) the model is
    used from memory and the next run converts again.
    """
    log = log or (lambda line: print(line, file=sys.stderr))
    gguf = smollm2_path()
    root, base_name = cache_dir(), smollm2_cache_name(gguf)
    name = base_name if adapter is None else f"{base_name}-{adapter_digest(adapter)[:16]}"
    made = {}

    def make():
        if adapter is None:
            return convert_smollm2(gguf)
        base = root / base_name
        model, tokenizer = read_converted(base, torch.float32) if is_complete(base) else convert_smollm2(gguf)
        merge_lora(model, adapter)
        return model, tokenizer

    def build(folder: Path) -> None:
        log(f"cad-lsp: preparing the embedded model once (this run only) in {root / name}")
        model, tokenizer = made["pair"] = make()
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)

    try:
        folder = cached_folder(root, name, build)
    except OSError as exc:
        if "pair" not in made:
            made["pair"] = make()
        log(f"cad-lsp: cannot cache the converted model in {root} ({exc}); the next run converts again")
        model, tokenizer = made["pair"]
        return model.to(dtype), tokenizer
    return read_converted(folder, dtype)


def merge_lora(model: torch.nn.Module, folder: str | Path) -> int:
    """Add a saved LoRA adapter's update (scale * B @ A) into the weights it adapts; returns layers merged.

    Merged weights make the adapted model exactly as fast as the base, and
    loading needs only safetensors, not peft.
    """
    from safetensors.torch import load_file

    folder = Path(folder)
    config = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
    scale = config["lora_alpha"] / config["r"]
    state = load_file(str(folder / "adapter_model.safetensors"))
    modules = dict(model.named_modules())
    merged = 0
    with torch.no_grad():
        for key, a in state.items():
            if not key.endswith(".lora_A.weight"):
                continue
            path = key.removeprefix("base_model.model.").removesuffix(".lora_A.weight")
            b = state[key.replace(".lora_A.", ".lora_B.")]
            if path not in modules:
                raise ModelLoadError(f"adapter {folder} names {path}, which this model does not have")
            weight = modules[path].weight
            weight += (scale * (b.float() @ a.float())).to(weight.dtype)
            merged += 1
    return merged


def load_model(name: str, device: str | None = None, dtype: str | torch.dtype | None = None,
               adapter: str | Path | None = None) -> LoadedModel:
    """Load a model and its tokenizer by name; raises ModelLoadError with a clear message.

    ``adapter`` names a LoRA adapter folder to merge into the weights.
    """
    device = device or default_device()
    torch_dtype = parse_dtype(dtype, device)
    shipped = name == "smollm2" and adapter is None and (SMOLLM2_ADAPTER / "adapter_config.json").is_file()
    try:
        if name.startswith("random:"):
            shape = name.split(":", 1)[1]
            model = random_model(shape, torch_dtype)
            tokenizer = load_tokenizer(QWEN_TOKENIZER)
        elif shipped:
            adapter = SMOLLM2_ADAPTER
            model, tokenizer = load_smollm2(torch_dtype, adapter=adapter)  # merged once, then read merged
        elif name in ("smollm2", "smollm2:base"):
            model, tokenizer = load_smollm2(torch_dtype)
        else:
            model, tokenizer = _load_pretrained(name, torch_dtype)
        if adapter is not None and not shipped:
            merge_lora(model, adapter)  # in memory: a cached 540 MB copy per trained adapter would fill disks
    except ModelLoadError:
        raise
    except (OSError, ValueError, ImportError) as exc:
        raise ModelLoadError(f"cannot load model {name!r}: {exc}") from exc
    model.to(device).eval()
    if device == "cpu":
        grouped_query_attention_with_masks()
    return LoadedModel(name, model, tokenizer, torch.device(device), torch_dtype,
                       None if adapter is None else str(adapter), half_precision_advice(device, torch_dtype))


def grouped_query_attention_with_masks() -> None:
    """Let SDPA share key/value heads (``enable_gqa``) in masked forwards too, on CPU.

    Transformers expands the cached keys and values to every query head
    whenever a forward carries a mask, i.e. every forward of more than one
    token after a cached prefix: splices, forced tags and prefill chunks.  At
    a 8k-token context that doubled a 2-token forward of Qwen2.5-0.5B (290 ms
    instead of 142) and the copy is proportional to the document's length.
    On CUDA, masked GQA falls back to the slow math kernel, so this is CPU only.
    Equality with single steps and one-shot forwards is tested.
    """
    os.environ.setdefault("TRANSFORMERS_SDPA_FORCE_GQA", "1")


def _load_pretrained(name: str, dtype: torch.dtype):
    from transformers import AutoModelForCausalLM

    path = Path(name).expanduser()
    if name.startswith((".", "/", "~")) and not path.exists():
        raise ModelLoadError(f"model path {str(path)!r} does not exist")
    source = str(path) if path.exists() else name  # else a hub id (needs the hub or its local cache)
    tokenizer = load_tokenizer(source)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype)
    return model, tokenizer


__all__ = ["LoadedModel", "load_model", "load_smollm2", "merge_lora", "random_model", "parse_dtype",
           "half_precision_advice", "default_device"]
