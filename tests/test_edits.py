import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp

from cad_lsp.program import (
    Copy,
    CopySpan,
    Document,
    Gen,
    apply_program,
    oracle_for_selection,
    oracle_program,
    oracle_program_spans,
)
from cad_lsp.program.edits import apply_text_edits, offset_at, position_at, text_edits, units

from .strategies import edit_pairs, selection

ENCODINGS = st.sampled_from(["utf-16", "utf-8", "utf-32"])


@settings(max_examples=2000, deadline=None)
@given(edit_pairs(), ENCODINGS, st.booleans())
def test_applying_edits_equals_resolve(pair, encoding, spans):
    before, after = pair
    ops = oracle_program_spans(before, after, 2) if spans else oracle_program(before, after)
    edits = text_edits(ops, before, encoding=encoding)
    assert apply_text_edits(before, edits, encoding) == after


@settings(max_examples=1000, deadline=None)
@given(edit_pairs(), st.data(), ENCODINGS)
def test_edits_on_a_selection(pair, data, encoding):
    before, new_selection = pair
    chosen = selection(data, before)
    if chosen is None:
        return
    a, b = chosen
    ops = oracle_for_selection(before, a, b, new_selection)
    edits = text_edits(ops, before, a, b, encoding)
    assert apply_text_edits(before, edits, encoding) == apply_program(ops, before, a, b)
    # nothing outside the selection is touched
    doc = Document(before)
    for edit in edits:
        assert edit.range.start.line >= a - 1
        assert offset_at(doc, edit.range.end, encoding) <= doc.line_starts[b]


def test_copied_lines_are_never_resent():
    before = "".join(f"line {i}\n" for i in range(1, 101))
    ops = [Copy(1, 49), Gen("changed\n"), Copy(51, 100)]
    edits = text_edits(ops, before)
    assert len(edits) == 1
    (edit,) = edits
    # trimmed to what differs: "line 50" -> "changed"
    assert edit.range.start.line == 49 and edit.range.end.line == 49
    assert edit.new_text == "changed"
    assert apply_text_edits(before, edits) == before.replace("line 50\n", "changed\n")


def test_deleted_lines_are_one_edit():
    before = "a\nb\nc\nd\n"
    edits = text_edits([Copy(1, 1), Copy(4, 4)], before)
    assert len(edits) == 1
    assert edits[0].new_text == ""
    assert apply_text_edits(before, edits) == "a\nd\n"


def test_identity_program_gives_no_edits():
    assert text_edits([Copy(1, 3)], "a\nb\nc") == []


def test_utf16_positions_count_surrogate_pairs():
    before = "s = '😀😀'  # x\n"
    after = "s = '😀😀'  # y\n"
    (edit,) = text_edits(oracle_program(before, after), before, encoding="utf-16")
    assert edit.range.start == lsp.Position(line=0, character=14)
    (edit8,) = text_edits(oracle_program(before, after), before, encoding="utf-8")
    assert edit8.range.start.character == len("s = '😀😀'  # ".encode())
    (edit32,) = text_edits(oracle_program(before, after), before, encoding="utf-32")
    assert edit32.range.start.character == 12


def test_crlf_is_never_split():
    before = "a\r\nb\r\n"
    after = "a\nb\r\n"
    edits = text_edits(oracle_program(before, after), before)
    for edit in edits:
        for pos in (edit.range.start, edit.range.end):
            line = before.split("\n")[pos.line] if pos.line < 2 else ""
            assert pos.character <= len(line.rstrip("\r"))
    assert apply_text_edits(before, edits) == after


def test_end_of_document_positions():
    assert position_at(Document("a\n"), 2) == lsp.Position(line=1, character=0)
    assert position_at(Document("ab"), 2) == lsp.Position(line=0, character=2)
    assert position_at(Document(""), 0) == lsp.Position(line=0, character=0)


@pytest.mark.parametrize(
    "text, position, message",
    [
        ("ab\n", lsp.Position(line=0, character=3), "past the end"),
        ("ab\n", lsp.Position(line=5, character=0), "outside"),
        ("😀\n", lsp.Position(line=0, character=1), "splits a character"),
        ("ab", lsp.Position(line=1, character=0), "outside"),
    ],
)
def test_bad_positions_are_refused(text, position, message):
    with pytest.raises(ValueError, match=message):
        offset_at(Document(text), position)


def test_unknown_encoding():
    with pytest.raises(ValueError, match="position encoding"):
        units("x", "utf-7")


def test_copy_from_outside_the_selection_arrives_as_text():
    before = "import os\n\ndef f():\n    pass\n"
    ops = [Copy(1, 1), Copy(3, 4)]  # selection 3..4; line 1 is copied in from above
    edits = text_edits(ops, before, 3, 4)
    assert apply_text_edits(before, edits) == "import os\n\nimport os\ndef f():\n    pass\n"


def test_span_copies_keep_their_text_in_place():
    before = "def f(a, b):\n    return a + b\n"
    ops = [CopySpan(1, 0, 1, 7), Gen(": int"), CopySpan(1, 7, 2, 0), Copy(2, 2)]
    edits = text_edits(ops, before)
    assert [e.new_text for e in edits] == [": int"]
    assert apply_text_edits(before, edits) == "def f(a: int, b):\n    return a + b\n"
