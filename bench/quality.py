"""quality: a real model writing edit programs end to end, against the formats every editor uses.

On the held-out test split (``cad_lsp.train.split``: one task in five) of each
corpus, the same model and the same requests go through:

- copy/gen, zero-shot and few-shot (two short train-split examples), with
  the base model, and zero-shot with the fine-tuned adapter (``cad-lsp
  train``): the engine's own decode loop -- grammar mask, forced tags, one
  forward per copy splice -- with greedy choices;
- the fine-tuned programs again after the span-boundary repair (below);
- whole rewrite and search/replace blocks (Aider's format), greedy, from
  prompts that show the document as plain text, few-shot like the best
  copy/gen prompt of the base model.

Each answer is resolved or applied to the document and compared with the
gold text (exact match); where the corpus has tests, the edited document
runs them in a subprocess with a timeout.  Boundary errors compare each
emitted copy with the oracle copy it overlaps most.

Runs add to each other: ``CAD_LSP_QUALITY_REUSE`` (paths joined by the
path separator; default OUT/quality.json) names earlier results to keep,
``CAD_LSP_QUALITY_ONLY`` (comma-separated method names) and
``CAD_LSP_QUALITY_CORPORA`` (comma-separated corpora) limit what is computed, ``CAD_LSP_ADAPTER`` names an adapter folder other than the shipped one.

Span-boundary repair: every program whose copies could end one line earlier
or later is rescored with the model -- the alternatives that move one copy's
end by ±1 are scored in one batched forward over the shared prompt cache, by
the log-probability of the tokens the model writes -- and the best is kept.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from .runner import NO_CORPUS, pct, progress, table

TITLE = "Quality: a real model writing programs (zero-shot, few-shot, fine-tuned) vs rewrite and search/replace"
CORPORA = ["humanevalfix-py", "humanevalfix-js", "quixbugs", "commits"]
PAPER = ("untrained models: 0/33 exact match on HumanEvalFix-Py; fine-tuning pilot (Qwen2.5-Coder-1.5B): 12–17%; "
         "off-by-one boundary noise drops exact match from 100% to 15.48%")
REWRITE_SYSTEM = ("You edit code. Apply the instruction to the selected lines and answer with their complete new "
                  "text in one code block, nothing else.")
SEARCH_REPLACE_SYSTEM = (
    "You edit code. Apply the instruction to the selected lines. Answer only with SEARCH/REPLACE blocks:\n"
    "<<<<<<< SEARCH\nlines copied exactly from the file\n=======\nthe new lines\n>>>>>>> REPLACE"
)
METHOD_ORDER = ["copy/gen zero-shot", "copy/gen few-shot", "copy/gen few-shot + repair", "copy/gen few-shot + dedupe",
                "copy/gen fine-tuned", "copy/gen fine-tuned + repair", "copy/gen fine-tuned + dedupe",
                "whole rewrite", "search/replace"]
TEST_TIMEOUT_S = 10
EXTRA_TOKENS = 64  # an answer may exceed the selection's length by this much before it is cut off
FEW_SHOT = 2


# ---------------------------------------------------------------------------
# Decoding


def decode_program(backend, tokenizer, ll_tokenizer, request, examples: str, max_tokens: int,
                   must_change: bool = False):
    """Greedy, grammar-constrained program for a request: (ops, complete, stats, prompt).

    The engine's own loop (``decode_loop``) with a prompt that may carry
    few-shot examples, which ``Engine.edit`` does not take.
    """
    from cad_lsp.engine import Stats, choose_token, decode_loop
    from cad_lsp.engine.grammar import ProgramConstraint
    from cad_lsp.engine.prompt import build_prompt
    from cad_lsp.program import Document

    prompt = build_prompt(tokenizer, request.document, request.first, request.last, request.instruction,
                          examples=examples)
    state = backend.new_state()
    logits = backend.extend(state, prompt.ids)
    constraint = ProgramConstraint(ll_tokenizer, request.first, request.last, must_change=must_change)
    stats = Stats(prompt_tokens=len(prompt.ids))
    complete = decode_loop(backend, state, constraint, tokenizer, Document(request.document), logits,
                           lambda lg, c, draft: choose_token(lg, c), stats, max_tokens=max_tokens)
    return list(constraint.ops), complete, stats, prompt


def rewrite_done(text: str) -> bool:
    return text.count("```") >= 2


def search_replace_done(text: str) -> bool:
    """After a block, anything but the start of another block ends the answer."""
    end = text.rfind(">>>>>>> REPLACE")
    rest = text[end + len(">>>>>>> REPLACE") :].strip() if end >= 0 else ""
    return bool(rest) and not "<<<<<<< SEARCH".startswith(rest[:15]) and not rest.startswith("<<<<<<< SEARCH")


def greedy_text(backend, tokenizer, ids: list[int], max_tokens: int, done=None) -> tuple[str, int]:
    """Plain greedy decoding (no grammar): (text, tokens generated); ends at end-of-turn or when ``done(text)``."""
    state = backend.new_state()
    logits = backend.extend(state, ids)
    ends = {tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|im_end|>")}
    out: list[int] = []
    while len(out) < max_tokens:
        token = int(logits.argmax())
        if token in ends:
            break
        out.append(token)
        if done is not None and done(tokenizer.decode(out)):
            break
        logits = backend.extend(state, [token])
    return tokenizer.decode(out), len(out)


def chat_ids(tokenizer, system: str, user: str) -> list[int]:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    from cad_lsp.engine.prompt import _template

    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True,
                                         chat_template=_template(tokenizer))
    return tokenizer.encode(text, add_special_tokens=False)


def selected_text(request) -> str:
    from cad_lsp.program import split_lines

    return "".join(split_lines(request.document)[request.first - 1 : request.last])


def plain_request(request) -> str:
    """The document as plain text (line numbers would leak into a rewrite), then the request."""
    n = len(request.document.splitlines())
    if (request.first, request.last) == (1, n):
        selection = "Selected lines: the whole file.\n"
    else:
        selection = f"Selected lines {request.first}-{request.last}:\n```\n{selected_text(request)}```\n"
    return f"File:\n```\n{request.document}```\n{selection}Instruction: {request.instruction.strip()}\n"


def rewrite_answer(text: str) -> str:
    return f"```\n{text}```\n"


def search_replace_answer(request) -> str:
    from .formats import search_replace_blocks, search_replace_text

    return search_replace_text(search_replace_blocks(selected_text(request), request.target, unique=True))


_FENCE_RE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_BLOCK_RE = re.compile(r"<<<<<<< SEARCH\n(.*?)=======\n(.*?)>>>>>>> REPLACE", re.S)


def parse_rewrite(text: str) -> str | None:
    m = _FENCE_RE.search(text)
    return m.group(1) if m else None


def parse_search_replace(text: str) -> list[tuple[str, str]]:
    return [(s, r) for s, r in _BLOCK_RE.findall(text)]


# ---------------------------------------------------------------------------
# Boundary errors and the repair


def boundary_errors(ops, oracle_ops) -> list[tuple[int, int] | None]:
    """(start - gold start, end - gold end) for each emitted copy against the oracle copy it overlaps most.

    None for a copy that overlaps no oracle copy.
    """
    from cad_lsp.program import Copy

    gold = [op for op in oracle_ops if isinstance(op, Copy)]
    out = []
    for op in ops:
        if not isinstance(op, Copy):
            continue
        best, overlap = None, 0
        for g in gold:
            shared = min(op.end, g.end) - max(op.start, g.start) + 1
            if shared > overlap:
                best, overlap = g, shared
        out.append(None if best is None else (op.start - best.start, op.end - best.end))
    return out


def end_alternatives(ops, request) -> list[list]:
    """Programs with one copy's end moved by ±1 that are still valid for the selection."""
    from cad_lsp.program import Copy, Document, ProgramError, resolve_pieces

    doc = Document(request.document)
    out = []
    for index, op in enumerate(ops):
        if not isinstance(op, Copy):
            continue
        for delta in (-1, 1):
            moved = replace(op, end=op.end + delta)
            if moved.end < moved.start or moved.end > request.last:
                continue
            candidate = ops[:index] + [moved] + ops[index + 1 :]
            try:
                resolve_pieces(candidate, doc)
            except ProgramError:
                continue
            out.append(candidate)
    return out


def score_programs(loaded, prompt, request, programs: list[list], eos: int) -> list[float]:
    """Log-probability of the tokens each program makes the model write, in one batched forward.

    The prompt is computed once and its cache repeated across the batch;
    programs are right-padded, which a causal model never attends to.
    """
    import torch
    from transformers import DynamicCache

    from cad_lsp.backends.pytorch.kvcache import cache_argument

    from cad_lsp.train.sft import IGNORE, training_sequence

    tail_ids, tail_labels = [], []
    for ops in programs:
        seq = training_sequence(loaded.tokenizer, request, ops, eos)  # its own prompt is dropped: only the program
        tail_ids.append(prompt.ids[-1:] + seq.ids[seq.prompt_len :])  # the prompt's last token predicts the first
        tail_labels.append([IGNORE] + seq.labels[seq.prompt_len :])
    width = max(map(len, tail_ids))
    pad = lambda rows, value: [r + [value] * (width - len(r)) for r in rows]  # noqa: E731
    model = loaded.model
    with torch.inference_mode():
        cache = DynamicCache(config=model.config)
        model(torch.tensor([prompt.ids[:-1]], device=loaded.device), **cache_argument(model, cache), use_cache=True, logits_to_keep=1)
        cache.batch_repeat_interleave(len(programs))
        ids = torch.tensor(pad(tail_ids, 0), device=loaded.device)
        logits = model(ids, **cache_argument(model, cache), use_cache=True).logits.float()
    labels = torch.tensor(pad(tail_labels, IGNORE), device=loaded.device)[:, 1:]
    logp = torch.log_softmax(logits[:, :-1], dim=-1)
    mask = labels != IGNORE
    picked = logp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return (picked * mask).sum(-1).tolist()


def repair(loaded, prompt, request, ops, eos: int) -> list:
    """The best of the program and its ±1 copy-end alternatives, by the model's own score."""
    alternatives = end_alternatives(ops, request)
    if not alternatives:
        return ops
    scores = score_programs(loaded, prompt, request, [ops] + alternatives, eos)
    return ([ops] + alternatives)[max(range(len(scores)), key=scores.__getitem__)]


def similar(a: str, b: str, threshold: float = 0.7) -> bool:
    """Two different lines with the same indentation and mostly the same text: a line and its fix."""
    a, b = a.rstrip("\r\n"), b.rstrip("\r\n")
    indent = lambda s: s[: len(s) - len(s.lstrip())]  # noqa: E731
    return a != b and a.strip() != "" and indent(a) == indent(b) and \
        difflib.SequenceMatcher(None, a, b).ratio() >= threshold


def dedupe(ops, request) -> list:
    """Model-free repair: a copy that ends on a line its next gen rewrites (or starts on a line the
    previous gen rewrote) loses that line -- the model copied the old line and then wrote its fix."""
    from cad_lsp.program import Copy, Gen, split_lines

    lines = split_lines(request.document)
    out = list(ops)
    for i, op in enumerate(out):
        if not isinstance(op, Copy):
            continue
        after = out[i + 1] if i + 1 < len(out) else None
        if isinstance(after, Gen) and op.end > op.start and similar(lines[op.end - 1], (split_lines(after.text) or [""])[0]):
            op = out[i] = replace(op, end=op.end - 1)
        before = out[i - 1] if i > 0 else None
        if isinstance(before, Gen) and op.start < op.end and similar(lines[op.start - 1], (split_lines(before.text) or [""])[-1]):
            out[i] = replace(op, start=op.start + 1)
    return out


# ---------------------------------------------------------------------------
# Tests


def run_tests(pair, document: str) -> bool | None:
    """True/False when the edited document passes/fails the row's tests; None when the row has none."""
    test = pair.extra.get("test")
    if not test:
        return None
    if pair.lang == "javascript":
        program = ("console.assert = (ok, ...m) => { if (!ok) throw new Error('assertion failed ' + m.join(' ')) };\n"
                   + document + "\n\n" + test + "\n")
        command, suffix = ["node"], ".js"
    else:
        program, command, suffix = document + "\n\n" + test + "\n", [sys.executable], ".py"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "test" + suffix)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(program)
        try:
            done = subprocess.run(command + [path], cwd=folder, capture_output=True, timeout=TEST_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return False
    return done.returncode == 0


# ---------------------------------------------------------------------------
# The benchmark


def splice_document(request, text: str) -> str:
    from cad_lsp.program import split_lines

    lines = split_lines(request.document)
    return "".join(lines[: request.first - 1]) + text + "".join(lines[request.last :])


def few_shot_text(tokenizer, train: list, fmt: str) -> str:
    from cad_lsp.engine.prompt import example_text
    from cad_lsp.train.split import few_shot_requests, oracle_for

    parts = []
    for ex in few_shot_requests(train, FEW_SHOT):
        if fmt == "copy/gen":
            parts.append(example_text(ex.document, ex.first, ex.last, ex.instruction, oracle_for(ex)))
        else:
            answer = rewrite_answer(ex.target) if fmt == "rewrite" else search_replace_answer(ex)
            parts.append(f"Example. {plain_request(ex)}Answer:\n{answer}\n")
    return "".join(parts) + ("Now the request.\n" if parts else "")


def evaluate_row(ctx, pair, request, tests_cache, earlier: dict | None = None) -> dict:
    """Every method on one request: a dict per method.

    ``earlier`` holds this row's results from an earlier run of the same
    base model; its methods are kept, not rerun (fine-tuned ones always rerun).
    """
    from cad_lsp.program import resolve
    from cad_lsp.program.metrics import copy_coverage, token_counter
    from cad_lsp.train.split import oracle_for

    from .formats import apply_search_replace

    count = token_counter(ctx["base"].tokenizer)
    budget = count(selected_text(request)) + EXTRA_TOKENS
    if ctx["quick"]:
        budget = 24
    gold_ops = oracle_for(request)
    out = {k: v for k, v in (earlier or {}).items() if k != "id"}
    wanted = lambda m: m in out or not ctx["only"] or m in ctx["only"]  # noqa: E731

    def finish(name, text, parsed, tokens, ops=None):
        exact = parsed and text == request.target
        entry = {"parsed": parsed, "exact": exact, "tokens": tokens}
        if parsed and pair.extra.get("test"):
            document = splice_document(request, text)
            if document not in tests_cache:
                tests_cache[document] = run_tests(pair, document)
            entry["tests"] = tests_cache[document]
        if ops is not None:
            entry["boundaries"] = boundary_errors(ops, gold_ops)
            entry["coverage"] = copy_coverage(ops, request.document, count) if parsed else None
        out[name] = entry

    for method, (loaded, backend, examples) in ctx["cad"].items():
        if method in out or not wanted(method):
            continue
        ops, complete, stats, prompt = decode_program(backend, loaded.tokenizer, ctx["ll"], request, examples,
                                                      budget)
        text = resolve(ops, request.document, request.first, request.last)
        finish(method, text, complete, stats.sampled_tokens, ops)
        out[method]["forced"] = stats.forced_tokens
        if method == ctx["repair_of"]:
            fixed = repair(loaded, prompt, request, ops, ctx["eos"]) if complete else ops
            finish(method + " + repair", resolve(fixed, request.document, request.first, request.last), complete,
                   stats.sampled_tokens, fixed)
            out[method + " + repair"]["changed"] = fixed != ops
            deduped = dedupe(ops, request)
            finish(method + " + dedupe", resolve(deduped, request.document, request.first, request.last), complete,
                   stats.sampled_tokens, deduped)
            out[method + " + dedupe"]["changed"] = deduped != ops

    base, backend = ctx["base"], ctx["base_backend"]
    if wanted("whole rewrite") and "whole rewrite" not in out:
        ids = chat_ids(base.tokenizer, REWRITE_SYSTEM, ctx["rewrite_examples"] + plain_request(request))
        answer, n = greedy_text(backend, base.tokenizer, ids, budget, rewrite_done)
        text = parse_rewrite(answer)
        finish("whole rewrite", text or "", text is not None, n)
    if wanted("search/replace") and "search/replace" not in out:
        ids = chat_ids(base.tokenizer, SEARCH_REPLACE_SYSTEM, ctx["sr_examples"] + plain_request(request))
        answer, n = greedy_text(backend, base.tokenizer, ids, budget, search_replace_done)
        blocks = parse_search_replace(answer)
        applied, _, missing = apply_search_replace(selected_text(request), blocks)
        finish("search/replace", applied, bool(blocks) and not missing, n)
    out["gold_tokens"] = count(request.target)
    out["gold_tests"] = run_tests(pair, request.after) if pair.extra.get("test") else None
    return out


def run(args) -> dict:
    import torch

    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.loading import SMOLLM2_ADAPTER, load_model
    from cad_lsp.engine.grammar import ll_tokenizer
    from cad_lsp.train import corpora
    from cad_lsp.train.sft import end_of_program
    from cad_lsp.train.split import request_for, split

    if corpora.data_dir() is None:
        return {"skipped": NO_CORPUS, "dtype": "n/a"}
    quick = args.quick
    name = args.model or ("random:tiny" if quick else "smollm2")
    base_name = "smollm2:base" if name == "smollm2" else name
    dtype = args.dtype or "fp32"
    limit = args.limit if args.limit is not None else (2 if quick else None)
    shipped = SMOLLM2_ADAPTER if name == "smollm2" and (SMOLLM2_ADAPTER / "adapter_config.json").is_file() else None
    adapter = os.environ.get("CAD_LSP_ADAPTER") or shipped
    base = load_model(base_name, args.device, dtype)
    tuned = load_model(base_name, args.device, dtype, adapter=adapter) if adapter else None
    ll = ll_tokenizer(base.tokenizer)
    base_backend = LocalModel(base)
    adapter_sha = adapter_digest(adapter)
    reuse = os.environ.get("CAD_LSP_QUALITY_REUSE")
    paths = [Path(p) for p in reuse.split(os.pathsep)] if reuse else [args.out / "quality.json"]
    earlier = reusable(paths, base_name, dtype, quick, adapter_sha)
    only = {m.strip() for m in os.environ.get("CAD_LSP_QUALITY_ONLY", "").split(",") if m.strip()}
    results = {}
    chosen = [c.strip() for c in os.environ.get("CAD_LSP_QUALITY_CORPORA", "").split(",") if c.strip()] or CORPORA
    for corpus in chosen:
        train, test = split(corpora.load(corpus))
        test = test[:limit] if limit is not None else test
        cad = {"copy/gen zero-shot": (base, base_backend, ""),
               "copy/gen few-shot": (base, base_backend, few_shot_text(base.tokenizer, train, "copy/gen"))}
        if tuned is not None:
            cad["copy/gen fine-tuned"] = (tuned, LocalModel(tuned), "")
        ctx = {"quick": quick, "only": only, "base": base, "base_backend": base_backend, "ll": ll, "cad": cad,
               "eos": end_of_program(base.tokenizer),
               "repair_of": "copy/gen fine-tuned" if tuned is not None else "copy/gen few-shot",
               "rewrite_examples": few_shot_text(base.tokenizer, train, "rewrite"),
               "sr_examples": few_shot_text(base.tokenizer, train, "search/replace")}
        rows, tests_cache = [], {}
        for pair in progress(test, f"quality {corpus}"):
            request = request_for(pair)
            row = evaluate_row(ctx, pair, request, tests_cache, earlier.get((corpus, pair.id)))
            rows.append({"id": pair.id, **row})
        results[corpus] = {"test_rows": len(split(corpora.load(corpus))[1]), "evaluated": len(rows),
                           "train_rows": len(train), "rows": rows, "summary": summarize(rows)}
    return {"dtype": dtype, "model": base_name, "adapter": str(adapter) if adapter else None,
            "adapter_sha256": adapter_sha,
            "reused_rows": sum(1 for c, rs in results.items() for r in rs["rows"] if (c, r["id"]) in earlier),
            "threads": torch.get_num_threads(), "few_shot": FEW_SHOT, "extra_tokens": EXTRA_TOKENS,
            "corpora": results}


def adapter_digest(adapter) -> str | None:
    import hashlib

    if not adapter:
        return None
    return hashlib.sha256((Path(adapter) / "adapter_model.safetensors").read_bytes()).hexdigest()


def reusable(paths, model: str, dtype: str, quick: bool, adapter_sha: str | None) -> dict:
    """{(corpus, row id): {method: result}} from earlier runs with the same base model (and adapter).

    Evaluating every method takes hours on a busy CPU; this lets the base
    model's rows be measured while the adapter trains, and the adapter's
    after, each run adding what the others lack.  Fine-tuned results are kept
    only from a run with the very same adapter bytes.
    """
    import json

    rows: dict = {}
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("model") != model or data.get("dtype") != dtype or data.get("quick") != quick:
            continue
        same_adapter = adapter_sha is not None and data.get("adapter_sha256") == adapter_sha
        for corpus, c in data.get("corpora", {}).items():
            for row in c["rows"]:
                kept = {k: v for k, v in row.items() if k != "id" and ("fine-tuned" not in k or same_adapter)}
                rows.setdefault((corpus, row["id"]), {}).update(kept)
    return rows


def summarize(rows: list[dict]) -> dict:
    found = [k for k in rows[0] if isinstance(rows[0][k], dict)] if rows else []
    methods = sorted(found, key=lambda m: (METHOD_ORDER.index(m) if m in METHOD_ORDER else len(METHOD_ORDER), m))
    summary = {}
    gold_ok = [r["gold_tests"] for r in rows]
    for m in methods:
        entries = [r[m] for r in rows]
        n = len(entries)
        tested = [e.get("tests") for e, ok in zip(entries, gold_ok) if ok]
        bounds = [b for e in entries for b in e.get("boundaries", [])]
        matched = [tuple(b) for b in bounds if b is not None]  # lists once read back from JSON
        s = {"n": n, "parsed": sum(e["parsed"] for e in entries), "exact": sum(e["exact"] for e in entries),
             "tests_runnable": sum(1 for ok in gold_ok if ok), "tests_passed": sum(1 for t in tested if t),
             "tokens_mean": sum(e["tokens"] for e in entries) / n if n else None,
             "gold_tokens_mean": sum(r["gold_tokens"] for r in rows) / n if n else None}
        if "coverage" in entries[0]:
            covered = [e["coverage"] for e in entries if e["coverage"] is not None]
            s.update({
                "coverage_mean": sum(covered) / len(covered) if covered else None,
                "copies": len(bounds), "copies_unmatched": len(bounds) - len(matched),
                "copies_exact": sum(1 for b in matched if b == (0, 0)),
                "start_off_1": sum(1 for b in matched if abs(b[0]) == 1),
                "end_off_1": sum(1 for b in matched if abs(b[1]) == 1),
                "start_off_2plus": sum(1 for b in matched if abs(b[0]) >= 2),
                "end_off_2plus": sum(1 for b in matched if abs(b[1]) >= 2),
            })
        if "changed" in entries[0]:
            s["repair_changed"] = sum(e["changed"] for e in entries)
        summary[m] = s
    return summary


def markdown(data: dict) -> str:
    headers = ["corpus", "method", "rows", "parse", "exact match", "tests pass", "copy coverage",
               "copies: exact / start ±1 / end ±1 / off ≥2 / no overlap", "tokens decoded (mean)", "whole rewrite of gold"]
    rows = []
    for corpus, c in data["corpora"].items():
        for method, s in c["summary"].items():
            n = s["n"]
            tests = f"{s['tests_passed']}/{s['tests_runnable']}" if s["tests_runnable"] else "n/a"
            bounds = ""
            if "copies" in s:
                off2 = s["start_off_2plus"] + s["end_off_2plus"]
                bounds = (f"{s['copies_exact']} / {s['start_off_1']} / {s['end_off_1']} / {off2} / "
                          f"{s['copies_unmatched']} of {s['copies']}")
            extra = f" ({s['repair_changed']} changed)" if "repair_changed" in s else ""
            rows.append([corpus, method + extra, f"{n} of {c['test_rows']}", pct(s["parsed"] / n if n else None),
                         f"{s['exact']}/{n} ({pct(s['exact'] / n if n else None)})", tests,
                         pct(s["coverage_mean"]) if "copies" in s else "",
                         bounds, f"{s['tokens_mean']:.0f}", f"{s['gold_tokens_mean']:.0f}"])
    adapter = data.get("adapter") or "none"
    return "\n".join([
        f"Paper: {PAPER}. Here: model `{data['model']}` ({data['dtype']}), adapter `{adapter}`, greedy decoding, "
        f"the first rows of each held-out test split (one task in five; `cad_lsp/train/split.py`), {data['few_shot']} "
        "few-shot examples from the train split. Copy/gen rows run the engine's decode loop (grammar, forced tags, "
        "splices); the fine-tuned row merges the LoRA adapter into the same base and uses the zero-shot prompt; "
        "\"+ repair\" rescores ±1 copy ends with the model, \"+ dedupe\" is the model-free repair. Whole rewrite "
        "and search/replace use the few-shot prompt. \"tests pass\" counts rows whose gold answer passes its "
        "tests; copy coverage is over parsed programs; \"tokens decoded\" is what the model chose one step at a "
        "time (grammar-forced tag tokens excluded), beside the tokens of the gold selection. Boundary columns "
        "count emitted copies against the oracle copy each overlaps most (a copy can be off at both ends). "
        f"{data.get('reused_rows', 0)} rows kept base-model results from an earlier run in the same folder.",
        "",
        table(headers, rows),
    ])


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.quality [runner options]``: this benchmark alone, as the runner would run it."""
    import json
    import time
    from datetime import datetime, timezone

    from .runner import build_parser, load_average, machine, set_threads

    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(["report"] + argv)
    args.name, args.command = "quality", "cad-lsp bench quality " + " ".join(argv)
    set_threads(args)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    load_before, t0 = load_average(), time.perf_counter()
    payload = run(args)
    data = {"benchmark": "quality", "command": args.command, "quick": args.quick, "started": started,
            "seconds": round(time.perf_counter() - t0, 1),
            "machine": {**machine(args.device), "load_average": {"before": load_before, "after": load_average()}},
            **payload}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "quality.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    body = f"{data['skipped']}: not run" if data.get("skipped") else markdown(data)
    (args.out / "quality.md").write_text(f"## {TITLE}\n\n{body}\n", encoding="utf-8")
    print(f"bench quality: {data['seconds']} s -> {args.out / 'quality.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
