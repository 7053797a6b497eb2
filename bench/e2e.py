"""e2e: real wall-clock of whole-document edits, Copy-as-Decode vs the autoregressive rewrite.

Each sampled pair's oracle program is run teacher-forced through the
engine's real decode loop (grammar, forced tags, splices) and the same
output is rewritten token by token on the same warm prompt, by the same
model, in the same run, alternating which goes first.  Prefill is excluded
from both.  The closed-form bound for the same pairs (ceiling's formula, with
a kernel curve measured now on this model) shows how much of it is reached.

The speculative peer, prompt-lookup decoding, runs two ways.  Teacher-forced
on the gold output, as the programs are (``lookup_forced``: Hugging Face's
rule for a draft, a drafted token kept exactly when it is the output's next
one), for every model, on the same warm prompt as the rewrite.  And as
Hugging Face's own ``generate`` against its greedy decoding, on the model's
own output: only meaningful with real weights (its drafts are accepted when
the model agrees with them), so only for ``--model smollm2``.  That output
is whatever the model writes up to the gold length plus 16 tokens (SmolLM2
ran to that limit on all 25 pairs), not the edit the programs write.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from cad_lsp.engine.drafter import EDIT_KINDS as KINDS

from .runner import (
    NO_CORPUS,
    corpus_pairs,
    draft_counts,
    dtypes,
    median,
    model_name,
    progress,
    pyplot,
    save_figure,
    table,
    times,
)

REWRITE_SYSTEM = ("You edit code. Rewrite the whole file with the instruction applied. "
                  "Answer with the complete new file only.")
LOOKUP_TOKENS = 10
LOOKUP_NGRAM = 2  # Hugging Face's max_matching_ngram_size default
REAL_WEIGHTS = {"smollm2"}  # models whose prompt-lookup acceptance means something
LOOKUP_NA = ("n/a: `generate`'s prompt-lookup acceptance depends on the model agreeing with drafts copied from the "
             "prompt; with random weights that agreement is noise, so that peer runs only with --model smollm2 "
             "(the teacher-forced one above runs for every model)")
PAPER_BOUND = {"humanevalfix-py": 3.4, "humanevalfix-js": 4.2}


def sample(pairs: list, k: int, max_out: int, count, seed: int) -> list:
    """k pairs, seeded, among those whose output has at most max_out tokens (else the k shortest)."""
    fitting = [p for p in pairs if count(p.after) <= max_out]
    if len(fitting) < k:
        return sorted(pairs, key=lambda p: count(p.after))[:k]
    return random.Random(seed).sample(fitting, k)


SIDES = ["cad", "spec", "ar", "lookup"]  # CaD, CaD with speculation, the rewrite, prompt lookup on it


def lookup_draft(seq: list[int], most: int) -> list[int]:
    """Hugging Face's prompt-lookup draft: after the earliest earlier occurrence of the last ``LOOKUP_NGRAM``
    tokens (else of fewer), the up to ``most`` tokens that followed it.  Vectorised as Hugging Face's is: its
    time counts in prompt lookup's, and a Python scan of a long prompt at every forward would slow it."""
    import numpy as np

    ids = np.asarray(seq)
    for size in range(min(LOOKUP_NGRAM, len(seq) - 1), 0, -1):
        windows = np.lib.stride_tricks.sliding_window_view(ids[:-1], size)  # each n-gram with a token after it
        hits = np.flatnonzero((windows == ids[-size:]).all(axis=1))
        if hits.size:
            start = int(hits[0]) + size
            return seq[start:start + most]
    return []


def lookup_forced(backend, state, ids: list[int]) -> tuple[int, float]:
    """Prompt lookup writing ``ids``, teacher-forced: each forward takes the next token and a draft looked up in
    the prompt and what is written so far, and keeps the draft as far as it matches ``ids`` (as greedy
    verification would if the model wrote ``ids``).  Returns (forwards, seconds)."""
    t0 = time.perf_counter()
    seq, done, forwards = list(state.ids), 0, 0
    while done < len(ids):
        seq.append(ids[done])
        draft = lookup_draft(seq, min(LOOKUP_TOKENS, len(ids) - done - 1))
        fed = [ids[done]] + draft
        backend.extend_scored(state, fed, list(range(len(fed))))
        forwards += 1
        kept = 0
        while kept < len(draft) and draft[kept] == ids[done + 1 + kept]:
            kept += 1
        backend.crop(state, len(state.ids) - len(draft) + kept)
        seq += draft[:kept]
        done += 1 + kept
    return forwards, time.perf_counter() - t0


def time_pair(engine, pair, ops, repeats: int, first: int) -> dict:
    """Median seconds of the teacher-forced program without and with speculation and of the rewrite,
    rotating which runs first.

    Teacher forcing makes speculation's acceptance honest: a drafted token is
    kept exactly when it is the program's next token, as a model writing this
    program would choose it.
    """
    key = f"{pair.corpus}/{pair.id}"
    engine.warm(key, pair.before)
    seconds = {side: [] for side in SIDES}
    stats, lookup_forwards = {}, 0
    for r in range(repeats):
        turn = (first + r) % len(SIDES)
        for which in SIDES[turn:] + SIDES[:turn]:
            if which in ("ar", "lookup"):
                forwards, spent = engine.rewrite_baseline(
                    pair.before, 1, None, pair.after, key=key, instruction=pair.instruction,
                    **({"decode": lookup_forced} if which == "lookup" else {}))
                seconds[which].append(spent)
                if which == "lookup":
                    lookup_forwards = forwards
                continue
            result = engine.edit(pair.before, 1, None, pair.instruction, key=key, program=ops,
                                 speculate=which == "spec")
            if not result.complete or result.text != pair.after:
                raise RuntimeError(f"{key}: the teacher-forced program did not reproduce the gold text")
            seconds[which].append(result.stats.total_s - result.stats.prefill_s)
            stats[which] = result.stats
    engine.forget(key)
    s, f = stats["cad"], stats["spec"]
    return {"t_cad_s": median(seconds["cad"]), "t_spec_s": median(seconds["spec"]), "t_ar_s": median(seconds["ar"]),
            "t_lookup_s": median(seconds["lookup"]), "lookup_forwards": lookup_forwards,
            "forwards": s.forwards, "decode_steps": s.decode_steps, "splice_forwards": s.splice_forwards,
            "sampled": s.sampled_tokens, "forced": s.forced_tokens, "spliced": s.spliced_tokens, "mask_s": s.mask_s,
            "prompt_tokens": s.prompt_tokens,
            "spec": {"forwards": f.forwards, "mask_s": f.mask_s, "drafted": f.drafted_tokens,
                     "accepted": f.accepted_tokens, **draft_counts(f)}}


class _Clock:
    """A stopping criterion that never stops: it notes when each generation step ends.

    Timing from the end of the first step leaves the prefill out of both
    greedy and prompt-lookup runs, whatever the machine does meanwhile.
    """

    def __init__(self):
        self.marks: list[tuple[float, int]] = []

    def __call__(self, input_ids, scores, **kwargs):
        import torch

        self.marks.append((time.perf_counter(), input_ids.shape[1]))
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)

    def rate(self) -> tuple[int, float]:
        """(tokens after the first step, seconds they took)."""
        (t0, n0), (t1, n1) = self.marks[0], self.marks[-1]
        return n1 - n0, t1 - t0


def prompt_lookup(loaded, pair, count, first: str, repeats: int) -> dict:
    """Greedy generate vs prompt-lookup generate on the same rewrite prompt, prefill excluded.

    Rates are medians over repeats, alternating which of the two runs first.
    """
    import torch
    from transformers import StoppingCriteriaList

    from cad_lsp.engine.prompt import build_prompt
    from cad_lsp.program import split_lines

    tok, model = loaded.tokenizer, loaded.model
    prompt = build_prompt(tok, pair.before, 1, len(split_lines(pair.before)), pair.instruction, system=REWRITE_SYSTEM)
    ids = torch.tensor([prompt.ids], device=loaded.device)
    order = [first, "lookup" if first == "greedy" else "greedy"]
    runs = {"greedy": [], "lookup": []}
    outputs = {}
    for r in range(repeats):
        for which in order if r % 2 == 0 else order[::-1]:
            clock = _Clock()
            extra = {"prompt_lookup_num_tokens": LOOKUP_TOKENS} if which == "lookup" else {}
            with torch.inference_mode():
                out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                     max_new_tokens=count(pair.after) + 16, pad_token_id=tok.eos_token_id,
                                     stopping_criteria=StoppingCriteriaList([clock]), **extra)
            runs[which].append(clock.rate())
            outputs[which] = out[0, ids.shape[1]:].tolist()
    rate = lambda rs: median([n / s for n, s in rs if s > 0]) if any(s > 0 for _, s in rs) else None  # noqa: E731
    return {"greedy_tokens_per_s": rate(runs["greedy"]), "lookup_tokens_per_s": rate(runs["lookup"]),
            "generated": len(outputs["greedy"]), "equal": outputs["greedy"] == outputs["lookup"]}


def kernel_curve(engine, quick: bool) -> dict:
    """A short kernel curve on the e2e model itself, for the closed-form bound of the same pairs."""
    from . import kernel

    ns = kernel.QUICK_NS if quick else [8, 32, 128, 512]
    ids = kernel.code_ids(engine.tokenizer, 512 + max(ns))
    c = kernel.measure(engine.backend, ids[:512], ids[512:], ns, 1, "e2e curve", steps=kernel.RAW_STEPS)
    return {"t_step": c["t_step_s"], "points": [[p["n"], p["splice_s"]] for p in c["points"]]}


class Checkpoint:
    """Rows measured so far, kept in OUT/e2e.partial.json so that an interrupted run resumes.

    A full run takes an hour on a busy machine; rows are reused only when the
    settings that shaped them (repeats, sample, device) are the same.
    """

    def __init__(self, out: Path, settings: dict):
        self.path = out / "e2e.partial.json"
        self.settings = settings
        saved = json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
        self.rows = saved.get("rows", {}) if saved.get("settings") == settings else {}

    def get(self, key: str) -> dict | None:
        return self.rows.get(key)

    def put(self, key: str, row: dict) -> None:
        self.rows[key] = row
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"settings": self.settings, "rows": self.rows}), encoding="utf-8")

    def done(self) -> None:
        self.path.unlink(missing_ok=True)


def run(args) -> dict:
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.loading import load_model
    from cad_lsp.engine import Engine
    from cad_lsp.program import oracle_program
    from cad_lsp.program.metrics import token_counter

    from . import ceiling

    pairs = corpus_pairs()
    if pairs is None:
        return {"skipped": NO_CORPUS, "dtype": "n/a"}
    k = args.limit or (2 if args.quick else 5)
    max_out = args.max_out_tokens or (200 if args.quick else 400)
    repeats = args.repeats or (1 if args.quick else 3)
    checkpoint = Checkpoint(args.out, {"repeats": repeats, "k": k, "max_out": max_out, "seed": args.seed,
                                       "device": args.device, "threads": args.threads, "quick": args.quick,
                                       "sides": SIDES})
    runs = {}
    for name in model_name(args).split(","):
        # transformers keeps GGUF weights packed and computes in fp32: bf16 only adds casts there.
        for dtype in dtypes(args, "fp32" if name == "smollm2" else "bf16"):
            loaded = load_model(name, args.device, dtype)
            engine = Engine(LocalModel(loaded))
            count = token_counter(loaded.tokenizer)
            curve = checkpoint.get(f"{name} {dtype} curve") or kernel_curve(engine, args.quick)
            checkpoint.put(f"{name} {dtype} curve", curve)
            corpora = {}
            for corpus, items in pairs.items():
                rows = []
                chosen = sample(items, k, max_out, count, args.seed)
                for i, pair in enumerate(progress(chosen, f"e2e {name} {dtype} {corpus}")):
                    key = f"{name} {dtype} {corpus} {pair.id}"
                    if checkpoint.get(key):
                        rows.append(checkpoint.get(key))
                        continue
                    ops = oracle_program(pair.before, pair.after)
                    row = {"id": pair.id, "n_out": count(pair.after), "ops": len(ops),
                           **time_pair(engine, pair, ops, repeats, i % len(SIDES))}
                    sizes = ceiling.loop_forwards(ops, pair.before, loaded.tokenizer, engine.ll_tokenizer)
                    row["bound_t_cad_s"] = sum(ceiling.forward_time(curve, n) for n in sizes)
                    row["bound_t_ar_s"] = row["n_out"] * curve["t_step"]
                    if name in REAL_WEIGHTS:
                        first = "greedy" if i % 2 == 0 else "lookup"
                        row["lookup"] = prompt_lookup(loaded, pair, count, first, min(repeats, 2))
                    checkpoint.put(key, row)
                    rows.append(row)
                corpora[corpus] = {"pairs": rows, **summarize(rows)}
            corpora["pooled"] = summarize([r for c in corpora.values() for r in c["pairs"]])
            runs[f"{name} {dtype}"] = {"model": name, "dtype": dtype, "curve": curve, "corpora": corpora,
                                       "lookup_note": None if name in REAL_WEIGHTS else LOOKUP_NA,
                                       "packed_linears": getattr(engine.backend, "packed_linears", None)}
            del engine, loaded
    checkpoint.done()
    return {"models": model_name(args).split(","), "dtype": ", ".join(runs),
            "sample": {"per_corpus": k, "max_out_tokens": max_out, "seed": args.seed},
            "repeats": repeats, "runs": runs}


def summarize(rows: list[dict]) -> dict:
    out = {
        "n": len(rows),
        "output_tokens_median": median([r["n_out"] for r in rows]),
        "t_ar_median_s": median([r["t_ar_s"] for r in rows]),
        "t_cad_median_s": median([r["t_cad_s"] for r in rows]),
        "speedup_median": median([r["t_ar_s"] / r["t_cad_s"] for r in rows]),
        "speedup_pooled": sum(r["t_ar_s"] for r in rows) / sum(r["t_cad_s"] for r in rows),
        "bound_median": median([r["bound_t_ar_s"] / r["bound_t_cad_s"] for r in rows]),
        "bound_pooled": sum(r["bound_t_ar_s"] for r in rows) / sum(r["bound_t_cad_s"] for r in rows),
        "forwards_cad_median": median([r["forwards"] for r in rows]),
    }
    specs = [r for r in rows if "t_spec_s" in r]
    if specs:
        total = lambda key: sum(r["spec"].get(key, 0) for r in specs)  # noqa: E731  (older runs had no lookup kind)
        out["spec"] = {
            "t_median_s": median([r["t_spec_s"] for r in specs]),
            "speedup_median": median([r["t_ar_s"] / r["t_spec_s"] for r in specs]),
            "speedup_pooled": sum(r["t_ar_s"] for r in specs) / sum(r["t_spec_s"] for r in specs),
            "over_cad_median": median([r["t_cad_s"] / r["t_spec_s"] for r in specs]),
            "forwards_median": median([r["spec"]["forwards"] for r in specs]),
            **{f"acceptance_{kind}": total(f"accepted_{kind}") / max(1, total(f"drafted_{kind}")) for kind in KINDS},
            "drafted_per_program": median([r["spec"]["drafted"] for r in specs]),
        }
    forced = [r for r in rows if "t_lookup_s" in r]
    if forced:
        out["lookup_forced"] = {
            "forwards_median": median([r["lookup_forwards"] for r in forced]),
            "speedup_median": median([r["t_ar_s"] / r["t_lookup_s"] for r in forced]),
            "speedup_pooled": sum(r["t_ar_s"] for r in forced) / sum(r["t_lookup_s"] for r in forced),
            "spec_over_lookup_median": median([r["t_lookup_s"] / r["t_spec_s"] for r in forced]),
            "spec_over_lookup_pooled": sum(r["t_lookup_s"] for r in forced) / sum(r["t_spec_s"] for r in forced),
        }
    lookups = [r["lookup"] for r in rows if "lookup" in r]
    lookups = [x for x in lookups if x["greedy_tokens_per_s"] and x["lookup_tokens_per_s"]]
    if lookups:
        out["lookup"] = {
            "greedy_tokens_per_s": median([x["greedy_tokens_per_s"] for x in lookups]),
            "lookup_tokens_per_s": median([x["lookup_tokens_per_s"] for x in lookups]),
            "ratio_median": median([x["lookup_tokens_per_s"] / x["greedy_tokens_per_s"] for x in lookups]),
            "equal_outputs": sum(x["equal"] for x in lookups), "n": len(lookups),
        }
    return out


def markdown(data: dict) -> str:
    s = data["sample"]
    out = [f"Per corpus {s['per_corpus']} pairs sampled (seed {s['seed']}) among those whose output has at most "
           f"{s['max_out_tokens']} tokens (the shortest if fewer fit); whole-document programs; median of "
           f"{data['repeats']} repeat(s) per pair, alternating which side runs first; prefill excluded. "
           "The bound is ceiling's closed form for the same pairs, with a kernel curve measured in this run on "
           "the same model (t(1) from 32 steps)."]
    if any("spec" in c for run in data["runs"].values() for c in run["corpora"].values()):
        out[0] += (" CaD+spec: the same programs with speculation (the engine drafts the program from the document "
                   "and checks the draft in the same forwards); teacher forcing accepts a drafted token exactly when "
                   "it is the program's next token. The acceptance rates are drafted choices kept, per kind (tags and "
                   "line numbers / `<gen>` text from the line it rewrites / `<gen>` text found elsewhere), over all "
                   "pairs.")
    for label, run in data["runs"].items():
        curve = run["curve"]
        spec = any("spec" in c for c in run["corpora"].values())  # runs before speculation have no such columns
        rows = [[name, c["n"], c["output_tokens_median"], f"{c['t_ar_median_s']:.2f}", f"{c['t_cad_median_s']:.2f}",
                 c["forwards_cad_median"], times(c["speedup_median"]), times(c["speedup_pooled"]),
                 times(c["bound_median"]), times(PAPER_BOUND.get(name))]
                + ([f"{c['spec']['t_median_s']:.2f}", c["spec"]["forwards_median"], times(c["spec"]["speedup_median"]),
                    times(c["spec"]["speedup_pooled"]), times(c["spec"]["over_cad_median"]),
                    " / ".join(f"{100 * c['spec'].get(f'acceptance_{kind}', 0):.0f}%" for kind in KINDS)]
                   if "spec" in c and spec else [""] * 6 if spec else [])
                for name, c in run["corpora"].items()]
        spec_headers = ["CaD+spec (s, median)", "CaD+spec forwards (median)", "CaD+spec speedup (median pair)",
                        "CaD+spec speedup (pooled)", "CaD+spec over CaD (median)",
                        "drafts accepted: tags / gen line / gen lookup"]
        out += ["", f"**`{run['model']}`, {run['dtype']}** (t(1) = {1e3 * curve['t_step']:.1f} ms, "
                + ", ".join(f"t({n}) = {1e3 * t:.1f} ms" for n, t in curve["points"]) + ")", "",
                table(["corpus", "pairs", "output tokens (median)", "rewrite (s, median)", "CaD (s, median)",
                       "CaD forwards (median)", "speedup (median pair)", "speedup (pooled)", "bound (median pair)",
                       "paper bound"] + (spec_headers if spec else []), rows)]
        forced = [(name, c["lookup_forced"]) for name, c in run["corpora"].items() if "lookup_forced" in c]
        if forced:
            out += ["", f"Prompt lookup teacher-forced on the same gold output, on the rewrite's prompt (Hugging Face's "
                    f"draft: the {LOOKUP_TOKENS} tokens after the earliest earlier occurrence of the last "
                    f"{LOOKUP_NGRAM} tokens; kept as far as they match the output):", "",
                    table(["corpus", "lookup forwards (median)", "lookup speedup over the rewrite (median pair)",
                           "(pooled)", "CaD+spec over lookup (median pair)", "(pooled)"],
                          [[name, x["forwards_median"], times(x["speedup_median"]), times(x["speedup_pooled"]),
                            times(x["spec_over_lookup_median"]), times(x["spec_over_lookup_pooled"])]
                           for name, x in forced])]
        lookups = [(name, c["lookup"]) for name, c in run["corpora"].items() if "lookup" in c]
        if lookups:
            out += ["", f"Prompt-lookup decoding (`prompt_lookup_num_tokens={LOOKUP_TOKENS}`) vs greedy `generate` "
                    "on a whole-file rewrite prompt, on the model's own output (up to the gold length + 16 tokens); "
                    "tokens/s from the end of the first step to the last (prefill excluded), median of 2 "
                    "alternating runs:", "",
                    table(["corpus", "greedy tok/s (median)", "prompt-lookup tok/s (median)", "ratio (median pair)",
                           "outputs equal"],
                          [[name, f"{x['greedy_tokens_per_s']:.1f}", f"{x['lookup_tokens_per_s']:.1f}",
                            times(x["ratio_median"]), f"{x['equal_outputs']}/{x['n']}"]
                           for name, x in lookups])]
        if run.get("lookup_note"):
            out += ["", f"Prompt-lookup peer for `{run['model']}`: {run['lookup_note']}."]
    return "\n".join(out)


def plot(data: dict, path: Path) -> bool:
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(8, 4))
    runs = list(data["runs"].items())
    names = list(runs[0][1]["corpora"])
    width = 0.8 / (2 * len(runs))
    for j, (run_label, run) in enumerate(runs):
        c = run["corpora"]
        for m, (key, label) in enumerate((("speedup_median", "measured"), ("bound_median", "bound"))):
            offset = (2 * j + m - len(runs) + 0.5) * width
            ax.bar([i + offset for i in range(len(names))], [c[n][key] for n in names], width,
                   label=f"{label}, {run_label}", alpha=1.0 if m == 0 else 0.5)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("rewrite time / CaD time (median pair)")
    ax.set_title("End-to-end speedup, measured vs closed-form bound")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return save_figure(fig, path)
