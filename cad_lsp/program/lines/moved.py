"""A marker that stands for another definition's body, moved: ``// ... existing body of Send, unchanged ...`` as
the whole body of a new ``sendOnce`` that takes over what ``Send`` did, while ``Send`` is rewritten around it.

Everywhere else a marker keeps the file lines at its place; this one names the lines it keeps, which are elsewhere.
Before the update is placed, the marker is replaced by that body as the file has it (re-indented to its new depth):
then ``Send``'s rewrite and the new function are placed as any others.
"""

from __future__ import annotations

import re

from ..markers import is_marker
from .reading import CLOSING, block_end, definitions_in, indent_of, keys_of

# What a marker must say to name a body, beside the definition's name: "existing body of Send", "same body as the
# previous GetForecastAsync", "original Send logic"
_A_BODY = re.compile(r"\b(?:body|implementation|logic)\b", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def with_moved_bodies(doc_lines: list[str], update_lines: list[str]) -> list[str]:
    """The update with each marker that is a new definition's whole body and names one file definition's body
    (another than the one it stands in) replaced by that body; the update itself where there is none."""
    update_keys = keys_of(update_lines)
    if not any(is_marker(key) and _A_BODY.search(key) for key in update_keys):
        return update_lines
    doc_keys = keys_of(doc_lines)
    doc_defined = definitions_in(doc_keys)
    by_name: dict[str, list[int]] = {}
    for j, name in doc_defined.items():
        if doc_keys[j].rstrip().endswith(";"):  # (a declaration: an interface's, with no body)
            continue
        by_name.setdefault(name, []).append(j)
    update_defined = definitions_in(update_keys)
    out = list(update_lines)
    for k in range(len(update_keys) - 1, -1, -1):  # from the end, so that earlier indexes hold
        body = _named_body(k, update_keys, update_defined, doc_lines, doc_keys, by_name)
        if body is not None:
            out[k:k + 1] = body
    return out


def _named_body(k: int, update_keys: list[str], update_defined: dict[int, str], doc_lines: list[str],
                doc_keys: list[str], by_name: dict[str, list[int]]) -> list[str] | None:
    key = update_keys[k]
    if not is_marker(key) or not _A_BODY.search(key):
        return None
    above = next((i for i in range(k - 1, -1, -1) if update_keys[i].strip()), None)
    if above is not None and update_keys[above].strip() == "{":  # (a brace on its own line: the head above it)
        above = next((i for i in range(above - 1, -1, -1) if update_keys[i].strip()), None)
    below = next((i for i in range(k + 1, len(update_keys)) if update_keys[i].strip()), None)
    if above is None or above not in update_defined:
        return None
    head = update_keys[above]
    closes = below is not None and CLOSING.match(update_keys[below]) and \
        indent_of(update_keys[below]) == indent_of(head)
    if below is not None and not closes and indent_of(update_keys[below]) > indent_of(head):
        return None  # (not the definition's whole body: a closing line or the next definition follows it)
    named = {word.strip("$") for word in _NAME.findall(key.split(None, 1)[-1])} & set(by_name)
    named.discard(update_defined[above])
    if len(named) != 1 or len(by_name[(name := named.pop())]) != 1:
        return None
    j = by_name[name][0]
    end = block_end(doc_keys, j)
    if end - 1 > j and CLOSING.match(doc_keys[end - 1]) and indent_of(doc_keys[end - 1]) == indent_of(doc_keys[j]):
        end -= 1
    start = j + 1
    if not doc_keys[j].rstrip().endswith(("{", ":", "do")):  # (a head on several lines: its body after its ``{``)
        start = next((i + 1 for i in range(j + 1, end) if doc_keys[i].rstrip().endswith("{")
                      and indent_of(doc_keys[i]) == indent_of(doc_keys[j])), start)
    while end > start and not doc_keys[end - 1].strip():
        end -= 1
    body = doc_lines[start:end]
    if not body or any(is_marker(line) for line in body):
        return None
    shift = indent_of(head) - indent_of(doc_keys[j])
    return [_shifted(line, shift) for line in body]


def _shifted(line: str, shift: int) -> str:
    if not line.strip() or shift == 0:
        return line
    if shift > 0:
        return (line[0] if line[0] in " \t" else " ") * shift + line
    return line[min(-shift, indent_of(line)):]
