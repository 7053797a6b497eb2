"""cad-lsp edit: the program, the result and the stats, or a clear error."""

import json

import pytest
from lsprotocol import types as lsp

from cad_lsp.cli import main
from cad_lsp.program import parse_program
from cad_lsp.program.edits import apply_text_edits

from .reference import plain_apply, plain_text


def run(capsys, *argv):
    code = main(["edit", *argv, "--model", "random:tiny"])
    out, err = capsys.readouterr()
    return code, out, err


def test_edit_json_reports_program_text_and_edits(tmp_path, capsys, tiny_engine):
    path = tmp_path / "crlf.py"
    source = "def f(x):\r\n    return '😀' + x\r\n\r\nprint(f('a'))"  # CRLF, emoji, no final newline
    path.write_bytes(source.encode())
    code, out, err = run(capsys, str(path), "--lines", "1-2", "--instruction", "Add type hints", "--json",
                         "--max-tokens", "60")
    result = json.loads(out)
    # the program the in-process engine writes for the same request (greedy: deterministic)
    expected = tiny_engine.edit(source, 1, 2, "Add type hints", name=path.name, max_tokens=60)
    assert result["program"] == expected.program and result["complete"] == expected.complete
    ops = parse_program(result["program"])
    assert result["text"] == plain_text(ops, source, 1, 2)  # plain slicing, not the resolver
    edits = [lsp.TextEdit(range=lsp.Range(start=lsp.Position(**e["range"]["start"]),
                                          end=lsp.Position(**e["range"]["end"])), new_text=e["newText"])
             for e in result["edits"]]
    assert apply_text_edits(source, edits) == plain_apply(ops, source, 1, 2)
    assert set(result["stats"]) >= {"forwards", "spliced_tokens", "sampled_tokens", "total_s"}
    assert result["stats"]["prompt_tokens"] == expected.stats.prompt_tokens
    assert code == (0 if result["complete"] else 1)
    assert path.read_bytes() == source.encode()  # never written without --write


def test_edit_write_writes_the_program_result(tmp_path, capsys, tiny_engine):
    path = tmp_path / "crlf.py"
    source = "def f(x):\r\n    return '😀' + x\r\n\r\nprint(f('a'))"
    path.write_bytes(source.encode())
    expected = tiny_engine.edit(source, 3, 4, "Simplify", name=path.name, max_tokens=40)
    assert expected.complete  # the case is chosen so: a finished program is written
    code, out, err = run(capsys, str(path), "--lines", "3-4", "--instruction", "Simplify", "--max-tokens", "40",
                         "--write")
    assert code == 0, err
    assert path.read_bytes() == plain_apply(expected.ops, source, 3, 4).encode()  # bytes: CRLF kept


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--lines", "3-9"], "outside the document"),
        (["--lines", "0-1"], None),  # refused by the argument parser
    ],
)
def test_bad_selection_is_a_clear_error(tmp_path, capsys, argv, message):
    path = tmp_path / "a.py"
    path.write_text("a = 1\nb = 2\n")
    if message is None:
        with pytest.raises(SystemExit) as exit:
            run(capsys, str(path), *argv, "--instruction", "x")
        assert exit.value.code == 2 and "bad line range '0-1'" in capsys.readouterr().err
        return
    code, out, err = run(capsys, str(path), *argv, "--instruction", "x")
    assert code == 2 and message in err


def test_missing_file_and_missing_model(tmp_path, capsys):
    code, _, err = run(capsys, str(tmp_path / "nope.py"), "--lines", "1-1", "--instruction", "x")
    assert code == 2 and "cannot read" in err
    path = tmp_path / "a.py"
    path.write_text("a = 1\n")
    code = main(["edit", str(path), "--lines", "1-1", "--instruction", "x", "--model", str(tmp_path / "no-model")])
    assert code == 2 and "does not exist" in capsys.readouterr().err
