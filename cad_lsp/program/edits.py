"""From a program to the smallest LSP TextEdits that apply it.

Copies that stay inside the selection are anchors: the text under them is
never re-sent.  Everything between two anchors is one replacement, trimmed
to the characters that really differ, so the editor keeps cursors, marks
and folds on every line the model only copied.
"""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types as lsp

from .ops import Document, Gen, Op, ProgramError
from .resolver import checked_selection, resolve_pieces

ENCODINGS = ("utf-16", "utf-8", "utf-32")


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the code units of a negotiated position encoding."""
    if encoding == "utf-16":
        return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    raise ValueError(f"unknown position encoding {encoding!r}; expected one of {ENCODINGS}")


def position_at(doc: Document, offset: int, encoding: str = "utf-16") -> lsp.Position:
    line = doc.line_of_offset(offset)
    start = doc.line_starts[line]
    return lsp.Position(line=line, character=units(doc.text[start:offset], encoding))


def offset_at(doc: Document, position: lsp.Position, encoding: str = "utf-16") -> int:
    """Code-point offset of an LSP position; raises ValueError if it is not in the document.

    A character past the end of its line is refused rather than clamped: a
    clamped position would silently edit the wrong place.
    """
    if position.line == len(doc.lines) and position.character == 0 and doc.ends_with_terminator:
        return len(doc.text)
    if not 0 <= position.line < len(doc.lines):
        raise ValueError(f"line {position.line} is outside the document (0..{len(doc.lines) - 1})")
    line = doc.lines[position.line]
    body = line.rstrip("\r\n")
    count = 0
    for index, ch in enumerate(body):
        if count == position.character:
            return doc.line_starts[position.line] + index
        count += units(ch, encoding)
        if count > position.character:
            raise ValueError(f"position {position.line}:{position.character} splits a character")
    if count == position.character:
        return doc.line_starts[position.line] + len(body)
    raise ValueError(
        f"character {position.character} is past the end of line {position.line} ({count} units)"
    )


def _replacements(ops: Sequence[Op], doc: Document, sel_start: int, sel_end: int) -> list[tuple[int, int, str]]:
    """(start, end, new_text) offsets in the document, in order, not overlapping."""
    out = []
    cursor, pending = sel_start, []
    for op, start, end in resolve_pieces(ops, doc):
        if isinstance(op, Gen):
            pending.append(op.text)
        elif start >= cursor and end <= sel_end:
            out.append((cursor, start, "".join(pending)))
            cursor, pending = end, []
        else:  # a copy from outside the selection arrives as new text here
            pending.append(doc.text[start:end])
    out.append((cursor, sel_end, "".join(pending)))
    return [r for r in (_trim(doc.text, *r) for r in out) if r[0] != r[1] or r[2]]


def _trim(text: str, start: int, end: int, new: str) -> tuple[int, int, str]:
    """Drop the common prefix and suffix of old and new text, never splitting a CRLF."""
    old = text[start:end]
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    limit -= prefix
    while suffix < limit and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    s, e = start + prefix, end - suffix
    new = new[prefix : len(new) - suffix]
    # An LSP position cannot stand between "\r" and "\n": widen by one character.
    if 0 < s < len(text) and text[s - 1] == "\r" and text[s] == "\n":
        s, new = s - 1, "\r" + new
    if 0 < e < len(text) and text[e - 1] == "\r" and text[e] == "\n":
        e, new = e + 1, new + "\n"
    return s, e, new


def text_edits(
    ops: Sequence[Op],
    document: str,
    first_line: int = 1,
    last_line: int | None = None,
    encoding: str = "utf-16",
) -> list[lsp.TextEdit]:
    """The minimal TextEdits that turn the document into the program's result.

    Applying them (LSP semantics: all ranges refer to the original text)
    gives exactly ``apply_program(ops, document, first_line, last_line)``.
    """
    units("", encoding)  # validates the encoding name early
    doc = Document(document)
    first, last = checked_selection(doc, first_line, last_line)
    sel_start, sel_end = doc.line_range_offsets(first, last) if doc.line_count else (0, 0)
    return [
        lsp.TextEdit(
            range=lsp.Range(start=position_at(doc, s, encoding), end=position_at(doc, e, encoding)),
            new_text=new,
        )
        for s, e, new in _replacements(ops, doc, sel_start, sel_end)
    ]


def apply_text_edits(document: str, edits: Sequence[lsp.TextEdit], encoding: str = "utf-16") -> str:
    """Apply LSP TextEdits as an editor does; overlapping edits raise ValueError."""
    doc = Document(document)
    spans = sorted(
        (offset_at(doc, e.range.start, encoding), offset_at(doc, e.range.end, encoding), i, e.new_text)
        for i, e in enumerate(edits)
    )
    out, cursor = [], 0
    for start, end, _, new in spans:
        if start < cursor or end < start:
            raise ValueError("overlapping or inverted edits")
        out.append(document[cursor:start])
        out.append(new)
        cursor = end
    out.append(document[cursor:])
    return "".join(out)


__all__ = ["ENCODINGS", "units", "position_at", "offset_at", "text_edits", "apply_text_edits", "ProgramError"]
