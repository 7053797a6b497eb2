"""formats: what each answer format costs in output tokens, and whether it lands in the right place.

For every pair, each format's natural minimal answer for the whole document:

- copy/gen: the line-oracle program (canonical text);
- whole rewrite: the new text;
- search/replace (Aider's blocks): one block per changed region of the line
  diff, either with no context (the changed lines alone; an insertion gets
  one anchor line) or with the smallest context that makes SEARCH unique in
  the original;
- unified diff: ``difflib.unified_diff`` with n=3 and n=0, without the
  ``---``/``+++`` header.

Fidelity applies each answer with a straightforward applier: search/replace
blocks in order, each at the first occurrence of SEARCH in the current text;
unified-diff hunks by line number, checking context and removed lines.
"""

from __future__ import annotations

import difflib
import re
import statistics

from .runner import NO_CORPUS, corpus_pairs, pair_limit, pct, pyplot, qwen_tokenizer, save_figure, table

FORMATS = ["copy/gen", "whole rewrite", "search/replace", "search/replace (unique)", "udiff n=3", "udiff n=0"]
PAPER = "search/replace 81–94% correct (anchor ambiguity); unified diff 17–64% more output tokens than copy/gen"


# ---------------------------------------------------------------------------
# Search/replace


def occurrences(text: str, needle: str) -> int:
    """Overlapping occurrences: what an applier looking for a unique anchor must consider."""
    count, start = 0, text.find(needle)
    while start >= 0:
        count += 1
        start = text.find(needle, start + 1)
    return count


def changed_regions(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def search_replace_blocks(before: str, after: str, unique: bool) -> list[tuple[str, str]]:
    """(SEARCH, REPLACE) blocks in document order.

    Context lines are unchanged lines around a changed region, never shared
    with the previous block; when the lines down to the next region are not
    enough to make SEARCH unique, the block takes in that region too.
    """
    from cad_lsp.program import split_lines

    old, new = split_lines(before), split_lines(after)
    regions = changed_regions(old, new)
    blocks = []
    used = k = 0  # old lines before `used` belong to earlier blocks

    def room(first: int, last: int) -> tuple[int, int]:
        below = regions[last + 1][0] if last + 1 < len(regions) else len(old)
        return regions[first][0] - used, below - regions[last][1]

    while k < len(regions):
        first = last = k
        up = down = 0
        if regions[k][0] == regions[k][1]:  # a pure insertion needs an anchor line
            room_up, room_down = room(first, last)
            up, down = (1, 0) if room_up else (0, min(1, room_down))
        while unique:
            search = "".join(old[regions[first][0] - up : regions[last][1] + down])
            if search and occurrences(before, search) == 1:
                break
            room_up, room_down = room(first, last)
            if up < room_up and (up <= down or down >= room_down):
                up += 1
            elif down < room_down:
                down += 1
            elif last + 1 < len(regions):
                last, down = last + 1, 0
            else:
                break
        a, b = regions[first][0] - up, regions[last][1] + down
        c, d = regions[first][2] - up, regions[last][3] + down
        blocks.append(("".join(old[a:b]), "".join(new[c:d])))
        used, k = b, last + 1
    return blocks


def search_replace_text(blocks) -> str:
    def body(text):
        return text if not text or text.endswith("\n") else text + "\n"

    return "".join(f"<<<<<<< SEARCH\n{body(s)}=======\n{body(r)}>>>>>>> REPLACE\n" for s, r in blocks)


def apply_search_replace(text: str, blocks) -> tuple[str, int, int]:
    """(result, ambiguous blocks, missing blocks); each block at the first occurrence of SEARCH."""
    ambiguous = missing = 0
    for search, replacement in blocks:
        if not search:
            text = replacement + text
            continue
        n = occurrences(text, search)
        if n == 0:
            missing += 1
            continue
        ambiguous += n > 1
        at = text.find(search)
        text = text[:at] + replacement + text[at + len(search) :]
    return text, ambiguous, missing


# ---------------------------------------------------------------------------
# Unified diff

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(before: str, after: str, n: int) -> str:
    from cad_lsp.program import split_lines

    out = []
    for line in list(difflib.unified_diff(split_lines(before), split_lines(after), n=n))[2:]:
        out.append(line if line.endswith(("\n", "\r")) else line + "\n" + _NO_NEWLINE)
    return "".join(out)


def apply_unified_diff(before: str, diff: str) -> str | None:
    """Apply hunks by their line numbers; None when a context or removed line does not match."""
    from cad_lsp.program import split_lines

    old = split_lines(before)
    lines = split_lines(diff)
    out: list[str] = []
    pos = k = 0
    while k < len(lines):
        m = _HUNK.match(lines[k])
        if not m:
            return None
        start, count = int(m.group(1)), int(m.group(2) or 1)
        at = start - 1 if count else start  # an empty old side names the line before it
        if at < pos or at > len(old):
            return None
        out += old[pos:at]
        pos = at
        k += 1
        body: list[list[str]] = []
        while k < len(lines) and not lines[k].startswith("@@"):
            if lines[k] == _NO_NEWLINE and body:
                body[-1][1] = body[-1][1][:-1]
            else:
                body.append([lines[k][:1], lines[k][1:]])
            k += 1
        for tag, text in body:
            if tag in " -":
                if pos >= len(old) or old[pos] != text:
                    return None
                pos += 1
                if tag == " ":
                    out.append(text)
            elif tag == "+":
                out.append(text)
            else:
                return None
    return "".join(out + old[pos:])


# ---------------------------------------------------------------------------
# The benchmark


def answers(pair) -> dict[str, tuple[str, str | None, int, int]]:
    """{format: (answer text, applied result or None, ambiguous blocks, missing blocks)}."""
    from cad_lsp.program import format_program, oracle_program, resolve

    ops = oracle_program(pair.before, pair.after)
    result = {"copy/gen": (format_program(ops), resolve(ops, pair.before), 0, 0),
              "whole rewrite": (pair.after, pair.after, 0, 0)}
    for name, unique in (("search/replace", False), ("search/replace (unique)", True)):
        blocks = search_replace_blocks(pair.before, pair.after, unique)
        applied, ambiguous, missing = apply_search_replace(pair.before, blocks)
        result[name] = (search_replace_text(blocks), applied, ambiguous, missing)
    for n in (3, 0):
        diff = unified_diff(pair.before, pair.after, n)
        result[f"udiff n={n}"] = (diff, apply_unified_diff(pair.before, diff), 0, 0)
    return result


def run(args) -> dict:
    pairs = corpus_pairs(pair_limit(args))
    if pairs is None:
        return {"skipped": NO_CORPUS, "dtype": "n/a"}
    tokenizer = qwen_tokenizer()
    count = lambda text: len(tokenizer.encode(text, add_special_tokens=False)) if text else 0  # noqa: E731
    corpora = {}
    for name, items in pairs.items():
        tokens = {f: [] for f in FORMATS}
        exact = {f: 0 for f in FORMATS}
        ambiguous = {f: 0 for f in FORMATS}
        missing = {f: 0 for f in FORMATS}
        for pair in items:
            for f, (text, applied, amb, miss) in answers(pair).items():
                tokens[f].append(count(text))
                exact[f] += applied == pair.after
                ambiguous[f] += amb > 0
                missing[f] += miss > 0
        base = sum(tokens["copy/gen"])
        corpora[name] = {"pairs": len(items), "formats": {
            f: {"tokens_mean": sum(tokens[f]) / len(items), "tokens_median": statistics.median(tokens[f]),
                "tokens_vs_copy_gen": sum(tokens[f]) / base - 1 if base else None,
                "exact": exact[f], "exact_rate": exact[f] / len(items),
                "pairs_with_ambiguous_block": ambiguous[f], "pairs_with_missing_block": missing[f]}
            for f in FORMATS}}
    return {"dtype": "n/a (no model)", "tokenizer": "Qwen2.5", "formats": FORMATS, "corpora": corpora}


def markdown(data: dict) -> str:
    token_rows, fidelity_rows = [], []
    for name, c in data["corpora"].items():
        fs = c["formats"]
        token_rows.append([name, c["pairs"]] + [f"{fs[f]['tokens_mean']:.0f} / {fs[f]['tokens_median']:.0f}"
                                                 for f in data["formats"]])
        token_rows.append([f"{name}, vs copy/gen", ""] + [
            "" if f == "copy/gen" or fs[f]["tokens_vs_copy_gen"] is None else f"{100 * fs[f]['tokens_vs_copy_gen']:+.0f}%"
            for f in data["formats"]])
        fidelity_rows.append([name, c["pairs"]] + [pct(fs[f]["exact_rate"]) for f in data["formats"]] + [
            f"{fs[f]['pairs_with_ambiguous_block']} / {fs[f]['pairs_with_missing_block']}"
            for f in ("search/replace", "search/replace (unique)")])
    return "\n".join([
        f"Paper: {PAPER}. Tokens are Qwen2.5 tokens of each format's minimal answer for the whole document; "
        "\"vs copy/gen\" is total tokens relative to the copy/gen program.",
        "",
        table(["corpus", "pairs"] + [f"{f} (mean / median)" for f in data["formats"]], token_rows),
        "",
        "Fidelity: share of pairs where applying the answer reproduces the gold text exactly; the last two "
        "columns count pairs with an ambiguous (SEARCH found more than once) / missing (not found) block.",
        "",
        table(["corpus", "pairs"] + data["formats"] + ["S/R ambiguous / missing", "S/R (unique) ambiguous / missing"],
              fidelity_rows),
    ])


def plot(data: dict, path) -> bool:
    plt = pyplot()

    names = list(data["corpora"])
    formats = data["formats"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    width = 0.8 / len(formats)
    for j, f in enumerate(formats):
        xs = [i + (j - len(formats) / 2 + 0.5) * width for i in range(len(names))]
        left.bar(xs, [data["corpora"][n]["formats"][f]["tokens_mean"] for n in names], width, label=f)
        right.bar(xs, [100 * data["corpora"][n]["formats"][f]["exact_rate"] for n in names], width, label=f)
    left.set_yscale("log")
    left.set_ylabel("output tokens (mean, Qwen2.5)")
    right.set_ylabel("applies exactly (%)")
    for ax in (left, right):
        ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    left.legend(fontsize=7)
    return save_figure(fig, path)
