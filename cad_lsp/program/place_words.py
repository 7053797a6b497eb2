"""A place an answer names in words, found in the file: "after the invalid-data test", "below the login handler".

Sentences often name where new code goes by what is there rather than by its name in backticks.  The words are
matched against what names each of the file's blocks: a test's or route's title (``test "create_product/1 with
invalid data returns error changeset"``), a definition's name split at its case and underscores
(``handleLogin``), a comment heading a section (``# Player constants``).  The one block whose names hold every
word said is the place; where none or several do, the words place nothing.
"""

from __future__ import annotations

import re

from .lines.reading import block_end, definitions_in, keys_of

__all__ = ["code_said", "heading", "place_by_code", "place_in_words"]

_TITLED = re.compile(r"""^\s*(?P<call>[\w.$]+)[ (]\s*(["'`])(?P<title>[^"'`\n]{3,})\2""")  # test "adds" do, it('adds'
_DEFINED = re.compile(r"^\s*(?:(?:export|public|private|protected|internal|static|async|override|pub|default)\s+)*"
                      r"(?:def|function|func|fn|class|struct|interface|enum|trait|module|object|sub|proc)\s+"
                      r"(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_$][\w$]*)")  # (Go's receiver before the name)
_HEADING = re.compile(r"^\s*(?:(?:#+|//+|--+|;+)\s*(?:MARK:\s*-?\s*|region\s+|pragma\s+mark\s+-?\s*)?|"
                      r"#region\s+|\[Header\(\s*\")"  # (C#'s ``#region``, Swift's ``// MARK: -``, Unity's ``[Header("")]``)
                      r"(?P<text>[A-Za-z][\w ,/&'-]{2,50}?)\s*(?:\"\s*\)\]|[-=#/]*)\s*$")
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_NOT_SAID = {"the", "a", "an", "existing", "current", "new", "one", "that", "which", "and", "of", "for", "with"}


def _words(text: str) -> set[str]:
    """Lower-case words of a name or a title, singular: ``handleLogin`` -> {handle, login}."""
    return {_singular(part.lower()) for part in _PARTS.findall(text)}


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def heading(line: str) -> str | None:
    """The text of a line that heads a section (``# Auth``, ``// MARK: - Networking``, ``#region Dash``,
    ``[Header("Ground Check")]``), or None."""
    m = _HEADING.match(line)
    return m["text"].strip() if m else None


def place_in_words(text: str, said: str) -> str | None:
    """The name of the one block of ``text`` the words ``said`` name, as the merge finds blocks by name (a test's
    title, a definition's name, a section heading's text); None where none or several do."""
    wanted = {word for word in _words(said) if word not in _NOT_SAID}
    if not wanted:
        return None
    found = set()
    for line in text.splitlines():
        for pattern, group in ((_TITLED, "title"), (_DEFINED, "name"), (_HEADING, "text")):
            m = pattern.match(line)
            if m and wanted <= _words(m[group]):
                found.add(m[group].strip())
    return found.pop() if len(found) == 1 else None


def code_said(code: str) -> re.Pattern:
    """A pattern for code a sentence quotes, where its ``...`` stands for anything (``FastAPI(...)``)."""
    return re.compile(r"[\s\S]*?".join(re.escape(part.strip()) for part in re.split(r"\.\.\.|\u2026", code.strip())))


def place_by_code(text: str, code: str) -> str | None:
    """The name of the one definition of ``text`` holding the one line that holds ``code`` ("after the method
    that ends with `items.add(...)`": ``...`` stands for anything), the innermost where they nest; None where no
    line, or several, hold it, or no definition holds it."""
    said = code_said(code)
    lines = text.splitlines()
    found = [k for k, line in enumerate(lines) if said.search(line)]
    if len(found) != 1:
        return None
    keys = keys_of(lines)
    holding = [(start, name) for start, name in definitions_in(keys).items()
               if start <= found[0] < block_end(keys, start)]
    return max(holding)[1] if holding else None
