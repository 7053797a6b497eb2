"""Warming gives way: an edit that arrives during another document's long warm goes first, within one chunk."""

import threading
import time

from cad_lsp import engine as engine_mod
from cad_lsp.engine import Engine
from cad_lsp.models import load_model
from cad_lsp.prompt import document_prefix_ids


def test_an_edit_during_a_long_warm_starts_within_one_prefill_chunk(monkeypatch):
    monkeypatch.setattr(engine_mod, "PREFILL_CHUNK", 16)
    engine = Engine(load_model("random:tiny", "cpu", "fp32"))
    long_document = "".join(f"value_{i} = {i} * 2\n" for i in range(200))
    prefix = document_prefix_ids(engine.tokenizer, long_document)
    chunks = -(-len(prefix) // 16)
    assert chunks > 20  # a long warm

    log = []  # ("warm" | "edit", ...) per forward, in order
    edit_waiting = threading.Event()
    extend = engine.backend.extend

    def recording(state, ids):
        who = "warm" if state is engine._states.get("long") else "edit"
        if who == "warm" and log.count("warm") == 3:  # the edit arrives during the warm's fourth chunk
            editor.start()
            while not engine._edits_waiting:
                time.sleep(0.001)
            log.append("edit arrives")
        log.append(who)
        return extend(state, ids)

    monkeypatch.setattr(engine.backend, "extend", recording)
    editor = threading.Thread(target=lambda: engine.edit("x = 1\n", 1, 1, "y", key="other", max_tokens=4))
    computed = engine.warm("long", long_document)
    editor.join()

    arrived = log.index("edit arrives")
    assert log[arrived + 1] == "warm"  # the chunk already under way finishes...
    assert log[arrived + 2] == "edit"  # ...and the edit starts before the warm's next chunk
    first_warm_after = log.index("warm", arrived + 2)
    assert "edit" not in log[first_warm_after:]  # the whole edit ran before warming resumed
    assert computed == len(prefix) and log.count("warm") == chunks  # the warm finished, nothing computed twice
    assert engine._states["long"].ids == prefix


def test_a_cancelled_warm_keeps_what_it_computed(monkeypatch):
    monkeypatch.setattr(engine_mod, "PREFILL_CHUNK", 16)
    engine = Engine(load_model("random:tiny", "cpu", "fp32"))
    document = "".join(f"value_{i} = {i} * 2\n" for i in range(60))
    forwards = engine.backend.forwards
    stop = lambda: engine.backend.forwards - forwards >= 2  # noqa: E731
    assert engine.warm("doc", document, cancel=stop) == 32
    prefix = document_prefix_ids(engine.tokenizer, document)
    assert engine.warm("doc", document) == len(prefix) - 32


def test_warming_waits_while_an_edit_waits_for_the_engine():
    """The rule itself, without racing threads: no chunk is computed while an edit is waiting."""
    engine = Engine(load_model("random:tiny", "cpu", "fp32"))
    document = "".join(f"value_{i} = {i} * 2\n" for i in range(60))
    with engine._turn:
        engine._edits_waiting = 1  # an edit is waiting for the lock
    forwards = engine.backend.forwards
    warming = threading.Thread(target=engine.warm, args=("doc", document))
    warming.start()
    warming.join(timeout=3.0)
    assert warming.is_alive() and engine.backend.forwards == forwards  # not one chunk while it waits
    with engine._turn:
        engine._edits_waiting = 0
        engine._turn.notify_all()
    warming.join()
    assert engine._states["doc"].ids == document_prefix_ids(engine.tokenizer, document)
