"""Code read line by line, without a parser: a line's key and weight, its indentation, the lines that close a
block, the definitions a line opens and their names, and where a block ends.  Any language: the patterns
hold the forms chat models' languages write, and where a parser reads the file ``program.blocks`` does better."""

from __future__ import annotations

import re

from ..markers import is_marker
from .placement import NEW


ANCHOR_WEIGHT = 3  # characters a line needs to be placed in the first pass (braces and blanks fill in later)
DISTINCTIVE = 8  # characters of the longest placed line at least: an update sharing only ``pass`` is not placed
SIGNATURE_LINES = 12  # a head is found (and rewritten) over up to this many lines (one parameter a line) above its body

TOKEN = re.compile(r"\w+|[^\w\s]")
LEAVES = re.compile(r"^\s*(?:return|raise|throw)\b")  # a statement that leaves its block: nothing after it runs
# Python, Ruby, Elixir
_DEFINES = re.compile(r"^\s*(?:async\s+)?(?:static\s+)?(?:(?:def|defp|defmacrop?|class|module)\s+(?:self\.)?|"
                      r"(?:proc|iterator|converter)\s+(?=\w+\*?\s*[(\[])|"  # (Nim's ``proc isHidden*(path: string):``)
                      r"(?<!\s)let\s+(?:rec\s+)?(?=[a-z_][\w']*\b[^=;]*=\s*$)|"  # (OCaml's ``let run x =``, unindented)
                      r"func\s+(?=\w+\s*\()|"  # (GDScript's ``func _die() -> void:``, Go's and Swift's ``func f(``)
                      r"(?:local\s+)?function\s+(?:[\w.]+[.:])?)(?P<name>\w+[?!=]?)")  # (Lua's ``function M.daily()``)
# A signature: words (modifiers, a return type) then the name and its parameters (``public async Task<Order>
# Cancel(``, ``fn parse<'a>(``, ``describe(``), nothing before the name that makes it a call (``app.get(``, ``x = f(``).
SIGNATURE = re.compile(r"^\s*(?:[\w<>\[\]?,*&:'.]+\s+)*?[*&]*(?P<name>[A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\(")
# ``it("adds", () => {``; Ruby's and Elixir's ``describe "ttl" do``, ``get "/notes" do``
TITLED_CALL = re.compile(r"^\s*(?P<name>[A-Za-z_$][\w$.]*)(?:\s*\(\s*|\s+)([\"'`])(?P<title>.*?)\2")
_OPENED_CALL = re.compile(r"^\s*(?P<name>[A-Za-z_$][\w$.]*)\s*\(\s*$")  # ``router.post(`` alone on its line
_TITLE_LINE = re.compile(r"^\s*([\"'`])(?P<title>[^\"'`]*)\1\s*,")  # ``'/:id/password',`` on the line after
# A Lisp's top-level form: Clojure's ``(defn link-stats [ds]``, ``(defn- parse``, Scheme's ``(define (area r)``
LISP_DEFINES = re.compile(r"^\((?:defn-?|defmacro|defmulti|defmethod|deftest|defun|define)\s+\(?(?P<name>[^\s()\[\]{}]+)")
_BACKTICKED = re.compile(r"^\s*(?:\w+\s+)*fun\s+`(?P<name>[^`]+)`\s*\(")  # Kotlin's ``fun `rejects blank titles`()``
_RECEIVER = re.compile(r"^\s*func\s*\([^)]*\)\s*")  # Go's ``func (s *Store)`` before a method's name
_NOT_NAMES = {"if", "for", "while", "switch", "catch", "with", "return", "using", "lock", "foreach", "elif",
              "match", "when", "sizeof", "typeof", "await", "new", "super", "this", "else", "do", "try", "yield",
              "throw", "defer", "go", "unless", "until", "case", "synchronized", "fixed", "checked", "unsafe",
              "finally", "loop", "select", "default", "throws", "where"}
# A type's header (its members are shown without it), not a callable's.
TYPE_HEADER = re.compile(r"^\s*(?:(?:public|private|protected|internal|export|default|abstract|sealed|final|static|"
                          r"data|open|partial|unsafe|pub(?:\([^)]*\))?|companion)\s+)*(?:class|struct|interface|impl|"
                          r"enum|trait|object|namespace|module|extension|protocol|record|union|mod)\b")
_ASSIGNED_BLOCK = re.compile(r"^\s*(?:(?:export|pub|public|private|protected|internal|static|final|const|let|var|val|"
                             r"override|lazy|readonly)\s+)*(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=(?![=>])")
OPENS = re.compile(r"\s+(?:do(?:\s*\|[^|]*\|)?|\{|function\s*\([^()]*\))\s*$")  # what a line ends with to open a
# block: `` do |t|``, `` {``, Lua's `` function(args)``
_ACCESS_LABEL = re.compile(r"^\s*(?:public|private|protected|internal)\s*:\s*$")
ATTACHED_LINE = re.compile(r"^\s*(?:@|\[|#\[|///|/\*\*|\*|//)")  # a decorator, an attribute, a doc comment
# A line that declares (``suspend fun refresh()``, ``public Product reserve(``, ``def f(``), not one that calls.
DECLARES = re.compile(r"^\s*(?:(?:export|public|private|protected|internal|static|async|suspend|override|open|"
                       r"abstract|final|pub|default|synchronized|virtual)\s+)*(?:(?:def|fun|func|function|fn|class|"
                       r"interface|struct|enum|trait|impl|module|record)\b|"
                       r"(?!(?:return|throw|await|yield|new|else|case|if|while|for|switch|catch|typeof)\b)"
                       r"(?=[\w<>\[\],.?]+\s+\w+\s*\())")
# ``@property``, ``@Override``, ``@app.get("/")``; Rust's ``#[derive(Debug)]``, C#'s ``[HttpGet]``
DECORATOR = re.compile(r"^\s*(?:@[\w.]+(?:\(.*\))?|#\[.*\]|\[[A-Z]\w*(?:\(.*\))?\])\s*$")
# A line that only closes blocks, CMake's ``endif()``, ERB's ``<% end %>`` and Jinja's ``{% endif %}`` among them
CLOSING = re.compile(r"^\s*(?:[)\]}>;,]+|end|fi|done|esac|"
                      r"end(?:if|foreach|for|while|function|macro|switch)\s*(?:\(\s*\)|;)?|"
                      r"<%-?\s*(?:end|\})\s*-?%>|\{%-?\s*end\w*\s*-?%\})\s*$")
CLOSING_TAG = re.compile(r"^\s*</([\w.:-]+)>\s*$")  # a markup element's closing tag alone on its line


def line_key(line: str) -> str:
    """A line as compared: without its terminator and trailing blanks (chat models drop trailing spaces)."""
    return line.rstrip("\r\n").rstrip()


def weight(key: str) -> int:
    """What repeating a line is worth: its characters less indentation (a lone brace or blank line is cheap)."""
    return len(key.strip())


def closes_new_block(k: int, keys: list[str], in_file: set[str]) -> bool:
    """Whether update line ``k`` closes a block that opens on a line the file does not have (``end`` of a new
    method): walking back from a placed line, it is not the closing line of the file's block before."""
    tag = CLOSING_TAG.match(keys[k])
    if not (CLOSING.match(keys[k]) or tag) or not keys[k].strip():
        return False
    depth = indent_of(keys[k])
    opener = next((o for o in range(k - 1, -1, -1) if keys[o].strip() and indent_of(keys[o]) <= depth
                   and not _ACCESS_LABEL.match(keys[o])), None)  # (C++'s ``private:`` at the class's depth)
    if opener is not None and keys[opener].strip() == "{":  # a brace on its own line: the header is above it
        opener = next((o for o in range(opener - 1, -1, -1) if keys[o].strip()), opener)
    if tag and (opener is None or not keys[opener].lstrip().startswith("<" + tag[1])):
        return False  # (``</tr>`` closes the ``<tr ...>`` at its depth, nothing else)
    return opener is not None and indent_of(keys[opener]) == depth and not CLOSING.match(keys[opener]) \
        and keys[opener] not in in_file and not is_marker(keys[opener])


def definition_name(keys: list[str], k: int) -> str | None:
    """The name line k defines when it opens a definition's block (``def tally(rows)``, ``public function
    publish(Post $post): RedirectResponse`` with its ``{`` on the next line, ``func (s *Store) Update(id int) {``),
    else None (a call, a statement, a control line)."""
    key = keys[k]
    m = _DEFINES.match(key) or _BACKTICKED.match(key) or LISP_DEFINES.match(key)
    if m:
        return m["name"]
    following = next((keys[i] for i in range(k + 1, len(keys)) if keys[i].strip()), "")
    getter = _GETTER.match(key) or _COMPUTED.match(key)  # Dart's ``bool get isOverdue =>``, Swift's ``var
    if getter:  # favorites: [Recipe] {``
        return getter["name"]
    assigned = R_FUNCTION.match(key)  # R's ``predict_churn <- function(model, data) {``
    if assigned:
        return assigned["name"]
    block = _HCL_BLOCK.match(key)  # ``resource "aws_eks_node_group" "general" {``: by both its labels
    if block:
        return " ".join(part for part in block.groups() if part)
    target = MAKE_TARGET.match(key)
    if target and k + 1 < len(keys) and keys[k + 1].startswith("\t"):  # a Makefile's target, its recipe below
        return target["name"]
    titled = TITLED_CALL.match(key)  # a route or a test, named by its string: ``router.patch("/:id", ... {``
    if titled and (key.rstrip().endswith(("{", "(", "=>")) or OPENS.search(key)):  # (``MapPost("/", async (``)
        return f"{titled['name']} {titled['title']}"
    opened, title = _OPENED_CALL.match(key), _TITLE_LINE.match(following)
    if opened and title:  # its string on the next line: ``router.post(`` then ``'/:id/password',``
        return f"{opened['name']} {title['title']}"
    if key.rstrip().endswith(");") and DECLARES.match(key):  # an interface's or an abstract method, declared
        m = SIGNATURE.match(_RECEIVER.sub("", key))  # (``Task<Product?> FindAsync(int id);``)
        return m["name"] if m and m["name"] not in _NOT_NAMES and key.split()[0] not in _NOT_NAMES else None
    if not (key.rstrip().endswith(("{", "=>")) or following.strip() == "{" and indent_of(following) == indent_of(key)
            or key.rstrip().endswith("(") and _body_below(keys, k)
            or key.rstrip().endswith(")") and _HEAD_GOES_ON.match(following)
            or ") =>" in key and DECLARES.match(key)):
        return None  # (``=>``: an expression-bodied member, ``static string GetVersion() =>``, or one whose
        # expression starts on its line: Dart's ``Response _json(int status, Object body) => Response(``)
    assigned = _ASSIGNED_BLOCK.match(key)  # ``val MIGRATION_3_4 = object : Migration(3, 4) {``
    if assigned and key.rstrip().endswith("{"):
        return assigned["name"]
    head = key.strip()[:-1].strip() if key.rstrip().endswith("{") else ""
    if head and "(" not in head and "=" not in head and head.split()[0] not in _NOT_NAMES and head[0] not in "})]":
        return head  # a block named by its head: ``.todo-list__clear {``, ``struct Cli {``, ``"scripts": {``
    m = SIGNATURE.match(_RECEIVER.sub("", key))
    if m is None or m["name"] in _NOT_NAMES or key.split()[0] in _NOT_NAMES:
        return None
    return m["name"]


_GETTER = re.compile(r"^\s*(?:static\s+)?(?:[\w<>?,]+\s+)?(?:get|set)\s+(?P<name>\w+)\s*(?:=>|\{\s*$)")
_COMPUTED = re.compile(r"^\s*(?:(?:public|private|internal|fileprivate|open|static|class|override|final)\s+)*"
                       r"var\s+(?P<name>\w+)\s*:[^={]+\{\s*$")
_HCL_BLOCK = re.compile(r'^\s*(resource|data|module|variable|output)\s+"([^"]+)"(?:\s+"([^"]+)")?\s*\{\s*$')
R_FUNCTION = re.compile(r"^\s*(?P<name>[A-Za-z.][\w.]*)\s*<-\s*function\b")
MAKE_TARGET = re.compile(r"^(?P<name>[A-Za-z0-9_][\w.-]*)\s*:(?![=:])")  # ``release-major: ## Cut a release``
# The rest of a head on the line below it, ending in its body's ``{``: Java's ``throws IOException {``, a Kotlin
# or Swift return type, Rust's ``where T: Clone {``, C++'s ``const {``
_HEAD_GOES_ON = re.compile(r"^\s*(?:throws\b|where\b|->|:\s*\w|noexcept\b|const\b).*\{\s*$")


def _body_below(keys: list[str], k: int) -> bool:
    """Whether a head left open on line k (``UpdateTodo(`` then one parameter a line) opens its body a few lines
    below: its parameters deeper than it, then, at its depth, a ``{`` alone or a line ending in one (``) {``); not
    a call whose last argument opens a callback (deeper)."""
    depth = indent_of(keys[k])
    for key in keys[k + 1: k + 1 + SIGNATURE_LINES]:
        if key.rstrip().endswith("{") and indent_of(key) == depth:
            return True
        if not key.strip() or indent_of(key) <= depth and not key.lstrip().startswith(")"):
            return False
    return False


def is_renamed(new: str, old: str) -> bool:
    """Whether a definition's name is a file definition's, or that one renamed: made public (``_patched`` to
    ``patched``) or recased (``getUser``, ``get_user``).  A name extended (``format_summary_json`` beside
    ``format_summary``) is another definition: a sibling added is more common than a rename, and a rename that
    shows the old body again is found by its body (``_same_body``)."""
    return new.lower().replace("_", "") == old.lower().replace("_", "")


def definitions_in(keys: list[str]) -> dict[int, str]:
    """The lines that open a definition, and the name each defines (read once per placement)."""
    names = {k: definition_name(keys, k) for k in range(len(keys))}
    return {k: name for k, name in names.items() if name is not None}


def is_accessor(line: str) -> bool:
    """Whether a line opens a property's accessor: Dart's ``bool get isOverdue =>``, Swift's ``var favorites:
    [Recipe] {``; a definition by name, set apart as methods are."""
    return bool(_GETTER.match(line) or _COMPUTED.match(line))


def is_declaration(line: str) -> bool:
    """Whether a line declares a definition (``def``, ``defp``, ``fun``, ``public Order cancel(``), not calls one."""
    return bool(_DEFINES.match(line) or DECLARES.match(line) or R_FUNCTION.match(line) or LISP_DEFINES.match(line))


def attached_start(keys: list[str], k: int) -> int:
    """The first line of what is attached above definition line k: decorators, attributes, doc comments, and a
    doc string closed right above it (Elixir's ``@doc`` heredoc, blank lines and all)."""
    start = k
    while start > 0 and keys[start - 1].strip():
        above = keys[start - 1].strip()
        if above in ('"""', "'''"):
            opening = next((i for i in range(start - 2, -1, -1) if keys[i].rstrip().endswith(above)), None)
            if opening is None or indent_of(keys[opening]) != indent_of(keys[k]):
                break
            start = opening
        elif ATTACHED_LINE.match(keys[start - 1]) and indent_of(keys[start - 1]) == indent_of(keys[k]):
            start -= 1
        else:
            break
    return start


_BRANCH = re.compile(r"^\s*(?:\}\s*)?(?:else|elif|elsif|except|catch|finally|rescue|ensure|when)\b")


def enclosing_callables(doc_keys: list[str], j: int, defined: dict[int, str]) -> list[str]:
    """The names of the functions, methods, routes and tests file line j is in, innermost first (a decorator,
    an attribute or a doc comment is in the definition below it); ``defined``: the file's definitions."""
    out, depth, i = [], indent_of(doc_keys[j]) + bool(_BRANCH.match(doc_keys[j])), j - 1
    below = j
    while below < len(doc_keys) and ATTACHED_LINE.match(doc_keys[below]) and \
            indent_of(doc_keys[below]) in (depth, depth + 1):
        below += 1
    if j < below < len(doc_keys) and _callable(doc_keys, below, defined):
        out.append(defined[below])
    while i >= 0 and depth > 0:
        if doc_keys[i].strip() and indent_of(doc_keys[i]) < depth:
            if _callable(doc_keys, i, defined):
                out.append(defined[i])
            # (a lone brace, or a branch such as Ruby's ``rescue`` at the method's depth: its header is above; so
            # is the line that closes a head's parameters, ``) -> list[Entry]:``)
            depth = indent_of(doc_keys[i]) + (doc_keys[i].strip() == "{" or bool(_BRANCH.match(doc_keys[i])) or
                                              bool(_ARGUMENTS_GO_ON.match(doc_keys[i])))
        i -= 1
    return out


def _callable(keys: list[str], k: int, defined: dict[int, str]) -> bool:
    """Whether line k defines a function, a method, a route, a test or a rule (a CSS selector's), not a type."""
    return k in defined and not TYPE_HEADER.search(keys[k])


def block_end(keys: list[str], k: int, markers: list[bool] | None = None) -> int:
    """The end (exclusive) of the block line k opens, by indentation: its deeper lines, a ``{`` alone on the next
    line, and its closing line; up to a marker."""
    depth, end = indent_of(keys[k]), k + 1
    marked = markers or [False] * len(keys)
    while True:
        while end < len(keys) and not marked[end] and (not keys[end].strip() or indent_of(keys[end]) > depth or
                                                       keys[end].strip() == "{"):
            end += 1
        if end < len(keys) and not marked[end] and indent_of(keys[end]) == depth and _ARGUMENTS_GO_ON.match(keys[end]):
            end += 1  # (Lua's ``end, {`` after a callback: the call's next argument, then its ``})``)
            continue
        break
    if end < len(keys) and not marked[end] and indent_of(keys[end]) == depth and CLOSING.match(keys[end]):
        end += 1
    return end


# A callback closed and another argument opened (Lua's ``end, {``), or a head's parameters closed and its body
# opened (``) async {`` below one parameter a line; black's Python ``) -> list[Entry]:``): the block goes on
_ARGUMENTS_GO_ON = re.compile(r"^\s*(?:(?:end|[)\]}]+)\s*,.*[\[{(]|\)[^;]*\{|\)(?:\s*->\s*[^:]+)?\s*:)\s*$")


def indent_of(key: str) -> int:
    return len(key) - len(key.lstrip())


def new_runs(lines: list[int]):
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


def other_titles(new: str, old: str) -> bool:
    """Whether two lines open tests (routes) of other titles: ``test "b" do`` beside ``test "a" do``; a title
    extended (``"needs a title"`` to ``"needs a title of 3 characters"``) is the same test renamed."""
    a, b = TITLED_CALL.match(new), TITLED_CALL.match(old)
    if not a or not b or a["name"] != b["name"]:
        a, b = _TYPED_CALL.match(new), _TYPED_CALL.match(old)  # (or by a type: Ktor's ``exception<A> { call, ... ->``
        return bool(a and b and a["name"] == b["name"] and a["type"] != b["type"])  # beside ``exception<B>``)
    return not (a["title"].startswith(b["title"]) or b["title"].startswith(a["title"]))


_TYPED_CALL = re.compile(r"^\s*(?P<name>[\w.]+)<(?P<type>[\w.?, ]+)>\s*[({]")


def keys_of(lines: list[str]) -> list[str]:
    return [line_key(line) for line in lines]


HEAD = re.compile(r"^\s*((?:->|\.)?[\w$]+(?:(?:->|\.)[\w$]+)*\s*[(=:])")  # a line's call, or the key it sets
IMPORT_LINE = re.compile(r"^\s*(?:import|using|use|from\s+\S+\s+import|#\s*include|require)\b")

TYPE_OPENER = re.compile(r"\b(?:class|interface|struct|enum|trait|impl|object|namespace|record)\b")
QUOTED = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`|//.*|/\*.*?\*/|#.*')
