"""How much of the file each marker keeps: up to the next shown line, or to the end of the block the marker
sits in, or up to the next definition a later line names."""

from __future__ import annotations

import re

from .placement import MARKER, NEW
from .reading import ATTACHED_LINE, CLOSING, CLOSING_TAG, OPENS, attached_start, block_end, closes_new_block, indent_of


def marker_extents(lines: list[int], keys: list[str], doc_keys: list[str],
                   defined: dict[int, str]) -> dict[int, tuple[int, int]]:
    """The file lines each marker keeps: up to the next placed line; with none after it, the rest of the file
    when the marker ends the update, else the rest of the block it is indented into (new code after it goes at
    that block's end).  ``defined``: the file's definitions."""
    kept, done, total = {}, 0, len(doc_keys)
    last = None  # the update line placed on ``done``, or the marker before: whatever the update showed last
    for k, n in enumerate(lines):
        if n > 0:
            done, last = n, k
            continue
        if n != MARKER:
            continue
        following = next((m for m in lines[k + 1:] if m > 0), None)
        if last is not None and lines[last] > 0 and any(key.strip() for key in keys[last + 1:k]) and \
                not keys[k].lstrip().startswith("{{"):  # (Windsurf's ``{{ ... }}``: its indentation says nothing)
            end_row = next(i for i in range(k - 1, last, -1) if keys[i].strip())
            if not (CLOSING_TAG.match(keys[end_row]) and closes_new_block(end_row, keys, set(doc_keys))):
                done = _rewritten_block_end(done, indent_of(keys[k]), following, doc_keys, keys[end_row])  # new code
                # ends a block (not a new element's own ``</form>``)
        last = k
        after = next((m for m in range(k + 1, len(lines)) if lines[m] > 0 or lines[m] == MARKER), None)
        if following is not None and after is not None and lines[after] == MARKER and \
                indent_of(keys[after]) < indent_of(keys[k]):  # a marker inside a block, then one after the block:
            indent, end = indent_of(keys[k]), done  # this one keeps the rest of the block, the next what follows it
            while end < following - 1 and (not doc_keys[end].strip() or indent_of(doc_keys[end]) >= indent):
                end += 1
            while end > done and not doc_keys[end - 1].strip():
                end -= 1
        elif following is not None:
            end = following - 1
        elif not any(key.strip() for key, m in zip(keys[k + 1:], lines[k + 1:]) if m == NEW):
            end = total
        else:
            indent, end = indent_of(keys[k]), done
            while end < total and (not doc_keys[end].strip() or indent == 0 or indent_of(doc_keys[end]) >= indent):
                end += 1
            while end > done and not doc_keys[end - 1].strip():
                end -= 1  # blank lines after the block stay between it and what follows
        end = _before_the_next_named(k, lines, keys, doc_keys, defined, done, end)
        start, end = _its_own(k, lines, keys, doc_keys, defined, done, end)
        kept[k] = (start, end)
        done = max(done, end)
    return kept


def _before_the_next_named(k: int, lines: list[int], keys: list[str], doc_keys: list[str], defined: dict[int, str],
                           done: int, end: int) -> int:
    """Where marker k's kept lines end when new lines follow it and then another marker naming a definition among
    them (``// ... environment and existing @State properties ...``, a new property, ``// ... canSave unchanged
    ...``): before that definition, which the next marker keeps; else ``end``."""
    nxt = next((m for m in range(k + 1, len(lines)) if lines[m] > 0 or lines[m] == MARKER), None)
    if nxt is None or lines[nxt] != MARKER or not any(keys[i].strip() for i in range(k + 1, nxt)):
        return end
    said = {word for word in re.findall(r"[A-Za-z_]\w{3,}", keys[nxt])
            if re.search(r"[a-z][A-Z]|_[a-z]", word) or word[0].isupper() and not word.isupper() and word != "End"}
    named = [j for j in sorted(defined)
             if done <= j < end and any(re.search(rf"\b{re.escape(word)}\b", doc_keys[j]) for word in said)]
    if not said or not named:
        return end
    cut = named[0]
    while cut > done and doc_keys[cut - 1].strip() and ATTACHED_LINE.match(doc_keys[cut - 1]):
        cut -= 1  # (its attributes and doc comment are its own)
    while cut > done and not doc_keys[cut - 1].strip():
        cut -= 1
    return cut


_UNCHANGED = re.compile(r"\b(?:unchanged|as before|as[- ]is|untouched|stays?|remains?)\b", re.IGNORECASE)


def says_unchanged(marker: str) -> bool:
    """Whether a marker says what it stands for stays as it is ("unchanged", "as before", "stays")."""
    return _UNCHANGED.search(marker) is not None


def said_kept(marker: str) -> tuple[list[str], set[str]]:
    """The test titles and definition names a marker says it keeps as they are (``// ... decrement() unchanged
    ...``, ``# ... "with valid data" unchanged ...``); none where it does not say so (``// ... in Load():`` names
    where the next lines go, not what it keeps)."""
    if not says_unchanged(marker):
        return [], set()
    return re.findall(r'"([^"]{3,})"', marker), set(re.findall(r"\b([A-Za-z_]\w*)\(\)", marker))


def _its_own(k: int, lines: list[int], keys: list[str], doc_keys: list[str], defined: dict[int, str], done: int,
             end: int) -> tuple[int, int]:
    """The file lines marker k keeps where it names the definitions it keeps, each once in its stretch (``# ...
    "with valid data creates a product" unchanged ...``, ``// ... remove() and clear() unchanged ...``) and new
    lines stand beside it: from the first one's first line where new lines come before the marker, to the last
    one's last where new lines follow, so that the file's definition the new lines rewrite is not kept beside
    them; else (``done`` + 1, ``end``)."""
    titles, names = said_kept(keys[k])
    if not titles and not names:
        return done + 1, end
    named = [[j for j in sorted(defined) if done <= j < end and f'"{title}"' in doc_keys[j]] for title in titles] + \
        [[j for j in sorted(defined) if done <= j < end and defined[j] == name] for name in names]
    if any(len(found) != 1 for found in named):
        return done + 1, end
    heads = sorted(found[0] for found in named)
    shown = [m for m in range(len(lines)) if keys[m].strip()]
    before = [m for m in shown if m < k]
    after = [m for m in shown if m > k]
    start = attached_start(doc_keys, heads[0]) + 1 if before and lines[before[-1]] == NEW else done + 1
    stop = block_end(doc_keys, heads[-1]) if after and lines[after[0]] == NEW else end
    return max(start, done + 1), min(stop, end)


def _rewritten_block_end(done: int, indent: int, following: int | None, doc_keys: list[str], new_end: str) -> int:
    """Where a marker's kept lines start when new code comes between the last placed line and the marker: a
    marker less indented than the file's lines after that placed one stands for what follows the block they
    are in, so the rest of that block is what the new code rewrote (the update's new lines are the block's new
    end).  Returns the last file line the new code accounts for: ``done`` as it was when the file's next line
    is no deeper than the marker, or when the block does not end before the next placed line, or when the block
    ends with a closing line and the new code (``new_end``, its last line) does not close it: the marker, at
    the left edge where some assistants put every marker (``{{ ... }}``), stands for the block's rest then."""
    end = following - 1 if following is not None else len(doc_keys)
    j = done  # 0-based: the file line after ``done``
    while j < end and not doc_keys[j].strip():
        j += 1
    if j >= end or indent_of(doc_keys[j]) <= indent:
        return done
    head = doc_keys[done - 1] if done else ""
    if head.strip() and indent < indent_of(head) < indent_of(doc_keys[j]) and _ends_by_dedent(head) and \
            indent_of(new_end) > indent_of(head):
        indent = indent_of(head)  # the marker is outside the block the shown head opens, whose body the update
        # shows whole (a Scala ``case ... =>``, a Python ``def``): the block ends where the file's lines come back
    while j < end and (not doc_keys[j].strip() or indent_of(doc_keys[j]) > indent):
        j += 1
    if j >= end:
        return done  # the block runs on to the next placed line: the marker is inside it after all
    if CLOSING.match(doc_keys[j]) and doc_keys[j].strip() and \
            not (CLOSING.match(new_end) and indent_of(new_end) == indent_of(doc_keys[j])):
        return done  # (an inner ``}`` at the end of the new lines closes an ``if``, not the block)
    while j > done and not doc_keys[j - 1].strip():
        j -= 1  # the blank lines before what follows the block stay with it
    return j


def _ends_by_dedent(head: str) -> bool:
    """Whether a block head's body ends where the indentation comes back, not on a closing line: it opens no
    bracket (``case x =>``, ``def f():``, not ``f() {`` or ``do``)."""
    code = head.split("//")[0].split(" #")[0]
    return sum(code.count(c) for c in "([{") == sum(code.count(c) for c in ")]}") and not OPENS.search(code)
