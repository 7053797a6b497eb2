"""Model work off the event loop: loading the model, warming and forgetting document caches,
waiting for a model that is still loading, and stopping all of it at exit.

Model work runs in worker threads (``workers``); torch is imported inside
them (through ``build_engine``), never where this module is imported.
"""

from __future__ import annotations

import asyncio
import threading
import time
import traceback

from lsprotocol import types as lsp

from .documents import document_name
from .progress import Progress
from .requests import NAME, Options, RequestError
from .session import Session
from .workers import in_thread, join_workers

# Debounce: warm a document's cache once typing pauses this long.  A warm after a change reads the window again
# from the change on; pauses of half a second come every few seconds of typing and are mostly followed by more
# typing (bench serve: 5 in 100 changes over 20 s, each warm then undone by the next character).
WARM_DELAY_S = 1.0
MODEL_WAIT_S = 600.0  # how long an edit that arrives during the model load waits for it
EXIT_WAIT_S = 2.0  # at exit, how long model threads get to stop


def stop_model_work(session: Session, timeout: float = EXIT_WAIT_S) -> bool:
    """Cancel edits and give model threads ``timeout`` seconds to leave torch; True if all did.

    A decode stops at its next forward; a model load cannot be interrupted.
    """
    session.edits.cancel_all()
    return join_workers(timeout)


def build_engine(options: Options):
    """Load the model and wrap it in an engine; runs in a thread (torch is imported here, not on the loop)."""
    from ..backends import open_engine, resolve_backend

    try:
        llamacpp = resolve_backend(options.model, options.backend) == "llamacpp"  # the one that loads no transformers
    except ValueError:
        llamacpp = False  # open_engine says what is wrong with the name
    if not llamacpp:
        from transformers.utils import logging as transformers_logging

        # No progress bars on stderr: editors show each stderr line as an error, and the load has its own progress.
        transformers_logging.disable_progress_bar()

    return open_engine(options.model, options.device, options.dtype, options.backend, options.vllm_url,
                       max_documents=options.max_documents, context_lines=options.context_lines)


async def load_engine(session: Session) -> None:
    """Load the model in a thread; a failure is shown once and answers every later edit."""
    options, model, editor = session.options, session.model, session.editor
    progress = Progress(editor, f"{NAME}: loading {options.model}")
    await progress.begin(f"{options.model} on {options.device or 'the default device'}")
    started = time.monotonic()
    try:
        model.engine = await in_thread(build_engine, options)
    except Exception as exc:  # noqa: BLE001 -- ModelLoadError and anything the loaders raise
        model.load_error = str(exc) or type(exc).__name__
        editor.log(traceback.format_exc(), lsp.MessageType.Log)
        editor.show(f"cannot load the model {options.model!r}: {model.load_error}", lsp.MessageType.Error)
        progress.end("failed")
    else:
        elapsed = time.monotonic() - started
        editor.log(f"model {options.model} loaded in {elapsed:.1f} s")
        progress.end(f"loaded in {elapsed:.1f} s")
        advice = getattr(model.engine, "advice", None)
        if advice:
            editor.show(advice, lsp.MessageType.Warning)
        for uri in session.documents.uris():
            schedule_warm(session, uri, delay=0.0)
    finally:
        model.ready.set()


def schedule_warm(session: Session, uri: str, delay: float | None = None) -> None:
    """Warm the document's prompt cache once changes pause for ``delay`` seconds (WARM_DELAY_S)."""
    timer = session.warm_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    engine, documents = session.model.engine, session.documents
    if engine is None:
        return  # warmed when the model has loaded

    def queue_warm() -> None:
        session.warm_timers.pop(uri, None)
        snapshot = documents.get(uri)
        if snapshot is not None and snapshot.text:
            stale = lambda: getattr(documents.get(uri), "version", None) != snapshot.version  # noqa: E731
            # A long document is warmed as the window around where the user is when the warm starts (an edit
            # may have moved it meanwhile).  A warm of text the user has changed since stops at its next chunk:
            # the next pause warms the new text.
            session.cache_jobs.put(uri, lambda: engine.warm(uri, snapshot.text, document_name(uri),
                                                            line=session.viewed_lines.get(uri), cancel=stale))

    session.warm_timers[uri] = asyncio.get_running_loop().call_later(WARM_DELAY_S if delay is None else delay,
                                                                      queue_warm)


def forget_document(session: Session, uri: str) -> None:
    timer = session.warm_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    engine = session.model.engine
    if engine is not None:  # forget takes the engine lock: not on the loop
        session.cache_jobs.put(uri, lambda: engine.forget(uri), first=True)


async def wait_for_engine(session: Session, cancel: threading.Event, progress: Progress):
    """The engine, waiting up to MODEL_WAIT_S for a model that is still loading."""
    model = session.model
    waited = not model.ready.is_set()
    if waited:
        progress.report(f"waiting for the model {session.options.model} to load")
        deadline = time.monotonic() + MODEL_WAIT_S
        while not model.ready.is_set():
            if cancel.is_set():
                raise RequestError("cancelled while the model was loading; nothing applied", lsp.MessageType.Info)
            if time.monotonic() > deadline:
                raise RequestError(f"the model is still loading after {MODEL_WAIT_S:.0f} s; try again later")
            try:
                await asyncio.wait_for(model.ready.wait(), 0.1)
            except asyncio.TimeoutError:
                pass
    if model.engine is None:  # an edit that waited for the load: the load's own message has told the user
        raise RequestError(f"the model {session.options.model!r} could not be loaded: {model.load_error}",
                           lsp.MessageType.Log if waited else lsp.MessageType.Error)
    return model.engine
