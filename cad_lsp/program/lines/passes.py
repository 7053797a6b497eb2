"""Placing what the distinctive lines left: blank lines, braces and other repeats in the gaps between placed
lines, closing lines before markers, context at a run's edges, and the blank lines that set new code apart."""

from __future__ import annotations

import difflib
from collections import Counter

from ..blocks import rewrites_statement
from .likeness import looks_alike, opens_another_entry
from .placement import MARKER, NEW, SKIP
from .reading import (
    ANCHOR_WEIGHT, ATTACHED_LINE, CLOSING, CLOSING_TAG, DISTINCTIVE, LEAVES, OPENS, QUOTED, TYPE_OPENER,
    closes_new_block, indent_of, is_declaration, new_runs, weight)
from .rewrites import REWRITE_SLACK


def fill_gap(lines: list[int], keys: list[str], doc_keys: list[str], ks: range, js: range) -> None:
    """Place update lines ``ks`` (no marker among them) on file lines ``js`` where they repeat in order."""
    a = [keys[k] for k in ks]
    b = [doc_keys[j] for j in js]
    for i, j, size in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for t in range(size):
            lines[ks[i + t]] = js[j + t] + 1


def fill_edge(lines: list[int], keys: list[str], doc_keys: list[str], ks: list[int], js: range,
              elsewhere: set[int] = frozenset()) -> None:
    """Place update lines ``ks`` (from a placed line out to a marker or the update's edge) on file lines ``js``
    pairwise while they repeat, up to a line of a new definition that is no place (``elsewhere``: the ``});`` of
    a new route, the same as the shown route's before it).  Blank lines at the end of that run count only if
    nothing new follows them: a blank line before new code belongs to the new code."""
    pairs = []
    backward, in_file = len(ks) > 1 and ks[1] < ks[0], set(doc_keys)
    for k, j in zip(ks, js):
        if keys[k] != doc_keys[j] or k in elsewhere or backward and closes_new_block(k, keys, in_file):
            break
        pairs.append((k, j))
    if len(pairs) < len(ks) and keys[ks[len(pairs)]].strip():
        while pairs and not keys[pairs[-1][0]].strip():
            pairs.pop()
    for k, j in pairs:
        lines[k] = j + 1


def unplace_openers_of_new_entries(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """A call opened alone on its line and placed on the file's (``parser.add_argument(``), whose next line is new
    and names another entry than the file's next line (``"--retries",`` where the file has ``"--include-drafts",
    ...``): the call is a new one beside the file's, its opening line new too, not the file's call rewritten."""
    first = next((j for j, key in enumerate(doc_keys) if key.strip()), None)
    for k in range(len(keys) - 1):
        j = lines[k]
        if 0 < j < len(doc_keys) and lines[k + 1] == NEW and j - 1 != first and \
                opens_another_entry(keys[k], keys[k + 1], doc_keys[j]):  # (not a JSON file's opening ``{``)
            lines[k] = NEW


def place_closing_before_markers(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """New entries after a shown line, then the closing line of their list or block and a marker (``]`` after
    new dependencies): where the file's next lines after the shown one are those closing lines, they are those
    lines, not a second ``]``."""
    for k, n in enumerate(lines):
        if n <= 0:
            continue
        end = k + 1
        while end < len(lines) and lines[end] == NEW:
            end += 1
        if end == k + 1 or end >= len(lines) or lines[end] != MARKER:
            continue
        closing = []
        for i in range(end - 1, k, -1):
            if not keys[i].strip():
                continue
            if not CLOSING.match(keys[i]):
                break
            closing.append(i)
        if not closing or len(closing) == end - k - 1 - sum(1 for i in range(k + 1, end) if not keys[i].strip()):
            continue  # nothing closes, or nothing new before the closing lines (the alignment placed those)
        j = n  # 0-based: the file line after the shown one
        for i in reversed(closing):
            while j < len(doc_keys) and not doc_keys[j].strip():
                j += 1
            if j >= len(doc_keys) or doc_keys[j] != keys[i] or j + 1 in lines:
                break
            lines[i] = j + 1
            j += 1


def continue_placed_runs(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """New lines that repeat, in order, the file lines right after a placed line (a Razor ``else`` and ``{`` after
    the ``}`` placed by its block): those lines, not rewrites of them (which left the marker below them nothing
    to keep)."""
    placed = {n for n in lines if n > 0}
    for k in range(1, len(lines)):
        j = lines[k - 1]  # 1-based: the file line above; its next is doc_keys[j]
        if lines[k] == NEW and keys[k].strip() and j > 0 and j < len(doc_keys) and j + 1 not in placed and \
                doc_keys[j] == keys[k] and all(n <= j for n in lines[:k] if n > 0):
            lines[k] = j + 1
            placed.add(j + 1)


def close_shown_blocks(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """A new closing line (``}``) whose block opens on a placed line (``get {``, its body rewritten) is that
    block's closing line in the file, not a second one written before it: the body's old lines go, and a marker
    after it, or new code after the block (a method added after the one rewritten), keeps what follows; at the
    update's end, the file's lines after it stay."""
    for i, n in enumerate(lines):
        if n != NEW or not keys[i].strip() or not CLOSING.match(keys[i]):
            continue
        depth = indent_of(keys[i])
        after = next((m for m in range(i + 1, len(keys)) if keys[m].strip() or lines[m] == MARKER), None)
        if after is not None and lines[after] != MARKER and (lines[after] != NEW or indent_of(keys[after]) > depth):
            continue  # (before a marker, the update's end, or new code after the block: elsewhere closing lines
            # are placed later)
        opener = next((o for o in range(i - 1, -1, -1) if keys[o].strip() and lines[o] != MARKER
                       and indent_of(keys[o]) <= depth), None)
        if opener is None or lines[opener] <= 0 or indent_of(keys[opener]) != depth or CLOSING.match(keys[opener]):
            continue
        start = lines[opener]  # 1-based: the block's body starts after it
        end = next((j for j in range(start, len(doc_keys)) if doc_keys[j].strip() and
                    indent_of(doc_keys[j]) <= depth), None)
        if end is None or doc_keys[end].strip() != keys[i].strip() or end + 1 in lines or \
                after is None and not any(key.strip() for key in doc_keys[end + 1:]):
            continue  # (at the file's end too, the lines that end both place the update)
        inside = [m for m in lines[opener + 1:i] if m > 0]
        if all(start < m <= end for m in inside) and all(m <= start or m > end + 1 for m in lines[i + 1:] if m > 0):
            lines[i] = end + 1


def close_blocks_around(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """An update without markers that starts inside a block and ends closing it (``title:``, the rest of a
    ``ListTile(``'s arguments rewritten, then its ``);``): its closing lines less indented than its first line
    are the file's lines that close the blocks around the first one, not new ones after it; the file's lines
    between are what it rewrites."""
    shown = [k for k, key in enumerate(keys) if key.strip()]
    if not shown or MARKER in lines or lines[shown[0]] <= 0 or weight(keys[shown[0]]) < DISTINCTIVE or \
            doc_keys.count(keys[shown[0]]) > 1:
        return  # (a first line the file has once: a ``@Test`` starts no block's rewrite)
    top, tail = indent_of(keys[shown[0]]), []
    for k in reversed(shown):
        if lines[k] != NEW or not CLOSING.match(keys[k]) or indent_of(keys[k]) >= top:
            break
        tail.append(k)
    j = lines[shown[0]] - 1  # 0-based
    for k in reversed(tail):  # (the innermost block's first)
        depth = indent_of(keys[k])
        end = next((i for i in range(j + 1, len(doc_keys)) if doc_keys[i].strip() and indent_of(doc_keys[i]) <= depth),
                   None)
        if end is None or doc_keys[end].strip() != keys[k].strip() or any(n > end for n in lines if n > 0):
            return
        lines[k], j = end + 1, end


def close_below_markers(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """A marker, then new closing lines, then a placed one (``// ... unchanged ...`` in a ``match``, its ``}``,
    then the function's ``}``): the new ones are the file's closing lines right above the placed one, not
    second ones the marker's stretch would keep beside them."""
    placed = {n for n in lines if n > 0}
    for i, n in enumerate(lines):
        if n <= 0 or not (CLOSING.match(keys[i]) or CLOSING_TAG.match(keys[i])):
            continue  # (``</ul>`` after ``/>`` and ``))}``: JSX's elements closed below ``// ... existing props ...``)
        m, j = i - 1, n - 1  # j: 1-based, the file line above the placed one
        while m > 0 and lines[m] == NEW and (CLOSING.match(keys[m]) or keys[m].strip().startswith("/>")) and \
                j > 0 and j not in placed and doc_keys[j - 1] == keys[m]:
            m, j = m - 1, j - 1
        if m < i - 1 and lines[m] == MARKER:
            for r in range(m + 1, i):
                lines[r] = n - (i - r)
                placed.add(lines[r])


def place_context(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """Context lines between a marker and a changed stretch (``else:`` above a rewritten line, a closing
    ``\"\"\"`` below a rewritten sentence): too common in the file to place the update, and not next to a placed
    line, they stay new and the file's own are kept too.  Here the new lines between a marker (or the update's
    edge) and a placed line are matched against the few file lines next to that placed one; those that repeat
    from the marker's side in are placed there, and the file lines between them and the placed line are what
    the rest of the new lines rewrite."""
    for k, end in new_runs(lines):
        before = lines[k - 1] if k > 0 else MARKER
        after = lines[end] if end < len(lines) else MARKER
        run = list(range(k, end))
        if before == MARKER and after > 0:  # from the marker down to the placed line: match backwards
            floor = max([n for n in lines[:k] if n > 0] + [0])
            js = list(range(after - 2, max(floor, after - 2 - len(run) - REWRITE_SLACK) - 1, -1))
            _place_from_edge(lines, keys, doc_keys, run, js)
        elif before > 0 and after == MARKER:  # from the placed line down to the marker
            ceiling = min([n for n in lines[end:] if n > 0] + [len(doc_keys) + 1])
            js = list(range(before, min(ceiling - 1, before + len(run) + REWRITE_SLACK)))
            _place_from_edge(lines, keys, doc_keys, run[::-1], js)


def rest_of_last_block(lines: list[int], keys: list[str], doc_keys: list[str],
                       replaced: frozenset[int]) -> frozenset[int]:
    """New lines that end the update after its last placed line, with no marker: the file lines after that one,
    as deep as the new lines or deeper (the rest of the block they are in), which the new lines rewrite when
    keeping them breaks the file (a ``finally:`` rewritten after a shown line).  Not shown, so reported."""
    placed = [k for k, n in enumerate(lines) if n > 0]
    if not placed or MARKER in lines[placed[-1]:]:
        return frozenset()
    tail = [k for k in range(placed[-1] + 1, len(keys)) if keys[k].strip()]
    if not tail:
        return frozenset()
    body = [k for k in tail if not CLOSING.match(keys[k])]  # (a function's new ending, then its ``}`` at the left
    depth = min(indent_of(keys[k]) for k in body or tail)  # edge: the rest of the function, not of the file)
    out = _block_rest(lines[placed[-1]], depth, doc_keys, replaced)
    close = keys[tail[-1]]
    if body and CLOSING.match(close) and indent_of(close) < depth:
        start = out[-1] if out else max([lines[placed[-1]]] + [n for n in replaced if n > lines[placed[-1]]])
        j = start  # 0-based: the file line after the rest
        while j < len(doc_keys) and not doc_keys[j].strip():
            j += 1
        if j < len(doc_keys) and doc_keys[j].rstrip() == close.rstrip():
            out += range(start + 1, j + 2)  # the block's own closing line, which the update's rewrites
    return frozenset(out)


def _block_rest(after: int, depth: int, doc_keys: list[str], replaced: frozenset[int]) -> list[int]:
    """The file lines (1-based) after line ``after`` and those rewritten past it, as deep as ``depth`` or deeper
    (the rest of the block there), without the blank lines that end it."""
    j = max([after] + [n for n in replaced if n > after])  # 0-based: the next file line
    out = []
    while j < len(doc_keys) and (not doc_keys[j].strip() or indent_of(doc_keys[j]) >= depth):
        out.append(j + 1)
        j += 1
    while out and not doc_keys[out[-1] - 1].strip():
        out.pop()
    return out


def dead_after_return(lines: list[int], keys: list[str], doc_keys: list[str],
                      replaced: frozenset[int]) -> frozenset[int]:
    """An update that ends, with no marker, in new lines whose last leaves its block (``return``, ``raise``,
    ``throw``) rewrites the rest of that block: kept after it, the file's old ending would be dead code (the
    old ``return`` beside its rewrite)."""
    placed = [k for k, n in enumerate(lines) if n > 0]
    if not placed or MARKER in lines[placed[-1]:]:
        return frozenset()
    tail = [k for k in range(placed[-1] + 1, len(keys)) if keys[k].strip()]
    if not tail or not LEAVES.match(keys[tail[-1]]):
        return frozenset()
    depth = indent_of(keys[tail[-1]])
    if any(indent_of(keys[k]) < depth for k in tail) or indent_of(keys[placed[-1]]) < depth:
        return frozenset()
    out = _block_rest(lines[placed[-1]], depth, doc_keys, replaced)
    if sum(1 for n in out if doc_keys[n - 1].strip()) > 2 * len(tail) + REWRITE_SLACK:
        return frozenset()
    return frozenset(out)


def old_ending(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int]) -> frozenset[int]:
    """A marker in a block, then new code to the update's end that ends the block leaving it (``return``,
    ``raise``): a function shown whole with ``# ... filters unchanged ...`` and a new ending.  The file's block
    ends leaving it too; its last paragraph (from the blank line above its last statements), which the new
    ending replaces, is not the marker's to keep: kept, the old ``return`` would follow the new one."""
    placed = [k for k, n in enumerate(lines) if n > 0]
    if not placed:
        return frozenset()
    after = [k for k in range(placed[-1] + 1, len(keys)) if keys[k].strip()]
    marks = [k for k in after if lines[k] == MARKER]
    tail = [k for k in after if lines[k] == NEW and marks and k > marks[0]]
    if len(marks) != 1 or not tail or len(tail) != len(after) - 1 or tail[0] < marks[0]:
        return frozenset()
    depth = min(indent_of(keys[k]) for k in tail)
    statements = [k for k in tail if indent_of(keys[k]) == depth and not CLOSING.match(keys[k])]
    if indent_of(keys[marks[0]]) != depth or not statements or not LEAVES.match(keys[statements[-1]]):
        return frozenset()
    block = _block_rest(lines[placed[-1]], depth, doc_keys, replaced)
    ends = [n for n in block if indent_of(doc_keys[n - 1]) == depth and not CLOSING.match(doc_keys[n - 1])]
    if not ends or not LEAVES.match(doc_keys[ends[-1] - 1]):
        return frozenset()
    first = ends[-1]
    while first - 1 in block and doc_keys[first - 2].strip():
        first -= 1  # up to the blank line above the last paragraph
    return frozenset(n for n in block if n >= first)


def _place_from_edge(lines: list[int], keys: list[str], doc_keys: list[str], run: list[int], js: list[int]) -> None:
    """``run``: new update lines from the marker's side in; ``js``: 0-based file lines from the placed line out.
    The run's first lines are placed on the file lines they repeat, nearest the placed line first, when the
    run's other lines are at least about as many as the file lines left between (they rewrite those), or the
    first is a line the file has once."""
    content = [i for i in run if keys[i].strip()]
    if not content:
        return
    lead = run[run.index(content[0]):]
    for start in range(len(js)):
        pairs, j = [], start
        for i in lead:
            if j < 0 or keys[i] != doc_keys[js[j]]:
                break
            pairs.append((i, js[j]))
            j -= 1
        if not pairs:
            continue
        paired = {i for i, _ in pairs}
        rest = [i for i in run if keys[i].strip() and i not in paired]
        between = [js[t] for t in range(j + 1) if doc_keys[js[t]].strip()]
        if sum(weight(keys[i]) for i, _ in pairs if not CLOSING.match(keys[i])) < ANCHOR_WEIGHT and \
                not all(any(looks_alike(keys[i], doc_keys[b]) for i in rest) for b in between):
            continue  # braces alone are anywhere: only where the lines they skip are rewritten
        pinned = weight(keys[lead[0]]) >= DISTINCTIVE and doc_keys.count(keys[lead[0]]) == 1  # found once
        if rest and (pinned or len(between) <= len(rest) + REWRITE_SLACK):
            for i, n in pairs:
                lines[i] = n + 1
        return


def place_common_end(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """The lines an update ends with that are the lines the file ends with (``end`` and ``return M``) are those
    lines: the update ends where the file does, whatever it changed just before (the anchors' deletion price
    may leave them out, and a snippet would then append the file's end a second time)."""
    k, j = len(keys) - 1, len(doc_keys) - 1
    while k >= 0 and not keys[k].strip() and lines[k] == NEW:
        k -= 1
    while j >= 0 and not doc_keys[j].strip():
        j -= 1
    run, in_file = [], set(doc_keys)
    while k >= 0 and j >= 0 and lines[k] in (NEW, j + 1) and keys[k] == doc_keys[j] and \
            not closes_new_block(k, keys, in_file):
        run.append((k, j + 1))
        k, j = k - 1, j - 1
    if not run or max(0 if CLOSING.match(keys[k]) else weight(keys[k]) for k, _ in run) < ANCHOR_WEIGHT and \
            not (len(run) == 1 and MARKER in lines[:run[0][0]] and _closes_a_type(doc_keys, run[0][1] - 1)):
        return  # (closing lines alone end many blocks, ``end`` too; a class's ``}`` alone, after a marker and new
        # members, is the file's: the new code inside it)
    first_k, first_j = run[-1]
    if any(n > 0 and n >= first_j for n in lines[:first_k]) or MARKER in lines[first_k:]:
        return  # the file's end is placed earlier in the update already, or a marker follows
    for k, n in run:
        lines[k] = n


def _closes_a_type(doc_keys: list[str], j: int) -> bool:
    """Whether file line j is the closing line of a class (a struct, an interface, an impl)."""
    if not CLOSING.match(doc_keys[j]) or not doc_keys[j].strip():
        return False
    depth = indent_of(doc_keys[j])
    opener = next((o for o in range(j - 1, -1, -1) if doc_keys[o].strip() and indent_of(doc_keys[o]) <= depth
                   and not CLOSING.match(doc_keys[o])), None)
    return opener is not None and TYPE_OPENER.search(QUOTED.sub("", doc_keys[opener])) is not None


def place_common_start(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """An update that starts with the file's first line (a JSON file's ``{``), then (after new lines) a marker or a
    placed line, starts where the file does: that line is the file's, not a second one (too short to be placed earlier)."""
    k = next((k for k, key in enumerate(keys) if key.strip()), None)
    j = next((j for j, key in enumerate(doc_keys) if key.strip()), None)
    if k is None or j is None or lines[k] != NEW or keys[k] != doc_keys[j] or any(0 < n <= j + 1 for n in lines):
        return
    following = next((n for key, n in zip(keys[k + 1:], lines[k + 1:]) if key.strip() and n != NEW), NEW)
    if following == MARKER or following > j + 1:  # (new members first, then a placed one: ``{``, a new
        lines[k] = j + 1  # ``"Serilog"`` section, then the file's ``"AllowedHosts"``)


def close_marked_blocks(lines: list[int], keys: list[str], doc_keys: list[str],
                        replaced: frozenset[int] = frozenset()) -> None:
    """A closing line less indented than a marker before it (``  },`` after ``    // ...`` and new entries)
    closes the block the marker is in: it is placed on the line that closes that block in the file, so the
    marker keeps the block's lines up to it and new lines between go at the block's end.  The block may open
    on a line the update rewrites (``ForEach(viewModel.filteredContacts) { contact in`` above the marker)."""
    for k, n in enumerate(lines):
        if n != MARKER:
            continue
        depth = indent_of(keys[k])
        done = max([m for m in lines[:k] if m > 0] + [0])
        opener = next((o for o in range(k - 1, -1, -1) if keys[o].strip()), None)
        if opener is not None and lines[opener] == NEW and indent_of(keys[opener]) < depth and done + 1 in replaced \
                and done < len(doc_keys) and indent_of(doc_keys[done]) == indent_of(keys[opener]) and \
                looks_alike(keys[opener], doc_keys[done]):
            done += 1  # (the line the opener above the marker rewrites)
        closers = []
        for i in range(k + 1, len(lines)):
            if lines[i] != NEW:
                break
            if keys[i].strip() and CLOSING.match(keys[i]) and indent_of(keys[i]) < depth:
                closers.append(i)
            elif closers:
                break
        if not closers:
            continue
        end = done  # the block the marker is indented into ends before its first less indented line
        while end < len(doc_keys) and (not doc_keys[end].strip() or indent_of(doc_keys[end]) >= depth):
            end += 1
        for i in closers:
            while end < len(doc_keys) and not doc_keys[end].strip():
                end += 1
            if end >= len(doc_keys) or doc_keys[end].strip() != keys[i].strip() or end + 1 in lines:
                break
            lines[i] = end + 1
            end += 1


def place_closing_lines(lines: list[int], keys: list[str], doc_keys: list[str],
                        kept: dict[int, tuple[int, int]]) -> None:
    """Closing lines that end the update after new code (``}``, ``});``, ``end``) close the blocks the file
    closes next: placed on those file lines, not written a second time beside them."""
    k = len(keys)
    while k > 0 and (lines[k - 1] == NEW and (CLOSING.match(keys[k - 1]) or not keys[k - 1].strip())):
        k -= 1
    closing = [i for i in range(k, len(keys)) if keys[i].strip()]
    if not closing or k == 0 or lines[k - 1] != NEW:
        return  # nothing closes, or the closing lines follow placed ones (the line alignment placed them)
    done = max([n for n in lines if n > 0] + [last for _, last in kept.values()] + [0])
    following = []  # the file's closing lines next after what the update accounts for
    for j in range(done + 1, len(doc_keys) + 1):
        if doc_keys[j - 1].strip():
            if not CLOSING.match(doc_keys[j - 1]) or len(following) == len(closing):
                break
            following.append(j)
    pairs = list(zip(closing[len(closing) - len(following):], following))  # the update's last ones close them
    shifts = Counter(indent_of(doc_keys[n - 1]) - indent_of(keys[i]) for i, n in enumerate(lines)
                     if n > 0 and keys[i].strip())  # (at the depth the placed lines show them: a method's ``}``
    shift = shifts.most_common(1)[0][0] if shifts else None  # is not its class's)
    if pairs and all(keys[i].strip() == doc_keys[j - 1].strip() and
                     (shift is None or indent_of(doc_keys[j - 1]) - indent_of(keys[i]) == shift)
                     for i, j in pairs):
        for i, j in pairs:
            lines[i] = j


def share_edge_blank_lines(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int]) -> None:
    """The blank lines a snippet ends with are the blank lines the file goes on with after it, not more of them
    (and likewise at its start): placed on them."""
    placed = [n for n in lines if n > 0]
    if not placed or MARKER in lines:
        return
    last = max([max(placed)] + [n for n in replaced if n > max(placed)])
    k, j = len(keys) - 1, last + 1
    while k >= 0 and lines[k] == NEW and not keys[k].strip():
        k -= 1
    for i in range(k + 1, len(keys)):  # the update's trailing blank lines, in order, on the file's
        if j > len(doc_keys) or doc_keys[j - 1].strip() or lines[i] != NEW:
            break
        lines[i] = j
        j += 1
    first = min([min(placed)] + [n for n in replaced if n < min(placed)])
    k = 0
    while k < len(keys) and lines[k] == NEW and not keys[k].strip():
        k += 1
    j = first - k
    for i in range(k):  # the update's leading blank lines, on the file's just before its first line
        if j < 1 or doc_keys[j - 1].strip():
            continue
        lines[i] = j
        j += 1


def share_blank_lines(lines: list[int], keys: list[str], doc_keys: list[str], kept: dict[int, tuple[int, int]],
                      rewrites: dict[int, int] | None = None) -> None:
    """Blank lines where a marker's kept lines meet the update's own are the same lines, not twice as many: the
    blank update lines right after a marker are placed on the blank lines its stretch ends with, and those right
    before it on the blank lines its stretch starts with."""
    for k, (first, last) in list(kept.items()):
        after = 0
        while k + 1 + after < len(keys) and lines[k + 1 + after] == NEW and not keys[k + 1 + after].strip():
            after += 1
        tail = 0
        while last - tail >= first and not doc_keys[last - tail - 1].strip():
            tail += 1
        shared = min(after, tail)
        for i in range(shared):  # in order: the stretch's last blank lines become the update's first ones
            lines[k + 1 + i] = last - shared + 1 + i
        following = (rewrites or {}).get(k + 1 + after, lines[k + 1 + after]) if k + 1 + after < len(lines) else None
        if shared < after and (following == last + 1 and first <= last or following == MARKER):  # the file has no
            for i in range(shared, after):  # blank line there, or another marker follows: the update's blank lines
                lines[k + 1 + i] = SKIP  # only set the markers apart
        last -= shared
        before = 0
        while k - 1 - before >= 0 and lines[k - 1 - before] == NEW and not keys[k - 1 - before].strip():
            before += 1
        head = 0
        while first + head <= last and not doc_keys[first + head - 1].strip():
            head += 1
        shared = min(before, head)
        for i in range(shared):
            lines[k - shared + i] = first + i
        preceding = (rewrites or {}).get(k - 1 - before, lines[k - 1 - before]) if k - 1 - before >= 0 else None
        if shared < before and preceding is not None and preceding > 0 and preceding + 1 == first <= last:
            for i in range(before - shared):
                lines[k - before + i] = SKIP
        start = k  # new lines right before the marker, set off by a blank line from the placed line above them
        while start > 0 and lines[start - 1] == NEW:
            start -= 1  # (where the file has its blank line: the update's is that one, not a second after them)
        if not shared and not before and start + 1 < k and start > 0 and lines[start - 1] > 0 and \
                lines[start - 1] + 1 == first < last and not keys[start].strip() and keys[start + 1].strip() and \
                not doc_keys[first - 1].strip() and doc_keys[first].strip():  # (one blank line on each side)
            lines[start] = first
            first += 1
        kept[k] = (first + shared, last)


def set_apart(lines: list[int], keys: list[str], doc_keys: list[str], kept: dict[int, tuple[int, int]],
              fresh: set[int]) -> frozenset[int]:
    """New definitions that meet a marker's kept lines with no blank line between, where the file sets its
    definitions apart with one (a new method right after ``// ...existing code...`` and the last method's
    ``}``): the update lines (the new one's first, or the line after its last) a blank line goes before."""
    out = set()
    def spaced_in(js) -> tuple[set[int], set[int]]:
        """The depths at which closing lines are followed by a blank line, and by another line not a closing one."""
        ends = [j for j in js if j + 1 < len(doc_keys) and CLOSING.match(doc_keys[j]) and doc_keys[j].strip()
                and not (doc_keys[j + 1].strip() and CLOSING.match(doc_keys[j + 1]))]
        return ({indent_of(doc_keys[j]) for j in ends if not doc_keys[j + 1].strip()},
                {indent_of(doc_keys[j]) for j in ends if doc_keys[j + 1].strip()})

    spaced_in_file = spaced_in(range(len(doc_keys)))[0]
    for k, (first, last) in kept.items():
        if first > last:
            continue
        spaced, close = spaced_in(range(first - 1, last - 1))
        spaced |= spaced_in_file - close  # (where the stretch shows neither, as the file does)
        new = k + 1  # new code after the stretch, against its last line
        if new in fresh and lines[new] == NEW and keys[new].strip() and CLOSING.match(doc_keys[last - 1]) and \
                doc_keys[last - 1].strip() and indent_of(doc_keys[last - 1]) == indent_of(keys[new]) in spaced:
            out.add(new)
        end = k - 1  # new code before the stretch, against its first line
        if end in fresh and lines[end] == NEW and CLOSING.match(keys[end]) and keys[end].strip() and \
                doc_keys[first - 1].strip() and indent_of(doc_keys[first - 1]) == indent_of(keys[end]) in spaced:
            out.add(k)
    head = next((k for k, key in enumerate(keys) if key.strip()), None)  # new code that starts the update,
    placed = next((n for n in lines if n > 0), None)  # against the file line above the first one it shows
    if head is not None and placed is not None and placed > 1 and head in fresh and lines[head] == NEW:
        above = doc_keys[placed - 2]
        if CLOSING.match(above) and above.strip() and indent_of(above) == indent_of(keys[head]) in spaced_in_file and \
                not doc_keys[placed - 1].strip() and (ATTACHED_LINE.match(keys[head]) or is_declaration(keys[head])):
            out.add(head)  # (new tests "before `Dispose()`", shown down to it: set apart from the test above)
    return frozenset(out)


def _only_closes(key: str) -> bool:
    """Whether a line only closes a block: brackets, ``end``, or a markup element's closing tag (``</div>``)."""
    return bool(CLOSING.match(key) or CLOSING_TAG.match(key))


TRUNCATED_TAIL = 3  # lines of a block left below the last one an update shows: fewer, and it may mean to drop them


def rest_of_block(lines: list[int], keys: list[str], doc_keys: list[str]) -> frozenset[int]:
    """A function or class shown whole, without markers, replaces the file's: when the update starts on a block's
    first line (a line the next ones are indented under) and has no marker, the block's lines after the last one
    it places are the update's to replace, not to keep; unless the block has a closing line that the update does
    not end with (a class's first lines shown, without its ``end``: its head, not the whole class)."""
    if MARKER in lines:
        return frozenset()
    first = next((k for k, key in enumerate(keys) if key.strip()), None)
    placed = [n for n in lines if n > 0]
    if first is None or lines[first] <= 0 or not placed:
        return frozenset()
    head = lines[first]
    indent = indent_of(doc_keys[head - 1])
    end = head
    while end < len(doc_keys) and (not doc_keys[end].strip() or indent_of(doc_keys[end]) > indent):
        end += 1
    while end > head and not doc_keys[end - 1].strip():
        end -= 1  # the blank lines after the block are between blocks
    if end == head or max(placed) > end:
        return frozenset()  # not a block, or the update runs past it (a snippet of several blocks)
    last = next(key for key in reversed(keys) if key.strip())
    if end < len(doc_keys) and _only_closes(doc_keys[end]) and indent_of(doc_keys[end]) == indent and \
            not (_only_closes(last) and indent_of(last) == indent):
        return frozenset()  # the block closes (``end``, ``}``) and the update does not: it shows the block's head
    if OPENS.search(last) or last.rstrip().endswith(("{", "(", "[", "=>", ":")):
        return frozenset()  # it ends opening a block (``client.get(city) match {``): it stops there, not the block
    shown = [k for k, key in enumerate(keys) if key.strip()]
    if lines[shown[-1]] > 0 and sum(1 for j in range(lines[shown[-1]], end) if doc_keys[j].strip()) >= TRUNCATED_TAIL:
        return frozenset()  # it ends on a line of the block with more of it below: it stops there, not the block
    if [k for k in shown if lines[k] <= 0] == shown[-1:] and max(placed) < end and \
            sum(1 for j in range(max(placed), end) if doc_keys[j].strip()) >= 2 and \
            rewrites_statement(keys[shown[-1]].strip(), doc_keys[max(placed)].strip()):
        return frozenset()  # the block's first lines down to the one line it changes: it stops there
    # (``fetcher = Fetcher(session=session, retries=0)``, the test's lines after it not shown), not the block
    return frozenset(range(max(placed) + 1, end + 1))


def closing_lines_pinned(chain: list[tuple[int, int]], keys: list[str], markers: list[bool],
                         doc_keys: list[str]) -> tuple[list[tuple[int, int]], set[int]]:
    """The chain with each stretch of closing lines alone after a marker (``  end`` below ``# ... existing
    code ...``) or after new lines (the ``  end`` below new tests) placed on the closing line of the file block
    its opener opens, where the update shows that opener placed (``describe "POST /todos" do``): an ``end`` fits
    every block's end, the opener's says which.
    Returns the chain and the update lines so pinned."""
    placed, pinned = dict(chain), set()
    out = list(chain)
    for n, (k, j) in enumerate(chain):
        since = next((m for m in range(k - 1, -1, -1) if markers[m] or keys[m].strip() and not CLOSING.match(keys[m])),
                     None)
        if since is None or not CLOSING.match(keys[k]):
            continue
        previous = chain[n - 1][0] if n else -1
        if not markers[since] and not any(keys[m].strip() and not markers[m] for m in range(previous + 1, k)):
            continue  # (after a marker, or after new lines: an ``end`` below new tests closes their group)
        depth = indent_of(keys[k])
        opener = next((o for o in range(k - 1, -1, -1) if keys[o].strip() and not markers[o]
                       and indent_of(keys[o]) <= depth), None)
        if opener is not None and keys[opener].strip() == "{" and opener not in placed:
            opener = next((o for o in range(opener - 1, -1, -1) if keys[o].strip()), None)  # (C#'s ``{`` alone
            # below ``modelBuilder.Entity<Order>(entity =>``: the head above opens the block)
        if opener is None or indent_of(keys[opener]) != depth or CLOSING.match(keys[opener]) or opener not in placed:
            continue
        end = placed[opener] + 1
        if end < len(doc_keys) and doc_keys[end].strip() == "{":
            end += 1
        while end < len(doc_keys) and (not doc_keys[end].strip() or indent_of(doc_keys[end]) > depth):
            end += 1
        low = out[n - 1][1] if n else -1
        high = chain[n + 1][1] if n + 1 < len(chain) else len(doc_keys)
        if end < len(doc_keys) and doc_keys[end] == keys[k] and low < end < high:
            out[n] = (k, end)
            pinned.add(k)
    return out, pinned
