"""families: what a model edits correctly, per kind of edit, on code it was never trained on.

Each family is an edit that editor users ask for and whose right answer is
unambiguous, so exact match is a fair score:

- ``delete-prints``: two ``print("DEBUG", x)`` lines were added to a function; delete them;
- ``delete-comments``: delete the full-line comments of a function;
- ``rename``: rename a parameter everywhere in the function (``Rename `x` to `y```);
- ``add-docstring``: add a given one-line docstring (the function's own, removed).

The cases are built deterministically from Python's standard library (the
running interpreter's, version recorded): top-level functions of 4-16 lines
from TEST_MODULES.  Nothing here is in the training data of ``cad-lsp
train`` (its corpora are HumanEvalFix, QuixBugs and commits), so every row is
held out.  Few-shot examples come from EXAMPLE_MODULES, disjoint from the test modules.

Methods, greedy on the same model: the copy/gen program through the engine's
decode loop (grammar, forced tags, splices), zero-shot, with the prompt's
built-in examples (what ``cad-lsp edit`` and ``serve`` use for the embedded
model) and with two examples of the same family; and the whole rewrite of the
selection, zero-shot and few-shot.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import sysconfig
import tokenize
from pathlib import Path

from .runner import pct, progress, table

TEST_MODULES = ["textwrap", "shlex", "fnmatch", "colorsys", "calendar", "bisect", "heapq", "statistics", "glob",
                "posixpath", "string", "difflib", "base64", "quopri", "tokenize", "pprint", "inspect", "shutil",
                "argparse", "gettext", "urllib.parse", "http.cookiejar", "os", "tarfile", "dis", "_pydecimal"]
EXAMPLE_MODULES = ["ntpath", "genericpath", "keyword", "stat", "locale", "traceback", "warnings", "email.utils",
                   "reprlib", "ast"]
FAMILIES = ["delete-prints", "delete-comments", "rename", "add-docstring"]
METHODS = ["copy/gen zero-shot", "copy/gen built-in examples", "copy/gen few-shot", "whole rewrite zero-shot",
           "whole rewrite few-shot"]
NEW_NAMES = ["value", "item", "count", "total", "result", "text", "data", "index", "entry", "amount"]
MIN_LINES, MAX_LINES, MAX_CHARS = 4, 12, 480
EXTRA_TOKENS = 48  # an answer may exceed the gold selection's tokens by this much
FEW_SHOT = 2


# ---------------------------------------------------------------------------
# Cases


@functools.lru_cache(maxsize=None)
def functions(module: str) -> tuple[tuple[str, str], ...]:
    """(name, source) of the module's short top-level functions, in file order."""
    path = Path(sysconfig.get_paths()["stdlib"], module.replace(".", "/") + ".py")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ()
    lines = text.splitlines(keepends=True)
    out = []
    for node in ast.parse(text).body:
        if not isinstance(node, ast.FunctionDef) or node.decorator_list:
            continue
        source = "".join(lines[node.lineno - 1 : node.end_lineno])
        n = node.end_lineno - node.lineno + 1
        if MIN_LINES <= n <= MAX_LINES and len(source) <= MAX_CHARS and source.isascii() and "\t" not in source \
                and max(map(len, source.splitlines())) <= 100:
            out.append((f"{module}.{node.name}", source))
    return tuple(out)


def _node(source: str) -> ast.FunctionDef:
    return ast.parse(source).body[0]


def _body_start(node: ast.FunctionDef) -> int:
    """Index of the first statement after the docstring."""
    first = node.body[0]
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    return 1 if is_doc and len(node.body) > 1 else 0


def delete_prints(source: str):
    node = _node(source)
    params = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
    if not params:
        return None
    lines = source.splitlines(keepends=True)
    first = node.body[_body_start(node)]
    last = node.body[-1]
    indent = " " * first.col_offset
    inserts = {first.lineno - 1: f'{indent}print("DEBUG", {params[0]})\n'}
    if last is not first and isinstance(last, ast.Return) and last.lineno == last.end_lineno:
        inserts[last.lineno - 1] = f'{indent}print("DEBUG", {params[-1]})\n'
    document = "".join(inserts.get(i, "") + line for i, line in enumerate(lines))
    return document, source, "Delete the debug print statements"


def delete_comments(source: str):
    lines = source.splitlines(keepends=True)
    comment_rows = {tok.start[0] - 1 for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                    if tok.type == tokenize.COMMENT and lines[tok.start[0] - 1].lstrip().startswith("#")}
    if not comment_rows:
        return None
    target = "".join(line for i, line in enumerate(lines) if i not in comment_rows)
    if ast.dump(ast.parse(target)) != ast.dump(ast.parse(source)):
        return None
    return source, target, "Delete the comment lines"


def rename(source: str):
    node = _node(source)
    if any(isinstance(n, ast.JoinedStr) for n in ast.walk(node)):
        return None  # names inside f-strings: left out, so that a token-level check can verify every case
    for arg in node.args.args:
        old = arg.arg
        if old in ("self", "cls"):
            continue
        spots = [(a.lineno, a.col_offset) for a in ast.walk(node) if isinstance(a, ast.arg) and a.arg == old]
        spots += [(n.lineno, n.col_offset) for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == old]
        if len(spots) < 3 or len(re.findall(rf"\b{re.escape(old)}\b", source)) != len(spots):
            continue  # too few uses, or the name also appears in strings or comments: ambiguous
        new = next((n for n in NEW_NAMES if not re.search(rf"\b{n}\b", source)), None)
        if new is None:
            continue
        lines = source.splitlines(keepends=True)
        for row, col in sorted(spots, reverse=True):
            line = lines[row - 1]
            lines[row - 1] = line[:col] + new + line[col + len(old):]
        return source, "".join(lines), f"Rename `{old}` to `{new}`"
    return None


def add_docstring(source: str):
    node = _node(source)
    if _body_start(node) != 1:
        return None
    doc = node.body[0]
    text = (ast.get_docstring(node) or "").split("\n")[0].strip()
    if not text.endswith(".") or len(text) > 72 or '"' in text or "\\" in text:
        return None
    lines = source.splitlines(keepends=True)
    indent = " " * doc.col_offset
    document = "".join(lines[: doc.lineno - 1] + lines[doc.end_lineno :])
    target = "".join(lines[: doc.lineno - 1] + [f'{indent}"""{text}"""\n'] + lines[doc.end_lineno :])
    return document, target, f'Add the docstring "{text}"'


BUILDERS = {"delete-prints": delete_prints, "delete-comments": delete_comments, "rename": rename,
            "add-docstring": add_docstring}


def cases(family: str, modules: list[str], limit: int | None) -> list[dict]:
    """Up to ``limit`` cases, one module after the other in turn (round robin), deterministic."""
    per_module = []
    for module in modules:
        built = []
        for name, source in functions(module):
            made = BUILDERS[family](source)
            if made is not None and made[0] != made[1]:
                document, target, instruction = made
                built.append({"id": f"{family}/{name}", "document": document, "target": target,
                              "instruction": instruction})
        per_module.append(built)
    out = []
    for i in range(max(map(len, per_module), default=0)):
        out += [built[i] for built in per_module if i < len(built)]
    return out[:limit] if limit is not None else out


def request(case: dict):
    from cad_lsp.program import split_lines
    from cad_lsp.split import Request

    n = len(split_lines(case["document"]))
    return Request(case["document"], 1, n, case["instruction"], case["target"], case["target"])


# ---------------------------------------------------------------------------
# Running


def examples(family: str, fmt: str) -> str:
    from cad_lsp.program import oracle_for_selection
    from cad_lsp.prompt import example_text

    from .quality import plain_request, rewrite_answer

    shortest = sorted(cases(family, EXAMPLE_MODULES, None), key=lambda c: (len(c["document"]), c["id"]))[:FEW_SHOT]
    parts = []
    for case in shortest:
        req = request(case)
        if fmt == "copy/gen":
            ops = oracle_for_selection(req.document, req.first, req.last, req.target)
            parts.append(example_text(req.document, req.first, req.last, req.instruction, ops))
        else:
            parts.append(f"Example. {plain_request(req)}Answer:\n{rewrite_answer(req.target)}\n")
    return "".join(parts) + "Now the request.\n"


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def evaluate(ctx: dict, case: dict, family: str) -> dict:
    from cad_lsp.metrics import token_counter
    from cad_lsp.program import resolve

    from .quality import REWRITE_SYSTEM, chat_ids, decode_program, greedy_text, parse_rewrite, plain_request, \
        rewrite_done

    loaded, backend = ctx["loaded"], ctx["backend"]
    count = token_counter(loaded.tokenizer)
    req = request(case)
    budget = 16 if ctx["quick"] else count(req.target) + EXTRA_TOKENS
    row = {"id": case["id"], "gold_tokens": count(req.target)}
    for method in METHODS:
        few = "few-shot" in method
        if method.startswith("copy/gen"):
            shots = ctx["examples"][(family, "copy/gen")] if few else ctx["built_in"] if "built-in" in method else ""
            ops, complete, stats, _ = decode_program(backend, loaded.tokenizer, ctx["ll"], req, shots, budget)
            text = resolve(ops, req.document, req.first, req.last) if complete else None
            tokens = stats.sampled_tokens
        else:
            shots = ctx["examples"][(family, "rewrite")] if few else ""
            ids = chat_ids(loaded.tokenizer, REWRITE_SYSTEM, shots + plain_request(req))
            answer, tokens = greedy_text(backend, loaded.tokenizer, ids, budget + 8, rewrite_done)
            text = parse_rewrite(answer)
        row[method] = {"complete": text is not None, "exact": text == req.target,
                       "parses": text is not None and parses(text), "unchanged": text == req.document,
                       "tokens": tokens}
    return row


def summarize(rows: list[dict]) -> dict:
    out = {}
    for method in METHODS:
        entries = [r[method] for r in rows]
        n = len(entries)
        out[method] = {"n": n, "exact": sum(e["exact"] for e in entries), "parses": sum(e["parses"] for e in entries),
                       "unchanged": sum(e["unchanged"] for e in entries),
                       "tokens_mean": sum(e["tokens"] for e in entries) / n if n else None}
    return out


def run(args) -> dict:
    import platform

    import torch

    from cad_lsp.engine import LocalModel
    from cad_lsp.grammar import ll_tokenizer
    from cad_lsp.models import load_model
    from cad_lsp.prompt import built_in_examples

    quick = args.quick
    name = args.model or ("random:tiny" if quick else "smollm2:base")
    dtype = args.dtype or "fp32"
    limit = args.limit if args.limit is not None else (1 if quick else 8)
    loaded = load_model(name, args.device, dtype)
    ctx = {"quick": quick, "loaded": loaded, "backend": LocalModel(loaded), "ll": ll_tokenizer(loaded.tokenizer),
           "built_in": built_in_examples(),
           "examples": {(f, fmt): examples(f, fmt) for f in FAMILIES for fmt in ("copy/gen", "rewrite")}}
    families = {}
    for family in FAMILIES:
        chosen = cases(family, TEST_MODULES, limit)
        rows = [evaluate(ctx, case, family) for case in progress(chosen, f"families {family}")]
        families[family] = {"available": len(cases(family, TEST_MODULES, None)), "rows": rows,
                            "summary": summarize(rows)}
    return {"dtype": dtype, "model": name, "python": platform.python_version(), "threads": torch.get_num_threads(),
            "few_shot": FEW_SHOT, "test_modules": TEST_MODULES, "example_modules": EXAMPLE_MODULES,
            "families": families}


def markdown(data: dict) -> str:
    headers = ["model", "method", "family", "held out", "cases", "exact match", "parses", "unchanged",
               "tokens decoded (mean)", "gold selection tokens (mean)"]
    rows = []
    for family, f in data["families"].items():
        gold = sum(r["gold_tokens"] for r in f["rows"]) / len(f["rows"]) if f["rows"] else None
        for method, s in f["summary"].items():
            n = s["n"]
            rate = lambda k: f"{s[k]}/{n} ({pct(s[k] / n if n else None)})"  # noqa: E731
            rows.append([f"`{data['model']}`", method, family, "yes", f"{n} of {f['available']}", rate("exact"),
                         rate("parses"), rate("unchanged"),
                         "" if s["tokens_mean"] is None else f"{s['tokens_mean']:.0f}",
                         "" if gold is None else f"{gold:.0f}"])
    return "\n".join([
        f"Cases built from Python {data['python']}'s standard library (`bench/families.py`): top-level functions of "
        f"{MIN_LINES}-{MAX_LINES} lines (at most {MAX_CHARS} characters) from {', '.join(data['test_modules'])}, the whole function selected; none "
        "is in the training data of `cad-lsp train`, so every row is held out. *built-in examples*: the three "
        "worked examples the embedded model's prompt carries in `cad-lsp edit` and `serve` (`cad_lsp/prompt.py`). Few-shot: "
        f"{data['few_shot']} examples of the same family from {', '.join(data['example_modules'])}. Greedy decoding, "
        f"{data['dtype']}. *exact match*: the edited selection equals the gold text byte for byte; *parses*: it is "
        "valid Python; *unchanged*: the answer left the selection as it was; *tokens decoded*: tokens the model chose "
        "one step at a time (grammar-forced tag tokens excluded; copied lines are spliced, not decoded).",
        "",
        table(headers, rows),
    ])
