"""Configuration files placed by their keys: YAML and JSON snippets that show a path of keys, not the file.

Chat models change a YAML file (Spring's ``application.yml``, a Kubernetes manifest, a compose file) by showing
the keys down to what they change and nothing beside them::

    spring:
      jackson:
        default-property-inclusion: non_null

The keys shown are a path, not the whole mapping: ``spring``'s other keys stay.  (Placed as lines, the file's
keys between two shown lines would be read as removed.)  Here each shown key is found by its path: a value
changed is rewritten in place, a new key goes before the next key the snippet shows beside it, else after the
last one, else at the end of its parent's keys, at the file's indentation.  Only snippets of plain mappings
are read so (no list items, no markers, no flow or block scalars); anything else is left to the other readings.

A TOML or INI snippet (``Cargo.toml``, ``pyproject.toml``, ``setup.cfg``) is read the same way by its tables:
``[dependencies]`` then ``tokio = {...}`` rewrites the ``tokio`` of that table (not of ``[dev-dependencies]``),
a new key goes at the end of its table's keys, a new table at the file's end; keys the snippet does not show
stay.

A JSON object showing some of the file's top-level keys (``{ "dependencies": {...} }`` for a ``package.json``)
is a part of it the same way: markers go inside its braces, and the commas between members are set right after.
"""

from __future__ import annotations

import json
import re

from .markers import is_marker
from .ops import split_lines

__all__ = ["append_yaml_items", "json_commas", "json_fragment", "json_members_added", "merge_table_keys",
           "merge_yaml_keys"]

WHOLE_SHARE = 0.6  # a snippet showing this share of the file's keys may be the whole file: keys it leaves out go

_KEY_LINE = re.compile(r"^(?P<indent> *)(?P<key>[\w.\-/$]+|\"[^\"]+\"|'[^']+')\s*:(?P<value>(?:\s.*)?)$")


def merge_yaml_keys(doc_lines: list[str], update_lines: list[str]) -> list[str] | None:
    """The file's lines with the snippet's keys placed by their paths; None where the snippet is not only keys
    (or a key of it has no place: a parent the file does not have)."""
    shown = _keys(update_lines, strict=True)
    ours = _keys(doc_lines, strict=False)
    if shown is None or ours is None or not shown:
        return None
    if any(line.strip() and not line.lstrip().startswith("#") and k not in {row for row, _ in shown}
           for k, line in enumerate(update_lines)):
        return None
    paths, in_file = {row: path for row, path in shown}, {path for _, path in ours}
    for k, line in enumerate(update_lines):  # a marker above new keys: they go after the keys it stands for
        following = next((r for r in range(k + 1, len(update_lines)) if update_lines[r].strip()), None)
        if is_marker(line) and (following is None or following not in paths or paths[following] in in_file):
            return None  # (above keys the file has, or below the last: where it stands, lines decide)
    if len(shown) >= WHOLE_SHARE * len(ours):
        return None  # most of the file: another reading decides
    documents = _documents(doc_lines)
    if len(documents) > 1:  # (a manifest of several: the snippet's keys are the one where their values are)
        def said(first: int, end: int) -> int:
            return sum(1 for r, p in shown for row, path in ours
                       if path == p and first <= row < end and _value(doc_lines[row]) == _value(update_lines[r]))
        scores = [said(first, end) for first, end in documents]
        if scores.count(max(scores)) > 1 or any(len(path) == 1 and not any(path == p for _, p in ours)
                                                for _, path in shown):
            return None  # (no one document, or a new top-level key: which document's is unknown)
        first, end = documents[scores.index(max(scores))]
        ours = [(row, path) for row, path in ours if first <= row < end]
    at = {path: row for row, path in ours}
    if not any(path in at for _, path in shown):
        return None  # nothing of it is in the file: another reading decides
    out = list(doc_lines)
    inserted: dict[int, list[str]] = {}  # file row -> new lines before it (len(out): at the end)
    replaced: dict[int, str] = {}
    newline = "\r\n" if doc_lines and doc_lines[0].endswith("\r\n") else "\n"
    for index, (row, path) in enumerate(shown):
        line = update_lines[row]
        if path in at:
            mine = doc_lines[at[path]]
            if _value(mine) != _value(line):
                replaced[at[path]] = _indent(mine) + line.strip() + (mine[len(mine.rstrip("\r\n")):] or newline)
            continue
        parent = path[:-1]
        if parent and parent not in at and not any(p == parent for _, p in shown[:index]):
            return None
        if parent and parent not in at:
            continue  # a new key's own keys go with it (below)
        later = next((p for _, p in shown[index + 1:] if p[:-1] == parent and p in at), None)
        earlier = next((r for r, p in reversed(shown[:index]) if p[:-1] == parent and p in at), None)
        if earlier is not None and any(is_marker(update_lines[r]) and len(_indent(update_lines[r])) <= len(_indent(line))
                                       for r in range(earlier + 1, row)):
            earlier = None  # (below a marker for the keys after the one shown: after all of them, "# ... management
            # and logging unchanged ..." then ``app:``)
        else:
            earlier = paths[earlier] if earlier is not None else None
        where = _start(at[later], doc_lines) if later is not None else \
            _block_end(doc_lines, at[earlier]) if earlier is not None else _block_end(doc_lines, at.get(parent))
        depth = _child_indent(ours, parent, at, doc_lines) - len(_indent(line))
        above = row  # the comment lines right above a new key are its own (``# Set to 0 to disable caching.``)
        while above > 0 and update_lines[above - 1].lstrip().startswith("#") and not is_marker(update_lines[above - 1]):
            above -= 1
        own = {row} | {r for r, p in shown[index + 1:] if p[:len(path)] == path}
        last_row = max(own)
        group = update_lines[above:row] + [update_lines[r] for r in range(row, last_row + 1) if r in own or
                                           update_lines[r].lstrip().startswith("#") and not is_marker(update_lines[r])]
        if where == len(doc_lines) and where and doc_lines[-1].strip() and above and not update_lines[above - 1].strip():
            inserted.setdefault(where, []).append(newline)  # (set apart at the file's end as the snippet sets it)
        inserted.setdefault(where, []).extend(  # (with the comments between its keys)
            (" " * max(0, len(_indent(g)) + depth)) + g.strip() + newline for g in group)
        if later is not None and 0 < where and not doc_lines[where - 1].strip() and \
                last_row + 1 < len(update_lines) and not update_lines[last_row + 1].strip():
            inserted[where].append(newline)  # (set off from the key after it as the file and the snippet do)
    if not inserted and not replaced:
        return doc_lines
    out = []
    for row, line in enumerate(doc_lines):
        out += inserted.get(row, [])
        out.append(replaced.get(row, line))
    tail = inserted.get(len(doc_lines), [])
    if tail and out and not out[-1].endswith(("\n", "\r")):
        out[-1] += newline
    return out + tail


_TABLE = re.compile(r"^\s*\[\[?\s*(?P<name>[^\[\]]+?)\s*\]\]?\s*(?:[#;].*)?$")  # ``[dependencies]``, ``[[bin]]``
_ASSIGNMENT = re.compile(r"^\s*(?P<key>[\w.\-]+|\"[^\"]+\"|'[^']+')\s*=")


def append_yaml_items(doc_lines: list[str], update_lines: list[str]) -> list[str] | None:
    """A key the file has once (``repos:``), a marker for its list's items, then new items (``- repo: local`` and
    what is under it): the file's lines with the items after the list's last, set off as the snippet sets them off
    from the marker; None for any other snippet."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    if len(shown) < 3 or not is_marker(update_lines[shown[1]]):
        return None
    head, first = update_lines[shown[0]], shown[2]
    key = _KEY_LINE.match(head.rstrip("\r\n"))
    rows = [r for r, line in enumerate(doc_lines) if line.rstrip() == head.rstrip()]
    item = _indent(update_lines[first])
    if key is None or _value(head) or len(rows) != 1 or not update_lines[first].lstrip().startswith("- ") or \
            len(item) <= len(_indent(head)) or \
            any(is_marker(update_lines[k]) or len(_indent(update_lines[k])) < len(item) for k in shown[2:]):
        return None
    end = _block_end(doc_lines, rows[0])
    if not any(doc_lines[r].startswith(item + "- ") for r in range(rows[0] + 1, end)):
        return None  # (the file's list is not at that indentation: another reading decides)
    gap = update_lines[shown[1] + 1: first]
    items = update_lines[first: shown[-1] + 1]
    if not doc_lines[end - 1].endswith(("\n", "\r")):
        return None
    return doc_lines[:end] + gap + items + doc_lines[end:]


def merge_table_keys(doc_lines: list[str], update_lines: list[str], flat: bool = False) -> list[str] | None:
    """The file's lines with a TOML or INI snippet's keys placed in the tables the snippet shows them under; None
    where the snippet is not tables and one-line keys (with markers, comments and blank lines), where a key
    comes before any table, where a table it names is the file's twice (``[[bin]]``), or where it shows most of
    the file's keys without a marker (the whole file: another reading decides).  ``flat``: a file of keys with no
    tables (a ``.env``), of which the snippet shows only keys it has, with new values."""
    tables, table, ours = ({"": -1} if flat else {}), "", {}  # table -> header row; (table, key) -> (first, last row)
    row = 0
    while row < len(doc_lines):
        line = doc_lines[row]
        m = _TABLE.match(line)
        if m and not _ASSIGNMENT.match(line):
            table = m["name"]
            if table in tables:
                tables[table] = None  # (named twice: no one place)
            else:
                tables[table] = row
        elif (a := _ASSIGNMENT.match(line)) is not None:
            last = row
            while _open_brackets("".join(doc_lines[row:last + 1])) > 0 and last + 1 < len(doc_lines):
                last += 1  # (a value over several lines: an array of features)
            ours[(table, a["key"])] = (row, last)
            row = last
        row += 1
    shown, table, said, order = [], ("" if flat else None), 0, []  # order: the tables the snippet shows, in order
    for row, line in enumerate(update_lines):
        if not line.strip() or line.lstrip().startswith(("#", ";")) or is_marker(line):
            continue
        m = _TABLE.match(line)
        if m and not _ASSIGNMENT.match(line):
            table = m["name"]
            order.append(table)
            continue
        a = _ASSIGNMENT.match(line)
        if a is None or table is None or _open_brackets(line) != 0:
            return None
        shown.append((row, table, a["key"]))
        said += (table, a["key"]) in ours
    if flat and any((table, key) not in ours for _, table, key in shown):
        return None  # (new keys of a ``.env``: where they go, its lines say)
    marked = any(is_marker(line) for line in update_lines)
    if not shown or any(tables.get(t, 0) is None for _, t, _ in shown) or \
            not said and not (marked and all(t in tables for _, t, _ in shown)) or \
            not marked and said >= WHOLE_SHARE * len(ours):
        return None  # (no key of the file shown: new keys under markers in tables the file has are placed too)
    newline = "\r\n" if doc_lines and doc_lines[0].endswith("\r\n") else "\n"
    replaced: dict[int, tuple[int, str]] = {}  # first row -> (last row, the new line)
    inserted: dict[int, list[str]] = {}  # row -> new lines before it (len(doc_lines): at the end)
    deleted: set[int] = set()
    known = [(row, table, key) for row, table, key in shown if (table, key) in ours]
    for (row, table, key), (later_row, later_table, later_key) in zip(known, known[1:]):
        if table == later_table and \
                not any(is_marker(line) for line in update_lines[row:later_row]):
            shown_keys = {(t, k) for _, t, k in shown}  # (two keys shown one after the other: the file's keys
            for (t, k), (first, last) in ours.items():  # between them are gone, as lines between shown ones are)
                if t == table and ours[(table, key)][1] < first and last < ours[(table, later_key)][0] and \
                        (t, k) not in shown_keys:
                    deleted.update(range(first, last + 1))
    for index, (row, table, key) in enumerate(shown):
        line = update_lines[row].strip() + newline
        above = row  # the comment lines right above a new key are its own
        while above > 0 and update_lines[above - 1].lstrip().startswith(("#", ";")) and \
                not is_marker(update_lines[above - 1]):
            above -= 1
        if (table, key) in ours:
            first, last = ours[(table, key)]
            if "".join(doc_lines[first:last + 1]).strip() != line.strip():
                replaced[first] = (last, _indent(doc_lines[first]) + line)
            continue
        if table not in tables:  # a new table: before the next table the snippet shows that the file has
            following = next((t for t in order[order.index(table) + 1:] if tables.get(t) is not None), None)
            where = tables[following] if following is not None else len(doc_lines)
            header = next(r for r in range(row, -1, -1) if _TABLE.match(update_lines[r]))
            heading = [] if any(t == table for _, t, _ in shown[:index]) else \
                [update_lines[header].strip() + newline]
            group = inserted.setdefault(where, [])
            if following is not None and group and not group[-1].strip():
                group.pop()
            if following is None and heading:
                group.append(newline)
            group.extend(heading + [c.strip() + newline for c in update_lines[above:row]] + [line])
            if following is not None:
                group.append(newline)
            continue
        earlier = next(((t, k) for _, t, k in reversed(shown[:index]) if t == table and (t, k) in ours), None)
        if earlier is not None:
            where = ours[earlier][1] + 1
        else:  # the end of the table's keys
            rows = [last for (t, _), (_, last) in ours.items() if t == table]
            where = (max(rows) if rows else tables[table]) + 1
        inserted.setdefault(where, []).extend([c.strip() + newline for c in update_lines[above:row]] + [line])
    out, row = [], 0
    while row < len(doc_lines):
        out += inserted.get(row, [])
        if row in replaced:
            last, line = replaced[row]
            out.append(line)
            row = last + 1
            continue
        if row not in deleted:
            out.append(doc_lines[row])
        row += 1
    tail = inserted.get(len(doc_lines), [])
    if tail and out and not out[-1].endswith(("\n", "\r")):
        out[-1] += newline
    return out + tail


def _open_brackets(text: str) -> int:
    """Brackets a TOML value leaves open (strings aside): more lines of it follow."""
    text = re.sub(r'"(?:\\.|[^"\\])*"|\'[^\']*\'|#.*', "", text)
    return text.count("[") + text.count("{") - text.count("]") - text.count("}")


def _documents(lines: list[str]) -> list[tuple[int, int]]:
    """The row ranges of a YAML stream's documents (split by ``---`` lines)."""
    cuts = [row for row, line in enumerate(lines) if line.rstrip() == "---"]
    edges = [0] + [row + 1 for row in cuts] + [len(lines)]
    return [(a, b) for a, b in zip(edges, edges[1:]) if any(line.strip() for line in lines[a:b])]


def _keys(lines: list[str], strict: bool) -> list[tuple[int, tuple[str, ...]]] | None:
    """(row, path) of each key line; where a line is a list item, a flow collection or a block scalar: None
    (``strict``), else the line is passed over, the keys below it counted by their indentation."""
    out, stack = [], []  # stack: (indent, key)
    for row, line in enumerate(lines):
        text = line.rstrip("\r\n")
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        m = _KEY_LINE.match(text)
        if m is None or text.lstrip().startswith("- ") or m["value"].strip()[:1] in ("|", ">", "[", "{", "&", "*"):
            if strict:
                return None
            depth = len(text) - len(text.lstrip())
            while stack and stack[-1][0] >= depth:
                stack.pop()
            stack.append((depth, "\0"))  # (a list item: what is under it has no path of ours)
            continue
        depth = len(m["indent"])
        while stack and stack[-1][0] >= depth:
            stack.pop()
        stack.append((depth, m["key"].strip("\"'")))
        out.append((row, tuple(key for _, key in stack)))
    return out


def _value(line: str) -> str:
    m = _KEY_LINE.match(line.rstrip("\r\n"))
    return re.sub(r"\s+#.*$", "", m["value"]).strip() if m else line.strip()


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" "))]


def _start(row: int, lines: list[str]) -> int:
    """The row a key starts at, with the comment lines right above it."""
    while row > 0 and lines[row - 1].lstrip().startswith("#"):
        row -= 1
    return row


def _block_end(lines: list[str], row: int | None) -> int:
    """The row after the last line of the block under the key at ``row`` (the file's end for the top level),
    blank and comment lines at its end left after it."""
    depth = len(_indent(lines[row])) if row is not None else -1
    end = (row if row is not None else -1) + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].lstrip().startswith("#")
                                               or len(_indent(lines[end])) > depth):
        end += 1
    while end > (row if row is not None else -1) + 1 and (not lines[end - 1].strip()
                                                           or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end


def _child_indent(ours, parent: tuple[str, ...], at: dict, lines: list[str]) -> int:
    """The indentation of ``parent``'s keys in the file (two more than its own where it has none)."""
    for row, path in ours:
        if path[:-1] == parent and "\0" not in path:
            return len(_indent(lines[row]))
    return len(_indent(lines[at[parent]])) + 2 if parent else 0


_JSON_KEY = re.compile(r'^(?P<indent>\s*)"(?P<key>[^"]+)"\s*:')


def json_fragment(doc_lines: list[str], update_lines: list[str]) -> list[str]:
    """A JSON object shown with only some of the file's top-level keys (``{ "dependencies": {...} }`` for a
    ``package.json``) stands for a part of it: markers go inside its braces, so the keys it leaves out stay."""
    def top(lines: list[str]) -> tuple[list[str], int] | None:
        shown = [k for k, line in enumerate(lines) if line.strip()]
        if not shown or lines[shown[0]].strip() != "{" or lines[shown[-1]].strip() != "}":
            return None
        keys = [m for line in lines if (m := _JSON_KEY.match(line))]
        if not keys:
            return None
        depth = min(len(m["indent"]) for m in keys)
        return [m["key"] for m in keys if len(m["indent"]) == depth], depth

    ours, theirs = top(doc_lines), top(update_lines)
    if ours is not None and theirs is None and not any(is_marker(line) for line in update_lines):
        return _member_fragment(doc_lines, update_lines, ours[1])
    shared = [key for key in theirs[0] if key in ours[0]] if ours is not None and theirs is not None else []
    if not shared or not set(theirs[0]) < set(ours[0]) and len(shared) >= WHOLE_SHARE * len(ours[0]) or \
            any(is_marker(line) and len(line) - len(line.lstrip()) <= theirs[1] for line in update_lines):
        return update_lines  # (markers inside the members it shows are theirs: ``// ... existing options ...``;
        # new keys beside most of the file's: the whole file, rewritten)
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    newline = "\r\n" if update_lines[0].endswith("\r\n") else "\n"
    marker = " " * theirs[1] + "// ..." + newline
    first, last = shown[0], shown[-1]
    lines = [line if line.endswith(("\n", "\r")) else line + newline for line in update_lines]
    end = max(k for k in shown if k < last)  # its last member ends there: with a comma where the file's goes on
    if ours[0].index(shared[-1]) < len(ours[0]) - 1 and not lines[end].rstrip().endswith((",", "{", "[")):
        lines[end] = lines[end].rstrip("\r\n") + "," + newline
    return lines[:first + 1] + [marker] + lines[first + 1:last] + [marker] + lines[last:]


def json_members_added(doc_lines: list[str], update_lines: list[str], after: str | None) -> list[str] | None:
    """New top-level members shown without the object's braces (``"LanguageSwitcher": { ... },`` for an
    ``en.json``), none of them a key the file has: after the member ``after`` names, else at the end of the object,
    indented as the file's members (the caller sets the commas: ``json_commas``).  None where the file is not a
    JSON object or the update is not such members."""
    try:
        have = json.loads("".join(doc_lines))
        shown = "".join(update_lines).strip().rstrip(",")
        new = json.loads("{" + shown + "}") if shown and not shown.startswith("{") else None
    except ValueError:
        return None
    if not isinstance(have, dict) or not isinstance(new, dict) or not new or set(new) & set(have):
        return None
    keys = [(k, m) for k, line in enumerate(doc_lines) if (m := _JSON_KEY.match(line))]
    if not keys:
        return None
    depth = min(len(m["indent"]) for _, m in keys)
    rows = [k for k, m in keys if len(m["indent"]) == depth]
    named = [k for k in rows if _JSON_KEY.match(doc_lines[k])["key"].strip("\"'") == after]
    close = max(k for k, line in enumerate(doc_lines) if line.strip() == "}")
    at = close
    if len(named) == 1:
        at, opened = named[0], 0
        while True:  # to the line that closes what its key opens
            opened += _open_brackets(doc_lines[at])
            if opened <= 0 or at + 1 >= close:
                break
            at += 1
        at += 1
    lines = [line for line in update_lines if line.strip()]
    first = len(lines[0]) - len(lines[0].lstrip(" "))
    if any(len(line) - len(line.lstrip(" ")) < first for line in lines) or \
            first != depth and not all(isinstance(value, (dict, list)) for value in new.values()):
        return None  # (``"settings": "Settings",`` at the left edge may be meant for a namespace of the file)
    newline = "\r\n" if doc_lines[0].endswith("\r\n") else "\n"
    moved = [" " * depth + line[first:].rstrip("\r\n") + newline for line in lines]
    return doc_lines[:at] + moved + doc_lines[at:]


def _member_fragment(doc_lines: list[str], update_lines: list[str], depth: int) -> list[str]:
    """One top-level member shown without the object's braces (``"scripts": { ... }`` for a ``package.json``),
    at the left edge: indented as the file's members and set between markers; the update itself otherwise."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    head = _JSON_KEY.match(update_lines[shown[0]]) if shown else None
    if head is None or not update_lines[shown[0]].rstrip().endswith(("{", "[")) or \
            update_lines[shown[-1]].strip().rstrip(",") not in ("}", "]") or \
            sum(1 for line in doc_lines if (m := _JSON_KEY.match(line)) and m["key"] == head["key"] and
                len(m["indent"]) == depth) != 1:
        return update_lines
    shift = depth - len(head["indent"])
    if shift <= 0 or any(line.strip() and len(line) - len(line.lstrip(" ")) < len(head["indent"])
                         for line in update_lines):
        return update_lines
    newline = "\r\n" if update_lines[0].endswith("\r\n") else "\n"
    marker = " " * depth + "// ..." + newline
    lines = [(" " * shift + line if line.strip() else line) for line in update_lines]
    lines = [line if line.endswith(("\n", "\r")) else line + newline for line in lines]
    return [marker] + lines[shown[0]: shown[-1] + 1] + [marker]


def json_commas(document: str, merged: str) -> str | None:
    """A JSON file's merge with the commas between members set right, where the file was valid JSON and the
    merge is not only for its commas (a fragment's last member, written without its comma, over the file's
    member that has more after it); None where nothing is to be set or setting it does not make valid JSON."""
    try:
        json.loads(document)
        json.loads(merged)
        return None
    except ValueError:
        pass
    lines = split_lines(merged)
    out = list(lines)
    for k, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if not body.strip() or body.rstrip().endswith(("{", "[")):
            continue
        following = next((other.strip() for other in lines[k + 1:] if other.strip()), "")
        bare = body.rstrip().rstrip(",")
        out[k] = (bare if not following or following[0] in "}]" else bare + ",") + line[len(body):]
    fixed = "".join(out)
    try:
        json.loads(fixed)
    except ValueError:
        return None
    return fixed
