"""Engine.apply and `cad-lsp apply`: the program spans only the region the update changes, the model's program is
the same with drafting on and off, and the merged file is written back only when nothing else changed it."""

import json
import time

import pytest

from cad_lsp.backends.pytorch import LocalModel
from cad_lsp.backends.pytorch.loading import load_model
from cad_lsp.cli import main
from cad_lsp.engine import Engine, EngineError
from cad_lsp.program import apply_program, oracle_for_selection, parse_program

FILE = "".join(f"def f{i}(x):\n    y = x * {i}\n    return y + {i}\n\n\n" for i in range(200))  # 1,000 lines
UPDATE = "# ... existing code ...\ndef f120(x):\n    y = x * 120\n    y = abs(y)\n    return y + 120\n" \
         "# ... existing code ...\n"
MERGED = FILE.replace("    y = x * 120\n", "    y = x * 120\n    y = abs(y)\n")


@pytest.fixture(scope="module")
def engine():
    return Engine(LocalModel(load_model("random:tiny", "cpu", "fp32")), context_lines=256)


def test_the_program_spans_only_the_region_the_update_changes(engine):
    merge = engine.apply(FILE, UPDATE, max_tokens=1).merge
    assert merge.merged == MERGED and merge.last - merge.first == 1  # two lines of a 1,000-line file
    plan = oracle_for_selection(FILE, merge.first, merge.last, merge.text)
    result = engine.apply(FILE, UPDATE, program=plan)
    assert result.complete and apply_program(result.ops, FILE, result.first_line, result.last_line) == MERGED
    assert result.stats.spliced_tokens < 30  # the copies splice the region's lines, not the file
    assert result.window is not None and result.window.start <= merge.first <= merge.last <= result.window.end


def test_drafting_the_update_keeps_the_models_own_program(engine):
    """Greedy programs with the update's plan drafted at every forward equal the plain loop's, token for token:
    random weights rarely agree with the plan, so the drafts are checked and mostly refused."""
    engine.draft_budget.worth_drafting = lambda: True
    documents = [FILE, MERGED.replace("\n", "\r\n"), "x = '😀'\n" + FILE[:2000] + "tail = 1"]
    updates_ = [UPDATE, UPDATE.replace("\n", "\r\n"), "def f3(x):\n    y = x * 3\n    print('😀')\n    return y + 3\n"]
    documents.append(FILE)  # a new signature
    updates_.append("# ...\ndef f50(x, scale=1):\n    y = x * 50\n    y = abs(y)\n    return y + 50\n# ...\n")
    for document, update in zip(documents, updates_):
        if document is documents[1]:
            update = "# ...\ndef f120(x):\n    y = x * 120\n    return y + 120\n# ...\n"  # the line removed again
        on = engine.apply(document, update, max_tokens=24, speculate=True)
        off = engine.apply(document, update, max_tokens=24, speculate=False)
        assert on.program == off.program and on.complete == off.complete
        assert on.stats.forwards <= off.stats.forwards


def test_a_model_that_writes_the_plan_takes_a_handful_of_forwards(engine, monkeypatch):
    """Teacher-forced through the plan with the grammar's forcing off (the model reads every choice), the drafted
    plan is accepted: a handful of forwards, fewer than without drafting."""
    from cad_lsp.engine.drafter import DraftBudget

    engine.draft_budget = DraftBudget(head_ratio=0.0)
    engine.draft_budget.worth_drafting = lambda: True
    update = "# ...\ndef f50(x, scale=1):\n    y = x * 50\n    y = max(y, 0)  # never negative\n    z = y - 1\n" \
             "    return y + 50\n# ...\n"
    merge = engine.apply(FILE, update, max_tokens=1).merge
    plan = oracle_for_selection(FILE, merge.first, merge.last, merge.text)
    drafted = engine.apply(FILE, update, program=plan, speculate=True, fast_forward=False)
    plain = engine.apply(FILE, update, program=plan, speculate=False, fast_forward=False)
    assert drafted.program == plain.program and drafted.stats.accepted_update_tokens > 0
    assert drafted.stats.forwards <= 3 < plain.stats.forwards


def test_an_apply_the_grammar_decides_needs_no_forward(engine):
    """An update that leaves the model no call (no line it may rewrite or join) is merged without reading
    the document or the request: the same program the model's forwards reach with fast-forwarding off."""
    decided = engine.apply(FILE, UPDATE)
    assert decided.complete and decided.stats.forwards == 0 and decided.stats.prefill_tokens == 0
    assert apply_program(decided.ops, FILE, decided.first_line, decided.last_line) == MERGED
    read = engine.apply(FILE, UPDATE, fast_forward=False)
    assert read.program == decided.program and read.stats.forwards > 0 and read.stats.prefill_tokens > 0
    signature = engine.apply(FILE, "# ...\ndef f50(x, scale=1):\n    y = x * 50\n    return y + 50\n# ...\n")
    assert signature.stats.forwards == 0  # the syntax says the new signature replaces the old: no call is left
    assert apply_program(signature.ops, FILE, signature.first_line, signature.last_line) == \
        FILE.replace("def f50(x):", "def f50(x, scale=1):")


@pytest.mark.parametrize("update, message", [
    ("", "empty"), ("# ... existing code ...\n", "only markers"), ("nothing.run()\nnothing.stop()\n", "matches a line"),
    ("    y = x * 7\n    y += 1\n    return y + 7\n".replace("7", "x"), "matches a line"),
])
def test_an_update_with_no_place_is_a_clear_error(engine, update, message):
    with pytest.raises(EngineError, match=message):
        engine.apply(FILE, update)


def test_an_update_longer_than_the_context_is_refused(engine, monkeypatch):
    monkeypatch.setattr(engine.backend.model.config, "max_position_embeddings", 2048)
    long_update = "# ...\ndef f120(x):\n" + "".join(f"    y = y + {i}\n" for i in range(400)) + "    return y + 120\n# ...\n"
    with pytest.raises(EngineError, match="context"):
        engine.apply(FILE, long_update)


def run_cli(tmp_path, capsys, *argv) -> tuple[int, str, str]:
    code = main(["apply", *argv, "--model", "random:tiny", "--keep-warm", "0"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_apply_json_gives_the_whole_merged_file(tmp_path, capsys, monkeypatch):
    path, update = tmp_path / "shapes.py", tmp_path / "update.txt"
    path.write_text(FILE)
    update.write_text(UPDATE)
    code, out, err = run_cli(tmp_path, capsys, str(path), "--update", str(update), "--json", "--max-tokens", "64")
    assert code in (0, 1), err
    record = json.loads(out)
    first, last = record["lines"]
    assert record["text"] == apply_program(parse_program(record["program"]), FILE, first, last)  # the whole file
    assert first <= MERGED.count("\n", 0, MERGED.index("y = abs(y)")) <= last  # the region around the change


@pytest.mark.parametrize("content, update, message", [
    (FILE, b"", "is empty"), (FILE, b"\xff\xfe# not utf-8\n", "not UTF-8"), (FILE, b"z = Z()\nz.run()\n", "matches"),
    ("", UPDATE.encode(), "file is empty"),
])
def test_apply_refuses_bad_input_before_any_model_loads(tmp_path, capsys, monkeypatch, content, update, message):
    from cad_lsp.backends.pytorch import loading

    monkeypatch.setattr(loading, "load_model", lambda *a, **k: pytest.fail("a model was loaded"))
    path, source = tmp_path / "a.py", tmp_path / "u.txt"
    path.write_text(content)
    source.write_bytes(update)
    code, _, err = run_cli(tmp_path, capsys, str(path), "--update", str(source))
    assert code == 2 and message in err and "Traceback" not in err


def test_apply_reads_the_update_from_standard_input(tmp_path, capsys, monkeypatch):
    import io
    import sys

    path = tmp_path / "a.py"
    path.write_text(FILE)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(UPDATE.encode())))
    code, out, err = run_cli(tmp_path, capsys, str(path), "--update", "-", "--json", "--max-tokens", "8")
    assert code in (0, 1) and json.loads(out)["program"], err


def teach(monkeypatch, tiny_engine) -> None:
    """`cad-lsp apply` in this process on the engine forced through the merge's program (no model of its own)."""
    from cad_lsp import backends
    from tests.http_server import TeacherEngine

    monkeypatch.setattr(backends, "open_engine", lambda *a, **k: TeacherEngine(tiny_engine))


@pytest.mark.parametrize("json_out", [False, True])
def test_apply_says_which_lines_the_merge_removes_unseen(tmp_path, capsys, monkeypatch, tiny_engine, json_out):
    """A line on standard error and, with --json, ``removed_unseen``; the file's name is the merge's language
    both before the model and in the engine."""
    from tests.unseen import patch_merges

    teach(monkeypatch, tiny_engine)
    path, update = tmp_path / "shapes.py", tmp_path / "update.txt"
    path.write_text(FILE)
    update.write_text(UPDATE)
    argv = [str(path), "--update", str(update), *(["--json"] if json_out else [])]
    calls = patch_merges(monkeypatch.setattr)
    code, out, err = run_cli(tmp_path, capsys, *argv)
    assert code == 0 and "did not show" not in err, err
    if json_out:
        assert json.loads(out)["removed_unseen"] == []  # always there

    calls = patch_merges(monkeypatch.setattr, unseen=((601, 603), (610, 610)))
    code, out, err = run_cli(tmp_path, capsys, *argv)
    assert code == 0, err
    assert "cad-lsp: the merge removes 4 lines the update did not show (file lines 601-603, 610): check them " \
           "before accepting\n" in err
    if json_out:
        record = json.loads(out)
        assert record["removed_unseen"] == [[601, 603], [610, 610]] and record["text"] == MERGED
    assert len(calls) >= 2 and set(calls) == {("shapes.py", False)}  # the check before a model loads, the engine's


def test_apply_refuses_a_merge_that_breaks_the_file_unless_forced(tmp_path, capsys, monkeypatch, tiny_engine):
    from cad_lsp.backends.pytorch import loading
    from tests.unseen import BREAKS, patch_merges

    monkeypatch.setattr(loading, "load_model", lambda *a, **k: pytest.fail("a model was loaded"))
    path, update = tmp_path / "shapes.py", tmp_path / "update.txt"
    path.write_text(FILE)
    update.write_text(UPDATE)
    patch_merges(monkeypatch.setattr, breaks=True)
    code, out, err = run_cli(tmp_path, capsys, str(path), "--update", str(update), "--write")
    assert code == 2 and err == f"cad-lsp: {path}: {BREAKS}\n" and out == ""
    assert path.read_text() == FILE

    teach(monkeypatch, tiny_engine)
    calls = patch_merges(monkeypatch.setattr, breaks=True)
    code, out, err = run_cli(tmp_path, capsys, str(path), "--update", str(update), "--write", "--force")
    assert code == 0, err
    assert path.read_text() == MERGED and len(calls) >= 2 and set(calls) == {("shapes.py", True)}


class SlowEngine:
    """An engine whose edit takes a while, during which the user saves the file in an editor."""

    advice = None

    def __init__(self, path, change_during: bool):
        self.path, self.change_during = path, change_during
        self.context_lines = None

    def edit(self, document, first, last, instruction, **kwargs):
        from cad_lsp.engine.engine import EditResult
        from cad_lsp.engine.decode import Stats
        from cad_lsp.program import Gen

        if self.change_during:
            time.sleep(0.05)
            self.path.write_text("edited in the editor meanwhile\n")
        return EditResult([Gen("NEW\n")], "<gen>NEW\n</gen>\n", "NEW\n", True, first, last, Stats())


@pytest.mark.parametrize("change_during", [False, True])
def test_write_replaces_the_file_atomically_and_only_if_it_did_not_change(tmp_path, capsys, monkeypatch,
                                                                          change_during):
    import os
    import stat

    from cad_lsp import backends

    path = tmp_path / "a.py"
    path.write_text("one\ntwo\nthree\n")
    os.chmod(path, 0o640)
    link = tmp_path / "link.py"
    link.symlink_to(path)
    monkeypatch.setattr(backends, "open_engine", lambda *a, **k: SlowEngine(path, change_during))
    code = main(["edit", str(link), "--lines", "2-2", "--instruction", "x", "--keep-warm", "0", "--write"])
    err = capsys.readouterr().err
    if change_during:
        assert code == 1 and "the file changed while the model ran; nothing written" in err
        assert path.read_text() == "edited in the editor meanwhile\n"
    else:
        assert code == 0, err
        assert path.read_text() == "one\nNEW\nthree\n"
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o640 and link.is_symlink()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".cad-lsp")] == []  # no temporary file left


def test_the_merged_file_streams_as_it_is_decided(engine):
    """on_text: the lines before the region at once, each op as it completes, the rest at the end; together the
    merged file.  A program cut short streams no end."""
    merge = engine.apply(FILE, UPDATE, max_tokens=1).merge
    plan = oracle_for_selection(FILE, merge.first, merge.last, merge.text)
    pieces = []
    result = engine.apply(FILE, UPDATE, program=plan, on_text=pieces.append)
    assert "".join(pieces) == MERGED and len(pieces) == len(result.ops) + 2
    assert pieces[0] == FILE[:FILE.index("    y = x * 120\n")]
    cut = []
    assert not engine.apply(FILE, UPDATE, program=plan, max_tokens=3, on_text=cut.append).complete
    assert MERGED.startswith("".join(cut)) and "".join(cut) != MERGED
