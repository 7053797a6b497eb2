"""What a merge is checked for before it is offered: code left after a return, lines out of the update's
order, and lines the update repeats from the file that a merge wrote anew (a reading that took context for
new code)."""

from __future__ import annotations

import difflib
import re
from collections import Counter

from ..blocks import Piece
from ..markers import is_marker, next_shown
from .likeness import looks_alike
from .reading import (
    ANCHOR_WEIGHT, CLOSING, DECORATOR, DISTINCTIVE, LEAVES, block_end, definition_name, definitions_in, enclosing_callables,
    indent_of, is_declaration, line_key, weight)


TWIN_REACH = 12  # lines apart at most that a new line and a kept one it repeats or rewrites count as both kept
TWIN_LIKENESS = 0.85  # ... when the new line resembles the kept one this much

_NOT_DEAD = re.compile(r"^\s*(?:else|elif|except|catch|finally|case|default|when|rescue|ensure|end|[)\]}])\b|"
                       r"^\s*[)\]}]")  # what may follow a ``return`` at its depth: another branch, a block's end


def dead_code(text: str) -> int:
    """Statements written after a ``return`` (``raise``, ``throw``) at its depth in the same block: a merge that
    kept an old ending after the new one (or the new after the old) writes some; a file seldom has any."""
    lines = [line for line in text.splitlines() if line.strip()]
    dead = 0
    for i, line in enumerate(lines):
        if not LEAVES.match(line):
            continue
        depth = indent_of(line)
        nxt = next((other for other in lines[i + 1:] if indent_of(other) <= depth), None)
        if nxt is not None and indent_of(nxt) == depth and not _NOT_DEAD.match(nxt) and depth > 0:
            dead += 1
    return dead


def out_of_order(update_lines: list[str], merged_lines: list[str]) -> int:
    """How many of the update's shown lines (not blank, not markers) the merged file does not have in the
    update's order (indentation aside): a reading that dropped a shown line (a closing brace) or wrote shown
    lines in another order than the update's."""
    shown = [line.strip() for line in update_lines if line.strip() and not is_marker(line)]
    merged = [line.strip() for line in merged_lines]
    matcher = difflib.SequenceMatcher(None, shown, merged, autojunk=False)
    return len(shown) - sum(block.size for block in matcher.get_matching_blocks())


def count_repeats_moved(doc_lines: list[str], update_lines: list[str], pieces: list[Piece], kept: set[int],
                        fresh: frozenset[int] | None) -> int:
    """Context the reading took for new code: distinctive lines the file has once that the merge writes again
    as new text, the file's own removed (moved), or kept beside it where the update shows the line next to a
    marker (doubled: a marker's neighbours are context; elsewhere new code may repeat a line, as a lookalike
    function does); a line shown next to a marker, or first or last in the update, that the merge writes anew
    within a line or two of a copy the file keeps (``deactivate`` after a rewritten command, a template's last
    ``</div>``: the file has it several times, so it placed nothing; a table's row the update starts with, which
    a reading by sections wrote as new: and the file's stayed beside it); and, in a
    line placement (``fresh``: its update lines of new definitions), ``_stale_twins``."""
    keys = [line_key(line) for line in update_lines]
    edges = {keys[i] for m, key in enumerate(keys) if is_marker(key)
             for i in (next_shown(keys, m, -1), next_shown(keys, m, 1)) if i is not None}
    ends = {keys[i] for i in (next_shown(keys, -1, 1), next_shown(keys, len(keys), -1)) if i is not None}
    doc_keys = [line_key(line) for line in doc_lines]
    counts = Counter(doc_keys)
    shown = [(line_key(piece.text), piece) for piece in pieces if piece.text.strip()]
    doubled = sum(1 for n, (key, piece) in enumerate(shown)
                  if piece.file_line is None and key in edges | ends and weight(key) >= ANCHOR_WEIGHT
                  and not CLOSING.match(key) and (counts[key] != 1 or weight(key) < DISTINCTIVE or key in ends)
                  and any(other == key and near.file_line is not None for other, near in shown[max(0, n - 2): n + 3]))
    # (``@property`` is the new definition's below it, ``router.post(`` opens a new route like the file's: shown
    # after a marker, they are not the file's lines taken for context)
    new = {key for key, piece in shown if piece.file_line is None and weight(key) >= DISTINCTIVE
           and counts[key] == 1 and not DECORATOR.match(key) and not key.rstrip().endswith(("(", "[", "{"))}
    moved_lines = [n for n, key in enumerate(doc_keys, 1) if key in new and (n not in kept or key in edges)]
    if moved_lines:  # (the definitions are read only where a line moved)
        ours, theirs = definitions_in(keys), definitions_in(doc_keys)  # (read once for both tests)
        between = _moved_between_shown(keys, doc_keys, ours, theirs)
        own = _in_new_definitions(keys, ours, theirs)
        moved_lines = [n for n in moved_lines if not between(n - 1) and not (n in kept and doc_keys[n - 1] in own)]
    moved = len(moved_lines)
    return doubled + moved + (_stale_twins(shown, counts, edges, fresh) if fresh is not None else 0)


def _in_new_definitions(keys: list[str], defined: dict[int, str], theirs_defined: dict[int, str]) -> set[str]:
    """The lines beside a marker less indented than they are (one outside their definition) that the update
    writes inside a definition the file does not have (a new test's last line, ``assert response.status_code ==
    422``, above ``# ... remaining tests unchanged ...``): the new definition's own, not the file's taken for
    context, though the file has the same line in another one.  ``defined``: the update's definitions,
    ``theirs_defined`` the file's."""
    theirs = set(theirs_defined.values())
    out = set()
    for m, key in enumerate(keys):
        if not is_marker(key):
            continue
        for k in (next_shown(keys, m, -1), next_shown(keys, m, 1)):
            if k is not None and not is_marker(keys[k]) and indent_of(keys[k]) > indent_of(key) and \
                    (names := enclosing_callables(keys, k, defined)) and names[0] not in theirs:
                out.add(keys[k])
    return out


def _moved_between_shown(keys: list[str], doc_keys: list[str], ours_defined: dict[int, str],
                         theirs_defined: dict[int, str]):
    """A test of file line j: whether the update moves that line itself: the file's definition holding it is one
    the update shows (rewritten), and the update writes the line in another definition (``delete`` made a soft
    delete and its ``DELETE FROM orders`` line moved into a new ``purge``), or in that one shown whole (its
    ``return [...]`` line below a new ``WHERE`` built of clauses), not as context for new code.
    ``ours_defined`` and ``theirs_defined``: the update's and the file's definitions."""
    shown = {name for k in range(len(keys)) if is_declaration(keys[k]) and (name := definition_name(keys, k))}
    whole = {name for k, name in ours_defined.items() if name in shown and
             not any(is_marker(keys[i]) for i in range(k, block_end(keys, k)))}  # (shown whole: no marker in it)

    def moved(j: int) -> bool:
        if doc_keys[j] not in keys:
            return False
        ours = enclosing_callables(keys, keys.index(doc_keys[j]), ours_defined)
        theirs = enclosing_callables(doc_keys, j, theirs_defined)
        return bool(ours and theirs) and theirs[0] in shown and (ours[0] != theirs[0] or ours[0] in whole)

    return moved


def _stale_twins(shown: list[tuple[str, Piece]], counts: Counter, edges: set[str], fresh: frozenset[int]) -> int:
    """New lines written a few lines from a file line that a marker keeps and that they repeat or rewrite, with
    no line shown between them that the file has once (lines such as ``return None`` or ``continue`` place
    nothing surely): the marker kept what the update shows again (a line shown after a loop's marker; an ``if``
    rewritten below a ``return None`` that the file has several times), so the old stays beside the new.  A new
    definition's lines do not count: a new method may repeat the one it is put after."""
    def kept_twin(n: int, key: str) -> bool:
        for step in (-1, 1):
            for m in range(n + step, n + step * (TWIN_REACH + 1), step):
                if not 0 <= m < len(shown):
                    break
                other, near = shown[m]
                if near.file_line is not None and near.update_line is not None and counts[other] == 1:
                    break  # a line shown that places the update surely
                if near.file_line is not None and near.update_line is None and \
                        (other == key and counts[key] == 1 or other != key and weight(other) >= DISTINCTIVE
                         and looks_alike(key, other, TWIN_LIKENESS)):
                    return True
        return False

    return sum(1 for n, (key, piece) in enumerate(shown)
               if piece.file_line is None and piece.update_line - 1 not in fresh and weight(key) >= DISTINCTIVE
               and key not in edges
               and not DECORATOR.match(key) and not key.rstrip().endswith(("(", "[", "{")) and kept_twin(n, key))
