"""An update no distinctive line places: a short rewrite of the run it resembles most, or new code that goes
at the file's end (before its closing line where the file ends by closing a block)."""

from __future__ import annotations

import difflib
import os

from ..ops import split_lines
from .likeness import defines_another, looks_alike, other_entries
from .placement import MARKER, NEW, NoSharedLine, Placement, SKIP, UpdateError
from .reading import (
    CLOSING, CLOSING_TAG, DISTINCTIVE, IMPORT_LINE, closes_new_block, indent_of, keys_of, other_titles, weight)
from .rewrites import LONE_LINES, REWRITE_ALONE, alike_line_for_line, rewritten_alone


TAIL_CONTEXT = 3  # lines at most that new code appended after a marker repeats from the file's end, as context


def unanchored(document: str, update_lines: list[str], lines: list[int], keys: list[str],
               fresh: set[int]) -> Placement:
    """An update that repeats no line of the file: new code after a marker goes at the end of the file (inside
    the closing lines it ends with, when they are the file's), before one at its start; anything else has no
    place.  ``fresh``: the update's lines of definitions the file does not have."""
    content = [k for k, key in enumerate(keys) if key.strip() and lines[k] != MARKER]
    before = [k for k in range(content[0]) if lines[k] == MARKER]
    after = [k for k in range(content[-1] + 1, len(keys)) if lines[k] == MARKER]
    doc_keys = keys_of(split_lines(document))
    # (a new definition after a marker rewrites no other: the marker says the file's code stays)
    lone = None if fresh and MARKER in lines else _lone_rewrite(document, update_lines, lines, keys, content)
    if lone is not None:
        return lone
    if not before and not after and MARKER not in lines:  # (a marker among the lines: it stands for code of the
        inside = _inside_file_end(update_lines, lines, keys, doc_keys, content)  # file, whose place is unknown)
        if inside is not None:  # (set apart from the member above, as members are)
            closing = next(n for n in inside if n > 0)
            replaced = _last_line_rewritten(inside, keys, doc_keys, content, closing)
            above = min(replaced, default=closing) - 1  # the file line the new ones follow (1-based)
            apart = frozenset({content[0]}) if above > 0 and doc_keys[above - 1].strip() and \
                not doc_keys[above - 1].rstrip().endswith(("{", "(", "[", ":", "do")) else frozenset()
            return Placement(document, update_lines, inside, {}, False, replaced=replaced, apart=apart)
        raise NoSharedLine("no line of the update matches a line of the file: it does not belong to this file")
    if (each := _each_line_rewritten(document, update_lines, lines, keys, content)) is not None:
        return each
    if before and after or any(lines[k] == MARKER for k in range(content[0], content[-1])):
        raise UpdateError("the update repeats no line of the file, so where its code goes is unknown: include an "
                          "unchanged line around the change")
    total = len(doc_keys)
    marker = (before or after)[0]
    if before:  # the lines that close the update close the file (a class's ``}``): the new code goes inside them
        total = _place_file_tail(lines, keys, doc_keys, [k for k in content if lines[k] == NEW],
                                 _close_at_file_end(lines, keys, doc_keys, content))
    kept = {k: ((1, total) if k == marker else (total + 1, total)) for k in before + after}
    return Placement(document, update_lines, lines, kept, False)


def _inside_file_end(update_lines: list[str], lines: list[int], keys: list[str], doc_keys: list[str],
                     content: list[int]) -> list[int] | None:
    """New members, indented, then the closing lines the file ends with (a new test and the ``});`` of the
    file's ``describe``): the members go inside them, before the file's last lines.  The update's lines placed
    so, or None."""
    out = list(lines)
    _close_at_file_end(out, keys, doc_keys, content)
    closing = [i for i in content if out[i] > 0]
    members = [i for i in content if out[i] == NEW]
    if not closing or not members or keys[members[0]] in set(doc_keys) or \
            min(indent_of(keys[i]) for i in members) <= indent_of(keys[closing[0]]):
        return None
    return out


def _last_line_rewritten(lines: list[int], keys: list[str], doc_keys: list[str], content: list[int],
                         closing: int) -> frozenset[int]:
    """The file line right above its closing lines (a composable's ``return { todos, add }``) that the last of the
    new members shown before those closing lines rewrites (``return { todos, add, rename }``): closely alike, the
    same statement, and no other new line like it; none otherwise."""
    members = [i for i in content if lines[i] == NEW]
    j = closing - 1
    while j > 0 and not doc_keys[j - 1].strip():
        j -= 1
    k = members[-1]
    if j <= 0 or CLOSING.match(keys[k]) or keys[k].strip() == doc_keys[j - 1].strip() or \
            not looks_alike(keys[k], doc_keys[j - 1], REWRITE_ALONE) or \
            not alike_line_for_line([(k, j)], keys, doc_keys) or \
            keys[k].split()[:1] != doc_keys[j - 1].split()[:1] or \
            any(looks_alike(keys[i], doc_keys[j - 1]) for i in members[:-1]):
        return frozenset()
    return frozenset(range(j, closing))


def _close_at_file_end(lines: list[int], keys: list[str], doc_keys: list[str], content: list[int]) -> int:
    """Place the update's last lines that only close blocks on the file's last lines they repeat, from the end
    in, unless they close a block the update opens; the 0-based index of the first file line so placed (the
    file's length where none is)."""
    k, j, in_file = content[-1], max((j for j, key in enumerate(doc_keys) if key.strip()), default=-1), set(doc_keys)
    total = len(doc_keys)
    while k > content[0] and j >= 0 and CLOSING.match(keys[k]) and keys[k] == doc_keys[j] and \
            not closes_new_block(k, keys, in_file):
        lines[k] = j + 1
        total, k, j = j, k - 1, j - 1
    return total


def _place_file_tail(lines: list[int], keys: list[str], doc_keys: list[str], content: list[int], total: int) -> int:
    """New code appended after a marker, shown below the file's last lines as context (the last test's
    ``assert``, the ``}`` of the last function) where the file has them elsewhere too, so they placed nothing:
    the update's first lines that repeat the file's last ones (before line ``total``) are those lines, and the
    marker keeps what comes before them.  The number of file lines the marker keeps."""
    tail = [j for j in range(total) if doc_keys[j].strip()]
    for size in range(min(len(content) - 1, len(tail), TAIL_CONTEXT), 0, -1):
        ks, js = content[:size], tail[-size:]
        if ks == list(range(ks[0], ks[0] + size)) and js == list(range(js[0], js[0] + size)) and \
                all(keys[k] == doc_keys[j] for k, j in zip(ks, js)):
            for k, j in zip(ks, js):
                lines[k] = j + 1
            return js[0]
    return total


def _lone_rewrite(document: str, update_lines: list[str], lines: list[int], keys: list[str],
                  content: list[int]) -> Placement | None:
    """An update of a few changed lines and nothing else (a table row, a sentence, two constants, with markers
    or none around them) rewrites the run of file lines it clearly resembles, line for line (blank where the
    update is blank, each line at its indentation), when only one run is that alike; None otherwise."""
    doc_keys = keys_of(split_lines(document))
    run = range(content[0], content[-1] + 1)
    if any(lines[k] == MARKER for k in run) or sum(weight(keys[k]) for k in content) < DISTINCTIVE:
        return None
    unfolded = _unfolded_line(keys, doc_keys, content)
    if unfolded is not None:  # (a one-line element written over several: it rewrites that line)
        lines = [NEW if k in run else SKIP if not keys[k].strip() else lines[k] for k in range(len(keys))]
        kept = {k: ((1, unfolded - 1) if k < run[0] else (unfolded + 1, len(doc_keys)))
                for k, n in enumerate(lines) if n == MARKER}
        return Placement(document, update_lines, lines, kept, False, frozenset({unfolded}), {run[0]: unfolded})
    if len(content) > LONE_LINES:
        return None
    shape = [(indent_of(keys[k]), not keys[k].strip()) for k in run]
    text = "\n".join(keys[k].strip() for k in run)
    alone_in_file = sum(1 for key in doc_keys if key.strip()) <= len(content)
    scores = []
    for first in range(1, len(doc_keys) - len(run) + 2):
        window = doc_keys[first - 1: first - 1 + len(run)]
        if [(indent_of(key), not key.strip()) for key in window] != shape or \
                any(other_entries(keys[k], key) and not IMPORT_LINE.match(key) for k, key in zip(run, window)) or \
                other_titles(keys[run[0]], window[0]) or alone_in_file is False and \
                any(defines_another(keys, k, doc_keys, first - 1 + k - run[0]) for k in run):
            continue  # (``.b {`` is another rule than ``.a {``, however alike; a name imported anew is the same;
            # ``void bangMarksBreaking()`` is another test than ``void parses()`` beside it in a class, where a
            # file of that one function renames it)
        matcher = difflib.SequenceMatcher(None, text, "\n".join(key.strip() for key in window), autojunk=False)
        ends = len(run) == 1 and _same_ends(text, window[0].strip())  # (one value inside a long line rewritten
        if ends or matcher.real_quick_ratio() >= REWRITE_ALONE and matcher.quick_ratio() >= REWRITE_ALONE:  # at
            scores.append((max(matcher.ratio(), REWRITE_ALONE if ends else 0), first))  # length)
    scores.sort(reverse=True)
    if not scores or scores[0][0] < REWRITE_ALONE or len(scores) > 1 and scores[1][0] >= scores[0][0] - 0.1:
        return None
    first = scores[0][1]
    lines = [NEW if k in run else SKIP if not keys[k].strip() else lines[k] for k in range(len(keys))]
    rewrites = {k: first + k - run[0] for k in run}
    total, last = len(doc_keys), first + len(run) - 1
    kept = {k: ((1, first - 1) if k < run[0] else (last + 1, total)) for k, n in enumerate(lines) if n == MARKER}
    return Placement(document, update_lines, lines, kept, False, frozenset(rewrites.values()), rewrites)


def _each_line_rewritten(document: str, update_lines: list[str], lines: list[int], keys: list[str],
                         content: list[int]) -> Placement | None:
    """Single changed lines between markers (``import { selectCount, useCart } from "../store";``, ``// ...``,
    ``const count = useCart(selectCount);``), or one indented line beside a marker (not code for the file's end,
    which is outside any block): each rewrites the one file line it clearly resembles (``rewrites.rewritten_alone``),
    in the file's order; None where one does not."""
    if not content or MARKER not in lines or len(content) == 1 and not indent_of(keys[content[0]]) or \
            any(MARKER not in lines[a + 1:b] for a, b in zip(content, content[1:])):
        return None
    doc_keys = keys_of(split_lines(document))
    found: list[int] = []
    for k in content:
        js = range(1, len(doc_keys) + 1)
        j = rewritten_alone(keys[k], doc_keys, js, set(found)) or \
            rewritten_alone(keys[k], doc_keys, js, set(found), any_depth=True)  # (at its depth, else at any)
        if j is None or found and j <= found[-1]:
            return None
        found.append(j)
    rewrites = dict(zip(content, found))
    placed = [NEW if k in rewrites else SKIP if not keys[k].strip() else lines[k] for k in range(len(keys))]
    kept = {k: (max((j for c, j in rewrites.items() if c < k), default=0) + 1,
                min((j for c, j in rewrites.items() if c > k), default=len(doc_keys) + 1) - 1)
            for k, n in enumerate(placed) if n == MARKER}
    return Placement(document, update_lines, placed, kept, False, frozenset(found), rewrites)


SAME_ENDS = 16  # characters a line and its rewrite share at each end, where what changed between is long


def _same_ends(new: str, old: str) -> bool:
    """Whether one line is another with its middle rewritten: both ends alike (``<img class="avatar" src="{{``
    ... ``}}" alt="" width="96" height="96">``) over at least SAME_ENDS characters each."""
    head = len(os.path.commonprefix([new, old]))
    tail = len(os.path.commonprefix([new[head:][::-1], old[head:][::-1]]))
    return head >= SAME_ENDS and tail >= SAME_ENDS


def _unfolded_line(keys: list[str], doc_keys: list[str], content: list[int]) -> int | None:
    """The one file line (1-based) an update of nothing of the file writes over several lines: a statement or
    an element the file has on one line (``<p *ngIf="..." class="empty">No products found.</p>``) that the
    update opens alike and closes at its depth (``</p>``), clearly more alike than any other; None otherwise."""
    first, last = keys[content[0]].strip(), keys[content[-1]].strip()
    if len(content) < 2 or indent_of(keys[content[0]]) != indent_of(keys[content[-1]]) or \
            not (CLOSING.match(last) or CLOSING_TAG.match(last)):
        return None
    scores = []
    for n, key in enumerate(doc_keys, 1):
        line = key.strip()
        if indent_of(key) == indent_of(keys[content[0]]) and line.endswith(last) and len(line) > len(last) + 1:
            scores.append((difflib.SequenceMatcher(None, first, line[: len(first)], autojunk=False).ratio(), n))
    scores.sort(reverse=True)
    if not scores or scores[0][0] < REWRITE_ALONE or len(scores) > 1 and scores[1][0] >= scores[0][0] - 0.1:
        return None
    return scores[0][1]
