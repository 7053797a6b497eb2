"""``cad-lsp http``: the settings checked, the model loaded, the app served by uvicorn."""

from __future__ import annotations

import logging
import sys

import uvicorn

from .app import create_app
from .model import ModelHolder
from .settings import Settings

log = logging.getLogger(__name__)


def build_server(settings: Settings, engine) -> uvicorn.Server:
    """A uvicorn server for ``engine`` (any object with ``Engine.apply``'s signature): tests pass their own."""
    holder = ModelHolder(engine, settings.model, queue=settings.queue, max_tokens=settings.max_tokens,
                         remote=settings.backend == "vllm")
    config = uvicorn.Config(create_app(settings, holder), host=settings.host, port=settings.port,
                            log_level=settings.log_level, timeout_graceful_shutdown=5, server_header=False)
    return uvicorn.Server(config)


def serve(settings: Settings) -> int:
    problem = settings.problem()  # before the model loads: a refusal takes no minute
    if problem is not None:
        print(f"cad-lsp: {problem}", file=sys.stderr)
        return 2
    logging.basicConfig(stream=sys.stderr, level=settings.log_level.upper(),
                        format="cad-lsp %(levelname)s: %(message)s")
    from ..backends import open_engine
    from ..backends.catalog import ModelLoadError
    from ..engine.backend import EngineError

    try:
        engine = open_engine(settings.model, settings.device, settings.dtype, settings.backend, settings.vllm_url,
                             context_lines=settings.context_lines)
    except (ModelLoadError, EngineError) as exc:
        print(f"cad-lsp: {exc}", file=sys.stderr)
        return 2
    if getattr(engine, "advice", None):
        print(f"cad-lsp: {engine.advice}", file=sys.stderr)
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    print(f"cad-lsp: serving {settings.model} at http://{host}:{settings.port}/v1 (POST /v1/chat/completions, "
          f"Morph's apply format){'' if settings.api_key else '; no API key'}", file=sys.stderr, flush=True)
    server = build_server(settings, engine)
    server.run()
    return 0 if server.started else 1
