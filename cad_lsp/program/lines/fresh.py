"""The update lines a line reading takes as new whole: definitions the file does not have, lines under new
headers, lines that belong to another block than the file's namesake; none of them anchors in the file."""

from __future__ import annotations

import re
from collections import Counter

from ..blocks import SAME_BODY, clause_literal
from ..markers import is_marker
from .likeness import call_rewrapped, declares_same
from .reading import (
    ATTACHED_LINE, CLOSING, DISTINCTIVE, OPENS, TYPE_HEADER, attached_start, block_end, definition_name,
    enclosing_callables, indent_of, is_declaration, is_renamed, weight)


HEREDOC_LINES = 60  # an attribute's heredoc above a definition (Elixir's ``@doc``) is read up to this long


def named_rewrites(keys: list[str], doc_keys: list[str], markers: list[bool],
                   defined: dict[int, str]) -> list[tuple[int, int, int, int]]:
    """Definitions the update shows whole (doc and attributes above, to the closing line, no marker inside)
    under a name the file and the update each define once: the file's definition of that name, rewritten
    (``list_products/0`` becoming ``list_products/1`` with a longer ``@doc``, where no grammar reads the file and
    the doc's lines fit every function's).  (first, last) update lines (0-based) and (first, last) file lines
    (1-based) each."""
    counts = Counter(name for j, name in defined.items() if is_declaration(doc_keys[j]))
    shown = Counter(definition_name(keys, k) for k in range(len(keys)) if is_declaration(keys[k]))
    out = []
    for h in range(len(keys)):
        if markers[h] or not is_declaration(keys[h]):
            continue
        name = definition_name(keys, h)
        if name is None or counts[name] != 1 or shown[name] != 1:
            continue
        j = next(j for j, other in defined.items() if other == name and is_declaration(doc_keys[j]))
        end, old_end = block_end(keys, h, markers), block_end(doc_keys, j)
        if any(markers[h:end]) or not CLOSING.match(keys[end - 1]) or \
                keys[end - 1].strip() != doc_keys[old_end - 1].strip():
            continue  # (a head, with a marker for the body; a block closed by a line of another kind)
        if (clause_literal(keys[h:h + 1]) or "") != (clause_literal(doc_keys[j:j + 1]) or ""):
            continue  # (another clause of the name: ``def handle_in("typing", ...)`` beside ``"new_message"``)
        out.append((attached_start(keys, h), end - 1, attached_start(doc_keys, j) + 1, old_end))
    return out


def new_definition_lines(keys: list[str], doc_keys: list[str], markers: list[bool],
                         defined: dict[int, str]) -> set[int]:
    """The update lines of definitions the file does not have (``defined``: the file's; a new method whose body
    repeats another's ``return redirect()...`` or Ruby ``end`` lines): new code whole, none of its lines a place
    in the file; from the line that names it (its decorators and doc comment above) to its closing line."""
    bodies: dict[int, tuple[set[str], set[str]]] = {}  # a definition's distinctive lines (all, its own), once read
    out: set[int] = set()
    for k, key in enumerate(keys):
        if markers[k] or k in out:  # (a line the file has may open a new one: ``router.post(``, its title below)
            continue
        name = definition_name(keys, k)
        if name is None or any(is_renamed(name, old) for old in defined.values()):
            continue
        if any(declares_same(key, old) for old in doc_keys) or key.rstrip().endswith(" {") and \
                sum(1 for old in doc_keys if call_rewrapped(key, old)) == 1:
            continue  # a local the file declares on one line, declared anew over several (``const data = await
            # fetchUsers({`` and an argument a line), an argument given lines (Compose's ``topBar = {``): a rewrite
            # of the file's line, not new code
        end = block_end(keys, k, markers)
        body = {keys[i] for i in range(k + 1, end) if weight(keys[i]) >= DISTINCTIVE}
        if any(_same_body(body, doc_keys, j, bodies) and not _used_elsewhere(defined[j], j, doc_keys, set(keys))
               for j in defined):
            continue  # a definition renamed (its whole body shown again): the file's, rewritten (not where the
            # file's lines the update leaves as they are still use the old name: a sibling, ``secured_client``
            # beside the ``client`` fixture the tests below still take)
        start = k
        while start > 0 and keys[start - 1].strip() and not markers[start - 1] and \
                indent_of(keys[start - 1]) in (indent_of(key), indent_of(key) + 1):
            if ATTACHED_LINE.match(keys[start - 1]):
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


def inside_unshown(fresh: set[int], keys: list[str], doc_keys: list[str], defined: dict[int, str]) -> set[int]:
    """The lines of new definitions that the file has only inside definitions the update does not show (a new
    method's ``return redirect()`` that ``store``, behind a marker, ends with too; a new test's ``expect`` that
    a test of another ``describe`` has): taken there, they would cut that definition in two.  Lines the file has
    only in definitions the update shows (code moved out of a test into a new helper) stay places.  Classes
    and other blocks named by their head do not count: members are shown without them."""
    if not fresh:
        return set()
    shown = {name for k in range(len(keys)) if (name := definition_name(keys, k)) is not None}
    elided = _elided_bodies(keys)
    chains: dict[int, list[str]] = {}

    def unshown(j: int) -> bool:
        if j not in chains:
            chains[j] = enclosing_callables(doc_keys, j, defined)
        return any(not any(is_renamed(name, other) for other in shown) or name in elided for name in chains[j])

    where: dict[str, list[int]] = {}
    for j, key in enumerate(doc_keys):
        where.setdefault(key, []).append(j)

    def in_a_type(lines: list[str], k: int) -> bool:  # (the nearest line above that holds it opens a type)
        depth = indent_of(lines[k])
        holder = next((i for i in range(k - 1, -1, -1) if lines[i].strip() and indent_of(lines[i]) < depth), None)
        return holder is not None and bool(TYPE_HEADER.search(lines[holder]))

    return {k for k in fresh if keys[k].strip() and (weight(keys[k]) < DISTINCTIVE or  # (``) {``: anywhere)
                                                   all(unshown(j) for j in where.get(keys[k], ())) or
                                                   # a new class's fields, found in another class's body
                                                   in_a_type(keys, k) and
                                                   all(in_a_type(doc_keys, j) for j in where.get(keys[k], ())))}


def _elided_bodies(keys: list[str]) -> set[str]:
    """The definitions an update shows with a marker for their whole body (``getTodos(...) {``, ``// ...existing
    code...``, ``}``): their lines stay where they are, so none of them is a place for new code."""
    out = set()
    for k in range(len(keys)):
        name = definition_name(keys, k) if is_declaration(keys[k]) or keys[k].rstrip().endswith(("{", ":")) else None
        if name is None:
            continue
        inside = [m for m in range(k + 1, len(keys)) if keys[m].strip()][:2]
        if len(inside) == 2 and is_marker(keys[inside[0]]) and CLOSING.match(keys[inside[1]]) and \
                indent_of(keys[inside[1]]) == indent_of(keys[k]):
            out.add(name)
    return out


def under_new_headers(keys: list[str], doc_keys: list[str], markers: list[bool]) -> set[int]:
    """Update lines under a header the file does not have, one that opens its block by indentation (a new YAML
    service's ``redis:``), or in an entry of a list whose identity the file does not have (a Go table test's
    ``{`` ... ``name: "missing sku",`` ... ``},``): they are the new block's, however alike a line of the file
    (``volumes:`` taken from the next service placed the new one after it, and that service lost its line; an
    item of a new case taken from an old case's deleted the cases between)."""
    in_file, out = set(doc_keys), set()
    for k, key in enumerate(keys):
        if markers[k] or not _IDENTITY_LINE.match(key) or key in in_file:
            continue
        opener = next((o for o in range(k - 1, -1, -1) if keys[o].strip() and indent_of(keys[o]) < indent_of(key)),
                      None)
        if opener is not None and keys[opener].rstrip().endswith(("{", "(", "[")) and keys[opener] != key:
            out |= {i for i in range(opener + 1, block_end(keys, opener, markers)) if not markers[i]}
    parents: list[tuple[int, bool]] = []  # (indentation, under a new header) of the open headers above
    for k, key in enumerate(keys):
        if not key.strip() or markers[k]:
            continue
        depth = indent_of(key)
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


def outside_their_block(keys: list[str], doc_keys: list[str], markers: list[bool]) -> set[int]:
    """Update lines inside a block the update opens with a line the file has once (``footer {``), that the
    file does not have inside that block: they are the block's new lines, not the lines of the same text
    elsewhere (``display: flex;`` of another rule, which anchored the update there and removed all between)."""
    out: set[int] = set()
    counts = Counter(doc_keys)
    for h, key in enumerate(keys):
        if markers[h] or not key.rstrip().endswith("{") or counts[key] != 1:
            continue
        j = doc_keys.index(key)
        inside = set(doc_keys[j + 1: block_end(doc_keys, j)])
        end = block_end(keys, h, markers)
        for k in range(h + 1, end):
            if keys[k].strip() and not markers[k] and keys[k] not in inside and keys[k] in counts:
                out.add(k)
        shown = {keys[k] for k in range(h + 1, end - 1) if weight(keys[k]) >= DISTINCTIVE}
        if TYPE_HEADER.match(key) and shown and not shown & inside and \
                CLOSING.match(keys[end - 1]) and not any(markers[h:end]) and not (end < len(keys) and markers[end]):
            out |= {h, end - 1}  # a second ``extension Note {`` whole, none of the first's members: another one
    # a file line given a block (``resources :users`` gaining `` do`` and routes under it): the block is new
    for h, key in enumerate(keys):
        opened = OPENS.sub("", key)
        if markers[h] or opened == key or counts[key] or not counts[opened]:
            continue
        j = doc_keys.index(opened)
        if indent_of(next((line for line in doc_keys[j + 1:] if line.strip()), "")) > indent_of(opened):
            continue  # the file's line opens a block already: the update shows that block
        out |= {k for k in range(h + 1, block_end(keys, h, markers)) if keys[k].strip() and not markers[k]}
    return out


def _used_elsewhere(name: str, j: int, doc_keys: list[str], shown: set[str]) -> bool:
    """Whether file lines outside the definition line j opens, which the update does not show, use ``name`` more
    than once: a rename leaves a caller or so for another block of the answer, not every test that takes it."""
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    end = block_end(doc_keys, j)
    return sum(1 for i, key in enumerate(doc_keys) if not j <= i < end and key not in shown and word.search(key)) > 1


def _same_body(shown: set[str], doc_keys: list[str], j: int,
               bodies: dict[int, tuple[set[str], set[str]]]) -> bool:
    """Whether new code holds nearly all the distinctive lines of the file definition that line j opens (two at
    least), and more than half of those the file has only there: that one renamed, not a new one that shares a
    few lines with it (a new test shares every test's ``val vm = viewModel()``, not the lines that make another
    test that one).  ``bodies`` keeps what was read."""
    if j not in bodies:
        lines = {doc_keys[i] for i in range(j + 1, block_end(doc_keys, j)) if weight(doc_keys[i]) >= DISTINCTIVE}
        bodies[j] = lines, {key for key in lines if doc_keys.count(key) == 1}
    theirs, own = bodies[j]
    return len(theirs) >= 2 and len(theirs & shown) >= SAME_BODY * len(theirs) and \
        (len(own) < 2 or 2 * len(own & shown) > len(own))
