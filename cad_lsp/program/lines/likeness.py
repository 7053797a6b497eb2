"""Whether a new line is an old one rewritten: how alike two lines are, and the differences that make them
two lines (other elements, other entries, another definition) however alike they read."""

from __future__ import annotations

import difflib
import re
from collections import Counter

from ..blocks import other_subjects
from .reading import DECLARES, LISP_DEFINES, OPENS, SIGNATURE, TOKEN, definition_name, indent_of, is_renamed, other_titles


REWRITE_SIMILARITY = 0.6  # a new line next to a kept stretch rewrites the file line it resembles this much


def looks_alike(a: str, b: str, at_least: float = REWRITE_SIMILARITY) -> bool:
    """Whether a new line reads as a rewrite of a file line: the same indentation and mostly (``at_least``) the
    same text, and not another entry of a list (``other_entries``)."""
    if not a.strip() or not b.strip() or indent_of(a) != indent_of(b) or other_entries(a, b):
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
               # a call registered by a path or a name as its first argument: Laravel's ``Route::post('/posts/{post}/
               # publish', [...])->name(...)`` beside ``.../comments``; not a message, which has spaces
               re.compile(r"^\s*(?P<call>[\w.$\\]+(?:::\w+)?)\s*\(\s*(['\"])(?P<key>[^'\"\s]+)\2\s*,"),
               # a declaration: CSS's ``color: #656d76;``, an interface's ``id: string;``
               re.compile(r"^\s*(?P<key>-{0,2}[A-Za-z][\w-]*\??)\s*:\s*[^;{}]*;\s*$"))
_DECLARATION = _ENTRY_KEYS[-1]
# A call declaring by a symbol: Ecto's ``field :slug, :string``, Rails' ``t.string :title``, ``belongs_to :team``:
# another symbol to the same call is another entry
_SYMBOL_ENTRY = re.compile(r"^\s*(?P<call>[a-z_][\w.]*)\s+:(?P<key>\w+[?!]?)(?:\s*,|\s*$)")
_NOT_IN_NAME = re.compile(r"[\d._-]+")  # a version, and the separators a key is respelt with (``poll_interval``)


def other_entries(a: str, b: str) -> bool:
    """Whether two lines are different entries of one list: a dependency added beside another
    (``implementation("...:spring-boot-starter-validation")`` next to ``...-data-jpa``), a key added to a
    manifest, an import of another module, a route or a test opened beside another (a log call's message
    rewritten is a rewrite).  Lines alike as text, but one names another thing: the new one is added, not a
    rewrite.  Its version or value changed, or its key respelt (``poll_interval_secs`` to
    ``poll-interval-secs``), the entry is the same (a rewrite)."""
    if _other_elements(a, b) or other_subjects(a, b):
        return True  # (``<form class="search-form">`` beside ``<form class="bookmark-form">``: another element)
    named = [_NAMED_ENTRY.search(line) for line in (a, b)]
    if all(named):  # (a route of the same ``name="post_detail"`` given another path: the same route, rewritten;
        return named[0]["name"] != named[1]["name"]  # of another name, another route)
    m, n = _SYMBOL_ENTRY.match(a), _SYMBOL_ENTRY.match(b)
    if m and n:  # (``after_create :send_welcome_email`` made ``after_create_commit :enqueue...``: a rewrite)
        return m["call"] == n["call"] and m["key"] != n["key"]
    for pattern in _ENTRY_KEYS:
        m, n = pattern.match(a), pattern.match(b)
        if m and n:
            a_key, b_key = sorted((m["key"], n["key"]), key=len)
            if b_key.startswith(a_key + "::"):
                return False  # ``use std::io::Read;`` rewritten as ``use std::io::{Read, Write};``
            return m.groupdict().get("call") != n.groupdict().get("call") or _entry(m["key"]) != _entry(n["key"])
    return False


_NAMED_ENTRY = re.compile(r"""\bname\s*=\s*(["'])(?P<name>[^"']+)\1""")  # an entry's own name: Django's ``path(...)``
_LEADING_STRING = re.compile(r"""^\s*(["'`])(?P<key>[^"'`]+)\1""")


def opens_another_entry(opener: str, new_next: str, old_next: str) -> bool:
    """Whether a call opened alone on its line (``parser.add_argument(``) opens another entry than the file's
    call on that line: the first argument on the next line is another string (``"--retries",`` below it,
    ``"--include-drafts", ...`` below the file's): a new call beside the file's, not the file's shown again."""
    m, n = _LEADING_STRING.match(new_next), _LEADING_STRING.match(old_next)
    return opener.rstrip().endswith(("(", "[", "{")) and bool(m and n) and _entry(m["key"]) != _entry(n["key"])


def _entry(key: str) -> str:
    return _NOT_IN_NAME.sub("", key).lower()


def likeness(new: str, old: str) -> float:
    """How alike two lines' texts are: 1 for the same text (blank lines included), else difflib's ratio."""
    if not new.strip() or not old.strip() or new.strip() == old.strip():
        return 1.0 if new.strip() == old.strip() else 0.0
    return difflib.SequenceMatcher(None, new.strip(), old.strip(), autojunk=False).ratio()


def same_place(new: str, old: str) -> bool:
    """Whether a new line takes a file line's place: both blank, or the one a rewrite of the other."""
    return not new.strip() and not old.strip() or looks_alike(new, old)


def split_over_lines(new: list[str], old: str) -> bool:
    """Whether the first new lines are the file line rewritten over several (a ``RUN`` line given a flag and a
    continuation): they start as it does, at its indentation, and hold all its words."""
    words = TOKEN.findall(old)
    if len(new) < 2 or len(words) < 4 or indent_of(new[0]) != indent_of(old):
        return False
    written = Counter(TOKEN.findall(" ".join(new)))
    return TOKEN.findall(new[0])[:1] == words[:1] and not Counter(words) - written


def same_signature(new: str, old: str) -> bool:
    """Whether two lines open the same callable or constructor (``data class LinkResponse(``)."""
    a, b = SIGNATURE.match(new), SIGNATURE.match(old)
    return a is not None and b is not None and a["name"] == b["name"]


_LOCAL = re.compile(r"^\s*(?:local|let|const|var|val|my|auto)\s+(?:mut\s+)?\(?(?P<name>[A-Za-z_]\w*)|"
                    r"^\s*(?:final\s+)?(?:[A-Z]\w*|int|long|double|float|bool|boolean|string|char)(?:<[^=;]*>)?"
                    r"(?:\[\])?\??\s+(?P<typed>[a-z_]\w*)\s*=[^=]|"  # (``Bullet bullet = pool.Get();``)
                    r"^\s*(?P<short>[a-z_]\w*)(?:\s*,\s*\w+)*\s*:=")  # (Go's ``resp, err :=``)


def _declared(m: re.Match) -> str:
    return m["name"] or m["typed"] or m["short"]


def declares_same(new: str, old: str) -> bool:
    """Whether two lines declare the same local variable (``local debug, err =`` and ``local debug =``,
    ``Bullet bullet = pool.Get();`` and ``Bullet bullet = Instantiate(...);``): a scope declares it once."""
    m, n = _LOCAL.match(new), _LOCAL.match(old)
    return m is not None and n is not None and _declared(m) == _declared(n) and indent_of(new) == indent_of(old)


def call_rewrapped(new: str, old: str) -> bool:
    """Whether a new line opens a call's arguments over the next lines that a one-line call of the file makes
    (``expect(api.fetchUsers).toHaveBeenCalledWith(`` for ``...toHaveBeenCalledWith(1, 20);``): the same
    callee, the statement given other arguments, one a line."""
    head = new.rstrip()  # (an object or a list as the one argument: ``fetchUsers({`` for ``fetchUsers({ page })``)
    if head.endswith(" {") and not head.lstrip().startswith(("if ", "for ", "while ", "else")):  # (a lambda as a
        return len(head.strip()) >= 8 and old.lstrip().startswith(head.strip()) and indent_of(new) == \
            indent_of(old) and old.rstrip().endswith(("}", "},", "})", "});"))  # named argument: ``topBar = {``)
    return head.endswith(("(", "=>", "({", "([")) and len(head.strip()) >= 12 and \
        old.lstrip().startswith(head.strip()) and indent_of(new) == indent_of(old) and \
        old.rstrip().endswith((");", ")", "),"))


_ASSIGNED_OBJECT = re.compile(r"^\s*(?:export\s+)?(?:const|let|var|val)\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?="
                              r"\s*[{\[(]")  # (``export const Danger: Story = {``)


# a block given parameters: Kotlin's ``{ call, cause ->``, Swift's ``{ item in``
_OPENS_LAMBDA = re.compile(r"\{\s*[\w\s,:()]*(?:->|\bin)\s*$")


def defines_another(keys: list[str], k: int, doc_keys: list[str], j: int) -> bool:
    """Whether update line k opens a definition of another name than file line j does (``suspend fun refresh()``
    beside ``suspend fun exportAll()``: alike as text, but a new method, not a rewrite of that one), or a block
    titled otherwise (``resource "aws_s3_bucket_lifecycle_configuration" "this" {`` beside the encryption one's)."""
    if (OPENS.search(keys[k]) or _OPENS_LAMBDA.search(keys[k])) and other_titles(keys[k], doc_keys[j]):
        return True
    assigned = _ASSIGNED_OBJECT.match(keys[k]) and _ASSIGNED_OBJECT.match(doc_keys[j])
    if assigned:  # (``export const Danger: Story = {`` beside ``export const WithIcon: Story = {``)
        return not is_renamed(_ASSIGNED_OBJECT.match(keys[k])["name"], _ASSIGNED_OBJECT.match(doc_keys[j])["name"])
    if not (DECLARES.match(keys[k]) or LISP_DEFINES.match(keys[k])):
        return False  # (``expect(x).toHaveBeenCalledWith('a', {`` opens a block, but declares nothing)
    new = definition_name(keys, k)
    return new is not None and not is_renamed(new, definition_name(doc_keys, j) or "")


def only_reindented(new: str, old: str) -> bool:
    """The same statement at another indentation (code moved into or out of a block)."""
    return bool(old.strip()) and new.strip() == old.strip() and indent_of(new) != indent_of(old)
