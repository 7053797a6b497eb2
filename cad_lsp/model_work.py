"""Model work off the event loop: loading the model, warming and forgetting document caches,
waiting for a model that is still loading, and stopping all of it at exit.

Model work runs in daemon threads; torch is imported inside them (through
``build_engine``), never where this module is imported.
"""

from __future__ import annotations

import asyncio
import threading
import time
import traceback
from typing import Callable, TYPE_CHECKING

from lsprotocol import types as lsp

from .documents import document_name
from .edit_request import NAME, Options, RequestError
from .progress import Progress

if TYPE_CHECKING:  # the server imports this module
    from .server import CadServer

WARM_DELAY_S = 0.5  # debounce: warm a document's cache once typing pauses
MODEL_WAIT_S = 600.0  # how long an edit that arrives during the model load waits for it
EXIT_WAIT_S = 2.0  # at exit, how long model threads get to stop



_threads: set[threading.Thread] = set()  # model work still running


def in_thread(fn: Callable, *args, **kwargs) -> asyncio.Future:
    """Run ``fn`` in a daemon thread and await its result on the loop.

    Daemon threads, not an executor: a server told to exit must not wait for
    a model load to finish (see ``stop_model_work``).
    """
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def deliver(setter, value):
        if not future.done():
            setter(value)

    def run():
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 -- re-raised on the loop
            outcome = (future.set_exception, exc)
        else:
            outcome = (future.set_result, result)
        try:
            loop.call_soon_threadsafe(deliver, *outcome)
        except RuntimeError:
            pass  # the loop is closed: the server is exiting
        finally:
            _threads.discard(threading.current_thread())

    thread = threading.Thread(target=run, daemon=True, name=f"cad-lsp {getattr(fn, '__name__', 'work')}")
    _threads.add(thread)
    thread.start()
    return future


def stop_model_work(ls: CadServer, timeout: float = EXIT_WAIT_S) -> bool:
    """Cancel edits and give model threads ``timeout`` seconds to leave torch; True if all did.

    A decode stops at its next forward; a model load cannot be interrupted.
    """
    ls.cancel_edits()
    deadline = time.monotonic() + timeout
    for thread in list(_threads):
        thread.join(max(0.0, deadline - time.monotonic()))
    return not any(thread.is_alive() for thread in _threads)


class CacheJobs:
    """Warm and forget document caches one at a time, off the event loop.

    Jobs are keyed by URI and the latest job for a URI replaces a pending one,
    so a burst of changes costs one warm.  Forgetting goes first (it frees
    memory at once); then the document the user touched last (``recency``), so
    the one on screen is warm before those opened long ago.  The engine lock
    orders them with edits.
    """

    def __init__(self, on_error: Callable[[str], None], recency: Callable[[str], float] = lambda uri: 0.0):
        self.jobs: dict[str, tuple[bool, Callable[[], object]]] = {}
        self.on_error, self.recency = on_error, recency
        self.task: asyncio.Task | None = None

    def put(self, uri: str, job: Callable[[], object], first: bool = False) -> None:
        self.jobs.pop(uri, None)
        self.jobs[uri] = (first, job)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def next_uri(self) -> str:
        return max(self.jobs, key=lambda uri: (self.jobs[uri][0], self.recency(uri)))

    async def _run(self) -> None:
        while self.jobs:
            uri = self.next_uri()
            _, job = self.jobs.pop(uri)
            try:
                await in_thread(job)
            except Exception as exc:  # noqa: BLE001 -- a failed warm only costs speed
                self.on_error(f"cache work on {uri} failed: {exc}")


def build_engine(options: Options):
    """Load the model and wrap it in an Engine; runs in a thread (torch is imported here, not on the loop)."""
    from transformers.utils import logging as transformers_logging

    # No progress bars on stderr: editors show each stderr line as an error, and the load has its own progress.
    transformers_logging.disable_progress_bar()
    from .engine import Engine
    from .models import load_model

    if options.backend == "vllm":
        from .vllm_backend import VLLMEngine

        return VLLMEngine.connect(options.vllm_url, options.model)
    if options.backend != "local":
        raise ValueError(f"unknown backend {options.backend!r}: use local or vllm")
    return Engine(load_model(options.model, options.device, options.dtype), max_documents=options.max_documents,
                  context_lines=options.context_lines)


async def load_engine(ls: CadServer) -> None:
    """Load the model in a thread; a failure is shown once and answers every later edit."""
    options = ls.options
    progress = Progress(ls, f"{NAME}: loading {options.model}")
    await progress.begin(f"{options.model} on {options.device or 'the default device'}")
    started = time.monotonic()
    try:
        ls.engine = await in_thread(build_engine, options)
    except Exception as exc:  # noqa: BLE001 -- ModelLoadError and anything the loaders raise
        ls.load_error = str(exc) or type(exc).__name__
        ls.log(traceback.format_exc(), lsp.MessageType.Log)
        ls.show(f"cannot load the model {options.model!r}: {ls.load_error}", lsp.MessageType.Error)
        progress.end("failed")
    else:
        elapsed = time.monotonic() - started
        ls.log(f"model {options.model} loaded in {elapsed:.1f} s")
        progress.end(f"loaded in {elapsed:.1f} s")
        advice = getattr(ls.engine, "advice", None)
        if advice:
            ls.show(advice, lsp.MessageType.Warning)
        for uri in ls.documents.uris():
            schedule_warm(ls, uri, delay=0.0)
    finally:
        ls.model_ready.set()


def schedule_warm(ls: CadServer, uri: str, delay: float = WARM_DELAY_S) -> None:
    """Warm the document's prompt cache once changes pause for ``delay`` seconds."""
    timer = ls.warm_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    if ls.engine is None:
        return  # warmed when the model has loaded

    def queue_warm() -> None:
        ls.warm_timers.pop(uri, None)
        snapshot = ls.documents.get(uri)
        if snapshot is not None and ls.engine is not None and snapshot.text:
            stale = lambda: getattr(ls.documents.get(uri), "version", None) != snapshot.version  # noqa: E731
            # A long document is warmed as the window around where the user is when the warm starts (an edit
            # may have moved it meanwhile).  A warm of text the user has changed since stops at its next chunk:
            # the next pause warms the new text.
            ls.cache_jobs.put(uri, lambda: ls.engine.warm(uri, snapshot.text, document_name(uri),
                                                          line=ls.viewed_lines.get(uri), cancel=stale))

    ls.warm_timers[uri] = asyncio.get_running_loop().call_later(delay, queue_warm)


def forget_document(ls: CadServer, uri: str) -> None:
    timer = ls.warm_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    if ls.engine is not None:
        ls.cache_jobs.put(uri, lambda: ls.engine.forget(uri), first=True)  # forget takes the engine lock: not on the loop


async def wait_for_engine(ls: CadServer, cancel: threading.Event, progress: Progress):
    """The engine, waiting up to MODEL_WAIT_S for a model that is still loading."""
    waited = not ls.model_ready.is_set()
    if waited:
        progress.report(f"waiting for the model {ls.options.model} to load")
        deadline = time.monotonic() + MODEL_WAIT_S
        while not ls.model_ready.is_set():
            if cancel.is_set():
                raise RequestError("cancelled while the model was loading; nothing applied", lsp.MessageType.Info)
            if time.monotonic() > deadline:
                raise RequestError(f"the model is still loading after {MODEL_WAIT_S:.0f} s; try again later")
            try:
                await asyncio.wait_for(ls.model_ready.wait(), 0.1)
            except asyncio.TimeoutError:
                pass
    if ls.engine is None:  # an edit that waited for the load: the load's own message has told the user
        raise RequestError(f"the model {ls.options.model!r} could not be loaded: {ls.load_error}",
                           lsp.MessageType.Log if waited else lsp.MessageType.Error)
    return ls.engine
