"""A `cad-lsp http` server in this process, on a free loopback port, for the tests; and engines that hold a
request (to fill the queue, to see a cancel) or force the merge the update implies (a known right answer)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass

from cad_lsp.engine import Cancelled, plan_apply
from cad_lsp.http.model import ModelHolder
from cad_lsp.http.server import build_server
from cad_lsp.http.settings import Settings
from cad_lsp.program import oracle_for_selection


@dataclass
class Served:
    url: str  # the API's base URL, ending in /v1
    port: int
    holder: ModelHolder


@contextlib.contextmanager
def running(engine, **settings):
    """Serve ``engine`` with these settings until the block ends; the server is stopped and its thread joined."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings = Settings(**{"port": port, "model": "random:tiny", "log_level": "warning", **settings})
    server = build_server(settings, engine)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield Served(f"http://127.0.0.1:{port}/v1", port, server.config.app.state.holder)
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
        assert not thread.is_alive(), "the server did not stop"


class TeacherEngine:
    """The real engine, teacher-forced through the program the update's placement implies: its answer is the
    deterministic merge (``merge_update``), which the tests know without the engine."""

    def __init__(self, engine):
        self.engine = engine

    def apply(self, document, update, instruction=None, **kwargs):
        job = plan_apply(document, update, instruction, kwargs.get("language"), kwargs.get("force", False))
        plan = oracle_for_selection(document, job.merge.first, job.merge.last, job.merge.text)
        return self.engine.apply(document, update, instruction, program=plan, **kwargs)


class HoldingEngine:
    """The inner engine, held after a request's first piece of text (the lines before the change) until
    ``release`` is set, watching the request's cancel flag meanwhile.  Records what it saw."""

    def __init__(self, inner):
        self.inner = inner
        self.release = threading.Event()
        self.started = threading.Semaphore(0)  # released once per request that reached its first piece
        self.calls = 0
        self.cancelled = threading.Event()  # a held request's cancel flag was seen set

    def apply(self, document, update, instruction=None, *, cancel=None, on_text=None, **kwargs):
        self.calls += 1
        first = True

        def held(piece: str) -> None:
            nonlocal first
            if on_text is not None:
                on_text(piece)
            if first:
                first = False
                self.started.release()
                while not self.release.wait(0.01):
                    if cancel is not None and cancel.is_set():
                        self.cancelled.set()
                        raise Cancelled("cancelled")

        return self.inner.apply(document, update, instruction, cancel=cancel, on_text=held, **kwargs)
