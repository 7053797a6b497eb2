"""What applying a whole chat answer would do, file by file, before anything is written.

The answer's blocks (``answer.read_answer``) are grouped by the file they name, each file is read once, and
its blocks are merged into it in the answer's order by the same merge as a single apply
(``update.merge_update``), refusals included.  A path that names no file yet is a new file, whose block must
be the whole file (no marker eliding lines that do not exist).  Everything a caller needs to show one review
and to write all or nothing is here; reading and writing the files is the caller's (the command line reads
the disk, the language server the editor's open documents first).
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path, PurePosixPath

from .answer import EXTENSIONS, Block, Removal, Skipped, read_answer
from .blocks import DISTINCTIVE_LINE, SELF_FIRST, names as same_name
from .lines.reading import (
    ATTACHED_LINE, CLOSING, DECORATOR, IMPORT_LINE, SIGNATURE_LINES, TOKEN, TYPE_OPENER, block_end, definition_name,
    definitions_in, indent_of, is_declaration, keys_of)
from .lines.likeness import SIGNATURE, looks_alike, same_signature, split_over_lines
from .markers import marker_lines
from .lines.rewrites import rewritten_alone
from .place_words import code_said, place_by_code, place_in_words
from .removal import definition_lines, remove_definition
from .syntax import COMMENT_LINE, breaks, language_of
from .update import (
    Merge, NoSharedLine, UpdateError, header_end, is_marker, merge_patch, merge_search_replace, merge_update)

__all__ = ["AnswerPlan", "FileChange", "Lister", "Problem", "Reader", "list_files", "plan_answer", "read_text"]

# (text, None); (None, None) when the file does not exist; ("" or None, why) when it cannot be read.
Reader = Callable[[Path], tuple[str | None, str | None]]
# The files under a root, as paths relative to it with forward slashes.
Lister = Callable[[Path], Iterable[str]]

# Folders no answer means when it names a file by the end of its path: dependencies, build output, caches.
_NOT_SEARCHED = {"node_modules", "__pycache__", "venv", "env", "target", "build", "dist", "out", "vendor",
                 "site-packages", "bower_components"}
RANGE_LIKENESS = 0.6  # a block placed by its line range alone must be this alike to the lines it replaces
STATEMENT_LINES = 8  # lines at most of a statement a sentence says a block replaces
_SEARCH_LIMIT = 50_000  # files looked at, at most, to find one by the end of its path

@dataclass(frozen=True)
class Problem:
    """A block that goes to no file (no path and no default, a path outside the root, another language than
    the default file's), with the reason."""

    block: Block
    reason: str

    def message(self) -> str:
        return f"{self.block.describe()}: {self.reason}"


@dataclass(frozen=True)
class FileChange:
    """One file the answer touches: what it holds now (``before``; "" for a new file), what its blocks make of
    it (``after``; None when a block was refused, ``refusal`` says which and why) and each block's merge."""

    path: str  # as the user reads it: relative to the root where it lies inside it
    target: Path
    exists: bool
    before: str
    after: str | None
    blocks: tuple[Block, ...]
    merges: tuple[Merge, ...]
    refusal: str | None = None
    named_as: str | None = None  # the path the answer wrote, where it named the file by the end of its path
    removed: tuple[str, ...] = ()  # definitions removed because the prose says so ("delete the old `send`")
    at_end: tuple[int, ...] = ()  # answer lines of blocks put at the file's end, as nothing placed them

    def found_note(self) -> str | None:
        if self.named_as is None:
            return None
        return f"the answer names {self.named_as}: {self.path} is the only file whose path ends so"

    @property
    def changed(self) -> bool:
        return self.after is not None and (self.after != self.before or not self.exists)

    @property
    def unseen_lines(self) -> int:
        return sum(merge.unseen_lines for merge in self.merges)

    def unseen_notes(self) -> list[str]:
        return [note for note in (merge.unseen_note() for merge in self.merges) if note] + \
            [f"removed `{name}`, as the answer's prose says" for name in self.removed] + \
            [f"the block at line {line} of the answer repeats no line of the file and nothing says where it goes: "
             f"it was added at the file's end; check its place" for line in self.at_end]

    @property
    def unseen(self) -> list[tuple[int, int]]:
        """File lines removed unseen; after a file's first block, lines of the text the blocks before made."""
        return [span for merge in self.merges for span in merge.unseen]


@dataclass(frozen=True)
class AnswerPlan:
    files: tuple[FileChange, ...]
    problems: tuple[Problem, ...]  # blocks that go to no file
    skipped: tuple[Skipped, ...]  # blocks that are not files (commands, output)

    @property
    def refused(self) -> tuple[FileChange, ...]:
        return tuple(f for f in self.files if f.after is None)

    @property
    def complete(self) -> bool:
        """Whether every block found its file and merged: only then is the whole answer applied."""
        return not self.problems and not self.refused

    @property
    def changed(self) -> tuple[FileChange, ...]:
        return tuple(f for f in self.files if f.changed)

    def refusals(self) -> list[str]:
        """One line per block or file that will not be applied, and why."""
        return [p.message() for p in self.problems] + [f"{f.path}: {f.refusal}" for f in self.refused]


def read_text(path: Path) -> tuple[str | None, str | None]:
    """A file's text as a ``Reader`` reads it: line ends kept, UTF-8 only, (None, None) when it does not exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except IsADirectoryError:
        return None, "is a folder, not a file"
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    if b"\0" in data:
        return None, "looks like a binary file (it contains NUL bytes); only text files can be edited"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"is not UTF-8 text (byte {exc.start}): only UTF-8 files can be edited"


def plan_answer(markdown: str, root: Path, default: Path | None = None, *, read: Reader = read_text,
                force: bool = False, files: Lister | None = None) -> AnswerPlan:
    """What the answer does to each file under ``root``; blocks naming no file go to ``default`` if given.

    A path that names no file, in a folder the root does not have either, names the one file under the root
    whose path ends with it, where there is one (``app.py`` or ``utils/db.ts`` for ``src/app.py`` or
    ``src/utils/db.ts``): chat models often leave the first folders out.  ``files`` lists the root (default:
    its files on disk)."""
    reading = read_answer(markdown)
    root = Path(os.path.abspath(root))
    read = _remembering(read)
    found = _Finder(root, files or list_files)
    groups: dict[Path, list[Block]] = {}
    named_as: dict[Path, str] = {}
    problems = []
    skipped = list(reading.skipped)
    checkouts = _checkouts(root, reading.blocks, read)
    for block in reading.blocks:
        if block.cannot is not None:
            problems.append(Problem(block, block.cannot))
            continue
        target, problem = _target(block, root, default)
        inside = _absolute_inside(root, block.path, read, checkouts) if problem is not None and block.path else None
        if inside is not None:  # Copilot Chat's ``// filepath: /home/me/shop/src/app.ts``: the root's file
            target, problem = inside, None
            named_as[target] = block.path
        if problem is not None:
            problems.append(Problem(block, problem))
            continue
        if block.path is not None and read(target) == (None, None):
            tail = found.by_tail(block.path)
            found_target = resolve_path(root, tail)[0] if tail is not None else None
            if found_target is not None:
                target = found_target
                named_as[target] = block.path
            elif block.existing and target not in groups:
                skipped.append(Skipped(block.line, block.language,
                                       f"a change in {block.path}, which is not under {root}: the answer says it is "
                                       f"already there, so it is not created (apply the change to yours)"))
                continue
            elif _manifest_fragment(target.name, block.text) and target not in groups:
                skipped.append(Skipped(block.line, block.language,
                                       f"a part of {block.path}, which is not under {root}: not created as a file "
                                       f"(add it to your {target.name})"))
                continue
        if block.path is None and block.usage and _no_line_of(read(target)[0], block.text):
            skipped.append(Skipped(block.line, block.language, f"a use of the change, as the prose says: it has no "
                                                               f"line of {_shown(target, root)}, not a change"))
            continue
        groups.setdefault(target, []).append(block)
    for block in reading.going_on:  # a fragment of the file named before it, shown after a sentence of its own
        target = next((t for t, blocks in groups.items() if any(b.path == block.goes_on for b in blocks)), None)
        text = read(target)[0] if target is not None else None
        place = block.after or block.before
        if text and (_holds_lines_of(text, block.text) or _anchored_in(text, block.text) or
                     _rewrites_lines_of(text, block.text) or
                     _holds_imports_of(text, block.text) or
                     _defines_place(text, place) or _shows_the_place(text, block.text, place) or
                     block.near_code is not None and place_by_code(text, block.near_code[1]) is not None or
                     _holds_a_line_inside(text, block.text, block.inside, place, block.replaces) or
                     _defines_again(text, block.text) or
                     block.replaces and all(sum(_sets(line, said) for line in text.splitlines()) == 1
                                            for said in block.replaces) or
                     (block.after == "" or block.add_said) and _defines_anew(text, block.text)):
            groups[target] = sorted(groups[target] + [replace(block, path=block.goes_on)], key=lambda b: b.line)
            skipped = [s for s in skipped if s.line != block.line]
    changes = [_change(target, _shown(target, root), blocks, read, force, named_as.get(target))
               for target, blocks in groups.items()]
    for removal in reading.removals:
        _remove(removal, changes, root, read, found)
    return AnswerPlan(tuple(changes), tuple(problems), tuple(sorted(skipped, key=lambda s: s.line)))


def _holds_lines_of(text: str, block: str) -> bool:
    """Whether a block shows lines of the file (two at least), not only calls into it."""
    lines = {line.strip() for line in text.splitlines()}
    own = [line.strip() for line in block.splitlines() if len(line.strip()) >= DISTINCTIVE_LINE and not is_marker(line)]
    return sum(line in lines for line in own) >= 2


def _head_reflowed(current: str, block: Block, name: str, force: bool) -> Merge | None:
    """A definition's head shown anew over more lines, with what it gains (a parameter a line), down to a line of
    its body the file has (``request.httpMethod = ...``), where the merge refused it: the file's lines from its
    head to that line are the block's, as long as the block's lines hold every word of them; then the block is
    merged as usual.  None where that does not hold."""
    shown = block.text.splitlines(keepends=True)
    first = next((k for k, line in enumerate(shown) if line.strip()), None)
    lines = current.splitlines(keepends=True)
    keys = keys_of(lines)
    defined = definition_name(keys_of(shown), first) if first is not None else None
    heads = [j for j in range(len(keys)) if defined and definition_name(keys, j) == defined]
    if len(heads) != 1:
        return None
    end = block_end(keys, heads[0])
    ours = [line.strip() for line in lines[heads[0]:end]]
    anchor = next((k for k in range(first + 1, len(shown)) if shown[k].strip() and ours.count(shown[k].strip()) == 1
                   and len(shown[k].strip()) >= DISTINCTIVE_LINE), None)
    if anchor is None:
        return None
    at = heads[0] + ours.index(shown[anchor].strip())
    old_words = Counter(TOKEN.findall("".join(lines[heads[0]:at])))
    if old_words - Counter(TOKEN.findall("".join(shown[first:anchor]))) or at == heads[0]:
        return None
    try:
        merge = merge_update(_put(current, heads[0], at, shown[first:anchor]).merged, block.text, name, force=force)
    except UpdateError:
        return None
    return Merge.spanning(current, merge.merged) if not merge.unseen_lines else None


def _one_line_written_over(current: str, text: str) -> Merge | None:
    """A block that is one line of the file written over several with more in it (a match arm ``AppError::Io(_)
    | AppError::Parse { .. } => false,`` given three more alternatives, a line each): in its place, where exactly
    one file line starts as the block does and all its words are the block's."""
    shown = text.strip("\r\n").splitlines(keepends=True)
    if not 2 <= len(shown) <= SIGNATURE_LINES or any(is_marker(line) for line in shown):
        return None
    lines = current.splitlines(keepends=True)
    new = [line.rstrip("\r\n") for line in shown]
    found = [k for k, line in enumerate(lines) if split_over_lines(new, line.rstrip("\r\n")) and
             not (SIGNATURE.match(line) and not same_signature(new[0], line))]
    # (not a function's head for another function's: ``func (s *Server) uptime() string {`` for ``handleLive``)
    if len(found) != 1:
        return None
    return _put(current, found[0], found[0] + 1, shown)


def _rewrites_lines_of(text: str, block: str) -> bool:
    """Whether a short block is lines of the file rewritten, each one file line it clearly rewrites (a call shown
    again with one more argument, in a block of its own right after another of the file's)."""
    shown = [line for line in block.splitlines() if line.strip()]
    keys = keys_of(text.splitlines())
    return 0 < len(shown) <= 3 and not any(is_marker(line) for line in shown) and \
        all(line.strip() not in {key.strip() for key in keys} and
            rewritten_alone(keys_of([line])[0], keys, range(1, len(keys) + 1)) is not None for line in shown)


def _anchored_in(text: str, block: str) -> bool:
    """Whether a block of new lines starts or ends on a line the file has once ("Register the health checks after
    the service registrations:" and the last registration, then the new ones): the place, shown as the file has it."""
    shown = [line.strip() for line in block.splitlines() if line.strip() and not is_marker(line)]
    lines = [line.strip() for line in text.splitlines()]
    return len(shown) >= 2 and any(len(end) >= DISTINCTIVE_LINE and lines.count(end) == 1 and
                                   not IMPORT_LINE.match(end) and  # (an example's ``from app import db``)
                                   any(line not in lines for line in shown) for end in (shown[0], shown[-1]))


def _holds_imports_of(text: str, block: str) -> bool:
    """Whether a block is imports for the file: the file's shown again with some added, two of its lines at
    least the file's (``"net/http"`` of a Go import group is short, but it is the file's); or imports alone, of a
    kind the file has ("It needs one more import near the top:" ``from django.views... import require_POST``)."""
    shown = [line.strip() for line in block.splitlines() if line.strip()]
    lines = {line.strip() for line in text.splitlines()}
    kinds = {line.split()[0] for line in text.splitlines() if IMPORT_LINE.match(line)}  # (``from``, ``import``)
    return bool(shown) and IMPORT_LINE.match(shown[0]) is not None and \
        (sum(line in lines and any(c.isalpha() for c in line) and not line.endswith("(") for line in shown) >= 2 or
         all(IMPORT_LINE.match(line) and line.split()[0] in kinds for line in shown))


def _defines_again(text: str, block: str) -> bool:
    """Whether a block opens by defining a name the file defines once (a ``check_all`` rewritten whole, after
    "Then replace `check_all` with a thread-pool version."): that definition anew."""
    ours = definitions_in(keys_of(block.splitlines()))
    theirs = list(definitions_in(keys_of(text.splitlines())).values())
    return bool(ours) and theirs.count(ours[min(ours)]) == 1


def _defines_anew(text: str, block: str) -> bool:
    """Whether a block defines names, none of which the file defines (a helper "at the very bottom of the
    file", a test "at the end of the file"): new code for the file's end."""
    ours = set(definitions_in(keys_of(block.splitlines())).values())
    return bool(ours) and not ours & set(definitions_in(keys_of(text.splitlines())).values())


def _holds_a_line_inside(text: str, block: str, name: str | None, place: str | None = None,
                         replaces: tuple[str, ...] = ()) -> bool:
    """Whether a block shows a line of the definition the sentence before it names ("in `Fire()`, swap the
    `Instantiate` line for a `Get`:" and the new lines above ``bullet.Launch(...)``, which ``Fire`` has), or the
    sentence names a place one of its lines holds ("in `Load`, call it right after the `yaml.Unmarshal` check"),
    or a line it replaces ("In `createLink`, ... this replaces the existing `srv.store.Create(...)` line")."""
    if not name:
        return False
    keys = keys_of(text.splitlines())
    spans = [range(k, block_end(keys, k)) for k, defined in definitions_in(keys).items() if same_name(defined, name)]
    if len(spans) != 1:
        return False
    body = {keys[k].strip() for k in spans[0]}
    return any(line.strip() in body for line in block.splitlines()
               if len(line.strip()) >= DISTINCTIVE_LINE and not is_marker(line)) or \
        bool(place) and any(re.search(rf"(?<![\w$]){re.escape(place)}(?![\w$])", line) for line in body) or \
        any(code.split("(")[0] and any(code.split("(")[0] in line for line in body) for code in replaces)


def _defines_place(text: str, name: str | None) -> bool:
    """Whether the file defines the place the sentence before a block names ("right after `Mask`")."""
    return bool(name) and (name in definitions_in(keys_of(text.splitlines())).values() or re.search(
        rf"^\s*(?:[\w@]+\s+)*(?:fun|func|def|fn|function)\s+{re.escape(name)}\s*[(<]|"
        rf"^\s*(?:[\w@]+\s+)*[\w<>\[\],.?]+\s+{re.escape(name)}\s*\([^()]*\)\s*;", text, re.MULTILINE) is not None)
    # (a member declared without a body: Kotlin's ``suspend fun updateSortOrder(...)`` in a DAO interface)


def _shows_the_place(text: str, block: str, name: str | None) -> bool:
    """Whether a block shows the file's one line that the place said starts ("below `@max_body_length`" over
    ``@max_body_length 2_000`` and new attributes): its lines go there."""
    if not name:
        return False
    starts = [line.strip() for line in text.splitlines() if line.strip().startswith(name) and
              not line.strip()[len(name):len(name) + 1].isalnum()]
    return len(starts) == 1 and starts[0] in {line.strip() for line in block.splitlines()}


def _no_line_of(text: str | None, block: str) -> bool:
    """Whether a block repeats no line of the file (none of more than a brace or a keyword): it cannot be placed
    there, and the prose calls it a use of the change, so it is not one."""
    if not text:
        return False
    lines = {line.strip() for line in text.splitlines() if len(line.strip()) > 3}
    return not any(line.strip() in lines for line in block.splitlines())


# What a build manifest holds that a part of one does not: a block for a manifest the root lacks, without it, is a
# part of the user's own ("add the dependencies to your `pom.xml`:" then two <dependency> elements), not a file.
_MANIFESTS = {"pom.xml": "<project", "build.gradle": ("plugins", "apply plugin", "buildscript"),
              "build.gradle.kts": ("plugins", "apply(plugin", "buildscript"), "package.json": '"name"',
              "cargo.toml": ("[package]", "[workspace]"), "pyproject.toml": ("[project]", "[build-system]", "[tool."),
              "go.mod": "module "}


def _manifest_fragment(name: str, text: str) -> bool:
    needs = _MANIFESTS.get(name.lower())
    return needs is not None and not any(part in text for part in ((needs,) if isinstance(needs, str) else needs))


def list_files(root: Path) -> Iterator[str]:
    """The files under ``root`` (relative, forward slashes), leaving out hidden folders and those of
    dependencies and build output."""
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in _NOT_SEARCHED)
        for name in sorted(names):
            yield Path(folder, name).relative_to(root).as_posix()


class _Finder:
    """The root's files, listed once and only when a path names no file."""

    def __init__(self, root: Path, files: Lister):
        self.root, self.files, self.listed = root, files, None

    def by_tail(self, name: str) -> str | None:
        """The one file whose path ends with ``name``, when ``name``'s first folder (or the file itself) is not
        under the root: a new file in a folder the root has is a new file."""
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if not parts or ".." in parts:
            return None
        if self.listed is None:
            self.listed = list(islice(self.files(self.root), _SEARCH_LIMIT))
        if any(path == parts[0] or path.startswith(parts[0] + "/") for path in self.listed):
            return None
        ends = [path for path in self.listed if PurePosixPath(path).parts[-len(parts):] == parts]
        return ends[0] if len(ends) == 1 else None


def _remembering(read: Reader) -> Reader:
    texts: dict[Path, tuple[str | None, str | None]] = {}

    def remembered(path: Path):
        if path not in texts:
            texts[path] = read(path)
        return texts[path]

    return remembered


def _target(block: Block, root: Path, default: Path | None) -> tuple[Path | None, str | None]:
    if block.path is None:
        if default is None:
            return None, "it names no file, and no file was given for such blocks"
        default = Path(os.path.abspath(root / default))
        if not _language_fits(block.language, default):
            return None, (f"it names no file, and it is {block.language} while {default.name} is not: "
                          f"name the file in the answer")
        return default, None
    return resolve_path(root, block.path)


def _absolute_inside(root: Path, name: str, read: Reader, checkouts: set[PurePosixPath] = frozenset()) -> Path | None:
    """The root's file an absolute path names: the path itself when it lies under the root, else the file under
    the root that its last parts name (the answer was written in another checkout of the project), else, under
    a folder the answer's other absolute paths show as that checkout (``checkouts``), the new file it names
    there; None when none holds."""
    path = PurePosixPath(name.replace("\\", "/"))
    if not path.is_absolute():
        return None
    try:
        return resolve_path(root, path.relative_to(root.as_posix()).as_posix())[0]
    except ValueError:
        pass
    for n in range(1, len(path.parts) - 1):
        target = resolve_path(root, PurePosixPath(*path.parts[n:]).as_posix())[0]
        if target is not None and read(target) != (None, None):
            return target
    home = next((c for c in checkouts if path.is_relative_to(c)), None)
    return resolve_path(root, path.relative_to(home).as_posix())[0] if home is not None else None


def _checkouts(root: Path, blocks: Iterable[Block], read: Reader) -> set[PurePosixPath]:
    """The folders the answer's absolute paths of files the root has show as the project's checkout
    (``/Users/maya/code/blog`` for ``/Users/maya/code/blog/app/api/route.ts`` where the root has
    ``app/api/route.ts``)."""
    out = set()
    for block in blocks:
        target = _absolute_inside(root, block.path, read) if block.path else None
        if target is not None and read(target) != (None, None):
            path, rest = PurePosixPath(block.path.replace("\\", "/")), target.relative_to(root).parts
            if path.parts[-len(rest):] == rest and len(path.parts) > len(rest) + 1:
                out.add(PurePosixPath(*path.parts[:-len(rest)]))
    return out


def resolve_path(root: Path, name: str) -> tuple[Path | None, str | None]:
    """The file a path in the answer names under ``root``, or why it may not be written: an absolute path, or
    one that leaves the root (``..``, or a link out of it)."""
    text = name.replace("\\", "/")
    if text.startswith("/") or PurePosixPath(text).is_absolute() or (len(text) > 1 and text[1] == ":"):
        return None, f"the path {name} is absolute: an answer may name files under {root} only"
    target = Path(os.path.normpath(root / text))
    inside = os.path.realpath(target)
    real_root = os.path.realpath(root)
    if os.path.commonpath([str(target), str(root)]) != str(root) or \
            os.path.commonpath([inside, real_root]) != real_root:
        return None, f"the path {name} leads outside {root}: an answer may name files under it only"
    if target == root:
        return None, f"the path {name} is the root folder, not a file"
    return target, None


def _added_at_end(current: str, block: Block, name: str, unplaced: bool = False) -> Merge | None:
    """New lines the prose says to add to a file ("Add to `requirements.txt`:", "add these entries to your
    `.gitignore`", "Add to `tests/backup.bats`:" and tests its grammar does not read), none of them the file's
    and no marker among them, where nothing else placed them: after its last line.  None otherwise.
    ``unplaced``: the block names this file and repeats none of its lines (a new test, a new handler, shown alone
    where no reading places it): the end is where a developer adds what nothing places, so it goes there too."""
    lines = [line for line in block.text.splitlines() if line.strip()]
    first = next((line for line in lines if not DECORATOR.match(line)), "")  # (``@pytest.fixture``: the new one's)
    if not (block.adds or unplaced) or not lines or any(marker_lines(current.splitlines(), lines)) or \
            first.strip() in {line.strip() for line in current.splitlines()}:
        return None  # (its first line the file's: context, not new lines)
    last = [line for line in current.splitlines() if line.strip()][-1:]
    flat = "\n\n" not in current.strip()  # a list with no blank line in it (``requirements.txt``): none added
    try:  # after the file's last line, shown as context; or at its end, set apart by a blank line
        return merge_update(current, last[0] + "\n" + block.text, name) if flat and last else \
            merge_update(current, block.text, name, after="")
    except UpdateError:
        return None


def _stands_alone(text: str, current: str) -> bool:
    """Whether a block's code can stand at a file's end: it closes what it opens (a new test, a new handler) and
    starts no deeper than the file's last line (a method after a Python class's last one), not a line cut from
    inside a function, nor a method shown without its class (``def clear(self):``)."""
    lines = [line for line in text.splitlines() if line.strip()]
    last = [line for line in current.splitlines() if line.strip()][-1:]
    head = next((line for line in lines if not line.startswith("@")), "")  # (below its decorators)
    return bool(lines and last) and _balanced(text) and \
        len(lines[0]) - len(lines[0].lstrip()) <= len(last[0]) - len(last[0].lstrip()) and \
        (head[:1].isspace() or not SELF_FIRST.match(head))


_CLOSER_LINE = re.compile(r"^\s*(?:[}\])]+|end|</[\w:.-]+>)[;,)]*\s*$")
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|/\*|<!--|--|;)")
_GROUP_OPENER = re.compile(r"^\s*(?:[\w$]+\.)*(?:describe|context|suite|group|feature)\b", re.IGNORECASE)  # (tests'
# groups: ``describe("cart", () => {``, ``RSpec.describe Cart do``)


def _under_the_table_said(current: str, block: Block) -> Block:
    """Keys said to go in a TOML or INI table ("Add `thiserror` to the `[dependencies]`"), shown without its
    header: the block under that header, as the file has it, so the keys go in that table."""
    table = block.into if block.into and block.into.startswith("[") else None
    if table is None:
        return block
    if block.after and re.search(rf"^{re.escape(block.after)}\s*=", current, re.MULTILINE):
        return replace(block, into=None)  # ("under `[dependencies]`, after `flate2`": after that key)
    lines = current.splitlines(keepends=True)
    header = next((line for line in lines if line.strip() == table), None)
    if header is None or any(line.lstrip().startswith("[") for line in block.text.splitlines()):
        return replace(block, into=None)
    return replace(block, text=header.rstrip("\r\n") + "\n" + block.text + "# ...\n", into=None)  # (the marker:
    # the table's other keys stay)


_STYLE_END = re.compile(r"^\s*</style>\s*$")


def _styles_for_the_component(current: str, block: Block, name: str) -> Block:
    """New CSS rules for a component's one ``<style>`` section (a ```` ```css ```` block for ``UserTable.vue``,
    "at the end of the `<style scoped>` block"), none of their lines the file's and no place said: the block
    with that section's ``</style>`` as its last line, so the rules go before it, not after the section ("the end"
    said is the section's)."""
    lines = current.splitlines(keepends=True)
    ends = [line for line in lines if _STYLE_END.match(line)]
    first = next((line.strip() for line in block.text.splitlines() if line.strip()), "")
    if (block.language or "").lower() not in ("css", "scss", "sass", "less") or \
            not name.endswith((".vue", ".svelte", ".astro", ".html")) or len(ends) != 1 or \
            block.after not in (None, "") or block.before or any(line.strip() == first for line in lines) or \
            any(is_marker(line) for line in block.text.splitlines()):
        return block  # (a rule the file has, rewritten; a place said: the block as it is)
    return replace(block, text=block.text.rstrip("\n") + "\n" + ends[0].rstrip("\r\n") + "\n", after=None)


def _inside_the_last_block(current: str, text: str) -> Merge | None:
    """Members shown alone, indented as those of the block the file ends in (new ``<string>`` entries for a
    ``strings.xml``, a new test for a class): before that block's closing line, the file's last; set apart where
    they start a section of their own (a comment heading them, a definition) and the file sets its apart.  None
    where the file does not end so, or the block is not at that depth."""
    lines = current.splitlines(keepends=True)
    content = [k for k, line in enumerate(lines) if line.strip()]
    shown = [line for line in text.splitlines() if line.strip()]
    if len(content) < 2 or not shown or not _balanced(text) or not lines[-1].endswith("\n"):
        return None
    closing, member = lines[content[-1]], lines[content[-2]]
    depth = len(shown[0]) - len(shown[0].lstrip())
    if not _CLOSER_LINE.match(closing) or len(closing) - len(closing.lstrip()) >= depth or \
            len(member) - len(member.lstrip()) != depth or any(len(line) - len(line.lstrip()) < depth for line in shown):
        return None
    opener = max((k for k in content[:-1] if len(lines[k]) - len(lines[k].lstrip()) < depth), default=None)
    if opener is None or not (TYPE_OPENER.search(lines[opener]) or lines[opener].lstrip().startswith("<") or
                              _GROUP_OPENER.match(lines[opener])):
        return None  # (a class, an element, a ``describe``: not a function, whose lines a block cut from it are)
    heads = _COMMENT_LINE.match(shown[0]) or shown[0].lstrip().startswith("@") or is_declaration(shown[0])
    apart = heads and any(not line.strip() for line in lines[opener + 1: content[-1]])
    newline = "\r\n" if closing.endswith("\r\n") else "\n"
    new = [line + newline for line in text.splitlines()]
    while new and not new[-1].strip():
        new.pop()
    merged = lines[:content[-2] + 1] + ([newline] if apart else []) + new + lines[content[-2] + 1:]
    return Merge.spanning(current, "".join(merged))


def _at_lines(original: str, current: str, block: Block) -> Merge | None:
    """A block whose text has no place in the file, put where its info string says (``(48-48)``: a line
    rewritten whole, nothing around it to find it by): those lines of the file as the answer saw it, found
    unchanged in the text the blocks before made, and alike enough to the block to be what it rewrites (a
    range the file has moved away from places nothing).  None when that does not hold."""
    if block.lines is None or any(is_marker(line) for line in block.text.splitlines()):
        return None
    first, last = block.lines
    old = original.splitlines(True)
    if last > len(old):
        return None
    now = current.splitlines(True)
    matcher = difflib.SequenceMatcher(None, old, now, autojunk=False)
    at = next((j + first - 1 - i for tag, i, i2, j, _ in matcher.get_opcodes()
               if tag == "equal" and i <= first - 1 and last <= i2), None)
    replaced = "".join(old[first - 1: last])
    if at is None or difflib.SequenceMatcher(None, replaced.strip(), block.text.strip(),
                                             autojunk=False).ratio() < RANGE_LIKENESS:
        return None
    patch = f"@@ -{at + 1},{last - first + 1} +{at + 1},{len(block.text.splitlines())} @@\n" + \
        "".join("-" + line.rstrip("\r\n") + "\n" for line in old[first - 1: last]) + \
        "".join("+" + line + "\n" for line in block.text.splitlines())
    try:
        return merge_patch(current, patch)
    except UpdateError:
        return None


def _remove(removal: Removal, changes: list[FileChange], root: Path, read: Reader, found: "_Finder") -> None:
    """Take out of its file each definition a sentence says to delete, after the file's blocks are merged.  The
    file is the one the sentence names, else the one of the answer's files that defined the name before the
    answer (a new file that now holds it is where it moved, not where it goes from); nothing where that is not
    one file, or the file does not define the name exactly once."""
    by_target = {change.target: index for index, change in enumerate(changes)}
    targets: list[Path] = []
    if removal.path is not None:
        target, problem = resolve_path(root, removal.path)
        if target is not None and read(target)[0] is None:
            tail = found.by_tail(removal.path)
            target = resolve_path(root, tail)[0] if tail is not None else None
        targets = [target] if target is not None and problem is None else []
    under = resolve_path(root, removal.under)[0] if removal.under is not None else None
    if removal.imported:
        if removal.path is None:  # (the one file the answer changes that imports the name)
            targets = _under([c.target for c in changes if c.exists and c.after is not None and
                              sum(_imports_only(line, removal.names[0]) for line in c.after.splitlines()) == 1],
                             under) or _heading_file(under, read)
        _remove_import(removal.names[0], targets, changes, by_target, root, read)
        return
    if removal.lines:
        if removal.path is None:  # (the one file the answer changes that has the line, no block showing it there)
            head = removal.names[0]
            targets = _under([c.target for c in changes if c.exists and c.after is not None and
                              (sum(line.strip().startswith(head) for line in c.after.splitlines()) == 1 or
                               (removal.every or removal.inside) and
                               any(line.strip().startswith(head) for line in c.after.splitlines()))
                              and all(_definition_span(c.after, name, c.target.name) is not None
                                      for name in removal.inside)  # ("In `charge`, delete both ... lines")
                              and not any(head in block.text for block in c.blocks)], under) or \
                [h for h in _heading_file(under, read) if h not in by_target and  # (a file the heading names,
                 sum(line.strip().startswith(head) for line in read(h)[0].splitlines()) == 1]  # no block of it)
        _remove_lines(removal, targets, changes, by_target, root, read)
        return
    if removal.rule:
        _remove_rule(removal.names[0], targets, changes, by_target, root, read)
        return
    if removal.element:
        _remove_element(removal.names[0], targets or _heading_file(under, read), changes, by_target, root, read)
        return
    if removal.section:
        _remove_section(removal.names[0], targets, changes, by_target, root, read)
        return
    for name in removal.names:
        where = targets or _under([c.target for c in changes if c.exists and c.after is not None and
                                   definition_lines(c.before, name, c.target.name, removal.within) is not None] +
                                  [h for h in _heading_file(under, read) if h not in by_target and
                                   definition_lines(read(h)[0], name, h.name, removal.within) is not None], under)
        if len(where) != 1:
            continue
        target = where[0]
        change = _change_of(target, changes, by_target, root, read)
        if change is None or change.after is None or \
                definition_lines(change.before, name, target.name, removal.within) is None or \
                any(same_name(defined, name) for block in change.blocks
                    for defined in definitions_in(keys_of(block.text.splitlines())).values()):
            continue  # (a block of the answer defines it: "replace `_QuoteScreenState` with the version below")
        after = remove_definition(change.after, name, target.name, removal.within)
        if after is not None:
            changes[by_target[target]] = _with_removed(change, after, name)


def _under(targets: list[Path], heading: Path | None) -> list[Path]:
    """Of the files a removal may be of, the one the heading above its sentence names, where it is one of them
    (each of a service and its controller defines ``legacyLogin``)."""
    return [heading] if len(targets) > 1 and heading in targets else targets


def _heading_file(heading: Path | None, read: Reader) -> list[Path]:
    """The file the heading above a removal names, where it is on disk: one the removal may be of though no block
    of the answer changes it (no block shows the controller the handler goes from)."""
    return [heading] if heading is not None and read(heading)[0] is not None else []


def _change_of(target: Path, changes: list[FileChange], by_target: dict[Path, int], root: Path,
               read: Reader) -> FileChange | None:
    """The answer's change of a file, a change with nothing done yet where the blocks left the file alone; None
    where the file cannot be read."""
    if target not in by_target:
        text, problem = read(target)
        if text is None or problem is not None:
            return None
        by_target[target] = len(changes)
        changes.append(FileChange(_shown(target, root), target, True, text, text, (), ()))
    return changes[by_target[target]]


def _with_removed(change: FileChange, after: str, what: str) -> FileChange:
    """A change with ``what`` removed, its text now ``after``."""
    return replace(change, after=after, merges=change.merges + (Merge.spanning(change.after, after),),
                   removed=change.removed + (what,))


def _remove_lines(removal: Removal, targets: list[Path], changes: list[FileChange], by_target: dict[Path, int],
                  root: Path, read: Reader) -> None:
    """Take out the one line of the named file that starts with what the sentence names ("Delete the
    `HEALTHCHECK` line from the Dockerfile"), with the lines it goes on to (a ``\\`` at its end); nothing where
    the file has not exactly one."""
    change = _change_of(targets[0], changes, by_target, root, read) if len(targets) == 1 else None
    if change is None or change.after is None:
        return
    lines = change.after.splitlines(keepends=True)
    head = removal.names[0].strip()
    found = [k for k, line in enumerate(lines) if line.strip().startswith(head) and
             not line.strip()[len(head):len(head) + 1].isalnum()]
    if removal.inside:  # (each such line of the definitions named, one at least in each)
        spans = [_definition_span(change.after, name, targets[0].name) for name in removal.inside]
        if None in spans or any(not any(first <= k <= last for k in found) for first, last in spans):
            return
        found = [k for k in found if any(first <= k <= last for first, last in spans)]
        gone = {j for k in found for j in (_statement(lines, k) or range(k, k + 1))}
        changes[by_target[targets[0]]] = _with_removed(
            change, "".join(line for k, line in enumerate(lines) if k not in gone), head)
        return
    if removal.every and found:  # (each import of a package: "the two `org.slf4j` imports")
        changes[by_target[targets[0]]] = _with_removed(
            change, "".join(line for k, line in enumerate(lines) if k not in found), head)
        return
    if len(found) != 1:
        return
    end = found[0] + 1
    while lines[end - 1].rstrip().endswith("\\") and end < len(lines):
        end += 1
    if 0 < found[0] and end < len(lines) and not lines[found[0] - 1].strip() and not lines[end].strip():
        end += 1  # (the blank lines around it: one)
    changes[by_target[targets[0]]] = _with_removed(change, "".join(lines[:found[0]] + lines[end:]), head)


def _imports_only(line: str, name: str) -> bool:
    """Whether a line is an import of that one name: ``import java.security.MessageDigest;``, ``from x import
    Name``, ``import { Name } from "./x";``, ``import Name from "x"``."""
    named = re.escape(name)
    return re.match(rf"\s*(?:import\s+(?:static\s+)?(?:[\w.]+\.)?{named}\s*;?|from\s+\S+\s+import\s+{named}|"
                    rf"import\s+(?:type\s+)?(?:{named}|\{{\s*{named}\s*\}})\s+from\s+[\"'][^\"']+[\"']\s*;?)\s*$",
                    line) is not None


def _remove_import(name: str, targets: list[Path], changes: list[FileChange], by_target: dict[Path, int],
                   root: Path, read: Reader) -> None:
    """Take out the one import line of the named file that imports just ``name``; nothing where there is not
    exactly one, or the merged file still uses the name."""
    change = _change_of(targets[0], changes, by_target, root, read) if len(targets) == 1 else None
    if change is None or change.after is None:
        return
    lines = change.after.splitlines(keepends=True)
    found = [k for k, line in enumerate(lines) if _imports_only(line, name)]
    rest = "".join(line for k, line in enumerate(lines) if k not in found)
    if len(found) == 1 and not re.search(rf"(?<![\w$.]){re.escape(name)}(?![\w$])", rest):
        changes[by_target[targets[0]]] = _with_removed(change, rest, name)


def _definition_span(text: str, name: str, filename: str) -> tuple[int, int] | None:
    """The lines (0-based, inclusive) of the one definition ``name`` names: by the syntax, else as lines read
    (``const addItem = useCallback(...`` inside a hook, which the syntax does not call a definition)."""
    span = definition_lines(text, name, filename)
    if span is not None:
        return span
    keys = keys_of(text.splitlines())
    found = [k for k, defined in definitions_in(keys).items() if same_name(defined, name)]
    return (found[0], block_end(keys, found[0]) - 1) if len(found) == 1 else None


def _import_updated(current: str, block: Block) -> Merge | None:
    """One import line said to be an update of an import ("In `src/main.rs`, update the import:"): in place of
    the one import line of the file it rewrites (``use crate::config::load_cfg;`` renamed), not beside it."""
    shown = [line for line in block.text.splitlines() if line.strip()]
    if not block.updates_import or len(shown) != 1 or not IMPORT_LINE.match(shown[0]):
        return None
    lines = current.splitlines(keepends=True)
    if any(line.strip() == shown[0].strip() for line in lines):
        return None
    scores = sorted(((difflib.SequenceMatcher(None, shown[0].strip(), line.strip()).ratio(), k)
                     for k, line in enumerate(lines) if IMPORT_LINE.match(line)), reverse=True)
    if not scores or scores[0][0] < 0.75 or len(scores) > 1 and scores[1][0] > scores[0][0] - 0.1:
        return None
    return _put(current, scores[0][1], scores[0][1] + 1, shown)


def _imports_replaced(current: str, block: Block) -> Merge | None:
    """Import lines said to replace the file's ("replace the imports at the top with these (`math` and `re` are no
    longer needed there)"): the file's imports, from the first to the last of its header, become the block's."""
    shown = block.text.splitlines(keepends=True)
    while shown and (not shown[-1].strip() or is_marker(shown[-1])):  # (the marker below: the rest stays)
        shown.pop()
    while shown and (not shown[0].strip() or is_marker(shown[0])):
        shown.pop(0)
    if not block.imports_replaced or not shown or \
            any(line.strip() and not IMPORT_LINE.match(line) for line in shown):
        return None
    lines = current.splitlines(keepends=True)
    end = header_end(lines)
    imports = [k for k in range(end) if IMPORT_LINE.match(lines[k])]
    if not imports:
        return None
    return _put(current, imports[0], imports[-1] + 1, shown)


def _put(current: str, first: int, end: int, new: list[str]) -> Merge:
    """The file with its lines ``first..end`` (0-based, end exclusive) given way to ``new``, in its line ends."""
    lines = current.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[min(first, len(lines) - 1)].endswith("\r\n") else "\n"
    return Merge.spanning(current, "".join(lines[:first] + [line.rstrip("\r\n") + newline for line in new] +
                                           lines[end:]))


def _drops_lines(before: str, after: str) -> bool:
    """Whether a merge takes out or rewrites a line of the file that has code on it."""
    old, new = ([line.strip() for line in text.splitlines()] for text in (before, after))
    return any(tag in ("delete", "replace") and any(old[k] for k in range(i1, i2))
               for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes())


def _added_beside_shown(current: str, text: str) -> Merge | None:
    """A block said to be added, shown with the line(s) of the file below its new ones (a run the file has once):
    its new lines above them, and nothing of the file taken out.  The new lines are whole: brackets closed, first
    and last at one depth, a sibling of the line below them, none of them a line the file has once.  None where
    that does not hold, or the block has markers.  (New lines shown below the file's: the merge's own reading,
    which keeps what the block rewrites there.)"""
    lines = current.splitlines(keepends=True)
    shown = text.splitlines(keepends=True)
    while shown and not shown[0].strip():
        shown.pop(0)
    while shown and not shown[-1].strip():
        shown.pop()
    if not shown or any(is_marker(line) for line in shown):
        return None
    keys = [line.strip() for line in lines]

    def run(part: list[str]) -> int | None:
        want = [line.strip() for line in part]
        found = [j for j in range(len(keys) - len(want) + 1) if keys[j:j + len(want)] == want]
        return found[0] if len(found) == 1 else None

    once = {key for key in keys if len(key) >= DISTINCTIVE_LINE and keys.count(key) == 1}

    def whole(new: list[str], depth: int) -> bool:
        code = [line for line in new if line.strip()]
        return bool(code) and _balanced("".join(code)) and indent_of(code[0]) == indent_of(code[-1]) and \
            indent_of(code[0]) == depth and any(line.strip() not in keys for line in code) and \
            not any(line.strip() in once for line in code)  # (not a line of the file's own, shown anew: a
    # ``type Entry struct {``; the lines every route repeats, ``<RequireAuth>``, may be)

    def rewrites(new: list[str], beside: int) -> bool:  # (one line like the file's line beside it: that line
        code = [line for line in new if line.strip()]  # rewritten, ``#[derive(..., Serialize)]``, not a new one)
        return len(code) == 1 and 0 <= beside < len(lines) and looks_alike(code[0], lines[beside])

    for k in range(len(shown) - 1, 0, -1):  # the line(s) below: the new ones go above them
        at = run(shown[-k:])
        if at is not None and whole(shown[:-k], indent_of(lines[at])) and run(shown[:-k]) is None and \
                (len(shown) - k == 1 or run(shown[:1]) is None) and not rewrites(shown[:-k], at - 1):
            return _put(current, at, at, shown[:-k])
    return None


# the head of a constructor: ``constructor(``, ``def __init__(``, ``init(``, ``def initialize``, or a type's name called
# (``const Todo({``, ``public Order(``) where the file declares that type
_CONSTRUCTOR_HEAD = re.compile(r"\s+(?:(?:public|private|protected|internal|override|required|convenience|const|explicit)"
                               r"\s+)*(?:constructor\s*\(|def\s+__init__\s*\(|init[?!]?\s*\(|def\s+initialize\b|"
                               r"(?P<type>[A-Z]\w*)\s*\()")


def _after_the_constructor(current: str, block: Block) -> Merge | None:
    """New members said to go "right after the constructor", placed below the file's one constructor, set apart
    by a blank line (a line merge would anchor them on lines like ``return Todo(`` of another method).  None where
    the file has no such constructor, or several."""
    if block.after != "constructor" or any(is_marker(line) for line in block.text.splitlines()):
        return None
    lines = current.splitlines(keepends=True)
    types = set(re.findall(r"\b(?:class|struct|record)\s+([A-Z]\w*)", current))
    heads = [k for k, line in enumerate(lines) if (m := _CONSTRUCTOR_HEAD.match(line)) and
             (not m["type"] or m["type"] in types and not re.match(r"\s*(?:return|new|throw)\b", line))]
    if len(heads) != 1:
        return None
    first, depth, end = heads[0], 0, None
    indent = len(lines[first]) - len(lines[first].lstrip())
    for k in range(first, len(lines)):
        depth += sum(lines[k].count(c) for c in "([{") - sum(lines[k].count(c) for c in ")]}")
        if k > first and lines[k].strip() and len(lines[k]) - len(lines[k].lstrip()) <= indent and \
                not re.match(r"\s*[)\]}]", lines[k]) and depth <= 0:
            end = k - 1  # (a body its indentation closes: Python's ``__init__``, Ruby's up to ``end``)
            break
        if depth <= 0 and lines[k].rstrip().endswith((";", "}", "end")) and (k > first or "}" in lines[k]):
            end = k
            break
    if end is None:
        return None
    while end > first and not lines[end].strip():
        end -= 1
    below = lines[end + 1:]
    apart = [""] if below and below[0].strip() and not re.match(r"\s*[)\]}]|\s*end\b", below[0]) else []
    return _put(current, end + 1, end + 1, [""] + block.text.strip("\r\n").splitlines() + apart)


# a block that belongs beside a type: Scala's companion ``object X {``, Rust's ``impl X {`` / ``impl Display for X {``,
# Swift's ``extension X {``
_COMPANION = re.compile(r"(?:object|impl(?:<[^>]*>)?(?:\s+[\w:<>]+\s+for)?|extension)\s+(?P<name>[A-Z]\w*)\b[^\n]*\{\s*$")


def _beside_its_type(current: str, block: Block, name: str) -> Merge | None:
    """A new companion placed right after the one type of its name ("Then add a companion object for
    `RegistrationRequest`, directly below the case class:"), where the file has none for it yet and the answer
    places it nowhere else."""
    first = next((line for line in block.text.splitlines() if line.strip()), "")
    m = _COMPANION.match(first)
    if m is None or block.after or block.before or block.into or first.strip() in current:
        return None
    types = [line for line in current.splitlines() if re.match(
        rf"\s*(?:(?:pub(?:\([\w:]+\))?|public|final|sealed|abstract|open|data|private|internal)\s+)*"
        rf"(?:case\s+)?(?:class|struct|enum|trait)\s+{re.escape(m['name'])}\b", line)]
    if len(types) != 1:
        return None
    try:
        merge = merge_update(current, block.text, name, after=m["name"])
    except UpdateError:
        return None
    return merge if not merge.unseen_lines else None


def _lines_said_replaced(current: str, block: Block, name: str, force: bool) -> Merge | None:
    """The block merged in place of the file's lines the sentence before it says it replaces: the lines of the
    names it gives ("replace the `SAMPLE_INTERVAL` and `STATUS_LED` lines:"), each the one line of the file that
    sets or starts with that name and closes what it opens, or the file's last lines ("replace the last two lines
    with:"), the block then at the file's end.  None where the sentence says none, a name has not exactly one such
    line, or the merge without them removes lines the block did not show: the block is merged as it is."""
    lines = current.splitlines(keepends=True)
    if block.replaces_last:
        content = [k for k, line in enumerate(lines) if line.strip()]
        gone = set(range(content[-block.replaces_last], len(lines))) if len(content) > block.replaces_last else None
        after: str | None = ""
    elif block.replaces:
        found = [[k for k, line in enumerate(lines) if _sets(line, said)] for said in block.replaces]
        one_line = _opens(block.text) and len([line for line in block.text.splitlines() if line.strip()]) == 1
        spans = [range(k[0], k[0] + 1) if one_line and _opens(lines[k[0]]) else _statement(lines, k[0])
                 for k in found if len(k) == 1]  # (a line that opens a block, shown alone: that line, not the
        # block: "replace the line that calls `pool.Run(ctx)` with:" ``if err := pool.Run(...); err != nil {``,
        # "replace the `if status == 0 ...:` line in `main` with:" and a Python ``if`` line)
        head = next((line for line in block.text.splitlines() if line.strip()), "")
        if _NOTE_OR_ATTRIBUTE.match(head) and not is_marker(head):
            spans = [_with_notes_above(lines, span) if span else span for span in spans]
        gone = {j for span in spans if span for j in span} if len(spans) == len(found) and all(spans) else None
        after = block.after
    else:
        return None
    if not gone:
        return None
    kept = "".join(line for k, line in enumerate(lines) if k not in gone)
    ours = {line.strip() for k, line in enumerate(lines) if k not in gone}
    shown = [line.strip() for line in block.text.splitlines() if line.strip()]
    try:
        if not block.replaces_last and (not any(line in ours for line in shown) or
                                        shown[0] not in ours and (shown[-1] not in ours or CLOSING.match(shown[-1]))):
            raise NoSharedLine("none of the block's lines is the file's, or none around it")  # (not new code for
            # the file's end; nothing of the file around it, the lines it says go in place of the old ones)
        merge = merge_update(kept, block.text, name, force=force, after=after, before=block.before, into=block.into)
    except NoSharedLine:  # (the new lines alone: where the old ones stood, as one run)
        first, last = min(gone), max(gone)
        if last - first + 1 != len(gone) or block.replaces_last or \
                any(is_marker(line) for line in block.text.splitlines()):
            return None
        return _put(current, first, last + 1, block.text.splitlines())
    except UpdateError:
        return None
    return Merge.spanning(current, merge.merged) if not merge.unseen_lines else None


# a line that comments or annotates the declaration below it: ``/// doc``, ``#[arg(long)]``, ``@Column``
_NOTE_OR_ATTRIBUTE = re.compile(r"\s*(?://|#\[|@\w|/\*\*|\*(?!/)|#\s|--\s)")


def _with_notes_above(lines: list[str], span: range) -> range:
    """A declaration's lines with the comments and attributes right above it, where the block that takes their
    place shows its own ("replace the `max_age_days` field (doc comment, attribute and field) with:")."""
    first = span.start
    indent = len(lines[first]) - len(lines[first].lstrip())
    while first > 0 and _NOTE_OR_ATTRIBUTE.match(lines[first - 1]) and \
            len(lines[first - 1]) - len(lines[first - 1].lstrip()) == indent:
        first -= 1
    return range(first, span.stop)


def _sets(line: str, said: str) -> bool:
    """Whether a line is the one a sentence names by ``said``: it starts with it (``HEALTHCHECK``,
    ``STATUS_LED = 0``), or sets it (``M.STATUS_LED = 0``, ``export API_URL=``, ``"port": 80``).  Said with its
    body elided (``listenAddress = lib.mkOption { ... };``), it starts with what comes before the elision."""
    elided = re.split(r"\.\.\.|\u2026", said)[0].rstrip() if re.search(r"\.\.\.|\u2026", said) else ""
    if elided and len(elided) >= 8 and line.strip().startswith(elided):
        return True
    if line.strip().startswith(said) and not re.match(r"\w", line.strip()[len(said):]):
        return True
    if re.search(r"[(\s]", said) and code_said(said).search(line):
        return True  # (code the line holds: "the line that calls `pool.Run(ctx)`", "`FastAPI(...)`")
    if said[:1] in "'\"" and said[-1:] == said[:1] and \
            re.match(rf"""\s*[\w$.]+\(\s*(["'`]){re.escape(said[1:-1])}\1""", line):
        return True  # (a test by its title: "replace the `'totalCents sums all lines'` test", ``test("...", ...``)
    if said.startswith("/") and re.match(rf"""\s*[\w$.]+(?:::\w+)?\(\s*(["'`]){re.escape(said)}\1""", line):
        return True  # (a route by its path: "replace the inline `/health` route", ``r.Get("/health", func(...``)
    return re.match(rf"""\s*(?:(?:export|local|const|let|var|val|set|readonly|ENV|ARG|pub(?:\([\w:]+\))?|"""
                    rf"""public|private|protected|internal|static|final)\s+)*(?:[\w$]+\.)*"""
                    rf"""["']?{re.escape(said)}["']?\s*[:=]""", line) is not None


def _statement(lines: list[str], first: int) -> range | None:
    """The file lines of the statement that starts at ``first``: up to the line that closes the brackets it
    opens (a call over two or three lines), at most ``STATEMENT_LINES``, or that closes the element it opens
    (``<span`` ... ``</span>``); None where none does."""
    element = re.match(r"(\s*)<([\w.:-]+)", lines[first])
    if element and not re.search(rf"</{re.escape(element[2])}>|/>\s*$", lines[first]):
        return next((range(first, k + 1) for k in range(first + 1, len(lines))
                     if lines[k].startswith(f"{element[1]}</{element[2]}>")), None)
    quote = next((q for q in ('"""', "'''", "`") if lines[first].count(q) % 2), None)
    if quote:  # (a string over several lines: ``QUERY = """`` ... ``"""``)
        return next((range(first, k + 1) for k in range(first + 1, len(lines)) if quote in lines[k]), None)
    if _opens_by_indent(lines[first]):
        keys = keys_of(lines)  # (a block its indentation closes: ``describe "#full_name" do`` ... ``end``)
        end = block_end(keys, first)
        while end > first + 1 and not keys[end - 1].strip():
            end -= 1
        return range(first, end)
    for last in range(first, min(first + STATEMENT_LINES, len(lines))):
        if _balanced("".join(lines[first:last + 1])):
            return range(first, last + 1)
    return None


def _balanced(line: str) -> bool:
    return all(line.count(a) == line.count(b) for a, b in ("()", "[]", "{}"))


def _opens_by_indent(line: str) -> bool:
    """A line whose block its indentation closes: ``if x:``, ``describe "#full_name" do``."""
    return re.search(r"(?:\bdo(?:\s*\|[^|]*\|)?|:)\s*$", line.split(" #")[0].rstrip()) is not None


def _opens(text: str) -> bool:
    """Code that opens a block it does not close: an open bracket, or a line its indentation closes."""
    return not _balanced(text) or _opens_by_indent(text.rstrip("\n").splitlines()[-1] if text.strip() else "")


def _headed_once(head: re.Pattern[str], targets: list[Path], changes: list[FileChange], by_target: dict[Path, int],
                 root: Path, read: Reader) -> tuple[Path, FileChange, int] | None:
    """Where a removal said by its head line goes: the file named, else the one file of the answer's that has a
    line ``head`` matches once; (that file, its change, the line's index), or None where that does not hold."""
    def found(text: str) -> list[int]:
        return [k for k, line in enumerate(text.splitlines()) if head.match(line)]

    where = targets or [c.target for c in changes if c.exists and c.after is not None and len(found(c.after)) == 1]
    change = _change_of(where[0], changes, by_target, root, read) if len(where) == 1 else None
    if change is None or change.after is None or len(lines := found(change.after)) != 1:
        return None
    return where[0], change, lines[0]


def _remove_rule(selector: str, targets: list[Path], changes: list[FileChange], by_target: dict[Path, int],
                 root: Path, read: Reader) -> None:
    """Take out the style rule a sentence names by its selector ("delete the `.search-bar button` rule"): its
    head down to the ``}`` at its depth, and one blank line beside it (``_headed_once`` says in which file)."""
    headed = _headed_once(re.compile(rf"\s*{re.escape(selector.strip())}\s*\{{\s*$"), targets, changes, by_target,
                          root, read)
    if headed is None:
        return
    target, change, first = headed
    lines = change.after.splitlines(keepends=True)
    depth = len(lines[first]) - len(lines[first].lstrip())
    end = next((k for k in range(first + 1, len(lines)) if lines[k].strip() == "}" and
                len(lines[k]) - len(lines[k].lstrip()) == depth), None)
    if end is None:
        return
    changes[by_target[target]] = _with_removed(change, _lines_cut(lines, first, end), selector)


def _remove_element(opening: str, targets: list[Path], changes: list[FileChange], by_target: dict[Path, int],
                    root: Path, read: Reader) -> None:
    """Take out the element a sentence names by its opening tag ('delete the whole `<details class="legacy-login">
    ...</details>` block'): the one line that opens such an element, each attribute's words in it, down to its
    closing tag at its depth, and the blank line above it (``_headed_once`` says in which file)."""
    tag = re.match(r"<([\w-]+)", opening)[1]
    words = [re.escape(word) for value in re.findall(r"=\s*[\"']([^\"']*)[\"']", opening) for word in value.split()]
    head = re.compile(rf"\s*<{re.escape(tag)}\b" + "".join(rf"(?=[^>]*(?<![\w-]){word}(?![\w-]))" for word in words))
    headed = _headed_once(head, targets, changes, by_target, root, read)
    if headed is None:
        return
    target, change, first = headed
    lines = change.after.splitlines(keepends=True)
    depth = indent_of(lines[first])
    end = next((k for k in range(first, len(lines)) if lines[k].strip().startswith(f"</{tag}>") and
                indent_of(lines[k]) == depth or k == first and lines[k].rstrip().endswith(f"</{tag}>")), None)
    if end is None:
        return
    changes[by_target[target]] = _with_removed(change, _lines_cut(lines, first, end), opening)


def _lines_cut(lines: list[str], first: int, end: int) -> str:
    """The text without lines ``first..end`` and one blank line beside them: below them where there is one on
    each side, else above."""
    if end + 1 < len(lines) and not lines[end + 1].strip() and (first == 0 or not lines[first - 1].strip()):
        end += 1  # (a blank line on each side: one goes)
    elif first > 0 and not lines[first - 1].strip():
        first -= 1
    return "".join(lines[:first] + lines[end + 1:])


def _remove_section(title: str, targets: list[Path], changes: list[FileChange], by_target: dict[Path, int],
                    root: Path, read: Reader) -> None:
    """Take out what a comment heads, by the comment's words ('delete the whole "Format on save" autocmd'): the
    comment and the lines below it down to a blank line, and that blank line (``_headed_once`` says in which
    file)."""
    headed = _headed_once(re.compile(rf"\s*(?:#+|//+|--+|;+)\s*{re.escape(title.strip())}\b", re.IGNORECASE),
                          targets, changes, by_target, root, read)
    if headed is None:
        return
    target, change, first = headed
    lines = change.after.splitlines(keepends=True)
    end = next((k for k in range(first + 1, len(lines)) if not lines[k].strip()), None)
    if end is not None:
        end += 1  # (with the blank line below it)
    elif first > 0 and not lines[first - 1].strip():
        first -= 1  # (at the file's end: with the blank line above it)
    changes[by_target[target]] = _with_removed(change, "".join(lines[:first] + lines[end or len(lines):]), title)


def _shown(target: Path, root: Path) -> str:
    try:
        return target.relative_to(root).as_posix()
    except ValueError:
        return str(target)


def _language_fits(language: str | None, default: Path) -> bool:
    extensions = EXTENSIONS.get((language or "").lower())
    suffix = default.suffix.lstrip(".").lower()
    return extensions is None or not suffix or suffix in extensions


def _change(target: Path, shown: str, blocks: list[Block], read: Reader, force: bool,
            named_as: str | None = None) -> FileChange:
    text, problem = read(target)
    exists = text is not None or problem is not None
    before = text or ""
    if problem is not None:
        return FileChange(shown, target, exists, before, None, tuple(blocks), (), f"the file {problem}", named_as)
    current, merges, at_end = before, [], ()
    for block in blocks:
        if block.is_patch or block.search_replace:
            try:
                merge = (merge_patch if block.is_patch else merge_search_replace)(current, block.text)
            except UpdateError as exc:
                return FileChange(shown, target, exists, before, None, tuple(blocks), tuple(merges),
                                  f"{block.describe()}: {exc}", named_as)
            merges.append(merge)
            current = merge.merged
            continue
        if block.removes:
            merge = _shown_removed(current, block.text)
            if merge is None:
                return FileChange(shown, target, exists, before, None, tuple(blocks), tuple(merges),
                                  f"{block.describe()} shows lines to delete that the file does not hold once, "
                                  f"as shown", named_as)
            merges.append(merge)
            current = merge.merged
            continue
        if not current.strip():  # a new (or empty) file: the block is its whole text
            markers = [line for line in block.text.splitlines() if is_marker(line)]
            if markers:
                what = "does not exist" if not exists else "is empty"
                return FileChange(shown, target, exists, before, None, tuple(blocks), tuple(merges),
                                  f"{block.describe()} elides lines ({markers[0].strip()!r}) of a file that "
                                  f"{what}: a new file needs its whole text", named_as)
            current = block.text
            continue
        if block.near_code and block.after is None and block.before is None and \
                (named := place_by_code(current, block.near_code[1])) is not None:
            block = replace(block, **{block.near_code[0]: named})  # ("after the function that calls `x`")
        if block.near_words and block.after is None and block.before is None and \
                (named := place_in_words(current, block.near_words[1])) is not None:
            block = replace(block, **{block.near_words[0]: named})  # ("after the invalid-data test")
        for side in ("after", "before"):  # (a title said in part: 'after the "shrinks a JPEG" example' for
            said = getattr(block, side)  # ``it "shrinks a JPEG into the output folder" do``)
            if said and " " in said and not any(f"{q}{said}{q}" in current for q in "\"'`") and \
                    (named := place_in_words(current, said)):
                block = replace(block, **{side: named})
        if block.label is not None and current.lstrip().startswith(block.label.strip()):
            block = replace(block, text=block.label + block.text)  # (the file's own header line, shown)
        block = _styles_for_the_component(current, _under_the_table_said(current, block), target.name)
        if block.whole and block.below_imports:  # (the file's package line and imports stay above it)
            lines = current.splitlines(keepends=True)
            end = header_end(lines)
            while end and end < len(lines) and not lines[end].strip():
                end += 1
            block = replace(block, text="".join(lines[:end]) + block.text)
        if block.below_imports and not block.whole and (below := _after_the_imports(current, block.text)):
            merges.append(below)  # ("add the import at the top, after the existing imports:")
            current = below.merged
            continue
        try:
            merge = _import_updated(current, block) or _imports_replaced(current, block) or \
                _lines_said_replaced(current, block, target.name, force) or \
                _beside_its_type(current, block, target.name) or _after_the_constructor(current, block) or \
                merge_update(current, block.text, target.name, force=force, after=block.after,
                             before=block.before, whole=block.whole, into=block.into)
            if block.add_said and not block.replaces and _drops_lines(current, merge.merged):
                merge = _added_beside_shown(current, block.text) or merge  # ("add the route just above the
                # catch-all `*` route:", the new route and that one: not over the route above, like it)
            if _changes_outside(current, merge.merged, block.into, target.name):  # ("Add the field to `Post`,
                merge = _placed_inside(current, replace(block, inside=block.into), target.name) or merge  # right
                # after `title`": not over a line like it in another class)
        except UpdateError as exc:
            unplaced = isinstance(exc, NoSharedLine) and block.path is not None and \
                _stands_alone(block.text, current)
            merge = (_rewritten_inside(current, block, target.name) or _placed_inside(current, block, target.name) or
                     _head_renamed(current, block.text) or _one_line_written_over(current, block.text)) \
                if isinstance(exc, NoSharedLine) else _head_reflowed(current, block, target.name, force)
            if merge is not None:
                unplaced = False
            else:
                merge = _at_lines(before, current, block) or _added_at_end(current, block, target.name, unplaced)
            if merge is None and isinstance(exc, NoSharedLine) and block.path is not None and not block.after \
                    and not block.before and (merge := _inside_the_last_block(current, block.text)) is not None:
                unplaced = True  # (members of the block the file ends in: a ``<string>`` for ``</resources>``)
            if merge is None:
                return FileChange(shown, target, exists, before, None, tuple(blocks), tuple(merges),
                                  f"{block.describe()}: {exc}", named_as)
            if unplaced and not block.adds:
                at_end += (block.line,)
        merges.append(merge)
        current = merge.merged
        if block.go_imports and (imported := _with_go_imports(current, block.go_imports)) is not None:
            merges.append(Merge.spanning(current, imported))
            current = imported
    return FileChange(shown, target, exists, before, current, tuple(blocks), tuple(merges), named_as=named_as,
                      at_end=at_end)


def _after_the_imports(current: str, text: str) -> Merge | None:
    """New import lines said to go after the file's imports: below its last import (one that goes on over several
    lines, ``import {`` to ``} from "x";``, to its end); None where the block holds anything else, an import the
    file has, or the file has no such imports (Go's ``import (`` group is the imports' reading's)."""
    lines = current.splitlines(keepends=True)
    shown = [line for line in text.splitlines(keepends=True) if line.strip()]
    ours = {line.strip() for line in lines}
    if not shown or any(not IMPORT_LINE.match(line) or line.strip() in ours for line in shown) or \
            any(line.rstrip().endswith("(") and IMPORT_LINE.match(line) for line in lines):
        return None
    last = max((k for k, line in enumerate(lines) if IMPORT_LINE.match(line) and not indent_of(line)), default=None)
    if last is None:
        return None
    if "{" in lines[last] and "}" not in lines[last]:
        last = next((k for k in range(last + 1, len(lines)) if "}" in lines[k]), last)
    newline = "\r\n" if lines[last].endswith("\r\n") else "\n"
    new = [line.rstrip("\r\n") + newline for line in shown]
    return Merge.spanning(current, "".join(lines[:last + 1] + new + lines[last + 1:]))


def _shown_removed(current: str, text: str) -> Merge | None:
    """The file without the lines a block shows that the prose says to delete ("Remove the following method:"),
    found once, in a row (blank lines aside), with the blank lines that set them apart from what follows (from
    what precedes, where nothing follows in their block); None where the file does not hold them so."""
    lines = current.splitlines(keepends=True)
    shown = [line.strip() for line in text.splitlines() if line.strip()]
    if not shown or any(is_marker(line) for line in shown):
        return None
    code = [k for k, line in enumerate(lines) if line.strip()]
    found = [i for i in range(len(code) - len(shown) + 1)
             if all(lines[code[i + n]].strip() == shown[n] for n in range(len(shown)))]
    if len(found) != 1:
        return None
    first, last = code[found[0]], code[found[0] + len(shown) - 1]
    following = last + 1
    while following < len(lines) and not lines[following].strip():
        following += 1
    if following < len(lines) and indent_of(lines[following]) >= indent_of(lines[first]):
        last = following - 1  # (the blank lines below go with it)
    else:
        while first and not lines[first - 1].strip():
            first -= 1
    return Merge.spanning(current, "".join(lines[:first] + lines[last + 1:]))


def _head_renamed(current: str, text: str) -> Merge | None:
    """A definition's head shown alone, its comment above it and its signature, the body left out ("Rename `Load`
    by changing its doc comment and signature; the body stays the same"), under a name the file does not define:
    the file's one definition whose head is the same but for the name, its head and the comment above it
    rewritten; None for any other block."""
    shown = [line for line in text.splitlines() if line.strip()]
    if not shown or any(is_marker(line) for line in shown) or \
            not all(COMMENT_LINE.match(line) or ATTACHED_LINE.match(line) for line in shown[:-1]):
        return None
    head = shown[-1].rstrip()
    new_name = definition_name([head], 0)
    lines = current.splitlines(keepends=True)
    keys = keys_of(lines)
    defined = definitions_in(keys)
    if new_name is None or not head.endswith(("{", ":")) or new_name in defined.values():
        return None
    found = [j for j, name in defined.items() if re.sub(rf"(?<![\w$]){re.escape(name)}(?![\w$])", new_name, keys[j],
                                                         count=1) == head]
    if len(found) != 1:
        return None
    start = found[0]
    while start and keys[start - 1].strip() and (COMMENT_LINE.match(keys[start - 1]) or
                                                 ATTACHED_LINE.match(keys[start - 1])):
        start -= 1
    newline = "\r\n" if lines[found[0]].endswith("\r\n") else "\n"
    return Merge.spanning(current, "".join(lines[:start] + [line + newline for line in shown] + lines[found[0] + 1:]))


def _rewritten_inside(current: str, block: Block, name: str) -> Merge | None:
    """A line the sentence says is changed in a definition it names ("in `testDeleteRemovesNoteOptimistically`
    change the delete call to:", one line that is none of the file's): the definition's one line that it
    rewrites, the one calling the same function, else as a line shown alone rewrites one
    (``lines.rewrites.rewritten_alone``); None otherwise.  New lines shown below it ("inside `useTodos`,
    initialise from it and watch it:") go right below the rewritten one, unless they read as rewrites of the
    lines there."""
    shown = [line for line in block.text.splitlines(keepends=True) if line.strip()]
    if block.inside is None or not shown or any(is_marker(line) for line in shown):
        return None
    span = definition_lines(current, block.inside, name)
    if span is None:
        return None
    lines = current.splitlines(keepends=True)
    inside = [j for j in range(span[0] + 1, span[1] + 1) if len(lines[j].strip()) >= DISTINCTIVE_LINE]

    def calling_the_same(new: str) -> int | None:
        """The definition's one line that calls what ``new`` calls first (0-based), or None."""
        callee = _FIRST_CALL.search(new)
        same = [j for j in inside if callee and (m := _FIRST_CALL.search(lines[j])) and m[1] == callee[1]]
        return same[0] if len(same) == 1 else None

    def rewritten_alike(new: str) -> int | None:
        """The definition's line that ``new``, shown alone, rewrites (0-based), or None."""
        found = rewritten_alone(new, keys_of(lines), range(span[0] + 2, span[1] + 2), any_depth=True)
        return found - 1 if found is not None else None

    body = {line.strip() for line in lines[span[0]:span[1] + 1]}
    if len(shown) > 1 and len({len(line) - len(line.lstrip()) for line in shown}) == 1 and \
            calling_the_same(shown[0].strip()) is None and rewritten_alike(shown[0].strip()) is None and \
            (j := calling_the_same(shown[-1].strip())) is not None and not any(line.strip() in body for line in shown):
        old = lines[j]  # (new lines, then the one they rewrite: "replace the service call with:" ``actor := ...``
        indent, newline = old[:len(old) - len(old.lstrip())], old[len(old.rstrip("\r\n")):]  # above the call)
        lines[j:j + 1] = [indent + line.strip() + newline for line in shown]
        return Merge.spanning(current, "".join(lines))
    j = calling_the_same(shown[0].strip())  # (``await sut.delete([note])`` for the one ``await sut.delete(at: ...)``)
    if j is None:
        j = rewritten_alike(shown[0].strip())
    if j is None:
        return None
    old = lines[j]
    indent, newline = old[:len(old) - len(old.lstrip())], old[len(old.rstrip("\r\n")):]
    below = _lines_below(block.text, shown[0], indent, newline)
    if any(looks_alike(line, lines[k]) for line in below if line.strip()
           for k in range(j + 1, min(span[1] + 1, j + 1 + len(below)))):
        return None  # (the lines below are rewrites too: lines place them)
    lines[j:j + 1] = [indent + shown[0].strip() + newline] + below
    return Merge.spanning(current, "".join(lines))


def _changes_outside(current: str, merged: str, into: str | None, name: str) -> bool:
    """Whether a merge rewrites or deletes lines outside the class the sentence puts the block in."""
    span = _definition_span(current, into, name) if into else None
    if span is None:
        return False
    matcher = difflib.SequenceMatcher(None, current.splitlines(), merged.splitlines(), autojunk=False)
    return any(tag in ("replace", "delete") and (i2 <= span[0] or i1 > span[1])
               for tag, i1, i2, _, _ in matcher.get_opcodes())


def _placed_inside(current: str, block: Block, name: str) -> Merge | None:
    """New lines whose place the sentence names inside a definition it names ("below the line that sets
    `logLevel` in the `config` object", where ``describeConfig`` sets one too): merged into that definition
    alone, where the place is found; None otherwise."""
    if block.inside is None or not (block.after or block.before):
        return None
    span = definition_lines(current, block.inside, name)
    if span is None:
        return None
    lines = current.splitlines(keepends=True)
    inside = "".join(lines[span[0]:span[1] + 1])
    try:
        merge = merge_update(inside, block.text, name, after=block.after, before=block.before, force=True)
    except UpdateError:
        return None
    merged = "".join(lines[:span[0]]) + merge.merged + "".join(lines[span[1] + 1:])
    return None if breaks(current, merged, language_of(name), block.text) else Merge.spanning(current, merged)


def _lines_below(text: str, first: str, indent: str, newline: str) -> list[str]:
    """The update's lines below its first shown one, moved to where that one goes (``indent``), blank lines
    between them kept, those after the last dropped."""
    lines = text.splitlines(keepends=True)
    rest = lines[lines.index(first) + 1:]
    while rest and not rest[-1].strip():
        rest.pop()
    shift = len(first) - len(first.lstrip())
    return [indent + line[min(shift, len(line) - len(line.lstrip())):].rstrip("\r\n") + newline
            if line.strip() else newline for line in rest]


_FIRST_CALL = re.compile(r"([A-Za-z_$][\w$.]*)\s*\(")  # a line's first call: ``sut.delete`` of ``await sut.delete(``


def _with_go_imports(text: str, packages: tuple[str, ...]) -> str | None:
    """A Go file with the packages a sentence says to add put in its ``import ( ... )`` group: the standard
    library's in the group's first run (no dot in their first element), the others in the last run, each where
    it sorts; None where the file has no such group or imports them all already."""
    lines = text.splitlines(keepends=True)
    start = next((k for k, line in enumerate(lines) if line.strip() == "import ("), None)
    end = next((k for k in range(start + 1, len(lines)) if lines[k].strip() == ")"), None) if start is not None else None
    if end is None:
        return None
    have = set(re.findall(r'"([^"]+)"', "".join(lines[start + 1:end])))
    runs: list[list[int]] = [[]]
    for k in range(start + 1, end):
        if lines[k].strip():
            runs[-1].append(k)
        elif runs[-1]:
            runs.append([])
    runs = [run for run in runs if run]
    new = [p for p in dict.fromkeys(packages) if p not in have]
    if not new or not runs:
        return None
    indent = re.match(r"\s*", lines[runs[0][0]])[0]
    newline = "\r\n" if lines[start].endswith("\r\n") else "\n"
    after: dict[int, list[str]] = {}
    for package in sorted(new):
        run = runs[0] if "." not in package.split("/")[0] else runs[-1]
        at = max([k for k in run if lines[k].strip().strip('"') < package], default=run[0] - 1)
        after.setdefault(at, []).append(f'{indent}"{package}"{newline}')
    out = after.get(start, [])
    for k, line in enumerate(lines):
        out.append(line)
        out += after.get(k, [])
    return "".join(out)
