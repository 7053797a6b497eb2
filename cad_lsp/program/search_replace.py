"""SEARCH/REPLACE edit blocks (Aider's, Cline's), applied to the file they name.

Aider asks models for edits as ``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE`` sections, the path alone
on the line before the fence (or inside it, above the section); Cline and Roo Code write ``------- SEARCH`` /
``+++++++ REPLACE``.  Chat answers and users paste them as they are.  Each section's SEARCH lines are found in
the file as it stands after the sections before: exactly (trailing blanks aside), else with the whole section
indented otherwise, the REPLACE lines then taking the file's indentation.  An empty SEARCH appends to the file
(or is a new file's text).  A section found nowhere, or in several places with nothing to choose by (the
sections before leave several after them), is refused with the reason, as a diff's hunk is: an edit applied at
a guessed place would be silently wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .ops import split_lines
from .patch import PatchError

__all__ = ["Section", "apply_sections", "looks_like_search_replace", "parse_sections"]

_SEARCH = re.compile(r"^\s*(?:<{5,9}|-{5,9})\s*SEARCH\b.*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*(?:>{5,9}|\+{5,9})\s*REPLACE\b.*$")
_ROO_LINE = re.compile(r"^:(?:start|end)_line:\s*\d+\s*$")  # Roo Code's ``:start_line:12`` above the lines
_ROO_RULE = re.compile(r"^-{3,}\s*$")


@dataclass(frozen=True)
class Section:
    path: str | None  # the path on the line above it inside the block (Aider's fenced form), or None
    search: tuple[str, ...]  # lines, without terminators
    replace: tuple[str, ...]


def looks_like_search_replace(text: str) -> bool:
    """Whether a block holds SEARCH/REPLACE sections: a SEARCH line, then a divider, then a REPLACE line."""
    state = 0
    for line in text.splitlines():
        if state == 0 and _SEARCH.match(line):
            state = 1
        elif state == 1 and _DIVIDER.match(line):
            state = 2
        elif state == 2 and _REPLACE.match(line):
            return True
    return False


def parse_sections(text: str, is_path=lambda line: False) -> list[Section]:
    """The block's sections in order; a line between sections that ``is_path`` reads as a path names the file of
    the sections after it."""
    sections: list[Section] = []
    path: str | None = None
    search: list[str] = []
    replace: list[str] = []
    state = "outside"
    for line in text.splitlines():
        if state == "outside":
            if _SEARCH.match(line):
                state, search, replace = "search", [], []
            elif line.strip() and is_path(line.strip()):
                path = line.strip()
        elif state == "search":
            if _DIVIDER.match(line):
                state = "replace"
            elif _ROO_LINE.match(line) and not search:
                state = "roo"
            else:
                search.append(line)
        elif state == "roo":  # after ``:start_line:12``: ``:end_line:``, then ``-------`` before the lines
            if not _ROO_LINE.match(line) and not _ROO_RULE.match(line):
                search.append(line)
            if not _ROO_LINE.match(line):
                state = "search"
        elif state == "replace":
            if _REPLACE.match(line):
                sections.append(Section(path, tuple(search), tuple(replace)))
                state = "outside"
            else:
                replace.append(line)
    return sections


def apply_sections(document: str, sections: list[Section]) -> str:
    """The file the sections make of ``document``; PatchError when one has no single place in it."""
    lines = split_lines(document)
    crlf = sum(line.endswith("\r\n") for line in lines)
    newline = "\r\n" if crlf > len(lines) - crlf else "\n"
    cursor = 0
    for number, section in enumerate(sections, 1):
        if not any(line.strip() for line in section.search):  # an empty SEARCH: append (a new file: its text)
            if lines and not lines[-1].endswith(("\n", "\r")):
                lines[-1] += newline
            lines += [line + newline for line in section.replace]
            cursor = len(lines)
            continue
        at, shift = _find(lines, cursor, section.search, number)
        new = [_shifted(line, shift) + newline for line in section.replace]
        end = at + len(section.search)
        if end == len(lines) and lines and not lines[-1].endswith(("\n", "\r")) and new:
            new[-1] = new[-1].rstrip("\r\n")  # the file had no final newline and the section ends it
        lines[at:end] = new
        cursor = at + len(new)
    return "".join(lines)


def _find(lines: list[str], cursor: int, search: tuple[str, ...], number: int) -> tuple[int, tuple[str, str]]:
    """Where the SEARCH lines start, and the indentation to trade (the section's, the file's) where they are
    found indented otherwise."""
    search = _trimmed(search)
    n = len(search)
    exact = [i for i in range(len(lines) - n + 1)
             if all(lines[i + k].rstrip() == search[k].rstrip() for k in range(n))]
    if exact:
        return _one(exact, cursor, number), ("", "")
    shifted = []
    for i in range(len(lines) - n + 1):
        shift = _indent_shift(lines[i: i + n], search)
        if shift is not None:
            shifted.append((i, shift))
    if shifted:
        at = _one([i for i, _ in shifted], cursor, number)
        return at, dict(shifted)[at]
    first = next((line.strip() for line in search if line.strip()), "")
    raise PatchError(f"SEARCH section {number} is not in the file (its lines from {first[:60]!r} are not there as "
                     f"it shows them)")


def _trimmed(search: tuple[str, ...]) -> tuple[str, ...]:
    """The SEARCH lines without blank lines at their ends (models add one after ``<<<<<<< SEARCH``)."""
    lines = list(search)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return tuple(lines)


def _one(found: list[int], cursor: int, number: int) -> int:
    if len(found) == 1:
        return found[0]
    after = [i for i in found if i >= cursor]
    if cursor > 0 and after:
        return after[0]  # several places: the first after the section before, as the sections go down the file
    raise PatchError(f"SEARCH section {number} matches {len(found)} places in the file: show more lines around "
                     f"the change")


def _indent_shift(file_lines: list[str], search: tuple[str, ...]) -> tuple[str, str] | None:
    """(the section's indentation, the file's) when the lines are the same but for one change of indentation
    on every non-blank line; None otherwise."""
    shift = None
    for ours, theirs in zip(file_lines, search):
        ours = ours.rstrip("\r\n")
        if not ours.strip() and not theirs.strip():
            continue
        if ours.strip() != theirs.strip():
            return None
        a, b = theirs[: len(theirs) - len(theirs.lstrip())], ours[: len(ours) - len(ours.lstrip())]
        common = 0
        while common < min(len(a), len(b)) and a[common] == b[common]:
            common += 1
        pair = (a[common:], b[common:])
        if shift is None:
            shift = pair
        elif shift != pair:
            return None
    return shift


def _shifted(line: str, shift: tuple[str, str]) -> str:
    theirs, ours = shift
    if not line.strip() or (not theirs and not ours):
        return line
    indent = line[: len(line) - len(line.lstrip())]
    if theirs and indent.endswith(theirs):
        return indent[: len(indent) - len(theirs)] + ours + line.lstrip()
    return indent + ours + line.lstrip() if not theirs else line
