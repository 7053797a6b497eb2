"""Backends: the models behind the engine's seam, each in a room of its own.

``catalog`` says which files a model name stands for (no model library);
``pytorch`` runs a Hugging Face model in this process (the growing cache,
grouped attention, packed linear layers, loading by name); ``llamacpp`` runs
a GGUF file through llama.cpp in this process; ``vllm`` sends the program's
requests to a vLLM server.  ``open_engine`` is the one place that
turns a user's choice of model and backend into an engine: the command line,
the background process and the language server all call it.
"""

from __future__ import annotations

BACKENDS = ("auto", "torch", "llamacpp", "vllm")
ALIASES = {"local": "torch"}  # the name the in-process PyTorch backend had before llama.cpp joined it


def resolve_backend(model: str, backend: str | None = "auto") -> str:
    """The backend that runs ``model``: ``auto`` picks llama.cpp for GGUF names, PyTorch otherwise.

    The embedded model stays on PyTorch unless llama.cpp is asked for: its
    file is Q4_1, which llama.cpp multiplies a batch at a time without its
    fast matrix kernels, so a copy's forward (most of an apply) costs about
    2.1 times PyTorch's fp32 one on a 2-core CPU (``bench llamacpp``: 64
    tokens in 401 ms against 189), while a decode step costs 0.34 of its.
    Raises ValueError for an unknown name.
    """
    from .catalog import is_gguf_name

    backend = ALIASES.get(backend or "auto", backend or "auto")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: use {', '.join(BACKENDS)}")
    if backend != "auto":
        return backend
    return "llamacpp" if is_gguf_name(model) else "torch"


def open_engine(model: str, device: str | None = None, dtype: str | None = "auto", backend: str = "auto",
                vllm_url: str | None = None, **engine_options):
    """An engine for ``model`` on ``backend``; raises ModelLoadError or EngineError with a message for the user.

    Model libraries are imported here, on first use: a caller that never
    loads a model never pays for them.
    """
    from .catalog import ModelLoadError

    try:
        backend = resolve_backend(model, backend)
    except ValueError as exc:
        raise ModelLoadError(str(exc)) from None
    if backend == "vllm":
        from .vllm import VLLMEngine

        return VLLMEngine.connect(vllm_url, model)
    from ..engine.engine import Engine

    if backend == "llamacpp":
        from .llamacpp import load as load_gguf

        if device not in (None, "cpu") or dtype not in (None, "auto"):
            raise ModelLoadError("the llama.cpp backend runs the GGUF file's own types on the CPU: leave --device "
                                 "and --dtype unset (a GGUF file is quantized when it is made)")
        return Engine(load_gguf(model), **engine_options)
    from .catalog import is_gguf_name

    if is_gguf_name(model):
        raise ModelLoadError(f"{model} is a GGUF file, which the llama.cpp backend runs: use --backend auto or "
                             f"llamacpp (install it with pip install 'cad-lsp[llamacpp]')")
    from .pytorch import loading
    from .pytorch.local import LocalModel

    return Engine(LocalModel(loading.load_model(model, device, dtype)), **engine_options)


__all__ = ["BACKENDS", "ALIASES", "resolve_backend", "open_engine"]
