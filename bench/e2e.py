"""e2e: real wall-clock of whole-document edits, Copy-as-Decode vs the autoregressive rewrite.

Each sampled pair's oracle program is run teacher-forced through the
engine's real decode loop (grammar, forced tags, splices) and the same
output is rewritten token by token on the same warm prompt, by the same
model, in the same run, alternating which goes first.  Prefill is excluded
from both.  The closed-form bound for the same pairs (ceiling's formula, with
a kernel curve measured now on this model) shows how much of it is reached.

The speculative peer, HF prompt-lookup decoding, is only meaningful with
real weights (its drafts are accepted when the model agrees with them), so
it runs only for ``--model smollm2``.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from .runner import NO_CORPUS, corpus_pairs, dtypes, median, model_name, progress, table, times

REWRITE_SYSTEM = ("You edit code. Rewrite the whole file with the instruction applied. "
                  "Answer with the complete new file only.")
LOOKUP_TOKENS = 10
PAPER_BOUND = {"humanevalfix-py": 3.4, "humanevalfix-js": 4.2}


def sample(pairs: list, k: int, max_out: int, count, seed: int) -> list:
    """k pairs, seeded, among those whose output has at most max_out tokens (else the k shortest)."""
    fitting = [p for p in pairs if count(p.after) <= max_out]
    if len(fitting) < k:
        return sorted(pairs, key=lambda p: count(p.after))[:k]
    return random.Random(seed).sample(fitting, k)


def time_pair(engine, pair, ops, repeats: int, first: str) -> dict:
    """Median seconds of the teacher-forced program and of the rewrite, alternating which runs first."""
    key = f"{pair.corpus}/{pair.id}"
    engine.warm(key, pair.before)
    cad, ar, result = [], [], None
    order = ["cad", "ar"] if first == "cad" else ["ar", "cad"]
    for r in range(repeats):
        for which in order if r % 2 == 0 else order[::-1]:
            if which == "cad":
                result = engine.edit(pair.before, 1, None, pair.instruction, key=key, program=ops)
                if not result.complete or result.text != pair.after:
                    raise RuntimeError(f"{key}: the teacher-forced program did not reproduce the gold text")
                cad.append(result.stats.total_s - result.stats.prefill_s)
            else:
                ar.append(engine.rewrite_baseline(pair.before, 1, None, pair.after, key=key,
                                                  instruction=pair.instruction)[1])
    engine.forget(key)
    s = result.stats
    return {"t_cad_s": median(cad), "t_ar_s": median(ar), "forwards": s.forwards, "decode_steps": s.decode_steps,
            "splice_forwards": s.splice_forwards, "sampled": s.sampled_tokens, "forced": s.forced_tokens,
            "spliced": s.spliced_tokens, "mask_s": s.mask_s, "prompt_tokens": s.prompt_tokens}


def prompt_lookup(loaded, pair, count, first: str) -> dict:
    """Greedy generate vs prompt-lookup generate on the same rewrite prompt; prefill subtracted from both."""
    import torch

    from cad_lsp.program import split_lines
    from cad_lsp.prompt import build_prompt

    tok, model = loaded.tokenizer, loaded.model
    prompt = build_prompt(tok, pair.before, 1, len(split_lines(pair.before)), pair.instruction, system=REWRITE_SYSTEM)
    ids = torch.tensor([prompt.ids], device=loaded.device)
    kwargs = {"attention_mask": torch.ones_like(ids), "do_sample": False, "pad_token_id": tok.eos_token_id}
    new_tokens = count(pair.after) + 16

    def generate(**extra):
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(ids, **kwargs, **extra)
        return out[0, ids.shape[1]:].tolist(), time.perf_counter() - t0

    _, prefill = generate(max_new_tokens=1)
    runs = {}
    for which in ([first, "lookup" if first == "greedy" else "greedy"]):
        extra = {"prompt_lookup_num_tokens": LOOKUP_TOKENS} if which == "lookup" else {}
        runs[which] = generate(max_new_tokens=new_tokens, **extra)
    (g_ids, g_s), (l_ids, l_s) = runs["greedy"], runs["lookup"]
    return {"greedy_tokens": len(g_ids), "lookup_tokens": len(l_ids), "prefill_s": prefill,
            "greedy_s": g_s, "lookup_s": l_s, "equal": g_ids == l_ids}


def kernel_curve(engine, quick: bool) -> dict:
    """A short kernel curve on the e2e model itself, for the closed-form bound of the same pairs."""
    from . import kernel

    ns = kernel.QUICK_NS if quick else [8, 32, 128, 512]
    ids = kernel.code_ids(engine.tokenizer, 512 + max(ns))
    c = kernel.measure(engine.backend, ids[:512], ids[512:], ns, 1, "e2e curve")
    return {"t_step": c["t_step_s"], "points": [[p["n"], p["splice_s"]] for p in c["points"]]}


def run(args) -> dict:
    from cad_lsp.engine import Engine
    from cad_lsp.metrics import token_counter
    from cad_lsp.models import load_model
    from cad_lsp.program import oracle_program

    from . import ceiling

    pairs = corpus_pairs()
    if pairs is None:
        return {"skipped": NO_CORPUS, "dtype": "n/a"}
    name = model_name(args)
    k = args.limit or (2 if args.quick else 5)
    max_out = args.max_out_tokens or (200 if args.quick else 400)
    repeats = args.repeats or 1
    real_weights = name == "smollm2"
    runs = {}
    for dtype in dtypes(args, "bf16"):
        loaded = load_model(name, args.device, dtype)
        engine = Engine(loaded)
        count = token_counter(loaded.tokenizer)
        curve = kernel_curve(engine, args.quick)
        corpora = {}
        for corpus, items in pairs.items():
            rows = []
            chosen = sample(items, k, max_out, count, args.seed)
            for i, pair in enumerate(progress(chosen, f"e2e {dtype} {corpus}")):
                ops = oracle_program(pair.before, pair.after)
                row = {"id": pair.id, "n_out": count(pair.after), "ops": len(ops),
                       **time_pair(engine, pair, ops, repeats, "cad" if i % 2 == 0 else "ar")}
                sizes = ceiling.loop_forwards(ops, pair.before, loaded.tokenizer, engine.ll_tokenizer)
                row["bound_t_cad_s"] = sum(ceiling.forward_time(curve, n) for n in sizes)
                row["bound_t_ar_s"] = row["n_out"] * curve["t_step"]
                if real_weights:
                    row["lookup"] = prompt_lookup(loaded, pair, count, "greedy" if i % 2 == 0 else "lookup")
                rows.append(row)
            corpora[corpus] = {"pairs": rows, **summarize(rows)}
        corpora["pooled"] = summarize([r for c in corpora.values() for r in c["pairs"]])
        runs[dtype] = {"curve": curve, "corpora": corpora}
        del engine, loaded
    lookup_note = None if real_weights else (
        "n/a: prompt-lookup acceptance depends on the model agreeing with drafts copied from the prompt; "
        "with random weights that agreement is noise, so the peer runs only with --model smollm2")
    return {"model": name, "dtype": ", ".join(runs), "sample": {"per_corpus": k, "max_out_tokens": max_out,
            "seed": args.seed}, "repeats": repeats, "lookup_note": lookup_note, "runs": runs}


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
    lookups = [r["lookup"] for r in rows if "lookup" in r]
    if lookups:
        rate = lambda n, s, p: n / max(s - p, 1e-9)  # noqa: E731
        greedy = sum(x["greedy_tokens"] for x in lookups) / sum(x["greedy_s"] - x["prefill_s"] for x in lookups)
        lookup = sum(x["lookup_tokens"] for x in lookups) / sum(x["lookup_s"] - x["prefill_s"] for x in lookups)
        out["lookup"] = {
            "greedy_tokens_per_s": greedy, "lookup_tokens_per_s": lookup, "ratio_pooled": lookup / greedy,
            "ratio_median": median([rate(x["lookup_tokens"], x["lookup_s"], x["prefill_s"])
                                    / rate(x["greedy_tokens"], x["greedy_s"], x["prefill_s"]) for x in lookups]),
            "equal_outputs": sum(x["equal"] for x in lookups), "n": len(lookups),
        }
    return out


def markdown(data: dict) -> str:
    s = data["sample"]
    out = [f"Model `{data['model']}`; per corpus {s['per_corpus']} pairs sampled (seed {s['seed']}) among those "
           f"whose output has at most {s['max_out_tokens']} tokens (the shortest if fewer fit); whole-document "
           f"programs; median of {data['repeats']} repeat(s) per pair; prefill excluded. The bound is ceiling's "
           "closed form for the same pairs with a kernel curve measured in this run on this model."]
    for dtype, run in data["runs"].items():
        curve = run["curve"]
        rows = [[name, c["n"], c["output_tokens_median"], f"{c['t_ar_median_s']:.2f}", f"{c['t_cad_median_s']:.2f}",
                 c["forwards_cad_median"], times(c["speedup_median"]), times(c["speedup_pooled"]),
                 times(c["bound_pooled"]), times(PAPER_BOUND.get(name))]
                for name, c in run["corpora"].items()]
        out += ["", f"**{dtype}** (t(1) = {1e3 * curve['t_step']:.1f} ms, "
                + ", ".join(f"t({n}) = {1e3 * t:.1f} ms" for n, t in curve["points"]) + ")", "",
                table(["corpus", "pairs", "output tokens (median)", "rewrite (s, median)", "CaD (s, median)",
                       "CaD forwards (median)", "speedup (median)", "speedup (pooled)", "bound (pooled)",
                       "paper bound"], rows)]
        lookups = [(name, c["lookup"]) for name, c in run["corpora"].items() if "lookup" in c]
        if lookups:
            out += ["", f"Prompt-lookup decoding (`prompt_lookup_num_tokens={LOOKUP_TOKENS}`) vs greedy `generate` "
                    "on a whole-file rewrite prompt, prefill subtracted:", "",
                    table(["corpus", "greedy tok/s", "prompt-lookup tok/s", "ratio (pooled)", "ratio (median)",
                           "outputs equal"],
                          [[name, f"{x['greedy_tokens_per_s']:.1f}", f"{x['lookup_tokens_per_s']:.1f}",
                            times(x["ratio_pooled"]), times(x["ratio_median"]), f"{x['equal_outputs']}/{x['n']}"]
                           for name, x in lookups])]
    if data.get("lookup_note"):
        out += ["", f"Prompt-lookup peer: {data['lookup_note']}."]
    return "\n".join(out)


def plot(data: dict, path: Path) -> bool:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    runs = list(data["runs"].items())
    names = list(runs[0][1]["corpora"])
    width = 0.8 / (2 * len(runs))
    for j, (dtype, run) in enumerate(runs):
        c = run["corpora"]
        for m, (key, label) in enumerate((("speedup_pooled", "measured"), ("bound_pooled", "bound"))):
            offset = (2 * j + m - len(runs) + 0.5) * width
            ax.bar([i + offset for i in range(len(names))], [c[n][key] for n in names], width,
                   label=f"{label}, {dtype}", alpha=1.0 if m == 0 else 0.5)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("rewrite time / CaD time (pooled)")
    ax.set_title(f"End-to-end speedup, {data['model']}")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True
