"""Where new members go when the update shows nothing around them: a method alone ("Add this method:"), a
route alone ("Add a DELETE route:").

Such an update, with no marker and no line of the file, has no place by its text.  Refusing it refuses what the
user asked for; a reader puts a new method at the end of the class, where the file has one class, and a new
call on the object the file's calls are made on (``router.delete(...)`` beside ``router.get``) after the last
of them.  (New top-level definitions go at the module's end, before what runs it: ``blocks``.)  Anything else (a
statement, a method where the file has several classes) still has no place.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .blocks import _CLOSING as _CLOSER
from .blocks import SELF_FIRST, _indent, _walk
from .markers import is_marker
from .syntax import LANGUAGES, Unit, parse_units

__all__ = ["new_members_place"]

_KINDS = ("function", "type")  # what an update of new definitions holds, as ``Unit.key`` names it


def _names(units: list[Unit]) -> set[str]:
    """The names of the definitions among ``units``, nested ones included."""
    out = set()
    for unit in units:
        if unit.key is not None and unit.key[0] in _KINDS:
            out.add(unit.key[1])
        out |= _names(unit.body or [])
    return out


def _definitions(units: list[Unit]) -> list[Unit]:
    return [u for u in units if u.key is not None and u.key[0] in _KINDS]


def _gap(lines: list[str], units: list[Unit], default: int) -> int:
    """The blank lines the file sets between the last two of ``units`` (its habit), else ``default``."""
    if len(units) < 2:
        return default
    a, b = units[-2], units[-1]
    return sum(1 for line in lines[a.end + 1: b.start] if not line.strip())


def _members(update_lines: list[str], grammar: str) -> list[Unit] | None:
    """The update's units as it parses, or, where it parses only inside a class (``clear(): void {`` alone is an
    error in TypeScript), as the members of the grammar's stand-in class (with their lines the update's own); None
    where it does not parse either way."""
    parsed = parse_units("".join(update_lines), grammar, update_lines)
    if parsed is not None and not parsed[1] and not any(u.kind == "global_statement" for u in parsed[0]):
        return parsed[0]  # (C# reads methods alone as top-level statements: they are read in the class below)
    wrapper = LANGUAGES[grammar].wrapper if grammar in LANGUAGES else None
    if wrapper is None:
        return None
    wrapped = [wrapper[0], *update_lines, wrapper[1]]
    parsed = parse_units("".join(wrapped), grammar, wrapped)
    if parsed is None or parsed[1] or len(parsed[0]) != 1 or not parsed[0][0].body:
        return None
    return [replace(u, start=u.start - 1, end=u.end - 1, inner=None if u.inner is None else u.inner - 1)
            for u in parsed[0][0].body]  # (the wrapper's first line out)


def _receiver(unit: Unit) -> str | None:
    """What a top-level call is made on (``router`` for ``router.delete("/items/:id", …)``), or None."""
    if unit.key is None or unit.key[0] != "call":
        return None
    head = unit.key[1].split()[0]
    return head.rsplit(".", 1)[0] if "." in head else None


def _trimmed(update_lines: list[str], newline: str) -> list[str]:
    """The update without blank lines around it, each line ended."""
    while update_lines and not update_lines[-1].strip():
        update_lines = update_lines[:-1]
    while update_lines and not update_lines[0].strip():
        update_lines = update_lines[1:]
    return [line if line.endswith(("\n", "\r")) else line + newline for line in update_lines]


def _after_sibling_calls(doc_lines: list[str], update_lines: list[str], units: list[Unit], file_units: list[Unit],
                         newline: str) -> tuple[int, list[str]] | None:
    """New calls on one object (a route ``router.delete(...)`` for a file of ``router.get``/``router.post``): after
    the file's last call on it, set apart as those are."""
    receivers = {_receiver(u) for u in units}
    siblings = [u for u in file_units if _receiver(u) in receivers]
    if len(receivers) != 1 or not siblings or {u.key for u in units} & {u.key for u in file_units}:
        return None
    return siblings[-1].end + 1, [newline] * _gap(doc_lines, siblings, 1) + _trimmed(update_lines, newline)


_BLOCK_HEAD = re.compile(r"^(?P<kind>[A-Za-z_][\w-]*)\b[^{]*\{\s*$")  # ``output "log_bucket" {``, ``server {``


def _after_sibling_blocks(doc_lines: list[str], update_lines: list[str], newline: str) -> tuple[int, list[str]] | None:
    """New top-level blocks of a kind the file has, in a file without a grammar (Terraform's ``output "x" {``
    beside the file's outputs, an nginx ``server {``): after the file's last block of that kind."""
    shown = [line.rstrip("\r\n") for line in update_lines if line.strip()]
    heads = [_BLOCK_HEAD.match(line) for line in shown if not line[:1].isspace() and line.strip() != "}"]
    if not heads or not all(heads) or len({m["kind"] for m in heads}) != 1 or shown[-1] != "}":
        return None
    kind = heads[0]["kind"]
    opens = [j for j, line in enumerate(doc_lines) if (m := _BLOCK_HEAD.match(line.rstrip("\r\n"))) and m["kind"] == kind]
    if not opens:
        return None
    end = next((j for j in range(opens[-1] + 1, len(doc_lines)) if doc_lines[j].rstrip("\r\n") == "}"), None)
    if end is None:
        return None
    return end + 1, [newline] + _trimmed(update_lines, newline)


_FIRST_WORD = re.compile(r"^\s*([\w.$@]+)")  # what a member starts with: ``test``, ``def``, ``@Test``, ``func``


def _inside_the_one_block(doc_lines: list[str], update_lines: list[str], newline: str,
                          into: str | None = None) -> tuple[int, list[str]] | None:
    """New members, indented, with nothing around them, in a file no grammar places them in (a Swift method, an
    Elixir function, a ``test(...)`` for a ``describe``): before the closing line of the file's one top-level
    block whose members at that depth start as they do, or of the one of them whose head holds ``into`` (the title
    an answer names: "inside the existing ``describe("POST /users", ...)`` block")."""
    shown = [line.rstrip("\r\n") for line in update_lines if line.strip()]
    depth = _indent(shown[0]) if shown else ""
    word = _FIRST_WORD.match(shown[0]) if shown else None
    ours = {line.strip() for line in doc_lines}
    if not depth or word is None or any(not line.startswith(depth) for line in shown) or \
            _indent(shown[-1]) != depth or not _CLOSER.match(shown[-1]) or \
            any(line.strip() in ours for line in shown if _indent(line) == depth and not _CLOSER.match(line)):
        return None  # (a member head the file has: its rewrite, not a new one)
    titled = re.compile(r"[\"'`]%s[\"'`]" % re.escape(into)) if into else None
    titled_ends = [end for j, line in enumerate(doc_lines) if titled and len(_indent(line)) < len(depth) and
                   titled.search(line) and (end := _closed_at(doc_lines, j)) is not None]
    if len(titled_ends) == 1:  # (a block nested in another, its title named: "at the end of the `#call` describe")
        at = titled_ends[0]
        return at, ([newline] if doc_lines[at - 1].strip() else []) + _trimmed(update_lines, newline)
    places, declared = [], []
    for j, line in enumerate(doc_lines):
        if not line.strip() or _indent(line) or _CLOSER.match(line):
            continue
        end = _closed_at(doc_lines, j)
        if end is None:
            continue
        if into and re.search(rf"\b(?:class|struct|enum|interface|protocol|trait|object|record|module)\s+"
                              rf"{re.escape(into)}\b", line):
            declared.append((j, end))  # (the type the answer names, not an ``extension`` of it: "to the `APIError`
            # enum")
        if any(_indent(doc_lines[k]) == depth and (m := _FIRST_WORD.match(doc_lines[k])) and m[1] == word[1]
               for k in range(j + 1, end)):
            places.append((j, end))
    titled = [(j, end) for j, end in places if into and re.search(r"[\"'`]%s[\"'`]" % re.escape(into), doc_lines[j])]
    places = [end for _, end in (titled or (declared if len(declared) == 1 else places))]
    if len(places) != 1:
        return None
    at = places[0]
    above = max(k for k in range(at) if doc_lines[k].strip())
    while _CLOSER.match(doc_lines[above]) and len(_indent(doc_lines[above])) < len(depth):
        at = above  # (a class's ``end`` inside its module's: the members go before the class's)
        above = max(k for k in range(at) if doc_lines[k].strip())
    gap = [newline] if doc_lines[at - 1].strip() else []
    return at, gap + _trimmed(update_lines, newline)


def _closed_at(doc_lines: list[str], j: int) -> int | None:
    """The index of the line closing the block line ``j`` opens (its first line at ``j``'s depth or less, a closing
    line at ``j``'s depth), or None."""
    depth = len(_indent(doc_lines[j]))
    end = next((k for k in range(j + 1, len(doc_lines)) if doc_lines[k].strip() and
                len(_indent(doc_lines[k])) <= depth), None)
    return end if end is not None and _CLOSER.match(doc_lines[end]) and len(_indent(doc_lines[end])) == depth else None


def new_members_place(doc_lines: list[str], update_lines: list[str], grammar: str | None, newline: str,
                      into: str | None = None) -> tuple[int, list[str]] | None:
    """(the file line index the update goes before, the lines to insert there, set apart and indented as the
    file's), or None when the update is not new members alone or has no one place.  ``into``: the class the
    answer names for them ("add this method to the `Cart` class"), where the file has several."""
    if grammar in ("markdown", "bash") or any(is_marker(line) for line in update_lines):
        return None  # (between markers, where they stand for the file's code, the new code's place is unknown)
    if grammar is None:
        return _after_sibling_blocks(doc_lines, update_lines, newline) or \
            _inside_the_one_block(doc_lines, update_lines, newline, into)
    parsed, file_parsed = _members(update_lines, grammar), parse_units("".join(doc_lines), grammar, doc_lines)
    if parsed is None or file_parsed is None or file_parsed[1]:
        return _inside_the_one_block(doc_lines, update_lines, newline, into)
    units = [u for u in parsed if "comment" not in u.kind]
    file_units = file_parsed[0]
    if units and all(_receiver(u) is not None for u in units):
        return _after_sibling_calls(doc_lines, update_lines, units, file_units, newline)
    if not units or any(u.key is None or u.key[0] not in _KINDS for u in units):
        return _inside_the_one_block(doc_lines, update_lines, newline, into) if units and not \
            any(u.key is not None and u.key[0] in _KINDS for u in units) else None
    if _names(units) & _names(file_units):
        return None
    shown = [line for line in update_lines if line.strip()]
    first = update_lines[units[0].inner if units[0].inner is not None else units[0].start]
    method = bool(_indent(shown[0])) or (grammar == "python" and SELF_FIRST.match(first) is not None) or \
        (grammar not in ("go", "rust", "c") and any("method" in u.kind for u in units))
    classes = [u for u in file_units if u.key is not None and u.key[0] == "type" and u.body]
    named = [u for u in _walk(file_units) if into and u.key == ("type", into) and u.body]
    classes = named if len(named) == 1 else classes
    if not method or len(classes) != 1:
        return None  # (no name of them the file's, however long: an addition, not the class rewritten)
    cls = classes[0]
    while not named and [u.key[0] for u in cls.body if u.key is not None] == ["type"]:
        cls = next(u for u in cls.body if u.key is not None)  # (a module or a namespace around the one class)
        if not cls.body:
            return None
    members = [u for u in cls.body if u.key is not None]
    depth = _indent(doc_lines[members[0].start]) if members else _indent(doc_lines[cls.start]) + "    "
    base = min(len(_indent(line)) for line in shown)
    body = [depth + line[base:] if line.strip() else newline for line in _trimmed(update_lines, newline)]
    gap = [newline] * _gap(doc_lines, _definitions(cls.body), 1)
    if grammar == "python":  # after the class's last line
        return cls.end + 1, gap + body
    at = cls.end  # before the class's closing line, apart from the member above it
    return at, (gap if doc_lines[at - 1].strip() and at - 1 != cls.start else []) + body
