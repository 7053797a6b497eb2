"""Warming gives way: an edit that arrives during another document's long warm goes first, within one chunk."""

import threading
import time

from cad_lsp.backends.pytorch import LocalModel
from cad_lsp.backends.pytorch.loading import load_model
from cad_lsp.engine import Engine
from cad_lsp.engine import engine as engine_mod
from cad_lsp.engine.prompt import document_prefix_ids


def test_an_edit_during_a_long_warm_starts_within_one_warm_chunk(monkeypatch):
    monkeypatch.setattr(engine_mod, "WARM_CHUNK", 16)
    engine = Engine(LocalModel(load_model("random:tiny", "cpu", "fp32")))
    long_document = "".join(f"value_{i} = {i} * 2\n" for i in range(200))
    prefix = document_prefix_ids(engine.tokenizer, long_document)
    chunks = -(-len(prefix) // 16)
    assert chunks > 20  # a long warm

    log = []  # ("warm" | "edit", ...) per forward, in order
    extend = engine.backend.extend

    def recording(state, ids):
        who = "warm" if state is engine.cache_of("long") else "edit"
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
    assert engine.cache_of("long").ids == prefix


LONG = "".join(f"value_{i} = {i} * 2\n" for i in range(1000))


def _warm_with_an_edit_arriving(monkeypatch, edit, before=None) -> tuple[Engine, int, list[int]]:
    """Warm the top window of LONG (document "long") while ``edit(engine)`` arrives during its sixth chunk
    (after ``before(engine)``, if given)."""
    monkeypatch.setattr(engine_mod, "WARM_CHUNK", 16)
    engine = Engine(LocalModel(load_model("random:tiny", "cpu", "fp32")), context_lines=128)
    if before is not None:
        before(engine)
    extend, warm_chunks = engine.backend.extend, []

    def recording(state, ids):
        if threading.current_thread() is threading.main_thread():
            warm_chunks.append(len(ids))
            if len(warm_chunks) == 6:  # the edit arrives during the warm's sixth chunk, past the file's header
                editor.start()
                while not engine._edits_waiting:
                    time.sleep(0.001)
        return extend(state, ids)

    monkeypatch.setattr(engine.backend, "extend", recording)
    editor = threading.Thread(target=lambda: edit(engine))
    computed = engine.warm("long", LONG, line=1)
    editor.join()
    return engine, computed, warm_chunks


def test_a_warm_of_a_window_the_user_has_left_gives_way_to_the_edit_elsewhere(monkeypatch):
    """The warm of the top of a long file stops when an edit far below it arrives: that edit does not show it."""
    engine, computed, warm_chunks = _warm_with_an_edit_arriving(
        monkeypatch, lambda engine: engine.edit(LONG, 900, 901, "y", key="long", max_tokens=4))
    top = engine.prompt_prefix(LONG, 1, 1, key="long")
    assert len(warm_chunks) == 6 and computed == 6 * 16 < len(top)  # it stopped after the chunk under way
    assert engine.warm("long", LONG, line=1) == len(top) - computed  # what it computed stays, at its place
    assert engine.warm("long", LONG, line=900) == 0  # and so does the edit's window


def test_an_edit_on_another_document_does_not_stop_a_warm(monkeypatch):
    """The warm waits for it, then runs to its end, whatever the warmed document's own last request showed."""
    engine, computed, _ = _warm_with_an_edit_arriving(
        monkeypatch, lambda engine: engine.edit("x = 1\n", 1, 1, "y", key="other", max_tokens=4),
        before=lambda engine: engine.edit(LONG, 900, 901, "y", key="long", max_tokens=4))  # "long" showed another window
    assert computed == len(engine.prompt_prefix(LONG, 1, 1, key="long"))


def test_a_cancelled_warm_keeps_what_it_computed(monkeypatch):
    monkeypatch.setattr(engine_mod, "WARM_CHUNK", 16)
    engine = Engine(LocalModel(load_model("random:tiny", "cpu", "fp32")))
    document = "".join(f"value_{i} = {i} * 2\n" for i in range(60))
    forwards = engine.backend.forwards
    stop = lambda: engine.backend.forwards - forwards >= 2  # noqa: E731
    assert engine.warm("doc", document, cancel=stop) == 32
    prefix = document_prefix_ids(engine.tokenizer, document)
    assert engine.warm("doc", document) == len(prefix) - 32


def test_warming_waits_while_an_edit_waits_for_the_engine():
    """The rule itself, without racing threads: no chunk is computed while an edit is waiting."""
    engine = Engine(LocalModel(load_model("random:tiny", "cpu", "fp32")))
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
    assert engine.cache_of("doc").ids == document_prefix_ids(engine.tokenizer, document)


# ---------------------------------------------------------------------------
# The server's side: which warm runs, and when one stops


class RecordingEngine:
    """Stands in for the engine: a warm is ``chunks`` steps, checking ``cancel`` before each, as Engine.warm does."""

    def __init__(self, chunks: int = 40):
        self.chunks, self.runs, self.started = chunks, [], threading.Event()

    def warm(self, key, text, name="document", line=None, cancel=None):
        done = 0
        self.started.set()
        for _ in range(self.chunks):
            if cancel is not None and cancel():
                break
            time.sleep(0.01)
            done += 1
        self.runs.append((key, text, done))
        return done

    def forget(self, key):
        self.runs.append((key, None, 0))


def server_state(engine):
    """The server's session with ``engine`` loaded, talking to no editor."""
    from types import SimpleNamespace

    from cad_lsp.lsp.requests import Options
    from cad_lsp.lsp.session import Session
    from cad_lsp.lsp.workers import CacheJobs

    session = Session(Options(), editor=SimpleNamespace(position_encoding=lsp_encoding("utf-16")))
    session.model.engine = engine
    session.cache_jobs = CacheJobs(print, recency=lambda uri: session.last_seen.get(uri, 0.0))
    return session


def lsp_encoding(name: str):
    from lsprotocol import types as lsp

    return lsp.PositionEncodingKind(name)


async def test_a_warm_of_text_the_user_has_since_changed_stops_and_the_new_text_is_warmed():
    import asyncio

    from lsprotocol import types as lsp

    from cad_lsp.lsp.model_work import schedule_warm

    engine = RecordingEngine()
    ls = server_state(engine)
    ls.documents.open("file:///a.py", 1, "x = 1\n")
    schedule_warm(ls, "file:///a.py", delay=0.0)
    while not engine.started.is_set():
        await asyncio.sleep(0.005)
    ls.documents.change("file:///a.py", 2, [lsp.TextDocumentContentChangeWholeDocument(text="x = 2\n")], "utf-16")
    schedule_warm(ls, "file:///a.py", delay=0.0)
    while len(engine.runs) < 2:
        await asyncio.sleep(0.01)
    (_, first_text, first_done), (_, second_text, second_done) = engine.runs
    assert first_text == "x = 1\n" and first_done < engine.chunks  # stopped early: its text was out of date
    assert second_text == "x = 2\n" and second_done == engine.chunks


async def test_forgetting_goes_first_then_the_document_the_user_touched_last():
    import asyncio

    engine = RecordingEngine(chunks=5)
    ls = server_state(engine)
    gate = threading.Event()
    ls.cache_jobs.put("busy", gate.wait)  # holds the queue while the others arrive
    ls.last_seen.update({"old": 1.0, "viewed": 3.0, "opened": 2.0})
    for uri in ("old", "viewed", "opened"):
        ls.cache_jobs.put(uri, lambda uri=uri: engine.warm(uri, ""))
    ls.cache_jobs.put("closed", lambda: engine.forget("closed"), first=True)
    gate.set()
    while len(engine.runs) < 4:
        await asyncio.sleep(0.01)
    assert [key for key, _, _ in engine.runs] == ["closed", "viewed", "opened", "old"]


async def test_the_first_look_into_another_block_of_a_long_document_warms_the_window_there():
    """A long document is warmed at its top when opened; the user's first selection elsewhere warms there."""
    import asyncio

    from cad_lsp.lsp.server import note_viewed_line

    engine = RecordingEngine(chunks=1)
    calls = []
    engine.warm = lambda key, text, name="document", line=None, cancel=None: calls.append(line)
    ls = server_state(engine)
    ls.documents.open("file:///long.py", 1, "x = 1\n" * 300)
    note_viewed_line(ls, "file:///long.py", 10)  # the block at the top: nothing new to warm
    await asyncio.sleep(0.8)
    assert calls == [] and not ls.warm_timers
    note_viewed_line(ls, "file:///long.py", 200)
    while not calls:
        await asyncio.sleep(0.05)
    assert calls == [200]


async def test_a_warm_queued_before_an_edit_keeps_the_window_of_that_edit():
    """The edit at line 200 of a long document sets where the user is; a warm that was waiting behind it warms
    that window, not the top one (it would replace the edit's cached window)."""
    import asyncio

    from lsprotocol import types as lsp

    from cad_lsp.lsp.edit_flow import claim
    from cad_lsp.lsp.model_work import schedule_warm
    from cad_lsp.lsp.requests import EditRequest

    engine = RecordingEngine(chunks=1)
    calls = []
    engine.warm = lambda key, text, name="document", line=None, cancel=None: calls.append(line)
    ls = server_state(engine)
    uri = "file:///long.py"
    ls.documents.open(uri, 1, "x = 1\n" * 300)
    gate = threading.Event()
    ls.cache_jobs.put("the edit", gate.wait)  # the engine is busy
    schedule_warm(ls, uri, delay=0.0)
    await asyncio.sleep(0.1)
    selected = lsp.Range(start=lsp.Position(line=199, character=0), end=lsp.Position(line=201, character=0))
    claim(ls, EditRequest(uri, 1, selected, "comment it"), threading.Event())
    gate.set()
    while not calls:
        await asyncio.sleep(0.05)
    assert calls == [200]
