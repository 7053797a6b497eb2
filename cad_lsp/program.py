"""Edit programs: ops, their text form, the resolver and the oracle.

An edit program replaces document lines ``first..last`` with a sequence of
ops: ``<copy lines="i-j"/>`` copies document lines i..j verbatim (1-based,
inclusive, line terminators included), ``<copy span="l:c-l:c"/>`` copies a
sub-line span, and ``<gen>text</gen>`` inserts new text.  Everything here is
pure and model-free so that the resolver is byte-exact by construction.

Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` -- the three terminators the
Language Server Protocol recognises -- and keep their terminator.  A final
line without a terminator is still a line; an empty document has no lines.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Callable, Iterable, Sequence, Union

__all__ = [
    "Copy",
    "CopySpan",
    "Gen",
    "Op",
    "ProgramError",
    "Document",
    "split_lines",
    "parse_program",
    "format_program",
    "format_op",
    "escape_gen",
    "unescape_gen",
    "resolve",
    "resolve_pieces",
    "oracle_program",
    "oracle_for_selection",
    "oracle_program_spans",
]


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


# ---------------------------------------------------------------------------
# Resolver


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


def _check_selection(doc: Document, first_line: int, last_line: int | None) -> tuple[int, int]:
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
    _check_selection(doc, first_line, last_line)
    out = []
    for op, start, end in resolve_pieces(ops, doc):
        out.append(op.text if isinstance(op, Gen) else doc.text[start:end])
    return "".join(out)


def apply_program(ops: Sequence[Op], document: str, first_line: int = 1, last_line: int | None = None) -> str:
    """The whole document after the program replaced the selected lines."""
    doc = Document(document)
    first, last = _check_selection(doc, first_line, last_line)
    start, end = doc.line_range_offsets(first, last) if doc.line_count else (0, 0)
    return document[:start] + resolve(ops, doc, first_line, last_line) + document[end:]


# ---------------------------------------------------------------------------
# Oracle


def _merge_gens(ops: list[Op]) -> list[Op]:
    merged: list[Op] = []
    for op in ops:
        if isinstance(op, Gen):
            if not op.text:
                continue
            if merged and isinstance(merged[-1], Gen):
                merged[-1] = Gen(merged[-1].text + op.text)
                continue
        merged.append(op)
    return merged


class _MaxTree:
    """Fenwick tree of prefix maxima over (score, payload) tuples."""

    def __init__(self, size: int):
        self.size = size
        self.tree: list[tuple] = [(-1, 0, -1, -1)] * (size + 1)

    def update(self, index: int, value: tuple) -> None:
        index += 1
        while index <= self.size:
            if value > self.tree[index]:
                self.tree[index] = value
            index += index & -index

    def query(self, index: int) -> tuple:
        """Max over positions < index."""
        best = (-1, 0, -1, -1)
        while index > 0:
            if self.tree[index] > best:
                best = self.tree[index]
            index -= index & -index
        return best


def _align_lines(old: list[str], new: list[str], weight: Callable[[str], int]) -> list[tuple[int, int]]:
    """Monotone matching of equal lines with the greatest total weight.

    Ties go to fewer copy runs.  A weighted longest increasing subsequence
    over the equal pairs: O(r log n) for r equal pairs, exact.
    """
    positions: dict[str, list[int]] = {}
    for j, line in enumerate(new):
        positions.setdefault(line, []).append(j)
    tree = _MaxTree(len(new))
    best: dict[tuple[int, int], tuple] = {}  # (i, j) -> (weight, -runs, prev_i, prev_j)
    for i, line in enumerate(old):
        js = positions.get(line)
        if not js:
            continue
        w = weight(line)
        row = []
        for j in js:
            prev = tree.query(j)
            if prev[0] < 0:
                candidate = (w, -1, -1, -1)
            else:
                candidate = (prev[0] + w, prev[1] - 1, prev[2], prev[3])
            diagonal = best.get((i - 1, j - 1))
            if diagonal is not None and (diagonal[0] + w, diagonal[1]) > candidate[:2]:
                candidate = (diagonal[0] + w, diagonal[1], i - 1, j - 1)
            row.append((j, candidate))
        for j, candidate in row:  # after the row: no two pairs share old line i
            best[(i, j)] = candidate
            tree.update(j, (candidate[0], candidate[1], i, j))
    if not best:
        return []
    end = max(best, key=lambda k: best[k][:2])
    chain = []
    while end != (-1, -1):
        chain.append(end)
        end = best[end][2:]
    return chain[::-1]


def oracle_program(before: str, after: str, weight: Callable[[str], int] = len) -> list[Op]:
    """The line-level program with the fewest generated characters turning before into after.

    Copies are monotone and non-overlapping; among programs generating the
    same amount, the one with fewest copy ops wins.  ``weight`` measures a
    line (characters by default; pass a token counter to count tokens).
    ``resolve(oracle_program(b, a), b) == a`` holds for every pair of strings.
    """
    old, new = split_lines(before), split_lines(after)
    # Common prefix and suffix first: cheap, and it keeps the matching small.
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    pairs = [(k, k) for k in range(head)]
    middle = _align_lines(old[head : len(old) - tail], new[head : len(new) - tail], weight)
    pairs += [(i + head, j + head) for i, j in middle]
    pairs += [(len(old) - tail + k, len(new) - tail + k) for k in range(tail)]

    ops: list[Op] = []
    next_new = 0
    run_start = None
    for index, (i, j) in enumerate(pairs):
        if j > next_new:
            ops.append(Gen("".join(new[next_new:j])))
        if run_start is None:
            run_start = i
        nxt = pairs[index + 1] if index + 1 < len(pairs) else None
        if nxt is None or nxt != (i + 1, j + 1):
            ops.append(Copy(run_start + 1, i + 1))
            run_start = None
        next_new = j + 1
    if next_new < len(new):
        ops.append(Gen("".join(new[next_new:])))
    return _merge_gens(ops)


def oracle_for_selection(document: str, first_line: int, last_line: int | None, new_text: str) -> list[Op]:
    """The oracle program that replaces document lines first..last with ``new_text``.

    Copies use document line numbers and stay inside the selection, as the
    grammar requires of a model's program.
    """
    doc = Document(document)
    first, last = _check_selection(doc, first_line, last_line)
    selected = "".join(doc.lines[first - 1 : last])
    return [
        Copy(op.start + first - 1, op.end + first - 1) if isinstance(op, Copy) else op
        for op in oracle_program(selected, new_text)
    ]


def oracle_program_spans(before: str, after: str, min_chars: int = 12) -> list[Op]:
    """Token-level extension: the line oracle, then sub-line copies inside gen regions.

    Each gen region may copy spans of at least ``min_chars`` code points from
    the old text between its neighbouring copies, which keeps the program
    monotone.  Short spans are left generated: a copy tag costs ~10 tokens.
    """
    doc = Document(before)
    line_ops = oracle_program(before, after)
    out: list[Op] = []
    # Old text available to a gen region: from the end of the previous copy to the start of the next.
    bounds = []
    previous_end = 0
    for index, op in enumerate(line_ops):
        if isinstance(op, Copy):
            start, end = doc.line_range_offsets(op.start, op.end)
            previous_end = end
        else:
            following = next((o for o in line_ops[index + 1 :] if isinstance(o, Copy)), None)
            limit = doc.line_starts[following.start - 1] if following else len(before)
            bounds.append((previous_end, limit))
    regions = iter(bounds)
    for op in line_ops:
        if not isinstance(op, Gen):
            out.append(op)
            continue
        lo, hi = next(regions)
        out.extend(_span_copies(op.text, doc, lo, hi, min_chars))
    return _merge_gens(out)


def _span_copies(text: str, doc: Document, lo: int, hi: int, min_chars: int) -> list[Op]:
    old = doc.text[lo:hi]
    if not old or not text or len(old) * len(text) > 4_000_000:
        return [Gen(text)]
    matcher = SequenceMatcher(None, old, text, autojunk=False)
    ops: list[Op] = []
    cursor = 0
    for a, b, size in matcher.get_matching_blocks():
        if size < min_chars:
            continue
        if b > cursor:
            ops.append(Gen(text[cursor:b]))
        start, end = lo + a, lo + a + size
        sl, el = doc.line_of_offset(start), doc.line_of_offset(end)
        if el >= doc.line_count:  # the end of the text: express it as the end of the last line
            el = doc.line_count - 1
        ops.append(CopySpan(sl + 1, start - doc.line_starts[sl], el + 1, end - doc.line_starts[el]))
        cursor = b + size
    if cursor < len(text):
        ops.append(Gen(text[cursor:]))
    return ops
