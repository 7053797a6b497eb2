"""Markers: the lines of an update that stand for file lines it does not show.

Chat models elide what stays with a comment in their own words (``# ... existing code ...``, ``// ...``,
``<!-- rest of the file -->``, ``{/* ... */}``, Windsurf's ``{{ ... }}``) or a bare ``...``.  A comment that
only mentions such words (``# Handle existing points``) is code, and a marker-like line the file itself holds
as text (a test's snippet) is the file's line where the update shows it with its neighbours.
"""

from __future__ import annotations

import re

__all__ = ["is_marker", "marker_lines", "next_shown", "braces_markers_indented"]

_COMMENT = re.compile(r"^\s*(?:#|//|/\*|<!--|--|;|\*)\s*(.*?)\s*(?:\*/|-->)?\s*$")
_ELISION_WORDS = re.compile(r"\b(existing|unchanged|rest of|remain(s|ing)?|same as before|omitted|"
                            r"keep (the )?(rest|as[- ]is|everything)|other "
                            r"(code|methods|functions|lines)|previous code|as before|stays?( \w+)? (the same|as is)|"
                            r"as (it|they) (is|are|was|were)|untouched|intact)\b",
                            re.IGNORECASE)
_ELIDES_AT_START = re.compile(r"^[\s(\[{<*_-]*(?:(?:the|your|all|any|our)\s+)?(?:existing|unchanged|rest|remaining|"
                              r"other|previous|same|omitted|keep|everything)\b", re.IGNORECASE)
_ELIDES_AT_END = re.compile(r"\b(?:unchanged|(?:the )?same|as before|as[- ]is|omitted|not shown|here|below|above|"
                            r"as (?:it|they) (?:is|are|was|were)|untouched|intact)(?: for brevity)?[\s.)\]}*_-]*$",
                            re.IGNORECASE)
# ... of which these say it alone, in a longer list of what is elided ("constructors, getters/setters and
# toString() stay exactly as they are")
_SAYS_UNCHANGED = re.compile(r"\b(?:(?:stays?|remains?|left|kept) (?:\w+ )?(?:the same|as (?:it|they) (?:is|are|was|were)|"
                             r"as[- ]is|untouched|intact|unchanged)|omitted for brevity)[\s.)\]}*_-]*$", re.IGNORECASE)


# "... (UserStore, Register and List go here)": after an ellipsis only ("# validation goes here" is a to-do)
_GO_HERE = re.compile(r"\bgo(?:es)? here\b", re.IGNORECASE)
# An ellipsis then the names of what it keeps: "... LoginRequest, RegisterRequest, TokenResponse", "... login() and
# register()"
_NAMES = re.compile(r"^\.\.\.\s*\(?`?[\w.$]+(?:\(\))?`?(?:\s*(?:,|,?\s+and|&)\s*`?[\w.$]+(?:\(\))?`?)*\)?[\s.]*$")
# Where the next lines go, said to the reader between fragments: "in render/1, replace the stats grid:", "next to
# `format_money/2`:" (a name that reads as code: a call, an arity, a path, a snake or camel case, backticks)
_SAYS_WHERE = re.compile(r"^(?:(?:in|inside|within)\s+(?P<in>\S+),.*|(?:next to|below|after|above|before|under)\s+"
                         r"(?P<at>\S+)):$", re.IGNORECASE)
_CODE_NAME = re.compile(r"[`(/_.:]|[a-z][A-Z]")
_CLOSES = re.compile(r"^\s*(?:[)\]}]|end\b)")  # a line that closes a block


def is_marker(line: str) -> bool:
    """Whether an update line elides file lines: a lone comment that says so (``# ... existing code ...``,
    ``// ...``, ``/* ... */``, ``{/* ... */}`` in JSX, ``# (unchanged)``, ``<!-- rest of the file -->``,
    ``// ... other methods ...``, Twig's ``{# ... #}``, Razor's ``@* ... *@``, OCaml's ``(* ... *)``), or a bare
    ``...``, or one in double braces (``{{ ... }}``)."""
    text = line.rstrip("\r\n").strip()
    if text.startswith("{{--") and text.endswith("--}}"):  # Blade's comment: ``{{-- ... --}}``
        return is_marker("// " + text[4:-4].strip())
    if text.startswith("{{") and text.endswith("}}"):  # Windsurf's ``{{ ... }}``
        text = text[2:-2].strip()
        return text in ("...", "\u2026") or is_marker("// " + text)
    if text in ("...", "\u2026"):
        return True
    if text.startswith("{/*") and text.endswith("*/}"):  # JSX: a comment inside braces
        text = text[1:-1].strip()
    elif text.startswith("{#") and text.endswith("#}"):  # Jinja, Twig: ``{# ... #}``
        text = "// " + text[2:-2].strip()
    elif text.startswith(("@*", "<%#")) and text.endswith(("*@", "%>")):  # Razor's ``@* ... *@``, ERB's ``<%# ... %>``
        text = "// " + text[2 if text.startswith("@*") else 3:-2].strip()
    elif text.startswith("(*") and text.endswith("*)") and len(text) > 3:  # OCaml's, F#'s ``(* ... *)``
        text = "// " + text[2:-2].strip()
    m = _COMMENT.match(text)
    if not m or text.startswith("*") and not text.startswith("*/"):  # a doc comment's inner line is prose
        return False
    said = m.group(1).replace("\u2026", "...")
    where = _SAYS_WHERE.match(said)
    if where and len(said.split()) <= 10 and _CODE_NAME.search(where["in"] or where["at"]):
        return True
    elides = len(said.split()) <= 8 and bool(_ELISION_WORDS.search(said))
    words = said.strip(". ").split()
    if said.startswith("...") and said.endswith("..."):
        return True  # "... existing code ...", "...", "... getters and setters ..."
    if said.startswith("...") or said.endswith("..."):  # (what it elides may be listed: "... (index, show,
        # create and update remain the same)", "... (UserStore, Register and List go here)")
        return elides or len(words) <= 2 or len(words) <= 16 and bool(_ELISION_WORDS.search(said) or
                                                                    _GO_HERE.search(said) or _NAMES.match(said))
    # Without an ellipsis, a comment elides where it says so in a marker's words: it starts with what it stands
    # for ("existing code", "rest of the file unchanged", "(other methods)") or ends saying it is unchanged
    # ("getters stay the same"); "# Handle existing points" and "// merge the remaining items" are code's comments.
    if elides and _ELIDES_AT_END.search(said):
        return True
    return elides and bool(_ELIDES_AT_START.match(said)) and not _A_SENTENCE.search(said) or \
        len(words) <= 16 and bool(_SAYS_UNCHANGED.search(said))


# A sentence about the code, not a stand-in for it: a verb, then a full stop ("# Existing rows were saved before
# normalization was added.")
_A_SENTENCE = re.compile(r"\b(?:was|were|is|are|has|have|had|will|would|should|must|can|could)\b.*\.$", re.IGNORECASE)


def braces_markers_indented(update_lines: list[str], comment: str | None) -> list[str]:
    """Windsurf's ``{{ ... }}`` as a marker in the language's comments (``comment``: ``//``, ``#``; None: as it
    is), which its parser reads as a comment, not as code.  Windsurf writes it at the left edge whatever the
    depth it elides at: it takes the indentation of the line below it, or of the line above where the one below
    closes a block (a marker between an interface's members and its ``}`` elides members, not what follows the
    interface)."""
    out = list(update_lines)
    shown = [k for k, line in enumerate(update_lines) if line.strip()]
    for n, k in enumerate(shown):
        line = update_lines[k]
        if not (line.strip().startswith("{{") and is_marker(line)):
            continue
        indent = line[: len(line) - len(line.lstrip())]
        if not indent:
            below = next((update_lines[j] for j in shown[n + 1:] if not is_marker(update_lines[j])), None)
            above = next((update_lines[j] for j in reversed(shown[:n]) if not is_marker(update_lines[j])), None)
            near = above if below is None or _CLOSES.match(below) and above is not None else below
            indent = near[: len(near) - len(near.lstrip())] if near else ""
        text = f"{comment} ...\n" if comment else line.lstrip()
        out[k] = indent + (text if line.endswith(("\n", "\r")) else text.rstrip("\n"))
    return out


def marker_lines(document_lines: list[str], update_lines: list[str]) -> list[bool]:
    """Which update lines are markers: those ``is_marker`` reads as one, unless the file has the same line with
    the same line next to it as the update shows (a test's text holding ``# ... existing code ...``, shown with
    its neighbours: the file's own line; elsewhere in the update, the same words elide), or the update holds it
    in a multi-line string it opens above it (a new test's snippet, where the file's tests have such text too)."""
    doc = [line.strip() for line in document_lines]
    new = [line.strip() for line in update_lines]
    out = []
    inside = _inside_strings(update_lines)
    in_doc = set(doc)
    for k, key in enumerate(new):
        if is_marker(key) and (_continues_a_comment(update_lines, k) or _in_new_code(update_lines, k, in_doc)):
            out.append(False)
            continue
        if not is_marker(key) or key not in doc:
            out.append(is_marker(key))
            continue
        if k in inside:
            out.append(False)
            continue
        around = (next_shown(new, k, -1), next_shown(new, k, 1))
        literal = False
        for j, line in enumerate(doc):
            if line == key:
                beside = (next_shown(doc, j, -1), next_shown(doc, j, 1))
                literal = literal or any(i is not None and m is not None and new[i] == doc[m]
                                         for i, m in zip(around, beside))
        out.append(not literal)
    return out


def _in_new_code(update_lines: list[str], k: int, in_doc: set[str]) -> bool:
    """Whether a comment that reads as a marker in words alone (no ellipsis) is inside a block the file does not
    have (a new test's ``# The owner's item is untouched``): new code elides nothing of the file."""
    line = update_lines[k]
    said = _COMMENT.match(line.strip())
    if "..." in line or "\u2026" in line or said is None or _ELIDES_AT_START.match(said[1]) or \
            _SAYS_UNCHANGED.search(said[1]) or _CODE_NAME.search(said[1]):
        return False  # (what a marker says: "rest unchanged", "`shortHash()` and `hasScope()` stay the same")
    depth = len(line) - len(line.lstrip())
    head = next((above for above in reversed(update_lines[:k])
                 if above.strip() and len(above) - len(above.lstrip()) < depth), None)
    return head is not None and not is_marker(head) and head.strip() not in in_doc


def _continues_a_comment(update_lines: list[str], k: int) -> bool:
    """Whether a line that says in words that something stays (no ellipsis) is the second line of a comment
    above code: ``// The row is kept so that foreign keys stay intact.`` under ``// Delete soft-deletes the
    user.``, right above ``func (s *UserStore) Delete(...)`` is a doc comment, not a marker."""
    line = update_lines[k]
    said = _COMMENT.match(line)
    if "..." in line or "\u2026" in line or k == 0 or k + 1 >= len(update_lines) or said is None or \
            _ELIDES_AT_START.match(said.group(1)):  # ("# existing code" under a comment: a marker still)
        return False
    above, below = update_lines[k - 1], update_lines[k + 1]
    indent = len(line) - len(line.lstrip())
    return bool(_COMMENT.match(above)) and not is_marker(above) and len(above) - len(above.lstrip()) == indent \
        and bool(below.strip()) and len(below) - len(below.lstrip()) == indent and not _COMMENT.match(below)


def _inside_strings(update_lines: list[str]) -> set[int]:
    """The update lines inside a multi-line string the update opens: Python's triple quotes, a JavaScript
    template literal opened at a line's end (a backtick ending ``const update =``)."""
    out: set[int] = set()
    open_quote = None
    for k, line in enumerate(update_lines):
        if open_quote is not None:
            out.add(k)
        for quote in ('"""', "'''"):
            if open_quote in (None, quote) and line.count(quote) % 2:
                open_quote = None if open_quote == quote else quote
        if open_quote is None and line.rstrip().endswith("`") and not line.rstrip().endswith("```") and \
                line.count("`") % 2:
            open_quote = "`"
        elif open_quote == "`" and k in out and line.count("`") % 2:
            open_quote = None
    return out


def next_shown(keys: list[str], k: int, step: int) -> int | None:
    """The update line next to line k in direction ``step`` that is not blank."""
    k += step
    while 0 <= k < len(keys) and not keys[k].strip():
        k += step
    return k if 0 <= k < len(keys) else None
