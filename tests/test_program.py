import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from cad_lsp.program import (
    Copy,
    CopySpan,
    Gen,
    ProgramError,
    apply_program,
    escape_gen,
    format_program,
    oracle_for_selection,
    oracle_program,
    oracle_program_spans,
    parse_program,
    resolve,
    split_lines,
    unescape_gen,
)

from .reference import plain_lines, plain_text
from .strategies import documents, edit_pairs, selection

OPS = st.lists(
    st.one_of(
        st.builds(Copy, st.integers(0, 10**6), st.integers(0, 10**6)),
        st.builds(CopySpan, *[st.integers(0, 10**4)] * 4),
        st.builds(Gen, st.text()),
    )
)


def test_split_lines_follows_lsp_terminators():
    assert split_lines("") == []
    assert split_lines("a") == ["a"]
    assert split_lines("a\n") == ["a\n"]
    assert split_lines("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]
    assert split_lines("\n\n") == ["\n", "\n"]
    # form feed and U+2028 are not line breaks in LSP
    assert split_lines("a\x0cb\u2028c\n") == ["a\x0cb\u2028c\n"]


@settings(max_examples=2000)
@given(OPS)
def test_parse_inverts_format(ops):
    assert parse_program(format_program(ops)) == ops


@settings(max_examples=500)
@given(OPS)
def test_format_is_canonical(ops):
    text = format_program(ops)
    assert format_program(parse_program(text)) == text


@settings(max_examples=2000)
@given(st.text())
def test_gen_escape_roundtrip(text):
    body = escape_gen(text)
    assert "</gen>" not in body
    assert unescape_gen(body) == text


@settings(max_examples=3000, deadline=None)
@given(edit_pairs())
def test_resolve_inverts_oracle(pair):
    before, after = pair
    ops = oracle_program(before, after)
    assert resolve(ops, before) == after
    assert parse_program(format_program(ops)) == ops


@settings(max_examples=1500, deadline=None)
@given(edit_pairs())
def test_span_oracle_is_lossless(pair):
    before, after = pair
    ops = oracle_program_spans(before, after, min_chars=2)
    assert resolve(ops, before) == after


@settings(max_examples=1000, deadline=None)
@given(edit_pairs(), st.data())
def test_oracle_on_a_selection(pair, data):
    """An edit of lines a..b: the program's copies stay inside the selection."""
    before, after_sel = pair
    chosen = selection(data, before)
    if chosen is None:
        return
    a, b = chosen
    ops = oracle_for_selection(before, a, b, after_sel)
    assert all(a <= op.start <= op.end <= b for op in ops if isinstance(op, Copy))
    lines = split_lines(before)
    assert resolve(ops, before, a, b) == after_sel
    assert apply_program(ops, before, a, b) == "".join(lines[: a - 1]) + after_sel + "".join(lines[b:])


def test_oracle_copies_unchanged_lines():
    before = "a\nb\nc\nd\ne\n"
    after = "a\nb\nX\nd\ne\n"
    assert oracle_program(before, after) == [Copy(1, 2), Gen("X\n"), Copy(4, 5)]


def test_oracle_prefers_the_heavier_match():
    before = "short\nthis is a long line that is worth copying\n"
    after = "this is a long line that is worth copying\nshort\n"
    ops = oracle_program(before, after)
    assert Copy(2, 2) in ops and resolve(ops, before) == after


def test_oracle_prefers_fewer_copy_runs():
    before = "x\n\nx\n\n"
    after = "x\n\n"
    assert oracle_program(before, after) == [Copy(1, 2)]


def test_last_line_without_newline():
    before = "a\nb"
    assert resolve([Copy(2, 2)], before) == "b"
    assert resolve(oracle_program(before, "a\nb\nc"), before) == "a\nb\nc"


def test_crlf_lines_are_copied_verbatim():
    before = "a\r\nb\rc\n"
    assert resolve([Copy(1, 3)], before) == before
    assert resolve([Copy(2, 2)], before) == "b\r"


def test_span_copy_inside_lines():
    before = "def f(a, b):\n    return a + b\n"
    after = "def f(a: int, b: int):\n    return a + b\n"
    ops = oracle_program_spans(before, after, min_chars=4)
    assert any(isinstance(o, CopySpan) for o in ops)
    assert resolve(ops, before) == after


def test_empty_document_and_empty_program():
    assert resolve([], "") == ""
    assert resolve([Gen("new\n")], "") == "new\n"
    assert oracle_program("", "") == []
    assert resolve([], "a\nb\n", 1, 1) == ""


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('<copy lines="1-"/>', "op 1"),
        ('<copy lines="1-2">', "op 1"),
        ("<gen>abc", "never closed"),
        ('<gen>a</gen><copy lines="01-2"/>', "op 2"),
        ("junk", "expected <copy"),
        ('<copy lines="1-2"/>\n<copy line="3-4"/>', "op 2"),
    ],
)
def test_malformed_programs_say_where(text, fragment):
    with pytest.raises(ProgramError, match=fragment):
        parse_program(text)


@pytest.mark.parametrize(
    "ops, fragment",
    [
        ([Copy(1, 4)], r'op 1 <copy lines="1-4"/>: lines outside the document'),
        ([Copy(0, 1)], r"op 1 .*outside"),
        ([Copy(3, 2)], r'op 1 <copy lines="3-2"/>: start line 3 is after end line 2'),
        ([Copy(1, 2), Copy(2, 3)], r'op 2 <copy lines="2-3"/>: overlaps or goes back before op 1'),
        ([Gen("x"), Copy(3, 3), Copy(1, 1)], r'op 3 <copy lines="1-1"/>: overlaps'),
        ([CopySpan(1, 0, 1, 9)], r"op 1 .*column 9 past the end of line 1"),
        ([CopySpan(2, 1, 2, 1)], r"op 1 .*empty or backwards span"),
        ([CopySpan(4, 0, 4, 1)], r"op 1 .*line 4 outside"),
    ],
)
def test_invalid_programs_name_the_op(ops, fragment):
    with pytest.raises(ProgramError, match=fragment):
        resolve(ops, "a\nb\nc\n")


@pytest.mark.parametrize("first, last", [(0, 1), (2, 1), (1, 9), (5, 5)])
def test_selection_outside_document(first, last):
    with pytest.raises(ProgramError, match="selection"):
        resolve([], "a\nb\nc\n", first, last)


@settings(max_examples=1000, deadline=None)
@given(documents(), OPS)
def test_resolve_raises_only_program_errors(document, ops):
    try:
        resolve(ops, document)
    except ProgramError:
        pass


@settings(max_examples=500, deadline=None)
@given(documents(), st.data())
def test_resolve_writes_exactly_the_valid_programs(document, data):
    """Copies drawn around the document's real lines: a valid program resolves to its plain-sliced text,
    an invalid one (out of range, backwards, overlapping) raises ProgramError."""
    n = len(plain_lines(document))
    line = st.one_of(st.integers(1, max(n, 1)), st.integers(0, n + 1))
    ops = data.draw(st.lists(st.one_of(st.builds(Copy, line, line), st.builds(Gen, st.text(max_size=4))),
                             max_size=5))
    previous, valid = 0, True
    for op in ops:
        if isinstance(op, Copy):
            valid &= previous < op.start <= op.end <= n
            previous = max(previous, op.end)
    event("valid" if valid else "invalid")
    if valid:
        assert resolve(ops, document) == plain_text(ops, document, 1, n)
    else:
        with pytest.raises(ProgramError):
            resolve(ops, document)
