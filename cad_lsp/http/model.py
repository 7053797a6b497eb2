"""The model behind the endpoint: one engine, requests taken in turn from a bounded queue, and the key that
keeps a file's prompt cache warm from one apply to the next.

The engine decodes one request at a time and is not async, so requests run
on one worker thread; the event loop only waits for what the worker sends
back (the merged file's pieces, then the end).  A request whose client left
is cancelled: dropped before it starts, or stopped at its next forward.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from ..engine.backend import Cancelled
from ..program import apply_program
from .errors import APIError
from .schema import ApplyRequest

TEXT, DONE, FAILED = "text", "done", "failed"  # what a run reports: a piece of the merged file, the end, a failure


class WarmKeys:
    """The engine's cache key for a file's text: the hash of the text, or, for a file this server merged, the
    key of the file it was merged from.

    A client usually applies its next change to the file it just got back:
    that file shares the old one's prompt up to the first changed line, so
    under the old key only the rest is computed again.
    """

    def __init__(self, remembered: int = 256):
        self.remembered = remembered
        self._keys: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def digest(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def key_for(self, text: str) -> str:
        digest = self.digest(text)
        with self._lock:
            key = self._keys.pop(digest, None) or f"http-{digest[:24]}"
            self._remember(digest, key)
        return key

    def inherit(self, text: str, key: str) -> None:
        """``text`` (a merged file) is to be served from ``key``'s cache."""
        digest = self.digest(text)
        with self._lock:
            self._keys.pop(digest, None)
            self._remember(digest, key)

    def _remember(self, digest: str, key: str) -> None:
        self._keys[digest] = key
        while len(self._keys) > self.remembered:
            self._keys.popitem(last=False)


class Run:
    """One admitted request: its reports, delivered on the event loop, and its cancel flag for the engine."""

    def __init__(self, loop: asyncio.AbstractEventLoop, request: ApplyRequest):
        self.request = request
        self.cancel = threading.Event()
        self.pieces: list[str] = []  # the merged file as decided, on the worker's side
        self._loop = loop
        self._reports: asyncio.Queue = asyncio.Queue()
        self.future: Future | None = None

    def report(self, kind: str, value) -> None:
        """From any thread: hand a report to the event loop (which may have closed: then nobody waits)."""
        try:
            self._loop.call_soon_threadsafe(self._reports.put_nowait, (kind, value))
        except RuntimeError:
            pass

    def on_text(self, piece: str) -> None:
        self.pieces.append(piece)
        if self.request.stream and piece:
            self.report(TEXT, piece)

    async def next(self) -> tuple[str, object]:
        return await self._reports.get()

    def ready(self) -> tuple[str, object] | None:
        """A report already delivered, without waiting, or None."""
        try:
            return self._reports.get_nowait()
        except asyncio.QueueEmpty:
            return None

    def abandon(self) -> None:
        """The client left: drop the request if it has not started, stop its decode if it has."""
        self.cancel.set()
        if self.future is not None:
            self.future.cancel()


@dataclass
class Outcome:
    """A finished apply: the answer's text and whether it is the whole merged file."""

    text: str
    complete: bool
    stats: object  # the engine's Stats
    result: object  # the engine's EditResult


class ModelHolder:
    """The engine behind a bounded queue: ``queue`` requests may wait while one runs; past them, 429."""

    def __init__(self, engine, name: str, *, queue: int = 8, max_tokens: int | None = None, remote: bool = False):
        self.engine = engine
        self.name = name  # what /v1/models lists; any name is served by this model
        self.remote = remote  # a vLLM engine: its failures are the serving engine's, not the request's
        self.capacity = queue + 1
        self.max_tokens = max_tokens
        self.keys = WarmKeys()
        self._admitted = 0
        self._runs: set[Run] = set()
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cad-lsp-http-apply")

    @property
    def admitted(self) -> int:
        """Requests running or waiting now."""
        return self._admitted

    def submit(self, request: ApplyRequest) -> Run:
        """Queue ``request`` on the engine; APIError 429 when the queue is full.  Call on the event loop."""
        with self._lock:
            if self._admitted >= self.capacity:
                raise APIError(429, f"the server is busy: {self.capacity - 1} requests are already waiting for the "
                               "model; try again shortly", code="queue_full", headers={"Retry-After": "1"})
            self._admitted += 1
            run = Run(asyncio.get_running_loop(), request)
            self._runs.add(run)
        run.future = self._worker.submit(self._apply, run)
        run.future.add_done_callback(lambda future: self._release(run, future))
        return run

    def _release(self, run: Run, future: Future) -> None:
        with self._lock:
            self._admitted -= 1
            self._runs.discard(run)
        if future.cancelled():  # dropped from the queue before it started
            run.report(FAILED, Cancelled("the request was dropped: its client left"))

    def _limit(self, asked: int | None) -> int | None:
        limits = [n for n in (asked, self.max_tokens) if n is not None]
        return min(limits) if limits else None

    def _apply(self, run: Run) -> None:
        """On the worker thread: one apply, reported piece by piece, then its end (never raises)."""
        request = run.request
        try:
            if run.cancel.is_set():
                raise Cancelled("the request was dropped: its client left")
            key = self.keys.key_for(request.code)
            result = self.engine.apply(request.code, request.update, request.instruction, key=key,
                                       max_tokens=self._limit(request.max_tokens), temperature=request.temperature,
                                       top_p=request.top_p, seed=request.seed, cancel=run.cancel, on_text=run.on_text,
                                       language=request.language, force=request.force)
            if result.complete:
                text = apply_program(result.ops, request.code, result.first_line, result.last_line)
                self.keys.inherit(text, key)
            else:  # what was decided before the limit: never completed with the old file's rest
                text = "".join(run.pieces)
            run.report(DONE, Outcome(text, result.complete, result.stats, result))
        except BaseException as exc:  # noqa: BLE001 - every failure is reported to the request's answer
            run.report(FAILED, exc)

    def close(self) -> None:
        """Stop every request (the server is stopping) and let the worker go."""
        with self._lock:
            runs = list(self._runs)
        for run in runs:
            run.abandon()
        self._worker.shutdown(wait=False, cancel_futures=True)
