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
(``align_update``, below: any file), and, when those fall short, line by line
trusting the context a chat model shows next to its markers.  The best merge
is the one that parses where the file did, then the one that removes fewer
lines the update did not show, then the one that does not write a line of
the file again as new code, then the syntax's.  It refuses a merge that
breaks a file which parsed, unless forced, and names the lines it removes
unseen.

``align_update`` places every update line: an unchanged line on the file line
it repeats, a marker on the stretch it stands for, anything else as new text.
Distinctive lines are placed first, as the monotone placement that repeats the
most text, where leaving out a file line between two placed ones (deleting
it) costs a tenth of its text, so that a line repeated far away cannot pull
the update there; blank lines, braces and other repeats are then placed in the
gaps between them.  Pure and model-free: the engine drafts the program from
the merge, and ``cad-lsp bench apply`` scores it alone as the deterministic
merge.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field, replace

from .blocks import SAME_BODY, Piece, another_subject, merge_by_blocks, names, rewrites_statement, same_head
from .config_keys import json_commas, json_fragment, merge_yaml_keys
from .indentation import as_the_file_indents
from .new_code import new_members_place
from .markers import braces_markers_indented, is_marker, marker_lines, next_shown
from .ops import split_lines
from .patch import PatchError, apply_patch, codex_patch_files, looks_like_codex_patch, looks_like_patch
from .search_replace import apply_sections, looks_like_search_replace, parse_sections
from .syntax import COMMENT_LINE, breaks, guess_language, language_of

__all__ = ["UpdateError", "Placement", "Merge", "is_marker", "marker_lines", "align_update", "merge_update",
           "merge_patch", "merge_search_replace"]

DELETE_COST = 0.1  # a deleted line costs this share of its text; repeating a line saves all of its own
WHOLE_FILE_SHARE = 0.6  # an update without markers that repeats this share of the file's lines is the whole file
UNSEEN_AROUND_WHOLE = 3  # lines of the file before (after) a "whole file"'s first (last) line: it starts inside
ANCHOR_WEIGHT = 3  # characters a line needs to be placed in the first pass (braces and blanks fill in later)
ANCHOR_REPEATS = 32  # ... and a line found more often in the file than this is placed in the gaps only
DISTINCTIVE = 8  # characters of the longest placed line at least: an update sharing only ``pass`` is not placed
WEAK_SHARE = 0.4  # ... unless shorter placed lines hold this share of the update's text
REWRITE_SIMILARITY = 0.6  # a new line next to a kept stretch rewrites the file line it resembles this much
REWRITE_LOOKAHEAD = 3  # ... among the next new lines (a statement wrapped in try: is the second)
REWRITE_ALONE = 0.75  # a new line between markers rewrites the file line it resembles this much (and clearly most)
EDGE_WEIGHT = 10  # the reading that trusts context next to markers weighs those lines this many times
LONE_LINES = 6  # an update of at most this many lines and no line of the file rewrites the run it resembles
HEREDOC_LINES = 60  # an attribute's heredoc above a definition (Elixir's ``@doc``) is read up to this long
WRAPPED_LINES = 3  # a file line rewritten over up to this many lines (a continuation) is found as one
SIGNATURE_LINES = 12  # ... and a head rewritten over up to this many lines (one parameter a line) above its body
REWRITE_SLACK = 3  # new lines beyond those that rewrite file lines: more, and the run is an insertion
TWIN_REACH = 12  # lines apart at most that a new line and a kept one it repeats or rewrites count as both kept
TWIN_LIKENESS = 0.85  # ... when the new line resembles the kept one this much
TAIL_CONTEXT = 3  # lines at most that new code appended after a marker repeats from the file's end, as context

_TOKEN = re.compile(r"\w+|[^\w\s]")
_LEAVES = re.compile(r"^\s*(?:return|raise|throw)\b")  # a statement that leaves its block: nothing after it runs
# Python, Ruby, Elixir
_DEFINES = re.compile(r"^\s*(?:async\s+)?(?:(?:def|defp|defmacrop?|class|module)\s+(?:self\.)?|"
                      r"(?:local\s+)?function\s+(?:[\w.]+[.:])?)(?P<name>\w+[?!=]?)")  # (Lua's ``function M.daily()``)
# A signature: words (modifiers, a return type) then the name and its parameters (``public async Task<Order>
# Cancel(``, ``fn parse<'a>(``, ``describe(``), nothing before the name that makes it a call (``app.get(``, ``x = f(``).
_SIGNATURE = re.compile(r"^\s*(?:[\w<>\[\]?,*&:'.]+\s+)*?(?P<name>[A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\(")
# ``it("adds", () => {``; Ruby's and Elixir's ``describe "ttl" do``, ``get "/notes" do``
_TITLED_CALL = re.compile(r"^\s*(?P<name>[A-Za-z_$][\w$.]*)(?:\s*\(\s*|\s+)([\"'`])(?P<title>.*?)\2")
_OPENED_CALL = re.compile(r"^\s*(?P<name>[A-Za-z_$][\w$.]*)\s*\(\s*$")  # ``router.post(`` alone on its line
_TITLE_LINE = re.compile(r"^\s*([\"'`])(?P<title>[^\"'`]*)\1\s*,")  # ``'/:id/password',`` on the line after
_BACKTICKED = re.compile(r"^\s*(?:\w+\s+)*fun\s+`(?P<name>[^`]+)`\s*\(")  # Kotlin's ``fun `rejects blank titles`()``
_RECEIVER = re.compile(r"^\s*func\s*\([^)]*\)\s*")  # Go's ``func (s *Store)`` before a method's name
_NOT_NAMES = {"if", "for", "while", "switch", "catch", "with", "return", "using", "lock", "foreach", "elif",
              "match", "when", "sizeof", "typeof", "await", "new", "super", "this", "else", "do", "try", "yield",
              "throw", "defer", "go", "unless", "until", "case", "synchronized", "fixed", "checked", "unsafe",
              "finally", "loop", "select", "default", "throws", "where"}
# A type's header (its members are shown without it), not a callable's.
_TYPE_HEADER = re.compile(r"^\s*(?:(?:public|private|protected|internal|export|default|abstract|sealed|final|static|"
                          r"data|open|partial|unsafe|pub(?:\([^)]*\))?|companion)\s+)*(?:class|struct|interface|impl|"
                          r"enum|trait|object|namespace|module|extension|protocol|record|union|mod)\b")
_ASSIGNED_BLOCK = re.compile(r"^\s*(?:(?:export|pub|public|private|protected|internal|static|final|const|let|var|val|"
                             r"override|lazy|readonly)\s+)*(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=(?![=>])")
_OPENS = re.compile(r"\s+(?:do(?:\s*\|[^|]*\|)?|\{|function\s*\([^()]*\))\s*$")  # what a line ends with to open a
# block: `` do |t|``, `` {``, Lua's `` function(args)``
_ACCESS_LABEL = re.compile(r"^\s*(?:public|private|protected|internal)\s*:\s*$")
_ATTACHED_LINE = re.compile(r"^\s*(?:@|\[|#\[|///|/\*\*|\*|//)")  # a decorator, an attribute, a doc comment
# A line that declares (``suspend fun refresh()``, ``public Product reserve(``, ``def f(``), not one that calls.
_DECLARES = re.compile(r"^\s*(?:(?:export|public|private|protected|internal|static|async|suspend|override|open|"
                       r"abstract|final|pub|default|synchronized|virtual)\s+)*(?:(?:def|fun|func|function|fn|class|"
                       r"interface|struct|enum|trait|impl|module|record)\b|"
                       r"(?!(?:return|throw|await|yield|new|else|case|if|while|for|switch|catch|typeof)\b)"
                       r"(?=[\w<>\[\],.?]+\s+\w+\s*\())")
# ``@property``, ``@Override``, ``@app.get("/")``; Rust's ``#[derive(Debug)]``, C#'s ``[HttpGet]``
_DECORATOR = re.compile(r"^\s*(?:@[\w.]+(?:\(.*\))?|#\[.*\]|\[[A-Z]\w*(?:\(.*\))?\])\s*$")
# A line that only closes blocks, CMake's ``endif()``, ERB's ``<% end %>`` and Jinja's ``{% endif %}`` among them
_CLOSING = re.compile(r"^\s*(?:[)\]}>;,]+|end|fi|done|esac|"
                      r"end(?:if|foreach|for|while|function|macro|switch)\s*(?:\(\s*\)|;)?|"
                      r"<%-?\s*(?:end|\})\s*-?%>|\{%-?\s*end\w*\s*-?%\})\s*$")
_CLOSING_TAG = re.compile(r"^\s*</([\w.:-]+)>\s*$")  # a markup element's closing tag alone on its line
NO_MATCH = "\x00"  # the key of an update line that is no file line's
NEW, MARKER, SKIP = 0, -1, -2  # Placement.lines values besides a file line (SKIP: a blank line that is no line)


class UpdateError(ValueError):
    """An update that cannot be placed in the file; the message says why, for the user."""


def _key(line: str) -> str:
    """A line as compared: without its terminator and trailing blanks (chat models drop trailing spaces)."""
    return line.rstrip("\r\n").rstrip()


def _weight(key: str) -> int:
    """What repeating a line is worth: its characters less indentation (a lone brace or blank line is cheap)."""
    return len(key.strip())


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


class _PrefixMax:
    """Fenwick tree: the best (score, payload) among positions below an index."""

    def __init__(self, size: int):
        self.size, self.tree = size, [(float("-inf"), None)] * (size + 1)

    def put(self, index: int, value: tuple) -> None:
        index += 1
        while index <= self.size:
            if value[0] > self.tree[index][0]:
                self.tree[index] = value
            index += index & -index

    def best_below(self, index: int) -> tuple:
        best = (float("-inf"), None)
        while index > 0:
            if self.tree[index][0] > best[0]:
                best = self.tree[index]
            index -= index & -index
        return best


def _anchor_chain(keys: list[str], markers: list[bool], doc_keys: list[str],
                  context: bool = False) -> list[tuple[int, int]]:
    """The monotone (update line, file line) pairs of distinctive lines that save the most text.  With
    ``context``, the lines next to a marker weigh EDGE_WEIGHT times their text: chat models put the context
    they show there, so a new function that repeats an old one's lines does not pull the update onto them.

    Between two pairs with no marker between them the file lines left out
    are deleted, at DELETE_COST of their text; under a marker they stay, for
    free.  Dynamic programming over the candidate pairs in update order, with
    two prefix-maximum trees over file lines (pairs before the last marker,
    and pairs since it, which carry the deletion price): O(pairs log lines).
    """
    where: dict[str, list[int]] = {}
    for j, key in enumerate(doc_keys):
        if _weight(key) >= ANCHOR_WEIGHT:
            where.setdefault(key, []).append(j)
    prefix_weight = [0.0]
    for key in doc_keys:
        prefix_weight.append(prefix_weight[-1] + DELETE_COST * _weight(key))
    edges = {i for m, marker in enumerate(markers) if marker
             for i in (next_shown(keys, m, -1), next_shown(keys, m, 1)) if i is not None and not markers[i]}
    edges |= {i for i in (next_shown(keys, -1, 1), next_shown(keys, len(keys), -1))
              if i is not None and not markers[i]}  # (a snippet's first and last lines: context too)
    n = len(doc_keys)
    across, since = _PrefixMax(n), _PrefixMax(n)  # pairs before the last marker / since it
    segment: list[tuple[float, int, int]] = []
    best: dict[tuple[int, int], tuple[float, tuple[int, int] | None]] = {}
    for k, key in enumerate(keys):
        if markers[k]:
            for score, k0, j0 in segment:
                across.put(j0, (score, (k0, j0)))
            segment, since = [], _PrefixMax(n)
            continue
        found = where.get(key, []) if not markers[k] else []
        if not found or len(found) > ANCHOR_REPEATS:
            continue
        gain = _weight(key) / len(found)  # a line the file repeats places the update less surely (patience diff)
        if context and k in edges:
            gain *= EDGE_WEIGHT
        row = []
        for j in found:
            score, back = gain, None
            marked = across.best_below(j)
            if marked[1] is not None and marked[0] + gain > score:
                score, back = marked[0] + gain, marked[1]
            near = since.best_below(j)  # stored with + the deletion price up to its line: subtract ours
            if near[1] is not None and near[0] + gain - prefix_weight[j] > score:
                score, back = near[0] + gain - prefix_weight[j], near[1]
            row.append((score, k, j))
            best[(k, j)] = (score, back)
        for score, k0, j0 in row:  # after the row: no two pairs share an update line
            since.put(j0, (score + prefix_weight[j0 + 1], (k0, j0)))
            segment.append((score, k0, j0))
    if not best:
        return []
    end = max(best, key=lambda pair: (best[pair][0], -pair[1]))
    chain = []
    while end is not None:
        chain.append(end)
        end = best[end][1]
    return chain[::-1]


def _fill_gap(lines: list[int], keys: list[str], doc_keys: list[str], ks: range, js: range) -> None:
    """Place update lines ``ks`` (no marker among them) on file lines ``js`` where they repeat in order."""
    a = [keys[k] for k in ks]
    b = [doc_keys[j] for j in js]
    for i, j, size in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for t in range(size):
            lines[ks[i + t]] = js[j + t] + 1


def _fill_edge(lines: list[int], keys: list[str], doc_keys: list[str], ks: list[int], js: range,
               elsewhere: set[int] = frozenset()) -> None:
    """Place update lines ``ks`` (from a placed line out to a marker or the update's edge) on file lines ``js``
    pairwise while they repeat, up to a line of a new definition that is no place (``elsewhere``: the ``});`` of
    a new route, the same as the shown route's before it).  Blank lines at the end of that run count only if
    nothing new follows them: a blank line before new code belongs to the new code."""
    pairs = []
    backward, in_file = len(ks) > 1 and ks[1] < ks[0], set(doc_keys)
    for k, j in zip(ks, js):
        if keys[k] != doc_keys[j] or k in elsewhere or backward and _closes_new_block(k, keys, in_file):
            break
        pairs.append((k, j))
    if len(pairs) < len(ks) and keys[ks[len(pairs)]].strip():
        while pairs and not keys[pairs[-1][0]].strip():
            pairs.pop()
    for k, j in pairs:
        lines[k] = j + 1


def _closes_new_block(k: int, keys: list[str], in_file: set[str]) -> bool:
    """Whether update line ``k`` closes a block that opens on a line the file does not have (``end`` of a new
    method): walking back from a placed line, it is not the closing line of the file's block before."""
    tag = _CLOSING_TAG.match(keys[k])
    if not (_CLOSING.match(keys[k]) or tag) or not keys[k].strip():
        return False
    depth = _indent_of(keys[k])
    opener = next((o for o in range(k - 1, -1, -1) if keys[o].strip() and _indent_of(keys[o]) <= depth
                   and not _ACCESS_LABEL.match(keys[o])), None)  # (C++'s ``private:`` at the class's depth)
    if opener is not None and keys[opener].strip() == "{":  # a brace on its own line: the header is above it
        opener = next((o for o in range(opener - 1, -1, -1) if keys[o].strip()), opener)
    if tag and (opener is None or not keys[opener].lstrip().startswith("<" + tag[1])):
        return False  # (``</tr>`` closes the ``<tr ...>`` at its depth, nothing else)
    return opener is not None and _indent_of(keys[opener]) == depth and not _CLOSING.match(keys[opener]) \
        and keys[opener] not in in_file and not is_marker(keys[opener])


def _definition_name(keys: list[str], k: int) -> str | None:
    """The name line k defines when it opens a definition's block (``def tally(rows)``, ``public function
    publish(Post $post): RedirectResponse`` with its ``{`` on the next line, ``func (s *Store) Update(id int) {``),
    else None (a call, a statement, a control line)."""
    key = keys[k]
    m = _DEFINES.match(key) or _BACKTICKED.match(key)
    if m:
        return m["name"]
    following = next((keys[i] for i in range(k + 1, len(keys)) if keys[i].strip()), "")
    titled = _TITLED_CALL.match(key)  # a route or a test, named by its string: ``router.patch("/:id", ... {``
    if titled and (key.rstrip().endswith(("{", "(", "=>")) or _OPENS.search(key)):  # (``MapPost("/", async (``)
        return f"{titled['name']} {titled['title']}"
    opened, title = _OPENED_CALL.match(key), _TITLE_LINE.match(following)
    if opened and title:  # its string on the next line: ``router.post(`` then ``'/:id/password',``
        return f"{opened['name']} {title['title']}"
    if key.rstrip().endswith(");") and _DECLARES.match(key):  # an interface's or an abstract method, declared
        m = _SIGNATURE.match(_RECEIVER.sub("", key))  # (``Task<Product?> FindAsync(int id);``)
        return m["name"] if m and m["name"] not in _NOT_NAMES and key.split()[0] not in _NOT_NAMES else None
    if not (key.rstrip().endswith(("{", "=>")) or following.strip() == "{" and _indent_of(following) == _indent_of(key)
            or key.rstrip().endswith("(") and _body_below(keys, k)
            or key.rstrip().endswith(")") and _HEAD_GOES_ON.match(following)):
        return None  # (``=>``: an expression-bodied member, ``static string GetVersion() =>``)
    assigned = _ASSIGNED_BLOCK.match(key)  # ``val MIGRATION_3_4 = object : Migration(3, 4) {``
    if assigned and key.rstrip().endswith("{"):
        return assigned["name"]
    head = key.strip()[:-1].strip() if key.rstrip().endswith("{") else ""
    if head and "(" not in head and "=" not in head and head.split()[0] not in _NOT_NAMES and head[0] not in "})]":
        return head  # a block named by its head: ``.todo-list__clear {``, ``struct Cli {``, ``"scripts": {``
    m = _SIGNATURE.match(_RECEIVER.sub("", key))
    if m is None or m["name"] in _NOT_NAMES or key.split()[0] in _NOT_NAMES:
        return None
    return m["name"]


# The rest of a head on the line below it, ending in its body's ``{``: Java's ``throws IOException {``, a Kotlin
# or Swift return type, Rust's ``where T: Clone {``, C++'s ``const {``
_HEAD_GOES_ON = re.compile(r"^\s*(?:throws\b|where\b|->|:\s*\w|noexcept\b|const\b).*\{\s*$")


def _body_below(keys: list[str], k: int) -> bool:
    """Whether a head left open on line k (``UpdateTodo(`` then one parameter a line) opens its body a few lines
    below: its parameters deeper than it, then, at its depth, a ``{`` alone or a line ending in one (``) {``); not
    a call whose last argument opens a callback (deeper)."""
    depth = _indent_of(keys[k])
    for key in keys[k + 1: k + 1 + SIGNATURE_LINES]:
        if key.rstrip().endswith("{") and _indent_of(key) == depth:
            return True
        if not key.strip() or _indent_of(key) <= depth and not key.lstrip().startswith(")"):
            return False
    return False


def _renamed(new: str, old: str) -> bool:
    """Whether a definition's name is a file definition's, or that one renamed: made public (``_patched`` to
    ``patched``) or recased (``getUser``, ``get_user``).  A name extended (``format_summary_json`` beside
    ``format_summary``) is another definition: a sibling added is more common than a rename, and a rename that
    shows the old body again is found by its body (``_same_body``)."""
    return new.lower().replace("_", "") == old.lower().replace("_", "")


def _definitions(keys: list[str]) -> dict[int, str]:
    """The lines that open a definition, and the name each defines (read once per placement)."""
    names = {k: _definition_name(keys, k) for k in range(len(keys))}
    return {k: name for k, name in names.items() if name is not None}


def _declares(line: str) -> bool:
    """Whether a line declares a definition (``def``, ``defp``, ``fun``, ``public Order cancel(``), not calls one."""
    return bool(_DEFINES.match(line) or _DECLARES.match(line))


def _named_rewrites(keys: list[str], doc_keys: list[str], markers: list[bool],
                    defined: dict[int, str]) -> list[tuple[int, int, int, int]]:
    """Definitions the update shows whole (doc and attributes above, to the closing line, no marker inside)
    under a name the file and the update each define once: the file's definition of that name, rewritten
    (``list_products/0`` becoming ``list_products/1`` with a longer ``@doc``, where no grammar reads the file and
    the doc's lines fit every function's).  (first, last) update lines (0-based) and (first, last) file lines
    (1-based) each."""
    counts = Counter(name for j, name in defined.items() if _declares(doc_keys[j]))
    shown = Counter(_definition_name(keys, k) for k in range(len(keys)) if _declares(keys[k]))
    out = []
    for h in range(len(keys)):
        if markers[h] or not _declares(keys[h]):
            continue
        name = _definition_name(keys, h)
        if name is None or counts[name] != 1 or shown[name] != 1:
            continue
        j = next(j for j, other in defined.items() if other == name and _declares(doc_keys[j]))
        end, old_end = _block_end(keys, h, markers), _block_end(doc_keys, j)
        if any(markers[h:end]) or not _CLOSING.match(keys[end - 1]) or \
                keys[end - 1].strip() != doc_keys[old_end - 1].strip():
            continue  # (a head, with a marker for the body; a block closed by a line of another kind)
        out.append((_attached_start(keys, h), end - 1, _attached_start(doc_keys, j) + 1, old_end))
    return out


def _attached_start(keys: list[str], k: int) -> int:
    """The first line of what is attached above definition line k: decorators, attributes, doc comments, and a
    doc string closed right above it (Elixir's ``@doc`` heredoc, blank lines and all)."""
    start = k
    while start > 0 and keys[start - 1].strip():
        above = keys[start - 1].strip()
        if above in ('"""', "'''"):
            opening = next((i for i in range(start - 2, -1, -1) if keys[i].rstrip().endswith(above)), None)
            if opening is None or _indent_of(keys[opening]) != _indent_of(keys[k]):
                break
            start = opening
        elif _ATTACHED_LINE.match(keys[start - 1]) and _indent_of(keys[start - 1]) == _indent_of(keys[k]):
            start -= 1
        else:
            break
    return start


def _new_definition_lines(keys: list[str], doc_keys: list[str], markers: list[bool],
                          defined: dict[int, str]) -> set[int]:
    """The update lines of definitions the file does not have (``defined``: the file's; a new method whose body
    repeats another's ``return redirect()...`` or Ruby ``end`` lines): new code whole, none of its lines a place
    in the file; from the line that names it (its decorators and doc comment above) to its closing line."""
    bodies: dict[int, tuple[set[str], set[str]]] = {}  # a definition's distinctive lines (all, its own), once read
    out: set[int] = set()
    for k, key in enumerate(keys):
        if markers[k] or k in out:  # (a line the file has may open a new one: ``router.post(``, its title below)
            continue
        name = _definition_name(keys, k)
        if name is None or any(_renamed(name, old) for old in defined.values()):
            continue
        end = _block_end(keys, k, markers)
        body = {keys[i] for i in range(k + 1, end) if _weight(keys[i]) >= DISTINCTIVE}
        if any(_same_body(body, doc_keys, j, bodies) for j in defined):
            continue  # a definition renamed (its whole body shown again): the file's, rewritten
        start = k
        while start > 0 and keys[start - 1].strip() and not markers[start - 1] and \
                _indent_of(keys[start - 1]) in (_indent_of(key), _indent_of(key) + 1):
            if _ATTACHED_LINE.match(keys[start - 1]):
                start -= 1
            elif (heredoc := _heredoc_above(keys, start - 1, markers)) is not None:
                start = heredoc  # (Elixir's ``@doc """`` ... ``"""`` over the new function)
            else:
                break
        out.update(range(start, end))
    return out


def _heredoc_above(keys: list[str], close: int, markers: list[bool]) -> int | None:
    """The line opening an attribute's heredoc (``@doc \"\"\"``) that line ``close`` (a lone ``\"\"\"``) closes, or
    None."""
    quote = keys[close].strip()
    if quote not in ('"""', "'''"):
        return None
    for o in range(close - 1, max(-1, close - HEREDOC_LINES), -1):
        if markers[o] or keys[o].strip() == quote:
            return None
        if keys[o].lstrip().startswith("@") and keys[o].rstrip().endswith(quote):
            return o
    return None


def _inside_unshown(fresh: set[int], keys: list[str], doc_keys: list[str], defined: dict[int, str]) -> set[int]:
    """The lines of new definitions that the file has only inside definitions the update does not show (a new
    method's ``return redirect()`` that ``store``, behind a marker, ends with too; a new test's ``expect`` that
    a test of another ``describe`` has): taken there, they would cut that definition in two.  Lines the file has
    only in definitions the update shows (code moved out of a test into a new helper) stay places.  Classes
    and other blocks named by their head do not count: members are shown without them."""
    if not fresh:
        return set()
    shown = {name for k in range(len(keys)) if (name := _definition_name(keys, k)) is not None}
    elided = _elided_bodies(keys)
    chains: dict[int, list[str]] = {}

    def unshown(j: int) -> bool:
        if j not in chains:
            chains[j] = _enclosing_callables(doc_keys, j, defined)
        return any(not any(_renamed(name, other) for other in shown) or name in elided for name in chains[j])

    where: dict[str, list[int]] = {}
    for j, key in enumerate(doc_keys):
        where.setdefault(key, []).append(j)
    return {k for k in fresh if keys[k].strip() and (_weight(keys[k]) < DISTINCTIVE or  # (``) {``: anywhere)
                                                   all(unshown(j) for j in where.get(keys[k], ())))}


def _elided_bodies(keys: list[str]) -> set[str]:
    """The definitions an update shows with a marker for their whole body (``getTodos(...) {``, ``// ...existing
    code...``, ``}``): their lines stay where they are, so none of them is a place for new code."""
    out = set()
    for k in range(len(keys)):
        name = _definition_name(keys, k) if _declares(keys[k]) or keys[k].rstrip().endswith(("{", ":")) else None
        if name is None:
            continue
        inside = [m for m in range(k + 1, len(keys)) if keys[m].strip()][:2]
        if len(inside) == 2 and is_marker(keys[inside[0]]) and _CLOSING.match(keys[inside[1]]) and \
                _indent_of(keys[inside[1]]) == _indent_of(keys[k]):
            out.add(name)
    return out


_BRANCH = re.compile(r"^\s*(?:\}\s*)?(?:else|elif|elsif|except|catch|finally|rescue|ensure|when)\b")


def _enclosing_callables(doc_keys: list[str], j: int, defined: dict[int, str]) -> list[str]:
    """The names of the functions, methods, routes and tests file line j is in, innermost first (a decorator,
    an attribute or a doc comment is in the definition below it); ``defined``: the file's definitions."""
    out, depth, i = [], _indent_of(doc_keys[j]) + bool(_BRANCH.match(doc_keys[j])), j - 1
    below = j
    while below < len(doc_keys) and _ATTACHED_LINE.match(doc_keys[below]) and \
            _indent_of(doc_keys[below]) in (depth, depth + 1):
        below += 1
    if j < below < len(doc_keys) and _callable(doc_keys, below, defined):
        out.append(defined[below])
    while i >= 0 and depth > 0:
        if doc_keys[i].strip() and _indent_of(doc_keys[i]) < depth:
            if _callable(doc_keys, i, defined):
                out.append(defined[i])
            # (a lone brace, or a branch such as Ruby's ``rescue`` at the method's depth: its header is above)
            depth = _indent_of(doc_keys[i]) + (doc_keys[i].strip() == "{" or bool(_BRANCH.match(doc_keys[i])))
        i -= 1
    return out


def _callable(keys: list[str], k: int, defined: dict[int, str]) -> bool:
    """Whether line k defines a function, a method, a route, a test or a rule (a CSS selector's), not a type."""
    return k in defined and not _TYPE_HEADER.search(keys[k])


def _block_end(keys: list[str], k: int, markers: list[bool] | None = None) -> int:
    """The end (exclusive) of the block line k opens, by indentation: its deeper lines, a ``{`` alone on the next
    line, and its closing line; up to a marker."""
    depth, end = _indent_of(keys[k]), k + 1
    marked = markers or [False] * len(keys)
    while True:
        while end < len(keys) and not marked[end] and (not keys[end].strip() or _indent_of(keys[end]) > depth or
                                                       keys[end].strip() == "{"):
            end += 1
        if end < len(keys) and not marked[end] and _indent_of(keys[end]) == depth and _ARGUMENTS_GO_ON.match(keys[end]):
            end += 1  # (Lua's ``end, {`` after a callback: the call's next argument, then its ``})``)
            continue
        break
    if end < len(keys) and not marked[end] and _indent_of(keys[end]) == depth and _CLOSING.match(keys[end]):
        end += 1
    return end


# A callback closed and another argument opened (Lua's ``end, {``), or a head's parameters closed and its body
# opened (``) async {`` below one parameter a line): the block goes on
_ARGUMENTS_GO_ON = re.compile(r"^\s*(?:(?:end|[)\]}]+)\s*,.*[\[{(]|\)[^;]*\{)\s*$")


def _doc_comments_rewritten(lines: list[int], keys: list[str], doc_keys: list[str]) -> set[int]:
    """The file's comment lines right above a definition the update places, where the update writes new comment
    lines right above it (``// Check requests t, retrying ...`` for ``// Check performs a single GET ...``): the
    definition's doc comment rewritten, not kept above the new one (1-based file lines)."""
    out: set[int] = set()
    placed = {n for n in lines if n > 0}
    for k, n in enumerate(lines):
        if n <= 0 or not _declares(keys[k]) or k == 0 or lines[k - 1] != NEW or not COMMENT_LINE.match(keys[k - 1]):
            continue
        j = n - 1  # the file line above the definition (1-based)
        while j > 0 and j not in placed and doc_keys[j - 1].strip() and COMMENT_LINE.match(doc_keys[j - 1]):
            out.add(j)
            j -= 1
    return out


def _under_new_headers(keys: list[str], doc_keys: list[str], markers: list[bool]) -> set[int]:
    """Update lines under a header the file does not have, one that opens its block by indentation (a new YAML
    service's ``redis:``), or in an entry of a list whose identity the file does not have (a Go table test's
    ``{`` ... ``name: "missing sku",`` ... ``},``): they are the new block's, however alike a line of the file
    (``volumes:`` taken from the next service placed the new one after it, and that service lost its line; an
    item of a new case taken from an old case's deleted the cases between)."""
    in_file, out = set(doc_keys), set()
    for k, key in enumerate(keys):
        if markers[k] or not _IDENTITY_LINE.match(key) or key in in_file:
            continue
        opener = next((o for o in range(k - 1, -1, -1) if keys[o].strip() and _indent_of(keys[o]) < _indent_of(key)),
                      None)
        if opener is not None and keys[opener].rstrip().endswith(("{", "(", "[")) and keys[opener] != key:
            out |= {i for i in range(opener + 1, _block_end(keys, opener, markers)) if not markers[i]}
    parents: list[tuple[int, bool]] = []  # (indentation, under a new header) of the open headers above
    for k, key in enumerate(keys):
        if not key.strip() or markers[k]:
            continue
        depth = _indent_of(key)
        while parents and parents[-1][0] >= depth:
            parents.pop()
        new = bool(parents) and parents[-1][1]
        if new:
            out.add(k)
        parents.append((depth, new or bool(_MAPPING_KEY.match(key)) and key not in in_file))
    return out


# An entry's identity in a list of them: ``name: "no items",`` in a Go table test, ``"id": "0004_users",``
_IDENTITY_LINE = re.compile(r"""^\s*["']?(?:id|name|key|slug|title)["']?\s*[:=]\s*(["'`]).*\1,?\s*$""")
_MAPPING_KEY = re.compile(r"^\s*(?:- )?(?!(?:else|try|finally|except|default|public|private|protected)\s*:)"
                          r"[\w.\"'-]+:\s*$")  # ``  redis:``, a key whose value is the block below it

def _outside_their_block(keys: list[str], doc_keys: list[str], markers: list[bool]) -> set[int]:
    """Update lines inside a block the update opens with a line the file has once (``footer {``), that the
    file does not have inside that block: they are the block's new lines, not the lines of the same text
    elsewhere (``display: flex;`` of another rule, which anchored the update there and removed all between)."""
    out: set[int] = set()
    counts = Counter(doc_keys)
    for h, key in enumerate(keys):
        if markers[h] or not key.rstrip().endswith("{") or counts[key] != 1:
            continue
        j = doc_keys.index(key)
        inside = set(doc_keys[j + 1: _block_end(doc_keys, j)])
        end = _block_end(keys, h, markers)
        for k in range(h + 1, end):
            if keys[k].strip() and not markers[k] and keys[k] not in inside and keys[k] in counts:
                out.add(k)
        shown = {keys[k] for k in range(h + 1, end - 1) if _weight(keys[k]) >= DISTINCTIVE}
        if _TYPE_HEADER.match(key) and shown and not shown & inside and \
                _CLOSING.match(keys[end - 1]) and not any(markers[h:end]) and not (end < len(keys) and markers[end]):
            out |= {h, end - 1}  # a second ``extension Note {`` whole, none of the first's members: another one
    # a file line given a block (``resources :users`` gaining `` do`` and routes under it): the block is new
    for h, key in enumerate(keys):
        opened = _OPENS.sub("", key)
        if markers[h] or opened == key or counts[key] or not counts[opened]:
            continue
        j = doc_keys.index(opened)
        if _indent_of(next((line for line in doc_keys[j + 1:] if line.strip()), "")) > _indent_of(opened):
            continue  # the file's line opens a block already: the update shows that block
        out |= {k for k in range(h + 1, _block_end(keys, h, markers)) if keys[k].strip() and not markers[k]}
    return out


def _same_body(shown: set[str], doc_keys: list[str], j: int,
               bodies: dict[int, tuple[set[str], set[str]]]) -> bool:
    """Whether new code holds nearly all the distinctive lines of the file definition that line j opens (two at
    least), and more than half of those the file has only there: that one renamed, not a new one that shares a
    few lines with it (a new test shares every test's ``val vm = viewModel()``, not the lines that make another
    test that one).  ``bodies`` keeps what was read."""
    if j not in bodies:
        lines = {doc_keys[i] for i in range(j + 1, _block_end(doc_keys, j)) if _weight(doc_keys[i]) >= DISTINCTIVE}
        bodies[j] = lines, {key for key in lines if doc_keys.count(key) == 1}
    theirs, own = bodies[j]
    return len(theirs) >= 2 and len(theirs & shown) >= SAME_BODY * len(theirs) and \
        (len(own) < 2 or 2 * len(own & shown) > len(own))


def align_update(document: str, update: str, *, context: bool = False,
                 place: tuple[str, str] | None = None) -> Placement:
    """Place the update's lines in the document (see the module's docstring); UpdateError when it cannot be.
    With ``context``, the lines next to markers weigh more in the alignment, short lines between a marker and
    the change are found near it (``_place_context``), and new lines that end the update rewrite the rest of
    their block (``_rest_of_last_block``): the reading ``merge_update`` weighs when the plain one falls short.
    ``place``: ("after" | "before", name), where the answer says new definitions go (``_at_named_place``)."""
    try:
        return _align(document, update, context, place, by_name=False)
    except UpdateError as refused:
        try:  # (where lines the file has many times place nothing: a definition shown whole, by its name)
            return _align(document, update, context, place, by_name=True)
        except UpdateError:
            raise refused from None


def _align(document: str, update: str, context: bool, place: tuple[str, str] | None, by_name: bool) -> Placement:
    """``align_update``'s reading; ``by_name``: definitions shown whole replace the file's of their name
    (``_named_rewrites``) before any line is placed."""
    if not update.strip():
        raise UpdateError("the update is empty")
    doc_lines, update_lines = split_lines(document), split_lines(update)
    if not doc_lines:
        raise UpdateError("the file is empty: there is nothing to apply an update to")
    doc_keys = [_key(line) for line in doc_lines]
    keys = [_key(line) for line in update_lines]
    in_file = set(doc_keys)
    markers = marker_lines(doc_lines, update_lines)
    if not any(key.strip() and not marker for key, marker in zip(keys, markers)):
        raise UpdateError("the update holds only markers and blank lines: no line of it can be placed")
    defined = _definitions(doc_keys)
    fresh = _new_definition_lines(keys, doc_keys, markers, defined)
    named = _named_rewrites(keys, doc_keys, markers, defined) if by_name else []
    if by_name and not named:
        raise UpdateError("no definition the update shows whole has a name the file defines once")
    fresh |= {k for h0, h1, _, _ in named for k in range(h0, h1 + 1)}  # (they rewrite no other line)
    elsewhere = _inside_unshown(fresh, keys, doc_keys, defined)  # (none of those lines is a place in the file)
    elsewhere |= {k for k in fresh if _ATTACHED_LINE.match(keys[k])}  # (a new definition's ``@impl true``)
    elsewhere |= {k for h0, h1, _, _ in named for k in range(h0, h1 + 1)}
    elsewhere |= _outside_their_block(keys, doc_keys, markers) | _under_new_headers(keys, doc_keys, markers)
    chain = _anchor_chain([NO_MATCH if k in elsewhere else key for k, key in enumerate(keys)], markers, doc_keys,
                          context)
    closing_new = {k for k, _ in chain if _closes_new_block(k, keys, in_file)}
    chain = [(k, j) for k, j in chain if k not in closing_new]
    elsewhere |= {k for k in closing_new if _CLOSING_TAG.match(keys[k])}  # (a new element's ``</form>`` is no
    # place beside a marker either: it took the file's next form's, and that form's lines went)
    kept_pairs = _without_far_repeats(chain, keys, markers, doc_keys)
    elsewhere |= {k for k, _ in chain} - {k for k, _ in kept_pairs}  # (nor a place to fill the edge with)
    chain = kept_pairs
    if chain and not _trusted(chain, keys, markers, doc_keys):
        chain = []  # only a short line or two in common (``pass``, ``return``): they place nothing
    lines = [MARKER if marker else NEW for marker in markers]
    if not chain and named:  # only definitions shown whole: each in place of the file's of its name
        rewrites = {k: j for h0, h1, j0, j1 in named for k, j in ((h0, j0), (h1, j1))}
        replaced = frozenset(j for _, _, j0, j1 in named for j in range(j0, j1 + 1))
        anchored = [rewrites.get(k, n) for k, n in enumerate(lines)]
        kept = {k: _without(extent, replaced) for k, extent in _marker_extents(anchored, keys, doc_keys, defined).items()}
        return Placement(document, update_lines, lines, kept, False, replaced, rewrites, fresh=frozenset(fresh))
    if not chain:
        return _at_named_place(_unanchored(document, update_lines, lines, keys, fresh), keys, doc_keys, fresh,
                               defined, place)
    chain, pinned = _closing_lines_pinned(chain, keys, markers, doc_keys)
    try:
        placed = {k for k, _ in chain}
        _refuse_if_ambiguous(chain, markers, doc_keys, pinned, fresh)
        elsewhere |= placed - {k for k, _ in chain}  # (a new definition's lines it dropped: no edge to fill either)
    except UpdateError:
        # Placed only by lines the file has several times (``@Serializable``, ``)``) that fit elsewhere as well:
        # new code after a marker, like code that repeats no line, goes at the file's end (before one, its start).
        if any(Counter(doc_keys)[keys[k]] == 1 for k, _ in chain):
            raise
        try:
            return _unanchored(document, update_lines, lines, keys, fresh)
        except UpdateError:
            pass
        raise
    for k, j in chain:
        lines[k] = j + 1
    for (k0, j0), (k1, j1) in zip(chain, chain[1:]):
        inside = [k for k in range(k0 + 1, k1) if markers[k]]
        if not inside:
            _fill_gap(lines, keys, doc_keys, range(k0 + 1, k1), range(j0 + 1, j1))
        else:  # next to a marker, the lines around it repeat those after and before the placed ones
            _fill_edge(lines, keys, doc_keys, list(range(k0 + 1, inside[0])), range(j0 + 1, j1), elsewhere)
            _fill_edge(lines, keys, doc_keys, list(range(k1 - 1, inside[-1], -1)), range(j1 - 1, j0, -1),
                       elsewhere)
    (k_first, j_first), (k_last, j_last) = chain[0], chain[-1]
    head = list(range(k_first - 1, -1, -1))
    _fill_edge(lines, keys, doc_keys, head[:next((i for i, k in enumerate(head) if markers[k]), len(head))],
               range(j_first - 1, -1, -1), elsewhere)
    tail = list(range(k_last + 1, len(keys)))
    _fill_edge(lines, keys, doc_keys, tail[:next((i for i, k in enumerate(tail) if markers[k]), len(tail))],
               range(j_last + 1, len(doc_keys)), elsewhere)
    _place_common_end(lines, keys, doc_keys)
    _place_common_start(lines, keys, doc_keys)
    _place_closing_before_markers(lines, keys, doc_keys)
    _close_shown_blocks(lines, keys, doc_keys)
    _continue_placed_runs(lines, keys, doc_keys)
    if context:
        _place_context(lines, keys, doc_keys)
    replaced = _with_continuations(_rewritten(lines, keys, doc_keys, fresh) | _rest_of_block(lines, keys, doc_keys),
                                   lines, doc_keys) | _doc_comments_rewritten(lines, keys, doc_keys)
    replaced |= _dead_after_return(lines, keys, doc_keys, replaced) | _old_ending(lines, keys, doc_keys, replaced)
    reached = [n for n in lines if n > 0 and doc_keys[n - 1].strip()] + [n for n in replaced if doc_keys[n - 1].strip()]
    head = next((n for key, n in zip(keys, lines) if key.strip()), None)
    whole = not any(markers) and _covers(reached, doc_keys, head_is_new=head == NEW)
    if whole:
        replaced = frozenset()
    else:
        _share_edge_blank_lines(lines, keys, doc_keys, replaced)
    _close_marked_blocks(lines, keys, doc_keys)
    rewrites = {} if whole else _rewrites_between_markers(lines, keys, doc_keys, replaced, fresh)
    if not whole:
        rewrites |= _rewritten_head(lines, keys, doc_keys, replaced | frozenset(rewrites.values()), set(rewrites) | fresh)
        rewrites |= _heads_over_elided_bodies(lines, keys, doc_keys, replaced | frozenset(rewrites.values()),
                                             set(rewrites) | fresh)
    for h0, h1, j0, j1 in ([] if whole else named):
        if all(lines[k] == NEW for k in range(h0, h1 + 1)) and not replaced & set(range(j0, j1 + 1)):
            rewrites |= {h0: j0, h1: j1}
            replaced |= frozenset(range(j0, j1 + 1))
    replaced = replaced | frozenset(rewrites.values())
    anchored = [rewrites.get(k, n) for k, n in enumerate(lines)]  # a rewrite splits the marker stretch it is in
    kept = {k: _without(extent, replaced) for k, extent in _marker_extents(anchored, keys, doc_keys, defined).items()}
    _place_closing_lines(lines, keys, doc_keys, kept)
    _share_blank_lines(lines, keys, doc_keys, kept, rewrites)
    dropped = _rest_of_last_block(lines, keys, doc_keys, replaced) if context and not whole else frozenset()
    return _at_named_place(Placement(document, update_lines, lines, kept, whole, replaced, rewrites, dropped,
                                     _set_apart(lines, keys, doc_keys, kept, fresh), frozenset(fresh)),
                           keys, doc_keys, fresh, defined, place)


def _at_named_place(placement: Placement, keys: list[str], doc_keys: list[str], fresh: set[int],
                    defined: dict[int, str], place: tuple[str, str] | None) -> Placement:
    """New definitions right after a marker, with no line of the file between them and the next marker (or
    the update's end), go where the answer says: the marker keeps the file's lines up to the end of the
    definition it names ("put this method right after `findRecentOrders`"), or up to the lines above it
    ("right above `releaseStock`"), and what follows keeps the rest.  Without a line of the file around
    them, nothing else says where among the marker's lines they go."""
    if place is None or not fresh:
        return placement
    side, name = place
    found = sorted(j for j, defined_name in defined.items() if names(defined_name, name))
    if not found:
        return placement
    lines, kept = placement.lines, dict(placement.kept)
    for k, n in enumerate(lines):
        if n != MARKER:
            continue
        run = [i for i in range(k + 1, len(lines)) if keys[i].strip()]
        stop = next((i for i in run if lines[i] != NEW), None)
        new = [i for i in run if stop is None or i < stop]
        if not new or not all(i in fresh for i in new) or stop is not None and lines[stop] != MARKER:
            continue
        first, last = kept[k]
        if side == "after":
            j = found[-1]
            cut = _block_end(doc_keys, j)  # 0-based end, exclusive: the 1-based last line of it
        else:
            j = found[0]
            while j > 0 and doc_keys[j - 1].strip() and _ATTACHED_LINE.match(doc_keys[j - 1]):
                j -= 1
            cut = j
            while cut > first - 1 and not doc_keys[cut - 1].strip():
                cut -= 1  # the blank lines above it stay above the new code
        if not first - 1 <= cut <= last:
            continue
        kept[k] = (first, cut)
        if stop is not None:
            start = cut + 1
            while side == "after" and not keys[stop - 1].strip() and start <= kept[stop][1] and \
                    not doc_keys[start - 1].strip():
                start += 1  # (the update sets the new code off from what follows: the file's blank line once)
            kept[stop] = (start, kept[stop][1])
        return replace(placement, kept=kept)
    return placement


def _place_closing_before_markers(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """New entries after a shown line, then the closing line of their list or block and a marker (``]`` after
    new dependencies): where the file's next lines after the shown one are those closing lines, they are those
    lines, not a second ``]``."""
    for k, n in enumerate(lines):
        if n <= 0:
            continue
        end = k + 1
        while end < len(lines) and lines[end] == NEW:
            end += 1
        if end == k + 1 or end >= len(lines) or lines[end] != MARKER:
            continue
        closing = []
        for i in range(end - 1, k, -1):
            if not keys[i].strip():
                continue
            if not _CLOSING.match(keys[i]):
                break
            closing.append(i)
        if not closing or len(closing) == end - k - 1 - sum(1 for i in range(k + 1, end) if not keys[i].strip()):
            continue  # nothing closes, or nothing new before the closing lines (the alignment placed those)
        j = n  # 0-based: the file line after the shown one
        for i in reversed(closing):
            while j < len(doc_keys) and not doc_keys[j].strip():
                j += 1
            if j >= len(doc_keys) or doc_keys[j] != keys[i] or j + 1 in lines:
                break
            lines[i] = j + 1
            j += 1


def _continue_placed_runs(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """New lines that repeat, in order, the file lines right after a placed line (a Razor ``else`` and ``{`` after
    the ``}`` placed by its block): those lines, not rewrites of them (which left the marker below them nothing
    to keep)."""
    placed = {n for n in lines if n > 0}
    for k in range(1, len(lines)):
        j = lines[k - 1]  # 1-based: the file line above; its next is doc_keys[j]
        if lines[k] == NEW and keys[k].strip() and j > 0 and j < len(doc_keys) and j + 1 not in placed and \
                doc_keys[j] == keys[k] and all(n <= j for n in lines[:k] if n > 0):
            lines[k] = j + 1
            placed.add(j + 1)


def _close_shown_blocks(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """A new closing line (``}``) whose block opens on a placed line (``get {``, its body rewritten) is that
    block's closing line in the file, not a second one written before it: the body's old lines go, and a marker
    after it, or new code after the block (a method added after the one rewritten), keeps what follows; at the
    update's end, the file's lines after it stay."""
    for i, n in enumerate(lines):
        if n != NEW or not keys[i].strip() or not _CLOSING.match(keys[i]):
            continue
        depth = _indent_of(keys[i])
        after = next((m for m in range(i + 1, len(keys)) if keys[m].strip() or lines[m] == MARKER), None)
        if after is not None and lines[after] != MARKER and (lines[after] != NEW or _indent_of(keys[after]) > depth):
            continue  # (before a marker, the update's end, or new code after the block: elsewhere closing lines
            # are placed later)
        opener = next((o for o in range(i - 1, -1, -1) if keys[o].strip() and lines[o] != MARKER
                       and _indent_of(keys[o]) <= depth), None)
        if opener is None or lines[opener] <= 0 or _indent_of(keys[opener]) != depth or _CLOSING.match(keys[opener]):
            continue
        start = lines[opener]  # 1-based: the block's body starts after it
        end = next((j for j in range(start, len(doc_keys)) if doc_keys[j].strip() and
                    _indent_of(doc_keys[j]) <= depth), None)
        if end is None or doc_keys[end].strip() != keys[i].strip() or end + 1 in lines or \
                after is None and not any(key.strip() for key in doc_keys[end + 1:]):
            continue  # (at the file's end too, the lines that end both place the update)
        inside = [m for m in lines[opener + 1:i] if m > 0]
        if all(start < m <= end for m in inside) and all(m <= start or m > end + 1 for m in lines[i + 1:] if m > 0):
            lines[i] = end + 1


def _place_context(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """Context lines between a marker and a changed stretch (``else:`` above a rewritten line, a closing
    ``\"\"\"`` below a rewritten sentence): too common in the file to place the update, and not next to a placed
    line, they stay new and the file's own are kept too.  Here the new lines between a marker (or the update's
    edge) and a placed line are matched against the few file lines next to that placed one; those that repeat
    from the marker's side in are placed there, and the file lines between them and the placed line are what
    the rest of the new lines rewrite."""
    for k, end in _new_runs(lines):
        before = lines[k - 1] if k > 0 else MARKER
        after = lines[end] if end < len(lines) else MARKER
        run = list(range(k, end))
        if before == MARKER and after > 0:  # from the marker down to the placed line: match backwards
            floor = max([n for n in lines[:k] if n > 0] + [0])
            js = list(range(after - 2, max(floor, after - 2 - len(run) - REWRITE_SLACK) - 1, -1))
            _place_from_edge(lines, keys, doc_keys, run, js)
        elif before > 0 and after == MARKER:  # from the placed line down to the marker
            ceiling = min([n for n in lines[end:] if n > 0] + [len(doc_keys) + 1])
            js = list(range(before, min(ceiling - 1, before + len(run) + REWRITE_SLACK)))
            _place_from_edge(lines, keys, doc_keys, run[::-1], js)


def _rest_of_last_block(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int]) -> frozenset[int]:
    """New lines that end the update after its last placed line, with no marker: the file lines after that one,
    as deep as the new lines or deeper (the rest of the block they are in), which the new lines rewrite when
    keeping them breaks the file (a ``finally:`` rewritten after a shown line).  Not shown, so reported."""
    placed = [k for k, n in enumerate(lines) if n > 0]
    if not placed or MARKER in lines[placed[-1]:]:
        return frozenset()
    tail = [k for k in range(placed[-1] + 1, len(keys)) if keys[k].strip()]
    if not tail:
        return frozenset()
    return frozenset(_block_rest(lines[placed[-1]], min(_indent_of(keys[k]) for k in tail), doc_keys, replaced))


def _block_rest(after: int, depth: int, doc_keys: list[str], replaced: frozenset[int]) -> list[int]:
    """The file lines (1-based) after line ``after`` and those rewritten past it, as deep as ``depth`` or deeper
    (the rest of the block there), without the blank lines that end it."""
    j = max([after] + [n for n in replaced if n > after])  # 0-based: the next file line
    out = []
    while j < len(doc_keys) and (not doc_keys[j].strip() or _indent_of(doc_keys[j]) >= depth):
        out.append(j + 1)
        j += 1
    while out and not doc_keys[out[-1] - 1].strip():
        out.pop()
    return out


def _dead_after_return(lines: list[int], keys: list[str], doc_keys: list[str],
                       replaced: frozenset[int]) -> frozenset[int]:
    """An update that ends, with no marker, in new lines whose last leaves its block (``return``, ``raise``,
    ``throw``) rewrites the rest of that block: kept after it, the file's old ending would be dead code (the
    old ``return`` beside its rewrite)."""
    placed = [k for k, n in enumerate(lines) if n > 0]
    if not placed or MARKER in lines[placed[-1]:]:
        return frozenset()
    tail = [k for k in range(placed[-1] + 1, len(keys)) if keys[k].strip()]
    if not tail or not _LEAVES.match(keys[tail[-1]]):
        return frozenset()
    depth = _indent_of(keys[tail[-1]])
    if any(_indent_of(keys[k]) < depth for k in tail) or _indent_of(keys[placed[-1]]) < depth:
        return frozenset()
    out = _block_rest(lines[placed[-1]], depth, doc_keys, replaced)
    if sum(1 for n in out if doc_keys[n - 1].strip()) > 2 * len(tail) + REWRITE_SLACK:
        return frozenset()
    return frozenset(out)


def _old_ending(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int]) -> frozenset[int]:
    """A marker in a block, then new code to the update's end that ends the block leaving it (``return``,
    ``raise``): a function shown whole with ``# ... filters unchanged ...`` and a new ending.  The file's block
    ends leaving it too; its last paragraph (from the blank line above its last statements), which the new
    ending replaces, is not the marker's to keep: kept, the old ``return`` would follow the new one."""
    placed = [k for k, n in enumerate(lines) if n > 0]
    if not placed:
        return frozenset()
    after = [k for k in range(placed[-1] + 1, len(keys)) if keys[k].strip()]
    marks = [k for k in after if lines[k] == MARKER]
    tail = [k for k in after if lines[k] == NEW and marks and k > marks[0]]
    if len(marks) != 1 or not tail or len(tail) != len(after) - 1 or tail[0] < marks[0]:
        return frozenset()
    depth = min(_indent_of(keys[k]) for k in tail)
    statements = [k for k in tail if _indent_of(keys[k]) == depth and not _CLOSING.match(keys[k])]
    if _indent_of(keys[marks[0]]) != depth or not statements or not _LEAVES.match(keys[statements[-1]]):
        return frozenset()
    block = _block_rest(lines[placed[-1]], depth, doc_keys, replaced)
    ends = [n for n in block if _indent_of(doc_keys[n - 1]) == depth and not _CLOSING.match(doc_keys[n - 1])]
    if not ends or not _LEAVES.match(doc_keys[ends[-1] - 1]):
        return frozenset()
    first = ends[-1]
    while first - 1 in block and doc_keys[first - 2].strip():
        first -= 1  # up to the blank line above the last paragraph
    return frozenset(n for n in block if n >= first)


def _place_from_edge(lines: list[int], keys: list[str], doc_keys: list[str], run: list[int], js: list[int]) -> None:
    """``run``: new update lines from the marker's side in; ``js``: 0-based file lines from the placed line out.
    The run's first lines are placed on the file lines they repeat, nearest the placed line first, when the
    run's other lines are at least about as many as the file lines left between (they rewrite those), or the
    first is a line the file has once."""
    content = [i for i in run if keys[i].strip()]
    if not content:
        return
    lead = run[run.index(content[0]):]
    for start in range(len(js)):
        pairs, j = [], start
        for i in lead:
            if j < 0 or keys[i] != doc_keys[js[j]]:
                break
            pairs.append((i, js[j]))
            j -= 1
        if not pairs:
            continue
        paired = {i for i, _ in pairs}
        rest = [i for i in run if keys[i].strip() and i not in paired]
        between = [js[t] for t in range(j + 1) if doc_keys[js[t]].strip()]
        if sum(_weight(keys[i]) for i, _ in pairs if not _CLOSING.match(keys[i])) < ANCHOR_WEIGHT and \
                not all(any(_resembles(keys[i], doc_keys[b]) for i in rest) for b in between):
            continue  # braces alone are anywhere: only where the lines they skip are rewritten
        pinned = _weight(keys[lead[0]]) >= DISTINCTIVE and doc_keys.count(keys[lead[0]]) == 1  # found once
        if rest and (pinned or len(between) <= len(rest) + REWRITE_SLACK):
            for i, n in pairs:
                lines[i] = n + 1
        return


def _place_common_end(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """The lines an update ends with that are the lines the file ends with (``end`` and ``return M``) are those
    lines: the update ends where the file does, whatever it changed just before (the anchors' deletion price
    may leave them out, and a snippet would then append the file's end a second time)."""
    k, j = len(keys) - 1, len(doc_keys) - 1
    while k >= 0 and not keys[k].strip() and lines[k] == NEW:
        k -= 1
    while j >= 0 and not doc_keys[j].strip():
        j -= 1
    run, in_file = [], set(doc_keys)
    while k >= 0 and j >= 0 and lines[k] in (NEW, j + 1) and keys[k] == doc_keys[j] and \
            not _closes_new_block(k, keys, in_file):
        run.append((k, j + 1))
        k, j = k - 1, j - 1
    if not run or max(_weight(keys[k]) for k, _ in run) < ANCHOR_WEIGHT and \
            not (len(run) == 1 and MARKER in lines[:run[0][0]] and _closes_a_type(doc_keys, run[0][1] - 1)):
        return  # (a class's ``}`` alone, after a marker and new members: the file's, the new code inside it)
    first_k, first_j = run[-1]
    if any(n > 0 and n >= first_j for n in lines[:first_k]) or MARKER in lines[first_k:]:
        return  # the file's end is placed earlier in the update already, or a marker follows
    for k, n in run:
        lines[k] = n


def _closes_a_type(doc_keys: list[str], j: int) -> bool:
    """Whether file line j is the closing line of a class (a struct, an interface, an impl)."""
    if not _CLOSING.match(doc_keys[j]) or not doc_keys[j].strip():
        return False
    depth = _indent_of(doc_keys[j])
    opener = next((o for o in range(j - 1, -1, -1) if doc_keys[o].strip() and _indent_of(doc_keys[o]) <= depth
                   and not _CLOSING.match(doc_keys[o])), None)
    return opener is not None and _TYPE_OPENER.search(_QUOTED.sub("", doc_keys[opener])) is not None


def _place_common_start(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """An update that starts with the file's first line (a JSON file's ``{``), then a marker or a placed line,
    starts where the file does: that line is the file's, not a second one (too short to be placed earlier)."""
    k = next((k for k, key in enumerate(keys) if key.strip()), None)
    j = next((j for j, key in enumerate(doc_keys) if key.strip()), None)
    if k is None or j is None or lines[k] != NEW or keys[k] != doc_keys[j] or any(0 < n <= j + 1 for n in lines):
        return
    following = next((n for key, n in zip(keys[k + 1:], lines[k + 1:]) if key.strip()), NEW)
    if following == MARKER or following > j + 1:
        lines[k] = j + 1


def _close_marked_blocks(lines: list[int], keys: list[str], doc_keys: list[str]) -> None:
    """A closing line less indented than a marker before it (``  },`` after ``    // ...`` and new entries)
    closes the block the marker is in: it is placed on the line that closes that block in the file, so the
    marker keeps the block's lines up to it and new lines between go at the block's end."""
    for k, n in enumerate(lines):
        if n != MARKER:
            continue
        depth = _indent_of(keys[k])
        done = max([m for m in lines[:k] if m > 0] + [0])
        closers = []
        for i in range(k + 1, len(lines)):
            if lines[i] != NEW:
                break
            if keys[i].strip() and _CLOSING.match(keys[i]) and _indent_of(keys[i]) < depth:
                closers.append(i)
            elif closers:
                break
        if not closers:
            continue
        end = done  # the block the marker is indented into ends before its first less indented line
        while end < len(doc_keys) and (not doc_keys[end].strip() or _indent_of(doc_keys[end]) >= depth):
            end += 1
        for i in closers:
            while end < len(doc_keys) and not doc_keys[end].strip():
                end += 1
            if end >= len(doc_keys) or doc_keys[end].strip() != keys[i].strip() or end + 1 in lines:
                break
            lines[i] = end + 1
            end += 1


def _rewrites_between_markers(lines: list[int], keys: list[str], doc_keys: list[str],
                              replaced: frozenset[int], fresh: set[int]) -> dict[int, int]:
    """New lines with markers (or the update's edge) on both sides that rewrite one file line: an import that
    gains a name, a signature that gains a parameter, shown alone between ``...`` markers; or the first or last
    line of a longer run between markers (a command rewritten, with new lines before it), when only one of the
    two rewrites a line; or, with a marker on one side and a placed line on the other, the run's line next to
    the placed one, when it rewrites the file line next to that one.  Each goes in place of the file line it resembles most, when that line is alike enough
    and clearly more alike than any other among the lines the markers around it keep: {update line: file line}."""
    out: dict[int, int] = {}
    in_file = set(doc_keys)
    for k, end in list(_new_runs(lines)):
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
                    _weight(keys[edge]) >= DISTINCTIVE and _indent_of(doc_keys[j - 1]) == _indent_of(keys[edge]) and \
                    keys[edge].strip() not in in_file and not _other_entries(keys[edge], doc_keys[j - 1]) and \
                    not _defines_another(keys, edge, doc_keys, j - 1) and not _DECLARES.match(doc_keys[j - 1]) and \
                    _likeness(keys[edge], doc_keys[j - 1]) >= REWRITE_ALONE:
                out[edge] = j
            continue
        if not run or before not in (None, MARKER) or after not in (None, MARKER):
            continue  # next to a placed line: the alignment's call
        below = max([m for m in lines[:k] if m > 0] + [v for i, v in out.items() if i < k] + [0])
        above = min([m for m in lines[end:] if m > 0] + [len(doc_keys) + 1])
        taken = replaced | set(out.values())
        if len(run) == 1:
            edges = run
        elif _closes_new_block(run[-1], keys, in_file) or _closes_new_block(run[0], keys, in_file):
            continue  # a whole new block rewrites nothing
        else:
            edges = [run[0], run[-1]]
        found = {i: j for i in edges if keys[i] not in in_file and i not in fresh  # (a file line not placed, a
                 and (j := _rewritten_alone(keys[i], doc_keys, range(below + 1, above), taken)) is not None}
        if len(found) == 1:  # new definition's attribute: no rewrite of either)
            out.update(found)
        elif not found:
            out.update(_tail_somewhere(run, fresh, range(below + 1, above), keys, doc_keys, taken))
    return out


def _tail_somewhere(run: list[int], fresh: set[int], js: range, keys: list[str], doc_keys: list[str],
                    taken: set[int]) -> dict[int, int]:
    """New lines between markers that end with a definition's head rewritten (a new route above ``show``, then
    ``show``'s attribute and signature changed and its ``{``, before ``// ... existing code ...`` for its body):
    the run's last lines paired line for line with the one run of file lines among ``js`` they are alike, one
    pair defining the same name; the lines before them are new.  {update line: file line}, or none."""
    found = []
    for size in range(min(_most_rewritten(run, fresh), LONE_LINES), 1, -1):  # the longest first
        tail = run[-size:]
        if _CLOSING.match(keys[tail[0]]):
            continue  # (the ``}`` of the new code before it would pair with any block's end)
        for j in js:
            olds = [n for n in range(j, js.stop) if doc_keys[n - 1].strip()][:size]
            if len(olds) < size or olds[0] != j or any(n in taken for n in olds):
                continue
            pairs = list(zip(tail, olds))
            if _alike_line_for_line(pairs, keys, doc_keys) and _names_one(pairs, keys, doc_keys):
                found.append(dict(pairs))
        if found:
            break
    return found[0] if len(found) == 1 else {}


def _heads_over_elided_bodies(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int],
                              done: set[int]) -> dict[int, int]:
    """A new block head right above a marker that stands for its body (``if (error && orders.length === 0) {``,
    ``// ... unchanged ...``, ``}``) where the file's next line after the last placed one is the same head
    rewritten (``if (error) {``): that line, rewritten, not kept below the new head.  {update line: file line}."""
    out: dict[int, int] = {}
    for k, key in enumerate(keys):
        nxt = next_shown(keys, k, 1)
        if lines[k] != NEW or k in done or not key.rstrip().endswith(("{", ":", " do")) or nxt is None or \
                lines[nxt] != MARKER or _indent_of(keys[nxt]) <= _indent_of(key):
            continue
        below = max([m for m in lines[:k] if m > 0] + [0])
        j = next((j for j in range(below + 1, len(doc_keys) + 1) if doc_keys[j - 1].strip()), None)
        if j is not None and j not in replaced and j not in out.values() and \
                _indent_of(doc_keys[j - 1]) == _indent_of(key) and same_head(doc_keys[j - 1].strip(), key.strip()):
            out[k] = j
    return out


def _rewritten_head(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int],
                    done: set[int]) -> dict[int, int]:
    """New lines after a marker and before a placed line that rewrite a run of file lines further up than the
    placed line, with the lines between them left out (deleted): a route's head gains a middleware and its
    first statement a cast, shown after ``// ...``, and the checks below them go; the body's unchanged rest
    follows. The run's first line is found as a line rewritten alone among the lines the marker would keep, the
    others pair with the file lines after it, every one; blank lines placed between the marker and the run go
    on the blank lines above its first file line.  ``done``: update lines rewritten already, or of new
    definitions (which rewrite nothing).  {update line: file line}, each pair."""
    out: dict[int, int] = {}
    for k, end in list(_new_runs(lines)):
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
        head = _rewritten_alone(keys[run[0]], doc_keys, range(below + 1, after), set(replaced))
        if head is None or _defines_another(keys, run[0], doc_keys, head - 1):
            continue
        pairs, at = [], head
        for i in run:
            while at < after and not doc_keys[at - 1].strip():
                at += 1
            if at >= after or not (_resembles(keys[i], doc_keys[at - 1]) or keys[i].strip() == doc_keys[at - 1].strip()):
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


def _rewritten_alone(key: str, doc_keys: list[str], js: range, taken: set[int]) -> int | None:
    """The file line among ``js`` that a new line shown away from placed lines rewrites, or None."""
    if _weight(key) < DISTINCTIVE:
        return None
    scores = sorted(((difflib.SequenceMatcher(None, key.strip(), doc_keys[j - 1].strip(), autojunk=False).ratio(), j)
                     for j in js
                     if j not in taken and _weight(doc_keys[j - 1]) >= DISTINCTIVE
                     and _indent_of(doc_keys[j - 1]) == _indent_of(key) and not _other_entries(key, doc_keys[j - 1])),
                    reverse=True)
    if scores and scores[0][0] >= REWRITE_ALONE and (len(scores) == 1 or scores[1][0] < scores[0][0] - 0.1):
        return scores[0][1]
    extended = [j for _, j in scores if key.strip().startswith(doc_keys[j - 1].strip().rstrip(";,)"))]
    if len(extended) == 1:  # the one line it extends: ``result += item.price`` gaining `` * item.quantity``
        return extended[0]
    head = _HEAD.match(key)  # ``->subject(sprintf(...))`` for ``->subject('Payment reminder')``: the one line of
    if head is None or len(head[1]) < 8:  # its call or key, rewritten whole, where nothing else is alike
        return None
    same = [j for _, j in scores if doc_keys[j - 1].strip().startswith(head[1])]
    return same[0] if len(same) == 1 else None


def _place_closing_lines(lines: list[int], keys: list[str], doc_keys: list[str], kept: dict[int, tuple[int, int]]) -> None:
    """Closing lines that end the update after new code (``}``, ``});``, ``end``) close the blocks the file
    closes next: placed on those file lines, not written a second time beside them."""
    k = len(keys)
    while k > 0 and (lines[k - 1] == NEW and (_CLOSING.match(keys[k - 1]) or not keys[k - 1].strip())):
        k -= 1
    closing = [i for i in range(k, len(keys)) if keys[i].strip()]
    if not closing or k == 0 or lines[k - 1] != NEW:
        return  # nothing closes, or the closing lines follow placed ones (the line alignment placed them)
    done = max([n for n in lines if n > 0] + [last for _, last in kept.values()] + [0])
    following = []  # the file's closing lines next after what the update accounts for
    for j in range(done + 1, len(doc_keys) + 1):
        if doc_keys[j - 1].strip():
            if not _CLOSING.match(doc_keys[j - 1]) or len(following) == len(closing):
                break
            following.append(j)
    pairs = list(zip(closing[len(closing) - len(following):], following))  # the update's last ones close them
    if pairs and all(keys[i].strip() == doc_keys[j - 1].strip() for i, j in pairs):
        for i, j in pairs:
            lines[i] = j


def _share_edge_blank_lines(lines: list[int], keys: list[str], doc_keys: list[str], replaced: frozenset[int]) -> None:
    """The blank lines a snippet ends with are the blank lines the file goes on with after it, not more of them
    (and likewise at its start): placed on them."""
    placed = [n for n in lines if n > 0]
    if not placed or MARKER in lines:
        return
    last = max([max(placed)] + [n for n in replaced if n > max(placed)])
    k, j = len(keys) - 1, last + 1
    while k >= 0 and lines[k] == NEW and not keys[k].strip():
        k -= 1
    for i in range(k + 1, len(keys)):  # the update's trailing blank lines, in order, on the file's
        if j > len(doc_keys) or doc_keys[j - 1].strip() or lines[i] != NEW:
            break
        lines[i] = j
        j += 1
    first = min([min(placed)] + [n for n in replaced if n < min(placed)])
    k = 0
    while k < len(keys) and lines[k] == NEW and not keys[k].strip():
        k += 1
    j = first - k
    for i in range(k):  # the update's leading blank lines, on the file's just before its first line
        if j < 1 or doc_keys[j - 1].strip():
            continue
        lines[i] = j
        j += 1


def _share_blank_lines(lines: list[int], keys: list[str], doc_keys: list[str], kept: dict[int, tuple[int, int]],
                       rewrites: dict[int, int] | None = None) -> None:
    """Blank lines where a marker's kept lines meet the update's own are the same lines, not twice as many: the
    blank update lines right after a marker are placed on the blank lines its stretch ends with, and those right
    before it on the blank lines its stretch starts with."""
    for k, (first, last) in list(kept.items()):
        after = 0
        while k + 1 + after < len(keys) and lines[k + 1 + after] == NEW and not keys[k + 1 + after].strip():
            after += 1
        tail = 0
        while last - tail >= first and not doc_keys[last - tail - 1].strip():
            tail += 1
        shared = min(after, tail)
        for i in range(shared):  # in order: the stretch's last blank lines become the update's first ones
            lines[k + 1 + i] = last - shared + 1 + i
        following = lines[k + 1 + after] if k + 1 + after < len(lines) else None
        if shared < after and following == last + 1 and first <= last:  # the file has no blank line there: the
            for i in range(shared, after):  # update's blank lines only set the marker apart
                lines[k + 1 + i] = SKIP
        last -= shared
        before = 0
        while k - 1 - before >= 0 and lines[k - 1 - before] == NEW and not keys[k - 1 - before].strip():
            before += 1
        head = 0
        while first + head <= last and not doc_keys[first + head - 1].strip():
            head += 1
        shared = min(before, head)
        for i in range(shared):
            lines[k - shared + i] = first + i
        preceding = (rewrites or {}).get(k - 1 - before, lines[k - 1 - before]) if k - 1 - before >= 0 else None
        if shared < before and preceding is not None and preceding > 0 and preceding + 1 == first <= last:
            for i in range(before - shared):
                lines[k - before + i] = SKIP
        start = k  # new lines right before the marker, set off by a blank line from the placed line above them
        while start > 0 and lines[start - 1] == NEW:
            start -= 1  # (where the file has its blank line: the update's is that one, not a second after them)
        if not shared and not before and start + 1 < k and start > 0 and lines[start - 1] > 0 and \
                lines[start - 1] + 1 == first < last and not keys[start].strip() and keys[start + 1].strip() and \
                not doc_keys[first - 1].strip() and doc_keys[first].strip():  # (one blank line on each side)
            lines[start] = first
            first += 1
        kept[k] = (first + shared, last)


def _set_apart(lines: list[int], keys: list[str], doc_keys: list[str], kept: dict[int, tuple[int, int]],
               fresh: set[int]) -> frozenset[int]:
    """New definitions that meet a marker's kept lines with no blank line between, where the file sets its
    definitions apart with one (a new method right after ``// ...existing code...`` and the last method's
    ``}``): the update lines (the new one's first, or the line after its last) a blank line goes before."""
    out = set()
    for k, (first, last) in kept.items():
        if first > last:
            continue
        spaced = {_indent_of(doc_keys[j - 1]) for j in range(first, last) if _CLOSING.match(doc_keys[j - 1])
                  and doc_keys[j - 1].strip() and not doc_keys[j].strip()}
        new = k + 1  # new code after the stretch, against its last line
        if new in fresh and lines[new] == NEW and keys[new].strip() and _CLOSING.match(doc_keys[last - 1]) and \
                doc_keys[last - 1].strip() and _indent_of(doc_keys[last - 1]) == _indent_of(keys[new]) in spaced:
            out.add(new)
        end = k - 1  # new code before the stretch, against its first line
        if end in fresh and lines[end] == NEW and _CLOSING.match(keys[end]) and keys[end].strip() and \
                doc_keys[first - 1].strip() and _indent_of(doc_keys[first - 1]) == _indent_of(keys[end]) in spaced:
            out.add(k)
    return frozenset(out)


def _resembles(a: str, b: str, at_least: float = REWRITE_SIMILARITY) -> bool:
    """Whether a new line reads as a rewrite of a file line: the same indentation and mostly (``at_least``) the
    same text, and not another entry of a list (``_other_entries``)."""
    if not a.strip() or not b.strip() or _indent_of(a) != _indent_of(b) or _other_entries(a, b):
        return False
    if (m := _DECLARATION.match(a)) and (n := _DECLARATION.match(b)) and m["key"] == n["key"]:
        return True  # one property given another value (``color: #656d76;`` to ``color: var(--muted);``)
    if _COMMENT_TEXT.match(a) and _COMMENT_TEXT.match(b) and _WORDS.findall(a) and _WORDS.findall(b) and \
            not {w.lower() for w in _WORDS.findall(a)} & {w.lower() for w in _WORDS.findall(b)}:
        return False  # comments of no word in common, however alike their frames (``# --- Redis ---``, ``# --- Email
        # ---``): another section's title
    return difflib.SequenceMatcher(None, a.strip(), b.strip(), autojunk=False).ratio() >= at_least


_TAG = re.compile(r"^\s*<(?P<tag>[\w.:-]+)\b")
_IDENTITY_ATTRIBUTE = re.compile(r"""\b(?P<attribute>class|className|id|name)=["'](?P<value>[^"']+)["']""")


def _other_elements(a: str, b: str) -> bool:
    """Whether two lines open markup elements of one tag that say they are others: a class, id or name of no
    word in common (``<input name="q">`` beside ``<input name="url">``)."""
    tags = _TAG.match(a), _TAG.match(b)
    if not tags[0] or not tags[1] or tags[0]["tag"] != tags[1]["tag"]:
        return False
    ours = {m["attribute"]: set(m["value"].split()) for m in _IDENTITY_ATTRIBUTE.finditer(a)}
    theirs = {m["attribute"]: set(m["value"].split()) for m in _IDENTITY_ATTRIBUTE.finditer(b)}
    return any(not ours[attribute] & theirs[attribute] for attribute in ours.keys() & theirs.keys())
_COMMENT_TEXT = re.compile(r"^\s*(?:#|//|--|/\*|<!--|;)")
_WORDS = re.compile(r"[A-Za-z]\w{2,}")


_ENTRY_KEYS = (re.compile(r'^\s*"(?P<key>[^"]+)"\s*:'),  # JSON: ``"react": "^18.2.0",``
               re.compile(r"^\s*(?P<key>[\w.-]+)\s*=\s*[\"'\[{\d]"),  # TOML, INI: ``serde = { version = "1" }``
               # Gradle (a coordinate: no spaces; a message is a log call's, rewritten)
               re.compile(r"^\s*(?P<call>[\w.]+)\s*\(\s*([\"'])(?P<key>[^\"'\s]*)\2\s*\)\s*[,;]?\s*$"),
               # imports of other modules: ``import { Order } from './order'``, ``from app.x import y``, ``use a::b``
               re.compile(r"^\s*import\b.*\bfrom\s*([\"'])(?P<key>[^\"']+)\1"),
               re.compile(r"^\s*(?:pub\s+)?use\s+(?P<key>[\w:]+?)(?:::\{|;)"),  # Rust: ``a::b::{C, D}``: a::b
               re.compile(r"^\s*(?:from|import|using)\s+(?:static\s+)?(?P<key>[\w.]+)"),
               re.compile(r"^\s*(?:\w+\s+)?\"(?P<key>[^\"]+)\"\s*$"),  # Go: a path in an import block
               # a route or a test opened by a call naming it: ``todos.MapDelete("/{id}/complete", async (``
               re.compile(r"^\s*(?P<call>[\w.$]+)\s*\(\s*([\"'`])(?P<key>[^\"'`]*)\2.*(?:[({\[]|=>)\s*$"),
               # a Makefile's targets: ``.PHONY: migrate-dry-run`` beside ``.PHONY: image`` (a list of them is
               # named by its first: ``.PHONY: help test`` gaining ``deploy`` is a rewrite), ``image: ## Build``
               re.compile(r"^\.PHONY:\s*(?P<key>\S+)"), re.compile(r"^(?P<key>[\w./%-]+)\s*:(?![=:])"),
               # a CSS rule: ``.todo-list__empty {`` beside ``.todo-list__error {``, ``@media (...) {``
               re.compile(r"^\s*(?P<key>[.#&@][^{};]*?)\s*\{\s*$"),
               # a Maven coordinate: ``<artifactId>spring-boot-starter-validation</artifactId>``
               re.compile(r"^\s*<(?P<call>artifactId|module|include)>(?P<key>[^<]+)</(?P=call)>\s*$"),
               # a declaration: CSS's ``color: #656d76;``, an interface's ``id: string;``
               re.compile(r"^\s*(?P<key>-{0,2}[A-Za-z][\w-]*\??)\s*:\s*[^;{}]*;\s*$"))
_DECLARATION = _ENTRY_KEYS[-1]
_NOT_IN_NAME = re.compile(r"[\d._-]+")  # a version, and the separators a key is respelt with (``poll_interval``)


def _other_entries(a: str, b: str) -> bool:
    """Whether two lines are different entries of one list: a dependency added beside another
    (``implementation("...:spring-boot-starter-validation")`` next to ``...-data-jpa``), a key added to a
    manifest, an import of another module, a route or a test opened beside another (a log call's message
    rewritten is a rewrite).  Lines alike as text, but one names another thing: the new one is added, not a
    rewrite.  Its version or value changed, or its key respelt (``poll_interval_secs`` to
    ``poll-interval-secs``), the entry is the same (a rewrite)."""
    if _other_elements(a, b):
        return True  # (``<form class="search-form">`` beside ``<form class="bookmark-form">``: another element)
    for pattern in _ENTRY_KEYS:
        m, n = pattern.match(a), pattern.match(b)
        if m and n:
            a_key, b_key = sorted((m["key"], n["key"]), key=len)
            if b_key.startswith(a_key + "::"):
                return False  # ``use std::io::Read;`` rewritten as ``use std::io::{Read, Write};``
            return m.groupdict().get("call") != n.groupdict().get("call") or _entry(m["key"]) != _entry(n["key"])
    return False


def _entry(key: str) -> str:
    return _NOT_IN_NAME.sub("", key).lower()


def _likeness(new: str, old: str) -> float:
    """How alike two lines' texts are: 1 for the same text (blank lines included), else difflib's ratio."""
    if not new.strip() or not old.strip() or new.strip() == old.strip():
        return 1.0 if new.strip() == old.strip() else 0.0
    return difflib.SequenceMatcher(None, new.strip(), old.strip(), autojunk=False).ratio()


def _same_place(new: str, old: str) -> bool:
    """Whether a new line takes a file line's place: both blank, or the one a rewrite of the other."""
    return not new.strip() and not old.strip() or _resembles(new, old)


def _indent_of(key: str) -> int:
    return len(key) - len(key.lstrip())


def _rewritten(lines: list[int], keys: list[str], doc_keys: list[str], fresh: set[int]) -> frozenset[int]:
    """File lines that new update lines rewrite where the file would otherwise keep them: new lines just before
    a placed line, after a marker or at the snippet's start, that resemble the file lines just before it (a
    changed ``def`` line above an unchanged body); and likewise just after a placed line.  ``fresh``: the update's
    lines of new definitions, which rewrite nothing."""
    out: set[int] = set()
    placed, in_file = [n for n in lines if n > 0], set(doc_keys)
    for k, end in _new_runs(lines):
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
                (not _closes_new_block(run[-1], keys, in_file) or  # (a whole new block rewrites nothing, but a
                 head > 0 and _call_rewrapped(keys[run[0]], doc_keys[head - 1])):  # call given lines of its own)
            found = _rewritten_run(reversed(range(k, end)), range(after - 1, 0, -1), keys, doc_keys, placed, out)
            if not found and head > 0 and head not in placed and len(run) <= SIGNATURE_LINES and \
                    _split_over_lines([keys[i] for i in run], doc_keys[head - 1]):
                found = set(range(head, after))  # a signature spread over lines, one parameter each, above its
                # unchanged body (with the blank lines between: the update shows its own)
            out |= found
        if run and after is not None and after > 0 and before == MARKER and not any(j < after for j in out) and \
                head > 0 and head not in placed and _reopened(keys, run, doc_keys, head, after):
            out.add(head)  # (``<tbody>`` given a class, a new row at the top of its body)
        if run and before is not None and before > 0 and (after is None or after == MARKER):
            found = _rewritten_run(range(k, end), range(before + 1, len(doc_keys) + 1), keys, doc_keys, placed, out)
            if not found and before < len(doc_keys) and before + 1 not in placed and \
                    any(_split_over_lines([keys[i] for i in run[:n]], doc_keys[before]) and
                        (n <= WRAPPED_LINES or _same_signature(keys[run[0]], doc_keys[before]))
                        for n in range(2, SIGNATURE_LINES + 1)):
                found = {before + 1}  # (a one-line ``data class`` written one parameter a line)
            if not found:
                found = _same_name_rewritten(run, before, keys, doc_keys, placed, out)
            out |= found | _tail_rewritten(run, fresh, max(found | {before}), keys, doc_keys, placed, out)
    return frozenset(out)


def _reopened(keys: list[str], run: list[int], doc_keys: list[str], head: int, after: int) -> bool:
    """Whether new lines after a marker start with the opening line of the block the placed line ``after`` is
    in, rewritten (the file's line ``head``, right above it: ``<tbody>`` become ``<tbody :class="...">``), the
    rest of them new lines at the top of its body: the same opening word at the same depth, the placed line
    deeper, and no other of the new lines like it."""
    ours, theirs = keys[run[0]], doc_keys[head - 1]
    word = _OPENING_WORD.match(ours)
    return word is not None and word[0] == (_OPENING_WORD.match(theirs) or [None])[0] and ours != theirs and \
        _indent_of(ours) == _indent_of(theirs) < _indent_of(doc_keys[after - 1]) and \
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
    while head <= len(doc_keys) and _ATTACHED_LINE.match(doc_keys[head - 1]):
        head += 1
    if head > len(doc_keys):
        return set()
    name = _definition_name(doc_keys, head - 1)
    named = [i for i in run if _definition_name(keys, i) == name]
    if name is None or sum(_definition_name(doc_keys, j) == name for j in range(len(doc_keys))
                           if _declares(doc_keys[j])) != 1 or len(named) != 1 or \
            not _CLOSING.match(keys[_block_end(keys, named[0]) - 1]) or _block_end(keys, named[0]) - 1 > run[-1]:
        return set()  # (the new definition whole, to its closing line: not a head before a marker for its body)
    end = _block_end(doc_keys, head - 1)  # (0-based, exclusive: the 1-based last line)
    lines = set(range(before + 1, end + 1))  # (the blank lines above it too: the new code's own stand for them)
    return set() if lines & set(placed) or lines & taken else lines


def _alike_line_for_line(pairs: list[tuple[int, int]], keys: list[str], doc_keys: list[str]) -> bool:
    """Whether each new line (update index) is its file line (1-based) rewritten or repeated, none of them a
    definition of another name."""
    return all(_resembles(keys[k], doc_keys[j - 1]) or keys[k].strip() == doc_keys[j - 1].strip()
               for k, j in pairs) and not any(_defines_another(keys, k, doc_keys, j - 1) for k, j in pairs)


def _names_one(pairs: list[tuple[int, int]], keys: list[str], doc_keys: list[str]) -> bool:
    """Whether one of the pairs defines the same name in the update as in the file (a head rewritten)."""
    return any((name := _definition_name(keys, k)) is not None and name == _definition_name(doc_keys, j - 1)
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
        if not _alike_line_for_line(pairs, keys, doc_keys):
            continue
        if size == 1:
            (k, j), = pairs
            if not _resembles(keys[k], doc_keys[j - 1], REWRITE_ALONE) or \
                    any(_resembles(keys[i], doc_keys[j - 1]) for i in run[:-1]):
                continue
        elif not _names_one(pairs, keys, doc_keys):
            continue
        return set(range(done + 1, olds[size - 1] + 1))  # (with the blank lines between: the update's stand for them)
    return set()


def _with_continuations(replaced: frozenset[int], lines: list[int], doc_keys: list[str]) -> frozenset[int]:
    """File lines rewritten, with the lines that continue them (a line ending with a backslash goes on in the
    next: a Dockerfile ``RUN ... \\`` rewritten whole takes its ``&& npm cache clean`` with it), unless the
    update shows those."""
    out, placed = set(replaced), {n for n in lines if n > 0}
    for n in sorted(replaced):
        while n < len(doc_keys) and doc_keys[n - 1].rstrip().endswith("\\") and n + 1 not in placed:
            n += 1
            out.add(n)
    return frozenset(out)


def _split_over_lines(new: list[str], old: str) -> bool:
    """Whether the first new lines are the file line rewritten over several (a ``RUN`` line given a flag and a
    continuation): they start as it does, at its indentation, and hold all its words."""
    words = _TOKEN.findall(old)
    if len(new) < 2 or len(words) < 4 or _indent_of(new[0]) != _indent_of(old):
        return False
    written = Counter(_TOKEN.findall(" ".join(new)))
    return _TOKEN.findall(new[0])[:1] == words[:1] and not Counter(words) - written


def _same_signature(new: str, old: str) -> bool:
    """Whether two lines open the same callable or constructor (``data class LinkResponse(``)."""
    a, b = _SIGNATURE.match(new), _SIGNATURE.match(old)
    return a is not None and b is not None and a["name"] == b["name"]


def _new_runs(lines: list[int]):
    """Each run of new update lines, as (first, end) with ``end`` exclusive, in order; found as the caller goes,
    so a caller may place lines inside the run it was given."""
    k = 0
    while k < len(lines):
        if lines[k] != NEW:
            k += 1
            continue
        end = k
        while end < len(lines) and lines[end] == NEW:
            end += 1
        yield k, end
        k = end


def _only_closes(key: str) -> bool:
    """Whether a line only closes a block: brackets, ``end``, or a markup element's closing tag (``</div>``)."""
    return bool(_CLOSING.match(key) or _CLOSING_TAG.match(key))


def _rest_of_block(lines: list[int], keys: list[str], doc_keys: list[str]) -> frozenset[int]:
    """A function or class shown whole, without markers, replaces the file's: when the update starts on a block's
    first line (a line the next ones are indented under) and has no marker, the block's lines after the last one
    it places are the update's to replace, not to keep; unless the block has a closing line that the update does
    not end with (a class's first lines shown, without its ``end``: its head, not the whole class)."""
    if MARKER in lines:
        return frozenset()
    first = next((k for k, key in enumerate(keys) if key.strip()), None)
    placed = [n for n in lines if n > 0]
    if first is None or lines[first] <= 0 or not placed:
        return frozenset()
    head = lines[first]
    indent = _indent_of(doc_keys[head - 1])
    end = head
    while end < len(doc_keys) and (not doc_keys[end].strip() or _indent_of(doc_keys[end]) > indent):
        end += 1
    while end > head and not doc_keys[end - 1].strip():
        end -= 1  # the blank lines after the block are between blocks
    if end == head or max(placed) > end:
        return frozenset()  # not a block, or the update runs past it (a snippet of several blocks)
    last = next(key for key in reversed(keys) if key.strip())
    if end < len(doc_keys) and _only_closes(doc_keys[end]) and _indent_of(doc_keys[end]) == indent and \
            not (_only_closes(last) and _indent_of(last) == indent):
        return frozenset()  # the block closes (``end``, ``}``) and the update does not: it shows the block's head
    if _OPENS.search(last) or last.rstrip().endswith(("{", "(", "[", "=>", ":")):
        return frozenset()  # it ends opening a block (``client.get(city) match {``): it stops there, not the block
    shown = [k for k, key in enumerate(keys) if key.strip()]
    if [k for k in shown if lines[k] <= 0] == shown[-1:] and max(placed) < end and \
            sum(1 for j in range(max(placed), end) if doc_keys[j].strip()) >= 2 and \
            rewrites_statement(keys[shown[-1]].strip(), doc_keys[max(placed)].strip()):
        return frozenset()  # the block's first lines down to the one line it changes: it stops there
    # (``fetcher = Fetcher(session=session, retries=0)``, the test's lines after it not shown), not the block
    return frozenset(range(max(placed) + 1, end + 1))


def _rewritten_run(ks, js, keys: list[str], doc_keys: list[str], placed: list[int], taken: set[int]) -> set[int]:
    """File lines ``js`` (from a placed line outwards) that new lines ``ks`` rewrite, in order: each file line
    has a counterpart among the next few new lines, as a rewrite (``_resembles``), as the same statement
    indented anew (wrapped in a ``try:``), or as a blank line; up to the last non-blank one."""
    ks, pairs, at = list(ks), [], 0
    for j in js:
        if j in placed or j in taken:
            break
        old = doc_keys[j - 1]
        near = [n for n in range(at, min(len(ks), at + REWRITE_LOOKAHEAD))
                if (_same_place(keys[ks[n]], old) or _reindented(keys[ks[n]], old) or _call_rewrapped(keys[ks[n]], old))
                and not _defines_another(keys, ks[n], doc_keys, j - 1)]
        if not near:
            break
        found = max(near, key=lambda n: (_likeness(keys[ks[n]], old), -n))  # the most alike, then the nearest
        pairs.append((ks[found], j))
        at = found + 1
    while pairs and not keys[pairs[-1][0]].strip():
        pairs.pop()
    paired = {k for k, _ in pairs}
    # a block's head alike a file line, its body not (``if c.MaxRetries < 0 {`` above another ``return``): new
    pairs = [(k, j) for k, j in pairs if _call_rewrapped(keys[k], doc_keys[j - 1]) or not any(
        i in ks and keys[i].strip() and i not in paired for i in range(k + 1, _block_end(keys, k)))]
    if another_subject([keys[k] for k, _ in pairs], [doc_keys[j - 1] for _, j in pairs]):
        return set()  # (a guard for ``retries`` beside the file's for ``timeout``: added, not a rewrite)
    written = sum(1 for i in ks if keys[i].strip())
    # the run as a whole, where no line is alike alone, or where it pairs the same lines and blank ones after
    whole = _rewritten_lines(ks, js, keys, doc_keys, placed, taken)
    alone = {j for _, j in pairs}
    if whole and (not any(doc_keys[j - 1].strip() for j in alone) or
                  alone <= whole and not any(doc_keys[j - 1].strip() for j in whole - alone)):
        return whole
    if written > sum(1 for _, j in pairs if doc_keys[j - 1].strip()) + REWRITE_SLACK and \
            not (pairs and _declares_same(keys[pairs[0][0]], doc_keys[pairs[0][1] - 1])):
        return set()  # mostly new code that happens to start like the file's: an insertion, not a rewrite (but
        # ``local debug, err = ...`` over ``local debug = ...``, then its check: the variable declared anew)
    return {j for _, j in pairs}


_LOCAL = re.compile(r"^\s*(?:local|let|const|var|val|my|auto)\s+(?:mut\s+)?\(?(?P<name>[A-Za-z_]\w*)")


def _declares_same(new: str, old: str) -> bool:
    """Whether two lines declare the same local variable (``local debug, err =`` and ``local debug =``)."""
    m, n = _LOCAL.match(new), _LOCAL.match(old)
    return m is not None and n is not None and m["name"] == n["name"] and _indent_of(new) == _indent_of(old)


def _call_rewrapped(new: str, old: str) -> bool:
    """Whether a new line opens a call's arguments over the next lines that a one-line call of the file makes
    (``expect(api.fetchUsers).toHaveBeenCalledWith(`` for ``...toHaveBeenCalledWith(1, 20);``): the same
    callee, the statement given other arguments, one a line."""
    head = new.rstrip()
    return head.endswith(("(", "=>")) and len(head.strip()) >= 12 and old.lstrip().startswith(head.strip()) and \
        _indent_of(new) == _indent_of(old) and old.rstrip().endswith((");", ")", "),"))


def _defines_another(keys: list[str], k: int, doc_keys: list[str], j: int) -> bool:
    """Whether update line k opens a definition of another name than file line j does (``suspend fun refresh()``
    beside ``suspend fun exportAll()``: alike as text, but a new method, not a rewrite of that one), or a block
    titled otherwise (``resource "aws_s3_bucket_lifecycle_configuration" "this" {`` beside the encryption one's)."""
    if _OPENS.search(keys[k]) and _other_titles(keys[k], doc_keys[j]):
        return True
    if not _DECLARES.match(keys[k]):
        return False  # (``expect(x).toHaveBeenCalledWith('a', {`` opens a block, but declares nothing)
    new = _definition_name(keys, k)
    return new is not None and not _renamed(new, _definition_name(doc_keys, j) or "")


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
           (_indent_of(keys[k]) != _indent_of(doc_keys[j - 1]) or _other_entries(keys[k], doc_keys[j - 1]))
           for k, j in zip(ks, js)):
        return set()
    a = Counter(_TOKEN.findall(" ".join(keys[k] for k in ks)))
    b = Counter(_TOKEN.findall(" ".join(doc_keys[j - 1] for j in js)))
    alike = 2 * sum((a & b).values()) / max(1, sum(a.values()) + sum(b.values()))
    return set(js) if alike >= REWRITE_ALONE else set()


def _reindented(new: str, old: str) -> bool:
    """The same statement at another indentation (code moved into or out of a block)."""
    return bool(old.strip()) and new.strip() == old.strip() and _indent_of(new) != _indent_of(old)


def _without(extent: tuple[int, int], replaced: frozenset[int]) -> tuple[int, int]:
    """A marker's kept lines less those rewritten at either edge."""
    first, last = extent
    while first <= last and first in replaced:
        first += 1
    while last >= first and last in replaced:
        last -= 1
    return first, last


def _trusted(chain: list[tuple[int, int]], keys: list[str], markers: list[bool], doc_keys: list[str]) -> bool:
    """Whether the placed lines place the update: one distinctive line, a line the file has once next to markers
    (context the chat chose), or short lines that are a good part of what the update says (``b = 5`` beside an
    unchanged ``c = 3``), not a lone ``pass`` under new code."""
    if max(_weight(keys[k]) for k, _ in chain) >= DISTINCTIVE:
        return True
    counts = Counter(doc_keys)
    if any(markers) and any(counts[keys[k]] == 1 for k, _ in chain):
        return True
    said = sum(_weight(key) for key, marker in zip(keys, markers) if not marker)
    return sum(_weight(keys[k]) for k, _ in chain) >= WEAK_SHARE * said


def _unanchored(document: str, update_lines: list[str], lines: list[int], keys: list[str],
                fresh: set[int]) -> Placement:
    """An update that repeats no line of the file: new code after a marker goes at the end of the file (inside
    the closing lines it ends with, when they are the file's), before one at its start; anything else has no
    place.  ``fresh``: the update's lines of definitions the file does not have."""
    content = [k for k, key in enumerate(keys) if key.strip() and lines[k] != MARKER]
    before = [k for k in range(content[0]) if lines[k] == MARKER]
    after = [k for k in range(content[-1] + 1, len(keys)) if lines[k] == MARKER]
    doc_keys = keys_of(split_lines(document))
    # (a new definition after a marker rewrites no other: the marker says the file's code stays)
    lone = None if fresh and MARKER in lines else _lone_rewrite(document, update_lines, lines, keys, content)
    if lone is not None:
        return lone
    if not before and not after:
        inside = _inside_file_end(update_lines, lines, keys, doc_keys, content)
        if inside is not None:  # (set apart from the member above, as members are)
            closing = next(n for n in inside if n > 0)
            replaced = _last_line_rewritten(inside, keys, doc_keys, content, closing)
            above = min(replaced, default=closing) - 1  # the file line the new ones follow (1-based)
            apart = frozenset({content[0]}) if above > 0 and doc_keys[above - 1].strip() and \
                not doc_keys[above - 1].rstrip().endswith(("{", "(", "[", ":", "do")) else frozenset()
            return Placement(document, update_lines, inside, {}, False, replaced=replaced, apart=apart)
        raise UpdateError("no line of the update matches a line of the file: it does not belong to this file")
    if before and after or any(lines[k] == MARKER for k in range(content[0], content[-1])):
        raise UpdateError("the update repeats no line of the file, so where its code goes is unknown: include an "
                          "unchanged line around the change")
    total = len(doc_keys)
    marker = (before or after)[0]
    if before:  # the lines that close the update close the file (a class's ``}``): the new code goes inside them
        total = _place_file_tail(lines, keys, doc_keys, [k for k in content if lines[k] == NEW],
                                 _close_at_file_end(lines, keys, doc_keys, content))
    kept = {k: ((1, total) if k == marker else (total + 1, total)) for k in before + after}
    return Placement(document, update_lines, lines, kept, False)


def _inside_file_end(update_lines: list[str], lines: list[int], keys: list[str], doc_keys: list[str],
                     content: list[int]) -> list[int] | None:
    """New members, indented, then the closing lines the file ends with (a new test and the ``});`` of the
    file's ``describe``): the members go inside them, before the file's last lines.  The update's lines placed
    so, or None."""
    out = list(lines)
    _close_at_file_end(out, keys, doc_keys, content)
    closing = [i for i in content if out[i] > 0]
    members = [i for i in content if out[i] == NEW]
    if not closing or not members or keys[members[0]] in set(doc_keys) or \
            min(_indent_of(keys[i]) for i in members) <= _indent_of(keys[closing[0]]):
        return None
    return out


def _last_line_rewritten(lines: list[int], keys: list[str], doc_keys: list[str], content: list[int],
                         closing: int) -> frozenset[int]:
    """The file line right above its closing lines (a composable's ``return { todos, add }``) that the last of the
    new members shown before those closing lines rewrites (``return { todos, add, rename }``): closely alike, the
    same statement, and no other new line like it; none otherwise."""
    members = [i for i in content if lines[i] == NEW]
    j = closing - 1
    while j > 0 and not doc_keys[j - 1].strip():
        j -= 1
    k = members[-1]
    if j <= 0 or _CLOSING.match(keys[k]) or keys[k].strip() == doc_keys[j - 1].strip() or \
            not _resembles(keys[k], doc_keys[j - 1], REWRITE_ALONE) or \
            not _alike_line_for_line([(k, j)], keys, doc_keys) or \
            keys[k].split()[:1] != doc_keys[j - 1].split()[:1] or \
            any(_resembles(keys[i], doc_keys[j - 1]) for i in members[:-1]):
        return frozenset()
    return frozenset(range(j, closing))


def _close_at_file_end(lines: list[int], keys: list[str], doc_keys: list[str], content: list[int]) -> int:
    """Place the update's last lines that only close blocks on the file's last lines they repeat, from the end
    in, unless they close a block the update opens; the 0-based index of the first file line so placed (the
    file's length where none is)."""
    k, j, in_file = content[-1], max((j for j, key in enumerate(doc_keys) if key.strip()), default=-1), set(doc_keys)
    total = len(doc_keys)
    while k > content[0] and j >= 0 and _CLOSING.match(keys[k]) and keys[k] == doc_keys[j] and \
            not _closes_new_block(k, keys, in_file):
        lines[k] = j + 1
        total, k, j = j, k - 1, j - 1
    return total


def _place_file_tail(lines: list[int], keys: list[str], doc_keys: list[str], content: list[int], total: int) -> int:
    """New code appended after a marker, shown below the file's last lines as context (the last test's
    ``assert``, the ``}`` of the last function) where the file has them elsewhere too, so they placed nothing:
    the update's first lines that repeat the file's last ones (before line ``total``) are those lines, and the
    marker keeps what comes before them.  The number of file lines the marker keeps."""
    tail = [j for j in range(total) if doc_keys[j].strip()]
    for size in range(min(len(content) - 1, len(tail), TAIL_CONTEXT), 0, -1):
        ks, js = content[:size], tail[-size:]
        if ks == list(range(ks[0], ks[0] + size)) and js == list(range(js[0], js[0] + size)) and \
                all(keys[k] == doc_keys[j] for k, j in zip(ks, js)):
            for k, j in zip(ks, js):
                lines[k] = j + 1
            return js[0]
    return total


def _other_titles(new: str, old: str) -> bool:
    """Whether two lines open tests (routes) of other titles: ``test "b" do`` beside ``test "a" do``; a title
    extended (``"needs a title"`` to ``"needs a title of 3 characters"``) is the same test renamed."""
    a, b = _TITLED_CALL.match(new), _TITLED_CALL.match(old)
    if not a or not b or a["name"] != b["name"]:
        return False
    return not (a["title"].startswith(b["title"]) or b["title"].startswith(a["title"]))


def _lone_rewrite(document: str, update_lines: list[str], lines: list[int], keys: list[str],
                  content: list[int]) -> Placement | None:
    """An update of a few changed lines and nothing else (a table row, a sentence, two constants, with markers
    or none around them) rewrites the run of file lines it clearly resembles, line for line (blank where the
    update is blank, each line at its indentation), when only one run is that alike; None otherwise."""
    doc_keys = keys_of(split_lines(document))
    run = range(content[0], content[-1] + 1)
    if any(lines[k] == MARKER for k in run) or sum(_weight(keys[k]) for k in content) < DISTINCTIVE:
        return None
    unfolded = _unfolded_line(keys, doc_keys, content)
    if unfolded is not None:  # (a one-line element written over several: it rewrites that line)
        lines = [NEW if k in run else SKIP if not keys[k].strip() else lines[k] for k in range(len(keys))]
        kept = {k: ((1, unfolded - 1) if k < run[0] else (unfolded + 1, len(doc_keys)))
                for k, n in enumerate(lines) if n == MARKER}
        return Placement(document, update_lines, lines, kept, False, frozenset({unfolded}), {run[0]: unfolded})
    if len(content) > LONE_LINES:
        return None
    shape = [(_indent_of(keys[k]), not keys[k].strip()) for k in run]
    text = "\n".join(keys[k].strip() for k in run)
    scores = []
    for first in range(1, len(doc_keys) - len(run) + 2):
        window = doc_keys[first - 1: first - 1 + len(run)]
        if [(_indent_of(key), not key.strip()) for key in window] != shape or \
                any(_other_entries(keys[k], key) and not _IMPORT_LINE.match(key) for k, key in zip(run, window)) or \
                _other_titles(keys[run[0]], window[0]):
            continue  # (``.b {`` is another rule than ``.a {``, however alike; a name imported anew is the same)
        matcher = difflib.SequenceMatcher(None, text, "\n".join(key.strip() for key in window), autojunk=False)
        if matcher.real_quick_ratio() >= REWRITE_ALONE and matcher.quick_ratio() >= REWRITE_ALONE:
            scores.append((matcher.ratio(), first))
    scores.sort(reverse=True)
    if not scores or scores[0][0] < REWRITE_ALONE or len(scores) > 1 and scores[1][0] >= scores[0][0] - 0.1:
        return None
    first = scores[0][1]
    lines = [NEW if k in run else SKIP if not keys[k].strip() else lines[k] for k in range(len(keys))]
    rewrites = {k: first + k - run[0] for k in run}
    total, last = len(doc_keys), first + len(run) - 1
    kept = {k: ((1, first - 1) if k < run[0] else (last + 1, total)) for k, n in enumerate(lines) if n == MARKER}
    return Placement(document, update_lines, lines, kept, False, frozenset(rewrites.values()), rewrites)


def _unfolded_line(keys: list[str], doc_keys: list[str], content: list[int]) -> int | None:
    """The one file line (1-based) an update of nothing of the file writes over several lines: a statement or
    an element the file has on one line (``<p *ngIf="..." class="empty">No products found.</p>``) that the
    update opens alike and closes at its depth (``</p>``), clearly more alike than any other; None otherwise."""
    first, last = keys[content[0]].strip(), keys[content[-1]].strip()
    if len(content) < 2 or _indent_of(keys[content[0]]) != _indent_of(keys[content[-1]]) or \
            not (_CLOSING.match(last) or _CLOSING_TAG.match(last)):
        return None
    scores = []
    for n, key in enumerate(doc_keys, 1):
        line = key.strip()
        if _indent_of(key) == _indent_of(keys[content[0]]) and line.endswith(last) and len(line) > len(last) + 1:
            scores.append((difflib.SequenceMatcher(None, first, line[: len(first)], autojunk=False).ratio(), n))
    scores.sort(reverse=True)
    if not scores or scores[0][0] < REWRITE_ALONE or len(scores) > 1 and scores[1][0] >= scores[0][0] - 0.1:
        return None
    return scores[0][1]


def _indent(key: str) -> int:
    return len(key) - len(key.lstrip())


def _marker_extents(lines: list[int], keys: list[str], doc_keys: list[str],
                    defined: dict[int, str]) -> dict[int, tuple[int, int]]:
    """The file lines each marker keeps: up to the next placed line; with none after it, the rest of the file
    when the marker ends the update, else the rest of the block it is indented into (new code after it goes at
    that block's end).  ``defined``: the file's definitions."""
    kept, done, total = {}, 0, len(doc_keys)
    last = None  # the update line placed on ``done``, or the marker before: whatever the update showed last
    for k, n in enumerate(lines):
        if n > 0:
            done, last = n, k
            continue
        if n != MARKER:
            continue
        following = next((m for m in lines[k + 1:] if m > 0), None)
        if last is not None and lines[last] > 0 and any(key.strip() for key in keys[last + 1:k]) and \
                not keys[k].lstrip().startswith("{{"):  # (Windsurf's ``{{ ... }}``: its indentation says nothing)
            end_row = next(i for i in range(k - 1, last, -1) if keys[i].strip())
            if not (_CLOSING_TAG.match(keys[end_row]) and _closes_new_block(end_row, keys, set(doc_keys))):
                done = _rewritten_block_end(done, _indent(keys[k]), following, doc_keys, keys[end_row])  # new code
                # ends a block (not a new element's own ``</form>``)
        last = k
        after = next((m for m in range(k + 1, len(lines)) if lines[m] > 0 or lines[m] == MARKER), None)
        if following is not None and after is not None and lines[after] == MARKER and \
                _indent(keys[after]) < _indent(keys[k]):  # a marker inside a block, then one after the block:
            indent, end = _indent(keys[k]), done  # this one keeps the rest of the block, the next what follows it
            while end < following - 1 and (not doc_keys[end].strip() or _indent(doc_keys[end]) >= indent):
                end += 1
            while end > done and not doc_keys[end - 1].strip():
                end -= 1
        elif following is not None:
            end = following - 1
        elif not any(key.strip() for key, m in zip(keys[k + 1:], lines[k + 1:]) if m == NEW):
            end = total
        else:
            indent, end = _indent(keys[k]), done
            while end < total and (not doc_keys[end].strip() or indent == 0 or _indent(doc_keys[end]) >= indent):
                end += 1
            while end > done and not doc_keys[end - 1].strip():
                end -= 1  # blank lines after the block stay between it and what follows
        end = _before_the_next_named(k, lines, keys, doc_keys, defined, done, end)
        kept[k] = (done + 1, end)
        done = max(done, end)
    return kept


def _before_the_next_named(k: int, lines: list[int], keys: list[str], doc_keys: list[str], defined: dict[int, str],
                           done: int, end: int) -> int:
    """Where marker k's kept lines end when new lines follow it and then another marker naming a definition among
    them (``// ... environment and existing @State properties ...``, a new property, ``// ... canSave unchanged
    ...``): before that definition, which the next marker keeps; else ``end``."""
    nxt = next((m for m in range(k + 1, len(lines)) if lines[m] > 0 or lines[m] == MARKER), None)
    if nxt is None or lines[nxt] != MARKER or not any(keys[i].strip() for i in range(k + 1, nxt)):
        return end
    said = {word for word in re.findall(r"[A-Za-z_]\w{3,}", keys[nxt])
            if re.search(r"[a-z][A-Z]|_[a-z]", word) or word[0].isupper() and not word.isupper() and word != "End"}
    named = [j for j in sorted(defined) if done <= j < end and any(re.search(rf"\b{re.escape(word)}\b", doc_keys[j]) for word in said)]
    if not said or not named:
        return end
    cut = named[0]
    while cut > done and doc_keys[cut - 1].strip() and _ATTACHED_LINE.match(doc_keys[cut - 1]):
        cut -= 1  # (its attributes and doc comment are its own)
    while cut > done and not doc_keys[cut - 1].strip():
        cut -= 1
    return cut


def _rewritten_block_end(done: int, indent: int, following: int | None, doc_keys: list[str], new_end: str) -> int:
    """Where a marker's kept lines start when new code comes between the last placed line and the marker: a
    marker less indented than the file's lines after that placed one stands for what follows the block they
    are in, so the rest of that block is what the new code rewrote (the update's new lines are the block's new
    end).  Returns the last file line the new code accounts for: ``done`` as it was when the file's next line
    is no deeper than the marker, or when the block does not end before the next placed line, or when the block
    ends with a closing line and the new code (``new_end``, its last line) does not close it: the marker, at
    the left edge where some assistants put every marker (``{{ ... }}``), stands for the block's rest then."""
    end = following - 1 if following is not None else len(doc_keys)
    j = done  # 0-based: the file line after ``done``
    while j < end and not doc_keys[j].strip():
        j += 1
    if j >= end or _indent(doc_keys[j]) <= indent:
        return done
    while j < end and (not doc_keys[j].strip() or _indent(doc_keys[j]) > indent):
        j += 1
    if j >= end:
        return done  # the block runs on to the next placed line: the marker is inside it after all
    if _CLOSING.match(doc_keys[j]) and doc_keys[j].strip() and \
            not (_CLOSING.match(new_end) and _indent(new_end) == _indent(doc_keys[j])):
        return done  # (an inner ``}`` at the end of the new lines closes an ``if``, not the block)
    while j > done and not doc_keys[j - 1].strip():
        j -= 1  # the blank lines before what follows the block stay with it
    return j


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
    if doc.count(new[-1]) > 1 and not _CLOSING.match(new[-1]):
        return False  # (a statement the file has several times, ``RETURNING id, email;``, places no end)
    last = len(doc) - 1 - doc[::-1].index(new[-1]) if new[-1] in doc else len(doc) - 1
    return sum(k not in shown for k in doc[last + 1:]) >= UNSEEN_AROUND_WHOLE


def _covers(placed: list[int], doc_keys: list[str], head_is_new: bool = False) -> bool:
    """Whether an update without markers is the whole file: it repeats (or rewrites) most of the file's non-blank
    lines and reaches both its ends (or starts with new lines where the file has a line or two before what it
    repeats: ``import sys`` for ``import os``, another import, not that one rewritten).  Otherwise it is read as
    a snippet, which keeps the lines it does not reach: where the two readings differ, the one that deletes
    nothing the update did not show."""
    content = [j + 1 for j, key in enumerate(doc_keys) if key.strip()]
    if not content or not placed or len(placed) < WHOLE_FILE_SHARE * len(content):
        return False
    starts = min(placed) == content[0] or head_is_new and sum(n < min(placed) for n in content) <= 2
    return starts and max(placed) == content[-1]


def _without_far_repeats(chain: list[tuple[int, int]], keys: list[str], markers: list[bool],
                         doc_keys: list[str]) -> list[tuple[int, int]]:
    """The chain less the lines it places past a stretch's last line the file has once, where placing them
    deletes a distinctive line of the file the update does not show, another entry of a list than a new line
    between them: a new ``<dependency>`` after the shown one repeats the ``<dependency>``, ``<groupId>`` and
    ``</dependency>`` lines of those below it, and placed there it deleted them (``<artifactId>h2</artifactId>``
    with them).  The closing lines right after that line stay placed; the rest is new code."""
    counts, shown = Counter(doc_keys), set(keys)
    new = [key for key in keys if key not in counts and key.strip()]
    out, n = [], 0
    while n < len(chain):
        end = n  # the stretch: pairs up to the next marker
        while end + 1 < len(chain) and not any(markers[chain[end][0] + 1: chain[end + 1][0]]):
            end += 1
        stretch = chain[n: end + 1]
        unique = [i for i, (k, _) in enumerate(stretch) if counts[keys[k]] == 1 and _weight(keys[k]) >= DISTINCTIVE]
        cut = len(stretch)
        if unique:
            tail = stretch[unique[-1]:]
            deletes = any(counts[doc_keys[j]] == 1 and _weight(doc_keys[j]) >= DISTINCTIVE and doc_keys[j] not in shown
                          and any(_other_entries(key, doc_keys[j]) for key in new)
                          for (_, j0), (_, j1) in zip(tail, tail[1:]) for j in range(j0 + 1, j1))
            if deletes:  # (another entry of the list in place of one the update shows: an addition, not that)
                cut = unique[-1] + 1
                while cut < len(stretch) and stretch[cut][1] == stretch[cut - 1][1] + 1 and \
                        stretch[cut][0] == stretch[cut - 1][0] + 1 and _CLOSING.match(keys[stretch[cut][0]]):
                    cut += 1
        out += stretch[:cut]
        n = end + 1
    return out


def _closing_lines_pinned(chain: list[tuple[int, int]], keys: list[str], markers: list[bool],
                          doc_keys: list[str]) -> tuple[list[tuple[int, int]], set[int]]:
    """The chain with each stretch of closing lines alone after a marker (``  end`` below ``# ... existing
    code ...``) or after new lines (the ``  end`` below new tests) placed on the closing line of the file block
    its opener opens, where the update shows that opener placed (``describe "POST /todos" do``): an ``end`` fits
    every block's end, the opener's says which.
    Returns the chain and the update lines so pinned."""
    placed, pinned = dict(chain), set()
    out = list(chain)
    for n, (k, j) in enumerate(chain):
        since = next((m for m in range(k - 1, -1, -1) if markers[m] or keys[m].strip() and not _CLOSING.match(keys[m])),
                     None)
        if since is None or not _CLOSING.match(keys[k]):
            continue
        previous = chain[n - 1][0] if n else -1
        if not markers[since] and not any(keys[m].strip() and not markers[m] for m in range(previous + 1, k)):
            continue  # (after a marker, or after new lines: an ``end`` below new tests closes their group)
        depth = _indent_of(keys[k])
        opener = next((o for o in range(k - 1, -1, -1) if keys[o].strip() and not markers[o]
                       and _indent_of(keys[o]) <= depth), None)
        if opener is None or _indent_of(keys[opener]) != depth or _CLOSING.match(keys[opener]) or opener not in placed:
            continue
        end = placed[opener] + 1
        while end < len(doc_keys) and (not doc_keys[end].strip() or _indent_of(doc_keys[end]) > depth):
            end += 1
        low = out[n - 1][1] if n else -1
        high = chain[n + 1][1] if n + 1 < len(chain) else len(doc_keys)
        if end < len(doc_keys) and doc_keys[end] == keys[k] and low < end < high:
            out[n] = (k, end)
            pinned.add(k)
    return out, pinned


def _refuse_if_ambiguous(chain: list[tuple[int, int]], markers: list[bool], doc_keys: list[str],
                         pinned: set[int] = frozenset(), fresh: set[int] = frozenset()) -> None:
    """UpdateError when a stretch of the update (its placed lines between two markers), as a block, fits just
    as well elsewhere between its neighbours: a snippet of ``return True`` and one new line could go after
    any ``return True``.  Stretches of ``pinned`` lines only (``_closing_lines_pinned``) are placed, and so are
    those of a new definition's lines only (``fresh``): they are no context (``? TypedResults.Ok(todo)`` in a
    new handler between markers): they are dropped from ``chain`` itself, in place (also where a later stretch
    then refuses: the reading tried after a refusal sees the chain without them)."""
    counts = Counter(doc_keys)
    marker_at = [k for k, marker in enumerate(markers) if marker]
    segments: list[list[tuple[int, int]]] = []
    for pair in chain:
        if segments and not any(segments[-1][-1][0] < m < pair[0] for m in marker_at):
            segments[-1].append(pair)
        else:
            segments.append([pair])
    for n, segment in enumerate(segments):
        if all(k in pinned for k, _ in segment):
            continue
        if all(k in fresh for k, _ in segment) and len(segments) > 1:
            chain[:] = [pair for pair in chain if pair not in segment]
            continue
        block = [(j - segment[0][1], doc_keys[j]) for _, j in segment]
        if any(_weight(key) >= 12 and counts[key] == 1 for _, key in block):
            continue  # a distinctive line found once in the file pins it
        low = segments[n - 1][-1][1] + 1 if n else 0
        high = segments[n + 1][0][1] if n + 1 < len(segments) else len(doc_keys)
        span = block[-1][0] + 1
        others = [start + 1 for start in range(low, high - span + 1)
                  if start != segment[0][1] and all(doc_keys[start + off] == key for off, key in block)]
        if others:
            where = ", ".join(str(line) for line in sorted([segment[0][1] + 1] + others)[:4])
            raise UpdateError(f"the update fits the file in more than one place (at lines {where}): add a "
                              f"distinctive line of context around the change")


def _terminator(doc_lines: list[str]) -> str:
    """The file's usual line terminator: new lines are written with it."""
    crlf = sum(line.endswith("\r\n") for line in doc_lines)
    lf = sum(line.endswith("\n") and not line.endswith("\r\n") for line in doc_lines)
    return "\r\n" if crlf > lf else "\n"


def keys_of(lines: list[str]) -> list[str]:
    return [_key(line) for line in lines]


def merge_update(document: str, update: str, language: str | None = None, *, force: bool = False,
                 after: str | None = None, before: str | None = None, whole: bool = False,
                 into: str | None = None) -> Merge:
    # New imports (after a marker for the file's own, or none), then the rest: the imports go where they sort
    # among the file's, then the rest is merged (a handler pasted for a class the prose names; a class shown
    # below "// ... existing imports" and two new ones, which lines put after the file's imports).
    parts = _imports_then_code(split_lines(update), split_lines(document), language)
    if parts is not None:
        try:
            imports = _merge_update(document, parts[0], language, force=force)
            code = _merge_update(imports.merged, parts[1], language, force=force, after=after, before=before,
                                 into=into)
            if not imports.unseen and not code.unseen:
                return Merge(code.merged, 1, max(1, len(split_lines(document))), code.merged, None,
                             document=document)
        except UpdateError:
            pass
    return _merge_update(document, update, language, force=force, after=after, before=before, whole=whole,
                         into=into)


# A line comment in each grammar, for a marker its parser must read as one
_COMMENT_OF = {"python": "#", "ruby": "#", "bash": "#", "javascript": "//", "typescript": "//", "tsx": "//",
               "go": "//", "rust": "//", "java": "//", "c": "//", "cpp": "//", "csharp": "//", "kotlin": "//",
               "php": "//", "swift": "//", "scala": "//", "elixir": "#"}
_CPP_HEADER = re.compile(r"^\s*(?:class\s+\w+\s*[:{]|namespace\s+\w+\s*\{|template\s*<|(?:public|private|protected):)",
                         re.MULTILINE)
_HEAD = re.compile(r"^\s*((?:->|\.)?[\w$]+(?:(?:->|\.)[\w$]+)*\s*[(=:])")  # a line's call, or the key it sets
_IMPORT_LINE = re.compile(r"^\s*(?:import|using|use|from\s+\S+\s+import|#\s*include|require)\b")


def _imports_then_code(update_lines: list[str], doc_lines: list[str], language: str | None) -> tuple[str, str] | None:
    """An update that is markers, new import lines (none of them the file's), perhaps a marker, then the rest:
    (the imports, the rest), or None.  Only where the file's syntax places imports (``blocks._new_imports``)."""
    grammar = language_of(language) if language is not None else None
    if grammar is None or grammar in ("markdown", "bash"):
        return None
    k = 0
    while k < len(update_lines) and (not update_lines[k].strip() or is_marker(update_lines[k])):
        k += 1
    first = k
    while k < len(update_lines) and (not update_lines[k].strip() or _IMPORT_LINE.match(update_lines[k])):
        k += 1
    imports = [line for line in update_lines[first:k] if line.strip()]
    in_file = {line.strip() for line in doc_lines}
    if not imports or any(line.strip() in in_file for line in imports) or \
            not any(_IMPORT_LINE.match(line) for line in doc_lines):
        return None
    rest = update_lines[k + 1:] if k < len(update_lines) and is_marker(update_lines[k]) else update_lines[k:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    return ("".join(imports), "".join(rest)) if rest else None


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
    if grammar == "c" and _CPP_HEADER.search(document):
        grammar = "cpp"  # a ``.h`` header holding C++ (a class, a namespace)
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    if grammar == "php" and len(shown) > 1 and update_lines[shown[0]].strip() == "<?php" and \
            update_lines[shown[1]][:1] in (" ", "\t"):  # ``<?php`` above a method pasted alone: the model's habit
        update_lines = update_lines[shown[1]:]  # of opening every PHP block, not the file's first line
        update = "".join(update_lines)
    if (language or "").lower().endswith((".json", "json")):
        update_lines = json_fragment(doc_lines, update_lines)
        update = "".join(update_lines)
    if (language or "").lower().endswith((".yml", ".yaml", "yaml")):
        placed = merge_yaml_keys(doc_lines, update_lines)
        if placed is not None:
            merged = "".join(placed)
            return Merge(merged, 1, max(1, len(doc_lines)), merged, None, document=document)
    closed = _closing_what_it_opened(doc_lines, update_lines) if grammar != "python" else []
    if closed:
        update_lines = update_lines + closed
        update = "".join(update_lines)
    if whole and not any(is_marker(line) for line in update_lines) and \
            3 * len(update_lines) >= len(doc_lines) and not _starts_or_ends_inside(doc_lines, update_lines):
        pieces = [Piece(line, None, k + 1) for k, line in enumerate(update_lines)]
        return _checked(_finish(document, update, pieces, frozenset(range(1, len(doc_lines) + 1)), None, True),
                        grammar, force)
    shown = [line for line in update_lines if line.strip()]
    last = next((line for line in reversed(doc_lines) if line.strip()), "")
    if after == "" and len(shown) > 1 and _CLOSING.match(shown[-1]) and shown[-1].rstrip() == last.rstrip() and \
            _indent_of(shown[0]) > _indent_of(last):
        after = None  # ("at the end of the module": members, then the module's ``end``, which places them)
    if after == "" and shown and _indent_of(shown[0]) and all(_indent_of(line) >= _indent_of(shown[0]) for line in shown):
        placed = _new_members(doc_lines, update_lines, grammar, into) or \
            _at_the_end_inside(doc_lines, update_lines)  # ("add these at the end of `ArticleTest`", members: the
        if placed is not None:  # end of their class, not of the file)
            return _checked(placed, grammar, force)
    placed = _before_the_closing_line(doc_lines, update_lines) if before is None and after in (None, "") else None
    if placed is not None:
        return _checked(placed, grammar, force)
    lead = next((k for k, line in enumerate(update_lines) if line.strip()), 0)
    rest = update_lines[lead + 1:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    if after is None and before is None and is_marker(update_lines[lead]) and _indent_of(update_lines[lead]) and \
            rest and _new_code_only(doc_lines, rest) and _indent_of(rest[0]):
        placed = _new_members(doc_lines, rest, grammar, into)  # ("  // ... the other tests ..." above new
        if placed is not None:  # members, nothing of the file around them: the end of their class)
            return _checked(placed, grammar, force)
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
    elif blockwise is None:
        try:
            candidates = [(0, _line_merge(document, update, place=place))]  # UpdateError: nothing places it
        except UpdateError:
            placed = _at_named_block(doc_lines, update_lines, place) if place is not None else \
                _new_members(doc_lines, update_lines, grammar, into)
            if placed is None and grammar is None and place is None and _unrelated_new_code(doc_lines, update_lines):
                placed = _appended(document, update)  # (new CSS rules, a new query: where a reader adds them)
            if placed is None:
                raise
            candidates = [(0, placed)]
    else:
        candidates = [(0 if not (blockwise.partly_by_lines or blockwise.place_unused) else 1,
                       _finish(document, update, blockwise.pieces, blockwise.seen, None, blockwise.whole))]
        try:
            candidates.append((0 if blockwise.partly_by_lines or blockwise.place_unused else 1,
                               _line_merge(document, update, place=place)))
        except UpdateError:
            pass
    # New methods, then their class's closing line (the file's last): the methods at the end of that class, the
    # line not written again, where the other readings break the file (a test whose title grew is a rewrite, and a
    # method the file has, shown among new ones, is placed by them).
    if after is None and before is None and len(shown) > 2 and _CLOSING.match(shown[-1]) and \
            shown[-1].rstrip() == last.rstrip() and _indent_of(shown[0]) > _indent_of(last) and \
            _new_code_only(doc_lines, update_lines) and \
            all(_breaks(document, merge.merged, grammar) for _, merge in candidates):
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
    dead_before = _dead_code(document)  # (the file's own, counted once for every candidate)

    def score(candidate):
        rank, merge = candidate
        if id(merge) not in scores:
            scores[id(merge)] = (_breaks(document, merge.merged, grammar), merge.unseen_lines, merge.repeats_moved,
                                 _dead_code(merge.merged) > dead_before)
        return scores[id(merge)]

    def best_of(candidates):
        least = min(score(candidate) for candidate in candidates)
        tied = [candidate for candidate in candidates if score(candidate) == least]
        if len(tied) == 1:
            return tied[0]
        return min(tied, key=lambda c: (_out_of_order(update_lines, split_lines(c[1].merged)), c[0]))

    best = best_of(candidates)
    if score(best) != (False, 0, 0, False):
        try:
            best = best_of([best, (2, _line_merge(document, update, context=True, place=place))])
        except UpdateError:
            pass
    merge = best[1]
    if (language or "").lower().endswith((".json", "json")):
        merged = json_commas(merge.document, merge.merged)
        if merged is not None:
            merge = replace(merge, merged=merged, text=merged, first=1, last=max(1, len(split_lines(merge.document))))
    return _checked(merge, grammar, force)


_TYPE_OPENER = re.compile(r"\b(?:class|interface|struct|enum|trait|impl|object|namespace|record)\b")
_QUOTED = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`|//.*|/\*.*?\*/|#.*')


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
            for char in _QUOTED.sub("", line):
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
    if not openers or not _TYPE_OPENER.search(_QUOTED.sub("", openers[0])):
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


def _braces(text: str) -> int:
    """How many more braces a text opens than it closes, strings and comments aside."""
    code = _QUOTED.sub("", text)
    return code.count("{") - code.count("}")


def _unclosed(line: str) -> str:
    """The brackets a line opens and leaves open, in order (``{`` for ``function f() {``, ``({`` for
    ``step("x", async () => {``)."""
    stack: list[str] = []
    for char in _QUOTED.sub("", line):
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
    return Merge(merged, 1, max(1, len(split_lines(document))), merged, None, document=document)


def merge_patch(document: str, patch: str) -> Merge:
    """A unified diff applied to the file (``program.patch``), as a Merge; UpdateError when it does not apply."""
    try:
        merged = apply_patch(document, patch)
    except PatchError as exc:
        raise UpdateError(str(exc)) from None
    return Merge(merged, 1, max(1, len(split_lines(document))), merged, None, document=document)


def _ends_line(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def _breaks(document: str, merged: str, grammar: str | None) -> bool:
    """Whether the merge has syntax errors where the file had none."""
    return bool(grammar) and breaks(document, merged, grammar)


def _checked(merge: Merge, grammar: str | None, force: bool) -> Merge:
    if not force and _breaks(merge.document, merge.merged, grammar):
        raise UpdateError(f"the merged file would not parse as {grammar} where the file does (the update is "
                          f"not valid {grammar} in its place): check the update, or apply it with force")
    return merge


def _at_named_block(doc_lines: list[str], update_lines: list[str], place: tuple[str, str]) -> Merge | None:
    """New code with no line of the file in it, put after (or before) the block the answer names, when one of
    the file's lines opens a block of that name (a call titled by it: "right after the `--color` argument" for
    ``parser.add_argument(`` then ``"--color",``); None otherwise."""
    side, name = place
    keys = [_key(line) for line in doc_lines]
    found = [j for j in range(len(keys)) if (defined := _definition_name(keys, j)) and names(defined, name)]
    if not found or any(is_marker(line) for line in update_lines):
        return None
    at = _block_end(keys, found[-1]) if side == "after" else found[0]  # (clauses, overloads: all of them)
    newline = _terminator(doc_lines)
    new = [Piece(line if line.endswith(("\n", "\r")) else line + newline, None, k + 1)
           for k, line in enumerate(update_lines)]
    while new and not new[-1].text.strip():
        new.pop()
    head = _key(new[0].text).rstrip() if new else ""  # (a test, a route: set apart as definitions are; a new one
    definition = _declares(keys[found[-1]]) or _TITLED_CALL.match(keys[found[-1]]) or \
        _TITLED_CALL.match(head) and head.endswith(("{", " do", ":"))  # that opens a block says so itself)
    if definition and at > 0 and keys[at - 1].strip() and new[0].text.strip():
        new.insert(0, Piece(newline, None, None))  # set apart, as definitions are (statements are not)
    if definition and at < len(keys) and keys[at].strip() and not _CLOSING.match(keys[at]):
        new.append(Piece(newline, None, None))
    return _inserted(doc_lines, update_lines, at, new)


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
            not _CLOSES_FILE.match(doc_lines[rows[-1]]) or _indent_of(update_lines[shown[0]]):
        return None
    if _braces("".join(update_lines)) != -1:
        return None  # (the last line closes a block the update opens: a new resource's ``}``)
    depth, opener = 0, None  # the file's line that opens the block its last line closes
    for j in range(rows[-1], -1, -1):
        depth -= _braces(doc_lines[j])
        if depth == 0:
            opener = j
            break
    if opener is None or not any(line.strip() and not _indent_of(line) for line in doc_lines[opener + 1: rows[-1]]):
        return None  # (only a block whose inside the file writes at the left edge: a C++ namespace's, not a module's)
    ours = {line.strip() for line in doc_lines}  # (no definition of the file's: its heads at the left edge)
    if any(is_marker(update_lines[k]) or not _indent_of(update_lines[k]) and update_lines[k].strip() in ours and
           not _CLOSING.match(update_lines[k]) for k in shown[:-1]):
        return None
    at = rows[-2] + 1 if len(rows) > 1 else 0  # after the last line above the closing one
    gap = [Piece(line, None, None) for line in doc_lines[at: rows[-1]]]
    new = [Piece(line, None, k + 1) for k, line in enumerate(update_lines[shown[0]: shown[-2] + 1], shown[0])]
    return _inserted(doc_lines, update_lines, at, gap + new)


def _at_the_end_inside(doc_lines: list[str], update_lines: list[str]) -> Merge | None:
    """New indented code said to go at the end ("add a context at the end of the describe block") in a file that
    ends by closing, at the left edge, the block that holds code at that depth (a spec's ``end``, a class's
    ``}``): before that closing line, set apart as the file sets its lines apart there; None otherwise."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    rows = [r for r, line in enumerate(doc_lines) if line.strip()]
    if not shown or len(rows) < 2 or not _new_code_only(doc_lines, update_lines) or \
            not _CLOSES_FILE.match(doc_lines[rows[-1]]) or \
            _indent_of(doc_lines[rows[-2]]) < _indent_of(update_lines[shown[0]]) or \
            not any(_indent_of(line) == _indent_of(update_lines[shown[0]]) for line in doc_lines if line.strip()):
        return None
    at = rows[-2] + 1
    apart = any(not line.strip() for line in doc_lines[rows[0]: rows[-1]])
    new = [Piece(line, None, k + 1) for k, line in enumerate(update_lines[shown[0]: shown[-1] + 1], shown[0])]
    return _inserted(doc_lines, update_lines, at, [Piece(_terminator(doc_lines), None, None)] * apart + new)


def _new_members(doc_lines: list[str], update_lines: list[str], grammar: str | None,
                 into: str | None = None) -> Merge | None:
    """A method or a route shown with nothing around them, where ``program.new_code`` finds them one place (the
    end of the file's one class, or of the class ``into`` names; after the file's last route); None otherwise."""
    found = new_members_place(doc_lines, update_lines, grammar, _terminator(doc_lines), into)
    if found is None:
        return None
    at, new = found
    return _inserted(doc_lines, update_lines, at, [Piece(line, None, None) for line in new])


def _new_code_only(doc_lines: list[str], update_lines: list[str]) -> bool:
    """Whether an update is new code alone: no marker, and its first line is none of the file's (not context)."""
    first = next((line.strip() for line in update_lines if line.strip()), "")
    return not any(is_marker(line) for line in update_lines) and first not in {line.strip() for line in doc_lines}


def _unrelated_new_code(doc_lines: list[str], update_lines: list[str]) -> bool:
    """Whether an update is new blocks with nothing of the file in it, for a file of blocks: no marker, no line
    of it the file has but blank and closing ones (``}``), it ends closing a block or a statement (a CSS rule, a
    query's ``;``), and the file sets its blocks apart with blank lines.  For a file no grammar reads, such new
    code's place is the file's end (a line for a flat list, ``requirements.txt``, says nothing of where)."""
    last = next((line for line in reversed(update_lines) if line.strip()), "")
    if any(is_marker(line) for line in update_lines) or not any(not line.strip() for line in doc_lines) or \
            not (_CLOSING.match(last) or last.rstrip().endswith(";")):
        return False
    ours = {line.strip() for line in doc_lines}
    return not any(line.strip() in ours and not _CLOSING.match(line) for line in update_lines if line.strip())


def _after_leading_marker(update_lines: list[str], doc_lines: list[str]) -> list[str] | None:
    """An update that is a marker for the whole file and then new code ("a new query at the end of the file":
    ``-- ... existing queries ...`` first): the code after it; None for any other update, and for one whose
    code, indented, ends with the file's closing line less indented (a test module's ``end``: the code goes
    inside the module, before it)."""
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    if not shown or not is_marker(update_lines[shown[0]]) or any(is_marker(update_lines[k]) for k in shown[1:]):
        return None
    last = next((line for line in reversed(doc_lines) if line.strip()), "")
    if len(shown) > 2 and _CLOSING.match(last) and update_lines[shown[-1]].rstrip() == last.rstrip() and \
            _indent_of(update_lines[shown[1]]) > _indent_of(last):
        return None
    rest = update_lines[shown[0] + 1:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    return rest or None


def _gap_before_last_block(doc_lines: list[str]) -> int:
    """The blank lines the file sets before its last top-level block (two in PEP 8's Python), at least one."""
    for j in range(len(doc_lines) - 1, 0, -1):
        if doc_lines[j].strip() and not doc_lines[j][:1].isspace() and not doc_lines[j - 1].strip():
            gap = 0
            while j - 1 - gap >= 0 and not doc_lines[j - 1 - gap].strip():
                gap += 1
            return max(1, min(gap, 2))
    return 1


def _appended(document: str, update: str) -> Merge:
    """The update after the file's last line, set off as the file sets off its last block (a blank line, two
    in PEP 8's Python) unless either has a blank line there."""
    doc_lines = split_lines(document)
    newline = _terminator(doc_lines)
    pieces = [Piece(line, n, None) for n, line in enumerate(doc_lines, 1)]
    if not doc_lines[-1].endswith(("\n", "\r")):
        pieces[-1] = Piece(doc_lines[-1] + newline, len(doc_lines), None)
    if doc_lines[-1].strip() and split_lines(update)[0].strip():
        pieces += [Piece(newline, None, None)] * _gap_before_last_block(doc_lines)
    pieces += [Piece(line, None, k) for k, line in enumerate(split_lines(update), 1)]
    return _finish(document, update, pieces, frozenset(), None, False)


def _line_merge(document: str, update: str, context: bool = False, place: tuple[str, str] | None = None) -> Merge:
    """The update placed line by line (``align_update``)."""
    placement = align_update(document, update, context=context, place=place)
    return _finish(document, update, _line_pieces(placement), _seen_by_lines(placement), placement,
                   placement.whole_file)


def _lines_of_block(document_lines: list[str], update_lines: list[str]) -> tuple[list[Piece], frozenset[int]] | None:
    """A block's lines merged line by line (its update has a fragment the parser cannot read), for the placement
    by syntax: the pieces and the lines removed in sight, or None when lines place it nowhere."""
    try:
        placement = align_update("".join(document_lines), "".join(update_lines))
    except UpdateError:
        return None
    return _line_pieces(placement), _seen_by_lines(placement)


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
    removed = [n for n, line in enumerate(doc_lines, 1) if n not in kept and line.strip() and n not in seen]
    return Merge(merged, first, last, text, placement, _runs(removed, doc_lines), document, whole_file,
                 _repeats_moved(doc_lines, split_lines(update), pieces, kept,
                                None if placement is None else placement.fresh))


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


_NOT_DEAD = re.compile(r"^\s*(?:else|elif|except|catch|finally|case|default|when|rescue|ensure|end|[)\]}])\b|"
                       r"^\s*[)\]}]")  # what may follow a ``return`` at its depth: another branch, a block's end


def _dead_code(text: str) -> int:
    """Statements written after a ``return`` (``raise``, ``throw``) at its depth in the same block: a merge that
    kept an old ending after the new one (or the new after the old) writes some; a file seldom has any."""
    lines = [line for line in text.splitlines() if line.strip()]
    dead = 0
    for i, line in enumerate(lines):
        if not _LEAVES.match(line):
            continue
        depth = _indent_of(line)
        nxt = next((other for other in lines[i + 1:] if _indent_of(other) <= depth), None)
        if nxt is not None and _indent_of(nxt) == depth and not _NOT_DEAD.match(nxt) and depth > 0:
            dead += 1
    return dead


def _out_of_order(update_lines: list[str], merged_lines: list[str]) -> int:
    """How many of the update's shown lines (not blank, not markers) the merged file does not have in the
    update's order (indentation aside): a reading that dropped a shown line (a closing brace) or wrote shown
    lines in another order than the update's."""
    shown = [line.strip() for line in update_lines if line.strip() and not is_marker(line)]
    merged = [line.strip() for line in merged_lines]
    matcher = difflib.SequenceMatcher(None, shown, merged, autojunk=False)
    return len(shown) - sum(block.size for block in matcher.get_matching_blocks())


def _repeats_moved(doc_lines: list[str], update_lines: list[str], pieces: list[Piece], kept: set[int],
                   fresh: frozenset[int] | None) -> int:
    """Context the reading took for new code: distinctive lines the file has once that the merge writes again
    as new text, the file's own removed (moved), or kept beside it where the update shows the line next to a
    marker (doubled: a marker's neighbours are context; elsewhere new code may repeat a line, as a lookalike
    function does); a line shown next to a marker, or first or last in the update, that the merge writes anew
    within a line or two of a copy the file keeps (``deactivate`` after a rewritten command, a template's last
    ``</div>``: the file has it several times, so it placed nothing; a table's row the update starts with, which
    a reading by sections wrote as new: and the file's stayed beside it); and, in a
    line placement (``fresh``: its update lines of new definitions), ``_stale_twins``."""
    keys = [_key(line) for line in update_lines]
    edges = {keys[i] for m, key in enumerate(keys) if is_marker(key)
             for i in (next_shown(keys, m, -1), next_shown(keys, m, 1)) if i is not None}
    ends = {keys[i] for i in (next_shown(keys, -1, 1), next_shown(keys, len(keys), -1)) if i is not None}
    doc_keys = [_key(line) for line in doc_lines]
    counts = Counter(doc_keys)
    shown = [(_key(piece.text), piece) for piece in pieces if piece.text.strip()]
    doubled = sum(1 for n, (key, piece) in enumerate(shown)
                  if piece.file_line is None and key in edges | ends and _weight(key) >= ANCHOR_WEIGHT
                  and not _CLOSING.match(key) and (counts[key] != 1 or _weight(key) < DISTINCTIVE or key in ends)
                  and any(other == key and near.file_line is not None for other, near in shown[max(0, n - 2): n + 3]))
    # (``@property`` is the new definition's below it, ``router.post(`` opens a new route like the file's: shown
    # after a marker, they are not the file's lines taken for context)
    new = {key for key, piece in shown if piece.file_line is None and _weight(key) >= DISTINCTIVE
           and counts[key] == 1 and not _DECORATOR.match(key) and not key.rstrip().endswith(("(", "[", "{"))}
    moved_lines = [n for n, key in enumerate(doc_keys, 1) if key in new and (n not in kept or key in edges)]
    if moved_lines:  # (the definitions are read only where a line moved)
        ours, theirs = _definitions(keys), _definitions(doc_keys)  # (read once for both tests)
        between = _moved_between_shown(keys, doc_keys, ours, theirs)
        own = _in_new_definitions(keys, ours, theirs)
        moved_lines = [n for n in moved_lines if not between(n - 1) and not (n in kept and doc_keys[n - 1] in own)]
    moved = len(moved_lines)
    return doubled + moved + (_stale_twins(shown, counts, edges, fresh) if fresh is not None else 0)


def _in_new_definitions(keys: list[str], defined: dict[int, str], theirs_defined: dict[int, str]) -> set[str]:
    """The lines beside a marker less indented than they are (one outside their definition) that the update
    writes inside a definition the file does not have (a new test's last line, ``assert response.status_code ==
    422``, above ``# ... remaining tests unchanged ...``): the new definition's own, not the file's taken for
    context, though the file has the same line in another one.  ``defined``: the update's definitions,
    ``theirs_defined`` the file's."""
    theirs = set(theirs_defined.values())
    out = set()
    for m, key in enumerate(keys):
        if not is_marker(key):
            continue
        for k in (next_shown(keys, m, -1), next_shown(keys, m, 1)):
            if k is not None and not is_marker(keys[k]) and _indent_of(keys[k]) > _indent_of(key) and \
                    (names := _enclosing_callables(keys, k, defined)) and names[0] not in theirs:
                out.add(keys[k])
    return out


def _moved_between_shown(keys: list[str], doc_keys: list[str], ours_defined: dict[int, str],
                         theirs_defined: dict[int, str]):
    """A test of file line j: whether the update moves that line itself: the file's definition holding it is one
    the update shows (rewritten), and the update writes the line in another definition (``delete`` made a soft
    delete and its ``DELETE FROM orders`` line moved into a new ``purge``), not as context for new code.
    ``ours_defined`` and ``theirs_defined``: the update's and the file's definitions."""
    shown = {name for k in range(len(keys)) if _declares(keys[k]) and (name := _definition_name(keys, k))}

    def moved(j: int) -> bool:
        if doc_keys[j] not in keys:
            return False
        ours = _enclosing_callables(keys, keys.index(doc_keys[j]), ours_defined)
        theirs = _enclosing_callables(doc_keys, j, theirs_defined)
        return bool(ours and theirs) and ours[0] != theirs[0] and theirs[0] in shown

    return moved


def _stale_twins(shown: list[tuple[str, Piece]], counts: Counter, edges: set[str], fresh: frozenset[int]) -> int:
    """New lines written a few lines from a file line that a marker keeps and that they repeat or rewrite, with
    no line shown between them that the file has once (lines such as ``return None`` or ``continue`` place
    nothing surely): the marker kept what the update shows again (a line shown after a loop's marker; an ``if``
    rewritten below a ``return None`` that the file has several times), so the old stays beside the new.  A new
    definition's lines do not count: a new method may repeat the one it is put after."""
    def kept_twin(n: int, key: str) -> bool:
        for step in (-1, 1):
            for m in range(n + step, n + step * (TWIN_REACH + 1), step):
                if not 0 <= m < len(shown):
                    break
                other, near = shown[m]
                if near.file_line is not None and near.update_line is not None and counts[other] == 1:
                    break  # a line shown that places the update surely
                if near.file_line is not None and near.update_line is None and \
                        (other == key and counts[key] == 1 or other != key and _weight(other) >= DISTINCTIVE
                         and _resembles(key, other, TWIN_LIKENESS)):
                    return True
        return False

    return sum(1 for n, (key, piece) in enumerate(shown)
               if piece.file_line is None and piece.update_line - 1 not in fresh and _weight(key) >= DISTINCTIVE
               and key not in edges
               and not _DECORATOR.match(key) and not key.rstrip().endswith(("(", "[", "{")) and kept_twin(n, key))


def _runs(numbers: list[int], doc_lines: list[str]) -> tuple[tuple[int, int], ...]:
    """Line numbers as (first, last) runs; blank lines between two of them join the run."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and all(not doc_lines[m - 1].strip() for m in range(runs[-1][1] + 1, n)):
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return tuple((a, b) for a, b in runs)
