"""Update snippets: where a chat model's update goes in a file, and the file it makes.

An update is what chat models write when they suggest a change: the changed
code with some unchanged lines around it, unchanged stretches elided by a
comment such as ``// ... existing code ...`` (a *marker*).  Between two lines
it shows, a stretch of the file left out without a marker is deleted.  An
update with no marker at all that repeats most of the file is the whole new
file; any other update is a snippet, and the file before and after it stays.

``merge_update`` reads the update several ways and keeps the best merge: by
the file's syntax (``program.blocks``: functions, classes and sections found
by name, where a parser reads the file and the update) and line by line
(``lines.alignment.align_update``: any file), and, when those fall short,
line by line trusting the context a chat model shows next to its markers.
The best merge is the one that parses where the file did, then the one that
removes fewer lines the update did not show, then the one that does not
write a line of the file again as new code (``lines.checks``), then the
syntax's.  It refuses a merge that breaks a file which parsed, unless
forced, and names the lines it removes unseen.  Where no reading places an
update, the rules here place what its shape says: new code before the
file's closing line, after its imports, inside the block the file ends by
closing, or at a definition the answer names.
"""

from __future__ import annotations

import difflib
import itertools
import os
import re
from collections import Counter
from dataclasses import dataclass, replace

from .blocks import (
    CLAUSE_HEAD, DISTINCTIVE_LINE, Piece, clause_literal, merge_by_blocks, module_of, names, renamed_alike, same_body)
from .config_keys import (
    append_yaml_items, json_commas, json_fragment, json_members_added, merge_table_keys, merge_yaml_keys)
from .indentation import as_the_file_indents
from .lines.alignment import align_update
from .lines.checks import count_repeats_moved, dead_code, out_of_order
from .lines.moved import with_moved_bodies
from .lines.passes import TRUNCATED_TAIL
from .lines.placement import MARKER, NEW, NoSharedLine, Placement, SKIP, UpdateError
from .lines.reading import (
    ATTACHED_LINE, CLOSING, DECORATOR, IMPORT_LINE, LEAVES, MAKE_TARGET, QUOTED, TITLED_CALL, TYPE_OPENER,
    attached_start, block_end, definition_name, definitions_in, indent_of, is_accessor, is_declaration, keys_of,
    line_key)
from .markers import braces_markers_indented, is_marker, marker_lines
from .new_code import new_members_place
from .place_words import heading
from .ops import split_lines
from .patch import PatchError, apply_patch, codex_patch_files, looks_like_codex_patch, looks_like_patch
from .search_replace import apply_sections, looks_like_search_replace, parse_sections
from .syntax import COMMENT_LINE, Unit, breaks, guess_language, language_of, parse_units


__all__ = ["UpdateError", "NoSharedLine", "Placement", "Merge", "is_marker", "marker_lines", "align_update",
           "header_end", "merge_update", "merge_patch", "merge_search_replace"]

UNSEEN_AROUND_WHOLE = 3  # lines of the file before (after) a "whole file"'s first (last) line: it starts inside


@dataclass(frozen=True)
class Merge:
    """The merged file, and the region that changed: file lines ``first..last`` become ``text`` (the region
    reaches one unchanged line on each side where there is one, so a program on it starts and ends with a copy)."""

    merged: str
    first: int
    last: int
    text: str
    placement: Placement | None  # the line placement, when lines placed the update (not its syntax)
    # file lines (first, last), 1-based, that the merge removes although the update neither showed them nor put
    # them between two lines it shows: the user should hear of them before accepting
    unseen: tuple[tuple[int, int], ...] = ()
    document: str = ""  # the file merged into
    whole_file: bool = False  # the update was read as the whole new file (no marker, most of the file shown)
    # lines the update repeats from the file (found once there) that the merge writes anew and removes from
    # where the file has them: a reading that took context for new code
    repeats_moved: int = 0

    @classmethod
    def spanning(cls, document: str, merged: str, unseen: tuple[tuple[int, int], ...] = ()) -> "Merge":
        """A merge whose region is the whole file: readings composed (imports, then the rest), or placed by keys,
        sections or hunks rather than by lines."""
        return cls(merged, 1, max(1, len(split_lines(document))), merged, None, unseen, document=document)

    @property
    def changed(self) -> bool:
        return self.merged != self.document

    @property
    def unseen_lines(self) -> int:
        return sum(last - first + 1 for first, last in self.unseen)

    def unseen_note(self) -> str | None:
        """One line for the user naming what the merge removes unseen, or None."""
        if not self.unseen:
            return None
        where = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in self.unseen)
        n = self.unseen_lines
        return (f"the merge removes {n} line{'s' if n != 1 else ''} the update did not show (file line"
                f"{'s' if n != 1 else ''} {where}): check them before accepting")


def _starts_or_ends_inside(doc_lines: list[str], update_lines: list[str]) -> bool:
    """Whether an update said to be the whole file starts or ends inside it: its first (last) line is a line of
    the file that comes after (before) several lines of the file the update does not hold.  A class shown from its
    head to the file's end, under prose that says "the whole file" of something else, is not the file: read as
    the whole file, it would delete every line above the class unseen."""
    doc = [k for k in keys_of(doc_lines) if k.strip()]
    new = [k for k in keys_of(update_lines) if k.strip()]
    if not doc or not new:
        return False
    shown = set(new)
    if new[0] in doc and sum(k not in shown for k in doc[:doc.index(new[0])]) >= UNSEEN_AROUND_WHOLE:
        return True
    if doc.count(new[-1]) > 1:
        return False  # (a line the file has several times, ``RETURNING id, email;`` or an ``end``, places no end)
    last = len(doc) - 1 - doc[::-1].index(new[-1]) if new[-1] in doc else len(doc) - 1
    return sum(k not in shown for k in doc[last + 1:]) >= UNSEEN_AROUND_WHOLE


def _terminator(doc_lines: list[str]) -> str:
    """The file's usual line terminator: new lines are written with it."""
    crlf = sum(line.endswith("\r\n") for line in doc_lines)
    lf = sum(line.endswith("\n") and not line.endswith("\r\n") for line in doc_lines)
    return "\r\n" if crlf > lf else "\n"


def merge_update(document: str, update: str, language: str | None = None, *, force: bool = False,
                 after: str | None = None, before: str | None = None, whole: bool = False,
                 into: str | None = None) -> Merge:
    """The file the update makes (``_merge_update``).  A fault in a reading's rules is this update's refusal, not
    the caller's crash: the editor, the answer and the endpoint report it and write nothing."""
    try:
        parts = _fragments_apart(update, language, document)
        if parts is not None:  # (each part where it goes, the second merged into what the first made)
            try:
                first = merge_update(document, parts[0], language, force=force, after=after, before=before,
                                     into=into)
                second = merge_update(first.merged, parts[1], language, force=force)
                return Merge.spanning(document, second.merged, first.unseen + second.unseen)
            except UpdateError:
                pass
        if after is None and before is None and into is None and not force and \
                (renamed := _renamed_in_place(document, update, language, renamed_alike) or
                 _line_given_a_block(document, update)) is not None:
            return renamed  # (a function renamed, the rename in its body too; a line given a block: in place)
        regrouped = _go_imports_regrouped(document, update) or _beside_named_import(document, update, after, before)
        if regrouped is not None:
            return regrouped
        said = _said_anew_then_rest(document, update, language, force=force, after=after, before=before, into=into)
        if said is not None:
            return said
        try:
            merge = _imports_then_rest(document, update, language, force=force, after=after, before=before,
                                       whole=whole, into=into)
        except NoSharedLine:  # (no line the file's but one that now ends with a comma, a new field below it:
            merge = _said_anew_then_rest(document, update, language, force=force, after=after, before=before,
                                         into=into, commas=True)  # ``userAgent: String = "acme-fetch/1.0",``)
            if merge is None:
                raise
        return _unused_imports_above(_below_the_header(merge), update, language)
    except UpdateError:
        if not force and after is None and before is None and into is None and \
                (renamed := _renamed_in_place(document, update, language)) is not None:
            return renamed
        raise
    except Exception as exc:  # noqa: BLE001 -- a bug in a rule must not take the editor's request down
        raise UpdateError(f"the merge failed on this update ({type(exc).__name__}: {exc}); nothing was "
                          f"changed: please report it with the file and the update") from exc


def _renamed_in_place(document: str, update: str, language: str | None, alike=same_body) -> Merge | None:
    """Whole functions shown under names the file does not define, each body nearly that of one the file has
    (``alike``; Rust's ``parse_args`` shown as ``parse_options`` with a ``where`` clause, which the other readings
    put below the old head): each that one, renamed and rewritten in place, its doc comment kept unless the
    update shows one; None for any other update.  With ``same_body``, tried only where every other reading
    failed: a new function much like another (``refund`` beside ``cancel``) is far more common than a rename,
    and the other readings place it; with ``renamed_alike`` (the body the same but for the rename), first.  A
    fault in this reading is no reading: the others stand."""
    try:
        return _renamed(document, update, language, alike)
    except Exception:  # noqa: BLE001
        return None


def _renamed(document: str, update: str, language: str | None, alike) -> Merge | None:
    grammar = language_of(language) if language is not None else guess_language(document)
    doc_lines, update_lines = split_lines(document), split_lines(update)
    if grammar is None or any(is_marker(line) for line in update_lines):
        return None
    code = [line for line in update_lines if line.strip() and not COMMENT_LINE.match(line)]
    if not code or "(" not in code[0] and not ATTACHED_LINE.match(code[0]):
        return None  # (read cheaply first: most updates are not one definition under a new name)
    new, old = parse_units(update, grammar, update_lines), parse_units(document, grammar, doc_lines)
    if not new or not old or new[1] or old[1]:
        return None
    keyed = [unit for unit in new[0] if unit.key is not None]
    if not keyed or any(unit.key[0] != "function" for unit in keyed) or \
            any(unit.key is None and "comment" not in unit.kind for unit in new[0]) or \
            len(keyed) > 1 and len(keyed) != len(new[0]):
        return None  # (one function, its comments around it; or several, each with its own doc inside it)
    defined = list(_definitions_of(old[0]))
    newline = _terminator(doc_lines)
    places = []
    for shown in keyed:
        found = [unit for unit in defined if alike(update_lines, shown, doc_lines, unit)]
        if len(found) != 1 or any(unit.key == shown.key for unit in defined) or \
                any(found[0] is at for at, _, _ in places):
            return None
        at = found[0]
        head, shown_head = doc_lines[at.inner or at.start], update_lines[shown.inner or shown.start]
        indent = head[:len(head) - len(head.lstrip())]
        if shown_head[:len(shown_head) - len(shown_head.lstrip())] == indent:
            indent = ""  # (a method shown at its own depth)
        elif indent_of(shown_head):
            return None
        above = len(keyed) == 1 and any(line.strip() for line in update_lines[:shown.start])  # (the unit holds
        first = 0 if above else shown.start  # its doc comment and decorators, ``inner`` its head)
        places.append((at, above or shown.inner is not None,
                       [(indent + line.rstrip("\r\n") if line.strip() else "") + newline
                        for line in update_lines[first: shown.end + 1]]))
    lines = list(doc_lines)
    for at, with_doc, written in sorted(places, key=lambda place: -place[0].start):
        lines[at.start if with_doc else at.inner or at.start: at.end + 1] = written
    try:
        return _checked(Merge.spanning(document, "".join(lines)), grammar, False, update)
    except UpdateError:
        return None


def _line_given_a_block(document: str, update: str) -> Merge | None:
    """A line of the file shown again as the head of a block it did not have (Rails' ``resource :subscription,
    only: %i[show update]`` shown with `` do``, a ``post :cancel`` and ``end`` below): that line, replaced by the
    block, indented as it is; None for any other update."""
    doc_lines, update_lines = split_lines(document), split_lines(update)
    shown = [line for line in update_lines if line.strip()]
    if len(shown) < 3 or any(is_marker(line) for line in shown) or indent_of(shown[-1]) != indent_of(shown[0]):
        return None
    m = re.fullmatch(r"(?P<head>.*?\S)\s*(?:\bdo(?:\s*\|[^|]*\|)?|\{|:)\s*", shown[0].strip())
    if m is None or not CLOSING.match(shown[-1]) and shown[-1].strip() not in ("end", "}"):
        return None
    found = [k for k, line in enumerate(doc_lines) if line.strip() == m["head"]]
    if len(found) != 1 or any(line.strip() == shown[0].strip() for line in doc_lines):
        return None  # (a block the file has with that head: the update's lines are its)
    k = found[0]
    below = next((line for line in doc_lines[k + 1:] if line.strip()), "")
    if below and indent_of(below) > indent_of(doc_lines[k]):
        return None  # (the line has a block already: the other readings' to merge)
    have, want = indent_of(shown[0]), doc_lines[k][:indent_of(doc_lines[k])]
    if any(indent_of(line) < have for line in shown):
        return None
    rows = [r for r, line in enumerate(update_lines) if line.strip()]
    newline = _terminator(doc_lines)
    block = [(want + line.rstrip("\r\n")[have:] if line.strip() else "") + newline
             for line in update_lines[rows[0]: rows[-1] + 1]]
    return Merge.spanning(document, "".join(doc_lines[:k] + block + doc_lines[k + 1:]))


def _definitions_of(units: list[Unit]):
    """The functions of a file and of its classes, modules and namespaces (not those inside functions)."""
    for unit in units:
        if unit.key is not None and unit.key[0] == "function":
            yield unit
        elif unit.body:
            yield from _definitions_of(unit.body)


def _beside_named_import(document: str, update: str, after: str | None, before: str | None) -> Merge | None:
    """New import lines put below (or above) the one import of the file that names what the answer gives ("below
    the `TodoList` import"); None for any other update."""
    doc_lines, update_lines = split_lines(document), split_lines(update)
    shown = [line_key(line).strip() for line in update_lines if line.strip()]
    said = after or before
    if not said or not shown or not all(IMPORT_LINE.match(line) for line in shown) or \
            {line_key(line).strip() for line in doc_lines} & set(shown) or \
            {_imported_from(line) for line in shown} & {_imported_from(line) for line in doc_lines} - {None}:
        return None  # (``from sqlalchemy import func, select``: the file's import of that module, rewritten)
    found = [j for j, line in enumerate(doc_lines) if IMPORT_LINE.match(line) and not indent_of(line) and
             re.search(rf"(?<![\w$]){re.escape(said)}(?![\w$])", line)]
    if len(found) != 1:
        return None
    return _inserted(doc_lines, update_lines, found[0] + (after is not None), _shown_pieces(update_lines))


def _imported_from(line: str) -> str | None:
    """The module an import line imports from (``sqlalchemy`` of ``from sqlalchemy import select``, ``./db`` of
    ``import { db } from './db';``), None where it says none."""
    m = re.match(r"\s*from\s+(\S+)\s+import\b|\s*import\b.*\bfrom\s+[\"']([^\"']+)[\"']", line)
    return (m[1] or m[2]) if m else None


_HEADER_LINE = re.compile(r"^(?:package\s+[\w.]+;?|namespace\s+[\w\\.]+;|<\?php)\s*$")


def header_end(lines: list[str]) -> int:
    """The index of the first line below a file's header: its package line and imports (Go's ``import (`` ...
    ``)`` included), and the comments and blank lines among them; 0 where the file starts with none."""
    end, k, seen = 0, 0, False
    while k < len(lines):
        line = lines[k]
        if _HEADER_LINE.match(line.strip()) or IMPORT_LINE.match(line) and not indent_of(line):
            seen = True
            if line.rstrip().endswith("("):  # (``import (`` ... ``)``)
                k = next((j for j in range(k + 1, len(lines)) if lines[j].strip() == ")"), k)
            end = k + 1
        elif line.strip() and not line.lstrip().startswith(("//", "#", "/*", "*")):
            break
        k += 1
    return end if seen else 0


def _below_the_header(merge: Merge) -> Merge:
    """A merge that put new code above the file's first line, where the file starts with its package line or its
    imports (a declaration shown above ``// ... existing code ...``, which the marker then keeps the whole file
    below): the code below the header instead, set apart by a blank line, as a reader places it."""
    doc_lines, merged = split_lines(merge.document), split_lines(merge.merged)
    end = header_end(doc_lines)
    top = next((j for j, line in enumerate(doc_lines) if line.strip()), None)
    if not end or top is None or doc_lines[top] in merged[:1]:
        return merge
    at = next((k for k in range(len(merged)) if merged[k:k + end - top] == doc_lines[top:end]), None)
    new = merged[:at] if at else []
    if not new or any(IMPORT_LINE.match(line) or _HEADER_LINE.match(line.strip()) for line in new) or \
            all(not line.strip() or line.lstrip().startswith(("//", "#", "/*", "*")) for line in new):
        return merge
    while new and not new[-1].strip():
        new.pop()
    rest = merged[at:]
    below = end - top  # (the header's lines in ``rest``)
    gap = list(itertools.takewhile(lambda line: not line.strip(), rest[below:]))  # (the file's, kept: one or two)
    body = rest[below + len(gap):]
    gap = gap or [_terminator(doc_lines)]
    return Merge.spanning(merge.document, "".join(rest[:below] + gap + new + gap + body), merge.unseen)


# Where an import's use shows in the text by the name it binds (not Scala's implicits, C#'s namespaces, C's headers)
_IMPORTS_USED_BY_NAME = {"python", "javascript", "typescript", "tsx", "java", "kotlin"}


def _unused_imports_above(merge: Merge, update: str, language: str | None) -> Merge:
    """An update that starts with the file's imports, down to their last, less one or two at their top that
    nothing uses any more (``import shutil`` after its last ``shutil.copyfileobj`` was rewritten): those go too,
    as the update shows the imports as they are to be.  Lines the update did not show, so named as removed unseen."""
    shown = [line for line in split_lines(update) if line.strip()]
    if not shown or not IMPORT_LINE.match(shown[0]) or indent_of(shown[0]) or not merge.changed:
        return merge
    merged = split_lines(merge.merged)
    top = next((r for r, line in enumerate(merged) if line_key(line) == line_key(shown[0])), None)
    if top is None:
        return merge
    above = [r for r in range(top) if merged[r].strip()]
    if not above or not all(IMPORT_LINE.match(merged[r]) for r in above[-2:]):
        return merge
    text = "".join(line for r, line in enumerate(merged) if not IMPORT_LINE.match(line))
    unused = [r for r in above if IMPORT_LINE.match(merged[r]) and merged[r] not in split_lines(update) and
              (bound := _bound_names(merged[r])) and not any(re.search(rf"\b{re.escape(name)}\b", text)
                                                            for name in bound)]
    if not unused or len(unused) > 2 or unused != above[len(above) - len(unused):] and unused != above[:len(unused)]:
        return merge
    grammar = language_of(language) if language is not None else guess_language(merge.document)
    if grammar not in _IMPORTS_USED_BY_NAME:  # (read only now: guessing parses the file)
        return merge
    doc_lines = split_lines(merge.document)
    rows = [next((j for j, line in enumerate(doc_lines) if line == merged[r]), None) for r in unused]
    header = [line for line in doc_lines[:header_end(doc_lines)] if IMPORT_LINE.match(line) and not indent_of(line)]
    if None in rows or not header or line_key(header[-1]) not in {line_key(line) for line in shown}:
        return merge  # (the update shows the first imports only, one to add: it says nothing of the others)
    kept = [line for r, line in enumerate(merged) if r not in unused]
    while top - len(unused) > 0 and kept and not kept[0].strip():
        kept.pop(0)  # (the blank line that set the removed import apart at the file's top)
    return Merge.spanning(merge.document, "".join(kept), merge.unseen + tuple((j + 1, j + 1) for j in rows))


_PY_IMPORT = re.compile(r"^import\s+(?P<modules>[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)\s*$")
_PY_FROM = re.compile(r"^from\s+[\w.]+\s+import\s+(?P<names>\w+(?:\s+as\s+\w+)?(?:\s*,\s*\w+(?:\s+as\s+\w+)?)*)\s*$")
_JS_IMPORT = re.compile(r"^import\s+(?:type\s+)?(?P<names>[\w$]+|\*\s+as\s+[\w$]+|\{[^{}]*\}|[\w$]+\s*,\s*\{[^{}]*\})"
                        r"\s+from\s+['\"][^'\"]+['\"];?\s*$")
_JVM_IMPORT = re.compile(r"^import\s+(?:static\s+)?[\w.]+\.(?P<name>\w+)(?:\s+as\s+(?P<alias>\w+))?;?\s*$")


def _bound_names(line: str) -> list[str]:
    """The names an import line binds (Python's, JavaScript's, Java's and Kotlin's); none where it binds what a
    file's text cannot show the use of (``import './styles.css'``, ``import java.util.*``, ``using``,
    ``#include``): such a line is never taken for unused."""
    key = line.strip()
    if key.startswith("from __future__"):
        return []  # (it binds nothing the text uses, and is never unused)
    if m := _PY_IMPORT.match(key):  # (``import a.b`` binds ``a`` in Python, ``b`` in Kotlin: either, used, keeps it)
        if "*" in key or key.endswith("._"):
            return []
        return [name for part in m["modules"].split(",") for name in
                ([part.split(" as ")[-1].strip()] if " as " in part else [part.strip().split(".")[0],
                                                                           part.strip().split(".")[-1]])]
    if m := _PY_FROM.match(key):
        return [part.split(" as ")[-1].strip() for part in m["names"].split(",")]
    if m := _JS_IMPORT.match(key):
        return [part.split(" as ")[-1].strip() for part in re.split(r"[{},]", m["names"]) if part.strip()]
    if m := _JVM_IMPORT.match(key):
        return [m["alias"] or m["name"]]
    return []


_PHONY = re.compile(r"^\.PHONY\s*:")


def _fragments_apart(update: str, language: str | None, document: str) -> tuple[str, str] | None:
    """A Python update with a definition, then a marker at the left edge, then indented lines (a class, then
    ``# ... existing code ...``, then lines of a function further down): the indented lines are not the class's,
    though Python's parser reads them so, as a comment does not end a block.  The two parts, the marker ending
    the first and starting the second; None for any other update."""
    grammar = language_of(language) if language is not None else guess_language(document)
    if grammar != "python":
        return None
    lines = split_lines(update)
    for k, line in enumerate(lines):
        rest = [other for other in lines[k + 1:] if other.strip()]
        above = [other for other in lines[:k] if other.strip() and not is_marker(other)]
        if is_marker(line) and not indent_of(line) and rest and indent_of(rest[0]) and \
                any(re.match(r"(?:async\s+)?(?:def|class)\s", other) for other in above) and not is_marker(rest[0]):
            return "".join(lines[:k + 1]), "".join(lines[k:])
    return None


def _said_anew(doc_lines: list[str], update_lines: list[str], language: str | None,
               commas: bool = False) -> dict[int, int]:
    """File lines an update shows rewritten in a way no reading pairs, as they place nothing: a Makefile's one
    ``.PHONY:`` line grown; in JSON (or, with ``commas``, any file), a member that gains (or loses) its trailing
    comma, now that new members follow it (with ``commas``, or its ``;``); with ``commas``, where no line does so,
    the one file line that sets the dotted name an update line sets.  {file line index: update line index}"""
    out = {}
    ours = [j for j, line in enumerate(doc_lines) if _PHONY.match(line)]
    theirs = [k for k, line in enumerate(update_lines) if _PHONY.match(line)]
    if len(ours) == 1 and len(theirs) == 1 and line_key(doc_lines[ours[0]]) != line_key(update_lines[theirs[0]]):
        old, new = set(doc_lines[ours[0]].split()), set(update_lines[theirs[0]].split())
        if len(old & new) >= len(old) / 2:
            out[ours[0]] = theirs[0]
    if commas or (language or "").lower().endswith("json"):
        ends = ",;" if commas else ","  # (a chained call's ``;`` moved to the new last line)
        bare: dict[str, list[int]] = {}
        for j, line in enumerate(doc_lines):
            bare.setdefault(line.strip().rstrip(ends), []).append(j)
        for k, line in enumerate(update_lines):
            text = line.strip().rstrip(ends)
            found = bare.get(text, [])
            if len(text) > 2 and len(found) == 1 and doc_lines[found[0]].strip() != line.strip():
                out[found[0]] = k
    if commas and not out and sum(1 for line in update_lines if line.strip()) == 1:  # (one line shown,
        # ``decoder.dateDecodingStrategy = .flexibleISO8601``: the one file line that sets it;
        for pattern in (_SETS, _CALL_ENTRY):  # ``validates :current_period_end, ...``: the one line of that call
            for k, line in enumerate(update_lines):  # and first argument)
                head = pattern.match(line)
                found = [j for j, ours in enumerate(doc_lines) if head and (theirs := pattern.match(ours)) and
                         theirs["target"] == head["target"] and indent_of(ours) == indent_of(line)]
                if head and len(found) == 1 and sum(1 for other in update_lines if (m := pattern.match(other)) and
                                                    m["target"] == head["target"]) == 1:
                    out[found[0]] = k
            if out:
                break
    return out


_CALL_ENTRY = re.compile(r"^\s*(?P<target>[A-Za-z_][\w.]*(?:\s+|\s*\(\s*):?[\"']?[\w.-]+[\"']?)\s*[,)]")
_SETS = re.compile(r"^\s*(?P<target>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*=(?!=)")  # ``self.x.y =``


def _names_a_line(doc_lines: list[str], place: str | None) -> bool:
    """Whether the place an answer names is code that one line of the file holds (``r.Use(middleware.RealIP)``,
    ``command "done"``), not a name or a heading's words."""
    return bool(place) and len(place) >= DISTINCTIVE_LINE and re.search(r"[(){};=\"'.:]", place) is not None and \
        sum(1 for line in doc_lines if place in line) == 1


def _said_anew_then_rest(document: str, update: str, language: str | None, *, force: bool, after: str | None,
                         before: str | None, into: str | None, commas: bool = False) -> Merge | None:
    """The file lines an update shows rewritten so that they place nothing (``_said_anew``) rewritten first, then
    the update merged into that: the rewritten lines now the file's, they place the rest (a ``.PHONY`` line was
    written a second time above the new targets).  A ``.PHONY`` line on top of the update is not a context for
    the targets below it, which go where they say or the answer does.  None where there are none."""
    doc_lines, update_lines = split_lines(document), split_lines(update)
    said = _said_anew(doc_lines, update_lines, language, commas)
    if _names_a_line(doc_lines, after or before):
        return None  # (new lines beside a line named as their place, not lines like them rewritten: "above the
        # `r.Use(middleware.RealIP)` line", ``r.Use(middleware.RequestID)``)
    if not said:
        return None
    rewritten_lines = list(doc_lines)
    for j, k in said.items():
        newline = doc_lines[j][len(line_key(doc_lines[j])):] or _terminator(doc_lines)
        indent = doc_lines[j][: indent_of(doc_lines[j])]
        rewritten_lines[j] = indent + line_key(update_lines[k]).strip() + newline
    rewritten = "".join(rewritten_lines)
    top = next(k for k, line in enumerate(update_lines) if line.strip())
    if any(k == top and _PHONY.match(update_lines[k]) for k in said.values()):
        update = "".join(update_lines[top + 1:]).lstrip("\r\n")
        if not update.strip():
            return Merge.spanning(document, rewritten)
    inner = _imports_then_rest(rewritten, update, language, force=force, after=after, before=before, whole=False,
                               into=into)
    return Merge.spanning(document, inner.merged, inner.unseen)


def _imports_then_rest(document: str, update: str, language: str | None, *, force: bool, after: str | None,
                       before: str | None, whole: bool, into: str | None) -> Merge:
    # New imports (after a marker for the file's own, or none), then the rest: the imports go where they sort
    # among the file's, then the rest is merged (a handler pasted for a class the prose names; a class shown
    # below "// ... existing imports" and two new ones, which lines put after the file's imports).
    apart = _header_apart(document, update, language, force=force, after=after, before=before, into=into)
    if apart is not None:
        return apart
    try:
        merge = _merge_update(document, update, language, force=force, after=after, before=before, whole=whole,
                              into=into)
    except UpdateError as error:
        merge, refusal = None, error
    if _imports_then_code(split_lines(update), split_lines(document), language, True) is not None and \
            (merge is None or _defines_twice(document, update, merge.merged)):
        apart = _header_apart(document, update, language, force=force, after=after, before=before, into=into,
                              members=True)  # (``package``, the imports, a marker, then members of a class not
        if apart is not None:  # shown, which the whole update placed on the wrong lines)
            return apart
    if merge is not None:
        return merge
    placed = _members_before_the_closing_line(split_lines(document), split_lines(update)) \
        if after in (None, "") and before is None else None
    if placed is None:
        raise refusal
    return _checked(placed, language_of(language) if language is not None else guess_language(document), force,
                    update)


def _defines_twice(document: str, update: str, merged: str) -> bool:
    """Whether a merge defines a name more often than the file and the update each do (a rewritten method written
    beside its old self)."""
    def counted(text: str) -> Counter:
        return Counter(definitions_in(keys_of(split_lines(text))).values())
    ours, shown = counted(document), counted(update)
    return any(n > max(ours[name], shown[name]) for name, n in counted(merged).items())


def _header_apart(document: str, update: str, language: str | None, *, force: bool, after: str | None,
                  before: str | None, into: str | None, members: bool = False) -> Merge | None:
    """The update's imports merged first, then the rest into that (``_imports_then_code``); None where the update
    is not so made, or either part does not merge cleanly."""
    parts = _imports_then_code(split_lines(update), split_lines(document), language, members)
    if parts is None:
        return None
    try:
        imports = _imports_widened(split_lines(document), split_lines(parts[0])) or \
            _merge_update(document, parts[0], language, force=force)
        try:
            code = _merge_update(imports.merged, parts[1], language, force=force, after=after, before=before,
                                 into=into)
        except UpdateError:
            code = _below_the_imports(imports.merged, parts[1]) if after is None and before is None else None
            if code is None:
                raise
    except UpdateError:
        return None
    if imports.unseen or code.unseen or parts[2] and _lost_above(document, parts[0], imports.merged):
        return None
    return Merge.spanning(document, code.merged)


# A line comment in each grammar, for a marker its parser must read as one
_COMMENT_OF = {"python": "#", "ruby": "#", "bash": "#", "javascript": "//", "typescript": "//", "tsx": "//",
               "go": "//", "rust": "//", "java": "//", "c": "//", "cpp": "//", "csharp": "//", "kotlin": "//",
               "php": "//", "swift": "//", "scala": "//", "elixir": "#"}
_CPP_HEADER = re.compile(r"^\s*(?:class\s+\w+\s*[:{]|namespace\s+\w+\s*\{|template\s*<|(?:public|private|protected):)",
                         re.MULTILINE)


def _below_the_imports(document: str, rest: str) -> Merge | None:
    """New top-level statements shown below new imports and a marker, nothing of the file among them (``log =
    logging.getLogger(__name__)``, "below the imports"): after the file's last import, a blank line between."""
    doc_lines, lines = split_lines(document), split_lines(rest)
    shown = [line for line in lines if line.strip()]
    ours = {line.strip() for line in doc_lines}
    if not shown or any(is_marker(line) or line.strip() in ours for line in shown) or indent_of(shown[0]) or \
            IMPORT_LINE.match(shown[0]) or any(is_declaration(line) or DECORATOR.match(line) for line in shown):
        return None  # (new definitions go where definitions go: the other readings')
    last = max((r for r, line in enumerate(doc_lines) if IMPORT_LINE.match(line) and not indent_of(line)), default=None)
    if last is None:
        return None
    while last + 1 < len(doc_lines) and ("(" in doc_lines[last] and ")" not in doc_lines[last] or
                                         doc_lines[last].rstrip().endswith(("\\", ","))):
        last += 1  # (an import over several lines: ``from x import (`` ... ``)``)
        if ")" in doc_lines[last]:
            break
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    new = [Piece(_terminator(doc_lines), None, None)] + [Piece(line, None, k + 1) for k, line in enumerate(lines)]
    return _inserted(doc_lines, lines, last + 1, new)


def _imports_widened(doc_lines: list[str], update_lines: list[str]) -> Merge | None:
    """Import lines shown alone, each the file's or one of the file's given more names from the same module
    (``use std::fmt::{self, Write};`` for ``use std::fmt;``, ``from app.db import get_db, Session`` for ``from
    app.db import get_db``): those file lines rewritten in place.  None where a line is new or imports from a
    module two of the file's lines import from."""
    shown = [line for line in update_lines if line.strip()]
    if not shown or any(not IMPORT_LINE.match(line) or indent_of(line) for line in shown):
        return None
    ours = [line.strip() for line in doc_lines]
    rewritten: dict[int, str] = {}
    for line in shown:
        if line.strip() in ours:
            continue
        module = _imported_from(line)
        same = [r for r, other in enumerate(doc_lines) if not indent_of(other) and IMPORT_LINE.match(other) and
                _imported_from(other) == module] if module else []
        if len(same) != 1 or same[0] in rewritten or \
                set(re.findall(r"\w+", doc_lines[same[0]])) - set(re.findall(r"\w+", line)):
            return None
        rewritten[same[0]] = line if line.endswith(("\n", "\r")) else line + _terminator(doc_lines)
    if not rewritten:
        return None
    pieces = [Piece(rewritten[r], None, None) if r in rewritten else Piece(line, r + 1, None)
              for r, line in enumerate(doc_lines)]
    return _finish("".join(doc_lines), "".join(update_lines), pieces, frozenset(r + 1 for r in rewritten), None,
                   False)  # (the rewritten lines are seen: the update shows their new form)


_GO_IMPORT_ONE = re.compile(r'^import\s+(?:\w+\s+)?"[^"]+"\s*$')


def _go_imports_regrouped(document: str, update: str) -> Merge | None:
    """A Go ``import ( ... )`` group shown alone ("change the import to:") for a file with one import
    declaration, ``import "testing"`` or a group, whose packages it holds all: that declaration rewritten.  None
    for anything else."""
    lines = [line for line in split_lines(update) if line.strip()]
    if len(lines) < 3 or lines[0].strip() != "import (" or lines[-1].strip() != ")" or \
            not all(re.match(r'^\s*(?:\w+\s+)?"[^"]+"\s*$', line) for line in lines[1:-1]):
        return None
    doc_lines = split_lines(document)
    starts = [r for r, line in enumerate(doc_lines) if line.startswith("import")]
    if len(starts) != 1:
        return None
    first = starts[0]
    if _GO_IMPORT_ONE.match(doc_lines[first]):
        last = first
    elif doc_lines[first].strip() == "import (":
        last = next((r for r in range(first + 1, len(doc_lines)) if doc_lines[r].strip() == ")"), None)
        if last is None:
            return None
    else:
        return None
    theirs = set(re.findall(r'"([^"]+)"', "".join(doc_lines[first:last + 1])))
    if not theirs <= set(re.findall(r'"([^"]+)"', "".join(lines))):
        return None
    newline = _terminator(doc_lines)
    group = [line.rstrip("\r\n") + newline for line in split_lines(update)]
    while group and not group[-1].strip():
        group.pop()
    return Merge.spanning(document, "".join(doc_lines[:first] + group + doc_lines[last + 1:]))


def _imported_from(line: str) -> str | None:
    """The module an import line imports from (``blocks.module_of``), and Rust's: ``std::fmt`` for ``use
    std::fmt::{self, Write};`` and ``use std::fmt;``; None where the line names none."""
    m = re.match(r"\s*use\s+([\w:]+?)(?:::\{.*\})?\s*;", line)
    if m:
        return m[1]
    module = module_of(line)
    return module if module != line else None


def _among_the_imports(doc_lines: list[str], update_lines: list[str]) -> Merge | None:
    """New import lines alone, for a file no syntax places them in (Dart's ``import '../widgets/x.dart';``):
    each in the run of the file's imports most alike it (``'../`` among the relative ones, not the packages),
    where it sorts in a sorted run, else at the run's end; None where the update is anything else or the file
    has no imports at the left edge."""
    shown = [line for line in update_lines if line.strip()]
    ours = {line.strip() for line in doc_lines}
    modules = {module_of(line) for line in doc_lines if IMPORT_LINE.match(line) and not indent_of(line)}
    if not shown or any(not IMPORT_LINE.match(line) or indent_of(line) or line.strip() in ours or
                        " import " in line and module_of(line) in modules for line in shown):
        return None  # (``from flask import a, b`` where the file imports from ``flask``: that import widened)
    runs: list[list[int]] = []
    for r, line in enumerate(doc_lines):
        if IMPORT_LINE.match(line) and not indent_of(line):
            if runs and runs[-1][-1] == r - 1:
                runs[-1].append(r)
            else:
                runs.append([r])
    if not runs:
        return None
    after: dict[int, list[Piece]] = {}
    for k, line in enumerate(update_lines):
        if not line.strip():
            continue
        run = max(runs, key=lambda rows: max(len(os.path.commonprefix([line.strip(), doc_lines[r].strip()]))
                                             for r in rows))
        texts = [doc_lines[r].strip() for r in run]
        at = run[-1] if texts != sorted(texts) else \
            max([r for r in run if doc_lines[r].strip() < line.strip()], default=run[0] - 1)
        after.setdefault(at, []).append(Piece(line if line.endswith(("\n", "\r")) else line + _terminator(doc_lines),
                                              None, k + 1))
    pieces = after.get(-1, [])
    for r, line in enumerate(doc_lines):
        pieces.append(Piece(line, r + 1, None))
        pieces += after.get(r, [])
    return _finish("".join(doc_lines), "".join(update_lines), pieces, frozenset(), None, False)


def _lost_above(document: str, shown: str, merged: str) -> bool:
    """Whether a merge of the file's imports shown with new ones lost a file line above the first one it shows (an
    import read as another's rewrite, which the update's start does not reach)."""
    doc_lines, shown_lines = split_lines(document), {line.strip() for line in split_lines(shown)}
    first = next((j for j, line in enumerate(doc_lines) if line.strip() and line.strip() in shown_lines), None)
    lost = Counter(doc_lines) - Counter(split_lines(merged))
    return first is not None and any(line in lost for line in doc_lines[:first])


def _imports_then_code(update_lines: list[str], doc_lines: list[str], language: str | None,
                       members: bool = False) -> tuple[str, str, bool] | None:
    """An update that is markers, new import lines (none of them the file's), perhaps a marker, then the rest:
    (the imports, the rest, False), or None.  Only where the file's syntax places imports (``blocks._new_imports``).
    Also the file's imports with new ones, then a marker and one fragment inside a function, or new code alone:
    (..., True).  With ``members``, the file's ``package`` line and imports with new ones, a marker, then members
    of a class the update does not show: (the header to its marker, the members, False)."""
    grammar = language_of(language) if language is not None else None
    if grammar is None or grammar in ("markdown", "bash"):
        return None
    in_file = {line.strip() for line in doc_lines}
    k = 0
    while k < len(update_lines) and (not update_lines[k].strip() or is_marker(update_lines[k]) or
                                     _HEADER_LINE.match(update_lines[k]) and update_lines[k].strip() in in_file):
        k += 1  # (the file's own ``package`` line above them: only for members, below)
    headed = any(_HEADER_LINE.match(line) for line in update_lines[:k])
    first = k
    while k < len(update_lines) and (not update_lines[k].strip() or IMPORT_LINE.match(update_lines[k]) or
                                     is_marker(update_lines[k]) and IMPORT_LINE.match(next(
                                         (line for line in update_lines[k + 1:] if line.strip()), ""))):
        k += 1  # (a marker between imports stands for the file's others)
    imports = [line for line in update_lines[first:k] if line.strip() and not is_marker(line)]
    marked = k < len(update_lines) and is_marker(update_lines[k])
    rest = update_lines[k + 1:] if marked else update_lines[k:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    shown = [n for n, line in enumerate(rest) if line.strip() and not is_marker(line)]
    inside = marked and shown and indent_of(rest[0]) > 0 and \
        not any(is_marker(line) for line in rest[shown[0]:shown[-1]])  # (the file's imports with new ones, a
    # marker, then one fragment inside a function: the imports merge with the file's, the lines where they fit)
    if not marked and shown and not indent_of(rest[shown[0]]) and not any(is_marker(line) for line in rest):
        defined = set(definitions_in(keys_of(doc_lines)).values())  # (or then new definitions alone: "Add `csv`
        new = set(definitions_in(keys_of(rest)).values())  # to the imports, and put the view right after ...:")
        inside = inside or bool(new) and not new & defined
    members = members and marked and shown and all(indent_of(rest[n]) > 0 for n in shown[:-1]) and \
        (indent_of(rest[shown[-1]]) > 0 or CLOSING.match(rest[shown[-1]])) and \
        (any(is_marker(line) for line in rest) or
         bool(set(definitions_in(keys_of(rest)).values()) & set(definitions_in(keys_of(doc_lines)).values())))
    # (the file's imports with new ones, a marker, then members of a class the update does not show: the imports
    # merge with the file's, the members by theirs)
    if not imports or headed and not members or \
            (all if inside or members else any)(line.strip() in in_file for line in imports) or \
            not any(IMPORT_LINE.match(line) for line in doc_lines):
        return None
    if members:  # (the header as shown, its marker keeping the rest: the shown imports place and rewrite the file's)
        return "".join(update_lines[:k + 1]), "".join(rest), False
    if inside or any(is_marker(line) for line in update_lines[first:k]):  # (as the update groups them: the
        imports = update_lines[first:k]  # blank line between the file's groups is the file's; a marker between
        # them keeps the file's others)
        while imports and not imports[-1].strip():
            imports = imports[:-1]
    return ("".join(imports), "".join(rest), inside) if rest else None


def _merge_update(document: str, update: str, language: str | None = None, *, force: bool = False,
                  after: str | None = None, before: str | None = None, whole: bool = False,
                  into: str | None = None) -> Merge:
    """The file the update makes, and the region it changed; UpdateError when the update cannot be placed.

    ``language`` is the file's name, extension or an editor's language id (None: guessed from the text); with
    it the update is placed by the file's syntax where both parse (``program.blocks``), else line by line.
    A merge that breaks a file which parsed before is refused unless ``force``.  ``after`` names the definition
    that new definitions shown alone or between markers go after (a chat answer's "add this right after
    `create`"; "": the file's end, "add these to the end of the file"), ``before`` the one they go before
    ("place it right above `releaseStock`"); ``into``, the class new methods go in ("add this method to the
    `Cart` class").  ``whole``: the answer says the update is the whole new file
    ("Here's the full file:"); without a marker and at least a third of the file's length, it replaces it.  An
    update that is a unified diff (``@@`` hunks) is applied as one (``program.patch``), one of SEARCH/REPLACE
    sections as those (``program.search_replace``)."""
    if not update.strip():
        raise UpdateError("the update is empty")
    if after is not None and after.endswith(" calls"):  # ("add these after the existing `check` calls")
        placed = _after_the_last_call(split_lines(document), split_lines(update), after[:-len(" calls")])
        if placed is not None:
            return _checked(placed, language_of(language) if language is not None else guess_language(document),
                            force, update)
        after = after[:-len(" calls")]
    if after is not None and after.endswith(" tests"):  # ("after the existing `add_months` tests": the last test
        stem = after[:-len(" tests")]  # whose name holds it)
        tests = [name for name in definitions_in(keys_of(split_lines(document))).values()
                 if stem in name and "test" in name.lower() and name != stem]
        after = tests[-1] if tests else stem
    if looks_like_patch(update):
        return merge_patch(document, update)
    if looks_like_search_replace(update):
        return merge_search_replace(document, update)
    if looks_like_codex_patch(update):
        updates = [text for action, _, text in codex_patch_files(update) if action == "update"]
        if len(updates) != 1:
            raise UpdateError("the patch does not update exactly one file: apply it as a chat answer "
                              "(cad-lsp apply --answer), which reads every file it names")
        return merge_patch(document, updates[0])
    doc_lines, update_lines = split_lines(document), split_lines(update)
    if not doc_lines:
        raise UpdateError("the file is empty: there is nothing to apply an update to")
    grammar = language_of(language) if language is not None else guess_language(document)
    reindented = braces_markers_indented(as_the_file_indents(doc_lines, update_lines), _COMMENT_OF.get(grammar))
    if reindented != update_lines:  # tabs the answer turned into spaces, or the other way round; {{ ... }}
        update_lines = reindented
        update = "".join(update_lines)
    moved = with_moved_bodies(doc_lines, update_lines)  # ("// ... existing body of Send ..." in a new function)
    if moved != update_lines:
        update_lines = moved
        update = "".join(update_lines)
    if grammar == "c" and _CPP_HEADER.search(document):
        grammar = "cpp"  # a ``.h`` header holding C++ (a class, a namespace)
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    if grammar == "php" and len(shown) > 1 and update_lines[shown[0]].strip() == "<?php" and \
            update_lines[shown[1]][:1] in (" ", "\t"):  # ``<?php`` above a method pasted alone: the model's habit
        update_lines = update_lines[shown[1]:]  # of opening every PHP block, not the file's first line
        update = "".join(update_lines)
    if (language or "").lower().endswith((".json", "json")):
        added = json_members_added(doc_lines, update_lines, after)
        if added is not None:  # (a new namespace of messages, "after `Navigation`", or at the object's end)
            merged = "".join(added)
            return Merge.spanning(document, json_commas(document, merged) or merged)
        update_lines = json_fragment(doc_lines, update_lines)
        update = "".join(update_lines)
    named = (language or "").lower()
    yaml = named.endswith((".yml", ".yaml", "yaml"))
    if after and yaml:  # ("right after `resources` is a good spot")
        placed_after = _after_yaml_key(doc_lines, update_lines, after)
        if placed_after is not None:
            return _checked(placed_after, grammar, force, update)
    placed = (merge_yaml_keys(doc_lines, update_lines) or append_yaml_items(doc_lines, update_lines)) if yaml else \
        merge_table_keys(doc_lines, update_lines) if named.endswith((".toml", "toml", ".ini", ".cfg")) else \
        merge_table_keys(doc_lines, update_lines, flat=True) if re.search(r"(?:^|/|\.)env(?:\.[\w-]+)?$", named) and \
        not any(line.lstrip().startswith("[") for line in doc_lines) else None
    if placed is not None:
        merged = "".join(placed)
        return Merge.spanning(document, merged)
    closed = _closing_what_it_opened(doc_lines, update_lines) if grammar != "python" else []
    if not closed and (grammar == "python" or named.endswith((".gd", "gdscript"))):  # (blocks end by indentation)
        closed = _rest_of_the_body(doc_lines, update_lines)
    if closed:
        update_lines = update_lines + closed
        update = "".join(update_lines)
    if whole and not any(is_marker(line) for line in update_lines) and \
            3 * len(update_lines) >= len(doc_lines) and not _starts_or_ends_inside(doc_lines, update_lines):
        pieces = [Piece(line, None, k + 1) for k, line in enumerate(update_lines)]
        return _checked(_finish(document, update, pieces, frozenset(range(1, len(doc_lines) + 1)), None, True),
                        grammar, force, update)
    shown = [line for line in update_lines if line.strip()]
    last = next((line for line in reversed(doc_lines) if line.strip()), "")
    if after is None and before is None and (name := _another_clause(doc_lines, update_lines)) is not None:
        placed = _at_named_block(doc_lines, update_lines, ("after", name))  # (after the name's last clause)
        if placed is not None:
            return _checked(placed, grammar, force, update)
    if after == "" and len(shown) > 1 and CLOSING.match(shown[-1]) and shown[-1].rstrip() == last.rstrip() and \
            indent_of(shown[0]) > indent_of(last):
        after = None  # ("at the end of the module": members, then the module's ``end``, which places them)
    if after == "" and into and (placed := _at_the_end_of_named(doc_lines, update_lines, into)) is not None:
        return _checked(placed, grammar, force, update)  # ("at the end of the `StyleSheet.create` call")
    if after == "" and shown and indent_of(shown[0]) and all(indent_of(line) >= indent_of(shown[0]) for line in shown):
        placed = _new_members(doc_lines, update_lines, grammar, into) or \
            (_at_the_end_inside(doc_lines, update_lines) if _new_code_only(doc_lines, update_lines) else None)
        if placed is not None:  # ("add these at the end of `ArticleTest`", members: the end of their class, not
            # of the file)
            return _checked(placed, grammar, force, update)
    placed = _before_the_closing_line(doc_lines, update_lines) if before is None and after in (None, "") else None
    closing = [line for line in doc_lines if line.strip()][-1:]
    if placed is None and after == "" and before is None and closing and _new_code_only(doc_lines, update_lines):
        placed = _before_the_closing_line(doc_lines, update_lines + closing)  # (the end of the file is inside the
        # block its last line closes: a C++ namespace's ``}  // namespace linalg``)
    if placed is not None:
        return _checked(placed, grammar, force, update)
    lead = next((k for k, line in enumerate(update_lines) if line.strip()), 0)
    rest = update_lines[lead + 1:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    if after is None and before is None and is_marker(update_lines[lead]) and indent_of(update_lines[lead]) and \
            rest and _new_code_only(doc_lines, rest) and indent_of(rest[0]):
        placed = _new_members(doc_lines, rest, grammar, into)  # ("  // ... the other tests ..." above new
        if placed is not None:  # members, nothing of the file around them: the end of their class)
            return _checked(placed, grammar, force, update)
    said = after or before
    if _names_a_line(doc_lines, said) and \
            not {line.strip() for line in update_lines if line.strip()} & {key.strip() for key in doc_lines} and \
            (placed := _at_named_line(doc_lines, update_lines, "after" if after else "before", said)) is not None:
        return _checked(placed, grammar, force, update)  # (a whole line named as the place, "directly above the
        # `r.Use(middleware.RealIP)` line", and new lines: there, not as a rewrite of a line like them)
    if said and (placed := _beside_named_case(doc_lines, update_lines, "after" if after else "before", said)):
        return _checked(placed, grammar, force, update)  # (new ``case`` clauses "between `"del"` and `"list"`")
    blockwise = merge_by_blocks(doc_lines, update_lines, grammar, marker_lines, _lines_of_block, after, before) \
        if grammar else None
    place = ("after", after) if after else ("before", before) if before else None
    tail = _after_leading_marker(update_lines, doc_lines) if (grammar is None or blockwise is None) and after == "" \
        else None
    if tail is not None:  # "-- ... existing queries ..." then a new query "at the end of the file"
        candidates = [(0, _appended(document, "".join(tail)))]
    elif blockwise is None and after == "" and _new_code_only(doc_lines, update_lines):
        candidates = [(0, _appended(document, update))]  # "add these styles at the end of the file"
        try:
            candidates.append((1, _line_merge(document, update)))
        except UpdateError:
            pass
    elif blockwise is None and place is not None and \
            (_nothing_of_the_file(doc_lines, update_lines, statements=True, place=place[1]) or
             _new_definitions_only(doc_lines, update_lines)) \
            and (named_place := _at_named_block(doc_lines, update_lines, place)) is not None:
        candidates = [(0, named_place)]  # (new code alone, its place said: there, not onto a line like its own)
    elif blockwise is None:
        try:
            candidates = [(0, _line_merge(document, update, place=place))]  # UpdateError: nothing places it
            if place is not None and _rewrote_the_place(doc_lines, update_lines, candidates[0][1].merged, place[1]) \
                    and (beside := _at_named_line(doc_lines, update_lines, *place)) is not None:
                candidates = [(0, beside)]  # ("a locking variant of `GetOrder` right below it": not over it)
        except UpdateError:
            placed = _at_named_block(doc_lines, update_lines, place) if place is not None else \
                _new_members(doc_lines, update_lines, grammar, into)
            if placed is None and place is None and into:  # ("In the `candidateFiles` suite:", new tests)
                placed = _at_the_end_of_named(doc_lines, update_lines, into)
            if placed is None and place is None:
                placed = _among_the_imports(doc_lines, update_lines)  # ("Import the new widget at the top"; one
                # Kotlin import, "Add `import org.jetbrains.exposed.sql.and`": not the file's end)
            if placed is None and grammar is None and place is None and _unrelated_new_code(doc_lines, update_lines):
                placed = _appended(document, update)  # (new CSS rules, a new query: where a reader adds them)
            if placed is None and place is None:
                placed = _entries_at_the_end(doc_lines, update_lines)
            if placed is None and after == "" and not any(is_marker(line) for line in update_lines):
                placed = _appended(document, update)  # ("Append to the end of `quantiles.jl`:", a docstring's
                # ``"""`` the only lines the file has too)
            if placed is None:
                raise
            candidates = [(0, placed)]
    else:
        candidates = [(0 if not (blockwise.partly_by_lines or blockwise.place_unused) else 1,
                       _finish(document, update, blockwise.pieces, blockwise.seen, None, blockwise.whole))]
        ends = [line for line in split_lines(candidates[0][1].merged) if line.strip()][-1:]
        if after is None and before is None and closing and _CLOSES_FILE.match(closing[0]) and ends != closing and \
                (inside := _before_the_closing_line(doc_lines, update_lines + closing)) is not None:
            candidates = [(0, inside)]  # (new code the syntax put after the line that closes the file's namespace:
            # before it, the file's end for code inside it)
        try:
            candidates.append((0 if blockwise.partly_by_lines or blockwise.place_unused else 1,
                               _line_merge(document, update, place=place)))
        except UpdateError:
            pass
    # New methods, then their class's closing line (the file's last): the methods at the end of that class, the
    # line not written again, where the other readings break the file (a test whose title grew is a rewrite, and a
    # method the file has, shown among new ones, is placed by them).
    if after is None and before is None and len(shown) > 2 and CLOSING.match(shown[-1]) and \
            shown[-1].rstrip() == last.rstrip() and indent_of(shown[0]) > indent_of(last) and \
            _new_code_only(doc_lines, update_lines) and \
            all(_breaks(document, merge.merged, grammar, update) for _, merge in candidates):
        members = update_lines[:max(k for k, line in enumerate(update_lines) if line.strip())]
        closing_members = _new_members(doc_lines, members, grammar, into)
        if closing_members is not None:
            candidates.append((3, closing_members))
    # The merge that parses where the file did, then the one that removes fewest lines the update did not show
    # (a marker the syntax reads as a block's end where the update meant lines), then the one that takes no
    # context for new code, then the one that writes all the update shows in its order (a reading that drops a
    # closing brace the update shows, or writes it before the new code it follows), then the syntax's, unless
    # it merged a block line by line (lines that see the whole file place a fragment better than lines that
    # see the block), then lines that trust context near markers (weighed only when the others fall short: it
    # can win on nothing else).  The order is weighed only between merges equal before it: it reads the file.
    scores: dict[int, tuple] = {}
    dead_before = dead_code(document)  # (the file's own, counted once for every candidate)

    def score(candidate):
        rank, merge = candidate
        if id(merge) not in scores:
            opcodes = _opcodes(document, merge.merged)
            scores[id(merge)] = (_breaks(document, merge.merged, grammar, update), _dropped(document, update,
                                                                                            merge.merged),
                                 _stray(document, merge.merged, opcodes), merge.unseen_lines,
                                 _stutters(document, merge.merged, opcodes),
                                 merge.repeats_moved, dead_code(merge.merged) > dead_before)
        return scores[id(merge)]

    def best_of(candidates):
        least = min(score(candidate) for candidate in candidates)
        tied = [candidate for candidate in candidates if score(candidate) == least]
        if len(tied) == 1:
            return tied[0]
        return min(tied, key=lambda c: (out_of_order(update_lines, split_lines(c[1].merged)), c[0]))

    best = best_of(candidates)
    if score(best) != (False, 0, 0, 0, 0, 0, False):
        try:
            best = best_of([best, (2, _line_merge(document, update, context=True, place=place))])
        except UpdateError:
            pass
    merge = best[1]
    left_out = score(best)[1]
    if left_out >= LEFT_OUT and not force:
        raise UpdateError(f"the merge would leave out {left_out} new lines the update shows (it reads them as the "
                          f"file's own, changed): check where the update goes, or apply it with force")
    if (language or "").lower().endswith((".json", "json")):
        merged = json_commas(merge.document, merge.merged)
        if merged is not None:
            merge = replace(merge, merged=merged, text=merged, first=1, last=max(1, len(split_lines(merge.document))))
    merged = _above_the_module_return(merge.document, merge.merged)
    if merged != merge.merged:
        merge = replace(merge, merged=merged, text=merged, first=1, last=max(1, len(split_lines(merge.document))))
    return _checked(merge, grammar, force, update)


_MODULE_RETURN = re.compile(r"^return\s+[A-Za-z_][\w.]*\s*$")  # a Lua module's last line: ``return Config``


def _above_the_module_return(document: str, merged: str) -> str:
    """A merge that wrote new lines after the ``return M`` a module ends with (a marker keeps the file, then new
    settings): the new lines go above it, set off as it is, where the module still holds them."""
    doc_lines, lines = split_lines(document), split_lines(merged)
    last = next((j for j in range(len(doc_lines) - 1, -1, -1) if doc_lines[j].strip()), None)
    if last is None or not _MODULE_RETURN.match(doc_lines[last]):
        return merged
    at = max((k for k, line in enumerate(lines) if line.rstrip() == doc_lines[last].rstrip()), default=None)
    if at is None or not any(line.strip() for line in lines[at + 1:]):
        return merged
    head, tail, gap = lines[:at], [line for line in lines[at + 1:]], []
    while head and not head[-1].strip():
        gap.insert(0, head.pop())
    while tail and not tail[0].strip():
        tail.pop(0)
    while tail and not tail[-1].strip():
        tail.pop()
    newline = _terminator(doc_lines)
    if not tail[-1].endswith(("\n", "\r")):
        tail[-1] += newline
    text = "".join(head + (gap or [newline]) + tail + (gap or [newline]) + [lines[at]])
    return text if merged.endswith(("\n", "\r")) else text.rstrip("\r\n")  # (the file's last terminator kept)


LEFT_OUT = 3  # new lines of the update a merge may not leave out unless forced


def _dropped(document: str, update: str, merged: str) -> int:
    """How many of the update's new lines (distinctive ones, neither markers nor the file's) a merge leaves out:
    a new method after ``# ... existing methods ...`` read as the old one it resembles, and lost."""
    def norm(line: str) -> str:
        return line.strip().rstrip(",;")
    have = {norm(line) for line in split_lines(document)} | {norm(line) for line in split_lines(merged)}
    return sum(1 for line in split_lines(update) if len(norm(line)) >= DISTINCTIVE_LINE and not is_marker(line)
               and norm(line) not in have)


def _opcodes(document: str, merged: str) -> list[tuple]:
    return difflib.SequenceMatcher(None, split_lines(document), split_lines(merged), autojunk=False).get_opcodes()


def _stray(document: str, merged: str, opcodes: list[tuple] | None = None) -> int:
    """How many lines a merge writes after a block's closing line at the left edge, indented as if inside a
    block, with nothing after them but the left edge or the file's end: lines of a function or of markup placed
    past the file's end (two lone JSX lines shown between markers), which the parsers tolerate."""
    after = split_lines(merged)
    count = 0
    for tag, _, _, j1, j2 in opcodes if opcodes is not None else _opcodes(document, merged):
        new = [line for line in after[j1:j2] if line.strip()]
        above = next((line for line in reversed(after[:j1]) if line.strip()), "")
        below = next((line for line in after[j2:] if line.strip()), "")
        if tag in ("insert", "replace") and new and all(indent_of(line) >= 4 for line in new) and \
                CLOSING.match(above) and not indent_of(above) and not indent_of(below):
            count += len(new)
    return count


def _stutters(document: str, merged: str, opcodes: list[tuple] | None = None) -> int:
    """How many lines a merge writes again right below or above themselves: new lines that open with the two or
    more lines just above where they go (``in`` and ``{`` shown as context above a new ``imports`` list, read as
    new and written twice), or end with the ones just below."""
    after = split_lines(merged)
    count = 0
    for tag, _, _, j1, j2 in opcodes if opcodes is not None else _opcodes(document, merged):
        if tag not in ("insert", "replace"):
            continue
        new = [line.strip() for line in after[j1:j2] if line.strip()]
        above = [line.strip() for line in after[:j1] if line.strip()][-len(new):][::-1]
        below = [line.strip() for line in after[j2:] if line.strip()][:len(new)]
        top = next((m for m in range(len(new), 1, -1) if new[:m] == above[:m][::-1]), 0)
        bottom = next((m for m in range(len(new), 1, -1) if new[-m:] == below[:m]), 0)
        count += max(top, bottom) if max(top, bottom) < len(new) else 0
    return count


def _closing_what_it_opened(doc_lines: list[str], update_lines: list[str]) -> list[str]:
    """The lines an update leaves out at its end when it opens a class (a struct, an impl) it does not close (a
    class shown down to the new method and no further: chat models drop the class's ``}``), where the file
    closes all it opens: a marker for the rest of the innermost block, then a ``}`` for each block (the file's
    closing line for it, ``}  // namespace x``), at its opening line's indentation.  An update that ends with a
    marker inside a block it opened at the left edge (a function, ``  // ... rest unchanged``) gets each block's
    ``}`` and, after each, the marker again for the rest of the block around it and of the file.  Nothing when the
    update closes what it opens."""
    def open_at(lines: list[str]) -> list[str]:
        stack: list[str] = []  # the lines that open the blocks still open (a lone ``{``: the line above it)
        previous = ""
        for line in lines:
            for char in QUOTED.sub("", line):
                if char == "{":
                    stack.append(previous if line.strip() == "{" and previous.strip() else line)
                elif char == "}" and stack:
                    stack.pop()
            previous = line if line.strip() else previous
        return stack

    def closer(opener: str) -> str:  # the file's line closing that block (``}  // namespace x``), else ``}``
        found = [j for j, line in enumerate(doc_lines) if line.strip() == opener.strip()]
        depth = 1  # (the block the opener opens: its last ``{``)
        for line in doc_lines[found[0] + 1:] if len(found) == 1 else []:
            depth += _braces(line)
            if depth <= 0:
                return line.strip() if line.lstrip().startswith("}") else "}"
        return "}"

    last = next((line for line in reversed(update_lines) if line.strip()), "")
    if not last or open_at(doc_lines):
        return []
    openers = open_at(update_lines)
    if is_marker(last):  # "  // ... rest unchanged" inside a function the update opened: the rest of the
        stack = [line[: len(line) - len(line.lstrip())] for line in openers]  # function, then of the file
        depth = len(last) - len(last.lstrip())
        if not openers or depth <= len(stack[-1]) or len(stack[0]) > 0 or \
                any(_unclosed(line) != "{" for line in openers):
            return []  # (a call's callback, ``step("x", async () => {``, closes otherwise: ``});``)
        newline = "\r\n" if last.endswith("\r\n") else "\n"
        lines = []  # each block closed, then a marker for the rest of the block around it (and of the file)
        for indent, opener in reversed(list(zip(stack, openers))):
            lines += [indent + closer(opener) + newline, indent + last.strip() + newline]
        return [("" if update_lines[-1].endswith(("\n", "\r")) else newline) + lines[0]] + lines[1:]
    if not openers or not TYPE_OPENER.search(QUOTED.sub("", openers[0])):
        return []  # (only a class, a struct, an impl left open: a function's or a test's end is a snippet's end)
    stack = [line[: len(line) - len(line.lstrip())] for line in openers]
    newline = "\r\n" if last.endswith("\r\n") else "\n"
    inner = stack[-1] + ("\t" if stack[-1].endswith("\t") else "    ")
    body = [line for line in update_lines if line.strip()]
    deeper = [line[: len(line) - len(line.lstrip())] for line in body if line.startswith(stack[-1]) and
              len(line) - len(line.lstrip()) > len(stack[-1])]
    inner = min(deeper, key=len) if deeper else inner
    return [("" if last.endswith(("\n", "\r")) else newline) + inner + "// ..." + newline] + \
        [indent + closer(opener) + newline for indent, opener in reversed(list(zip(stack, openers)))]


def _rest_of_the_body(doc_lines: list[str], update_lines: list[str]) -> list[str]:
    """A marker for the rest of a definition whose head and first lines an update shows, in a file whose blocks
    end by indentation (Python, GDScript): the update ends on a line of that body, and at least TRUNCATED_TAIL
    lines of it follow in the file.  Chat models show the top of a function they change and stop ("call it right
    after `died.emit`", "the rest of the function stays the same"); read as the whole function, its rest would go
    unseen.  Nothing when the update ends elsewhere."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    if len(shown) < 2 or is_marker(update_lines[shown[-1]]):
        return []
    top = min(indent_of(update_lines[k]) for k in shown)
    head = [k for k in shown if indent_of(update_lines[k]) == top][-1]
    if head == shown[-1] or not update_lines[head].rstrip().endswith(":"):
        return []
    found = [j for j, line in enumerate(doc_lines) if line.strip() == update_lines[head].strip()]
    if len(found) != 1:
        return []
    end = found[0] + 1  # the file's block of that head: the lines deeper than it (and blank lines)
    while end < len(doc_lines) and (not doc_lines[end].strip() or
                                    indent_of(doc_lines[end]) > indent_of(doc_lines[found[0]])):
        end += 1
    last = update_lines[shown[-1]].strip()
    body = [k for k in shown if k > head]
    if LEAVES.match(last) and indent_of(update_lines[shown[-1]]) == \
            indent_of(update_lines[body[0]]):
        return []  # (it ends on a ``return`` of the body itself: nothing after it runs, the function is shown whole)
    at = [j for j in range(found[0] + 1, end) if doc_lines[j].strip() == last]
    if len(at) == 1 and re.fullmatch(r"[)\]}]+[,;]?", last):  # (a bracket that closes: the file's, where the line
        above = [j for j in range(found[0], at[0]) if doc_lines[j].strip()][-1:]  # above it is the same too; not
        at = at if above and doc_lines[above[0]].strip() == update_lines[shown[-2]].strip() else []  # the ``)``
        # of a new ``return jsonify(`` that ends the function shown whole)
    below = [j for j in range(at[0] + 1, end) if doc_lines[j].strip()] if len(at) == 1 else []
    if len(below) < TRUNCATED_TAIL:
        return []
    newline = "\r\n" if update_lines[shown[-1]].endswith("\r\n") else "\n"
    indent = doc_lines[below[0]][: indent_of(doc_lines[below[0]])]
    return [("" if update_lines[-1].endswith(("\n", "\r")) else newline) + indent + "# ..." + newline]


def _braces(text: str) -> int:
    """How many more braces a text opens than it closes, strings and comments aside."""
    code = QUOTED.sub("", text)
    return code.count("{") - code.count("}")


def _unclosed(line: str) -> str:
    """The brackets a line opens and leaves open, in order (``{`` for ``function f() {``, ``({`` for
    ``step("x", async () => {``)."""
    stack: list[str] = []
    for char in QUOTED.sub("", line):
        if char in "([{":
            stack.append(char)
        elif char in ")]}" and stack:
            stack.pop()
    return "".join(stack)


def merge_search_replace(document: str, update: str) -> Merge:
    """SEARCH/REPLACE sections (``program.search_replace``) applied to the file, as a Merge; UpdateError when
    one does not apply."""
    sections = parse_sections(update)
    if not sections:
        raise UpdateError("the block has no complete SEARCH/REPLACE section")
    try:
        merged = apply_sections(document, sections)
    except PatchError as exc:
        raise UpdateError(str(exc)) from None
    return Merge.spanning(document, merged)


def merge_patch(document: str, patch: str) -> Merge:
    """A unified diff applied to the file (``program.patch``), as a Merge; UpdateError when it does not apply."""
    try:
        merged = apply_patch(document, patch)
    except PatchError as exc:
        raise UpdateError(str(exc)) from None
    return Merge.spanning(document, merged)


def _ends_line(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def _breaks(document: str, merged: str, grammar: str | None, update: str = "") -> bool:
    """Whether the merge has syntax errors where the file had none (and the update alone has none there)."""
    return bool(grammar) and breaks(document, merged, grammar, update)


def _checked(merge: Merge, grammar: str | None, force: bool, update: str = "") -> Merge:
    if not force and _breaks(merge.document, merge.merged, grammar, update):
        raise UpdateError(f"the merged file would not parse as {grammar} where the file does (the update is "
                          f"not valid {grammar} in its place): check the update, or apply it with force")
    return merge


def _another_clause(doc_lines: list[str], update_lines: list[str]) -> str | None:
    """The name of the function a lone new clause is of (Elixir's ``def handle_in("typing", ...)`` where the file has
    ``def handle_in("new_message", ...)``): the update one whole definition, its head matching a literal none of
    the file's clauses of that name match.  Such a clause goes after them, not in place of one."""
    keys = [line_key(line) for line in update_lines]
    heads = [k for k, key in enumerate(keys) if CLAUSE_HEAD.match(key)]
    if len(heads) != 1 or any(is_marker(line) for line in update_lines):
        return None
    literal, name = clause_literal(keys[heads[0]:heads[0] + 1]), CLAUSE_HEAD.match(keys[heads[0]])["name"]
    shown = [k for k, key in enumerate(keys) if key.strip()]
    if literal is None or block_end(keys, heads[0]) <= shown[-1]:
        return None
    doc_keys = [line_key(line) for line in doc_lines]
    clauses = [j for j, key in enumerate(doc_keys) if (m := CLAUSE_HEAD.match(key)) and m["name"] == name]
    if not clauses or any(clause_literal(doc_keys[j:j + 1]) in (None, literal) for j in clauses):
        return None
    return name


def _at_named_block(doc_lines: list[str], update_lines: list[str], place: tuple[str, str]) -> Merge | None:
    """New code with no line of the file in it, put after (or before) the block the answer names, when one of
    the file's lines opens a block of that name (a call titled by it: "right after the `--color` argument" for
    ``parser.add_argument(`` then ``"--color",``); None otherwise."""
    side, name = place
    keys = [line_key(line) for line in doc_lines]
    if re.fullmatch(r"(?:[\w$]+\.)+[\w$]+\(.*\)", name) and not any(key.strip().startswith(name) for key in keys):
        name = re.match(r"(?:[\w$]+\.)+([\w$]+)\(", name)[1]  # (a call said whole that no line starts with: its name)
    if name.startswith("<") and side == "before":  # an element by its tag: "right above the `<table>`"
        tags = [j for j, key in enumerate(keys) if re.match(rf"\s*{re.escape(name[:-1])}[\s>/]", key)]
        if len(tags) != 1 or any(is_marker(line) for line in update_lines):
            return None
        apart = [Piece(_terminator(doc_lines), None, None)] if tags[0] and not keys[tags[0] - 1].strip() else []
        return _inserted(doc_lines, update_lines, tags[0], _shown_pieces(update_lines) + apart)
    found = [j for j in range(len(keys)) if (defined := definition_name(keys, j)) and names(defined, name)]
    if not found:  # ("after the `patch` route": the one call of that name that a title names, ``patch "/tasks/:id" do``)
        called = [j for j in range(len(keys)) if (defined := definition_name(keys, j)) and " " in defined and
                  defined.split(" ", 1)[0].split(".")[-1] == name]
        found = called if len(called) == 1 else []
    if not found:  # ("after the `list_users/0` test": the one test whose title starts with that function)
        about = [j for j in range(len(keys)) if (defined := definition_name(keys, j)) and " " in defined and
                 re.match(rf"{re.escape(name)}(?:/\d+)?(?:\s|$)", defined.split(" ", 1)[1])]
        found = about if len(about) == 1 else []
    if not found:  # ("after the `"delete"` handler": the one clause for that literal, ``def handle_event("delete",``)
        clauses = [j for j, key in enumerate(keys) if (m := CLAUSE_HEAD.match(key)) and m["literal"] and
                   m["literal"].strip("\"':") == name]
        found = clauses if len(clauses) == 1 else []
    if not found and " " in name and not any(is_marker(line) for line in update_lines):
        callee, title = name.split(" ", 1)  # ("above the `Route::resource('invoices', ...)` line": the one call so
        calls = [j for j, key in enumerate(keys)  # titled, with the lines that continue it)
                 if re.match(rf"\s*{re.escape(callee)}\(\s*([\"']){re.escape(title)}\1", key)]
        if len(calls) == 1:
            at = calls[0] if side == "before" else block_end(keys, calls[0])
            while side == "after" and at > calls[0] + 1 and not keys[at - 1].strip():
                at -= 1  # (the blank lines below the call stay below the new code)
            gap = [Piece(_terminator(doc_lines), None, None)]
            apart = at > 0 and not keys[at - 1].strip() if side == "before" else at < len(keys) and not keys[at].strip()
            new = _shown_pieces(update_lines)
            head = line_key(new[0].text) if new else ""
            apart = apart and (side == "before" or bool(re.match(r"\s*[\w$.:]+\s*\(\s*[\"'`]", head) or
                                                        is_declaration(head)))  # (a route after a route is set
            # apart; ``app.useGlobalPipes(`` after ``app.setGlobalPrefix('api');`` is its next statement)
            return _inserted(doc_lines, update_lines, at, new + gap if side == "before" and apart else
                             gap + new if apart else new)
    titled = [j for j, key in enumerate(keys) if re.match(rf"\s*[\w.$]+\(\s*([\"']){re.escape(name)}\1.*\)\s*;?\s*$", key)]
    if not found and len(titled) == 1 and not any(is_marker(line) for line in update_lines):
        at = titled[0] + (side == "after")  # (a one-line call titled by it: "after `--out`" for an argument)
        return _inserted(doc_lines, update_lines, at, _shown_pieces(update_lines))
    if not found and not any(is_marker(line) for line in update_lines):
        declared = [j for j, key in enumerate(keys) if (m := _DECLARED_ALONE.match(key) or _TYPE_ON_ONE_LINE.match(key))
                    and m["name"] == name and key.count("(") == key.count(")") and key.count("{") == key.count("}")]
        if len(declared) == 1:  # a property declared on its line ("below the `contacts` property"): after or
            at = block_end(keys, declared[0]) if side == "after" else declared[0]  # before it, set apart as the
            # file sets the next line apart (the lines that go on with it too: ``selectTotal = (state) =>``)
            while at > declared[0] + 1 and not keys[at - 1].strip():
                at -= 1
            new = _shown_pieces(update_lines)
            gap = [Piece(_terminator(doc_lines), None, None)]
            above = at > 0 and keys[at - 1].strip() and not keys[at - 1].rstrip().endswith(("{", "(", "["))
            below = at < len(keys) and keys[at].strip() and not CLOSING.match(keys[at])
            return _inserted(doc_lines, update_lines, at, (gap if above and side == "after" else []) + new +
                             (gap if below and side == "before" else []))
        return _at_named_element(doc_lines, update_lines, side, name) or \
            _at_named_section(doc_lines, update_lines, side, name) or \
            _at_named_line(doc_lines, update_lines, side, name)
    if not found or any(is_marker(line) for line in update_lines):
        return None
    found = [j for j in found if not any(k < j < block_end(keys, k) for k in found)]  # (a class, not its
    # constructor of the same name: Dart's ``const CartLine(...)`` inside ``class CartLine``)
    at = block_end(keys, found[-1]) if side == "after" else found[0]  # (clauses, overloads: all of them)
    while side == "after" and at < len(keys) and indent_of(keys[at]) == indent_of(keys[found[-1]]) and \
            re.match(r"\s*[\]}]+\)[^;]*\{\s*$", keys[at]):
        at = block_end(keys, at)  # (the body below parameters that close on their own line: Dart's ``}) {``)
    newline = _terminator(doc_lines)
    new = [Piece(line if line.endswith(("\n", "\r")) else line + newline, None, k + 1)
           for k, line in enumerate(update_lines)]
    while new and not new[-1].text.strip():
        new.pop()
    while new and not new[0].text.strip():
        new.pop(0)
    head = line_key(new[0].text).rstrip() if new else ""  # (a test, a route: set apart as definitions are; a new one
    definition = is_declaration(keys[found[-1]]) or is_accessor(keys[found[-1]]) or \
        TITLED_CALL.match(keys[found[-1]]) or MAKE_TARGET.match(keys[found[-1]]) or keys[found[-1]].rstrip().endswith("{") and head.endswith("{") or \
        TITLED_CALL.match(head) and head.endswith(("{", " do", ":"))  # that opens a block says so itself)
    tight = side == "after" and 0 < at < len(keys) and keys[at - 1].strip() and keys[at].strip() and \
        (not CLOSING.match(keys[at]) or at - found[-1] == 1 and found[-1] > 0 and keys[found[-1] - 1].strip() and
         not keys[found[-1] - 1].rstrip().endswith(("{", "(", "[", ":")))  # (the file sets these blocks one right
    # below the other: CSS rules, methods; one-line case classes, the last before the closing brace)
    if definition and at > 0 and keys[at - 1].strip() and new[0].text.strip() and not tight:
        new.insert(0, Piece(newline, None, None))  # set apart, as definitions are (statements are not)
    if definition and at < len(keys) and keys[at].strip() and not CLOSING.match(keys[at]) and not tight:
        new += [Piece(newline, None, None)] * max(_blanks_above(keys, at), 1)  # (the file's blank lines between
        # definitions there: two in Python and GDScript)
    return _inserted(doc_lines, update_lines, at, new)


# A property or a constant declared on one line: ``val contacts: Flow<...> = ...``, ``private readonly ttl = 60;``
_DECLARED_ALONE = re.compile(r"^\s*(?:(?:private|public|protected|internal|override|static|readonly|final|lateinit|open|"
                             r"export|pub|const|let|var|val|local|type|typealias|@Published|@State)\s+)+(?:\([^)]*\)\s*)?"
                             r"(?:[A-Za-z_$][\w$<>\[\]?,.]*\s+)?(?P<name>[A-Za-z_$][\w$]*)\s*[:=;]")  # (Java's ``private
# Instant createdAt = Instant.now();``: a type before the name)
_TYPE_ON_ONE_LINE = re.compile(r"^\s*(?:(?:export|pub|public|private|internal)\s+)?"
                               r"(?:enum|struct|class|record|interface)\s+"
                               r"(?P<name>[A-Za-z_$][\w$]*)\b[^{]*\{.*\}\s*;?\s*$")  # (``enum OrderStatus { a, b }``)


def _section_heads(keys: list[str], name: str) -> list[int]:
    """The file lines that are a comment heading a section of that name (``# Auth``, ``// Output``), or another
    line that heads one so (``[Header("Ground Check")]``, ``#region Dash``)."""
    return [j for j, key in enumerate(keys) if re.match(rf"\s*(?:#+|//|--|;+)\s*{re.escape(name)}\b", key, re.I) or
            (heading(key) or "").lower() == name.lower()]


def _at_named_element(doc_lines: list[str], update_lines: list[str], side: str, name: str) -> Merge | None:
    """New markup elements put after (or before) the entry an element's text names: a plist's
    ``<key>NSPhotoLibraryAddUsageDescription</key>`` with the value element below it, or the ``<dependency>`` whose
    ``<artifactId>spring-boot-starter-validation</artifactId>`` it is; at that entry's indentation.  None where
    no one element holds just that text, or the new lines do not open an element."""
    keys = [line_key(line) for line in doc_lines]
    shown = [line for line in update_lines if line.strip()]
    if not shown or not shown[0].lstrip().startswith("<"):
        return None
    texts = [j for j, key in enumerate(keys)
             if re.match(rf"\s*<([\w.:-]+)[^>]*>\s*{re.escape(name)}\s*</\1>\s*$", key)]
    if len(texts) != 1:
        return None
    j = texts[0]
    first, last = j, j
    if keys[j].lstrip().startswith("<key>"):  # a plist entry: the key, then its value (``<array>`` ... ``</array>``)
        value = next((i for i in range(j + 1, len(keys)) if keys[i].strip()), None)
        if value is None:
            return None
        last = _element_end(keys, value)
    else:  # the element it is a part of (its ``<dependency>``)
        first = next((i for i in range(j - 1, -1, -1) if keys[i].strip() and indent_of(keys[i]) < indent_of(keys[j])),
                     None)
        opened = re.match(r"\s*<([\w.:-]+)[^>/]*>\s*$", keys[first]) if first is not None else None
        if opened is None:
            return None
        last = _element_end(keys, first)
    if last is None:
        return None
    indent = doc_lines[first][:len(doc_lines[first]) - len(doc_lines[first].lstrip())]
    base = indent_of(shown[0])  # (the update is indented with the file's tabs or spaces already: its own depths
    if any(indent_of(line) < base for line in shown):  # below its first line are kept as they are)
        return None  # (lines less indented than the first: not one run of entries)
    new = [replace(piece, text=indent + piece.text[base:]) if piece.text.strip() else piece
           for piece in _shown_pieces(update_lines)]
    return _inserted(doc_lines, update_lines, last + 1 if side == "after" else first, new)


def _element_end(keys: list[str], first: int) -> int | None:
    """The line (0-based) closing the element line ``first`` opens: itself where it closes it (``<string>x</string>``,
    ``<true/>``), else the next ``</tag>`` at its indentation."""
    opened = re.match(r"\s*<([\w.:-]+)[^>]*?(/?)>", keys[first])
    if opened is None:
        return None
    tag = opened[1]
    if opened[2] or re.search(rf"</{re.escape(tag)}>\s*$", keys[first]):
        return first
    return next((i for i in range(first + 1, len(keys)) if keys[i].strip() == f"</{tag}>" and
                 indent_of(keys[i]) == indent_of(keys[first])), None)


def _at_named_section(doc_lines: list[str], update_lines: list[str], side: str, name: str) -> Merge | None:
    """New lines put after (or before) a section that a comment line heads (``# Auth`` in a ``.env``, "after the
    `# Auth` section"): the comment and the lines below it up to a blank line.  Set apart by a blank line, as the
    file's sections are; None where no one comment line is that heading, or the file does not set them apart."""
    keys = [line_key(line) for line in doc_lines]
    heads = _section_heads(keys, name)
    if len(heads) != 1 or "" not in (key.strip() for key in keys):
        return None
    newline = _terminator(doc_lines)
    new = _shown_pieces(update_lines)
    if side == "after":
        at = next((j for j in range(heads[0], len(keys)) if not keys[j].strip()), len(keys))
        return _inserted(doc_lines, update_lines, at, [Piece(newline, None, None)] + new)
    return _inserted(doc_lines, update_lines, heads[0], new + [Piece(newline, None, None)])


def _at_the_end_of_named(doc_lines: list[str], update_lines: list[str], name: str) -> Merge | None:
    """New entries said to go at the end of a named call's or literal's brackets ("at the end of the
    `StyleSheet.create` call", "in the `candidateFiles` suite"): right above the line closing what the file's one
    line naming it opens, or after the last line of a block that ends by indentation, or of the section a comment
    heads (``# Output``); None where no one line names it, or where the update shows a line of the file (a context
    places it)."""
    keys = [line_key(line) for line in doc_lines]
    shown = {key.strip() for key in keys if key.strip() and not CLOSING.match(key)}
    if any(line.strip() in shown for line in update_lines):
        return None
    named = re.compile(rf"(?<![\w.$]){re.escape(name)}\s*(?:\(\s*[\[{{]|[\[{{(]|[:=].*[\[{{(])\s*$|"
                       rf"^\s*[\w.]+\s*\(?\s*([\"'`]){re.escape(name)}\1.*(?:[{{(:]|\bdo)\s*$")  # (or titled by it:
    opens = [j for j, key in enumerate(keys) if named.search(key)]  # ``suite "candidateFiles":``)
    heads = _section_heads(keys, name)
    if not opens and len(heads) == 1:  # (a section a comment heads: 'to the "Output" section of requirements.txt')
        end = next((j for j in range(heads[0] + 1, len(keys)) if not keys[j].strip()), len(keys))
        return _inserted(doc_lines, update_lines, end, _shown_pieces(update_lines))
    if len(opens) != 1:
        return None
    end = block_end(keys, opens[0])
    if end <= opens[0] + 1:
        return None
    closed = bool(CLOSING.match(keys[end - 1]))
    if not closed and not keys[opens[0]].endswith(":"):
        return None
    end -= closed
    while not keys[end - 1].strip():  # (a block that ends by indentation, Nim's or Python's: after its last line)
        end -= 1
    apart = [Piece(_terminator(doc_lines), None, None)] if any(not key.strip() for key in keys[opens[0]:end]) else []
    return _inserted(doc_lines, update_lines, end, apart + _shown_pieces(update_lines))  # (set apart as its parts)


def _after_yaml_key(doc_lines: list[str], update_lines: list[str], key: str) -> Merge | None:
    """New YAML keys said to go after one of the file's at their depth (``resources`` at the top; a compose
    file's ``db`` service for a new ``db-test``): after that key's block, set apart as the file sets those keys
    apart; None where the file has not one such key, or the update shows a key of that depth the file has."""
    first = next((line for line in update_lines if line.strip()), "")
    depth = indent_of(first)
    at_depth = re.compile(rf"{first[:depth]}[\w.-]+\s*:") if not first[:depth].strip() else None
    if at_depth is None:
        return None
    tops = [j for j, line in enumerate(doc_lines) if at_depth.match(line)]
    found = [j for j in tops if re.match(rf"\s*{re.escape(key)}\s*:", doc_lines[j])]
    ours = {doc_lines[j].split(":", 1)[0].strip() for j in tops}
    theirs = [line.split(":", 1)[0].strip() for line in update_lines if at_depth.match(line)]
    if len(found) != 1 or not theirs or ours & set(theirs):
        return None
    end = next((j for j in range(found[0] + 1, len(doc_lines)) if doc_lines[j].strip() and
                not doc_lines[j].lstrip().startswith("#") and indent_of(doc_lines[j]) <= depth), len(doc_lines))
    while end > found[0] + 1 and (not doc_lines[end - 1].strip() or doc_lines[end - 1].lstrip().startswith("#")):
        end -= 1  # (the blank lines and the comments above the next key are the next key's)
    apart = any(not doc_lines[j - 1].strip() for j in tops[1:])
    gap = [Piece(_terminator(doc_lines), None, None)] if apart else []
    return _inserted(doc_lines, update_lines, end, gap + _shown_pieces(update_lines))


def _rewrote_the_place(doc_lines: list[str], update_lines: list[str], merged: str, name: str) -> bool:
    """Whether a merge rewrote the one line that names the place the answer gives, which the update does not
    name: new code said to go beside it took its place instead."""
    named = [line for line in doc_lines if re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line)]
    return len(named) == 1 and named[0] not in split_lines(merged) and \
        not any(re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line) for line in update_lines)


def _paragraphs_closed(new: list[Piece]) -> bool:
    """Whether new code is paragraphs set apart by a blank line, the last closing a block it opened."""
    shown = [piece.text for piece in new]
    while shown and not shown[-1].strip():
        shown.pop()
    return len(shown) > 2 and any(not line.strip() for line in shown) and CLOSING.match(shown[-1]) is not None


def _at_named_line(doc_lines: list[str], update_lines: list[str], side: str, name: str) -> Merge | None:
    """New code put after (or before) the one file line that starts with the name the answer gives, a statement
    rather than a definition ("right after the existing `member` block", "after the `after_create_commit`
    line"), or, for new statements, where none does, the one line that names it (``install(CallLogging)``):
    after the block that line opens, if any; set off by a blank line where the new code opens a definition and
    the file line is not the last of its block.  None where no line, or several, start so (name it)."""
    keys = [line_key(line) for line in doc_lines]
    found = [j for j, key in enumerate(keys) if key.strip().startswith(name) and
             not (re.match(r"[\w$]", name[-1:]) and re.match(r"[\w$]", key.strip()[len(name):len(name) + 1]))]
    if not found:  # (quoted: "after `"os"`" in a Go import block)
        found = [j for j, key in enumerate(keys) if key.strip().strip(",;") in (f'"{name}"', f"'{name}'")]
    new = _shown_pieces(update_lines)
    if not found and new and not is_declaration(line_key(new[0].text)) and not DECORATOR.match(new[0].text):
        found = [j for j, key in enumerate(keys) if not IMPORT_LINE.match(key) and
                 re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", key.split("//")[0].split(" #")[0])]  # (a
        # statement, the one line naming it: "install it after `CallLogging`", "the scope after `unpaid`")
        declaring = [j for j in found if _declares(keys[j], name)]
        found = declaring if len(found) > 1 and len(declaring) == 1 else found  # ("below the line that declares
        # the `error` state": ``const [error, setError] = ...``, not the lines that use it)
        if len(found) == 1 and any(line_key(p.text).strip().rstrip(";,") == keys[found[0]].strip().rstrip(";,")
                                   for p in new):
            return None  # (the line shown, its ``;`` moved to the new last line: the other readings')
    if len(found) == 1 and new and side == "after" and line_key(new[0].text).strip() == keys[found[0]].strip():
        new = new[1:]  # (the line itself shown above the new ones: "after `Param`", ``Param,`` then ``ParseIntPipe,``)
    if len(found) != 1 or not new or any(is_marker(line) for line in update_lines):
        return None
    j = found[0]
    if side == "before":  # (a definition above a line that the file sets apart from the one above it: apart;
        # above its doc comment and attributes, which are its, unless the new lines are such, for it)
        if not all(ATTACHED_LINE.match(piece.text) for piece in new if piece.text.strip()):
            j = attached_start(keys, j)
            while j > 0 and COMMENT_LINE.match(keys[j - 1]) and indent_of(keys[j - 1]) == indent_of(keys[j]):
                j -= 1  # (the comment right above it is about it: "# This must remain at the bottom")
        apart = j > 0 and not keys[j - 1].strip() and \
            (_opens_a_body(new) or COMMENT_LINE.match(new[0].text) is not None) or \
            _paragraphs_closed(new) and not CLOSING.match(keys[j])  # (a group with its own comment; a guard
        # written in paragraphs, at the top of a body: "add this check at the very top of `store()`, before the
        # `DB::transaction` call")
        while apart and new and not new[-1].text.strip():
            new = new[:-1]
        return _inserted(doc_lines, update_lines, j, new + [Piece(_terminator(doc_lines), None, None)] * apart)
    heading = COMMENT_LINE.match(keys[j]) is not None  # (a comment naming it heads its code: sqlc's ``-- name:
    # GetOrder :one`` above the query, which ends at the blank line)
    at = next((n for n in range(j + 1, len(keys)) if not keys[n].strip()), len(keys)) if heading else \
        block_end(keys, j)
    while at > j + 1 and not keys[at - 1].strip():
        at -= 1  # (the blank lines below it stay below the new code)
    new = _less_what_follows(new, keys, at)
    blanks = next((n for n in range(at, len(keys)) if keys[n].strip()), len(keys)) - at
    gap = [Piece(_terminator(doc_lines), None, None)] * max(1, blanks)  # (as the file sets the next line apart)
    opens = (_opens_a_body(new) or heading and COMMENT_LINE.match(new[0].text) is not None) and \
        (blanks > 0 or at > j + 1 and (is_declaration(line_key(new[0].text)) or
                                       DECORATOR.match(new[0].text) is not None))
    # (one line joins the file's run; a statement block below one the file does not set apart is not set apart)
    last_of_block = at >= len(keys) or CLOSING.match(keys[at]) is not None
    above = gap if opens and not last_of_block else []
    below = gap if opens and at < len(keys) and keys[at].strip() and not last_of_block else []
    shown_first = next(k for k, line in enumerate(update_lines) if line.strip())
    if not above and shown_first and keys[at - 1].strip():  # (a blank line the update shows above the new ones:
        above = [Piece(_terminator(doc_lines), None, None)]  # a group of their own, ``"github.com/go-chi/..."``)
    return _inserted(doc_lines, update_lines, at, above + new + below)


def _less_what_follows(new: list[Piece], keys: list[str], at: int) -> list[Piece]:
    """New lines less those they end with that are the file's next lines from ``at`` on, in order: context shown
    below the new code (``</div>``, ``\"\"\"``, ``end`` after a button added below ``</ul>``), not more of it."""
    shown = [k for k, piece in enumerate(new) if piece.text.strip()]
    following = [key.strip() for key in keys[at:] if key.strip()]
    count = next((m for m in range(len(shown) - 1, 0, -1)
                  if [line_key(new[k].text).strip() for k in shown[-m:]] == following[:m] and
                  _braces("".join(piece.text for piece in new[:shown[-m]])) == 0), 0)  # (the new code closes
    # what it opens: a ``}`` that ends it is its own)
    if not count:
        return new
    new = new[:shown[-count]]
    while new and not new[-1].text.strip():
        new = new[:-1]
    return new


def _opens_a_body(new: list[Piece]) -> bool:
    """Whether new lines are a definition or a block with a body (``Matrix Matrix::transpose() const {``, ``if
    cli.json {``), set apart as the file sets its blocks; one line (``drainTimeout := flag.Duration(...)``) is not."""
    head = line_key(new[0].text)
    return sum(1 for piece in new if piece.text.strip()) > 1 and \
        (is_declaration(head) or DECORATOR.match(new[0].text) is not None or head.rstrip().endswith(("{", ":")))


def _declares(key: str, name: str) -> bool:
    """Whether a line sets or declares ``name``: it is assigned (``const [error, setError] = ...``, ``pollEvery :=
    ...``) or given as a key (``logLevel: "info",``)."""
    code = key.split("//")[0]
    m = re.search(rf"(?<![\w$.]){re.escape(name)}(?![\w$])", code)
    if m is None:
        return False
    rest = code[m.end():]
    assigned = re.search(r":=|(?<![=!<>:])=(?![=>])", rest)
    return assigned is not None and "(" not in rest[:assigned.start()] or re.match(r"\s*\??:\s*\S", rest) is not None


# A clause of a ``switch`` or a ``match``: ``case "del":``, ``case .paused:``, Rust's ``"del" => {``
_CASE_HEAD = re.compile(r"^\s*(?:case\s+(?P<case>[^:]+?)\s*:|(?P<arm>\S[^=]*?)\s*=>\s*\{?)\s*$")


def _case_said(key: str) -> str | None:
    """The value a clause's head matches, unquoted (``del`` of ``case "del":``), or None for no clause head."""
    m = _CASE_HEAD.match(key)
    return (m["case"] or m["arm"]).strip().strip("\"'`").lstrip(".") if m else None


def _beside_named_case(doc_lines: list[str], update_lines: list[str], side: str, name: str) -> Merge | None:
    """New clauses of a ``switch`` or ``match`` (the update opens with a clause head the file has not) put after
    (or before) the one clause the answer names by its value ("between `"del"` and `"list"`"), up to the next
    clause head, or the line that closes them; None for any other update."""
    keys, shown = keys_of(doc_lines), [line for line in update_lines if line.strip()]
    new_values = {_case_said(line_key(line)) for line in shown} - {None}
    if not shown or _case_said(line_key(shown[0])) is None or any(is_marker(line) for line in shown) or \
            new_values & {_case_said(key) for key in keys}:
        return None
    found = [j for j, key in enumerate(keys) if _case_said(key) == name.strip("\"'`").lstrip(".")]
    if len(found) != 1 or indent_of(keys[found[0]]) != indent_of(shown[0]):
        return None
    at, depth = found[0], indent_of(keys[found[0]])
    braced = keys[at].rstrip().endswith("{")  # (Rust's ``"x" => {`` closes at its own depth; Go's ``case`` does not)
    if side == "after":
        at += 1
        while at < len(keys) and (not keys[at].strip() or indent_of(keys[at]) > depth or
                                  braced and indent_of(keys[at]) == depth and CLOSING.match(keys[at])):
            at += 1
        while not keys[at - 1].strip():
            at -= 1
    return _inserted(doc_lines, update_lines, at, _shown_pieces(update_lines))


def _shown_pieces(update_lines: list[str]) -> list[Piece]:
    """The update's lines from its first shown line to its last, as new lines (blank lines around them left out)."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    return [Piece(update_lines[k], None, k + 1) for k in range(shown[0], shown[-1] + 1)] if shown else []


def _inserted(doc_lines: list[str], update_lines: list[str], at: int, new: list[Piece]) -> Merge:
    """The file with ``new`` lines put before its line index ``at``, nothing of it removed."""
    pieces = [Piece(line, r + 1, None) for r, line in enumerate(doc_lines[:at])] + new + \
        [Piece(line, r + 1, None) for r, line in enumerate(doc_lines[at:], at)]
    return _finish("".join(doc_lines), "".join(update_lines), pieces, frozenset(), None, False)


_CLOSES_FILE = re.compile(r"^(?:[)\]}]+;?|end)\s*(?://.*|#.*)?$")  # ``}  // namespace strutil``, at the left edge


def _before_the_closing_line(doc_lines: list[str], update_lines: list[str]) -> Merge | None:
    """New code at the left edge, none of its lines there the file's, then the file's last line, which closes what
    holds that code (``}  // namespace strutil``): the code goes before that line, set off from the code above it
    as the file sets off that line; None for any other update."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    rows = [r for r, line in enumerate(doc_lines) if line.strip()]
    if len(shown) < 2 or not rows or update_lines[shown[-1]].strip() != doc_lines[rows[-1]].strip() or \
            not _CLOSES_FILE.match(doc_lines[rows[-1]]) or indent_of(update_lines[shown[0]]):
        return None
    if _braces("".join(update_lines)) != -1:
        return None  # (the last line closes a block the update opens: a new resource's ``}``)
    depth, opener = 0, None  # the file's line that opens the block its last line closes
    for j in range(rows[-1], -1, -1):
        depth -= _braces(doc_lines[j])
        if depth == 0:
            opener = j
            break
    if opener is None or not any(line.strip() and not indent_of(line) for line in doc_lines[opener + 1: rows[-1]]):
        return None  # (only a block whose inside the file writes at the left edge: a C++ namespace's, not a module's)
    ours = {line.strip() for line in doc_lines}  # (no definition of the file's: its heads at the left edge)
    if any(is_marker(update_lines[k]) or not indent_of(update_lines[k]) and update_lines[k].strip() in ours and
           not CLOSING.match(update_lines[k]) for k in shown[:-1]):
        return None
    at = rows[-2] + 1 if len(rows) > 1 else 0  # after the last line above the closing one
    gap = [Piece(line, None, None) for line in doc_lines[at: rows[-1]]]
    new = [Piece(line, None, k + 1) for k, line in enumerate(update_lines[shown[0]: shown[-2] + 1], shown[0])]
    return _inserted(doc_lines, update_lines, at, gap + new)


# A line that is one entry of a collection: ``'invalid_promo_code' => 'This promo code ...',``, ``retries: 3,``
_ENTRY = re.compile(r"""^\s+(?:(["'])[^"']+\1|[A-Za-z_$][\w$-]*)\s*(?:=>|:|=)\s*\S.*,\s*$""")


def _entries_at_the_end(doc_lines: list[str], update_lines: list[str]) -> Merge | None:
    """New entries alone (``'invalid_promo_code' => '...',`` for a Laravel language file), in a file that is one
    collection of such entries, closed at its end (``];``): after its last entry, before the closing line; None
    otherwise."""
    shown = [line for line in update_lines if line.strip()]
    rows = [r for r, line in enumerate(doc_lines) if line.strip()]
    if not shown or len(rows) < 2 or not all(_ENTRY.match(line) for line in shown) or \
            len({indent_of(line) for line in shown}) != 1 or not _CLOSES_FILE.match(doc_lines[rows[-1]]) or \
            not _ENTRY.match(doc_lines[rows[-2]]) or indent_of(doc_lines[rows[-2]]) != indent_of(shown[0]):
        return None
    keys = {line.split("=>")[0].split(":")[0].strip() for line in doc_lines if _ENTRY.match(line)}
    if any(line.split("=>")[0].split(":")[0].strip() in keys for line in shown):
        return None  # (an entry of the file's, rewritten: lines place it)
    new = [Piece(line, None, k + 1) for k, line in enumerate(update_lines) if line.strip()]
    return _inserted(doc_lines, update_lines, rows[-2] + 1, new)


def _after_the_last_call(doc_lines: list[str], update_lines: list[str], name: str) -> Merge | None:
    """New lines said to go after the file's calls of ``name`` (test cases of a shell script's ``check``): after
    the last line that calls it, at the depth the calls are; None where the file has no such line or the update
    holds a line of the file."""
    keys = keys_of(doc_lines)
    calls = [j for j, key in enumerate(keys) if re.match(rf"\s*{re.escape(name)}(?:\s|\()", key) and
             definition_name(keys, j) is None]
    ours = {key.strip() for key in keys}
    if not calls or any(line.strip() in ours for line in update_lines if line.strip()):
        return None
    last = calls[-1]
    while last + 1 < len(keys) and keys[last].rstrip().endswith(("\\", "(", ",")):
        last += 1  # (a call over several lines)
    return _inserted(doc_lines, update_lines, last + 1, _shown_pieces(update_lines))


def _at_the_end_inside(doc_lines: list[str], update_lines: list[str]) -> Merge | None:
    """New indented code said to go at the end ("add a context at the end of the describe block") in a file that
    ends by closing, at the left edge, the block that holds code at that depth (a spec's ``end``, a class's
    ``}``): before that closing line, set apart as the file sets its lines apart there; None otherwise."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    rows = [r for r, line in enumerate(doc_lines) if line.strip()]
    if not shown or len(rows) < 2 or any(is_marker(line) for line in update_lines) or \
            not _CLOSES_FILE.match(doc_lines[rows[-1]]) or \
            indent_of(doc_lines[rows[-2]]) < indent_of(update_lines[shown[0]]) or \
            not any(indent_of(line) == indent_of(update_lines[shown[0]]) for line in doc_lines if line.strip()):
        return None
    at = rows[-2] + 1
    apart = any(not line.strip() for line in doc_lines[rows[0]: rows[-1]])
    return _inserted(doc_lines, update_lines, at, [Piece(_terminator(doc_lines), None, None)] * apart +
                     _shown_pieces(update_lines))


def _members_before_the_closing_line(doc_lines: list[str], update_lines: list[str]) -> Merge | None:
    """New members, then the file's last line, which closes the class that holds them (new tests, then the test
    class's ``}``: "Append to `CommitTest`"): no line of them at their own depth the file's but closing lines and
    decorators (``@Test``; their bodies may repeat other tests' lines); they go at that class's end, as
    ``_at_the_end_inside`` places them.  None otherwise.  Tried where every reading refused: no line of the file
    distinctive enough places them."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    rows = [r for r, line in enumerate(doc_lines) if line.strip()]
    if len(shown) < 2 or not rows or update_lines[shown[-1]].rstrip() != doc_lines[rows[-1]].rstrip() or \
            indent_of(update_lines[shown[0]]) <= indent_of(doc_lines[rows[-1]]) or \
            _braces("".join(update_lines[:shown[-1]])) != 0:
        return None  # (the last line at the file's last line's own depth: ``  end`` closes the update's ``def``)
    ours, depth = {line.strip() for line in doc_lines}, indent_of(update_lines[shown[0]])
    if any(update_lines[k].strip() in ours and indent_of(update_lines[k]) <= depth and
           not CLOSING.match(update_lines[k]) and not DECORATOR.match(update_lines[k]) for k in shown[:-1]):
        return None
    if set(definitions_in(keys_of(update_lines)).values()) & set(definitions_in(keys_of(doc_lines)).values()):
        return None  # (a method of the file's name, rewritten: the syntax or the lines place it)
    return _at_the_end_inside(doc_lines, update_lines[:shown[-1]])


def _new_members(doc_lines: list[str], update_lines: list[str], grammar: str | None,
                 into: str | None = None) -> Merge | None:
    """A method or a route shown with nothing around them, where ``program.new_code`` finds them one place (the
    end of the file's one class, or of the class ``into`` names; after the file's last route); None otherwise."""
    found = new_members_place(doc_lines, update_lines, grammar, _terminator(doc_lines), into)
    if found is None:
        return None
    at, new = found
    return _inserted(doc_lines, update_lines, at, [Piece(line, None, None) for line in new])


STATEMENTS_ALONE = 6  # new statements alone, at most this many lines, go where the answer says (not declarations)


def _nothing_of_the_file(doc_lines: list[str], update_lines: list[str], statements: bool = False,
                         place: str = "") -> bool:
    """Whether an update is new declarations alone: no marker, a line that declares something (``statements``:
    or any code, ``const [key, setKey] = useState(0);``, a few lines that rewrite no line of the file but the one
    that starts with ``place``, where the answer puts them), and no line of it (but blank and closing ones) the
    file's (not a comment rewritten: "update the grammar comment above `expr`")."""
    ours = {line.strip() for line in doc_lines}
    if statements and not any(is_declaration(line) or _DECLARED_ALONE.match(line) for line in update_lines):
        shown = [line.strip() for line in update_lines if line.strip()]
        statements = len(shown) <= STATEMENTS_ALONE and not any(  # (a few new lines, none a rewrite of a file
            difflib.SequenceMatcher(None, new, old.strip(), autojunk=False).ratio() >= 0.6  # line: not the grammar
            for new in shown if not DECORATOR.match(new)  # comment of a parser rewritten; the line said to be the
            for old in doc_lines  # place is not what it rewrites; an attribute is the new code's own)
            if old.strip() and not (place and old.strip().startswith(place)))
    return not any(is_marker(line) for line in update_lines) and \
        any(is_declaration(line) or _DECLARED_ALONE.match(line) or statements and not COMMENT_LINE.match(line)
            for line in update_lines if line.strip()) and \
        not any(line.strip() in ours for line in update_lines if line.strip() and not CLOSING.match(line) and
                not DECORATOR.match(line))  # (``#[arg(long)]`` above a new field is the new field's)


def _new_definitions_only(doc_lines: list[str], update_lines: list[str]) -> bool:
    """Whether an update is whole new definitions: no marker, and each of its lines at the left margin the head
    of a definition the file does not have, or the line that closes one (Terraform's ``resource "aws_s3_bucket"
    "logs" {`` whose ``block_public_acls = true`` lines the file's ``site`` bucket has too)."""
    defined = set(definitions_in(keys_of(doc_lines)).values())
    keys = keys_of(update_lines)
    top = [k for k, key in enumerate(keys) if key.strip() and not indent_of(key) and not COMMENT_LINE.match(key)]
    heads = [definition_name(keys, k) for k in top if not CLOSING.match(keys[k])]
    code = [k for k, key in enumerate(keys) if key.strip() and not COMMENT_LINE.match(key)]
    return bool(heads) and code[0] == top[0] and not any(is_marker(line) for line in update_lines) and \
        all(name is not None and name not in defined for name in heads)  # (it starts with a head, not with the
    # last lines of the place's own body)


def _new_code_only(doc_lines: list[str], update_lines: list[str]) -> bool:
    """Whether an update is new code alone: no marker, and its first line is none of the file's (not context;
    a decorator the file has, ``@pytest.fixture``, is the new definition's below it)."""
    first = next((line.strip() for line in update_lines if line.strip() and not DECORATOR.match(line)), "")
    return not any(is_marker(line) for line in update_lines) and first not in {line.strip() for line in doc_lines}


def _unrelated_new_code(doc_lines: list[str], update_lines: list[str]) -> bool:
    """Whether an update is new blocks with nothing of the file in it, for a file of blocks: no marker, no line
    of it the file has but blank and closing ones (``}``), it ends closing a block or a statement (a CSS rule, a
    query's ``;``), and the file sets its blocks apart with blank lines.  For a file no grammar reads, such new
    code's place is the file's end (a line for a flat list, ``requirements.txt``, says nothing of where)."""
    last = next((line for line in reversed(update_lines) if line.strip()), "")
    if any(is_marker(line) for line in update_lines) or not any(not line.strip() for line in doc_lines) or \
            not (CLOSING.match(last) or last.rstrip().endswith(";")):
        return False
    ours = {line.strip() for line in doc_lines}
    return not any(line.strip() in ours and not CLOSING.match(line) for line in update_lines if line.strip())


def _after_leading_marker(update_lines: list[str], doc_lines: list[str]) -> list[str] | None:
    """An update that is a marker for the whole file and then new code ("a new query at the end of the file":
    ``-- ... existing queries ...`` first): the code after it; None for any other update, and for one whose
    code, indented, ends with the file's closing line less indented (a test module's ``end``: the code goes
    inside the module, before it)."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    if not shown or not is_marker(update_lines[shown[0]]) or any(is_marker(update_lines[k]) for k in shown[1:]):
        return None
    last = next((line for line in reversed(doc_lines) if line.strip()), "")
    if len(shown) > 2 and CLOSING.match(last) and update_lines[shown[-1]].rstrip() == last.rstrip() and \
            indent_of(update_lines[shown[1]]) > indent_of(last):
        return None
    rest = update_lines[shown[0] + 1:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    once = {line for line, n in Counter(line.strip() for line in doc_lines).items() if n == 1}
    if rest and len(rest[0].strip()) >= DISTINCTIVE_LINE and rest[0].strip() in once:
        return None  # (the line of the file it starts with places it: "At the end of `Player:update`", its last
        # line, then the new ones)
    return rest or None


def _gap_before_last_block(doc_lines: list[str], depth: int = 0) -> int:
    """The blank lines the file sets before its last top-level block (two in PEP 8's Python), at least one; for
    code at a depth, before its last line at that depth (none between Hspec's ``it`` examples)."""
    heads = [j for j in range(1, len(doc_lines)) if doc_lines[j].strip() and indent_of(doc_lines[j]) == depth and
             not CLOSING.match(doc_lines[j])] if depth else []
    if heads:
        return min(_blanks_above(doc_lines, heads[-1]), 2)
    for j in range(len(doc_lines) - 1, 0, -1):
        if doc_lines[j].strip() and not doc_lines[j][:1].isspace() and not doc_lines[j - 1].strip():
            return max(1, min(_blanks_above(doc_lines, j), 2))
    return 1


def _blanks_above(lines: list[str], at: int) -> int:
    """How many blank lines stand right above line index ``at`` (all of them, where only blank lines do)."""
    return next((gap for gap in range(at) if lines[at - gap - 1].strip()), at)


_SETTING = re.compile(r"^[A-Za-z_][\w.]*\s*(?::[^=]+)?=(?!=)")  # ``MAX_CART_ITEMS = 50`` at the left edge


_CALL_HEAD = re.compile(r"^([\w$.:]+)\(.*\)\s*;?\s*$")  # a line that is one call at the left edge: ``map("n", ...)``


def _appended(document: str, update: str) -> Merge:
    """The update after the file's last line, set off as the file sets off its last block (a blank line, two
    in PEP 8's Python) unless either has a blank line there."""
    doc_lines = split_lines(document)
    newline = _terminator(doc_lines)
    pieces = [Piece(line, n, None) for n, line in enumerate(doc_lines, 1)]
    if not doc_lines[-1].endswith(("\n", "\r")):
        pieces[-1] = Piece(doc_lines[-1] + newline, len(doc_lines), None)
    shown = [line for line in split_lines(update) if line.strip()]
    callees = {m[1] if (m := _CALL_HEAD.match(line)) else None for line in doc_lines[-2:] + shown}
    in_the_run = all(_SETTING.match(line) for line in shown) and _SETTING.match(doc_lines[-1]) is not None or \
        len(doc_lines) > 1 and len(callees) == 1 and None not in callees  # (another ``map("n", ...)`` below the
    # file's last two: the same run)
    if doc_lines[-1].strip() and split_lines(update)[0].strip() and not in_the_run:  # (a new setting below the
        pieces += [Piece(newline, None, None)] * _gap_before_last_block(doc_lines, indent_of(shown[0]))  # run of
        # settings it ends)
    pieces += [Piece(line, None, k) for k, line in enumerate(split_lines(update), 1)]
    return _finish(document, update, pieces, frozenset(), None, False)


def _line_merge(document: str, update: str, context: bool = False, place: tuple[str, str] | None = None) -> Merge:
    """The update placed line by line (``align_update``), with the doc comments it leaves out kept."""
    update = _with_entries_kept(split_lines(document), _with_unshown_docs(split_lines(document), update))
    placement = align_update(document, update, context=context, place=place)
    return _finish(document, update, _line_pieces(placement), _seen_by_lines(placement), placement,
                   placement.whole_file)


def _with_unshown_docs(doc_lines: list[str], update: str) -> str:
    """The update with the file's doc comments and attributes (``@doc \"\"\"...\"\"\"``, ``/** ... */``,
    decorators) put back above the definitions it shows without them, a blank line (or nothing) above their head:
    functions rewritten one after another, their docs left out for brevity, keep them (read as lines, the docs
    between two shown functions were deleted; the syntax's reading keeps them so too)."""
    update_lines = split_lines(update)
    doc_keys, keys = keys_of(doc_lines), keys_of(update_lines)
    defined = definitions_in(doc_keys)
    counts = Counter(defined.values())
    shown = {line.strip() for line in update_lines}
    out, changed = [], False
    for k, line in enumerate(update_lines):
        name = definition_name(keys, k)
        found = [j for j, defined_name in defined.items() if defined_name == name] if name else []
        if len(found) == 1 and counts[name] == 1 and (k == 0 or not keys[k - 1].strip()) and \
                indent_of(keys[k]) == indent_of(doc_keys[found[0]]) and \
                _defining_word(keys[k], name) == _defining_word(doc_keys[found[0]], name):
            start = attached_start(doc_keys, found[0])
            if start < found[0] and not any(doc_lines[j].strip() in shown for j in range(start, found[0])
                                            if len(doc_lines[j].strip()) >= DISTINCTIVE_LINE):
                out += doc_lines[start:found[0]]
                changed = True
        out.append(line)
    return "".join(out) if changed else update


def _defining_word(key: str, name: str) -> str | None:
    """The word a definition's head puts before its name (``func``, ``var``, ``def``): a Swift ``var isRetryable``
    of an extension is not the ``func isRetryable`` a class gets, and its doc comment is not that one's."""
    m = re.search(rf"(\w+)\s+{re.escape(name)}(?![\w$])", key)
    return m[1] if m else None


def _lines_of_block(document_lines: list[str], update_lines: list[str]) -> tuple[list[Piece], frozenset[int]] | None:
    """A block's lines merged line by line (its update has a fragment the parser cannot read), for the placement
    by syntax: the pieces and the lines removed in sight, or None when lines place it nowhere."""
    try:
        placement = align_update("".join(document_lines), _with_entries_kept(document_lines, "".join(update_lines)))
    except UpdateError:
        return None
    return _line_pieces(placement), _seen_by_lines(placement)


def _with_entries_kept(doc_lines: list[str], update: str) -> str:
    """The update with a marker between a block's head and the first entry it shows, where the file has other
    entries of that kind between them and the update elides the block's rest with a marker of its own
    (``dependencies {``, one ``implementation(...)`` of the file's, a new one, ``// ...``): the entries above
    are kept, not deleted for being left out between two shown lines."""
    update_lines = split_lines(update)
    where = {line.strip(): j for j, line in enumerate(doc_lines)}
    counts = Counter(line.strip() for line in doc_lines)
    for k in range(len(update_lines) - 1):
        head, entry = update_lines[k], update_lines[k + 1]
        if not head.rstrip().endswith(("{", "(", "[")) or counts[head.strip()] != 1 or counts[entry.strip()] != 1 or \
                is_marker(entry) or not entry.strip():
            continue
        j, j2 = where[head.strip()], where[entry.strip()]
        first = re.match(r"\s*([\w.$-]+)", entry)
        gap = [line for line in doc_lines[j + 1:j2] if line.strip()]
        depth = indent_of(entry)
        rest = update_lines[k + 2:]
        closing = next((r for r, line in enumerate(rest) if line.strip() and indent_of(line) < depth), len(rest))
        marker = next((line for line in rest[:closing] if is_marker(line)), None)
        if j2 > j + 1 and gap and first and marker is not None and \
                all(indent_of(line) == depth and line.lstrip().startswith(first[1]) for line in gap):
            return "".join(update_lines[:k + 1] + [marker] + update_lines[k + 1:])
    return update


def _line_pieces(placement: Placement) -> list[Piece]:
    """The merged lines of a line placement, each with where it comes from."""
    document = placement.document
    doc_lines = split_lines(document)
    newline = _terminator(doc_lines)
    lines, snippet = placement.lines, not placement.whole_file
    out: list[Piece] = []
    anchored = [placement.rewrites.get(k, n) for k, n in enumerate(lines)]
    touching = next(n for n in anchored if n != NEW)  # the first update line placed in the file, or a marker
    done = 0  # file lines accounted for: copied, kept by a marker, or left out (deleted)
    replaced = placement.replaced
    if snippet and touching > 0:  # the file before
        out += [Piece(line, n, None) for n, line in enumerate(doc_lines[: touching - 1], 1) if n not in replaced]
    elif not snippet and keys_of(placement.update_lines[:1]) != [""]:  # a whole file keeps the blank lines the file
        out += [Piece(line, n, None)  # starts with, unless it shows some
                for n, line in enumerate(doc_lines[: next(i for i, line in enumerate(doc_lines) if line.strip())], 1)]
    for k, n in enumerate(lines):
        if k in placement.apart:
            out.append(Piece(newline, None, None))
        if n > 0:
            written = placement.update_lines[k].rstrip("\r\n")
            ours = doc_lines[n - 1]
            # chat models drop trailing blanks, they do not add them: blanks the update has are meant
            keep = written == written.rstrip() or written == ours.rstrip("\r\n")
            out.append(Piece(ours if keep else written + ours[len(ours.rstrip("\r\n")):], n, k + 1))
            done = n
        elif n == SKIP:
            continue
        elif n == MARKER:
            first, last = placement.kept[k]
            out += [Piece(doc_lines[m - 1], m, None) for m in range(first, last + 1)]
            done = max(done, last)
        else:
            out.append(Piece(placement.update_lines[k].rstrip("\r\n") + newline, None, k + 1))
            done = max(done, placement.rewrites.get(k, 0))
    if snippet:  # and after it
        out += [Piece(line, n, None) for n, line in enumerate(doc_lines[done:], done + 1)
                if n not in replaced and n not in placement.dropped]
    return out


def _seen_by_lines(placement: Placement) -> frozenset[int]:
    """File lines a line placement removes in sight: those new lines rewrite, and those between two placed lines
    with no marker between them."""
    seen = set(placement.replaced)
    placed = [(k, n) for k, n in enumerate(placement.lines) if n > 0]
    for (k0, n0), (k1, n1) in zip(placed, placed[1:]):
        if n1 > n0 + 1 and MARKER not in placement.lines[k0:k1]:
            seen.update(range(n0 + 1, n1))
    return frozenset(seen)


def _finish(document: str, update: str, pieces: list[Piece], seen: frozenset[int], placement: Placement | None,
            whole_file: bool) -> Merge:
    """The merged file from its lines, the region that changed, and what it removes unseen."""
    doc_lines = split_lines(document)
    newline = _terminator(doc_lines)
    pieces = _member_set_apart(pieces, doc_lines)
    if not whole_file and any(is_marker(line) for line in split_lines(update)):
        pieces = _still_used_kept(pieces, doc_lines)  # (a snippet: it elides, and may elide without a marker)
    out = [piece.text if piece.file_line is not None else piece.text.rstrip("\r\n") + newline for piece in pieces]
    out = [line if line.endswith(("\n", "\r")) else line + newline for line in out[:-1]] + out[-1:]
    # The file keeps its last terminator or its absence, whole file or snippet: a fenced block always ends its
    # last line, and text copied from an editor often does not, so neither says what the file should.
    ends_bare = not _ends_line(document)
    if out and ends_bare:
        out[-1] = out[-1].rstrip("\r\n")
    elif out and not out[-1].endswith(("\n", "\r")):
        out[-1] += newline
    merged = "".join(out)
    # The region: what differs from the file, with one unchanged line on each side where there is one.
    head = 0
    while head < min(len(out), len(doc_lines)) and out[head] == doc_lines[head]:
        head += 1
    tail = 0
    while tail < min(len(out), len(doc_lines)) - head and out[-1 - tail] == doc_lines[-1 - tail]:
        tail += 1
    first, last = max(1, head), min(len(doc_lines), len(doc_lines) - tail + 1)
    text = "".join(out[first - 1: len(out) - (len(doc_lines) - last)])
    kept = {piece.file_line for piece in pieces if piece.file_line is not None}
    shown = {line.strip() for line in split_lines(update) if line.strip()}  # (a line the
    removed = [n for n, line in enumerate(doc_lines, 1) if n not in kept and line.strip() and n not in seen and
               line.strip() not in shown]  # update shows moved or indented anew is seen where it is now)
    return Merge(merged, first, last, text, placement, _runs(removed, doc_lines), document, whole_file,
                 count_repeats_moved(doc_lines, split_lines(update), pieces, kept,
                                     None if placement is None else placement.fresh))


def _still_used_kept(pieces: list[Piece], doc_lines: list[str]) -> list[Piece]:
    """The file's definitions the merge leaves out while the merged code still uses them, and defines them
    nowhere, put back where they were (a snippet that shows the struct and the next function skipped the
    ``default_request_timeout_secs`` its attribute still names).  Code removed on purpose goes with its uses; a
    definition dropped from between shown lines, its uses left behind, was elided without a marker."""
    kept = {piece.file_line for piece in pieces if piece.file_line is not None}
    keys = keys_of(doc_lines)
    left_out = {k: name for k in range(len(keys)) if k + 1 not in kept and keys[k].strip() and
                (name := definition_name(keys, k)) is not None and len(name) >= 4}
    if not left_out:
        return pieces  # (nothing defined was left out: the common case, read at no cost)
    merged = keys_of([piece.text for piece in pieces])
    defined = set(definitions_in(merged).values())
    code = "\n".join(key for key in merged if not COMMENT_LINE.match(key))
    back: list[tuple[int, int]] = []  # the definitions to put back: first and last line, 0-based
    for k, name in left_out.items():
        if name in defined or _declares(keys[k], name) or any(first <= k <= last for first, last in back):
            continue  # (a value set, ``const i18n = createI18n({``, is replaced by another as often as not)
        first, last = attached_start(keys, k), block_end(keys, k) - 1
        while last > k and not keys[last].strip():
            last -= 1
        named = re.escape(name)  # (called, or named in a string: ``#[serde(default = "default_timeout")]``; not
        # a parameter of that name, as a pytest fixture moved to ``conftest.py`` is)
        if last > k and not any(r + 1 in kept for r in range(first, last + 1)) and \
                re.search(rf"(?<![\w$]){named}\s*\(|[\"']{named}[\"']", code) and \
                not any(_declares(key, name) or IMPORT_LINE.match(key) and re.search(rf"\b{named}\b", key)
                        for key in merged):
            back.append((first, last))
    for first, last in sorted(back, reverse=True):
        at = next((i for i, piece in enumerate(pieces) if piece.file_line is not None and piece.file_line > last + 1),
                  len(pieces))
        lines = [Piece(doc_lines[r], r + 1, None) for r in range(first, last + 1)]
        if first and not doc_lines[first - 1].strip() and at and pieces[at - 1].text.strip():
            lines.insert(0, Piece(doc_lines[first - 1], first, None))
        if last + 1 < len(doc_lines) and not doc_lines[last + 1].strip() and at < len(pieces) and \
                pieces[at].text.strip():
            lines.append(Piece(doc_lines[last + 1], last + 2, None))
        pieces = pieces[:at] + lines + pieces[at:]
    return pieces


_DOCUMENTED = re.compile(r"^\s*(?:///|//!|/\*\*|#\[|@\w|\"\"\"|#\s|//\s)")  # a member's doc comment, attribute


def _member_set_apart(pieces: list[Piece], doc_lines: list[str]) -> list[Piece]:
    """New documented members (``/// ...`` or ``#[arg]`` above a field) written after a blank line and right
    before a member of the file that the file sets apart with a blank line above it: the update shows the new
    member set apart above and not below (DeepSeek's habit); a blank line goes before the next member too.  (New
    annotations alone, ``@Cacheable(...)`` above a method's ``@Transactional``, are that method's: no line.)"""
    out: list[Piece] = []
    k = 0
    while k < len(pieces):
        out.append(pieces[k])
        run = k + 1
        while run < len(pieces) and pieces[run].file_line is None:
            run += 1
        after = pieces[run].file_line if run < len(pieces) else None
        if not pieces[k].text.strip() and k + 1 < run and after is not None and after >= 2 and \
                not doc_lines[after - 2].strip() and pieces[run - 1].text.strip() and \
                re.search(r"[;,{}]\s*$", pieces[run - 1].text) and not pieces[run - 1].text.lstrip().startswith("@") and \
                _DOCUMENTED.match(pieces[k + 1].text) and _DOCUMENTED.match(pieces[run].text):
            out += pieces[k + 1: run] + [Piece(doc_lines[after - 2], after - 1, None)]
            k = run
            continue
        k += 1
    return out


def _runs(numbers: list[int], doc_lines: list[str]) -> tuple[tuple[int, int], ...]:
    """Line numbers as (first, last) runs; blank lines between two of them join the run."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and all(not doc_lines[m - 1].strip() for m in range(runs[-1][1] + 1, n)):
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return tuple((a, b) for a, b in runs)
