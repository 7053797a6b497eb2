"""Placing an update by the file's syntax: its functions, classes and sections found by name, merged block by block.

The update and the file are read as units (``program.syntax``).  Each unit of
the update finds the file's unit it stands for: by name and kind (a method,
an import from one module, a ``test('...')`` call, a Markdown heading), by
its text, or, next to a marker, by likeness (a line rewritten where the
marker would otherwise keep it).  Then, level by level:

- a unit shown with a marker inside is merged into its counterpart's body;
- a unit shown whole replaces its counterpart whole, at its counterpart's
  indentation, closing lines included (they belong to the block they close);
- a marker stands for the file's units around it that the update does not
  show, between the units it does show;
- a file unit the update neither shows nor keeps under a marker is deleted.

A method or function pasted alone, which the file's top level does not hold,
replaces the one of that name wherever it is nested.  A block whose update
holds a fragment the parser cannot read (``  ].join(',');`` after a marker)
is merged line by line inside the block.  ``merge_by_blocks``
answers the merged lines, each with where it came from, or None when the
update does not read as units of this file (no grammar, a file that does not
parse, an update with no unit the file has): then lines are placed one by one
(``program.update``).
"""

from __future__ import annotations

import difflib
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from .syntax import LANGUAGES, Unit, parse_units

__all__ = ["Piece", "BlockMerge", "merge_by_blocks", "names", "renamed_alike", "same_body"]

_IMPORT = re.compile(r"^\s*(?:import|package|using|use|#\s*include)\b")  # lines a file starts with, not a class
_COMMENT_LINE = re.compile(r"^\s*(?://|/\*|\*|#(?:\s|$)|--|;)")  # a comment line (not ``#[attr]``, ``#include``)
# closes a block: ``}``, ``});``, ``</div>``, Ruby's ``end``, the shell's ``fi``
_CLOSING = re.compile(r"^\s*(?:[)\]}]+[;,)]*|</[\w.:-]*>[;,)]*|end[;,)]*|fi|done|esac)\s*$")
_END_OF_BLOCK = "\u2063the end of the block\u2063\n"  # stands for a block's closing line while lines place its inside
_LABELS = {"access_specifier", "labeled_statement", "case_statement", "switch_case", "switch_label",
           "rescue", "ensure"}  # (Ruby's ``rescue`` and ``ensure`` stand at the method's depth, inside its body)
REWRITE_LOOKAHEAD = 3  # new units a file unit's rewrite may be among, walking out from a shown neighbour
LIKENESS = 0.6  # a new unit next to a marker rewrites a file unit whose text it resembles this much
SAME_BLOCK = 0.8  # ... this much, for blocks whose heads each name something the other does not
NAMED = {"function", "type", "impl", "section", "import"}  # units that a name identifies: never paired by likeness
RESEMBLANCE_CHARS = 1500  # blocks of one name are compared on their first characters (the rest costs quadratic time)
WHOLE_FILE_SHARE = 0.6  # an update without markers that repeats this share of the file's lines is the whole file


@dataclass(frozen=True)
class Piece:
    """A merged line and where it comes from: a file line, an update line, or both (a line shown unchanged)."""

    text: str
    file_line: int | None  # 1-based
    update_line: int | None  # 1-based


@dataclass(frozen=True)
class BlockMerge:
    pieces: list[Piece]
    seen: frozenset[int]  # file lines the update replaced or removed where it shows what surrounds them
    whole: bool = False  # the update is the whole file (no marker, most of the file's units): it ends as it ends
    partly_by_lines: bool = False  # a block with a fragment the parser cannot read was merged line by line
    # the answer named a place for new definitions that the syntax did not find among the units a marker
    # stands for (a method pasted among top-level markers, its class not shown): lines, which know it, go first
    place_unused: bool = False


class _Refused(Exception):
    """The update does not read as units of this file: place it line by line."""


@dataclass
class _Side:
    lines: list[str]
    marker: list[bool]  # per line: a marker line


LineMerge = Callable[[list[str], list[str]], "tuple[list[Piece], frozenset[int]] | None"]


def merge_by_blocks(document_lines: list[str], update_lines: list[str], language: str,
                    marker_lines: Callable[[list[str], list[str]], list[bool]], merge_lines: LineMerge,
                    after: str | None = None, before: str | None = None) -> BlockMerge | None:
    """The merged file's lines placed by syntax, or None (see the module's docstring).  ``merge_lines`` merges a
    block line by line where the update's block has a fragment the parser cannot read; ``after`` names the
    definition new ones go after, where the answer says so ("right after `Create`"; "": the file's end), and
    ``before`` the one they go before ("place it right above `releaseStock`"), pasted alone or between markers."""
    if language not in LANGUAGES:
        return None
    document, update = "".join(document_lines), "".join(update_lines)
    parsed = parse_units(document, language, document_lines)
    if parsed is None or parsed[1] or not parsed[0]:
        return None  # no grammar, or a file its parser does not read: lines decide
    old_units = parsed[0]
    markers = marker_lines(document_lines, update_lines)
    new = _update_units(update, update_lines, language, markers) or \
        _in_enclosing(update_lines, language, markers, old_units, document_lines, after == "")
    if new is None:
        return None
    new_units, new_lines, rows = new
    new_side = _Side(new_lines, [row is not None and markers[row - 1] for row in rows])
    merger = _Merger(_Side(document_lines, [False] * len(document_lines)), new_side, rows,
                     indented=language == "python", merge_lines=merge_lines,
                     place=("after", after) if after else ("before", before) if before else None)
    new_units = merger.elided_bodies(merger.markers_apart(new_units))
    if language == "markdown":
        new_units = merger.lifted_markers(new_units, old_units)
    if not merger.starts_at_one_depth(new_units) or merger.inside_a_block(new_units):
        return None
    imports = _new_imports(old_units, new_units, merger) if not _starts_one_line(document_lines, after or before) \
        else None
    if imports is not None:  # (where they sort; "below `use App\Models\Invoice;`": there, by lines)
        return imports
    try:
        return merger.top(old_units, new_units)
    except _Refused:
        return _new_definitions(old_units, new_units, merger, language, after, before)


def _starts_one_line(lines: list[str], place: str | None) -> bool:
    """Whether the place an answer names starts one line of the file, and one only (``use App\\Models\\Invoice;``,
    ``return jsonify(...)``): a line, which the line reading places new code by."""
    return bool(place) and sum(1 for line in lines if line.strip().startswith(place)) == 1


def _new_definitions(old_units: list[Unit], new_units: list[Unit], merger: "_Merger", language: str,
                     after: str | None = None, before: str | None = None) -> BlockMerge | None:
    """An update that is only new top-level definitions (``func (s *Store) Update(...)`` pasted alone, no marker,
    no line of the file around it, but lines of the file in it, or a place in it named; new variables beside
    them): they go at the file's end, set off as the file sets off its last definition, rather than onto the
    lines of the functions they resemble; after the top-level definition ``after`` names, or before the one
    ``before`` names, where there is one: a method shown alone at its class's indentation goes beside the method
    named there.  A Python function taking ``self`` is a method (its class is not known unless a method is
    named): None, as for anything else."""
    shown = [u for u in new_units if _content(merger.new.lines, u)]
    below_marker = None  # ("// ... existing code ..." above them: the file, then the new ones, set off as shown)
    if len(shown) > 1 and merger.is_marker(shown[0]):  # (with a place named, the marker stands for what is above
        if after is None and before is None:  # it: "add this below `Notification`", "# ... Notification model ...")
            below_marker = [Piece(line, None, None) for line in merger.new.lines[shown[0].end + 1: shown[1].start]]
        shown = shown[1:]
    names = {u.key for u in _walk(old_units) if u.key is not None}
    names -= {u.key for u in new_units if not any(  # (another ``extension Note``, a method an interface only
        o.key == u.key and not merger.other_entry(o, u) for o in _walk(old_units))}  # declares: new)
    named = [u for u in _walk(old_units) if _named(u, after or before)]
    named = named[:1] if before and not after else named[-1:]  # (overloads: before the first, after the last)
    if not named and _starts_one_line(merger.old.lines, after or before):
        return None  # (a line named by its code, "after the `return jsonify(...)` line": the lines place it)
    depth = _indent(merger.old.lines[named[0].start]) if named else ""
    last_body = _last_body_at(old_units, merger, _indent(merger.new.lines[shown[0].start])) \
        if after == "" and shown and _indent(merger.new.lines[shown[0].start]) else None
    if last_body is not None:  # "add this test at the end of the `tests` module": inside the file's last block
        depth = _indent(merger.new.lines[shown[0].start])
    if not shown or any(merger.is_marker(u) or u.key is None or u.key[0] not in ("function", "type", "variable",
                                                                                  "section")
                        or u.key in names and not (named and u.key[0] == "section")
                        or _indent(merger.new.lines[u.start]) != depth for u in shown) or \
            not named and not any(u.key[0] in ("function", "type", "section") for u in shown):
        return None  # (new variables alone go where the answer places them; a section the file has under another
        # heading is new where the answer places it: a changelog's "### Added" under "## [Unreleased]")
    functions = {u.key[1].rsplit(".", 1)[-1] for u in old_units if u.key is not None and u.key[0] == "function"}
    # (the file's own functions, not its types' methods: a new type may well have a ``validations`` too)
    if any(u.key is not None and u.key[0] == "function" and u.key[1].rsplit(".", 1)[-1] in functions
           for u in _walk(shown)):
        return None  # it defines again functions the file has (moved into a class): a rewrite, not new code
    if not named and any(_renamed_from(merger, u, old_units) for u in shown):
        return None  # a file's function under a new name (its body the same): renamed in place, by lines (unless
        # the answer names where the new one goes: "add a `Touch` method after `UpdateFirmware`", alike as text)
    last = len(old_units) - 1
    if not named and any(u.key[0] == "section" for u in shown):
        return None  # a new Markdown section goes where the answer says, or lines place it
    in_file = {line.strip() for line in merger.old.lines}
    if not named and after != "" and not any(len(line.strip()) >= 8 and line.strip() in in_file for u in shown
                                                 for line in merger.new.lines[u.start: u.end + 1]) and \
            sum(1 for u in shown for line in merger.new.lines[u.start: u.end + 1] if line.strip()) > \
            NEW_SHARE * sum(1 for line in merger.old.lines if line.strip()):
        return None  # nothing of it in the file, no place named, and as long as half of it: the file rewritten
    if language == "python" and not depth and any(SELF_FIRST.match(merger.new.lines[_first_line(u)]) for u in shown):
        return None  # a method: its class's (``new_code``, where the file has one class)
    if not named and language not in ("go", "rust", "c") and any("method" in u.kind for u in shown):
        return None  # (Java's ``public void clear()``: a method, not a top-level function; its class's end)
    lines = merger.old.lines
    pieces = [Piece(line, r + 1, None) for r, line in enumerate(lines)]
    if lines and not lines[-1].endswith(("\n", "\r")):
        pieces[-1] = Piece(lines[-1] + ("\r\n" if lines[-1].endswith("\r") else "\n"), len(lines), None)
    gap = merger._lead(merger.old, old_units, last, (0, len(lines) - 1)) if last > 0 else []
    siblings = _siblings(old_units, named[0]) if named and depth else None
    if siblings is not None and siblings.index(named[0]) > 0:  # a member: set off as its class sets off members
        at = siblings.index(named[0])
        gap = [Piece(lines[r], r + 1, None) for r in range(siblings[at - 1].end + 1, named[0].start)]
    lead = [Piece(p.text, None, None) for p in gap if not p.text.strip()] or [Piece("\n", None, None)]
    if siblings is not None and siblings.index(named[0]) > 0 and not gap and named[0].start == named[0].end and \
            all(u.start == u.end for u in shown) and siblings[siblings.index(named[0]) - 1].key != named[0].key and \
            difflib.SequenceMatcher(None, lines[named[0].start].strip(),
                                    merger.new.lines[shown[0].start].strip()).ratio() >= 0.6:
        lead = []  # (one-line members like it, that the class sets one right below the other: ``final case class
        # NotFound(...)``; not a clause of the same function, nor a ``var`` below a pair of ``val``s)
    if named and named[0].key[0] == "variable":
        lead = lead[:1]  # (a table below a constant: one blank line, not the two between functions)
        first = siblings is not None and siblings.index(named[0]) == 0 and named[0].start == named[0].end and \
            all(u.start == u.end for u in shown)  # (the class's first member, on one line: one like it joins it)
        if siblings is not None and (first or siblings.index(named[0]) > 0 and not any(not p.text.strip() for p in gap)) \
                and all(u.key[0] == "variable" for u in shown) and difflib.SequenceMatcher(
                    None, lines[named[0].start].strip(), merger.new.lines[shown[0].start].strip()).ratio() >= 0.5:
            lead = []  # (a variable like those of a tight run below one of them: ``const [key, setKey] = useState(0)``
            # right below ``[error, setError] = useState(null)``; not ``refreshJob`` below ``uiState``)
    added = [piece for n, unit in enumerate(shown) for piece in
             ([] if n and shown[n - 1].end + 1 == unit.start else lead) + merger._lines(unit.start, unit.end, None)]
    # (each set off as the file sets off its definitions, but those the update shows one right below the other:
    # Go's one-line ``Error()`` and ``Unwrap()``)
    if below_marker:
        added = below_marker + added[len(lead):]
    if last_body is not None:
        end = last_body.end + 1  # after the block's last unit, before its closing lines
        return BlockMerge(pieces[:end] + added + pieces[end:], frozenset())
    if named and before and not after:  # the new ones, the file's own gap, then it
        start = named[0].start  # (its doc comment and decorators are its own)
        ahead = [piece for n, unit in enumerate(shown) for piece in
                 ([] if not n or shown[n - 1].end + 1 == unit.start else lead) + merger._lines(unit.start, unit.end,
                                                                                               None)] + lead
        return BlockMerge(pieces[:start] + ahead + pieces[start:], frozenset())
    if named and (named[0] is not old_units[-1] or depth):
        end = named[0].end + 1  # the new ones go after it, then the file's own gap and the rest
        return BlockMerge(pieces[:end] + added + pieces[end:], frozenset())
    runs_it = [u for u in old_units if _RUNS_IT.match(lines[u.start])]
    tail = next((u for u in runs_it if all(v in runs_it for v in old_units[old_units.index(u):])), None)
    if tail is not None and tail is not old_units[0]:  # before what runs the module, after the unit before it
        end = old_units[old_units.index(tail) - 1].end + 1
        return BlockMerge(pieces[:end] + added + pieces[end:], frozenset())
    return BlockMerge(pieces + added, frozenset())


# What runs a module, and stays its last lines: new definitions go before it
_RUNS_IT = re.compile(r"^(?:if\s+__name__\s*==|module\.exports\b|exports\.\w+\s*=|export\s+default\b|export\s*\{)")
DISTINCTIVE_LINE = 12  # characters of a line that two units share by what they say, not by syntax (``});``)
# A marker's word for the units it keeps, and their key's kind: "// ... existing fields ...", "# ... other imports"
_KIND_SAID = {"fields": "variable", "field": "variable", "properties": "variable", "columns": "variable",
              "attributes": "variable", "imports": "import", "methods": "function", "functions": "function",
              "associations": "associations", "relationships": "associations", "validations": "validations",
              "callbacks": "callbacks"}
# ... and the calls in a class body of such a kind, by their first word: Rails' ``has_many``, ``validates``
_CALLS_OF_KIND = (("associations", re.compile(r"\s*(?:belongs_to|has_many|has_one|has_and_belongs_to_many)\b")),
                  ("validations", re.compile(r"\s*validates?(?:_\w+)?\b")),
                  ("callbacks", re.compile(r"\s*(?:before|after|around)_\w+\b")))
# A call that registers a service or a middleware (ASP.NET's ``builder.Services.AddX<...>``, ``app.UseX``)
_REGISTERS = re.compile(r"\.(?:Add|Use|Map|Configure|Register)(?:[A-Z]\w*)?(?:<.*>)?$")
NEW_SHARE = 0.5  # new definitions with no line of the file and as long as this share of it rewrite it
SELF_FIRST = re.compile(r"^\s*(?:async\s+)?def\s+\w+\s*\(\s*(?:self|cls)\b")  # a Python method: its class's
SAME_BODY = 0.75  # a new definition holding this share of a file definition's distinctive lines is it, renamed


def _renamed_from(merger: "_Merger", new: Unit, old_units: list[Unit]) -> bool:
    """Whether a new definition holds nearly all the distinctive body lines of one the file has (two at least),
    and little else: that one renamed (``getAll`` to ``listItems``), not new code."""
    return any(same_body(merger.new.lines, new, merger.old.lines, old) for old in _walk(old_units))


def same_body(new_lines: list[str], new: Unit, old_lines: list[str], old: Unit) -> bool:
    """Whether two functions share nearly all their distinctive body lines (two at least), both ways: a new
    function that reuses most of a short one's lines is new."""
    if new.key is None or new.key[0] != "function" or old.key is None or old.key[0] != "function":
        return False
    ours = {line for line in _body(new_lines, new) if len(line) >= 8}
    theirs = {line for line in _body(old_lines, old) if len(line) >= 8}
    shared = len(theirs & ours)
    return len(theirs) >= 2 and shared >= SAME_BODY * len(theirs) and shared >= SAME_BODY * len(ours)


def renamed_alike(new_lines: list[str], new: Unit, old_lines: list[str], old: Unit) -> bool:
    """Whether a function is a file's function renamed: its body the same, line for line, but for words that the
    same rename changes (``CalcTotal`` to ``CalculateTotal`` in the body as in the name ``CalcTotal_AppliesTax``),
    two distinctive lines at least.  A sibling added (``refund`` beside ``cancel``) has a body of its own."""
    if new.key is None or new.key[0] != "function" or old.key is None or old.key[0] != "function":
        return False
    new_name, old_name = new.key[1].rsplit(".", 1)[-1], old.key[1].rsplit(".", 1)[-1]
    ours, theirs = _body(new_lines, new), _body(old_lines, old)
    if new_name == old_name or len(ours) != len(theirs) or \
            sum(len(line) >= DISTINCTIVE_LINE for line in theirs) < 2:
        return False
    for a, b in zip(theirs, ours):
        if a == b:
            continue
        words_a, words_b = re.findall(r"\w+|\S", a), re.findall(r"\w+|\S", b)
        if len(words_a) != len(words_b) or any(x != y and (not x[:1].isalpha() or old_name.replace(x, y) != new_name)
                                               for x, y in zip(words_a, words_b)):
            return False
    return True


def _body(lines: list[str], unit: Unit) -> list[str]:
    """A function's lines below its head (its decorators and doc comment not counted), stripped, blank ones left
    out."""
    return [line.strip() for line in lines[(unit.inner or unit.start) + 1: unit.end + 1] if line.strip()]


_COMMENTS = ("comment", "line_comment", "block_comment")


def rewrites_statement(new: str, old: str) -> bool:
    """Whether a line is another line rewritten as the same statement: the same call, or an assignment to the same
    target (``fetcher = Fetcher(session=session, retries=0)``), not a new statement in its place (``return ...``)."""
    callee, target = _callee(new), new.split("=")[0].strip() if "=" in new else None
    return callee is not None and callee == _callee(old) or \
        target is not None and "=" in old and target == old.split("=")[0].strip()


def _first_line(unit: Unit) -> int:
    """A unit's own first line, after the doc comment joined to it."""
    return unit.inner if unit.inner is not None else unit.start


_CALLEE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s+:?\w")  # ``scope :recent``, ``has_many :comments``, ``validates :title``


def _callee(line: str) -> str | None:
    """What a statement line calls, for statements that are calls with bare arguments (Ruby's ``scope :x``):
    the word it starts with; None for anything else."""
    m = _CALLEE.match(line)
    return m[1] if m and m[1] not in ("def", "class", "module", "return", "if", "unless", "end", "import", "from",
                                      "let", "const", "var", "public", "private", "protected", "static") else None


_NAME = re.compile(r"[A-Za-z_$][\w$]{2,}")
_DECLARED = re.compile(r"\s*(?:(?:export|const|let|var|val|static|public|private)\s+)*([A-Za-z_$][\w$]*)")


def _last_body_at(old_units: list[Unit], merger: "_Merger", depth: str) -> Unit | None:
    """The last unit of the file's last block whose units sit at ``depth`` (a Rust ``mod tests``, a test
    class), when that block ends the file: where new code at that depth goes "at the end"."""
    units = old_units
    while units:
        last = units[-1]
        inner = [u for u in (last.body or []) if _content(merger.old.lines, u)]
        if not inner:
            return None
        if _indent(merger.old.lines[inner[-1].start]) == depth:
            return inner[-1]
        units = inner
    return None


def _unit_name(lines: list[str], unit: Unit) -> str | None:
    """What a marker listing elided code would call a unit: its name (``loadTodos``, ``remaining``), or the
    call it makes (``useEffect``); an ``impl`` block, its type's (``// ... MinimumSpend is unchanged ...`` keeps
    ``impl<D: Discount> Discount for MinimumSpend<D>`` too)."""
    if unit.key is not None and unit.key[0] in ("function", "type", "variable"):
        return unit.key[1].rsplit(".", 1)[-1]
    if unit.key is not None and unit.key[0] == "impl" and unit.key[1].split():
        return re.match(r"[\w:]*", unit.key[1].split()[-1])[0].rsplit("::", 1)[-1] or None
    m = _DECLARED.match(lines[_first_line(unit)])
    return m[1] if m else None


_WORD = re.compile(r"[A-Za-z_]\w{2,}")


def another_subject(new: list[str], old: list[str], update: list[str] = ()) -> bool:
    """Whether new lines alike old ones are about another thing: a word the old lines say more than once
    (``timeout``) is gone and one the new lines say as often (``retries``) is new: a guard for another field,
    added beside the file's, not its rewrite.  Not where the update assigns the new word from the gone one
    (``const trimmed = query.trim();``): the same condition, written with the variable."""
    if sum(1 for line in new if line.strip()) < 2:
        return False
    a = Counter(w for line in new for w in _WORD.findall(line))
    b = Counter(w for line in old for w in _WORD.findall(line))
    gone = [w for w, n in b.items() if n >= 2 and w not in a]
    fresh = [w for w, n in a.items() if n >= 2 and w not in b]
    return bool(gone and fresh) and not any(
        re.search(rf"\b{re.escape(f)}\s*(?::[^=]*)?=[^=].*\b{re.escape(g)}\b", line)
        for line in update for f in fresh for g in gone)


# A callback registered for a subject named first: ``watch(filter, (value) => ...)``, ``socket.on(ready, fn)``
_SUBSCRIPTION = re.compile(r"^\s*(?P<call>[\w$.]+)\s*\(\s*(?P<subject>[A-Za-z_$][\w$]*)\s*,(?=.*(?:=>|->|\bfunction\b|"
                           r"\bfn\b|\bdo\b|\{))")


_CALL_OF_A_CALL = re.compile(r"^\s*(?P<call>[\w$.]+)\((?P<arguments>\s*(?P<inner>[A-Za-z_$][\w$.]*)\s*\(.*)\)\s*;?\s*$")
# (``app.use(helmet());``: a call whose argument is a call)


def other_subjects(a: str, b: str) -> bool:
    """Whether two lines register callbacks for other subjects with one call: ``watch(filter, ...)`` beside
    ``watch(todos, ...)`` is another watcher, not a rewrite of it; ``app.use(requestId());`` beside
    ``app.use(helmet());`` another middleware."""
    m, n = _SUBSCRIPTION.match(a), _SUBSCRIPTION.match(b)
    if m and n:
        return m["call"] == n["call"] and m["subject"] != n["subject"]
    m, n = _CALL_OF_A_CALL.match(a), _CALL_OF_A_CALL.match(b)
    return bool(m and n and m["call"] == n["call"] and m["inner"] != n["inner"] and
                _arity(m["arguments"]) == _arity(n["arguments"]) == 1)  # (its one argument: not ``dump(r.reader(), w)``)


def _arity(arguments: str) -> int:
    """How many arguments a list holds, at its top level (``a, f(b, c)``: two)."""
    depth, count = 0, 1 if arguments.strip() else 0
    for char in arguments:
        depth += char in "([{<"
        depth -= char in ")]}>"
        count += char == "," and depth == 0
    return count


def _overload_of(old: list[str], new: list[str], name: str) -> bool:
    """Whether a new function of an old one's name is another overload beside it: it takes another number of
    parameters and calls the name with as many arguments as the old one takes (it delegates to it)."""
    head = re.compile(rf"\b{re.escape(name)}\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)")
    ours, theirs = head.search("".join(old[:3])), head.search("".join(new[:3]))
    if ours is None or theirs is None or _arity(ours[1]) == _arity(theirs[1]):
        return False
    return any(_arity(call[1]) == _arity(ours[1]) and not re.search(r"(?:\.|->|::)$", line[:call.start()].replace(
        "this.", "").replace("self.", "").replace("$this->", "")) for line in new[1:] for call in head.finditer(line))
    # (its own name called, not another object's: ``$this->mailer->send(...)`` is no delegation)


def names(defined: str, name: str) -> bool:
    """Whether a definition's name is the one an answer's sentence names, qualified or not (``create`` for
    ``create``, ``Store.Create`` for ``Create``, ``RingBuffer::pop`` for ``pop``, a call titled so:
    ``parser.add_argument --color`` for ``--color``)."""
    return re.fullmatch(rf"(?:.*(?:\.|::|\s))?{re.escape(name)}", defined) is not None or \
        re.search(r"(?:\.|::|:|#)", name) is not None and re.split(r"\.|::|:|#", name)[-1] == defined  # (said
    # qualified, ``Player:jump``, where the file's reading names ``jump``)


# A function clause's head (Elixir's ``def handle_in("typing", payload, socket) do``): its name, and the literal
# its first argument matches where it matches one
CLAUSE_HEAD = re.compile(r"""^\s*(?:defp?|defmacrop?)\s+(?P<name>\w+[?!]?)\(\s*"""
                         r"""(?P<literal>"[^"]*"|'[^']*'|:\w+|%\{\s*"[^"]*")?""")


def clause_literal(lines: list[str]) -> str | None:
    """The literal a function clause's head matches its first argument on (Elixir's ``def handle_in("typing",
    ...)``), or None: clauses of one name for other literals are other clauses, each kept."""
    head = next((m for line in lines[:4] if (m := CLAUSE_HEAD.match(line))), None)
    return head["literal"] if head else None


_IDENTITY = re.compile(r"""^\s*["']?(?P<key>id|name|key|slug|path|code|version)["']?\s*[:=]\s*(?P<value>(["'`]).*?\3)""")


_ARM = re.compile(r"^\s*(?:case\s+(?P<case>[^:]+):|(?P<pattern>[^=\-]*?[\w)}\]]\s*(?:if\s+[^=]+)?)\s*(?:=>|->))")
_TITLED = re.compile(r"""^\s*(?P<call>[\w.$]+)[ (]\s*(["'`])(?P<title>[^"'`]*)\2""")  # get '/notes' do, it("adds", ...
_ENUMERATION = re.compile(r"\w[\w`]*\s*,\s*`?\w+[^,]*\band\b")  # "name, email, password fields and server error"


def _balanced(text: str) -> bool:
    """Whether a line's brackets close all they open (a match arm's pattern does; a call left open does not)."""
    return text.count("(") == text.count(")") and text.count("[") == text.count("]") and \
        text.count("{") == text.count("}")


def _other_words(old: str, new: str) -> bool:
    """Whether two lines each name something the other does not (``path`` and ``stopwords``): another
    statement's head, not this one's rewritten (which keeps what it tested and may add to it)."""
    a, b = set(_WORD.findall(old)), set(_WORD.findall(new))
    return bool(a - b) and bool(b - a)


def _title_extended(old: str, new: str) -> bool:
    """Whether a test's (a route's) new title says more of the same (``"maps 500 to UpstreamError"`` become
    ``"maps 500 to UpstreamError after exhausting retries"``): the one renamed, not another one."""
    a, b = re.search(r"[\"'](.+)[\"']", old), re.search(r"[\"'](.+)[\"']", new)
    return a is not None and b is not None and old.split("(")[0].split()[0] == new.split("(")[0].split()[0] and \
        len(a[1]) >= 12 and b[1].startswith(a[1]) and a[1] != b[1]


def _identity(lines: list[str]) -> tuple[str, str] | None:
    """What an entry of a list says it is, on one of its first lines: ``id: "0004_sessions_user_idx"``,
    ``"name": "lint"``; None where it says nothing so."""
    for line in lines[:3]:
        m = _IDENTITY.match(line)
        if m:
            return m["key"], m["value"]
    return None


def _identifier(name: str | None) -> bool:
    """Whether a name reads as code, not as a word of a sentence: ``canSave``, ``max_items``."""
    return bool(name) and re.fullmatch(r"[a-z]\w*(?:[A-Z]|_[a-z])\w*", name) is not None


def same_head(old: str, new: str) -> bool:
    """Whether two block heads are one rewritten: alike, or one's condition the other's with more to it
    (``if (error) {`` to ``if (error && orders.length === 0) {``)."""
    if difflib.SequenceMatcher(None, old, new).ratio() >= SAME_BLOCK:
        return True
    short, long = sorted((re.sub(r"\)?\s*(?:\{|:|do|then)$", "", head) for head in (old, new)), key=len)
    return len(short) >= 4 and long.startswith(short) and long[len(short):len(short) + 1] in (" ", ")")


def _kind(unit: Unit) -> str:
    """What sort of unit: a type, a function, a call (a test), a variable ..., else the parser's node type."""
    return unit.key[0] if unit.key is not None and unit.key[0] != "first line" else unit.kind


def _named(unit: Unit, name: str | None) -> bool:
    """Whether a file unit is the definition or section an answer's sentence names (a heading's text too)."""
    if name and name.startswith("impl ") and unit.key is not None:  # "after the `impl Config` block"
        return unit.key[0] == "impl" and unit.key[1].split()[-1] == name.split()[-1]
    return bool(name) and unit.key is not None and (
        unit.key[0] in ("function", "type", "variable") and names(unit.key[1], name)
        or unit.key[0] == "section" and unit.key[1] == name.strip().lower())


def _new_imports(old_units: list[Unit], new_units: list[Unit], merger: "_Merger") -> BlockMerge | None:
    """An update that only adds imports, shown with no line of the file around them (``from .flow import run``
    between markers): each goes among the file's imports, beside the one most like it (the same package),
    before or after it as their names sort; None when the update is anything else."""
    shown = [u for u in new_units if not merger.is_marker(u) and _content(merger.new.lines, u)]
    theirs = [u for u in old_units if u.key is not None and u.key[0] == "import"]
    if not shown or not theirs or any(u.key is None or u.key[0] != "import" for u in shown):
        return None
    in_file = {merger.normal(merger.old, u) for u in old_units}
    if any(merger.normal(merger.new, u) in in_file for u in shown):
        return None  # a shown import places the others: the alignment's
    names = set().union(*(_imported(merger.old.lines[u.start: u.end + 1]) for u in theirs))
    if any(_imported(merger.new.lines[u.start: u.end + 1]) & names for u in shown):
        return None  # a name the file imports already: the import is rewritten (lines find which)
    after: dict[int, list[Piece]] = {}  # file row -> the new imports after it (-1: before the file's first import)
    own: list[Piece] = []  # the new imports of the JDK's or Kotlin's own packages, after all the file's
    for unit in shown:
        text = "".join(merger.new.lines[r] for r in range(unit.start, unit.end + 1))
        beside = [u for u in theirs if "__future__" not in merger.old.lines[u.start]] or theirs  # (Python's
        nearest = max(beside, key=lambda u: difflib.SequenceMatcher(  # ``from __future__`` stays alone, first)
            None, module_of(text), module_of("".join(merger.old.lines[u.start: u.end + 1])),
            autojunk=False).ratio())  # (by the module: ``import logging`` beside ``from typing import ...``)
        if merger.indented and _standard(text) and not any(_standard(merger.old.lines[u.start]) for u in beside):
            first = min(u.start for u in beside)  # Python's standard library, in a file that imports none of
            after.setdefault(first - 1, []).extend(merger._lines(unit.start, unit.end, None))  # it: a group of
            after[first - 1].append(Piece(merger.old.lines[first][len(merger.old.lines[first].rstrip("\r\n")):]
                                          or "\n", None, None))  # its own, first (isort's order)
            continue
        jvm = _JVM_OWN.match(text.strip())
        if jvm and not any(_JVM_OWN.match(merger.old.lines[u.start].strip()) for u in theirs):
            if jvm["semicolon"] and not own:  # (the JDK's and Kotlin's own packages, in a file that imports none of
                last = merger.old.lines[max(u.end for u in theirs)]  # them: last, as IntelliJ and ktlint order
                own.append(Piece(last[len(last.rstrip("\r\n")):] or "\n", None, None))  # them; Java's a group)
            own.extend(merger._lines(unit.start, unit.end, None))
            continue
        row = _sorted_place(theirs, theirs.index(nearest), text.strip(), merger.old.lines)
        after.setdefault(row, []).extend(merger._lines(unit.start, unit.end, None))
    after.setdefault(max(u.end for u in theirs), []).extend(own)
    pieces = after.get(-1, [])
    for r, line in enumerate(merger.old.lines):
        pieces.append(Piece(line, r + 1, None))
        pieces += after.get(r, [])
    return BlockMerge(pieces, frozenset())


_JVM_OWN = re.compile(r"import\s+(?:java|javax|kotlin)\.[\w.]+(?P<semicolon>;)?$")  # (``java.time``, not ``kotlinx``)


def _standard(text: str) -> bool:
    """Whether a Python import imports from the standard library (``from datetime import timedelta``)."""
    m = re.match(r"\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+))", text)
    return m is not None and (m[1] or m[2]).split(".")[0] in sys.stdlib_module_names and \
        (m[1] or m[2]).split(".")[0] != "__future__"


def _widens(theirs: str, ours: str) -> bool:
    """Whether an import imports from the same package all that another does and more (``import a.b.{C, D}`` of
    ``import a.b.C``, Rust's ``use crate::m::{A, B, C};`` of ``use crate::m::{A, B};``)."""
    def package(text: str) -> str:
        return re.sub(r"(?:\.|::)(?:\{.*\}|\w+);?$", "", text)

    if theirs.startswith(("use ", "pub use ")) and ours.startswith(("use ", "pub use ")):  # Rust: by the paths
        return theirs != ours and bool(_use_paths(theirs)) and _use_paths(theirs) <= _use_paths(ours)  # it brings in
    names = _imported([theirs])
    return package(theirs) != theirs and package(theirs) == package(ours) and bool(names) and \
        names <= _imported([ours]) and theirs != ours


def _use_paths(text: str) -> set[str]:
    """The paths a Rust ``use`` brings in, one level of braces spelt out (``use std::{collections::HashSet,
    net::SocketAddr};``: ``std::collections::HashSet`` and ``std::net::SocketAddr``, as ``use std::net::SocketAddr;``
    brings in the second)."""
    body = re.sub(r"\s+", "", text.removeprefix("pub ").removeprefix("use ")).rstrip(";")
    m = re.fullmatch(r"(?P<root>[\w:]*?)(?:::)?\{(?P<names>[^{}]*)\}", body)
    if m is None:
        return {body} if re.fullmatch(r"[\w:]+", body) else set()
    return {f"{m['root']}::{name}" if m["root"] else name for name in m["names"].split(",") if name}


def _sorted_place(imports: list[Unit], at: int, text: str, lines: list[str]) -> int:
    """The file row a new import goes after: beside the import ``at``, moved along the run of imports it
    belongs to (no blank line between) while their order says so (the file's imports sorted, it goes where
    its text sorts)."""
    def key_of(u: Unit) -> tuple[bool, str]:
        return _import_order("".join(lines[u.start: u.end + 1]).strip())

    key = _import_order(text)
    if key < key_of(imports[at]):
        while at > 0 and imports[at - 1].end + 1 == imports[at].start and key < key_of(imports[at - 1]):
            at -= 1
        return imports[at].start - 1
    while at + 1 < len(imports) and imports[at].end + 1 == imports[at + 1].start and key > key_of(imports[at + 1]):
        at += 1
    return imports[at].end


def module_of(text: str) -> str:
    """What an import imports from (``from a.b import c``, ``import a.b``: ``a.b``; ``import x from "y"``: ``y``),
    else its text."""
    m = re.match(r"\s*(?:from\s+(\S+)\s+import\b|import\s+([\w.]+)\s*$|.*\bfrom\s+[\"']([^\"']+))", text)
    return next((g for g in m.groups() if g), text) if m else text


def _import_order(text: str) -> tuple[bool, str]:
    """An import's place in a sorted run: Python's ``import x`` before its ``from x import y`` (isort's order),
    else by text, without its ``;`` (``using Shop;`` before ``using Shop.Data;``, as a path sorts before its own);
    JavaScript's by the module it names (``import { b } from './a'`` before ``import { a } from './b'``)."""
    if (m := re.match(r"""\s*import\s.*\bfrom\s+["']([^"']+)["']""", text)) is not None:
        return False, m[1]
    return text.startswith("from ") and " import " in text, text.rstrip().rstrip(";")


def _imported(lines: list[str]) -> set[str]:
    """The names an import brings in (``from a.b import c as d`` -> c, d; ``import { x } from "y"`` -> x)."""
    text = " ".join(line.strip() for line in lines)
    dotted = re.fullmatch(r"(?:import|using|use)\s+(?:static\s+)?\\?(?:[\w]+(?:\.|::|\\))*(\w+|\*);?", text)
    if dotted:  # ``import org.springframework.validation.FieldError;``: FieldError, not its packages (PHP's
        # ``use Symfony\Component\Yaml\Yaml;``: Yaml)
        return {dotted[1]} - {"*"}
    if text.startswith("from ") and " import " in text:
        text = text.split(" import ", 1)[1]
    elif " from " in text:
        text = text.split(" from ", 1)[0]
    return set(re.findall(r"[A-Za-z_$][\w$]*", text)) - {"import", "as", "type", "from", "require", "const", "let",
                                                           "var", "use", "using", "static", "package"}


_JAVA_MEMBERS = {"method_declaration", "constructor_declaration", "field_declaration"}


def _update_units(update: str, update_lines: list[str], language: str, markers: list[bool]):
    """The update's units: as written, or, when that reads with errors, inside the language's container (a
    method pasted alone, after the imports shown with it); (units, lines read, the update line of each row read
    or None for the container's), or None when neither reads but for fragments inside blocks with a marker
    (lines merge those blocks)."""
    parsed = parse_units(update, language, update_lines)
    if parsed is None:
        return None
    units, errors = parsed
    written = list(range(1, len(update_lines) + 1))
    stray = len(units) > 1 and units[-1].start == units[-1].end and _CLOSING.match(update_lines[units[-1].start]) \
        and _indent(update_lines[units[-1].start]) < _indent(update_lines[units[0].start])  # (Ruby reads an ``end``
    # that closes the class the members were cut from as a statement of its own)
    members = any(u.kind == "global_statement" or language == "java" and u.kind in _JAVA_MEMBERS for u in units)
    if not errors and not stray and not members:  # (C#'s and Java's methods read alone: not the file's top level)
        return units, list(update_lines), written
    wrapped = _in_container(update_lines, language, markers)
    if wrapped is not None:
        return wrapped
    if not errors:  # C# top-level statements (a method pasted alone reads as one: in a class, when it reads so)
        return units, list(update_lines), written
    if all(not unit.broken or any(markers[unit.start: unit.end + 1]) for unit in units) and \
            sum(unit.broken for unit in units) == 1 and units[0].kind != "ERROR":
        return units, list(update_lines), written  # one block with a fragment after its marker (``  ].join('');``)
    return None  # a fragment the parser cannot read (an ``except:`` clause alone): lines place it


def _in_container(update_lines: list[str], language: str, markers: list[bool]):
    """Members pasted without their class, read inside a stand-in one: the whole update, or, when it starts
    with imports (Java's, C#'s, a C++ ``#include``), what follows them, the imports read at the top; the
    update's own closing line of the class, when it ends with one, is the stand-in's."""
    wrapper = LANGUAGES[language].wrapper
    if wrapper is None:
        return None
    head, tail = wrapper
    lines = _terminated(update_lines)
    split = 0
    while split < len(lines) and (not lines[split].strip() or _IMPORT.match(lines[split]) or markers[split]):
        split += 1
    while split > 0 and (markers[split - 1] or not lines[split - 1].strip()):
        split -= 1  # a marker after the imports stands among the members
    tries = [(0, True), (0, False)] + ([(split, True), (split, False)] if 0 < split < len(lines) else [])
    for at, closed in tries:
        read = lines[:at] + [head] + lines[at:] + ([tail] if closed else [])
        rows = list(range(1, at + 1)) + [None] + list(range(at + 1, len(lines) + 1)) + ([None] if closed else [])
        parsed = parse_units("".join(read), language, read)
        if parsed is None or parsed[1]:
            continue
        units = parsed[0]
        container = units[-1] if units else None
        if container is None or container.body is None or container.start != at or \
                any(u.key is None or u.key[0] != "import" for u in units[:-1]):
            continue
        if not closed:
            if not _CLOSING.match(read[container.end]):
                continue
            rows[container.end] = None  # the update's closing line closes the stand-in
        return units[:-1] + container.body, read, rows
    return None


def _in_enclosing(update_lines: list[str], language: str, markers: list[bool], old_units: list[Unit],
                  document_lines: list[str], at_the_end: bool = False):
    """An update that starts with a marker, ends on the closing line the file ends with (``}  // namespace
    ratelimit``) and reads only inside the block that line closes: read under that block's own head, taken from
    the file (the head is the file's, not the update's).  ``at_the_end``: the answer says the new code goes at
    the block's end; then the code between markers above the last marker at the closing line's depth is the
    file's top level (a rewritten helper, then the new tests of the ``describe`` the file ends with).  As
    ``_update_units`` answers, or None."""
    last = old_units[-1] if old_units else None
    lines = _terminated(update_lines)
    split = 0  # the imports it starts with (``#include <atomic>``): the file's top level, above the block
    while split < len(lines) and (not lines[split].strip() or _IMPORT.match(lines[split])):
        split += 1
    if split == len(lines) or not markers[split]:
        return None  # (it says with a marker that the block's first lines stay; shown, they would be its start)
    shown = [line for line in update_lines if line.strip()]
    if last is None or last.body is None or last.body_start <= last.start or \
            shown[-1].strip() != document_lines[last.end].strip() or not _closes(shown[-1]):
        return None
    head = _terminated(document_lines[last.start: last.body_start])
    closing = _indent(shown[-1])
    end = max(k for k, line in enumerate(lines) if line.strip())
    inner = next((m for m in range(end - 1, split - 1, -1) if markers[m] and _indent(lines[m]) == closing and
                  all(not line.strip() or len(_indent(line)) > len(closing) for line in lines[m + 1: end])),
                 None) if at_the_end else None
    top = split if inner is None else inner
    above = [lines[top]] if top else []  # (the marker stands for the file's lines between them and the block)
    read = lines[:top] + above + head + lines[top:]
    rows = list(range(1, top + 1)) + [top + 1] * len(above) + [None] * len(head) + \
        list(range(top + 1, len(lines) + 1))
    parsed = parse_units("".join(read), language, read)
    if parsed is None or parsed[1] or not parsed[0] or parsed[0][-1].key != last.key or \
            any(u.key is None or u.key[0] != "import" for u in parsed[0][:-1]
                if rows[u.start] is None or not markers[rows[u.start] - 1] and rows[u.start] <= split):
        return None
    return parsed[0], read, rows


def _terminated(lines: list[str]) -> list[str]:
    """Lines each ended by a newline (an update's last line may have none), to be read under or over others."""
    return [line if line.endswith(("\n", "\r")) else line + "\n" for line in lines]


def _closes(line: str) -> bool:
    """Whether a line only closes blocks, a comment after it aside (``}  // namespace ratelimit``)."""
    return bool(_CLOSING.match(line.split("//")[0]))


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _normal(lines: list[str]) -> tuple[str, ...]:
    return tuple(line.strip() for line in lines if line.strip())


_CALL_TITLE = re.compile(r"^\s*[\w$.]+\s*\(\s*([\"'`])(?P<title>.*?)\1")  # ``products.MapGet("/search", ...``

class _Merger:
    """One merge: the file's and the update's lines, and the file lines the update removes in sight."""

    def __init__(self, old: _Side, new: _Side, rows: list[int | None], indented: bool = False,
                 merge_lines: LineMerge | None = None, place: tuple[str, str] | None = None):
        self.old, self.new = old, new
        self.place = place  # ("after" | "before", name): where the answer says new definitions go
        self.place_used = False
        self.new_definitions = 0  # definitions the update shows that no file unit is
        self.later: list[int] = []  # file units of this level that go after all the update shows
        self.rows = rows  # per row read, the update line it is (1-based), or None: a stand-in container's line
        self.indented = indented  # the language's blocks are its indentation
        self.merge_lines = merge_lines
        self.by_lines_used = False
        self._normals: dict[tuple[bool, int, int], tuple[str, ...]] = {}
        self.old_units: list[Unit] = []
        self._old_heads: set[tuple[str, ...]] | None = None
        self.seen: set[int] = set()
        self.whole = False  # the update is the whole file (no marker, first line to last unit): what it leaves out goes

    # -- reading units
    def text(self, side: _Side, unit: Unit) -> list[str]:
        return side.lines[unit.start: unit.end + 1]

    def is_marker(self, unit: Unit) -> bool:
        """A unit that is a marker: every line of it a marker line (``// ... existing code ...``,
        ``{/* ... */}``)."""
        rows = [r for r in range(unit.start, unit.end + 1) if self.new.lines[r].strip()]
        return bool(rows) and all(self.new.marker[r] for r in rows)

    def has_marker(self, unit: Unit) -> bool:
        return any(self.new.marker[r] for r in range(unit.start, unit.end + 1))

    def normal(self, side: _Side, unit: Unit) -> tuple[str, ...]:
        """A unit's lines as compared: stripped, without blank ones (read once per unit)."""
        key = (side is self.old, unit.start, unit.end)
        if key not in self._normals:
            self._normals[key] = _normal(self.text(side, unit))
        return self._normals[key]

    def same(self, old: Unit, new: Unit) -> bool:
        return self.normal(self.old, old) == self.normal(self.new, new)

    def likeness(self, old: Unit, new: Unit) -> float:
        a, b = self.normal(self.old, old), self.normal(self.new, new)
        if not a or not b:
            return 0.0
        if (len(a) > 1 or len(b) > 1) and min(len(a[0]), len(b[0])) >= 12:  # a block: its opening line says what
            a, b = a[:1], b[:1]  # it is (not a bare ``{`` or a code fence's ```sh)
        return difflib.SequenceMatcher(None, "\n".join(a), "\n".join(b), autojunk=False).ratio()

    # -- reading the update
    def markers_apart(self, units: list[Unit]) -> list[Unit]:
        """A marker right above a block, or between its decorators and it, is not its doc comment: a unit of its
        own.  (A marker inside a decorator's arguments, deeper than the decorator, ``# ... existing cases ...`` in
        a parametrize list, is the decorator's.)"""
        out: list[Unit] = []
        for unit in units:
            if unit.inner is not None:
                depth = len(_indent(self.new.lines[unit.start]))
                rows = [r for r in range(unit.start, unit.inner) if self.new.marker[r]
                        and len(_indent(self.new.lines[r])) <= depth]
                if rows:
                    out.append(Unit(unit.start, rows[-1], "comment"))
                    start = rows[-1] + 1
                    unit = replace(unit, start=start, inner=start if start < unit.inner else None)
            if unit.body:
                unit = replace(unit, body=self.markers_apart(unit.body))
            out.append(unit)
        return out

    def elided_bodies(self, units: list[Unit]) -> list[Unit]:
        """A block shown with only a marker indented under it (``def f(x):`` then ``    # ...``) has the marker as
        its body: the parser reads an empty body and a comment after it."""
        out: list[Unit] = []
        for n, unit in enumerate(units):
            previous = out[-1] if out else None
            if (previous is not None and self.is_marker(unit) and not previous.body and previous.kind not in _LABELS
                    and len(_indent(self.new.lines[unit.start])) > len(_indent(self.new.lines[previous.start]))
                    and self.new.lines[previous.end].rstrip().endswith((":", "{"))):
                out[-1] = replace(previous, end=unit.end, body=[unit], body_start=unit.start, body_end=unit.end,
                                  key=previous.key or ("first line", self.new.lines[previous.start].strip()))
                continue
            depth = len(_indent(self.new.lines[previous.start])) if previous is not None else 0
            if previous is not None and self.is_marker(unit) and previous.body is None and \
                    previous.start == previous.end and previous.kind not in _LABELS and \
                    "comment" not in previous.kind and len(_indent(self.new.lines[unit.start])) > depth and \
                    n + 1 < len(units) and len(_indent(self.new.lines[units[n + 1].start])) <= depth:
                out[-1] = replace(previous, end=unit.end)  # a marker deeper than the statement above it: the
                continue  # rest of that statement (``val request = ...newBuilder(...)`` then ``    // ...`` for
                # its ``.timeout(...)`` calls), not a unit of its own
            if unit.body:
                unit = replace(unit, body=self.elided_bodies(unit.body))
            out.append(unit)
        return out

    def lifted_markers(self, sections: list[Unit], old_sections: list[Unit]) -> list[Unit]:
        """A marker that ends a Markdown section stands for the sections after it (``<!-- ... existing sections
        ... -->`` before a new one): a unit of its own after the section, which is shown whole.  Where the
        section shows a paragraph the file's section starts the same way (a paragraph rewritten, the section's
        rest elided), the marker stands for the section's rest instead, and stays its last unit (lifted out, the
        code and paragraphs after the one shown went, counted as shown)."""
        heads = {u.key: {self.old.lines[b.start].strip() for b in u.body or [] if self.old.lines[b.start].strip()}
                 for u in _walk(old_sections) if u.key is not None and u.key[0] == "section"}
        out: list[Unit] = []
        for unit in sections:
            body = list(unit.body or [])
            tail: list[Unit] = []
            while body and self.is_marker(body[-1]):
                tail.insert(0, body.pop())
            if tail and unit.key is not None:
                end = body[-1].end if body else unit.body_start - 1
                partly = any(len(self.new.lines[b.start].strip()) >= 12 and
                             self.new.lines[b.start].strip() in heads.get(unit.key, ()) for b in body)
                if partly:  # (the marker is the section's: what follows it, a new subsection, comes right after)
                    out.append(unit)
                else:
                    out += [replace(unit, end=max(unit.start, end), body=body, body_end=max(unit.start, end))] + tail
            else:
                out.append(unit)
        return out

    def starts_at_one_depth(self, units: list[Unit], nested: bool = False) -> bool:
        """Whether the update's units are at the depths of their level: one that starts deeper than a later one
        began inside a block (a snippet from the middle of a function), which the parser reads as top-level
        code; in Python, where depth is syntax, a body's units all start at one depth (a line after a marker
        that is deeper than those before it belongs to a block the update does not show)."""
        depths = [len(_indent(self.new.lines[u.start])) for u in units  # (labels such as ``public:`` aside)
                  if not self.is_marker(u) and _content(self.new.lines, u) and u.kind not in _LABELS]
        if not all(a <= b for a, b in zip(depths, depths[1:])):
            return False
        if nested and self.indented and len(set(depths)) > 1:
            return False
        return all(self.starts_at_one_depth(u.body, True) for u in units if u.body)

    def inside_a_block(self, units: list[Unit]) -> bool:
        """Whether a Python update shows statements from inside a block (indented, no ``def`` or ``class`` of
        theirs): the parser reads them as top-level code, and their names (an import, a variable) would find
        the file's top-level units; lines place such a fragment.  Definitions pasted alone at their class's
        indentation are found by name."""
        shown = [u for u in units if not self.is_marker(u) and _content(self.new.lines, u)]
        return self.indented and bool(shown) and len(_indent(self.new.lines[shown[0].start])) > 0 and \
            any(u.key is None or u.key[0] not in ("function", "type") for u in shown)

    # -- the top level
    def top(self, old_units: list[Unit], new_units: list[Unit]) -> BlockMerge:
        self.old_units = old_units
        if not any(_content(self.new.lines, u) for u in new_units if not self.is_marker(u)):
            raise _Refused
        matches = self.match(old_units, new_units)
        if not matches:
            return self.targeted(old_units, new_units)
        # units the file holds nested, not at its top level (a method shown beside the file's imports)
        top_keys = {u.key for u in old_units}
        nested = {i: self.target(u, old_units) for i, u in enumerate(new_units)
                  if i not in matches and u.key is not None and u.key[0] in NAMED and u.key not in top_keys
                  and any(o.key == u.key for o in _walk(old_units))}
        beside = self.beside_nested(old_units, new_units, matches, nested)
        cls, members = self.members_of_the_class(old_units, new_units, matches, nested, beside)
        if nested or members:
            placed = {id(u) for run in [*beside.values(), members] for u in run}
            new_units = [u for i, u in enumerate(new_units) if i not in nested and id(u) not in placed]
            matches = self.match(old_units, new_units)
        whole = not any(self.new.marker) and self.covers()
        first = [next((line.strip() for line in side.lines if line.strip()), None) for side in (self.old, self.new)]
        self.whole = whole or not any(self.new.marker) and first[0] == first[1] and \
            len(old_units) - 1 in matches.values()  # from the file's first line to its last unit: all of it
        pieces = self.level(old_units, new_units, matches, False, edges=not whole,
                            keep_end=not whole, old_region=(0, len(self.old.lines) - 1),
                            new_region=self.written_rows(), shift=None)
        for old, new in sorted(nested.values(), key=lambda pair: -pair[0].start):
            rows = [n for n, piece in enumerate(pieces) if piece.file_line is not None
                    and old.start < piece.file_line <= old.end + 1]
            if len(rows) != old.end - old.start + 1 or rows[-1] - rows[0] + 1 != len(rows):
                raise _Refused  # the file's unit is not in the merge as it was: the update means something else
            pieces[rows[0]: rows[-1] + 1] = self.pair(old, new, None) + \
                self.added_after(old, old_units, beside.get(id(new), []))
        if members:  # before the class's closing line, set off as its members are; or by the member the answer
            # names ("replace `usersCannotUpdateAccounts` with one test per case": before it)
            body = [u for u in cls.body or [] if u.key is not None]
            named = [n for n, u in enumerate(body) if self.place is not None and _named(u, self.place[1])]
            anchor = None if not named else body[named[-1]] if self.place[0] == "after" else \
                body[named[0] - 1] if named[0] > 0 else None
            self.place_used |= anchor is not None
            end = anchor.end + 1 if anchor is not None else cls.end
            at = next((n for n, piece in enumerate(pieces) if piece.file_line == end + 1), None)
            if at is None:
                raise _Refused
            last = anchor or max(body, key=lambda u: u.end, default=None)
            pieces[at:at] = self.added_after(last, old_units, members) if last is not None else \
                [p for u in members for p in self._lines(u.start, u.end, None)]
        return BlockMerge(pieces, frozenset(self.seen), whole, self.by_lines_used, self.place_unused())

    def members_of_the_class(self, old_units: list[Unit], new_units: list[Unit], matches: dict[int, int],
                             nested: dict, beside: dict) -> tuple[Unit | None, list[Unit]]:
        """New methods read inside a stand-in class (an update of imports, a marker, methods and the class's
        closing brace, not its head) in a file of one class: that class and the methods, which go at its end, not
        after its closing brace; (None, []) otherwise."""
        if None not in self.rows:
            return None, []
        classes = [u for u in old_units if u.key is not None and u.key[0] == "type" and u.body]
        placed = {id(u) for run in beside.values() for u in run}
        new = [u for i, u in enumerate(new_units) if i not in matches and i not in nested and id(u) not in placed
               and not self.is_marker(u) and _content(self.new.lines, u) and (u.key or ("",))[0] != "import"]
        if len(classes) != 1 or not new or any(u.key is None or u.key[0] != "function" or
                                               any(o.key == u.key for o in _walk(old_units)) for u in new):
            return None, []
        return classes[0], new

    def beside_nested(self, old_units: list[Unit], new_units: list[Unit], matches: dict[int, int],
                      nested: dict[int, tuple[Unit, Unit]]) -> dict[int, list[Unit]]:
        """New functions the update shows right after one the file holds nested (no marker between: a new
        method below ``findPublished``, with the class's imports shown at the top level): id of that update unit
        -> the new ones, which go after it in its class, not at the file's end."""
        out: dict[int, list[Unit]] = {}
        anchor = None
        for i, unit in enumerate(new_units):
            if i in nested:
                anchor = id(unit)
            elif anchor is not None and i not in matches and not self.is_marker(unit) and unit.key is not None \
                    and unit.key[0] == "function" and not any(o.key == unit.key for o in _walk(old_units)):
                out.setdefault(anchor, []).append(unit)
            else:
                anchor = None
        return out

    def added_after(self, old: Unit, old_units: list[Unit], new: list[Unit]) -> list[Piece]:
        """The update's new units, each set off as the file sets off ``old`` from the unit after it (a blank
        line where it has none), at ``old``'s indentation."""
        if not new:
            return []
        siblings = _siblings(old_units, old) or [old]
        at = siblings.index(old)
        gap = [Piece(p.text, None, None) for p in self._lead(self.old, siblings, at + 1, (0, len(self.old.lines) - 1))
               if not p.text.strip()] if at + 1 < len(siblings) else []
        pieces = []
        for unit in new:
            shift = (_indent(self.new.lines[unit.start]), _indent(self.old.lines[old.start]))
            pieces += (gap or [Piece("\n", None, None)]) + self._lines(unit.start, unit.end, shift)
            self.new_definitions += 1
        return pieces

    def namesakes(self, unit: Unit, old_units: list[Unit]) -> list[Unit]:
        """The file's units, at any depth, of an update unit's name; among overloads, those of its argument labels
        (a new ``tableView(_:trailingSwipeActionsConfigurationForRowAt:)`` is none of the file's ``tableView``s)."""
        found = [o for o in _walk(old_units) if o.key == unit.key]
        return [o for o in found if self.same_labels(o, unit)] if len(found) > 1 else found

    def same_labels(self, old: Unit, new: Unit) -> bool:
        """Whether a file definition and an update's have the same argument labels (``selector``)."""
        return self.selector(self.old, old) == self.selector(self.new, new)

    def target(self, unit: Unit, old_units: list[Unit]) -> tuple[Unit, Unit]:
        """The file unit, at any depth, that an update's unit pasted alone stands for: the one of its name (the
        most alike among several); _Refused when none, or two are as alike."""
        if unit.key is None or unit.key[0] not in ("function", "type", "impl", "variable", "section", "call"):
            raise _Refused
        found = [o for o in self.namesakes(unit, old_units) if not self.other_entry(o, unit)]
        if not found:
            raise _Refused
        scores = [(self.lines_shared(o, unit), self.resemblance(o, unit)) for o in found]
        if scores.count(max(scores)) > 1 or unit.key[0] == "section" and len(found) > 1 and not max(scores)[0]:
            raise _Refused  # (a new "### Added" of a changelog: none of the file's several, which share no line)
        return found[scores.index(max(scores))], unit

    def covers(self) -> bool:
        """Whether an update without markers is the whole file: it repeats most of the file's lines and starts
        where the file does (its first line the file's, or a rewrite of it; a function shown bare starts at
        its own line); otherwise it is a snippet, which keeps what it does not show."""
        content = [line.strip() for line in self.old.lines if len(line.strip()) >= 3]  # not braces and blanks
        shown = [line.strip() for line in self.new.lines if len(line.strip()) >= 3]
        if not content or not shown:
            return False
        shown_lines = set(shown)
        share = sum(line in shown_lines for line in content) / len(content)
        starts = difflib.SequenceMatcher(None, content[0], shown[0], autojunk=False).ratio() >= LIKENESS
        return share >= WHOLE_FILE_SHARE and starts

    def targeted(self, old_units: list[Unit], new_units: list[Unit]) -> BlockMerge:
        """Units pasted alone (no marker needed): each replaces the unit of its name wherever it is nested; the
        file's units between two of them that the update shows next to each other (no marker between) go."""
        shown = [k for k, u in enumerate(new_units) if not self.is_marker(u) and _content(self.new.lines, u)]
        targets, added, ahead = {}, {}, {}  # a new definition after (before) shown ones -> the file unit it goes
        # after (before)
        unplaced = []
        for k in shown:
            try:
                targets[k] = self.target(new_units[k], old_units)[0]
            except _Refused:
                unplaced.append(k)
        notes = [k for k in unplaced if new_units[k].key is None and "comment" in new_units[k].kind.lower() and
                 k + 1 in unplaced]  # (``<!-- Caching -->`` above a new ``<dependency>``: it goes with it)
        for k in [k for k in unplaced if k not in notes]:  # a new definition beside the shown ones: after the last
            before = [m for m in shown if m < k and m in targets]  # before it, else before the first after it (an
            after = [m for m in shown if m > k and m in targets]  # ``enum`` the new ``split`` takes, shown above it)
            key, element = new_units[k].key, new_units[k].kind == "element"  # (XML: a new ``<dependency>``)
            field = key is not None and key[0] == "variable" and not before and after  # (a new property above
            if key is None or key[0] not in ("function", "type") and not element and not field or \
                    self.namesakes(new_units[k], old_units):  # the constructor shown: above it)
                raise _Refused
            if before and ((targets[before[-1]].key or ("",))[0] == "function" or
                           element and targets[before[-1]].kind == "element"):
                added[k] = targets[before[-1]]  # (a new method after the ones shown: after the last of them)
                between = [m for m in range(before[-1] + 1, k) if self.is_marker(new_units[m])]
                siblings = _siblings(old_units, added[k]) if between else None
                if siblings:  # (a marker between: after what it keeps, up to the one it names, else to the end)
                    said = self._said(new_units, between)
                    rest = siblings[siblings.index(added[k]) + 1:]
                    named = [u for u in rest if _unit_name(self.old.lines, u) in said]
                    kept = [u for u in rest if u.key is not None]
                    added[k] = named[-1] if named else kept[-1] if kept else added[k]
            elif not before and after and ((targets[after[0]].key or ("",))[0] == "function" or
                                           element and targets[after[0]].kind == "element"):
                ahead[k] = targets[after[0]]
            else:
                raise _Refused
        for k in notes[::-1]:
            if k + 1 in added:
                added[k] = added[k + 1]
            elif k + 1 in ahead:
                ahead[k] = ahead[k + 1]
            else:
                raise _Refused
        for k, m in [(k, m) for k in shown for m in shown if k != m and k in targets and m in targets]:
            if k in targets and m in targets and targets[k] is targets[m] and \
                    self.normal(self.new, new_units[m])[:1] == self.normal(self.old, targets[m])[:1] != \
                    self.normal(self.new, new_units[k])[:1]:  # two for one: the one that shows its first line is it,
                (ahead if k < m else added)[k] = targets.pop(k)  # the other a new one beside it (an Elixir clause)
        shown = [k for k in shown if k in targets]
        gone: list[tuple[int, int]] = []  # file rows (first, last) removed between two shown units
        for a, b in zip(shown, shown[1:]):
            if any(self.is_marker(new_units[m]) for m in range(a + 1, b)):
                continue
            siblings = _siblings(old_units, targets[a])
            if siblings is not None and targets[b] in siblings:
                i, j = siblings.index(targets[a]), siblings.index(targets[b])
                if i + 1 < j:
                    gone.append((siblings[i].end + 1, siblings[j - 1].end))
        anchors = {id(o): o for o in added.values() if not any(o is t for t in targets.values())}
        spans = sorted([(old.start, old.end, new_units[k]) for k, old in targets.items()] +
                       [(first, last, None) for first, last in gone] +
                       [(o.start, o.end, o) for o in anchors.values()], key=lambda span: span[0])
        if any(a[1] >= b[0] for a, b in zip(spans, spans[1:])):
            raise _Refused
        pieces, at = [], 0
        lead = self._lead(self.old, old_units, 0, (0, len(self.old.lines) - 1))
        gap = [Piece(p.text, None, None) for p in lead if not p.text.strip()][:2] or [Piece("\n", None, None)]
        for first, last, new in spans:
            pieces += [Piece(self.old.lines[r], r + 1, None) for r in range(at, first)]
            if new is None:
                self.seen.update(range(first + 1, last + 2))
            elif id(new) in anchors:  # a unit the update keeps unshown, new ones after it (past a marker)
                pieces += [Piece(self.old.lines[r], r + 1, None) for r in range(first, last + 1)]
                for n, k in enumerate(sorted(k for k, after in added.items() if after is new)):
                    shift = (_indent(self.new.lines[new_units[k].start]), _indent(self.old.lines[new.start]))
                    below = n > 0 and self.right_below(new_units, k)  # (Go's one-line ``Error()``, ``Unwrap()``)
                    pieces += ([] if below else gap) + self._lines(new_units[k].start, new_units[k].end, shift)
                    self.new_definitions += 1
            else:
                old = next(o for o in targets.values() if o.start == first)
                shift = (_indent(self.new.lines[new.start]), _indent(self.old.lines[old.start]))
                going = sorted(k for k, before in ahead.items() if before is old)
                for n, k in enumerate(going):
                    below = n + 1 < len(going) and going[n + 1] == k + 1 and self.right_below(new_units, k + 1)
                    pieces += self._lines(new_units[k].start, new_units[k].end, shift) + ([] if below else gap)
                    self.new_definitions += 1  # (``@max_per_page 50`` right below ``@default_per_page 10``)
                pieces += self.pair(old, new, None)
                for k in sorted(k for k, after in added.items() if after is old):
                    below = self.right_below(new_units, k)
                    pieces += ([] if below else gap) + self._lines(new_units[k].start, new_units[k].end, shift)
                    self.new_definitions += 1  # (shown right below the one before it: as the file's one-line
                    # ``def``s are, with no blank line between)
            at = last + 1
        pieces += [Piece(self.old.lines[r], r + 1, None) for r in range(at, len(self.old.lines))]
        return BlockMerge(pieces, frozenset(self.seen), partly_by_lines=self.by_lines_used,
                          place_unused=self.place_unused())

    def right_below(self, units: list[Unit], k: int) -> bool:
        """Whether the update shows unit k right below the one before it, no blank line or marker between."""
        return units[k - 1].end + 1 == units[k].start and not self.is_marker(units[k - 1])

    # -- matching one level
    @staticmethod
    def selector(side: _Side, unit: Unit) -> list[str]:
        """A definition's argument labels, the words before each parameter's ``:`` in its head (Swift's
        ``tableView(_:didSelectRowAt:)``); none where its parameters have no such labels."""
        head = ""
        for row in range(unit.inner if unit.inner is not None else unit.start, unit.end + 1):
            head += " " + side.lines[row].strip()
            if "{" in side.lines[row] or side.lines[row].rstrip().endswith(":"):
                break
        return re.findall(r"(?:\(|,)\s*(\w+)(?:\s+\w+)?\s*:", head)

    def match(self, old_units: list[Unit], new_units: list[Unit]) -> dict[int, int]:
        """New unit index -> old unit index: units shown unchanged by their text, then the others by name (among
        several of one name, the most alike, then the next in order)."""
        matches: dict[int, int] = {}
        by_text: dict[tuple[str, ...], list[int]] = {}
        by_key: dict[tuple[str, str], list[int]] = {}
        for j, unit in enumerate(old_units):
            by_text.setdefault(self.normal(self.old, unit), []).append(j)
            if unit.key is not None:
                by_key.setdefault(unit.key, []).append(j)
        shown = [i for i, unit in enumerate(new_units)
                 if not self.is_marker(unit) and _content(self.new.lines, unit)]
        for i in shown:  # units the file has once first: they place the others (a lone ``#`` of a header)
            found = by_text.get(self.normal(self.new, new_units[i]), [])
            if len(found) == 1 and sum(self.normal(self.new, new_units[k]) == self.normal(self.new, new_units[i])
                                       for k in shown) == 1:
                matches[i] = found.pop()
        after = -1  # the file unit the last match took: the next one is most likely after it
        for i in shown:
            if i in matches:
                after = matches[i]
                continue
            found = by_text.get(self.normal(self.new, new_units[i]), [])
            if found:
                below = min((matches[k] for k in matches if k > i), default=len(old_units))
                inside = [j for j in found if after < j < below]
                if inside and i + 1 in matches and i - 1 not in matches:
                    j = max(inside)  # (right above the unit it is shown above)
                else:
                    j = min(found, key=lambda j: (j <= after, abs(j - after)))
                matches[i] = after = j
                found.remove(j)
        used = set(matches.values())
        for i in shown:
            unit = new_units[i]
            if i in matches or unit.key is None:
                continue
            after = max((matches[k] for k in matches if k < i), default=-1)
            found = [j for j in by_key.get(unit.key, []) if j not in used and not self.other_entry(old_units[j], unit)]
            head = self.normal(self.new, unit)[:1]
            found = [j for j in found if self.normal(self.old, old_units[j])[:1] == head or not any(
                k not in matches and new_units[k].key == unit.key and self.normal(self.new, new_units[k])[:1] ==
                self.normal(self.old, old_units[j])[:1] for k in shown if k != i)]  # (another shows its first line:
            # ``def index(conn, params) do`` with a marker below a new clause ``def index(conn, %{"status" => ...``)
            if len(by_key.get(unit.key, [])) > 1:  # overloads: the one of the same argument labels (Swift's
                found = [j for j in found if self.same_labels(old_units[j], unit)]
                # ``tableView(_:didSelectRowAt:)`` is not ``tableView(_:trailingSwipeActionsConfigurationForRowAt:)``)
            if unit.key[0] == "section" and len(found) > 1 and \
                    not any(self.lines_shared(old_units[j], unit) for j in found):
                continue  # (a new "### Added" of a changelog: none of the file's several, which share no line)
            if found:
                matches[i] = max(found, key=lambda j: (self.lines_shared(old_units[j], unit),
                                                       round(self.resemblance(old_units[j], unit), 2), j > after,
                                                       -abs(j - after)))
                used.add(matches[i])
        for i in shown:  # a definition renamed under the same doc comment, one the file has once (a repository
            unit = new_units[i]  # method given a longer name, ``/** Title search used by the catalogue page. */``
            doc = self.doc_of(self.new, unit)
            if i in matches or unit.key is None or unit.key[0] != "function" or not doc or \
                    any(o.key == unit.key for o in _walk(old_units)):
                continue
            found = [j for j, old in enumerate(old_units) if self.doc_of(self.old, old) == doc]
            if len(found) == 1 and found[0] not in used and (old_units[found[0]].key or ("",))[0] == "function":
                matches[i] = found[0]
                used.add(found[0])
        for i in shown:  # Scala's ``import a.b.C`` become ``import a.b.{C, D}``: the same import, given a name
            unit = new_units[i]
            if i in matches or unit.key is None or unit.key[0] != "import":
                continue
            ours = " ".join(self.normal(self.new, unit))
            found = [j for j, old in enumerate(old_units) if j not in used and old.key is not None and
                     old.key[0] == "import" and _widens(" ".join(self.normal(self.old, old)), ours)]
            if len(found) == 1:
                matches[i] = found[0]
                used.add(found[0])
        return matches

    def doc_of(self, side: _Side, unit: Unit) -> tuple[str, ...]:
        """The doc comment lines a unit starts with, stripped (none: empty; not an attribute: ``#[test]`` is every
        test's)."""
        return tuple(side.lines[r].strip() for r in range(unit.start, self.leading_comment(side, unit)))

    def lines_shared(self, old: Unit, new: Unit) -> int:
        """How many of a new unit's distinctive inner lines an old one holds as they are: of two ``<ItemGroup>``s,
        the one holding the ``<PackageReference>`` shown beside a new one (the shorter one is more alike as text)."""
        held = {line for line in self.normal(self.old, old)[1:] if len(line) >= DISTINCTIVE_LINE}
        return sum(1 for line in set(self.normal(self.new, new)[1:]) if line in held)

    def resemblance(self, old: Unit, new: Unit) -> float:
        """How alike two units' whole texts are (a unit's name may repeat: ``try:``, overloads)."""
        a, b = "\n".join(self.normal(self.old, old)), "\n".join(self.normal(self.new, new))
        return difflib.SequenceMatcher(None, a[:RESEMBLANCE_CHARS], b[:RESEMBLANCE_CHARS], autojunk=False).ratio()

    def rewrites(self, old_units: list[Unit], new_units: list[Unit], matches: dict[int, int]) -> None:
        """Pair new units that rewrite a file unit the marker next to them would otherwise keep: walking out from
        the shown neighbour, each new unit with the file unit at that place if they look alike."""
        used = set(matches.values())
        i = 0
        while i < len(new_units):
            if i in matches or self.is_marker(new_units[i]):
                i += 1
                continue
            end = i
            while end < len(new_units) and end not in matches and not self.is_marker(new_units[end]):
                end += 1
            run = [k for k in range(i, end) if _content(self.new.lines, new_units[k])]
            left_marker = i > 0 and self.is_marker(new_units[i - 1])
            right_marker = end < len(new_units) and self.is_marker(new_units[end])
            low = max((matches[k] for k in matches if k < i), default=-1)
            high = min((matches[k] for k in matches if k >= end), default=len(old_units))
            # a marker that lists what it elides ("...name, email, password fields and server error..."): the new
            # unit right beside it is new, not a rewrite of one it keeps (the last field, alike as markup)
            said = self._said(new_units, [i - 1] * left_marker + [end] * right_marker)
            gap = [j for j in range(low + 1, high)
                   if j not in used and _unit_name(self.old.lines, old_units[j]) not in said]
            namesakes = {_unit_name(self.old.lines, old_units[j]) for j in gap} - {None}
            if left_marker and run and _ENUMERATION.search(self.new.lines[new_units[i - 1].start]) and \
                    _unit_name(self.new.lines, new_units[run[0]]) not in namesakes:
                run = run[1:]
            if right_marker and run and _ENUMERATION.search(self.new.lines[new_units[end].start]) and \
                    _unit_name(self.new.lines, new_units[run[-1]]) not in namesakes:  # (``COMMANDS = ...`` above
                run = run[:-1]  # "... initialize, run and the run_* methods ...": the file's ``COMMANDS``)
            if left_marker and not right_marker:
                pairs = self._walk_pairs(old_units, new_units, reversed(run), reversed(gap))
            elif right_marker and not left_marker:
                pairs = self._walk_pairs(old_units, new_units, run, gap)
            else:
                pairs = self._best_pairs(old_units, new_units, run, gap)
            for k, j in pairs:
                if self.one_of_a_new_series(k, old_units[j], new_units, matches):
                    continue
                matches[k] = j
                used.add(j)
            i = end

    def one_of_a_new_series(self, k: int, old: Unit, new_units: list[Unit], matches: dict[int, int]) -> bool:
        """Whether a new unit next to a marker is one more of a series the update adds elsewhere at this level
        (``{fieldErrors.dueDate && <p ...>}`` after the title's and the notes'), more like those than like the
        file unit it would rewrite (``{error && <p ...>}``): new as they are."""
        ours = "\n".join(self.normal(self.new, new_units[k]))
        theirs = difflib.SequenceMatcher(None, "\n".join(self.normal(self.old, old)), ours,
                                         autojunk=False).ratio()
        for m, unit in enumerate(new_units):
            if m == k or m in matches or self.is_marker(unit) or not _content(self.new.lines, unit):
                continue
            if difflib.SequenceMatcher(None, "\n".join(self.normal(self.new, unit)), ours,
                                       autojunk=False).ratio() > max(theirs, LIKENESS):
                return True
        return False

    def rewrite_of(self, old: Unit, new: Unit) -> bool:
        """Whether a new unit reads as a rewrite of a file unit: the same kind of node, alike (or holding its
        first line inside: the unit wrapped), and not a definition of another name (a new function next to an
        old one is not its rewrite), nor a call that names another thing (a new ``router.patch("/:id", ...)``
        route after the ``router.delete`` one, a new ``it("...")`` test)."""
        if NAMED.intersection({(old.key or ("",))[0], (new.key or ("",))[0]}):
            return False
        if old.kind != new.kind:  # wrapped (a list in a condition, ``{items.length === 0 ? ... : (<ul>``)
            return self.wraps(old, new)
        if old.key is not None and new.key is not None and old.key[0] == new.key[0] == "call" and \
                old.key != new.key and ('"' in old.key[1] + new.key[1] or "'" in old.key[1] + new.key[1]) and \
                not _title_extended(old.key[1], new.key[1]):
            return False
        if old.key is not None and new.key is not None and old.key[0] == new.key[0] == "call" and \
                old.key != new.key and _REGISTERS.search(old.key[1]) and _REGISTERS.search(new.key[1]):
            return False  # (``builder.Services.AddAuthorization()`` beside ``...AddResponseCompression()``: another)
        if self.other_entry(old, new) or old.key is not None and new.key is not None and \
                old.key[0] == new.key[0] == "variable" and old.key != new.key and \
                not old.key[1].startswith("=") and not new.key[1].startswith("="):
            return False  # (a new property beside another: ``query`` after ``filter`` is not ``_events``)
        arms = [m if m and _balanced(m["pattern"] or m["case"]) else None  # (not a lambda's ``=>`` inside a call:
                for m in (_ARM.match(self.old.lines[old.start]), _ARM.match(self.new.lines[new.start]))]  # MapGet()
        if arms[0] and arms[1] and (arms[0]["pattern"] or arms[0]["case"]).strip() != \
                (arms[1]["pattern"] or arms[1]["case"]).strip():
            return False  # a match arm or case of another pattern (``Command::Export { .. } =>``): a new one
        titled = _TITLED.match(self.old.lines[old.start]), _TITLED.match(self.new.lines[new.start])
        if titled[0] and titled[1] and titled[0].group("call", "title") != titled[1].group("call", "title") and \
                not _title_extended(self.old.lines[old.start].strip(), self.new.lines[new.start].strip()):
            return False  # Ruby's ``get '/me' do`` beside ``get '/notes' do``: another route, not its rewrite
        if another_subject(self.text(self.new, new), self.text(self.old, old), self.new.lines):
            return False  # (a guard for ``retries`` after the one for ``timeout``: a new one)
        if old.body and new.body and all(self.is_marker(u) for u in new.body) and \
                (old.key or ("",))[0] == (new.key or ("",))[0] == "first line" and \
                same_head(self.old.lines[old.start].strip(), self.new.lines[new.start].strip()):
            return True  # (its head rewritten, its body elided: the heads alone say it)
        if old.body is not None and new.body is not None and (old.key or ("",))[0] == "first line" and \
                _other_words(self.old.lines[old.start], self.new.lines[new.start]) and \
                self.resemblance(old, new) < SAME_BLOCK:
            return False  # (``if (!stopwords.empty()) {`` before ``if (path.empty()) {``: another condition)
        return self.likeness(old, new) >= LIKENESS or old.start == old.end and old.kind not in _COMMENTS and \
            self.wraps(old, new)  # (a one-line statement made part of a larger one)

    def wraps(self, old: Unit, new: Unit) -> bool:
        """Whether a new unit holds a file unit's first line inside it: the unit wrapped (a list in a condition),
        or a statement made part of a larger one (``print_text(&s);`` a ``match`` arm ``Text => print_text(&s),``)."""
        head = self.normal(self.old, old)[:1]
        statement = head[0].rstrip(";,") if head else ""
        inside = self.normal(self.new, new)[1:]
        return len(statement) >= 8 and (head[0] in inside or any(statement in line for line in inside))

    def other_entry(self, old: Unit, new: Unit) -> bool:
        """Whether two entries of a list say they are different ones: ``{ id: "0005_users_locale", ...}`` after
        ``{ id: "0004_sessions_user_idx", ...}`` is a new migration, however alike their text."""
        ours, theirs = _identity(self.text(self.old, old)), _identity(self.text(self.new, new))
        if ours is not None and theirs is not None and ours[0] == theirs[0] and ours != theirs:
            return True
        ours, theirs = clause_literal(self.text(self.old, old)), clause_literal(self.text(self.new, new))
        if ours is not None and theirs is not None and ours != theirs:
            return True  # (another clause: Elixir's ``def handle_in("typing", ...)`` beside ``"new_message"``)
        if old.key is not None and old.key[0] == "call" and old.key == new.key:
            titles = [_CALL_TITLE.match(side.lines[unit.start]) for side, unit in ((self.old, old), (self.new, new))]
            if all(titles) and titles[0]["title"] != titles[1]["title"]:
                return True  # (another route: ``products.MapGet("/search", ...)`` beside ``MapGet("/{id:int}"``)
            if other_subjects(self.old.lines[old.start], self.new.lines[new.start]):
                return True  # (another watcher: ``watch(filter, ...)`` beside ``watch(todos, ...)``)
        if old.key is not None and old.key[0] == "function" and old.start == old.end and new.end > new.start and \
                self.old.lines[old.start].rstrip().endswith(";") and "=>" not in self.old.lines[old.start] and \
                any("{" in line for line in self.text(self.new, new)):
            return True  # (an interface's ``Search(ProductQuery query);`` is not the class's method of that name;
            # C#'s ``void Dispose() => _db.Dispose();`` is, with a body of one expression)
        if old.key is not None and old.key[0] == "function" and old.key == new.key and \
                _overload_of(self.text(self.old, old), self.text(self.new, new), old.key[1].rsplit(".", 1)[-1]):
            return True  # (``slugify(String input, int maxLength)`` calling ``slugify(input)``: an overload)
        return _repeatable(old) and old.key == new.key and not self.has_marker(new) and _members(old) and \
            _members(new) and not _members(old) & _members(new)  # another ``extension Note``, another ``impl Foo``

    def _walk_pairs(self, old_units, new_units, run, gap) -> list[tuple[int, int]]:
        """From the shown neighbour out: each file unit with a rewrite of it among the next few new units (a
        new ``before_action`` shown before the one rewritten), until one has none."""
        run, pairs, at = list(run), [], 0
        for j in gap:
            found = next((n for n in range(at, min(len(run), at + REWRITE_LOOKAHEAD))
                          if self.rewrite_of(old_units[j], new_units[run[n]])), None)
            if found is None:
                break
            pairs.append((run[found], j))
            at = found + 1
        return pairs

    def _best_pairs(self, old_units, new_units, run, gap) -> list[tuple[int, int]]:
        pairs, floor = [], -1
        for k in run:
            scored = [(self.likeness(old_units[j], new_units[k]), j) for j in gap
                      if j > floor and self.rewrite_of(old_units[j], new_units[k])]
            if scored:
                _, j = max(scored)
                pairs.append((k, j))
                floor = j
        return pairs

    # -- merging one level
    def level(self, old_units: list[Unit], new_units: list[Unit], matches: dict[int, int] | None,
              nested: bool, *, edges: bool, keep_end: bool = False,
              open_end: bool = False, old_region: tuple[int, int], new_region: tuple[int, int],
              shift) -> list[Piece]:
        """The merged lines of one level: the units in the update's order, markers standing for the file's
        units around them; ``edges``: the update's start and end stand for the file's units before and after it
        (a snippet without markers at the top level); ``open_end``: its end does (a Python body: no closing line
        shows where the update meant it to end)."""
        if matches is None:
            matches = self.match(old_units, new_units)
        self.rewrites(old_units, new_units, matches)
        if self.place is not None and any(_named(old_units[j], self.place[1]) for j in matches.values()):
            self.place_used = True  # the update shows the definition it names: its order places the new ones
        if nested:
            self.refuse_strays(old_units, new_units, matches)
        for k, j in sorted(matches.items()):
            if not self.is_marker(new_units[k]):
                shift = (_indent(self.new.lines[new_units[k].start]), _indent(self.old.lines[old_units[j].start]))
                break
        matched_old = set(matches.values())
        consumed: set[int] = set()
        items: list[tuple[str, object]] = []  # ("old", j) | ("new", k) | ("pair", (j, k))
        sequence = list(range(len(new_units)))
        markers_at = {k for k in sequence if self.is_marker(new_units[k])}
        if edges:  # (an update that starts or ends with a marker: that marker stands for the edge's units)
            head = [-1] if not new_units or not self.is_marker(new_units[0]) else []
            tail = [len(new_units)] if not new_units or not self.is_marker(new_units[-1]) else []
            markers_at |= {*head, *tail}
            sequence = head + sequence + tail
        elif open_end:
            markers_at.add(len(new_units))
            sequence.append(len(new_units))
        for k in range(len(new_units)):  # a block that ends on a marker and no closing line: the marker goes on
            follows = k + 1 < len(new_units) and k + 1 not in matches and not self.is_marker(new_units[k + 1])
            if k not in markers_at and self.ends_on_marker(new_units[k]) and not follows:  # (not when new code
                # follows it: shown right after the block, it goes there)
                markers_at.add(k + 0.5)
                sequence.insert(sequence.index(k) + 1, k + 0.5)
        for k in sequence:
            if k in markers_at:
                before = max((matches[m] for m in matches if m < k), default=-1)
                after = min((matches[m] for m in matches if m > k), default=len(old_units))
                covered = self._covered(before, after, matched_old, consumed, len(old_units))
                covered = self._up_to_place(covered, old_units, new_units, sequence, k, matches)
                covered = self._up_to_kin(covered, old_units, new_units, sequence, k, matches, before)
                covered = self._up_to_what_it_names(covered, old_units, new_units, sequence, k, matches)
                consumed |= set(covered) | set(self.later)
                items += [("old", j) for j in covered]
            elif k in matches:
                items.append(("pair", (matches[k], k)))
            else:
                items.append(("new", k))
                key = new_units[k].key
                self.new_definitions += key is not None and key[0] in ("function", "type")
        items += [("old", j) for j in self.later]  # (the file's units past those a last marker names: after it)
        self.later = []
        deleted = [j for j in range(len(old_units)) if j not in matched_old and j not in consumed]
        self._note_deleted(deleted, old_units, new_units, matches, markers_at, nested)
        # the file's end stays after a marker that ends the update, and after a snippet at the top level
        ends_kept = keep_end or bool(sequence) and sequence[-1] in markers_at
        return self._emit(items, old_units, new_units, old_region, new_region, shift, ends_kept)

    def _up_to_place(self, covered: list[int], old_units: list[Unit], new_units: list[Unit], sequence: list,
                     k, matches: dict[int, int]) -> list[int]:
        """A marker's units, cut at the place the answer names for the new definition that follows the marker
        ("place it right above `releaseStock`"): without a line of the file around it, nothing else says where
        among the units the marker stands for it goes."""
        following = sequence[sequence.index(k) + 1:][:1]
        if self.place is None or not following or following[0] in matches or following[0] not in range(len(new_units)) \
                or self.is_marker(new_units[following[0]]):
            return covered
        side, name = self.place
        at = [n for n, j in enumerate(covered) if _named(old_units[j], name)]
        if not at:
            return covered
        self.place_used = True
        return covered[:at[0]] if side == "before" else covered[:at[-1] + 1]

    def _up_to_kin(self, covered: list[int], old_units: list[Unit], new_units: list[Unit], sequence: list, k,
                   matches: dict[int, int], before: int) -> list[int]:
        """A marker between a shown statement and a new one of its kind (``scope :recent``, ``# ... other
        scopes ...``, then a new ``scope :trending``, then a marker): it stands for the rest of that kind's run
        in the file, and the new one goes at the run's end, not after everything the marker's block holds."""
        said = self._said(new_units, [k]) if k in range(len(new_units)) else set()
        if self.place is not None or before < 0 or any(_unit_name(self.old.lines, old_units[j]) in said
                                                       for j in covered):
            return covered  # (a marker that names what it keeps says itself where it ends)
        run_new = []  # the update's units from the marker to the next one (or its end): all new
        for m in sequence[sequence.index(k) + 1:]:
            if m not in range(len(new_units)) or self.is_marker(new_units[m]):
                break
            if m in matches:
                return covered
            run_new.append(new_units[m])
        shown = [u for u in run_new if u.kind not in _COMMENTS]
        if not shown:
            return covered
        head = _callee(self.new.lines[_first_line(shown[0])])
        if head is None or _callee(self.old.lines[_first_line(old_units[before])]) != head:
            return covered
        run = 0
        while run < len(covered) and _callee(self.old.lines[_first_line(old_units[covered[run]])]) == head:
            run += 1
        return covered[:run]

    def _said(self, new_units: list[Unit], markers: list[int]) -> set[str]:
        """The names the markers ``markers`` list as elided (``// ... (useEffect and `remaining` remain the
        same)``): units that stay, so no new unit rewrites them."""
        return {word for k in markers for word in _NAME.findall(self.new.lines[new_units[k].start])}

    def _up_to_what_it_names(self, covered: list[int], old_units: list[Unit], new_units: list[Unit],
                             sequence: list, k, matches: dict[int, int]) -> list[int]:
        """A marker that lists what it stands for (``// ... (useEffect and `remaining` remain the same)``) and
        a new definition after it: the marker stands for the file's units up to the last one it names, and the
        new code goes there, before the units the next marker names; a marker that names none of its units stands
        for those before the first one the next marker names."""
        following = sequence[sequence.index(k) + 1:][:1]
        if self.place_named() or not covered or not following or following[0] in matches or \
                following[0] not in range(len(new_units)) or self.is_marker(new_units[following[0]]) or \
                k not in range(len(new_units)):
            return covered
        said = self._said(new_units, [k])
        named = [n for n, j in enumerate(covered) if _unit_name(self.old.lines, old_units[j]) in said] or \
            self._of_the_kind_said(covered, old_units, said)
        if not any(m in range(len(new_units)) and self.is_marker(new_units[m])
                   for m in sequence[sequence.index(k) + 1:]):
            kind = _kind(new_units[following[0]])
            if named and named[-1] + 1 < len(covered) and not any(m in matches for m in sequence[sequence.index(k):]) \
                    and _kind(old_units[covered[named[-1]]]) == kind and \
                    not any(_kind(old_units[j]) == kind for j in covered[named[-1] + 1:]):
                self.later += covered[named[-1] + 1:]  # ("// ... ListParams and CreateTodo unchanged ...", a new
                return covered[:named[-1] + 1]  # struct, the update's end: after them; the functions past, kept)
            return covered  # (no marker after it to keep the units past those it names: it keeps them all)
        if named:
            return covered[:named[-1] + 1]
        following_marker = next(m for m in sequence[sequence.index(k) + 1:]
                                if m in range(len(new_units)) and self.is_marker(new_units[m]))
        said = self._said(new_units, [following_marker])  # (``# ... other imports ...``, a new constant, then
        named = [n for n, j in enumerate(covered) if ((old_units[j].key or ("",))[0] in ("function", "type") or
                                                      _identifier(_unit_name(self.old.lines, old_units[j]))) and
                 _unit_name(self.old.lines, old_units[j]) in said]  # (a definition or a name no word is: not
        # ``case`` of "default case", but ``canSave``)
        return covered[:named[0]] if named else covered  # ``# ... PublishedManager ...``: that one is the next's)

    def _of_the_kind_said(self, covered: list[int], old_units: list[Unit], said: set[str]) -> list[int]:
        """The covered units a marker names by their kind (``// ... existing fields ...``: the class's fields, up
        to the last of the run they start), where no unit of another kind comes before that last one."""
        kinds = {_KIND_SAID[word.lower()] for word in said if word.lower() in _KIND_SAID}
        if len(kinds) != 1 and not kinds <= {said for said, _ in _CALLS_OF_KIND}:
            return []  # (one kind; or the calls of a class body: "associations, validations and callbacks")
        def kind(unit: Unit) -> str:
            if unit.key is not None:
                return unit.key[0]
            line = self.old.lines[unit.start]
            return next((said for said, first in _CALLS_OF_KIND if first.match(line)), "") \
                if unit.kind == "call" else ""
        of_kind = [n for n, j in enumerate(covered) if kind(old_units[j]) in kinds and
                   (old_units[j].body is None or "variable" not in kinds)]  # (a field, not a computed property)
        if not of_kind or any(kind(old_units[j]) and kind(old_units[j]) not in kinds for j in covered[:of_kind[-1]]):
            return []
        return of_kind

    def place_unused(self) -> bool:
        """Whether the answer named a definition of the file for new ones to go by, and none went there."""
        return self.new_definitions > 0 and not self.place_used and self.place_named()

    def place_named(self) -> bool:
        """Whether the answer named a definition of the file as the place of new ones."""
        return self.place is not None and any(_named(unit, self.place[1]) for unit in _walk(self.old_units))

    @staticmethod
    def _covered(before: int, after: int, matched: set[int], consumed: set[int], total: int) -> list[int]:
        """The file units a marker stands for: those after the shown unit before it, and those before the shown
        unit after it, that nothing else shows or keeps (both runs, when the update reorders units)."""
        out = []
        j = before + 1
        while j < total and j not in matched and j not in consumed:
            out.append(j)
            j += 1
        j = after - 1
        tail = []
        while j >= 0 and j not in matched and j not in consumed and j not in out:
            tail.append(j)
            j -= 1
        return out + tail[::-1]

    def ends_on_marker(self, unit: Unit) -> bool:
        """Whether a block ends with a marker and nothing shows where it ends (``    # ... rest ...`` as a Python
        function's last line): the marker may stand for what follows the block as well."""
        if not unit.body or unit.end > unit.body_end:
            return False
        last = unit.body[-1]
        return self.is_marker(last) or self.ends_on_marker(last)

    def refuse_strays(self, old_units: list[Unit], new_units: list[Unit], matches: dict[int, int]) -> None:
        """_Refused when a block the update shows inside another is a block the file has elsewhere: the update's
        marker elided lines across blocks (``def f():`` then a marker then the middle of ``g``), which only a
        placement by lines reads."""
        here = {self.normal(self.old, u)[:1] for u in old_units}
        for k, unit in enumerate(new_units):
            if k in matches or unit.end == unit.start or self.is_marker(unit):
                continue
            head = self.normal(self.new, unit)[:1]
            if head and len(head[0]) >= 8 and head not in here and head in self.old_heads():
                raise _Refused

    def old_heads(self) -> set[tuple[str, ...]]:
        """The first lines of the file's blocks, at every depth."""
        if self._old_heads is None:
            self._old_heads = {self.normal(self.old, u)[:1] for u in _walk(self.old_units) if u.end > u.start}
        return self._old_heads

    def _note_deleted(self, deleted, old_units, new_units, matches, markers_at, nested: bool) -> None:
        """Deleted units the update surrounds with what it shows (no marker between) are deleted in sight."""
        order = sorted((j, k) for k, j in matches.items())
        for j in deleted:
            before = [k for jj, k in order if jj < j]
            after = [k for jj, k in order if jj > j]
            low = before[-1] if before else (-1 if nested else None)
            high = after[0] if after else (len(new_units) if nested else None)
            if low is None or high is None or low >= high:
                continue
            if any(low < m < high for m in markers_at):
                continue
            unit = old_units[j]
            self.seen.update(range(unit.start + 1, unit.end + 2))

    def _emit(self, items, old_units, new_units, old_region, new_region, shift, ends_kept: bool) -> list[Piece]:
        """The items' lines, each after the lines that separate it from the item before: the update's where the
        update shows both next to each other, else the file's where the file has both next to each other."""
        pieces: list[Piece] = []
        before: tuple[int | None, int | None] = (-1, -1)  # (file unit, update unit) of the item before
        for side, what in items:
            j, k = (what, None) if side == "old" else (what[0], what[1]) if side == "pair" else (None, what)
            new_lead = k is not None and before[1] == k - 1
            old_lead = j is not None and before[0] == j - 1
            marker_after_new = side == "old" and before[0] is None and before[1] is not None and \
                before[1] + 1 < len(new_units) and self.is_marker(new_units[before[1] + 1]) and \
                new_units[before[1]].end > new_units[before[1]].start  # (a new block, set off, not a statement)
            if new_lead and not (old_lead and before == (-1, -1) and not self._lead(self.new, new_units, k,
                                                                                     new_region, shift)):
                pieces += self._lead(self.new, new_units, k, new_region, shift)
            elif marker_after_new and self._lead(self.new, new_units, before[1] + 1, new_region, shift) and \
                    not self._lead(self.old, old_units, j, old_region):
                # new code, a blank line, then the marker for a unit the file sets off by none: as the update shows
                pieces += self._lead(self.new, new_units, before[1] + 1, new_region, shift)
            elif j is not None:
                pieces += self._lead(self.old, old_units, j, old_region)
            elif before[1] is None and before[0] is not None and 0 <= before[0] < len(old_units) - 1:
                # new code after what a marker keeps: set off as the file sets off what follows there, unless
                # the update writes it right under the marker and the file runs those units on with no blank line
                # (a new statement after ``// ... the others as before ...``: the next in that run)
                shown_lead = self._lead(self.new, new_units, k, new_region, shift) if k > 0 and \
                    self.is_marker(new_units[k - 1]) else None
                file_lead = self._lead(self.old, old_units, before[0] + 1, old_region)
                if shown_lead and new_units[k].start == new_units[k].end and \
                        (old_units[before[0]].end == old_units[before[0]].start or len(shown_lead) >= len(file_lead)):
                    pieces += shown_lead  # (a one-line statement, ``WORDS_PER_MINUTE = 200``: as the update sets it
                    # off, not as the class after it is set off; after a block, by no fewer lines than the file
                    # sets its blocks off: ``RETRYABLE = {...}`` two lines below a function, as PEP 8 has it)
                elif not (0 < before[0] and shown_lead is not None and not shown_lead and
                          not self._lead(self.old, old_units, before[0], old_region)):
                    pieces += file_lead
            elif before[1] is None and before[0] is not None and 0 < before[0] == len(old_units) - 1:
                # after the last unit the marker keeps: set off as the file sets off that one from the one before,
                # unless the update sets off a one-line unit with a comment of its own right under the marker (a
                # new field, ``// startedAt is used by /healthz ...`` above it)
                shown_lead = self._lead(self.new, new_units, k, new_region, shift) if k > 0 and \
                    self.is_marker(new_units[k - 1]) else None
                commented = new_units[k].start < _first_line(new_units[k]) == new_units[k].end
                pieces += shown_lead if shown_lead and commented else \
                    self._lead(self.old, old_units, before[0], old_region)
            else:
                pieces += self._lead(self.new, new_units, k, new_region, shift)
            if side == "old":
                unit = old_units[j]
                pieces += [Piece(self.old.lines[r], r + 1, None) for r in range(unit.start, unit.end + 1)]
            elif side == "pair":
                pieces += self.pair(old_units[j], new_units[k], shift)
            else:
                if self.has_marker(new_units[k]) and not self.is_marker(new_units[k]):
                    raise _Refused  # a new block with a marker inside: it stands for lines the syntax did not pair
                pieces += self._lines(new_units[k].start, new_units[k].end, shift)
            before = (j, k)
        # the lines after the last unit, up to the container's end
        last_old, last_new = before
        if last_old == len(old_units) - 1 and (ends_kept or last_new is None):
            end = old_units[-1].end if old_units else old_region[0] - 1
            pieces += [Piece(self.old.lines[r], r + 1, None) for r in range(end + 1, old_region[1] + 1)]
        else:
            end = new_units[-1].end if new_units else new_region[0] - 1
            pieces += self._lines(end + 1, new_region[1], shift)
        return pieces

    def _lead(self, side: _Side, units: list[Unit], index: int, region, shift=None) -> list[Piece]:
        """The lines between a unit and the one before it in its own text (blank lines, mostly)."""
        start = units[index - 1].end + 1 if index > 0 else region[0]
        if side is self.old:
            return [Piece(self.old.lines[r], r + 1, None) for r in range(start, units[index].start)]
        return self._lines(start, units[index].start - 1, shift)

    def _lines(self, first: int, last: int, shift) -> list[Piece]:
        """Update lines first..last (rows of the text read), indented as the file indents that place."""
        out = []
        for r in range(max(first, 0), min(last, len(self.new.lines) - 1) + 1):
            if self.rows[r] is not None and not self.new.marker[r]:  # (None: the container a method was read in)
                out.append(Piece(_reindent(self.new.lines[r], shift), None, self.rows[r]))
        return out

    def pair(self, old: Unit, new: Unit, shift) -> list[Piece]:
        """A file unit and the update's unit for it: kept when the same, merged when the update's has markers
        inside, else replaced whole at the file unit's indentation."""
        doc = self.leading_comment(self.old, old)
        start = self.doc_shown_from(old, new, doc)
        if start is not None:  # the update starts inside the doc comment: the lines above it are not shown
            kept = [Piece(self.old.lines[r], r + 1, None) for r in range(old.start, start)]
            return kept + self.pair(replace(old, start=start), new, shift)
        if doc and not self.leading_comment(self.new, new) and doc < old.end and \
                not self.comment_inside(range(old.start, doc), new):  # shown without its doc comment
            definition = replace(old, start=doc, inner=old.inner if old.inner is not None and old.inner > doc else None)
            kept = [Piece(self.old.lines[r], r + 1, None) for r in range(old.start, doc)]
            return kept + self.pair(definition, new, shift)
        if old.inner is not None and new.inner is None and not self.whole and \
                not self.comment_inside(range(old.start, old.inner), new):  # shown without its decorators or
            # doc comment: they stay (in the whole file shown, they went)
            definition = replace(old, start=old.inner, kind=new.kind, inner=None)
            kept = [Piece(self.old.lines[r], r + 1, None) for r in range(old.start, old.inner)]
            return kept + self.pair(definition, new, shift)
        shift = (_indent(self.new.lines[new.start]), _indent(self.old.lines[old.start]))
        if self.same(old, new):
            if old.end - old.start == new.end - new.start:
                return [Piece(self.old.lines[r], r + 1, self._row(r - old.start + new.start))
                        for r in range(old.start, old.end + 1)]
            return self._over(old.start, old.end, self._lines(new.start, new.end, shift))  # blank lines changed
        # a Python block shown up to a marker and no further keeps its other clauses (``except:``) as they are
        open_tail = new.body_end >= new.end and self.ends_on_marker(new)
        mergeable = old.body is not None and new.body is not None and (self.closes_only(old) or open_tail)
        if new.broken and not (mergeable and self.has_marker(new) and self.broken_inside(new)):
            return self.by_lines(old, new, shift)  # (a fragment inside a block the update shows is merged there)
        if mergeable and self.lone_lines_between_markers(old, new):
            return self.by_lines(old, new, shift)
        if self.has_marker(new):
            in_head = None not in (old.inner, new.inner) and not any(self.new.marker[new.inner: new.end + 1])
            if not mergeable and in_head:  # a marker among a decorator's arguments (``# ... existing cases ...`` in
                head = self._edge(old.start, old.inner - 1, new.start, new.inner - 1, shift)  # a parametrize list):
                self.seen.update(range(old.inner + 1, old.end + 2))  # lines place the cases, the rest is shown whole
                return head + self._over(old.inner, old.end, self._lines(new.inner, new.end, shift))
            inside = range(new.start + 1, new.end)
            if not mergeable and old.end > old.start + 1 and len(inside) and \
                    all(self.new.marker[r] or not self.new.lines[r].strip() for r in inside) and \
                    (_CLOSING.match(self.new.lines[new.end]) or
                     self.new.lines[new.end].strip() == self.old.lines[old.end].strip()):
                # a block shown with only a marker between its first and last lines (Ruby's ``helpers do`` /
                # ``# ... unchanged`` / ``end``): all it holds stays
                head = self._edge(old.start, old.start, new.start, new.start, shift)
                tail = self._edge(old.end, old.end, new.end, new.end, shift)
                return head + [Piece(self.old.lines[r], r + 1, None) for r in range(old.start + 1, old.end)] + tail
            if not mergeable and open_tail and old.end > old.start and new.body_start == new.start + 1 and \
                    new.body and all(self.is_marker(u) for u in new.body):
                # a block shown as its first line and a marker (``with open(path, encoding=e) as f:`` then
                # ``# ... rest of the function unchanged``): its first line rewritten, all it holds stays
                head = self._edge(old.start, old.start, new.start, new.start, shift)
                return head + [Piece(self.old.lines[r], r + 1, None) for r in range(old.start + 1, old.end + 1)]
            if not mergeable:
                raise _Refused  # no body to merge into, or more than one (``try:`` and its ``except:``)
            head = self._edge(old.start, old.body_start - 1, new.start, new.body_start - 1, shift)
            inner = self.level(old.body, new.body, None, True, edges=False,
                               open_end=self.indented and new.body_end >= new.end,
                               old_region=(old.body_start, old.body_end),
                               new_region=(new.body_start, new.body_end), shift=shift)
            if open_tail:
                tail = [Piece(self.old.lines[r], r + 1, None) for r in range(old.body_end + 1, old.end + 1)]
            else:
                tail = self._edge(old.body_end + 1, old.end, new.body_end + 1, new.end, shift)
            return head + inner + tail
        cut = self.cut_short(old, new)
        if cut:  # a Python definition shown down to the one line it changes, the update's last: the rest stays
            changed = old.start + cut - 1
            self.seen.add(changed + 1)
            return [Piece(self.old.lines[r], r + 1, self._row(r - old.start + new.start))
                    for r in range(old.start, changed)] + self._lines(new.end, new.end, shift) + \
                [Piece(self.old.lines[r], r + 1, None) for r in range(changed + 1, old.end + 1)]
        pieces = self._over(old.start, old.end, self._lines(new.start, new.end, shift))
        rest = self.rest_of_section(old, pieces)
        if rest:  # a section shown up to a line of its own middle (a new bullet before its first ones): the rest
            self.seen.update(range(old.start + 1, rest[0].file_line))  # stays, as a snippet's surroundings do
            return pieces + rest
        if old.key is not None and old.key[0] != "first line" or old.kind != new.kind or \
                old.key is None and old.body is None:  # (or wrapped; or a unit with no clauses: a paragraph)
            self.seen.update(range(old.start + 1, old.end + 2))  # a definition shown whole: all of it replaced
        else:  # a statement's clauses past what the update shows (an ``elif`` it left out) were not seen
            reached = max([p.file_line for p in pieces if p.file_line is not None], default=old.start + 1)
            self.seen.update(range(old.start + 1, reached + 1))
        return pieces

    def lone_lines_between_markers(self, old: Unit, new: Unit) -> bool:
        """Whether a block's update shows, between markers, only single lines that none of the file block's units
        starts with (``<span>{highlightMatch(task.title)}</span>`` from inside the ``return (...)``): lines nested
        deeper in the file's block, which lines place (by the line they rewrite), not new units of the body."""
        units = new.body or []
        lone = [n for n, u in enumerate(units) if not self.is_marker(u)]
        heads = {self.normal(self.old, u)[:1] for u in old.body or []}
        return bool(lone) and all(units[n].start == units[n].end and self.normal(self.new, units[n])[:1] not in heads
                                  and 0 < n < len(units) - 1 and self.is_marker(units[n - 1]) and
                                  self.is_marker(units[n + 1]) for n in lone)

    def cut_short(self, old: Unit, new: Unit) -> int:
        """How many lines an update's last unit shows of its file unit, where (in Python, which has no closing line
        to say where a block ends) it is the file unit's first lines with only its own last line changed, and the
        file unit goes on for two lines or more (a test shown down to ``fetcher = Fetcher(session, retries=0)``);
        0 otherwise: a definition shown whole replaces the file's."""
        if not self.indented or any(self.rows[r] is not None and self.new.lines[r].strip()
                                    for r in range(new.end + 1, len(self.new.lines))):
            return 0
        ours = [self.old.lines[r].strip() for r in range(old.start, old.end + 1)]
        theirs = [self.new.lines[r].strip() for r in range(new.start, new.end + 1)]
        n = len(theirs)
        if n < 2 or n >= len(ours) or theirs[:-1] != ours[:n - 1] or theirs[-1] == ours[n - 1] or \
                sum(1 for line in ours[n:] if line) < 2:
            return 0
        return n if rewrites_statement(theirs[-1], ours[n - 1]) else 0

    def rest_of_section(self, old: Unit, pieces: list[Piece]) -> list[Piece]:
        """A Markdown section whose update ends on one of its own lines that is not its last: the file lines
        after that one (the section's rest, which the update did not show), else none."""
        if old.key is None or old.key[0] != "section":
            return []
        shown = [piece for piece in pieces if piece.text.strip()]
        if not shown or shown[-1].file_line is None:
            return []
        after = range(shown[-1].file_line, old.end + 1)  # 0-based rows after the last line shown
        if not any(self.old.lines[r].strip() for r in after):
            return []
        return [Piece(self.old.lines[r], r + 1, None) for r in after]

    def doc_shown_from(self, old: Unit, new: Unit, doc: int) -> int | None:
        """The file row of the doc comment or attribute line the update starts on, when the update's first unit
        starts inside its counterpart's doc comment or attributes (``# Usage: deploy.sh ... [--dry-run]`` under the
        script's title lines, a method's last two attributes): those above it stay.  None otherwise."""
        head = max(doc, old.inner or 0)  # the doc comment's and the attributes' rows (``[HttpGet("{city}")]``)
        theirs = max(self.leading_comment(self.new, new), new.inner or 0)
        if not head or not theirs or new.start != self.written_rows()[0] or theirs - new.start >= head - old.start:
            return None
        first = self.new.lines[new.start].strip()
        rows = [r for r in range(old.start + 1, head) if self.old.lines[r].strip() == first] or \
            [r for r in range(old.start + 1, head) if difflib.SequenceMatcher(
                None, self.old.lines[r].strip(), first, autojunk=False).ratio() >= LIKENESS]
        return rows[0] if len(rows) == 1 else None

    def comment_inside(self, rows: range, new: Unit) -> bool:
        """Whether the update's unit holds, inside it, a comment like one of the file's doc comment lines (``var (``
        with the doc of the one variable it was moved in beside its variable, reworded): the doc moved there."""
        def said(lines):  # comment lines that say something (not ``/**`` or `` *``)
            return [line.strip() for line in lines if _COMMENT_LINE.match(line) and
                    len(re.sub(r"[\W_]+", "", line)) >= 12]
        ours, theirs = said(self.old.lines[r] for r in rows), said(self.new.lines[new.start: new.end + 1])
        return any(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= LIKENESS for a in ours for b in theirs)

    @staticmethod
    def leading_comment(side: _Side, unit: Unit) -> int:
        """The row after the comment lines a unit starts with (its doc comment joined to it), or 0 when none."""
        row = unit.start
        while row < unit.end and _COMMENT_LINE.match(side.lines[row]) and not side.marker[row]:
            row += 1
        return row if row > unit.start else 0

    @staticmethod
    def broken_inside(unit: Unit) -> bool:
        """Whether a block's parse errors all lie in units of its body (its header and closing lines read)."""
        return any(child.broken for child in unit.body or [])

    def closes_only(self, unit: Unit) -> bool:
        """Whether a block's lines after its body only close it (``}``, ``});``), as a function's or a class's do,
        not an ``else:`` or ``except:`` clause with a body of its own."""
        return all(not line.strip() or _closes(line) for line in self.old.lines[unit.body_end + 1: unit.end + 1])

    def by_lines(self, old: Unit, new: Unit, shift) -> list[Piece]:
        """A block whose update has a fragment the parser cannot read, merged line by line (its lines at the
        file's indentation)."""
        written = [_reindent(self.new.lines[r], shift) for r in range(new.start, new.end + 1)]
        ours = self.old.lines[old.start: old.end + 1]
        closes = len(ours) > 1 and ours[-1].strip() == written[-1].strip() and _CLOSING.match(ours[-1])
        if closes:  # both end on the block's closing line: the lines between are the update's to replace
            ours, written = ours[:-1] + [_END_OF_BLOCK], written[:-1] + [_END_OF_BLOCK]
        out = self._merged_lines(ours, written, old.start, new.start)
        self.by_lines_used = True  # (the block's place is the syntax's, what it holds the lines')
        if closes:
            out = [Piece(self.old.lines[old.end], old.end + 1, self.rows[new.end])
                   if p.text == _END_OF_BLOCK else p for p in out]
        return out

    def _over(self, first: int, last: int, pieces: list[Piece]) -> list[Piece]:
        """Update lines written over file lines first..last: those that repeat a file line (trailing blanks
        aside: chat models drop them) are that line, kept as the file has it."""
        old = [self.old.lines[r].rstrip() for r in range(first, last + 1)]
        new = [piece.text.rstrip() for piece in pieces]
        out = list(pieces)
        for a, b, size in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
            for t in range(size):
                if old[a + t]:
                    out[b + t] = Piece(self.old.lines[first + a + t], first + a + t + 1, pieces[b + t].update_line)
        return out

    def _merged_lines(self, ours: list[str], written: list[str], old_start: int, new_start: int) -> list[Piece]:
        """File lines and the update's lines for them (from rows old_start and new_start) merged line by line;
        _Refused when lines do not place them."""
        merged = self.merge_lines(ours, written) if self.merge_lines else None
        if merged is None:
            raise _Refused
        pieces, seen = merged
        self.seen.update(n + old_start for n in seen)
        return [Piece(p.text, None if p.file_line is None else p.file_line + old_start,
                      None if p.update_line is None else self.rows[p.update_line - 1 + new_start])
                for p in pieces]

    def _edge(self, o0: int, o1: int, n0: int, n1: int, shift) -> list[Piece]:
        """A block's header or closing lines: the file's when the update shows them unchanged, else the
        update's (a changed signature), merged line by line where they hold a marker (``# ... existing cases
        ...`` in a decorator's list of cases)."""
        if _normal(self.old.lines[o0: o1 + 1]) == _normal(self.new.lines[n0: n1 + 1]):
            return [Piece(self.old.lines[r], r + 1, None) for r in range(o0, o1 + 1)]
        if any(self.new.marker[n0: n1 + 1]):
            written = [_reindent(self.new.lines[r], shift) for r in range(n0, n1 + 1)]
            return self._merged_lines(self.old.lines[o0: o1 + 1], written, o0, n0)
        self.seen.update(range(o0 + 1, o1 + 2))
        return self._over(o0, o1, self._lines(n0, n1, shift))

    def _row(self, r: int) -> int | None:
        return self.rows[r] if 0 <= r < len(self.rows) else None

    def written_rows(self) -> tuple[int, int]:
        """The first and last rows read that are update lines (not a stand-in container's)."""
        written = [r for r, row in enumerate(self.rows) if row is not None]
        return written[0], written[-1]


def _reindent(line: str, shift) -> str:
    """A line written at the update's indentation, at the file's: the update's prefix for that place becomes
    the file's (a method pasted at column 0 goes back into its class)."""
    if not shift or not line.strip():
        return line
    new, old = shift
    if new == old:
        return line
    if line.startswith(new):
        return old + line[len(new):]
    return old + line.lstrip(" \t")


def _content(lines: list[str], unit: Unit) -> bool:
    return any(lines[r].strip() for r in range(unit.start, unit.end + 1))


def _siblings(units: list[Unit], unit: Unit) -> list[Unit] | None:
    """The units of the level that holds ``unit``."""
    if any(u is unit for u in units):
        return units
    for u in units:
        found = _siblings(u.body, unit) if u.body else None
        if found is not None:
            return found
    return None


def _repeatable(unit: Unit) -> bool:
    """Whether a file may hold several blocks of this unit's name, each with its own members: Swift's
    ``extension Note``, Rust's ``impl Store``."""
    return unit.key is not None and (unit.key[0] == "impl" or unit.key[1].startswith("extension "))


def _members(unit: Unit) -> set[tuple[str, str]]:
    return {u.key for u in unit.body or [] if u.key is not None}


def _walk(units: list[Unit]):
    for unit in units:
        yield unit
        if unit.body:
            yield from _walk(unit.body)
