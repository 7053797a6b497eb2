"""The oracle: from (before, after), the program with the fewest generated characters.

``resolve(oracle_program(b, a), b) == a`` for every pair of strings: the
paper's losslessness claim, checked by property tests.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Callable

from .ops import Copy, CopySpan, Document, Gen, Op, split_lines
from .resolver import checked_selection

__all__ = ["oracle_program", "oracle_for_selection", "oracle_program_spans"]


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
    first, last = checked_selection(doc, first_line, last_line)
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
