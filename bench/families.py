"""families: what a model edits correctly, per kind of edit, on code it was never trained on.

The cases (``cad_lsp/train/families.py``): delete debug prints, delete comment lines,
rename a parameter, add a given docstring, in short functions of Python's own
standard library (the running interpreter's, version recorded), TEST_MODULES
only.  The corpora of ``cad-lsp train`` are HumanEvalFix, QuixBugs and commits,
and ``cad-lsp train --families`` draws from TRAIN_MODULES, so every row is
held out.  Few-shot examples come from EXAMPLE_MODULES, disjoint from both.

Methods, greedy on the same model: the copy/gen program through the engine's
decode loop (grammar, forced tags, splices), zero-shot, with the prompt's
built-in examples (what ``cad-lsp edit`` and ``serve`` use for the embedded
model), with two examples of the same family, and with a LoRA adapter
(``CAD_LSP_ADAPTER``, zero-shot prompt, as trained); and the whole rewrite of
the selection, zero-shot and few-shot.  Rows of an earlier run in the same
output folder with the same model are kept, not recomputed.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

from cad_lsp.train.families import (
    EXAMPLE_MODULES,
    FAMILIES,
    MAX_CHARS,
    MAX_LINES,
    MIN_LINES,
    TEST_MODULES,
    cases,
    request,
)

from .runner import pct, progress, table

METHODS = ["copy/gen zero-shot", "copy/gen built-in examples", "copy/gen few-shot", "whole rewrite zero-shot",
           "whole rewrite few-shot"]
MUST_CHANGE = "copy/gen fine-tuned, must change"  # the grammar refuses a program that leaves the selection as it is
EXTRA_TOKENS = 48  # an answer may exceed the gold selection's tokens by this much
FEW_SHOT = 2


# ---------------------------------------------------------------------------
# Running


def examples(family: str, fmt: str) -> str:
    from cad_lsp.engine.prompt import example_text
    from cad_lsp.program import oracle_for_selection

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


def evaluate(ctx: dict, case: dict, family: str, earlier: dict | None = None) -> dict:
    from cad_lsp.program import resolve
    from cad_lsp.program.metrics import token_counter

    from .quality import (
        REWRITE_SYSTEM,
        chat_ids,
        decode_program,
        greedy_text,
        parse_rewrite,
        plain_request,
        rewrite_done,
    )

    loaded, backend = ctx["loaded"], ctx["backend"]
    count = token_counter(loaded.tokenizer)
    req = request(case)
    budget = 16 if ctx["quick"] else count(req.target) + EXTRA_TOKENS
    row = {"id": case["id"], "gold_tokens": count(req.target), **(earlier or {})}
    for method in ctx["methods"]:
        few = "few-shot" in method
        if method in row:
            continue
        if method.startswith("copy/gen fine-tuned"):  # the adapter was trained on the zero-shot prompt
            tuned, tuned_backend = ctx["tuned"]
            ops, complete, stats, _ = decode_program(tuned_backend, tuned.tokenizer, ctx["ll"], req, "", budget,
                                                     must_change=method == MUST_CHANGE)
            text = resolve(ops, req.document, req.first, req.last) if complete else None
            tokens = stats.sampled_tokens
        elif method.startswith("copy/gen"):
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


def summarize(rows: list[dict], methods: list[str]) -> dict:
    out = {}
    for method in methods:
        entries = [r[method] for r in rows]
        n = len(entries)
        out[method] = {"n": n, "exact": sum(e["exact"] for e in entries), "parses": sum(e["parses"] for e in entries),
                       "unchanged": sum(e["unchanged"] for e in entries),
                       "tokens_mean": sum(e["tokens"] for e in entries) / n if n else None}
    return out


def run(args) -> dict:
    import platform

    import torch

    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.loading import load_model
    from cad_lsp.engine.grammar import ll_tokenizer
    from cad_lsp.engine.prompt import built_in_examples

    quick = args.quick
    name = args.model or ("random:tiny" if quick else "smollm2:base")
    dtype = args.dtype or "fp32"
    limit = args.limit if args.limit is not None else (1 if quick else 8)
    adapter = os.environ.get("CAD_LSP_ADAPTER")
    adapter_sha = adapter_digest(adapter) if adapter else None
    loaded = load_model(name, args.device, dtype)
    methods = METHODS + (["copy/gen fine-tuned", MUST_CHANGE] if adapter else [])
    tuned = load_model(name, args.device, dtype, adapter=adapter) if adapter else None
    earlier = reusable(args.out / "families.json", name, dtype, quick, adapter_sha)
    ctx = {"quick": quick, "loaded": loaded, "backend": LocalModel(loaded), "ll": ll_tokenizer(loaded.tokenizer),
           "methods": methods, "tuned": (tuned, LocalModel(tuned)) if tuned else None,
           "built_in": built_in_examples(),
           "examples": {(f, fmt): examples(f, fmt) for f in FAMILIES for fmt in ("copy/gen", "rewrite")}}
    families = {}
    for family in FAMILIES:
        chosen = cases(family, TEST_MODULES, limit)
        rows = [evaluate(ctx, case, family, earlier.get(case["id"])) for case in progress(chosen, f"families {family}")]
        families[family] = {"available": len(cases(family, TEST_MODULES, None)), "rows": rows,
                            "summary": summarize(rows, methods)}
    reused = sum(len(earlier.get(row["id"], {})) for f in families.values() for row in f["rows"])
    return {"dtype": dtype, "model": name, "adapter": adapter, "adapter_sha256": adapter_sha, "reused_results": reused, "python": platform.python_version(), "threads": torch.get_num_threads(),
            "few_shot": FEW_SHOT, "test_modules": TEST_MODULES, "example_modules": EXAMPLE_MODULES,
            "families": families}


def adapter_digest(adapter: str) -> str:
    import hashlib

    return hashlib.sha256((Path(adapter) / "adapter_model.safetensors").read_bytes()).hexdigest()


def reusable(path: Path, model: str, dtype: str, quick: bool, adapter_sha: str | None) -> dict:
    """{case id: {method: result}} from an earlier run of the same model; fine-tuned results only
    from a run with the very same adapter bytes."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if (data.get("model"), data.get("dtype"), data.get("quick")) != (model, dtype, quick):
        return {}
    same_adapter = adapter_sha is not None and data.get("adapter_sha256") == adapter_sha
    return {row["id"]: {k: v for k, v in row.items() if isinstance(v, dict) and ("fine-tuned" not in k or same_adapter)}
            for f in data.get("families", {}).values() for row in f["rows"]}


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
        f"Cases built from Python {data['python']}'s standard library (`cad_lsp/train/families.py`): top-level functions of "
        f"{MIN_LINES}-{MAX_LINES} lines (at most {MAX_CHARS} characters) from {', '.join(data['test_modules'])}, the whole function selected; none "
        "is in the training data of `cad-lsp train` (its corpora, or `--families` on other modules), so every row is held out. *built-in examples*: the three "
        "worked examples the embedded model's prompt carries in `cad-lsp edit` and `serve` (`cad_lsp/engine/prompt.py`). "
        f"*fine-tuned*: adapter `{data.get('adapter') or 'none'}` merged into the same model, zero-shot prompt; *must change*: the same, with "
        "the grammar option that refuses a program leaving the selection as it is (after copying every line in "
        "order, a `<gen>` must follow). Few-shot: "
        f"{data['few_shot']} examples of the same family from {', '.join(data['example_modules'])}. Greedy decoding, "
        f"{data['dtype']}. *exact match*: the edited selection equals the gold text byte for byte; *parses*: it is "
        "valid Python; *unchanged*: the answer left the selection as it was; *tokens decoded*: tokens the model chose "
        "one step at a time (grammar-forced tag tokens excluded; copied lines are spliced, not decoded). "
        f"{data.get('reused_results', 0)} (case, method) results were kept from an earlier run in the same folder "
        "with the same model (the held-out cases and prompts are deterministic).",
        "",
        table(headers, rows),
    ])
