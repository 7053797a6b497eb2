"""Where each update line goes (``Placement``), and the error an update that cannot be placed raises."""

from __future__ import annotations

from dataclasses import dataclass, field


NEW, MARKER, SKIP = 0, -1, -2  # Placement.lines values besides a file line (SKIP: a blank line that is no line)


class UpdateError(ValueError):
    """An update that cannot be placed in the file; the message says why, for the user."""


class NoSharedLine(UpdateError):
    """An update that repeats no line of the file and that nothing else places: where a path names the file, a
    caller may still put it at the file's end."""


@dataclass(frozen=True)
class Placement:
    """Where each update line goes: ``lines[k]`` is the 1-based file line that update line k repeats, NEW for
    new text, or MARKER, and ``kept[k]`` the file lines (first, last) that marker keeps (none when last <
    first); ``whole_file`` when the update replaces the whole file."""

    document: str
    update_lines: list[str]
    lines: list[int]
    kept: dict[int, tuple[int, int]]
    whole_file: bool
    replaced: frozenset[int] = frozenset()  # file lines that new lines next to a placed one rewrite (not kept)
    rewrites: dict[int, int] = field(default_factory=dict)  # new lines between markers: the file line each rewrites
    dropped: frozenset[int] = frozenset()  # file lines left out although the update did not show them
    apart: frozenset[int] = frozenset()  # update lines a blank line goes before (a new method after a marker)
    fresh: frozenset[int] = frozenset()  # update lines of definitions the file does not have
