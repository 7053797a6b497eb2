"""apply --suite peer: updates other people wrote, merged by the rules alone and by the model's program.

Three sets nobody tuned the generator on: Continue's lazy-apply fixtures (``../shared/data/apply-peer``, the
23 sound ones and the 6 whose expected output Continue got wrong, reported apart), the hand-written chat-style
updates the unit tests use (``tests/data/apply-chat.jsonl``), and a set of the same kind kept apart from all
tuning (``bench/data/apply-chat-heldout.jsonl``); beside them the project's own held-out updates
(``bench apply``'s cases) by the rules.  Each case is merged by the rules (``merge_update``: syntax, else
lines) and by ``Engine.apply`` (the model's program under the grammar): both exact, per language and per
class, with which reading placed it.  Compared as Continue compares (trailing blanks and whitespace-only lines
ignored) on the peer fixtures, byte for byte elsewhere.

The model's own call, which the grammar no longer leaves it, is measured on the cases where line placement
guesses whether new text rewrites a line: the rules' choice, the model's choice under the grammar that lets it
keep or drop those lines, and the candidate merges scored by the model's likelihood of the merged file.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

from .runner import median, pct, progress, table

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT.parent / "shared" / "data" / "apply-peer" / "continue-lazy.jsonl"
CHAT = ROOT / "tests" / "data" / "apply-chat.jsonl"
HELD_OUT = ROOT / "bench" / "data" / "apply-chat-heldout.jsonl"
# a second set written apart, in 19 languages and file kinds (Scala, Elixir, Dart, Lua, SQL, HTML, CSS, Svelte,
# Vue, Terraform, shell, Dockerfile among them), measured as it came and never tuned on
HELD_OUT_2 = ROOT / "bench" / "data" / "apply-chat-heldout-2.jsonl"

# What each sound peer fixture exercises (the classes, or the whole file shown)
PEER_CLASSES = {
    "api-service-test": "closing-brace", "bare-function-replacement": "pasted-alone",
    "calculator-class-neglected.js": "pasted-alone", "calculator-comments.js": "closing-brace",
    "calculator-docstrings.js": "whole-file", "calculator-exp.js": "closing-brace",
    "calculator-exp2.js": "closing-brace", "calculator-only-method.js": "pasted-alone",
    "calculator-similar-functions": "pasted-alone", "calculator-stateless.js": "end-of-block",
    "crud-operations-similar": "pasted-alone", "fastapi.py": "rewritten-line", "markdown-add-section": "markdown",
    "markdown-section-reordering": "markdown", "migration-page.tsx": "marker-syntax",
    "minimal-function-replacement": "end-of-block", "no-lazy.js": "pasted-alone",
    "react-component-test": "closing-brace", "rust-calc-exp.rs": "whole-file",
    "targeted-double-function": "pasted-alone", "test-flattening": "whole-file", "top-level-same.js": "other",
    "vitest-suite": "whole-file",
}


def load(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def suites() -> dict[str, list[dict]]:
    """name -> cases with id, lang, ext, class, before, update, after, loose (compare as Continue does)."""
    out: dict[str, list[dict]] = {}
    peer = load(PEER)
    for name, sound in (("peer", True), ("peer, flawed expectations", False)):
        out[name] = [{**case, "class": PEER_CLASSES.get(case["id"].split("/", 1)[1], "other"), "loose": True}
                     for case in peer if case["sound"] is sound]
    out["chat (tests)"] = [{**case, "loose": False} for case in load(CHAT)]
    out["chat (held out)"] = [{**case, "loose": False} for case in load(HELD_OUT)]
    out["chat (held out, second set)"] = [{**case, "loose": False} for case in load(HELD_OUT_2)]
    return {name: cases for name, cases in out.items() if cases}


def blank_insensitive(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def same(a: str, b: str, loose: bool) -> bool:
    return blank_insensitive(a) == blank_insensitive(b) if loose else a == b


def rules(case: dict) -> dict:
    from cad_lsp.program.update import UpdateError, merge_update

    t0 = time.perf_counter()
    try:
        merge = merge_update(case["before"], case["update"], case["ext"])
    except UpdateError as exc:
        return {"rules": None, "why": str(exc), "rules_s": time.perf_counter() - t0}
    return {"rules": same(merge.merged, case["after"], case["loose"]), "rules_s": time.perf_counter() - t0,
            "reading": "lines" if merge.placement is not None else "syntax", "unseen": merge.unseen_lines}


def model(engine, case: dict) -> dict:
    from cad_lsp.engine import EngineError
    from cad_lsp.program import apply_program

    try:
        result = engine.apply(case["before"], case["update"], key=case["id"], language=case["ext"])
    except EngineError:
        return {"model": None}
    merged = apply_program(result.ops, case["before"], result.first_line, result.last_line)
    return {"model": result.complete and same(merged, case["after"], case["loose"]),
            "forwards": result.stats.forwards, "model_s": result.stats.total_s}


def run(args) -> dict:
    from cad_lsp.backends import open_engine

    from .apply import quality_cases

    model_name = args.model or ("random:tiny" if args.quick else "smollm2")
    engine = open_engine(model_name, args.device, args.dtype or "fp32")
    rows = []
    for name, cases in suites().items():
        for case in progress(cases[:2] if args.quick else cases, f"apply {name}"):
            rows.append({"suite": name, "id": case["id"], "lang": case["lang"], "class": case["class"],
                         **rules(case), **model(engine, case)})
    own = []
    for group, case in quality_cases(args):
        lang = "javascript" if "-js" in group else "python"
        row = rules({"id": case.id, "ext": lang, "before": case.document, "update": case.update,
                     "after": case.after, "loose": False})
        own.append({"suite": group, "style": case.style, **row})
    calls = model_calls(engine, rows, own, args) if not args.quick else []
    return {"model": model_name, "rows": rows, "own": own, "calls": calls}


def model_calls(engine, rows, own, args) -> list[dict]:
    """On every case where line placement guesses that new text rewrites a file line: the rules' merge (the
    line dropped), the model's call (the grammar lets it keep or drop the line, as apply once did), and the
    two merges scored by the model's likelihood of the merged file after a FastApply prompt."""
    import dataclasses

    import numpy as np

    from cad_lsp.engine import engine as engine_module
    from cad_lsp.program import apply_program
    from cad_lsp.program import update as update_module

    from .apply import FASTAPPLY_SYSTEM, FASTAPPLY_USER, quality_cases
    from .quality import chat_ids

    cases = [case for cases in suites().values() for case in cases]
    cases += [{"id": c.id, "ext": "javascript" if "-js" in g else "python", "before": c.document,
               "update": c.update, "after": c.after, "loose": False} for g, c in quality_cases(args)]
    out = []
    for case in progress(cases, "apply: the model's call"):
        try:
            merge = update_module.merge_update(case["before"], case["update"], case["ext"])
        except update_module.UpdateError:
            continue
        guessed = merge.placement.replaced if merge.placement is not None else frozenset()
        guessed = {n for n in guessed if merge.first <= n <= merge.last}
        if not guessed:
            continue
        kept = keeping(case["before"], case["update"], update_module, dataclasses)
        called = with_call(engine, engine_module, case, merge.first, guessed, apply_program)
        prompt = chat_ids(engine.tokenizer, FASTAPPLY_SYSTEM,
                          FASTAPPLY_USER.format(code=case["before"], update=case["update"]))
        scores = log_likelihoods(engine, prompt, [merge.merged, kept], np)
        likely = merge.merged if scores[0] >= scores[1] else kept
        out.append({"id": case["id"], "rules": same(merge.merged, case["after"], case["loose"]),
                    "kept": same(kept, case["after"], case["loose"]), "differ": kept != merge.merged,
                    "model": called is not None and same(called, case["after"], case["loose"]),
                    "likelihood": same(likely, case["after"], case["loose"])})
    return out


def keeping(document: str, update: str, update_module, dataclasses) -> str:
    """The line merge with the lines new text rewrites kept beside it (the other answer to the call)."""
    placed = update_module.align_update(document, update)
    original = update_module.align_update
    update_module.align_update = lambda d, u, **_: dataclasses.replace(placed, replaced=frozenset())
    try:
        return update_module._line_merge(document, update).merged
    finally:
        update_module.align_update = original


def with_call(engine, engine_module, case, region_first: int, guessed, apply_program) -> str | None:
    """Engine.apply with the grammar letting the model keep or drop the guessed lines."""
    from cad_lsp.engine import EngineError
    from cad_lsp.engine.grammar import line_runs

    original = engine_module.apply_constraint

    def constraint(tokenizer, plan, first, last):
        made = original(tokenizer, plan, first, last)
        offset = region_first - first  # the prompt's window numbers the file's lines from its start
        keep = sorted(set(made.must) | {n - offset for n in guessed})
        return type(made)(tokenizer, first, last, keep=tuple(line_runs(keep)), must=made.must, adds=made.adds)

    engine_module.apply_constraint = constraint
    try:
        result = engine.apply(case["before"], case["update"], key=case["id"], language=case["ext"])
        return apply_program(result.ops, case["before"], result.first_line, result.last_line)
    except EngineError:
        return None
    finally:
        engine_module.apply_constraint = original


def log_likelihoods(engine, prompt: list[int], texts: list[str], np) -> list[float]:
    """The model's log-probability of each text after ``prompt``: the prompt read once, then one forward per
    text over its tokens (the cache cropped back between them)."""
    backend = engine.backend
    state = backend.new_state()
    backend.extend(state, prompt[:-1])
    out = []
    for text in texts:
        ids = engine.tokenizer.encode(text, add_special_tokens=False)
        logits = np.asarray(backend.extend_scored(state, [prompt[-1]] + ids[:-1], range(len(ids))),
                            dtype=np.float64)
        backend.crop(state, len(prompt) - 1)
        logits -= logits.max(axis=-1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
        out.append(float(sum(logp[i, token] for i, token in enumerate(ids))))
    return out


def markdown(data: dict) -> str:
    rows = data["rows"]
    parts = [f"Model `{data['model']}` for the model's program (greedy, fp32). *rules*: `merge_update` alone "
             f"(syntax where the file and the update parse, else lines); *model*: `Engine.apply`, the model's "
             f"program under the grammar; *exact*: as Continue's own test compares on its fixtures (trailing "
             f"blanks and whitespace-only lines ignored), byte for byte on the others; *refused*: no single place."]
    for key, title in (("suite", "set"), ("lang", "language"), ("class", "class")):
        groups: dict[tuple, list[dict]] = defaultdict(list)
        for row in rows:
            groups[(row["suite"], row[key]) if key != "suite" else (row["suite"],)].append(row)
        table_rows = []
        for group, members in sorted(groups.items()):
            n = len(members)
            right = sum(bool(r["rules"]) for r in members)
            modelled = sum(bool(r.get("model")) for r in members)
            table_rows.append([*group, n, f"{right} ({pct(right / n)})", f"{modelled} ({pct(modelled / n)})",
                               sum(r["rules"] is None for r in members),
                               sum(r.get("reading") == "syntax" for r in members),
                               sum(r.get("unseen", 0) > 0 for r in members),
                               median([r.get("forwards", 0) for r in members])])
        head = ["set"] + ([title] if key != "suite" else [])
        parts.append(table(head + ["n", "rules (exact)", "model (exact)", "refused", "placed by syntax",
                                   "removed unseen", "forwards (median)"], table_rows))
    own = data["own"]
    by_group: dict[str, list[dict]] = defaultdict(list)
    for row in own:
        by_group[row["suite"]].append(row)
        by_group["all"].append(row)
    parts.append("The project's own held-out updates (`bench apply`'s cases, generated by `train/updates.py`), by the "
                 "rules:\n\n" + table(["cases", "n", "rules (exact)", "refused", "placed by syntax", "removed unseen",
                                       "median time (ms)"],
                                      [[g, len(m), f"{sum(bool(r['rules']) for r in m)} "
                                        f"({pct(sum(bool(r['rules']) for r in m) / len(m))})",
                                        sum(r["rules"] is None for r in m),
                                        sum(r.get("reading") == "syntax" for r in m),
                                        sum(r.get("unseen", 0) > 0 for r in m),
                                        round(1000 * median([r["rules_s"] for r in m]), 1)]
                                       for g, m in sorted(by_group.items(), key=lambda kv: kv[0] == "all")]))
    calls = data.get("calls") or []
    if calls:
        differ = [c for c in calls if c["differ"]]
        parts.append(
            f"The model's call: {len(calls)} cases (of all the sets above) where line placement guesses that new "
            f"text rewrites a file line; in {len(differ)} keeping the line gives another file.\n\n" + table(
                ["decided by", "exact (all)", "exact (where keeping differs)"],
                [[name, f"{sum(c[k] for c in calls)} / {len(calls)}", f"{sum(c[k] for c in differ)} / {len(differ)}"]
                 for name, k in (("the rules (the line dropped)", "rules"), ("the model's call", "model"),
                                 ("the model's likelihood of each merged file", "likelihood"),
                                 ("keeping the line", "kept"))]))
    return "\n\n".join(parts)
