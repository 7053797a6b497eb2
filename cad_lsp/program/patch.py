"""A unified diff in a chat answer (```` ```diff ````), applied to the file it names.

Chat models print diffs loosely: hunk headers with wrong line numbers or none (``@@ ... @@``), no ``---``/``+++``
lines, an empty context line written without its leading space, trailing blanks dropped.  So a hunk is found by
its old side (context and removed lines), in order after the hunk before it; its header's line number only
chooses among several places.  A hunk whose old side is not in the file, or is there more than once with nothing
to choose by, is refused with the reason: a hunk applied at a guessed place is a silently wrong edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .ops import split_lines

__all__ = ["Hunk", "PatchError", "apply_patch", "codex_patch_files", "looks_like_codex_patch", "looks_like_patch",
           "parse_hunks", "patch_files"]


class PatchError(ValueError):
    """A diff that cannot be applied to the file; the message says why, for the user."""

_HUNK_HEADER = re.compile(r"^@@+\s*(?:-(?P<old>\d+)(?:,\d+)?\s*(?:\+\d+(?:,\d+)?)?)?.*?(?:@@+.*)?$")
_ANCHOR = re.compile(r"^@@+ ?(?P<text>.*?)\s*(?:@@+)?\s*$")  # ``@@ class Foo``: the line a hunk lies below
_OLD_FILE = re.compile(r"^--- (?P<path>\S+)")
_NEW_FILE = re.compile(r"^\+\+\+ (?P<path>\S+)")
_NOISE = ("diff --git ", "index ", "new file mode", "deleted file mode", "similarity index", "rename from",
          "rename to", "old mode", "new mode", "\\ No newline")


@dataclass(frozen=True)
class Hunk:
    old_start: int | None  # the header's line number, 1-based (None: the header gives none)
    old: tuple[str, ...]  # context and removed lines, as the file should hold them (no terminators)
    new: tuple[str, ...]  # context and added lines
    # lines the hunk lies below, in order, from headers that name them instead of numbers (OpenAI's
    # ``apply_patch``: ``@@ class Foo`` then ``@@     def bar(self):``)
    anchors: tuple[str, ...] = ()


def looks_like_patch(text: str) -> bool:
    """Whether a block that says no language is a unified diff: a ``@@`` hunk header, and every line of its
    hunks marked as context, removed or added."""
    lines = text.splitlines()
    return any(line.startswith("@@") for line in lines) and _has_hunks(lines)


def _has_hunks(lines: list[str]) -> bool:
    """Lines after the file headers that all read as a diff's (a ``diff`` block may leave out the ``@@``
    header: its lines are one hunk), at least one of them added or removed."""
    headers = _file_headers(lines)
    body = [line for i, line in enumerate(lines) if i not in headers and not line.startswith(("@@", *_NOISE))]
    return any(line[:1] in ("+", "-") for line in body) and all(not line or line[0] in " +-" for line in body)


def _file_headers(lines: list[str]) -> set[int]:
    """The indices of ``---``/``+++`` file lines: a pair, one after the other (a removed ``-- comment`` line is
    not one)."""
    pairs = [i for i in range(len(lines) - 1) if _OLD_FILE.match(lines[i]) and _NEW_FILE.match(lines[i + 1])]
    return {j for i in pairs for j in (i, i + 1)}


def patch_files(text: str) -> list[tuple[str | None, str]]:
    """A diff block split by file: (the path its ``+++`` line names, or None; its hunks as text).  A block that
    names no file is one part."""
    parts: list[tuple[str | None, list[str]]] = []
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        new = _NEW_FILE.match(line)
        if new and index > 0 and _OLD_FILE.match(lines[index - 1]):
            if parts:
                parts[-1][1].pop()  # the "---" line: this file's
            parts.append((_strip_prefix(new["path"], _OLD_FILE.match(lines[index - 1])["path"]),
                          [lines[index - 1]]))
        elif not parts:
            parts.append((None, []))
        parts[-1][1].append(line)
    return [(path, "".join(body)) for path, body in parts if _has_hunks("".join(body).splitlines())]


_CODEX_FILE = re.compile(r"^\*\*\* (?P<action>Update|Add|Delete) File:\s*(?P<path>\S.*?)\s*$")


def looks_like_codex_patch(text: str) -> bool:
    """Whether a block is OpenAI's ``apply_patch`` envelope (``*** Begin Patch``, ``*** Update File: x.py``)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return bool(lines) and lines[0] == "*** Begin Patch" and any(_CODEX_FILE.match(line) for line in lines)


def codex_patch_files(text: str) -> list[tuple[str, str, str]]:
    """An ``apply_patch`` envelope split by file: (``update``, path, its hunks as a diff), (``add``, path, the new
    file's text) or (``delete``, path, "").  A ``*** Move to:`` line renames: read as ``move``, with the new path
    as the text."""
    parts: list[tuple[str, str, list[str]]] = []
    for line in text.splitlines(keepends=True):
        named = _CODEX_FILE.match(line.rstrip("\r\n"))
        if named:
            parts.append((named["action"].lower(), named["path"], []))
        elif line.startswith("*** Move to:") and parts:
            parts.append(("move", parts[-1][1], [line.split(":", 1)[1].strip()]))
        elif line.startswith("*** ") or not parts:
            continue  # *** Begin Patch, *** End Patch, *** End of File
        elif parts[-1][0] == "add":
            parts[-1][2].append(line[1:] if line.startswith("+") else line)
        else:
            parts[-1][2].append(line)
    return [(action, path, "".join(body)) for action, path, body in parts]


def _strip_prefix(new: str, old: str) -> str | None:
    """The path a ``+++ b/src/app.py`` line names (``a/``, ``b/`` dropped); None for a deleted file."""
    path = old if new == "/dev/null" else new
    if path == "/dev/null":
        return None
    path = re.sub(r"\t.*$", "", path)
    return path[2:] if path.startswith(("a/", "b/")) else path


def parse_hunks(text: str) -> list[Hunk]:
    hunks: list[Hunk] = []
    old: list[str] = []
    new: list[str] = []
    start: int | None = None
    lines = text.splitlines()
    started = not any(line.startswith("@@") for line in lines)  # no header: the lines are one hunk
    headers = _file_headers(lines)
    anchors: list[str] = []
    for index, line in enumerate(lines):
        if index in headers:
            continue
        if line.startswith("@@"):
            if started:
                hunks.append(Hunk(start, tuple(old), tuple(new), tuple(anchors)))
                if old or new:
                    anchors = []
            header = _HUNK_HEADER.match(line)
            start = int(header["old"]) if header and header["old"] else None
            anchor = _ANCHOR.match(line)
            if anchor and start is None and anchor["text"].strip(". ") and not anchor["text"].lstrip().startswith("-"):
                anchors.append(anchor["text"])
            old, new, started = [], [], True
            continue
        if not started or line.startswith(_NOISE):
            continue
        mark, body = (line[0], line[1:]) if line else (" ", "")
        if mark in " -":
            old.append(body)
        if mark in " +":
            new.append(body)
    if started:
        hunks.append(Hunk(start, tuple(old), tuple(new), tuple(anchors)))
    return [hunk for hunk in hunks if hunk.old or hunk.new]


def apply_patch(document: str, patch: str) -> str:
    """The file the diff makes of ``document``; PatchError when a hunk has no single place in it."""
    hunks = parse_hunks(patch)
    if not hunks:
        raise PatchError("the diff adds and removes no line")
    lines = split_lines(document)
    crlf = sum(line.endswith("\r\n") for line in lines)
    newline = "\r\n" if crlf > len(lines) - crlf else "\n"  # new lines take the file's own line ends
    out: list[str] = []
    cursor = 0
    for number, hunk in enumerate(hunks, 1):
        at = _place(lines, cursor, hunk, number)
        out.extend(lines[cursor:at])
        new = [text + newline for text in hunk.new]
        out.extend(new)
        cursor = at + len(hunk.old)
    out.extend(lines[cursor:])
    if lines and not lines[-1].endswith(("\n", "\r")) and cursor == len(lines) and out:
        out[-1] = out[-1].rstrip("\r\n")  # the file had no final newline, and the last hunk ends the file
    return "".join(out)


def _place(lines: list[str], cursor: int, hunk: Hunk, number: int) -> int:
    """Where the hunk's old side starts: the one place after ``cursor`` (the header's line number chooses
    among several); PatchError when there is none or no way to choose."""
    for anchor in hunk.anchors:  # below each line the headers name, in order, where the file has it
        below = next((i for i in range(cursor, len(lines)) if lines[i].strip() == anchor.strip()), None)
        if below is None:
            raise PatchError(f"hunk {number} of the diff lies below {anchor.strip()[:60]!r}, which the file does "
                             f"not have")
        cursor = below + 1
    if not hunk.old:
        if not lines:
            return 0
        if hunk.old_start is None:
            raise PatchError(f"hunk {number} of the diff only adds lines and its header gives no line number")
        return min(max(cursor, hunk.old_start), len(lines))  # "-12,0": after line 12
    for same in (lambda a, b: a.rstrip() == b.rstrip(), lambda a, b: a.strip() == b.strip()):
        found = [i for i in range(cursor, len(lines) - len(hunk.old) + 1)
                 if all(same(lines[i + k].rstrip("\r\n"), hunk.old[k]) for k in range(len(hunk.old)))]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            if hunk.anchors:  # the first below the lines its headers name
                return found[0]
            if hunk.old_start is not None:
                return min(found, key=lambda i: abs(i + 1 - hunk.old_start))
            raise PatchError(f"hunk {number} of the diff matches {len(found)} places in the file and its header "
                              f"gives no line number to choose by")
    first = hunk.old[0].strip() or next((line.strip() for line in hunk.old if line.strip()), "")
    raise PatchError(f"hunk {number} of the diff does not match the file (its lines from {first[:60]!r} are not "
                      f"there as the diff shows them)")
