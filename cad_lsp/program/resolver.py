"""The resolver: (document, program) -> text, byte-exact and model-free."""

from __future__ import annotations

from typing import Sequence

from .ops import Copy, CopySpan, Document, Gen, Op, ProgramError, format_op, split_lines

__all__ = ["selection_problem", "resolve_pieces", "resolve", "apply_program"]


def selection_problem(document: str, first_line: int, last_line: int | None) -> str | None:
    """Why lines first..last of ``document`` cannot be edited, or None.

    Needs no model, so a front end can refuse bad input before loading one.
    """
    count = len(split_lines(document))
    if count == 0:
        return "the document is empty: there are no lines to edit"
    last = count if last_line is None else last_line
    if not 1 <= first_line <= last <= count:
        return f"selection {first_line}-{last} is outside the document's lines 1-{count}"
    return None


def checked_selection(doc: Document, first_line: int, last_line: int | None) -> tuple[int, int]:
    last = doc.line_count if last_line is None else last_line
    if doc.line_count == 0 and first_line == 1 and last == 0:
        return 1, 0  # the empty document: an empty selection before "line 1"
    if not (1 <= first_line <= doc.line_count):
        raise ProgramError(f"selection starts at line {first_line}, outside 1..{doc.line_count}")
    if not (first_line <= last <= doc.line_count):
        raise ProgramError(f"selection ends at line {last}, outside {first_line}..{doc.line_count}")
    return first_line, last


def _copy_offsets(op: Copy | CopySpan, index: int, doc: Document) -> tuple[int, int]:
    """Validate a copy against the document and return its [start, end) offsets."""
    name = f"op {index} {format_op(op)}"
    if isinstance(op, Copy):
        if op.start > op.end:
            raise ProgramError(f"{name}: start line {op.start} is after end line {op.end}")
        if op.start < 1 or op.end > doc.line_count:
            raise ProgramError(f"{name}: lines outside the document (1..{doc.line_count})")
        return doc.line_range_offsets(op.start, op.end)
    for line, col in ((op.start_line, op.start_col), (op.end_line, op.end_col)):
        if not 1 <= line <= doc.line_count:
            raise ProgramError(f"{name}: line {line} outside the document (1..{doc.line_count})")
        if col > len(doc.lines[line - 1]):
            raise ProgramError(f"{name}: column {col} past the end of line {line}")
    start = doc.offset(op.start_line, op.start_col)
    end = doc.offset(op.end_line, op.end_col)
    if start >= end:
        raise ProgramError(f"{name}: empty or backwards span")
    return start, end


def resolve_pieces(ops: Sequence[Op], doc: Document) -> list[tuple[Op, int, int]]:
    """Validate ops and return (op, start, end) document offsets (-1 for gen).

    Copies must be monotone and non-overlapping: that makes every program an
    alignment of old and new text, so edits touch only what changed.
    """
    pieces = []
    previous_end = 0
    previous_name = None
    for index, op in enumerate(ops, 1):
        if isinstance(op, Gen):
            pieces.append((op, -1, -1))
            continue
        if not isinstance(op, (Copy, CopySpan)):
            raise ProgramError(f"op {index}: not an op: {op!r}")
        start, end = _copy_offsets(op, index, doc)
        if start < previous_end:
            raise ProgramError(
                f"op {index} {format_op(op)}: overlaps or goes back before {previous_name}"
            )
        previous_end, previous_name = end, f"op {index} {format_op(op)}"
        pieces.append((op, start, end))
    return pieces


def resolve(ops: Sequence[Op], document: str, first_line: int = 1, last_line: int | None = None) -> str:
    """The text that replaces document lines first_line..last_line (None = to the end)."""
    doc = document if isinstance(document, Document) else Document(document)
    checked_selection(doc, first_line, last_line)
    out = []
    for op, start, end in resolve_pieces(ops, doc):
        out.append(op.text if isinstance(op, Gen) else doc.text[start:end])
    return "".join(out)


def apply_program(ops: Sequence[Op], document: str, first_line: int = 1, last_line: int | None = None) -> str:
    """The whole document after the program replaced the selected lines."""
    doc = Document(document)
    first, last = checked_selection(doc, first_line, last_line)
    start, end = doc.line_range_offsets(first, last) if doc.line_count else (0, 0)
    return document[:start] + resolve(ops, doc, first_line, last_line) + document[end:]
