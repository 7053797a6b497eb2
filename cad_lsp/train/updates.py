"""Apply cases: an edit (before, after) shown as the update snippet a chat model would write for it.

Styles, as chat models write them:

- ``markers``: each changed stretch with 1-4 unchanged lines around it, the
  rest elided by a marker comment at the indentation of what it stands for;
- ``function``: every top-level function or class the edit touches, whole,
  the rest of the file elided by markers;
- ``bare``: the same blocks with no marker at all (the rest of the file is
  simply not shown);
- ``whole``: the whole new file.

Marker wordings and comment syntax vary (``# ... existing code ...``,
``// ...``, ``# (unchanged)``...), and context lines sometimes lose their
trailing blanks, as they do in chat.  The gold answer is always ``after``,
never what a merge makes of the update: a style that cannot express an edit
(a deletion at the very end of a file, with nothing after it to show) makes
no case.  Sources: the corpora's pairs, and synthetic edits of standard-library
modules (``families``' module sets keep training and held-out code apart).
"""

from __future__ import annotations

import ast
import difflib
import random
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from ..program import split_lines

STYLES = ("markers", "function", "bare", "whole")
WORDINGS = ("... existing code ...", "... existing code ...", "... rest of the code unchanged ...", "...",
            "(unchanged)", "... keep existing code ...", "existing code", "... other code ...", "rest unchanged",
            "\u2026")
COMMENT = {"python": "# {}", "javascript": "// {}", "js": "// {}"}
WINDOW_LINES = (60, 240)  # lines of a module shown as the file of a synthetic case, at least and at most


@dataclass(frozen=True)
class ApplyCase:
    id: str
    source: str  # the corpus or "stdlib", and the style
    style: str
    document: str
    update: str
    after: str
    instruction: str | None


# ---------------------------------------------------------------------------
# Updates from an edit


def _opcodes(before: list[str], after: list[str]):
    return [op for op in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()]


def _to_after(opcodes, i: int, end: bool = False) -> int:
    """The after-line index where before-line index ``i`` (a boundary between stretches) falls; at a shown
    stretch's ``end``, after the lines inserted right there (they belong to what is shown)."""
    for tag, i1, i2, j1, j2 in opcodes:
        if end and tag == "insert" and i1 == i:
            return j2
        if tag == "equal" and i1 <= i < i2:
            return j1 + (i - i1)
        if i1 == i and not end:
            return j1
    return opcodes[-1][4] if opcodes else 0


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _marker(lang: str, wording: str, indent: str) -> str:
    return indent + COMMENT.get(lang, "# {}").format(wording) + "\n"


def _groups(opcodes, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge before-line spans that touch or overlap."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _show(before: list[str], after: list[str], opcodes, groups: list[tuple[int, int]], lang: str,
          rng: random.Random, markers: bool, trim: bool = False) -> str | None:
    """The after-text of each before-span in ``groups`` (their edits applied), with markers for the rest."""
    wording = rng.choice(WORDINGS)
    strip = rng.random() < 0.3  # chat models drop trailing blanks on the lines they repeat
    out: list[str] = []
    previous = 0
    for a, b in groups:
        if a > previous and markers:
            hidden = next((line for line in before[previous:a] if line.strip()), before[a - 1])
            out.append(_marker(lang, wording, _indent(hidden)))
        shown = after[_to_after(opcodes, a):_to_after(opcodes, b, end=True) if b < len(before) else len(after)]
        if trim:  # a block shown whole starts at its first line and ends at its last
            while shown and not shown[0].strip():
                shown = shown[1:]
            while shown and not shown[-1].strip():
                shown = shown[:-1]
        out += [line.rstrip() + "\n" if strip and line.strip() else line for line in shown]
        previous = b
    if previous < len(before):
        if not markers and previous == 0:
            return None
        if markers:
            hidden = next((line for line in before[previous:] if line.strip()), before[-1])
            out.append(_marker(lang, wording, _indent(hidden)))
    text = "".join(out)
    return text if text.strip() else None


def _changed_spans(opcodes) -> list[tuple[int, int]]:
    return [(i1, max(i2, i1)) for tag, i1, i2, _, _ in opcodes if tag != "equal"]


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """Top-level blocks: from a line at the left margin through the indented lines after it (a closing bracket
    at the margin belongs to the block it closes)."""
    starts = [i for i, line in enumerate(lines)
              if line.strip() and not line[0].isspace() and not re.match(r"^[)\]}][);,]*\s*$", line)]
    blocks = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        blocks.append((start, end))
    return blocks


def make_update(before: str, after: str, style: str, rng: random.Random, lang: str = "python") -> str | None:
    """The update a chat model would write for the edit before -> after in ``style``, or None when the style
    cannot express it (or nothing changed)."""
    old, new = split_lines(before), split_lines(after)
    if before == after or not old:
        return None
    if style == "whole":
        return after
    opcodes = _opcodes(old, new)
    changed = _changed_spans(opcodes)
    if style == "markers":
        context = rng.choice((1, 2, 2, 3, 4))
        spans = [_around(old, a, b, context) for a, b in changed]
        groups = _groups(opcodes, spans)
    else:
        blocks = _blocks(old)
        touched = [(s, e) for s, e in blocks if any(a < e and b > s or a == b and s <= a <= e for a, b in changed)]
        loose = [(a, b) for a, b in changed if not any(s <= a and b <= e for s, e in touched)]
        groups = _groups(opcodes, touched + [_around(old, a, b, 2) for a, b in loose])
    if any(b >= len(old) and _deletes_at_end(opcodes) for _, b in groups[-1:]):
        return None  # a deletion at the very end: no line after it can be shown
    if not groups or groups[0][0] == 0 and groups[-1][1] >= len(old) and style != "markers":
        return None if style == "bare" else after  # the blocks are the whole file
    if style == "bare" and len(groups) > 1:
        return None  # without markers, what lies between two shown blocks would be deleted
    return _show(old, new, opcodes, groups, lang, rng, markers=style != "bare", trim=style != "markers")


def _around(old: list[str], a: int, b: int, context: int) -> tuple[int, int]:
    """A changed span of before-lines with ``context`` lines on each side, widened on a side where those are
    all blank: blank lines alone do not say where a change is (a deleted class between two blank lines would
    read as no change at all), so a chat model shows a line of code there."""
    start, end = max(0, a - context), min(len(old), b + context)
    while start > 0 and not any(line.strip() for line in old[start:a]):
        start -= 1
    while end < len(old) and not any(line.strip() for line in old[b:end]):
        end += 1
    return start, end


def _deletes_at_end(opcodes) -> bool:
    tag, _, i2, _, _ = opcodes[-1]
    return tag in ("delete", "replace") and opcodes[-1][2] == i2 and tag == "delete"


# ---------------------------------------------------------------------------
# Synthetic edits of standard-library code

_SWAPS = [(" < ", " <= "), (" <= ", " < "), (" == ", " != "), (" + 1", " + 2"), (" - 1", " - 2"), (" and ", " or "),
          ("True", "False"), ("False", "True"), ("[0]", "[-1]"), (" is None", " is not None")]


def module_source(module: str) -> str | None:
    path = Path(sysconfig.get_paths()["stdlib"], module.replace(".", "/") + ".py")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _functions(text: str) -> list[ast.FunctionDef]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno >= 3]


def _simple_statements(node) -> list[ast.stmt]:
    return [s for s in node.body if s.lineno == s.end_lineno and not isinstance(s, ast.Expr)]


def synthetic_edit(text: str, rng: random.Random) -> tuple[str, str] | None:
    """(edited text, what was done) with one plausible change to one function, or None."""
    functions = _functions(text)
    for _ in range(8):  # a function and a kind of change that fit each other
        if functions:
            made = _edit_function(text, rng.choice(functions), rng)
            if made is not None:
                return made
    return None


KINDS = ("insert", "delete", "modify", "docstring", "new function", "try", "parameter")


def _edit_function(text: str, node, rng: random.Random) -> tuple[str, str] | None:
    lines = split_lines(text)
    body = _simple_statements(node)
    kind = rng.choice(KINDS)
    indent = " " * node.body[0].col_offset
    if kind == "insert" and body:
        at = rng.choice(body).end_lineno
        args = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
        line = rng.choice([f'{indent}print("{node.name}:", {args[0] if args else "None"})\n',
                           f"{indent}assert {args[0]} is not None\n" if args else f"{indent}pass\n",
                           f'{indent}log.debug("entering {node.name}")\n'])
        return "".join(lines[:at] + [line] + lines[at:]), f"Log in {node.name}."
    if kind == "delete" and len(body) >= 2:
        stmt = rng.choice(body[:-1])
        return "".join(lines[: stmt.lineno - 1] + lines[stmt.end_lineno:]), f"Remove a statement from {node.name}."
    if kind == "modify":
        for stmt in rng.sample(body, len(body)):
            line = lines[stmt.lineno - 1]
            swaps = [(a, b) for a, b in _SWAPS if a in line]
            if swaps:
                a, b = rng.choice(swaps)
                edited = lines[: stmt.lineno - 1] + [line.replace(a, b, 1)] + lines[stmt.lineno:]
                return "".join(edited), f"Fix {node.name}."
    if kind == "docstring" and not ast.get_docstring(node):
        head_end = node.body[0].lineno - 1
        doc = f'{indent}"""{node.name.replace("_", " ").strip().capitalize()}."""\n'
        return "".join(lines[:head_end] + [doc] + lines[head_end:]), f"Document {node.name}."
    if kind == "new function" and node.col_offset == 0:
        name = f"{node.name}_checked"
        gap = 0  # the blank lines the file leaves between functions here
        while node.end_lineno + gap < len(lines) and not lines[node.end_lineno + gap].strip():
            gap += 1
        new = ["\n"] * max(1, gap) + [f"def {name}(*args, **kwargs):\n",
                                       f'    """{node.name}, with its arguments checked."""\n',
                                       "    if not args and not kwargs:\n", '        raise ValueError("no arguments")\n',
                                       f"    return {node.name}(*args, **kwargs)\n"]
        return "".join(lines[: node.end_lineno] + new + lines[node.end_lineno:]), f"Add {name}."
    if kind == "try" and body and not isinstance(body[0], (ast.Return, ast.Pass)):
        stmt = body[0]
        line = lines[stmt.lineno - 1]
        wrapped = [f"{indent}try:\n", "    " + line, f"{indent}except Exception:\n", f"{indent}    raise\n"]
        return "".join(lines[: stmt.lineno - 1] + wrapped + lines[stmt.lineno:]), f"Guard {node.name}."
    if kind == "parameter" and node.lineno == node.body[0].lineno - 1:
        line = lines[node.lineno - 1]
        if line.rstrip().endswith("):") and "(" in line:
            cut = line.rstrip().rfind(")")
            sep = "" if line[cut - 1] == "(" else ", "
            edited = line[:cut] + f"{sep}verbose=False" + line[cut:]
            return "".join(lines[: node.lineno - 1] + [edited] + lines[node.lineno:]), f"Add verbose to {node.name}."
    return None


def _window(text: str, rng: random.Random) -> str | None:
    """A run of whole top-level statements of a module, WINDOW_LINES long or so: code that parses."""
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return None
    lines = split_lines(text)
    if not body:
        return None
    size = rng.randint(*WINDOW_LINES)
    first = rng.randrange(len(body))
    last = first
    while last + 1 < len(body) and body[last + 1].end_lineno - body[first].lineno < size:
        last += 1
    start = body[first].lineno - 1 - len(getattr(body[first], "decorator_list", []) or [])
    start = min(start, *(d.lineno - 1 for d in getattr(body[first], "decorator_list", []))) \
        if getattr(body[first], "decorator_list", None) else body[first].lineno - 1
    return "".join(lines[start:body[last].end_lineno])


def synthetic_cases(modules: list[str], per_module: int, seed: int) -> list[tuple[str, str, str, str]]:
    """(id, before, after, instruction): windows of module files with one or two synthetic edits each."""
    rng = random.Random(seed)
    out = []
    for module in modules:
        text = module_source(module)
        if text is None or "\t" in text:
            continue
        for n in range(per_module):
            window = _window(text, rng)
            if window is None or not _functions(window):
                continue
            edited = synthetic_edit(window, rng)
            if edited is None:
                continue
            after, instruction = edited
            if rng.random() < 0.25:  # a second change elsewhere: two stretches in one update
                second = synthetic_edit(after, rng)
                if second is not None:
                    after = second[0]
            if after != window:
                out.append((f"stdlib/{module}/{n}", window, after, instruction))
    return out


# ---------------------------------------------------------------------------
# Cases


def cases_for(pairs: list[tuple[str, str, str, str, str]], seed: int, styles=STYLES) -> list[ApplyCase]:
    """Every style of update for each (id, source, lang, before, after, instruction)."""
    rng = random.Random(seed)
    out = []
    for pair_id, source, lang, before, after, instruction in pairs:
        for style in styles:
            update = make_update(before, after, style, rng, lang)
            if update is not None:
                out.append(ApplyCase(f"{pair_id}/{style}", source, style, before, update, after, instruction))
    return out


__all__ = ["STYLES", "ApplyCase", "make_update", "synthetic_edit", "synthetic_cases", "cases_for"]
