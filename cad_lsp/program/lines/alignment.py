"""``align_update`` places every update line: an unchanged line on the file line it repeats, a marker on the
stretch it stands for, anything else as new text.

Distinctive lines are placed first, as the monotone placement that repeats the most text, where leaving out
a file line between two placed ones (deleting it) costs a tenth of its text, so that a line repeated far
away cannot pull the update there; blank lines, braces and other repeats are then placed in the gaps
between them (``lines.passes``), new definitions are kept out of the anchors (``lines.fresh``), rewritten
file lines are found (``lines.rewrites``) and each marker's stretch measured (``lines.extents``).  Pure and
model-free: the engine drafts the program from the merge, and ``cad-lsp bench apply`` scores it alone as the
deterministic merge."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from ..blocks import names
from ..markers import marker_lines, next_shown
from ..ops import split_lines
from .extents import marker_extents, said_kept, says_unchanged
from .fresh import inside_unshown, named_rewrites, new_definition_lines, outside_their_block, under_new_headers
from .likeness import other_entries
from .passes import (
    close_below_markers, close_blocks_around, close_marked_blocks, close_shown_blocks, closing_lines_pinned, continue_placed_runs,
    dead_after_return, fill_edge, fill_gap, old_ending, place_closing_before_markers, place_closing_lines,
    place_common_end, place_common_start, place_context, rest_of_block, rest_of_last_block, set_apart,
    share_blank_lines, share_edge_blank_lines, unplace_openers_of_new_entries)
from .placement import MARKER, NEW, Placement, UpdateError
from .reading import (
    ANCHOR_WEIGHT, ATTACHED_LINE, CLOSING, CLOSING_TAG, DISTINCTIVE, block_end, closes_new_block, definitions_in,
    indent_of, is_declaration, line_key, weight)
from .rewrites import (
    doc_comments_rewritten, extent_without, file_lines_rewritten, heads_over_elided_bodies, rewrites_between_markers,
    rewritten_head, with_continuations)
from .unanchored import unanchored


DELETE_COST = 0.1  # a deleted line costs this share of its text; repeating a line saves all of its own
WHOLE_FILE_SHARE = 0.6  # an update without markers that repeats this share of the file's lines is the whole file
ANCHOR_REPEATS = 32  # a line found more often in the file than this is placed in the gaps only, not as an anchor
WEAK_SHARE = 0.4  # an update whose placed lines are all shorter than DISTINCTIVE is placed when they hold this
# share of its text
EDGE_WEIGHT = 10  # the reading that trusts context next to markers weighs those lines this many times
NO_MATCH = "\x00"  # the key of an update line that is no file line's


class _PrefixMax:
    """Fenwick tree: the best (score, payload) among positions below an index."""

    def __init__(self, size: int):
        self.size, self.tree = size, [(float("-inf"), None)] * (size + 1)

    def put(self, index: int, value: tuple) -> None:
        index += 1
        while index <= self.size:
            if value[0] > self.tree[index][0]:
                self.tree[index] = value
            index += index & -index

    def best_below(self, index: int) -> tuple:
        best = (float("-inf"), None)
        while index > 0:
            if self.tree[index][0] > best[0]:
                best = self.tree[index]
            index -= index & -index
        return best


def _anchor_chain(keys: list[str], markers: list[bool], doc_keys: list[str],
                  context: bool = False) -> list[tuple[int, int]]:
    """The monotone (update line, file line) pairs of distinctive lines that save the most text.  With
    ``context``, the lines next to a marker weigh EDGE_WEIGHT times their text: chat models put the context
    they show there, so a new function that repeats an old one's lines does not pull the update onto them.

    Between two pairs with no marker between them the file lines left out
    are deleted, at DELETE_COST of their text; under a marker they stay, for
    free.  Dynamic programming over the candidate pairs in update order, with
    two prefix-maximum trees over file lines (pairs before the last marker,
    and pairs since it, which carry the deletion price): O(pairs log lines).
    """
    where: dict[str, list[int]] = {}
    for j, key in enumerate(doc_keys):
        if weight(key) >= ANCHOR_WEIGHT:
            where.setdefault(key, []).append(j)
    prefix_weight = [0.0]
    for key in doc_keys:
        prefix_weight.append(prefix_weight[-1] + DELETE_COST * weight(key))
    edges = {i for m, marker in enumerate(markers) if marker
             for i in (next_shown(keys, m, -1), next_shown(keys, m, 1)) if i is not None and not markers[i]}
    edges |= {i for i in (next_shown(keys, -1, 1), next_shown(keys, len(keys), -1))
              if i is not None and not markers[i]}  # (a snippet's first and last lines: context too)
    n = len(doc_keys)
    across, since = _PrefixMax(n), _PrefixMax(n)  # pairs before the last marker / since it
    segment: list[tuple[float, int, int]] = []
    best: dict[tuple[int, int], tuple[float, tuple[int, int] | None]] = {}
    for k, key in enumerate(keys):
        if markers[k]:
            for score, k0, j0 in segment:
                across.put(j0, (score, (k0, j0)))
            segment, since = [], _PrefixMax(n)
            continue
        found = where.get(key, []) if not markers[k] else []
        if not found or len(found) > ANCHOR_REPEATS:
            continue
        gain = weight(key) / len(found)  # a line the file repeats places the update less surely (patience diff)
        if context and k in edges:
            gain *= EDGE_WEIGHT
        row = []
        for j in found:
            score, back = gain, None
            marked = across.best_below(j)
            if marked[1] is not None and marked[0] + gain > score:
                score, back = marked[0] + gain, marked[1]
            near = since.best_below(j)  # stored with + the deletion price up to its line: subtract ours
            if near[1] is not None and near[0] + gain - prefix_weight[j] > score:
                score, back = near[0] + gain - prefix_weight[j], near[1]
            row.append((score, k, j))
            best[(k, j)] = (score, back)
        for score, k0, j0 in row:  # after the row: no two pairs share an update line
            since.put(j0, (score + prefix_weight[j0 + 1], (k0, j0)))
            segment.append((score, k0, j0))
    if not best:
        return []
    end = max(best, key=lambda pair: (best[pair][0], -pair[1]))
    chain = []
    while end is not None:
        chain.append(end)
        end = best[end][1]
    return chain[::-1]


def align_update(document: str, update: str, *, context: bool = False,
                 place: tuple[str, str] | None = None) -> Placement:
    """Place the update's lines in the document (see the module's docstring); UpdateError when it cannot be.
    With ``context``, the lines next to markers weigh more in the alignment, short lines between a marker and
    the change are found near it (``place_context``), and new lines that end the update rewrite the rest of
    their block (``rest_of_last_block``): the reading ``merge_update`` weighs when the plain one falls short.
    ``place``: ("after" | "before", name), where the answer says new definitions go (``_at_named_place``)."""
    try:
        return _align(document, update, context, place, by_name=False)
    except UpdateError as refused:
        try:  # (where lines the file has many times place nothing: a definition shown whole, by its name)
            return _align(document, update, context, place, by_name=True)
        except UpdateError:
            raise refused from None


def _align(document: str, update: str, context: bool, place: tuple[str, str] | None, by_name: bool) -> Placement:
    """``align_update``'s reading; ``by_name``: definitions shown whole replace the file's of their name
    (``named_rewrites``) before any line is placed."""
    if not update.strip():
        raise UpdateError("the update is empty")
    doc_lines, update_lines = split_lines(document), split_lines(update)
    if not doc_lines:
        raise UpdateError("the file is empty: there is nothing to apply an update to")
    doc_keys = [line_key(line) for line in doc_lines]
    keys = [line_key(line) for line in update_lines]
    in_file = set(doc_keys)
    markers = marker_lines(doc_lines, update_lines)
    if not any(key.strip() and not marker for key, marker in zip(keys, markers)):
        raise UpdateError("the update holds only markers and blank lines: no line of it can be placed")
    defined = definitions_in(doc_keys)
    fresh = new_definition_lines(keys, doc_keys, markers, defined)
    named = named_rewrites(keys, doc_keys, markers, defined) if by_name else []
    if by_name and not named:
        raise UpdateError("no definition the update shows whole has a name the file defines once")
    fresh |= {k for h0, h1, _, _ in named for k in range(h0, h1 + 1)}  # (they rewrite no other line)
    elsewhere = inside_unshown(fresh, keys, doc_keys, defined)  # (none of those lines is a place in the file)
    elsewhere |= {k for k in fresh if ATTACHED_LINE.match(keys[k])}  # (a new definition's ``@impl true``)
    elsewhere |= {k for h0, h1, _, _ in named for k in range(h0, h1 + 1)}
    elsewhere |= outside_their_block(keys, doc_keys, markers) | under_new_headers(keys, doc_keys, markers)
    chain = _anchor_chain([NO_MATCH if k in elsewhere else key for k, key in enumerate(keys)], markers, doc_keys,
                          context)
    passed_over = _passed_over(chain, keys, markers, doc_keys, elsewhere)
    if passed_over:
        elsewhere |= passed_over
        chain = _anchor_chain([NO_MATCH if k in elsewhere else key for k, key in enumerate(keys)], markers,
                              doc_keys, context)
    closing_new = {k for k, _ in chain if closes_new_block(k, keys, in_file)}
    chain = [(k, j) for k, j in chain if k not in closing_new]
    elsewhere |= {k for k in closing_new if CLOSING_TAG.match(keys[k])}  # (a new element's ``</form>`` is no
    # place beside a marker either: it took the file's next form's, and that form's lines went)
    kept_pairs = _not_across_block_ends(_without_far_repeats(chain, keys, markers, doc_keys), keys, markers,
                                        doc_keys)
    kept_pairs, kept_whole = _not_in_what_markers_keep(kept_pairs, keys, markers, doc_keys, defined)
    elsewhere |= {k for k, _ in chain} - {k for k, _ in kept_pairs}  # (nor a place to fill the edge with)
    chain = kept_pairs
    if chain and not _trusted(chain, keys, markers, doc_keys):
        chain = []  # only a short line or two in common (``pass``, ``return``): they place nothing
    lines = [MARKER if marker else NEW for marker in markers]
    if not chain and named:  # only definitions shown whole: each in place of the file's of its name
        rewrites = {k: j for h0, h1, j0, j1 in named for k, j in ((h0, j0), (h1, j1))}
        replaced = frozenset(j for _, _, j0, j1 in named for j in range(j0, j1 + 1))
        anchored = [rewrites.get(k, n) for k, n in enumerate(lines)]
        extents = marker_extents(anchored, keys, doc_keys, defined)
        kept = {k: extent_without(extent, replaced) for k, extent in extents.items()}
        return Placement(document, update_lines, lines, kept, False, replaced, rewrites, fresh=frozenset(fresh))
    if not chain:
        return _at_named_place(unanchored(document, update_lines, lines, keys, fresh), keys, doc_keys, fresh,
                               defined, place)
    chain, pinned = closing_lines_pinned(chain, keys, markers, doc_keys)
    try:
        placed = {k for k, _ in chain}
        _refuse_if_ambiguous(chain, markers, doc_keys, pinned, fresh)
        elsewhere |= placed - {k for k, _ in chain}  # (a new definition's lines it dropped: no edge to fill either)
    except UpdateError:
        # Placed only by lines the file has several times (``@Serializable``, ``)``) that fit elsewhere as well:
        # new code after a marker, like code that repeats no line, goes at the file's end (before one, its start).
        if any(Counter(doc_keys)[keys[k]] == 1 for k, _ in chain):
            raise
        try:
            return unanchored(document, update_lines, lines, keys, fresh)
        except UpdateError:
            pass
        raise
    for k, j in chain:
        lines[k] = j + 1
    for (k0, j0), (k1, j1) in zip(chain, chain[1:]):
        inside = [k for k in range(k0 + 1, k1) if markers[k]]
        if not inside:
            fill_gap(lines, keys, doc_keys, range(k0 + 1, k1), range(j0 + 1, j1))
        else:  # next to a marker, the lines around it repeat those after and before the placed ones
            fill_edge(lines, keys, doc_keys, list(range(k0 + 1, inside[0])), range(j0 + 1, j1), elsewhere)
            below = max([j0] + [end - 1 for k in inside for _, end in kept_whole.get(k, [])])
            fill_edge(lines, keys, doc_keys, list(range(k1 - 1, inside[-1], -1)), range(j1 - 1, below, -1),
                      elsewhere)
    (k_first, j_first), (k_last, j_last) = chain[0], chain[-1]
    head = list(range(k_first - 1, -1, -1))
    fill_edge(lines, keys, doc_keys, head[:next((i for i, k in enumerate(head) if markers[k]), len(head))],
              range(j_first - 1, -1, -1), elsewhere)
    tail = list(range(k_last + 1, len(keys)))
    fill_edge(lines, keys, doc_keys, tail[:next((i for i, k in enumerate(tail) if markers[k]), len(tail))],
              range(j_last + 1, len(doc_keys)), elsewhere)
    place_common_end(lines, keys, doc_keys)
    place_common_start(lines, keys, doc_keys)
    place_closing_before_markers(lines, keys, doc_keys)
    close_shown_blocks(lines, keys, doc_keys)
    close_blocks_around(lines, keys, doc_keys)
    close_below_markers(lines, keys, doc_keys)
    continue_placed_runs(lines, keys, doc_keys)
    unplace_openers_of_new_entries(lines, keys, doc_keys)
    if context:
        place_context(lines, keys, doc_keys)
    rewritten = file_lines_rewritten(lines, keys, doc_keys, fresh) | rest_of_block(lines, keys, doc_keys)
    rewritten -= {j + 1 for spans in kept_whole.values() for first, end in spans for j in range(first + 1, end)}
    rewritten -= _said_unchanged(keys, markers, doc_keys)
    replaced = with_continuations(rewritten, lines, doc_keys) | doc_comments_rewritten(lines, keys, doc_keys)
    replaced |= dead_after_return(lines, keys, doc_keys, replaced) | old_ending(lines, keys, doc_keys, replaced)
    reached = [n for n in lines if n > 0 and doc_keys[n - 1].strip()] + [n for n in replaced if doc_keys[n - 1].strip()]
    head = next((n for key, n in zip(keys, lines) if key.strip()), None)
    tail = next((n for key, n in zip(reversed(keys), reversed(lines)) if key.strip()), None)
    whole = not any(markers) and _covers(reached, doc_keys, head_is_new=head == NEW, tail_is_new=tail == NEW)
    if whole:
        replaced = frozenset()
    else:
        share_edge_blank_lines(lines, keys, doc_keys, replaced)
    close_marked_blocks(lines, keys, doc_keys, replaced)
    rewrites = {} if whole else rewrites_between_markers(lines, keys, doc_keys, replaced, fresh)
    if not whole:
        rewrites |= rewritten_head(lines, keys, doc_keys, replaced | frozenset(rewrites.values()),
                                   set(rewrites) | fresh)
        rewrites |= heads_over_elided_bodies(lines, keys, doc_keys, replaced | frozenset(rewrites.values()),
                                             set(rewrites) | fresh)
    for h0, h1, j0, j1 in ([] if whole else named):
        if all(lines[k] == NEW for k in range(h0, h1 + 1)) and not replaced & set(range(j0, j1 + 1)):
            rewrites |= {h0: j0, h1: j1}
            replaced |= frozenset(range(j0, j1 + 1))
    replaced = replaced | frozenset(rewrites.values())
    anchored = [rewrites.get(k, n) for k, n in enumerate(lines)]  # a rewrite splits the marker stretch it is in
    extents = marker_extents(anchored, keys, doc_keys, defined)
    kept = {k: extent_without(extent, replaced) for k, extent in extents.items()}
    place_closing_lines(lines, keys, doc_keys, kept)
    share_blank_lines(lines, keys, doc_keys, kept, rewrites)
    dropped = rest_of_last_block(lines, keys, doc_keys, replaced) if context and not whole else frozenset()
    return _at_named_place(Placement(document, update_lines, lines, kept, whole, replaced, rewrites, dropped,
                                     set_apart(lines, keys, doc_keys, kept, fresh), frozenset(fresh)),
                           keys, doc_keys, fresh, defined, place)


def _at_named_place(placement: Placement, keys: list[str], doc_keys: list[str], fresh: set[int],
                    defined: dict[int, str], place: tuple[str, str] | None) -> Placement:
    """New definitions right after a marker, with no line of the file between them and the next marker (or
    the update's end), go where the answer says: the marker keeps the file's lines up to the end of the
    definition it names ("put this method right after `findRecentOrders`"), or up to the lines above it
    ("right above `releaseStock`"), and what follows keeps the rest.  Without a line of the file around
    them, nothing else says where among the marker's lines they go."""
    if place is None or not fresh:
        return placement
    side, name = place
    found = sorted(j for j, defined_name in defined.items() if names(defined_name, name))
    if not found:
        return placement
    lines, kept = placement.lines, dict(placement.kept)
    for k, n in enumerate(lines):
        if n != MARKER:
            continue
        run = [i for i in range(k + 1, len(lines)) if keys[i].strip()]
        stop = next((i for i in run if lines[i] != NEW), None)
        new = [i for i in run if stop is None or i < stop]
        if not new or not all(i in fresh for i in new) or stop is not None and lines[stop] != MARKER:
            continue
        first, last = kept[k]
        if side == "after":
            j = found[-1]
            cut = block_end(doc_keys, j)  # 0-based end, exclusive: the 1-based last line of it
            while cut > j + 1 and not doc_keys[cut - 1].strip() and not keys[new[0] - 1].strip():
                cut -= 1  # (the update sets the new code off itself: the file's blank lines stay below it)
        else:
            j = found[0]
            while j > 0 and doc_keys[j - 1].strip() and ATTACHED_LINE.match(doc_keys[j - 1]):
                j -= 1
            cut = j
            while cut > first - 1 and not doc_keys[cut - 1].strip():
                cut -= 1  # the blank lines above it stay above the new code
        if not first - 1 <= cut <= last:
            continue
        kept[k] = (first, cut)
        if stop is not None:
            start = cut + 1
            while side == "after" and not keys[stop - 1].strip() and start <= kept[stop][1] and \
                    not doc_keys[start - 1].strip():
                start += 1  # (the update sets the new code off from what follows: the file's blank line once)
            kept[stop] = (start, kept[stop][1])
        return replace(placement, kept=kept)
    return placement


def _trusted(chain: list[tuple[int, int]], keys: list[str], markers: list[bool], doc_keys: list[str]) -> bool:
    """Whether the placed lines place the update: one distinctive line, a line the file has once next to markers
    (context the chat chose), or short lines that are a good part of what the update says (``b = 5`` beside an
    unchanged ``c = 3``), not a lone ``pass`` under new code."""
    if max(weight(keys[k]) for k, _ in chain) >= DISTINCTIVE:
        return True
    counts = Counter(doc_keys)
    if any(markers) and any(counts[keys[k]] == 1 for k, _ in chain):
        return True
    said = sum(weight(key) for key, marker in zip(keys, markers) if not marker)
    return sum(weight(keys[k]) for k, _ in chain) >= WEAK_SHARE * said


def _covers(placed: list[int], doc_keys: list[str], head_is_new: bool = False, tail_is_new: bool = False) -> bool:
    """Whether an update without markers is the whole file: it repeats (or rewrites) most of the file's non-blank
    lines and reaches both its ends (or starts with new lines where the file has a line or two before what it
    repeats: ``import sys`` for ``import os``, another import, not that one rewritten; or ends with new lines
    where the file has a line or two after: a script's last ``echo`` rewritten).  Otherwise it is read as
    a snippet, which keeps the lines it does not reach: where the two readings differ, the one that deletes
    nothing the update did not show."""
    content = [j + 1 for j, key in enumerate(doc_keys) if key.strip()]
    if not content or not placed or len(placed) < WHOLE_FILE_SHARE * len(content):
        return False
    starts = min(placed) == content[0] or head_is_new and sum(n < min(placed) for n in content) <= 2
    return starts and (max(placed) == content[-1] or tail_is_new and sum(n > max(placed) for n in content) <= 2)


def _passed_over(chain: list[tuple[int, int]], keys: list[str], markers: list[bool], doc_keys: list[str],
                 elsewhere: set[int]) -> set[int]:
    """Update lines to keep out of the anchors because placing them passes over a line both texts have once: in
    ``def handle(...) do``, new lines, ``def handle(_user, _text), do: :ignore``, then the old body (moved into a
    new ``defp dispatch``) and a marker, the chain places the body where it was, and the marker after it keeps
    the file's ``def handle(_user, ...)``, which the update wrote as new: twice.  The body's lines after the
    passed-over line, up to the marker, are new; the line is placed.  Empty where nothing is passed over."""
    counts, shown, at = Counter(doc_keys), Counter(keys), {k: j for k, j in chain}
    where = {key: j for j, key in enumerate(doc_keys) if counts[key] == 1}
    out: set[int] = set()
    for k, key in enumerate(keys):
        if k in at or k in elsewhere or markers[k] or shown[key] != 1 or key not in where or \
                weight(key) < DISTINCTIVE or not (is_declaration(key) or key.rstrip().endswith("{")):
            continue  # (a definition or a block's head, not ``private:``: two classes may each have one)
        j, stop = where[key], next((m for m in range(k + 1, len(keys)) if markers[m]), None)
        later = [(m, n) for m, n in chain if m > k]
        crossing = [(m, n) for m, n in later if stop is not None and m < stop and n < j]
        after_marker = next((n for m, n in later if stop is not None and m > stop), None)
        if is_declaration(key) and crossing and \
                len(crossing) == len([m for m, _ in later if m < (stop or len(keys))]) and \
                (after_marker is None or after_marker > j) and all(n < j for m, n in chain if m < k):
            out |= {m for m, _ in crossing}  # (the marker keeps line j: the update's copy would be a second)
        start = max((m for m in range(k) if markers[m]), default=None)  # the mirror: a new block before a
        # block's head and a marker for its body (``location /ws/ {``, its lines alike ``location /``'s, then
        # ``location / {`` and ``# ... unchanged ...``): the new lines placed on the body below the head are new
        if start is None or k + 1 >= len(keys) or not markers[next_shown(keys, k, 1) or k] or \
                not key.rstrip().endswith("{"):
            continue
        earlier = [(m, n) for m, n in chain if start < m < k]
        if earlier and all(n > j for _, n in earlier) and all(n < j for m, n in chain if m < start) and \
                all(n > j for m, n in chain if m > k):
            out |= {m for m, _ in earlier}
    return out


def _not_across_block_ends(chain: list[tuple[int, int]], keys: list[str], markers: list[bool],
                           doc_keys: list[str]) -> list[tuple[int, int]]:
    """The chain less the pairs after one that steps over the end of a block: two update lines with nothing but
    blank lines between them, placed on file lines with a shallower line between (the ``end`` of the function
    the first is in, and the next function's head): the second belongs to the update's block, not to the next
    function of the file (``if self.onGround then`` of a rewritten ``update``, placed in ``jump``'s, deleted
    ``jump``'s head).  The rest of the stretch, up to the next marker, is new code."""
    for n in range(1, len(chain)):
        (k0, j0), (k1, j1) = chain[n - 1], chain[n]
        if any(markers[k0 + 1: k1]) or any(keys[k].strip() for k in range(k0 + 1, k1)):
            continue
        depth = min(indent_of(keys[k0]), indent_of(keys[k1]))
        if depth and any(key.strip() and indent_of(key) < depth for key in doc_keys[j0 + 1: j1]):
            stop = next((m for m in range(k1, len(keys)) if markers[m]), len(keys))
            return chain[:n] + [(k, j) for k, j in chain[n:] if k > stop]
    return chain


def _not_in_what_markers_keep(chain: list[tuple[int, int]], keys: list[str], markers: list[bool],
                              doc_keys: list[str], defined: dict[int, str]
                              ) -> tuple[list[tuple[int, int]], dict[int, list[tuple[int, int]]]]:
    """The chain less the pairs that place update lines inside a definition a marker before them says it keeps
    (``// ... decrement() unchanged ...``, then a new ``setQuantity`` whose ``_items.remove(product.id);`` and
    ``}`` lines were placed on those ``decrement`` ends with, and its last lines went) or inside the block a
    marker keeps whole (``_rest_of_block_kept``): the new code's own.  Also, per marker, the block it keeps
    whole (its head and the first line past it), which no line after the marker places in or rewrites."""
    kept_whole = {}
    for k, marker in enumerate(markers):
        if not marker:
            continue
        said = said_kept(keys[k])[1]
        kept = [(j, block_end(doc_keys, j)) for name in said
                if len(heads := [j for j, defined_name in defined.items() if defined_name == name]) == 1
                for j in heads]
        stop = next((m for m in range(k + 1, len(keys)) if markers[m]), len(keys))
        kept_whole[k] = _rest_of_block_kept(k, chain, keys, markers, doc_keys)
        kept += kept_whole[k]
        chain = [(u, j) for u, j in chain if not (k < u < stop and any(first < j < end for first, end in kept))]
    return chain, kept_whole


def _said_unchanged(keys: list[str], markers: list[bool], doc_keys: list[str]) -> set[int]:
    """File lines (1-based) that a marker quotes as unchanged (``// ... HasMany(o => o.Lines) unchanged ...``):
    not rewritten by the new lines beside it, however alike (``entity.HasIndex(o => o.DeletedAt);``)."""
    out: set[int] = set()
    for k, marker in enumerate(markers):
        if marker and says_unchanged(keys[k]):
            for call in re.findall(r"[A-Za-z_][\w.]*\([^()]+\)", keys[k]):
                out |= {j + 1 for j, key in enumerate(doc_keys) if call in key}
    return out


def _rest_of_block_kept(k: int, chain: list[tuple[int, int]], keys: list[str], markers: list[bool],
                        doc_keys: list[str]) -> list[tuple[int, int]]:
    """The file block marker k keeps whole, as (its head, its end): the marker is indented into the block the
    shown line before it opens, and the next shown line is back out of it (``// ... unchanged ...`` in the
    ``GET`` branch, then a new ``} else if (cmd == "TTL")`` whose ``const key = ...`` was placed on the
    ``GET`` branch's, which went).  None where the lines around the marker say otherwise."""
    before = next((m for m in range(k - 1, -1, -1) if keys[m].strip()), None)
    after = next((m for m in range(k + 1, len(keys)) if keys[m].strip()), None)
    if before is None or after is None or markers[before] or markers[after]:
        return []
    depth = indent_of(keys[k])
    if not indent_of(keys[before]) < depth or not indent_of(keys[after]) < depth:
        return []
    head = next((j for m, j in chain if m == before), None)
    if head is None:
        return []
    end = head + 1
    while end < len(doc_keys) and (not doc_keys[end].strip() or indent_of(doc_keys[end]) > indent_of(doc_keys[head])):
        end += 1
    return [(head, end)] if end > head + 1 else []


def _without_far_repeats(chain: list[tuple[int, int]], keys: list[str], markers: list[bool],
                         doc_keys: list[str]) -> list[tuple[int, int]]:
    """The chain less the lines it places past a stretch's last line the file has once, where placing them
    deletes a distinctive line of the file the update does not show, another entry of a list than a new line
    between them: a new ``<dependency>`` after the shown one repeats the ``<dependency>``, ``<groupId>`` and
    ``</dependency>`` lines of those below it, and placed there it deleted them (``<artifactId>h2</artifactId>``
    with them).  The closing lines right after that line stay placed; the rest is new code."""
    counts, shown = Counter(doc_keys), set(keys)
    new = [key for key in keys if key not in counts and key.strip()]
    out, n = [], 0
    while n < len(chain):
        end = n  # the stretch: pairs up to the next marker
        while end + 1 < len(chain) and not any(markers[chain[end][0] + 1: chain[end + 1][0]]):
            end += 1
        stretch = chain[n: end + 1]
        unique = [i for i, (k, _) in enumerate(stretch) if counts[keys[k]] == 1 and weight(keys[k]) >= DISTINCTIVE]
        cut = len(stretch)
        if unique:
            tail = stretch[unique[-1]:]
            deletes = any(counts[doc_keys[j]] == 1 and weight(doc_keys[j]) >= DISTINCTIVE and doc_keys[j] not in shown
                          and any(other_entries(key, doc_keys[j]) for key in new)
                          for (_, j0), (_, j1) in zip(tail, tail[1:]) for j in range(j0 + 1, j1))
            if deletes:  # (another entry of the list in place of one the update shows: an addition, not that)
                cut = unique[-1] + 1
                while cut < len(stretch) and stretch[cut][1] == stretch[cut - 1][1] + 1 and \
                        stretch[cut][0] == stretch[cut - 1][0] + 1 and CLOSING.match(keys[stretch[cut][0]]):
                    cut += 1
        out += stretch[:cut]
        n = end + 1
    return out


def _refuse_if_ambiguous(chain: list[tuple[int, int]], markers: list[bool], doc_keys: list[str],
                         pinned: set[int] = frozenset(), fresh: set[int] = frozenset()) -> None:
    """UpdateError when a stretch of the update (its placed lines between two markers), as a block, fits just
    as well elsewhere between its neighbours: a snippet of ``return True`` and one new line could go after
    any ``return True``.  Stretches of ``pinned`` lines only (``closing_lines_pinned``) are placed, and so are
    those of a new definition's lines only (``fresh``): they are no context (``? TypedResults.Ok(todo)`` in a
    new handler between markers): they are dropped from ``chain`` itself, in place (also where a later stretch
    then refuses: the reading tried after a refusal sees the chain without them)."""
    counts = Counter(doc_keys)
    marker_at = [k for k, marker in enumerate(markers) if marker]
    segments: list[list[tuple[int, int]]] = []
    for pair in chain:
        if segments and not any(segments[-1][-1][0] < m < pair[0] for m in marker_at):
            segments[-1].append(pair)
        else:
            segments.append([pair])
    for n, segment in enumerate(segments):
        if all(k in pinned for k, _ in segment):
            continue
        if all(k in fresh for k, _ in segment) and len(segments) > 1:
            chain[:] = [pair for pair in chain if pair not in segment]
            continue
        block = [(j - segment[0][1], doc_keys[j]) for _, j in segment]
        if any(weight(key) >= 12 and counts[key] == 1 for _, key in block):
            continue  # a distinctive line found once in the file pins it
        low = segments[n - 1][-1][1] + 1 if n else 0
        high = segments[n + 1][0][1] if n + 1 < len(segments) else len(doc_keys)
        span = block[-1][0] + 1
        others = [start + 1 for start in range(low, high - span + 1)
                  if start != segment[0][1] and all(doc_keys[start + off] == key for off, key in block)]
        if others:
            where = ", ".join(str(line) for line in sorted([segment[0][1] + 1] + others)[:4])
            raise UpdateError(f"the update fits the file in more than one place (at lines {where}): add a "
                              f"distinctive line of context around the change")
