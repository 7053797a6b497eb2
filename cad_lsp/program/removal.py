"""A definition the answer's prose says to delete, taken out of its file.

Chat answers often say a removal instead of showing it: "You can now delete the old `SendEmailAsync`",
"Remove `list_users` and `get_user` from `app/views.py`".  No block shows the definition gone, so no merge
removes it; a careful reader does.  Here a named function, method, class, constant or field (a definition of
the file or of a class, not a function's local) is found by the file's syntax and removed with what belongs to
it (its doc comment, decorators and attributes) and the blank lines that set it apart.  A name the file defines twice, or not at all, is
left alone: a sentence is a weaker witness than a block, so only an unmistakable definition goes.
"""

from __future__ import annotations

from .blocks import names
from .lines.reading import attached_start, block_end, definitions_in, keys_of
from .syntax import Unit, language_of, parse_units

__all__ = ["definition_lines", "remove_definition"]

_DEFINITIONS = ("function", "type", "impl", "variable")


def definition_lines(text: str, name: str, filename: str, within: str | None = None) -> tuple[int, int] | None:
    """The lines (0-based, inclusive) of the one definition ``name`` names in ``text``, doc comment and
    decorators included; None where the file does not parse or defines it not exactly once.  ``within``: the
    class said to hold it ("from `Article`"), None where it is not in a class of that name ("remove the
    `Refresh()` from `Update`" names a call in a method, not a definition).  A file no grammar reads (Lua) is
    read line by line: the definition's head, found by ``lines.reading``, down to its end."""
    language = language_of(filename)
    if language == "markdown":
        return None
    lines = text.splitlines(True)
    if language is None:
        if within is not None:
            return None
        keys = keys_of(lines)
        found = [k for k, defined in definitions_in(keys).items() if names(defined, name)]
        return (attached_start(keys, found[0]), block_end(keys, found[0]) - 1) if len(found) == 1 else None
    parsed = parse_units(text, language, lines)
    if parsed is None or parsed[1]:
        return None
    found = [unit for unit, holder in _walk(parsed[0]) if unit.key is not None and unit.key[0] in _DEFINITIONS
             and names(unit.key[1], name) and (within is None or holder is not None and holder.key is not None
                                                and holder.key[0] != "function" and names(holder.key[1], within))]
    if len(found) != 1:
        return None
    return found[0].start, found[0].end


def remove_definition(text: str, name: str, filename: str, within: str | None = None) -> str | None:
    """``text`` without the one definition ``name`` names and the blank lines that set it apart from what
    follows (from what precedes, where nothing of its block follows), the wider run of the two kept; None where there is no such one
    definition (``definition_lines``)."""
    span = definition_lines(text, name, filename, within)
    if span is None:
        return None
    lines = text.splitlines(True)
    first, last = span
    following = last + 1
    while following < len(lines) and not lines[following].strip():
        following += 1
    if following < len(lines) and _indent(lines[following]) >= _indent(lines[first]) or first == 0:
        above = next((n for n in range(first) if lines[first - 1 - n].strip()), first)
        below = following - last - 1
        last = following - 1 - (max(0, below - above) if first else 0)
        # (a definition follows: it keeps the wider of the blank runs around the removed one, two after a
        # Python module's imports where a constant with one above it goes)
    else:  # the last of its file or block: the blank lines above it go
        while first > 0 and not lines[first - 1].strip():
            first -= 1
    return "".join(lines[:first] + lines[last + 1:])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _walk(units: list[Unit], holder: Unit | None = None):
    """The units of the file and of its classes, modules and namespaces, each with the one it is in (None at the
    file's top level); not those inside functions."""
    for unit in units:
        yield unit, holder
        if unit.body and (unit.key is None or unit.key[0] != "function"):
            yield from _walk(unit.body, unit)
