"""Edit programs: the ops and their text form.

An edit program replaces document lines ``first..last`` with a sequence of
ops: ``<copy lines="i-j"/>`` copies document lines i..j verbatim (1-based,
inclusive, line terminators included), ``<copy span="l:c-l:c"/>`` copies a
sub-line span, and ``<gen>text</gen>`` inserts new text.

Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` -- the three terminators the
Language Server Protocol recognises -- and keep their terminator.  A final
line without a terminator is still a line; an empty document has no lines.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterable, Union

__all__ = ["Copy", "CopySpan", "Gen", "Op", "ProgramError", "Document", "split_lines", "parse_program",
           "format_program", "format_op", "escape_gen", "unescape_gen"]


class ProgramError(ValueError):
    """A program that is malformed or does not fit the document."""


@dataclass(frozen=True)
class Copy:
    """Copy document lines ``start..end`` (1-based, inclusive)."""

    start: int
    end: int


@dataclass(frozen=True)
class CopySpan:
    """Copy the text from (start_line, start_col) up to (end_line, end_col).

    Lines are 1-based, columns 0-based in Unicode code points, the end is
    exclusive, and a column may reach the end of its line's terminator.
    Code points (not tokenizer tokens) keep the resolver independent of any
    model; coverage is still counted in tokens by the metrics.
    """

    start_line: int
    start_col: int
    end_line: int
    end_col: int


@dataclass(frozen=True)
class Gen:
    """Insert ``text`` verbatim."""

    text: str


Op = Union[Copy, CopySpan, Gen]

# ---------------------------------------------------------------------------
# Lines

_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def split_lines(text: str) -> list[str]:
    """Split into lines that keep their terminator (LSP rules, not str.splitlines)."""
    return _LINE_RE.findall(text)


class Document:
    """A document's lines and their start offsets, for offset/line lookups."""

    def __init__(self, text: str):
        self.text = text
        self.lines = split_lines(text)
        starts = [0]
        for line in self.lines:
            starts.append(starts[-1] + len(line))
        self.line_starts = starts  # len(lines) + 1 entries; the last is len(text)

    @property
    def line_count(self) -> int:
        return len(self.lines)

    def line_range_offsets(self, first: int, last: int) -> tuple[int, int]:
        """Code-point offsets [start, end) of lines first..last (1-based)."""
        return self.line_starts[first - 1], self.line_starts[last]

    def offset(self, line: int, col: int) -> int:
        return self.line_starts[line - 1] + col

    def line_of_offset(self, offset: int) -> int:
        """0-based index of the line holding ``offset``.

        The end of a text that ends with a terminator is the start of one
        more (empty) line, as editors show it.
        """
        line = bisect.bisect_right(self.line_starts, offset) - 1
        if line == len(self.lines) and line > 0 and not self.lines[-1].endswith(("\n", "\r")):
            line -= 1
        return line

    @property
    def ends_with_terminator(self) -> bool:
        return not self.lines or self.lines[-1].endswith(("\n", "\r"))


# ---------------------------------------------------------------------------
# Text form

_GEN_OPEN = "<gen>"
_GEN_CLOSE = "</gen>"
# Inside <gen>, "</gen" + k backslashes + ">" stands for "</gen" + (k-1)
# backslashes + ">" when k >= 1; k == 0 is the closing tag.  The map is a
# bijection, costs nothing for text that never contains "</gen", and the
# first "</gen>" always ends the body -- which is what a grammar can enforce.
_ESCAPED_CLOSE_RE = re.compile(r"</gen(\\*)>")


def escape_gen(text: str) -> str:
    return _ESCAPED_CLOSE_RE.sub(lambda m: "</gen\\" + m.group(1) + ">", text)


def unescape_gen(body: str) -> str:
    return _ESCAPED_CLOSE_RE.sub(lambda m: "</gen" + m.group(1)[1:] + ">", body)


def format_op(op: Op) -> str:
    if isinstance(op, Copy):
        return f'<copy lines="{op.start}-{op.end}"/>'
    if isinstance(op, CopySpan):
        return f'<copy span="{op.start_line}:{op.start_col}-{op.end_line}:{op.end_col}"/>'
    if isinstance(op, Gen):
        return _GEN_OPEN + escape_gen(op.text) + _GEN_CLOSE
    raise TypeError(f"not an op: {op!r}")


def format_program(ops: Iterable[Op]) -> str:
    """Canonical text: each op followed by one newline."""
    return "".join(format_op(op) + "\n" for op in ops)


_NUM = r"(0|[1-9][0-9]*)"
_COPY_LINES_RE = re.compile(rf'<copy lines="{_NUM}-{_NUM}"/>')
_COPY_SPAN_RE = re.compile(rf'<copy span="{_NUM}:{_NUM}-{_NUM}:{_NUM}"/>')
_SEPARATOR = " \t\r\n"


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1)
    snippet = text[pos : pos + 20]
    return f"at line {line}, column {col} (near {snippet!r})"


def parse_program(text: str) -> list[Op]:
    """Parse program text strictly; whitespace between ops is ignored.

    Raises ProgramError naming the position of the first thing that is not an op.
    """
    ops: list[Op] = []
    pos, n = 0, len(text)
    while True:
        while pos < n and text[pos] in _SEPARATOR:
            pos += 1
        if pos == n:
            return ops
        if text.startswith(_GEN_OPEN, pos):
            close = text.find(_GEN_CLOSE, pos + len(_GEN_OPEN))
            if close < 0:
                raise ProgramError(f"op {len(ops) + 1}: <gen> is never closed, {_where(text, pos)}")
            ops.append(Gen(unescape_gen(text[pos + len(_GEN_OPEN) : close])))
            pos = close + len(_GEN_CLOSE)
            continue
        m = _COPY_LINES_RE.match(text, pos)
        if m:
            ops.append(Copy(int(m.group(1)), int(m.group(2))))
            pos = m.end()
            continue
        m = _COPY_SPAN_RE.match(text, pos)
        if m:
            ops.append(CopySpan(*(int(g) for g in m.groups())))
            pos = m.end()
            continue
        raise ProgramError(f"op {len(ops) + 1}: expected <copy .../> or <gen>, {_where(text, pos)}")
