"""The file lines that new update lines rewrite: a changed line beside a kept stretch, a line rewritten
between two markers, a head rewritten above a body a marker stands for.  Those file lines are replaced, not
kept beside their rewrite."""

from __future__ import annotations

import difflib
import re
from collections import Counter

from ..blocks import another_subject, same_head
from ..markers import next_shown
from ..syntax import COMMENT_LINE
from .likeness import (
    call_rewrapped, declares_same, defines_another, likeness, looks_alike, only_reindented, other_entries,
    same_place, same_signature, split_over_lines)
from .placement import MARKER, NEW
from .reading import (
    ATTACHED_LINE, CLOSING, DECLARES, DISTINCTIVE, HEAD, IMPORT_LINE, SIGNATURE_LINES, TOKEN, attached_start,
    block_end, closes_new_block, definition_name, indent_of, is_declaration, new_runs, weight)


REWRITE_LOOKAHEAD = 3  # a file line's rewrite is looked for among this many next new lines (a statement wrapped
# in try: is the second)
REWRITE_ALONE = 0.75  # a new line between markers rewrites the file line it resembles this much (and clearly most)
REWRITE_CLEARLY = 0.6  # or this much, where no other line there comes within 0.3 of it
LONE_LINES = 6  # an update of at most this many lines and no line of the file rewrites the run it resembles
WRAPPED_LINES = 3  # a file line rewritten over up to this many lines (a continuation) is found as one
REWRITE_SLACK = 3  # new lines beyond those that rewrite file lines: more, and the run is an insertion


def doc_comments_rewritten(lines: list[int], keys: list[str], doc_keys: list[str]) -> set[int]:
    """The file's comment lines right above a definition the update places, where the update writes new comment
    lines right above it (``// Check requests t, retrying ...`` for ``// Check performs a single GET ...``): the
    definition's doc comment rewritten, not kept above the new one (1-based file lines)."""
    out: set[int] = set()
    placed = {n for n in lines if n > 0}
    for k, n in enumerate(lines):
        if n <= 0 or not is_declaration(keys[k]) or k == 0 or lines[k - 1] != NEW:
            continue
        if COMMENT_LINE.match(keys[k - 1]):
            j = n - 1  # the file line above the definition (1-based)
            while j > 0 and j not in placed and doc_keys[j - 1].strip() and COMMENT_LINE.match(doc_keys[j - 1]):
                out.add(j)
                j -= 1
            continue
        above = k  # Elixir's ``@doc \"\"\"`` heredoc and ``@spec`` written anew above ``def check``: the file's
        while above > 0 and lines[above - 1] == NEW and keys[above - 1].strip():  # ``@doc "..."`` goes
            above -= 1
        if any(_DOC_ATTRIBUTE.match(keys[i]) for i in range(above, k)):
            start = attached_start(doc_keys, n - 1)  # (a one-line ``@doc "..."``: a heredoc's own lines place
            # the new one's)
            out |= {j for j in range(start + 1, n) if j not in placed and _DOC_ATTRIBUTE.match(doc_keys[j - 1]) and
                    not doc_keys[j - 1].rstrip().endswith('"""')}
    return out


_DOC_ATTRIBUTE = re.compile(r"^\s*@(?:doc|typedoc)\b")  # a definition's documentation as an attribute (Elixir)


def rewrites_between_markers(lines: list[int], keys: list[str], doc_keys: list[str],
                             replaced: frozenset[int], fresh: set[int]) -> dict[int, int]:
    """New lines with markers (or the update's edge) on both sides that rewrite one file line: an import that
    gains a name, a signature that gains a parameter, shown alone between ``...`` markers; or the first or last
    line of a longer run between markers (a command rewritten, with new lines before it), when only one of the
    two rewrites a line; or, with a marker on one side and a placed line on the other, the run's line next to
    the placed one, when it rewrites the file line next to that one.  Each goes in place of the file line it
    resembles most, when that line is alike enough and clearly more alike than any other among the lines the
    markers around it keep: {update line: file line}."""
    out: dict[int, int] = {}
    in_file = set(doc_keys)
    for k, end in list(new_runs(lines)):
        run = [i for i in range(k, end) if keys[i].strip()]
        before = lines[k - 1] if k > 0 else None
        after = lines[end] if end < len(lines) else None
        if run and (before == MARKER and after is not None and after > 0 or
                    after == MARKER and before is not None and before > 0):
            # a marker on one side, a placed line on the other: the run's line next to the placed one may
            # rewrite the file line next to it there, which the marker would otherwise keep (a ``return``
            # that returns one more name, right above the function's shown ``}``)
            edge, step = (run[-1], -1) if before == MARKER else (run[0], 1)
            j = (after if before == MARKER else before) + step
            while 0 < j <= len(doc_keys) and not doc_keys[j - 1].strip():
                j += step
            if 0 < j <= len(doc_keys) and j not in replaced and j not in out.values() and \
                    weight(keys[edge]) >= DISTINCTIVE and indent_of(doc_keys[j - 1]) == indent_of(keys[edge]) and \
                    keys[edge].strip() not in in_file and not other_entries(keys[edge], doc_keys[j - 1]) and \
                    not defines_another(keys, edge, doc_keys, j - 1) and not DECLARES.match(doc_keys[j - 1]) and \
                    likeness(keys[edge], doc_keys[j - 1]) >= REWRITE_ALONE:
                out[edge] = j
                beyond = j + step  # and the file line past it, rewritten over the run's lines past the edge (a
                while 0 < beyond <= len(doc_keys) and not doc_keys[beyond - 1].strip():  # JSX tag given a prop
                    beyond += step  # a line)
                rest = run[:-1] if step == -1 else run[1:]
                if 0 < beyond <= len(doc_keys) and beyond not in replaced and rest:
                    split = _split_over(rest[::-1] if step == -1 else rest, -1, doc_keys[beyond - 1], keys,
                                        upward=step == -1)
                    if split is not None:
                        group = rest[::-1][: split + 1] if step == -1 else rest[: split + 1]
                        out[min(group)] = beyond
            continue
        if not run or before not in (None, MARKER) or after not in (None, MARKER):
            continue  # next to a placed line: the alignment's call
        below = max([m for m in lines[:k] if m > 0] + [v for i, v in out.items() if i < k] + [0])
        above = min([m for m in lines[end:] if m > 0] + [len(doc_keys) + 1])
        taken = replaced | set(out.values())
        if len(run) == 1:
            edges = run
        elif closes_new_block(run[-1], keys, in_file) or closes_new_block(run[0], keys, in_file):
            continue  # a whole new block rewrites nothing
        else:
            edges = [run[0], run[-1]]
        found = {i: j for i in edges if keys[i] not in in_file and i not in fresh  # (a file line not placed, a
                 and (j := rewritten_alone(keys[i], doc_keys, range(below + 1, above), taken)) is not None}
        if len(found) == 1:  # new definition's attribute: no rewrite of either)
            out.update(found)
        elif not found:
            out.update(_written_over_lines(run, keys, doc_keys, range(below + 1, above), taken) or
                       _tail_somewhere(run, fresh, range(below + 1, above), keys, doc_keys, taken))
    return out


def _written_over_lines(run: list[int], keys: list[str], doc_keys: list[str], js: range,
                        taken: set[int]) -> dict[int, int]:
    """New lines between markers that are one file line among ``js`` written over several (``<UserTable`` and a
    prop a line, given one more, for the file's one-line ``<UserTable :users="users" ... />``): they open as it
    does and hold all its words; exactly one such line.  {the run's first line: that file line}, or none."""
    if not 2 <= len(run) <= SPLIT_LINES or run[-1] - run[0] + 1 != len(run):
        return {}
    new = [keys[i] for i in run]
    head = TOKEN.findall(new[0])[:2]
    found = [j for j in js if j not in taken and TOKEN.findall(doc_keys[j - 1])[:2] == head and
             split_over_lines(new, doc_keys[j - 1])]
    return {run[0]: found[0]} if len(found) == 1 else {}


def _tail_somewhere(run: list[int], fresh: set[int], js: range, keys: list[str], doc_keys: list[str],
                    taken: set[int]) -> dict[int, int]:
    """New lines between markers that end with a definition's head rewritten (a new route above ``show``, then
    ``show``'s attribute and signature changed and its ``{``, before ``// ... existing code ...`` for its body):
    the run's last lines paired line for line with the one run of file lines among ``js`` they are alike, one
    pair defining the same name; the lines before them are new.  {update line: file line}, or none."""
    found = []
    for size in range(min(_most_rewritten(run, fresh), LONE_LINES), 1, -1):  # the longest first
        tail = run[-size:]
        if CLOSING.match(keys[tail[0]]):
            continue  # (the ``}`` of the new code before it would pair with any block's end)
        for j in js:
            olds = [n for n in range(j, js.stop) if doc_keys[n - 1].strip()][:size]
            if len(olds) < size or olds[0] != j or any(n in taken for n in olds):
                continue
            pairs = list(zip(tail, olds))
            if alike_line_for_line(pairs, keys, doc_keys) and _names_one(pairs, keys, doc_keys):
                found.append(dict(pairs))
        if found:
            break
    return found[0] if len(found) == 1 else {}


def heads_over_elided_bodies(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int],
                             done: set[int]) -> dict[int, int]:
    """A new block head right above a marker that stands for its body (``if (error && orders.length === 0) {``,
    ``// ... unchanged ...``, ``}``) where the file's next line after the last placed one is the same head
    rewritten (``if (error) {``): that line, rewritten, not kept below the new head.  Likewise a new block shown
    whole right above a marker that keeps the rest of the block around it (``if jump:`` and a new body, then
    ``# ... rest of _physics_process stays the same``): the file's block of the same head, head to end, is what
    it rewrites, not kept below it.  {update line: file line}: each head, and each whole block's last line."""
    out: dict[int, int] = {}
    for k, key in enumerate(keys):
        if lines[k] != NEW or k in done or not key.rstrip().endswith(("{", ":", " do")):
            continue
        nxt = next_shown(keys, k, 1)
        whole = block_end(keys, k) if nxt is not None and lines[nxt] != MARKER else None
        if whole is not None:  # (a block shown whole: all new, then a marker no deeper than its head)
            last_k = next_shown(keys, whole, -1)
            after = next_shown(keys, last_k, 1)
            if last_k == k or any(keys[i].strip() and lines[i] != NEW for i in range(k, whole)) or \
                    after is None or lines[after] != MARKER or indent_of(keys[after]) > indent_of(key):
                continue
        elif nxt is None or lines[nxt] != MARKER or indent_of(keys[nxt]) <= indent_of(key):
            continue
        below = max([m for m in lines[:k] if m > 0] + [0])
        j = next((j for j in range(below + 1, len(doc_keys) + 1) if doc_keys[j - 1].strip()), None)
        if j is None or j in replaced or j in out.values() or indent_of(doc_keys[j - 1]) != indent_of(key) or \
                not same_head(doc_keys[j - 1].strip(), key.strip()):
            continue
        out[k] = j
        if whole is not None:
            end = next_shown(doc_keys, block_end(doc_keys, j - 1), -1)  # (0-based: the block's last line's)
            if end is not None and end + 1 > j:
                out[last_k] = end + 1
    return out


def rewritten_head(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int],
                   done: set[int]) -> dict[int, int]:
    """New lines after a marker and before a placed line that rewrite a run of file lines further up than the
    placed line, with the lines between them left out (deleted): a route's head gains a middleware and its
    first statement a cast, shown after ``// ...``, and the checks below them go; the body's unchanged rest
    follows. The run's first line is found as a line rewritten alone among the lines the marker would keep, the
    others pair with the file lines after it, every one; blank lines placed between the marker and the run go
    on the blank lines above its first file line.  ``done``: update lines rewritten already, or of new
    definitions (which rewrite nothing).  {update line: file line}, each pair."""
    out: dict[int, int] = {}
    for k, end in list(new_runs(lines)):
        after = lines[end] if end < len(lines) else None
        start = k
        while start > 0 and lines[start - 1] > 0 and not keys[start - 1].strip():
            start -= 1  # blank lines the alignment placed after the marker
        run = [i for i in range(k, end) if keys[i].strip()]
        if not run or after is None or after <= 0 or start == 0 or lines[start - 1] != MARKER or \
                any(i in done for i in range(start, end)):
            continue
        below = max([m for m in lines[:start] if m > 0] + [0])
        if any(j in replaced for j in range(below + 1, after)):
            continue  # a rewrite next to the placed line was found: the alignment's reading stands
        head = rewritten_alone(keys[run[0]], doc_keys, range(below + 1, after), set(replaced))
        if head is None or defines_another(keys, run[0], doc_keys, head - 1):
            continue
        pairs, at = [], head
        for i in run:
            while at < after and not doc_keys[at - 1].strip():
                at += 1
            if at >= after or \
                    not (looks_alike(keys[i], doc_keys[at - 1]) or keys[i].strip() == doc_keys[at - 1].strip()):
                break
            pairs.append((i, at))
            at += 1
        if len(pairs) < len(run) or another_subject([keys[i] for i, _ in pairs], [doc_keys[j - 1] for _, j in pairs]):
            continue
        blanks, j = [i for i in range(start, k)], head - 1
        for i in reversed(blanks):  # the blank lines between the marker and the run: above its first file line
            lines[i] = j if j > below and not doc_keys[j - 1].strip() else NEW
            j -= 1
        out.update(pairs)
    return out


def _only_inserts(old: str, new: str) -> bool:
    """Whether a new line is an old one with text added and none taken away (and more than a word kept)."""
    codes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    return len(old) >= 2 * DISTINCTIVE and all(tag in ("equal", "insert") for tag, *_ in codes) and \
        any(tag == "insert" for tag, *_ in codes)


def rewritten_alone(key: str, doc_keys: list[str], js: range, taken: set[int] = frozenset(), *,
                    any_depth: bool = False) -> int | None:
    """The file line among ``js`` (1-based) that a new line shown away from placed lines rewrites, or None;
    ``any_depth``: at whatever indentation (a line an answer shows alone, at the left edge)."""
    if weight(key) < DISTINCTIVE:
        return None
    scores = sorted(((difflib.SequenceMatcher(None, key.strip(), doc_keys[j - 1].strip(), autojunk=False).ratio(), j)
                     for j in js
                     if j not in taken and weight(doc_keys[j - 1]) >= DISTINCTIVE
                     and (any_depth or indent_of(doc_keys[j - 1]) == indent_of(key))
                     and not other_entries(key.strip(), doc_keys[j - 1].strip())),
                    reverse=True)
    if scores and scores[0][0] >= REWRITE_ALONE and (len(scores) == 1 or scores[1][0] < scores[0][0] - 0.1):
        return scores[0][1]
    if scores and scores[0][0] >= REWRITE_CLEARLY and (len(scores) == 1 or scores[1][0] < scores[0][0] - 0.3):
        return scores[0][1]  # (``s.cache.SetWithTTL(ip, res, s.ttl)`` for ``s.cache.Set(ip, res)``, nothing else
        # there alike)
    grown = [j for _, j in scores if _only_inserts(doc_keys[j - 1].strip(), key.strip())]
    if len(grown) == 1:  # the one line it keeps whole, adding to it: ``app.use("/api/auth", authRouter);`` given
        return grown[0]  # a middleware, ``rateLimit(config.rateLimit), ``, before its last argument
    extended = [j for _, j in scores if key.strip().startswith(doc_keys[j - 1].strip().rstrip(";,)"))]
    if len(extended) == 1:  # the one line it extends: ``result += item.price`` gaining `` * item.quantity``
        return extended[0]
    head = HEAD.match(key)  # ``->subject(sprintf(...))`` for ``->subject('Payment reminder')``: the one line of
    if head is None or len(head[1]) < 8:  # its call or key, rewritten whole, where nothing else is alike
        return None
    same = [j for _, j in scores if doc_keys[j - 1].strip().startswith(head[1])]
    return same[0] if len(same) == 1 else None


def file_lines_rewritten(lines: list[int], keys: list[str], doc_keys: list[str], fresh: set[int]) -> frozenset[int]:
    """File lines that new update lines rewrite where the file would otherwise keep them: new lines just before
    a placed line, after a marker or at the snippet's start, that resemble the file lines just before it (a
    changed ``def`` line above an unchanged body); and likewise just after a placed line.  ``fresh``: the update's
    lines of new definitions, which rewrite nothing."""
    out: set[int] = set()
    placed, in_file = [n for n in lines if n > 0], set(doc_keys)
    for k, end in new_runs(lines):
        run = [i for i in range(k, end) if keys[i].strip()]
        if run and all(i in fresh for i in run):
            continue  # new definitions whole (a ``describe "ttl" do`` after the file's last one)
        before = lines[k - 1] if k > 0 else None  # None: the update's start
        after = lines[end] if end < len(lines) else None  # None: its end
        if after is not None and after > 0 and not keys[end].strip() and \
                next((n for i, n in enumerate(lines[end:], end) if n <= 0 or keys[i].strip()), None) == MARKER:
            after = MARKER  # blank lines placed before a marker: the run ends at the marker
        head = after - 1 if after is not None and after > 0 else 0  # 1-based: the file line above the placed
        while head > 0 and not doc_keys[head - 1].strip():  # one, blank lines skipped
            head -= 1
        if run and after is not None and after > 0 and (before is None or before == MARKER) and \
                (not closes_new_block(run[-1], keys, in_file) or  # (a whole new block rewrites nothing, but a
                 head > 0 and call_rewrapped(keys[run[0]], doc_keys[head - 1])):  # call given lines of its own)
            found = _rewritten_run(reversed(range(k, end)), range(after - 1, 0, -1), keys, doc_keys, placed, out)
            if not found and head > 0 and head not in placed and len(run) <= SIGNATURE_LINES and \
                    split_over_lines([keys[i] for i in run], doc_keys[head - 1]):
                found = set(range(head, after))  # a signature spread over lines, one parameter each, above its
                # unchanged body (with the blank lines between: the update shows its own)
            if not found and head > 0:
                found = _head_rewritten(run, after, keys, doc_keys, placed)
            out |= found
        if run and k == 0 and before is None and after == MARKER and not any(IMPORT_LINE.match(keys[i]) for i in run) \
                and 1 not in placed and looks_alike(keys[run[0]], doc_keys[0]):  # (the file's first lines rewritten
            out |= _rewritten_run(range(k, end), range(1, len(doc_keys) + 1), keys, doc_keys, placed, out)  # above
            # a marker: ``BINARY  := gitstat`` realigned beside a new ``VERSION ?= ...``)
        if run and after is not None and after > 0 and before == MARKER and not any(j < after for j in out) and \
                head > 0 and head not in placed and _reopened(keys, run, doc_keys, head, after):
            out.add(head)  # (``<tbody>`` given a class, a new row at the top of its body)
        if run and before is not None and before > 0 and (after is None or after == MARKER):
            found = _rewritten_run(range(k, end), range(before + 1, len(doc_keys) + 1), keys, doc_keys, placed, out)
            if not found and before < len(doc_keys) and before + 1 not in placed and \
                    any(split_over_lines([keys[i] for i in run[:n]], doc_keys[before]) and
                        (n <= WRAPPED_LINES or same_signature(keys[run[0]], doc_keys[before]))
                        for n in range(2, SIGNATURE_LINES + 1)):
                found = {before + 1}  # (a one-line ``data class`` written one parameter a line)
            if not found:
                found = _same_name_rewritten(run, before, keys, doc_keys, placed, out)
            if not found:
                found = _same_keys_rewritten(run, before, keys, doc_keys, placed, out)
            if not found and len(run) == 1:
                nxt = next((j for j in range(before + 1, len(doc_keys) + 1) if doc_keys[j - 1].strip()), None)
                if nxt is not None and nxt not in placed and nxt not in out and _wraps(keys[run[0]], doc_keys[nxt - 1]):
                    found = set(range(before + 1, nxt + 1))  # (``Inventory.Cache,`` given its options)
            out |= found | _tail_rewritten(run, fresh, max(found | {before}), keys, doc_keys, placed, out)
    return frozenset(out)


def _head_rewritten(run: list[int], after: int, keys: list[str], doc_keys: list[str], placed: list[int]) -> set[int]:
    """The file lines of a definition's head that new lines rewrite above its first body line the update keeps:
    the run opens the same name (``Future<ArticlePage> fetchArticles({`` and a parameter a line, for ``Future<List<
    Article>> fetchArticles({String? category}) async {``), the file's head a few lines up, none of it placed."""
    name = definition_name(keys, run[0])
    if name is None or not keys[run[-1]].rstrip().endswith(("{", ":", "=>", "do")):
        return set()
    top = next((j for j in range(after - 1, max(0, after - 1 - SIGNATURE_LINES), -1)
                if definition_name(doc_keys, j - 1) == name), None)
    if top is None or any(n in placed for n in range(top, after)) or \
            indent_of(doc_keys[top - 1]) != indent_of(keys[run[0]]):
        return set()
    return set(range(top, after))


def _reopened(keys: list[str], run: list[int], doc_keys: list[str], head: int, after: int) -> bool:
    """Whether new lines after a marker start with the opening line of the block the placed line ``after`` is
    in, rewritten (the file's line ``head``, right above it: ``<tbody>`` become ``<tbody :class="...">``), the
    rest of them new lines at the top of its body: the same opening word at the same depth, the placed line
    deeper, and no other of the new lines like it."""
    ours, theirs = keys[run[0]], doc_keys[head - 1]
    word = _OPENING_WORD.match(ours)
    return word is not None and word[0] == (_OPENING_WORD.match(theirs) or [None])[0] and ours != theirs and \
        indent_of(ours) == indent_of(theirs) < indent_of(doc_keys[after - 1]) and \
        not any(_OPENING_WORD.match(keys[i]) and _OPENING_WORD.match(keys[i])[0] == word[0] for i in run[1:])


_OPENING_WORD = re.compile(r"^\s*<?[\w.$-]+")


def _same_name_rewritten(run: list[int], before: int, keys: list[str], doc_keys: list[str], placed: list[int],
                         taken: set[int]) -> set[int]:
    """The file's definition right after a placed line (its doc and attribute lines with it) that new code
    after that line and before a marker rewrites whole: the new code defines the same name, which the file
    and the update each define once (``put/2`` becoming ``put/3`` with a longer ``@doc``, where no grammar
    reads the file and line by line the new text is mostly new)."""
    first = before + 1
    while first <= len(doc_keys) and not doc_keys[first - 1].strip():
        first += 1
    head = first
    while head <= len(doc_keys) and ATTACHED_LINE.match(doc_keys[head - 1]):
        head += 1
    if head > len(doc_keys):
        return set()
    name = definition_name(doc_keys, head - 1)
    named = [i for i in run if definition_name(keys, i) == name]
    if name is None or sum(definition_name(doc_keys, j) == name for j in range(len(doc_keys))
                           if is_declaration(doc_keys[j])) != 1 or len(named) != 1 or \
            not CLOSING.match(keys[block_end(keys, named[0]) - 1]) or block_end(keys, named[0]) - 1 > run[-1]:
        return set()  # (the new definition whole, to its closing line: not a head before a marker for its body)
    end = block_end(doc_keys, head - 1)  # (0-based, exclusive: the 1-based last line)
    lines = set(range(before + 1, end + 1))  # (the blank lines above it too: the new code's own stand for them)
    return set() if lines & set(placed) or lines & taken else lines


_ENTRY = re.compile(r"^\s*(?P<key>[A-Za-z_$][\w$-]*):\s+\S")  # ``subtitle: Text(``, ``color: red;``
_NOT_KEYS = {"if", "elif", "else", "for", "while", "try", "except", "finally", "with", "def", "class", "case",
             "default", "return", "lambda", "async", "match", "http", "https"}


def _entry_key(key: str) -> str | None:
    m = _ENTRY.match(key)
    return m["key"] if m and m["key"] not in _NOT_KEYS else None


def _same_keys_rewritten(run: list[int], before: int, keys: list[str], doc_keys: list[str], placed: list[int],
                         taken: set[int]) -> set[int]:
    """The file's entries after a placed entry that new entries after it rewrite by their keys (``title:``
    placed, then ``subtitle:`` and ``trailing: Row(`` and its lines, where the file goes on with its own
    ``subtitle:`` and ``trailing: Text(``): each with its continuation lines, up to its closing line.  A named
    argument, a property, a style: a list of entries holds a key once.  None unless the placed line is an entry
    too and every entry the run rewrites follows it in the same list."""
    depth = indent_of(doc_keys[before - 1])
    if _entry_key(doc_keys[before - 1]) is None:
        return set()
    entries: dict[str, tuple[int, int]] = {}  # the file's entries after the placed one: key -> (first, last)
    j = before + 1
    while j <= len(doc_keys):
        if doc_keys[j - 1].strip() and indent_of(doc_keys[j - 1]) < depth or j in placed or j in taken:
            break
        if doc_keys[j - 1].strip() and indent_of(doc_keys[j - 1]) == depth:
            name = _entry_key(doc_keys[j - 1])
            if name is None:
                break
            last = j
            while last < len(doc_keys) and (not doc_keys[last].strip() or indent_of(doc_keys[last]) > depth):
                last += 1
            if last < len(doc_keys) and indent_of(doc_keys[last]) == depth and CLOSING.match(doc_keys[last]) and \
                    doc_keys[last].strip()[0] in ")]}":
                last += 1  # (the ``),`` that closes it)
            entries.setdefault(name, (j, last))
            j = last + 1
            continue
        j += 1
    ours = [_entry_key(keys[k]) for k in run if indent_of(keys[k]) == indent_of(keys[run[0]]) and keys[k].strip()
            and not CLOSING.match(keys[k])]
    if indent_of(keys[run[0]]) != indent_of(doc_keys[before - 1]) or None in ours \
            or len(set(ours)) != len(ours):
        return set()
    spans = [entries[name] for name in ours if name in entries]
    return {n for first, last in spans for n in range(first, last + 1)} if spans else set()


def _wraps(new: str, old: str) -> bool:
    """Whether a new line holds a file line whole, wrapped or given more (``{Inventory.Cache, opts},`` for
    ``Inventory.Cache,``), at its indentation: that line rewritten."""
    core = old.strip().rstrip(",;")
    return len(core) >= 8 and indent_of(new) == indent_of(old) and new.strip() != old.strip() and \
        re.search(rf"(?<![\w.]){re.escape(core)}(?![\w(])", new) is not None


def alike_line_for_line(pairs: list[tuple[int, int]], keys: list[str], doc_keys: list[str]) -> bool:
    """Whether each new line (update index) is its file line (1-based) rewritten or repeated, none of them a
    definition of another name."""
    return all(looks_alike(keys[k], doc_keys[j - 1]) or keys[k].strip() == doc_keys[j - 1].strip()
               for k, j in pairs) and not any(defines_another(keys, k, doc_keys, j - 1) for k, j in pairs)


def _names_one(pairs: list[tuple[int, int]], keys: list[str], doc_keys: list[str]) -> bool:
    """Whether one of the pairs defines the same name in the update as in the file (a head rewritten)."""
    return any((name := definition_name(keys, k)) is not None and name == definition_name(doc_keys, j - 1)
               for k, j in pairs)


def _most_rewritten(run: list[int], fresh: set[int]) -> int:
    """How many of a run's last lines may rewrite file lines past those it inserts: up to its new definitions'
    (``fresh``) last line, or all but one."""
    last_fresh = max((n for n, i in enumerate(run) if i in fresh), default=None)
    return len(run) - 1 if last_fresh is None else len(run) - 1 - last_fresh


def _tail_rewritten(run: list[int], fresh: set[int], done: int, keys: list[str], doc_keys: list[str],
                    placed: list[int], taken: set[int]) -> set[int]:
    """The file lines that the last lines of new code ending the update (or before a marker) rewrite, past lines
    it inserts: an enum gains a constant and its ``TERMINAL = EnumSet.of(CANCELLED)`` below becomes
    ``...of(CANCELLED, REFUNDED)``, shown last with no line of context after it; a new route goes above
    ``show`` and ``show``'s attribute and signature change, shown before ``// ... existing code ...`` for its
    body.  The run's last lines, line for line alike the next non-blank file lines after ``done`` (the last
    line placed or rewritten): one line when it is closely alike and no other line of the run is; several when
    one of them defines the name its file line does."""
    olds, j = [], done + 1
    while len(olds) < _most_rewritten(run, fresh) and j <= len(doc_keys) and j not in placed and j not in taken:
        if doc_keys[j - 1].strip():
            olds.append(j)
        j += 1
    for size in range(len(olds), 0, -1):
        pairs = list(zip(run[-size:], olds[:size]))
        if not alike_line_for_line(pairs, keys, doc_keys):
            continue
        if size == 1:
            (k, j), = pairs
            if not looks_alike(keys[k], doc_keys[j - 1], REWRITE_ALONE) or \
                    any(looks_alike(keys[i], doc_keys[j - 1]) for i in run[:-1]):
                continue
        elif not _names_one(pairs, keys, doc_keys):
            continue
        return set(range(done + 1, olds[size - 1] + 1))  # (with the blank lines between: the update's stand for them)
    return set()


def with_continuations(replaced: frozenset[int], lines: list[int], doc_keys: list[str]) -> frozenset[int]:
    """File lines rewritten, with the lines that continue them (a line ending with a backslash goes on in the
    next: a Dockerfile ``RUN ... \\`` rewritten whole takes its ``&& npm cache clean`` with it), unless the
    update shows those."""
    out, placed = set(replaced), {n for n in lines if n > 0}
    for n in sorted(replaced):
        while n < len(doc_keys) and doc_keys[n - 1].rstrip().endswith("\\") and n + 1 not in placed:
            n += 1
            out.add(n)
    return frozenset(out)


def _rewritten_run(ks, js, keys: list[str], doc_keys: list[str], placed: list[int], taken: set[int]) -> set[int]:
    """File lines ``js`` (from a placed line outwards) that new lines ``ks`` rewrite, in order: each file line
    has a counterpart among the next few new lines, as a rewrite (``looks_alike``), as the same statement
    indented anew (wrapped in a ``try:``), or as a blank line; up to the last non-blank one."""
    ks, pairs, at = list(ks), [], 0
    for j in js:
        if j in placed or j in taken:
            break
        old = doc_keys[j - 1]
        near = [n for n in range(at, min(len(ks), at + REWRITE_LOOKAHEAD))
                if (same_place(keys[ks[n]], old) or only_reindented(keys[ks[n]], old)
                    or call_rewrapped(keys[ks[n]], old) or declares_same(keys[ks[n]], old))
                and not defines_another(keys, ks[n], doc_keys, j - 1)]
        if not near:
            split = _split_over(ks, at, old, keys, upward=len(js) > 1 and js[1] < js[0])
            if split is None:
                break
            pairs.append((ks[split], j))  # (``<time className=... dateTime=...>`` given a prop a line)
            at = split + 1
            continue
        found = max(near, key=lambda n: (likeness(keys[ks[n]], old), -n))  # the most alike, then the nearest
        pairs.append((ks[found], j))
        at = found + 1
    while pairs and not keys[pairs[-1][0]].strip():
        pairs.pop()
    paired = {k for k, _ in pairs}
    # a block's head alike a file line, its body not (``if c.MaxRetries < 0 {`` above another ``return``): new;
    # but a one-line statement given a body of lines is rewritten (``listTasks tf = forM_ (taskNames tf) ...``
    # becoming ``listTasks tf = forM_ (tfTasks tf) $ \t ->`` and its lines)
    pairs = [(k, j) for k, j in pairs if call_rewrapped(keys[k], doc_keys[j - 1]) or
             _one_line_given_a_body(keys[k], doc_keys, j - 1) or not any(
        i in ks and keys[i].strip() and i not in paired for i in range(k + 1, block_end(keys, k)))]
    if another_subject([keys[k] for k, _ in pairs], [doc_keys[j - 1] for _, j in pairs]):
        return set()  # (a guard for ``retries`` beside the file's for ``timeout``: added, not a rewrite)
    written = sum(1 for i in ks if keys[i].strip())
    # the run as a whole, where no line is alike alone, or where it pairs the same lines and blank ones after
    whole = _rewritten_lines(ks, js, keys, doc_keys, placed, taken)
    alone = {j for _, j in pairs}
    if whole and (not any(doc_keys[j - 1].strip() for j in alone) or
                  alone <= whole and not any(doc_keys[j - 1].strip() for j in whole - alone)):
        return whole
    if len(pairs) > 1 and pairs[1][1] < pairs[0][1] and _heads_of_same_name(keys, pairs[0][0], doc_keys,
                                                                             pairs[0][1] - 1):
        return {pairs[0][1]}  # (a head, then above it the lines of the definition before: not its rewrite)
    rewriting = sum(sum(1 for i in range(k, block_end(keys, k)) if keys[i].strip())  # (a body given to a line, a
                    if _one_line_given_a_body(keys[k], doc_keys, j - 1) or  # call's arguments given lines of their
                    call_rewrapped(keys[k], doc_keys[j - 1]) else 1  # own: those lines rewrite it)
                    for k, j in pairs if doc_keys[j - 1].strip())
    if written > rewriting + REWRITE_SLACK and \
            not (pairs and declares_same(keys[pairs[0][0]], doc_keys[pairs[0][1] - 1])):
        return set()  # mostly new code that happens to start like the file's: an insertion, not a rewrite (but
        # ``local debug, err = ...`` over ``local debug = ...``, then its check: the variable declared anew; and
        # above, a function's head given another default below a new function rewrites its old head alone)
    return {j for _, j in pairs}


def _one_line_given_a_body(new: str, doc_keys: list[str], j: int) -> bool:
    """Whether file line j (0-based) is a statement of one line, nothing below it deeper, that new line ``new``
    opens again as the head of lines: the same first two words at the same indentation."""
    old, words = doc_keys[j], TOKEN.findall(new)
    return not any(line.strip() for line in doc_keys[j + 1:block_end(doc_keys, j)]) and \
        indent_of(new) == indent_of(old) and len(words) > 2 and words[:2] == TOKEN.findall(old)[:2] and \
        words[1].isidentifier()


SPLIT_LINES = 8  # a file line rewritten over at most this many new lines (a JSX tag given a prop a line)


def _split_over(ks: list[int], at: int, old: str, keys: list[str], upward: bool) -> int | None:
    """The index in ``ks`` of the farthest of the next new lines that, with those before it, rewrite file line
    ``old`` over several lines (``split_over_lines``), in file order; None where none do."""
    for n in range(at + 1, min(len(ks), at + SPLIT_LINES)):
        group = [keys[ks[i]] for i in (range(n, max(at, 0) - 1, -1) if upward else range(max(at, 0), n + 1))]
        if any(not line.strip() for line in group) or split_over_lines(group[:1] * 2, old):
            return None  # (a first line that holds all the old one's words is its rewrite alone, or none)
        if split_over_lines(group, old):
            return n
    return None


def _heads_of_same_name(keys: list[str], k: int, doc_keys: list[str], j: int) -> bool:
    name = definition_name(keys, k)
    return name is not None and name == definition_name(doc_keys, j)


def _rewritten_lines(ks: list[int], js, keys: list[str], doc_keys: list[str], placed: list[int],
                     taken: set[int]) -> set[int]:
    """As many file lines as the new lines, line for line (blank where they are blank, at their indentation),
    that the new lines rewrite as a whole: text moved between lines (a comment moved up one line) leaves each
    line unlike its old self, not the run unlike its old run (compared as words in any order)."""
    ks, js = list(ks), list(js)[: len(ks)]
    while ks and not keys[ks[-1]].strip() and (len(js) < len(ks) or doc_keys[js[len(ks) - 1] - 1].strip()):
        ks.pop()  # the update's blank lines at the far end, where the file has none, are between blocks
    written = [k for k in ks if keys[k].strip()]
    js = js[: len(ks)]
    if not written or len(written) > LONE_LINES or len(js) < len(ks) or any(j in placed or j in taken for j in js):
        return set()
    if any(bool(keys[k].strip()) != bool(doc_keys[j - 1].strip()) or keys[k].strip() and
           (indent_of(keys[k]) != indent_of(doc_keys[j - 1]) or other_entries(keys[k], doc_keys[j - 1]))
           for k, j in zip(ks, js)):
        return set()
    a = Counter(TOKEN.findall(" ".join(keys[k] for k in ks)))
    b = Counter(TOKEN.findall(" ".join(doc_keys[j - 1] for j in js)))
    alike = 2 * sum((a & b).values()) / max(1, sum(a.values()) + sum(b.values()))
    return set(js) if alike >= REWRITE_ALONE else set()


def extent_without(extent: tuple[int, int], replaced: frozenset[int]) -> tuple[int, int]:
    """A marker's kept lines less those rewritten at either edge."""
    first, last = extent
    while first <= last and first in replaced:
        first += 1
    while last >= first and last in replaced:
        last -= 1
    return first, last
