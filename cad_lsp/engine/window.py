"""Which lines of a long document the prompt shows: a window around the selection.

A document longer than the model's context (or than the user's
``contextLines``) is shown as a run of whole blocks of ``block`` lines around
the selection.  Bounds on block boundaries keep the prompt's document part --
the cached prefix -- the same for nearby selections and for edits outside the
window; a window placed on a half-window grid keeps it the same while the
selection moves within half a window.  The selection sits in the window's
lower half: typing at the selection changes only the end of the prompt.

A window once shown is found again by its text (``Placed``): a line inserted
or deleted above it then leaves the window's lines, their numbers (the prompt
numbers a window's lines from 1) and so its cache as they were.

Pure arithmetic over lines and per-line token counts: no model, no tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass

BLOCK_LINES = 64
# The editors' default: a longer file is shown as a window of at most this many lines around the selection.  Attention
# over the window is what a warm edit of a long file pays beyond a short one's (SmolLM2 on a 2-core CPU: 1.9x a 50-line
# file's with 512 lines, 1.6x with 256, bench warmedit), and what a change inside it makes the next warm read again;
# a local edit rarely needs what lies 130 lines away.  Users set ``contextLines`` higher for more of the file.
DEFAULT_CONTEXT_LINES = 256


@dataclass(frozen=True)
class Window:
    """Document lines ``start..end`` (1-based, inclusive) of ``total``."""

    start: int
    end: int
    total: int

    @property
    def lines(self) -> int:
        return self.end - self.start + 1


class SelectionTooLong(ValueError):
    """The selected lines alone do not fit; ``fits`` says how many lines from its first would."""

    def __init__(self, message: str, fits: int):
        super().__init__(message)
        self.fits = fits


def _cost(tokens: list[int], start: int, end: int) -> int:
    return sum(tokens[start - 1 : end])


def choose_window(line_tokens: list[int], first: int, last: int, budget: int, *, max_lines: int | None = None,
                  block: int = BLOCK_LINES) -> Window:
    """The window shown for a selection of lines first..last.

    ``line_tokens[i]`` is what line i+1 costs in the prompt; the window's
    lines cost at most ``budget`` and number at most ``max_lines`` (when the
    selection's own blocks allow).  Raises SelectionTooLong when not even the
    selected lines fit.
    """
    total = len(line_tokens)
    if max_lines is not None and max_lines < block:
        block = max(1, max_lines)
    lo = (first - 1) // block  # block indices (0-based) holding the selection
    hi = (last - 1) // block
    blocks = -(-total // block)

    def bounds(a: int, b: int) -> tuple[int, int]:
        return a * block + 1, min(total, (b + 1) * block)

    def fits(a: int, b: int) -> bool:
        start, end = bounds(a, b)
        return _cost(line_tokens, start, end) <= budget and (max_lines is None or end - start + 1 <= max_lines
                                                             or (a, b) == (lo, hi))

    if not fits(lo, hi):
        if _cost(line_tokens, first, last) <= budget:
            return Window(first, last, total)  # the selection fits, its blocks do not: show it alone
        room, count = budget, 0
        while first + count <= last and line_tokens[first - 1 + count] <= room:
            room -= line_tokens[first - 1 + count]
            count += 1
        raise SelectionTooLong(f"the {last - first + 1} selected lines do not fit the model's context with the "
                               f"request and room for the program; {count} would", count)
    # The widest window grown from the selection's blocks, one block before then one after.
    a, b = lo, hi
    while True:
        grown = False
        if a > 0 and fits(a - 1, b):
            a, grown = a - 1, True
        if b < blocks - 1 and fits(a, b + 1):
            b, grown = b + 1, True
        if not grown:
            break
    # The same width on a half-window grid, when it still holds the selection and fits: nearby selections then
    # share one window (and its cache) instead of each centring its own.  Of the grid's windows that hold the
    # selection, the one that ends soonest after it: a change where the user types, at the selection, makes
    # the next warm read again only what follows it in the window, and code above a selection (its imports,
    # definitions, the function's head) tells an edit more than code below it.
    width = b - a + 1
    step = max(1, width // 2)
    earliest = max(0, hi - width + 1)  # the first start whose window still reaches the selection's last block
    snapped = min(-(-earliest // step) * step, max(0, blocks - width))
    if snapped <= lo and snapped + width - 1 >= hi and fits(snapped, snapped + width - 1):
        a, b = snapped, snapped + width - 1
    start, end = bounds(a, b)
    return Window(start, end, total)


ANCHOR_LINES = 8  # a window is found again by the text of its first lines


@dataclass(frozen=True)
class Placed:
    """A window shown before: the text of its first lines, its length and where it began."""

    anchor: tuple[str, ...]
    lines: int
    start: int

    @classmethod
    def of(cls, lines: list[str], window: Window) -> "Placed":
        return cls(tuple(lines[window.start - 1 : window.start - 1 + ANCHOR_LINES]), window.lines, window.start)


def find_again(placed: Placed, lines: list[str], line_tokens: list[int], first: int, last: int, budget: int, *,
               max_lines: int | None = None) -> Window | None:
    """The window that begins where ``placed``'s first lines are now (the nearest place to where they were),
    as long as before, when it still holds lines first..last and fits; else None."""
    anchor, total = placed.anchor, len(lines)
    if not anchor:
        return None
    found = [at + 1 for at in range(total - len(anchor) + 1)
             if lines[at] == anchor[0] and tuple(lines[at : at + len(anchor)]) == anchor]
    if not found:
        return None
    start = min(found, key=lambda at: abs(at - placed.start))
    end = min(total, start + placed.lines - 1)
    if not (start <= first and last <= end) or _cost(line_tokens, start, end) > budget:
        return None
    if max_lines is not None and end - start + 1 > max_lines:
        return None
    return Window(start, end, total)


__all__ = ["BLOCK_LINES", "ANCHOR_LINES", "Window", "Placed", "SelectionTooLong", "choose_window", "find_again"]
