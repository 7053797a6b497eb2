"""Backends: the models behind the engine's seam, each in a room of its own.

``catalog`` says which files a model name stands for (no model library);
``pytorch`` runs a Hugging Face model in this process (the growing cache,
grouped attention, packed linear layers, loading by name); ``vllm`` sends the
program's requests to a vLLM server.  ``open_engine`` is the one place that
turns a user's choice of model and backend into an engine: the command line,
the background process and the language server all call it.
"""

from __future__ import annotations

BACKENDS = ("local", "vllm")


def open_engine(model: str, device: str | None = None, dtype: str | None = "auto", backend: str = "local",
                vllm_url: str | None = None, **engine_options):
    """An engine for ``model`` on ``backend``; raises ModelLoadError or EngineError with a message for the user.

    Model libraries are imported here, on first use: a caller that never
    loads a model never pays for them.
    """
    if backend == "vllm":
        from .vllm import VLLMEngine

        return VLLMEngine.connect(vllm_url, model)
    if backend != "local":
        raise ValueError(f"unknown backend {backend!r}: use {' or '.join(BACKENDS)}")
    from ..engine.engine import Engine
    from .pytorch import loading
    from .pytorch.local import LocalModel

    return Engine(LocalModel(loading.load_model(model, device, dtype)), **engine_options)


__all__ = ["BACKENDS", "open_engine"]
