"""cad-lsp edit: the program, the result and the stats, or a clear error."""

import json

import pytest

from cad_lsp.cli import main
from cad_lsp.edits import apply_text_edits
from cad_lsp.program import apply_program, parse_program, resolve
from lsprotocol import types as lsp


def run(capsys, *argv):
    code = main(["edit", *argv, "--model", "random:tiny"])
    out, err = capsys.readouterr()
    return code, out, err


def test_edit_json_reports_program_text_and_edits(tmp_path, capsys):
    path = tmp_path / "crlf.py"
    source = "def f(x):\r\n    return '😀' + x\r\n\r\nprint(f('a'))"  # CRLF, emoji, no final newline
    path.write_bytes(source.encode())
    code, out, err = run(capsys, str(path), "--lines", "1-2", "--instruction", "Add type hints", "--json",
                         "--max-tokens", "60")
    result = json.loads(out)
    ops = parse_program(result["program"])
    assert result["text"] == resolve(ops, source, 1, 2)
    edits = [lsp.TextEdit(range=lsp.Range(start=lsp.Position(**e["range"]["start"]),
                                          end=lsp.Position(**e["range"]["end"])), new_text=e["newText"])
             for e in result["edits"]]
    assert apply_text_edits(source, edits) == apply_program(ops, source, 1, 2)
    assert set(result["stats"]) >= {"forwards", "spliced_tokens", "sampled_tokens", "total_s"}
    assert code == (0 if result["complete"] else 1)
    assert path.read_bytes() == source.encode()  # never written without --write


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
        with pytest.raises(SystemExit):
            run(capsys, str(path), *argv, "--instruction", "x")
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
