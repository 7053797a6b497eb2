"""The llama.cpp backend: GGUF models (a file, Ollama's store, the embedded model's own file) in this process.

``model`` puts llama-cpp-python's low-level API behind the engine's seam;
``lora_gguf`` writes the shipped LoRA adapter in the GGUF form llama.cpp
applies at run time.  llama-cpp-python is an extra (``cad-lsp[llamacpp]``),
imported only when this backend is chosen.
"""

from __future__ import annotations

from pathlib import Path

from ..catalog import SMOLLM2_ADAPTER_GGUF, ModelLoadError, gguf_file


def installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


def load(name: str, adapter: str | Path | None = None):
    """A ``LlamaCppModel`` for a model name: ``gguf:PATH``, ``ollama:NAME[:TAG]``, ``smollm2`` (with its adapter)."""
    from .model import LlamaCppModel

    if name == "smollm2" and adapter is None:
        if not SMOLLM2_ADAPTER_GGUF.is_file():
            raise ModelLoadError(f"the embedded model's adapter {SMOLLM2_ADAPTER_GGUF} is missing; reinstall cad-lsp")
        adapter = SMOLLM2_ADAPTER_GGUF
    return LlamaCppModel(name, gguf_file(name), adapter=adapter)


__all__ = ["installed", "load"]
