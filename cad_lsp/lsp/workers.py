"""Threads for model work: a function run off the event loop and awaited on it, and a queue of cache jobs.

Daemon threads, not an executor: a server told to exit must not wait for a
model load to finish (``join_workers`` gives them a moment, then the process
leaves without them).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Callable

_threads: set[threading.Thread] = set()  # model work still running


def in_thread(fn: Callable, *args, **kwargs) -> asyncio.Future:
    """Run ``fn`` in a daemon thread and await its result on the loop.

    Exceptions are re-raised on the loop.
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


def join_workers(timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for the threads still running; True if none is left."""
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


__all__ = ["in_thread", "join_workers", "CacheJobs"]
