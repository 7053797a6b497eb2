"""ceiling: how much of each real edit's output can be copied, and what that is worth in time.

Coverage is counted in Qwen2.5 tokens, for the line oracle (whole lines) and
the span oracle (sub-line copies).  The wall-clock bound composes the
measured kernel curve with the forwards a program needs (see FORMULA): it is
what a perfect model could gain on this machine, not a measurement of one.
"""

from __future__ import annotations

import bisect
import json
import math
from pathlib import Path

from .runner import (
    NO_CORPUS,
    corpus_pairs,
    median,
    pair_limit,
    pct,
    progress,
    pyplot,
    qwen_tokenizer,
    save_figure,
    table,
    times,
)

# The paper's figures (ProbeEdit, their own benchmark, is not public: no number of ours stands beside it).
PAPER_COVERAGE = "line-level 74–98%, token-level 91–99% (range over the paper's corpora)"
PAPER_BOUND = {"humanevalfix-py": 3.4, "humanevalfix-js": 4.2, "probeedit (not public)": 29.0, "pooled": 13.0}

HISTOGRAM_LABELS = ["<1", "1-7", "8-15", "16-31", "32-63", "64-127", "128-255", "256-511", ">=512"]

FORMULA = (
    "T_AR = n_out · t(1);  T_CaD = Σ_f t(n_f) over the forwards f of the program;  bound = ΣT_AR / ΣT_CaD "
    "(pooled over pairs).  t(n) is the engine's measured time of one n-token forward at a 512-token context "
    "(t(1) = decode step, t(N) = splice of N), interpolated log-log between measured N and linear beyond.  "
    "Line programs: the forwards are those of the engine's own decode loop run teacher-forced with a "
    "counting stand-in for the model (grammar-forced tag tokens ride along with the next forward; a copy's "
    "tokens join the forward of its tag's last token), i.e. T_CaD ≈ (n_gen + n_tag,decoded)·t(1) + Σ_k t(N_k+1).  "
    "Span programs (the engine's grammar has no span copies yet): every token of the program text is one "
    "decode step except each copy tag's last, which carries the N_k copied tokens: "
    "T_CaD = (n_gen + n_tag − n_copies)·t(1) + Σ_k t(N_k+1)."
)


# ---------------------------------------------------------------------------
# The kernel curve


def curve_from_kernel(out: Path, dtype: str | None) -> dict | None:
    """{t_step, points: [[n, seconds]], source} from kernel.json, or None."""
    path = out / "kernel.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    curves = data["curves"]
    chosen = dtype if dtype in curves else ("bf16" if "bf16" in curves else next(iter(curves)))
    curve = curves[chosen]
    return {"t_step": curve["t_step_s"], "points": [[p["n"], p["splice_s"]] for p in curve["points"]],
            "dtype": chosen, "source": f"kernel.json ({data['model']}, {chosen}, {data['context']}-token context)"}


def measured_curve(args) -> dict:
    """No kernel.json: measure a short curve now (few N, one repeat)."""
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.loading import load_model

    from . import kernel
    from .runner import model_name

    name, dtype = model_name(args), args.dtype if args.dtype in ("fp32", "bf16") else "bf16"
    ns = kernel.QUICK_NS if args.quick else [8, 32, 128, 512]
    loaded = load_model(name, args.device, dtype)
    ids = kernel.code_ids(loaded.tokenizer, args.context + max(ns))
    c = kernel.measure(LocalModel(loaded), ids[: args.context], ids[args.context :], ns, 1, "ceiling curve")
    return {"t_step": c["t_step_s"], "points": [[p["n"], p["splice_s"]] for p in c["points"]], "dtype": dtype,
            "source": f"measured on the spot ({name}, {dtype}, {args.context}-token context, 1 repeat)"}


def forward_time(curve: dict, n: int) -> float:
    """t(n): log-log interpolation through (1, t_step) and the measured splices; linear past the last."""
    xs = [1] + [p[0] for p in curve["points"]]
    ys = [curve["t_step"]] + [p[1] for p in curve["points"]]
    if n <= 1:
        return ys[0]
    if n >= xs[-1]:
        return ys[-1] * n / xs[-1]
    k = bisect.bisect_right(xs, n) - 1
    f = (math.log(n) - math.log(xs[k])) / (math.log(xs[k + 1]) - math.log(xs[k]))
    return math.exp(math.log(ys[k]) + f * (math.log(ys[k + 1]) - math.log(ys[k])))


# ---------------------------------------------------------------------------
# Forwards a program needs


class CountingBackend:
    """Stands in for the model in the engine's decode loop and records each forward's size."""

    def __init__(self, vocab_size: int):
        self.vocab_size = vocab_size
        self.sizes: list[int] = []

    def new_state(self):
        from cad_lsp.engine import KVState

        return KVState()

    def extend(self, state, ids):
        self.sizes.append(len(ids))
        state.ids.extend(ids)
        return None  # the teacher script never looks at logits

    def crop(self, state, length):
        del state.ids[length:]

    def nbytes(self, state):
        return 0


def loop_forwards(ops, document: str, tokenizer, ll) -> list[int]:
    """Sizes of the forwards the engine's decode loop runs for a line program (prompt excluded)."""
    from cad_lsp.engine import Stats, TeacherScript, decode_loop, program_script
    from cad_lsp.engine.grammar import ProgramConstraint
    from cad_lsp.program import Document

    doc = Document(document)
    backend = CountingBackend(ll.vocab_size)
    script = TeacherScript(program_script(tokenizer, ops, ll.eos_token))
    constraint = ProgramConstraint(ll, 1, doc.line_count)
    done = decode_loop(backend, backend.new_state(), constraint, tokenizer, doc, None, script.choose, Stats(),
                       max_tokens=len(script.script) + 1, expect_forced=script.expect_forced)
    assert done and constraint.ops == list(ops), "the decode loop did not reproduce the program"
    return backend.sizes


def modeled_forwards(ops, document: str, count) -> list[int]:
    """Every program token one step, except each copy tag's last token, which carries the copy."""
    from cad_lsp.program import format_op
    from cad_lsp.program.metrics import op_texts

    sizes = []
    for op, (is_copy, text) in zip(ops, op_texts(ops, document)):
        tag = count(format_op(op) + "\n")
        if not is_copy:
            sizes += [1] * tag
        else:
            sizes += [1] * (tag - 1) + [1 + count(text)]
    return sizes


# ---------------------------------------------------------------------------
# The benchmark


def pair_figures(pair, tokenizer, ll) -> dict:
    """Coverage counts, span lengths and forward sizes for one pair, line and span oracle."""
    from cad_lsp.program import oracle_program, oracle_program_spans
    from cad_lsp.program.metrics import op_texts, token_counter

    count = token_counter(tokenizer)
    line_ops = oracle_program(pair.before, pair.after)
    span_ops = oracle_program_spans(pair.before, pair.after)
    figures = {"n_out": count(pair.after)}
    for label, ops in (("line", line_ops), ("span", span_ops)):
        pieces = op_texts(ops, pair.before)
        copied = [count(text) for is_copy, text in pieces if is_copy]
        generated = sum(count(text) for is_copy, text in pieces if not is_copy)
        copied_chars = sum(len(text) for is_copy, text in pieces if is_copy)
        figures[label] = {"copied": sum(copied), "generated": generated, "spans": copied,
                          "copied_chars": copied_chars, "chars": len(pair.after),
                          "forwards": modeled_forwards(ops, pair.before, count)}
    figures["line"]["loop_forwards"] = loop_forwards(line_ops, pair.before, tokenizer, ll) if pair.before else None
    return figures


def summarize(figs: list[dict], curve: dict) -> dict:
    from cad_lsp.program.metrics import span_histogram

    t = lambda sizes: sum(forward_time(curve, n) for n in sizes)  # noqa: E731
    t_ar = [f["n_out"] * curve["t_step"] for f in figs]
    out = {"pairs": len(figs), "output_tokens_median": median([f["n_out"] for f in figs])}
    for label in ("line", "span"):
        rows = [f[label] for f in figs]
        cov = [r["copied"] / (r["copied"] + r["generated"]) if r["copied"] + r["generated"] else 1.0 for r in rows]
        copied, total = sum(r["copied"] for r in rows), sum(r["copied"] + r["generated"] for r in rows)
        t_cad = [t(r["forwards"]) for r in rows]
        out[label] = {
            "coverage_tokens_mean": sum(cov) / len(cov),
            "coverage_tokens_pooled": copied / total if total else 1.0,
            "coverage_chars_pooled": sum(r["copied_chars"] for r in rows) / max(1, sum(r["chars"] for r in rows)),
            "generated_tokens_median": median([r["generated"] for r in rows]),
            "copies_per_pair_mean": sum(len(r["spans"]) for r in rows) / len(rows),
            "histogram": span_histogram([n for r in rows for n in r["spans"]]),
            "bound_pooled": sum(t_ar) / sum(t_cad),
            "bound_median": median([a / c for a, c in zip(t_ar, t_cad)]),
            "t_ar_s": sum(t_ar), "t_cad_s": sum(t_cad),
        }
    loops = [(a, t(f["line"]["loop_forwards"])) for a, f in zip(t_ar, figs) if f["line"]["loop_forwards"]]
    out["line"]["engine_bound_pooled"] = sum(a for a, _ in loops) / sum(c for _, c in loops)
    out["line"]["engine_bound_median"] = median([a / c for a, c in loops])
    out["line"]["engine_t_cad_s"] = sum(c for _, c in loops)
    return out


def run(args) -> dict:
    from cad_lsp.engine.grammar import ll_tokenizer

    pairs = corpus_pairs(pair_limit(args))
    if pairs is None:
        return {"skipped": NO_CORPUS, "dtype": "n/a"}
    curve = curve_from_kernel(args.out, args.dtype) or measured_curve(args)
    tokenizer = qwen_tokenizer()
    ll = ll_tokenizer(tokenizer)
    corpora, everything = {}, []
    for name, items in pairs.items():
        figs = [pair_figures(p, tokenizer, ll) for p in progress(items, f"ceiling {name}")]
        everything += figs
        corpora[name] = summarize(figs, curve)
    corpora["pooled"] = summarize(everything, curve)
    return {"dtype": curve["dtype"], "tokenizer": "Qwen2.5", "formula": FORMULA, "curve": curve,
            "corpora": corpora}


def markdown(data: dict) -> str:
    c = data["corpora"]
    cov_rows = [[name, s["pairs"], pct(s["line"]["coverage_tokens_pooled"]), pct(s["line"]["coverage_tokens_mean"]),
                 pct(s["span"]["coverage_tokens_pooled"]), pct(s["span"]["coverage_tokens_mean"]),
                 pct(s["line"]["coverage_chars_pooled"]), s["output_tokens_median"],
                 s["line"]["generated_tokens_median"], s["span"]["generated_tokens_median"]]
                for name, s in c.items()]
    bound_rows = [[name, times(s["line"]["engine_bound_pooled"]), times(s["line"]["engine_bound_median"]),
                   times(s["line"]["bound_pooled"]), times(s["span"]["bound_pooled"]),
                   times(PAPER_BOUND.get(name))] for name, s in c.items()]
    bound_rows.append(["probeedit (not public)", "", "", "", "", times(PAPER_BOUND["probeedit (not public)"])])
    edges = [e for e in HISTOGRAM_LABELS if any(s[label]["histogram"].get(e) for s in c.values()
                                                 for label in ("line", "span"))]
    hist_rows = [[f"{name} {label}"] + [s[label]["histogram"].get(e, 0) for e in edges]
                 for name, s in c.items() for label in ("line", "span")]
    curve = data["curve"]
    return "\n".join([
        f"Copy coverage (share of output tokens copied, Qwen2.5 tokenizer; paper: {PAPER_COVERAGE}). "
        "Pooled = all copied tokens / all output tokens; mean = mean of per-pair shares.",
        "",
        table(["corpus", "pairs", "line, pooled", "line, mean", "span, pooled", "span, mean", "line (chars)",
               "output tokens (median)", "generated tokens, line (median)", "generated, span (median)"], cov_rows),
        "",
        f"Wall-clock bound from the kernel curve: {curve['source']}, t(1) = {1e3 * curve['t_step']:.2f} ms, "
        + ", ".join(f"t({n}) = {1e3 * s:.1f} ms" for n, s in curve["points"]) + ".",
        "",
        f"Formula: {data['formula']}",
        "",
        table(["corpus", "line, engine loop (pooled)", "line, engine loop (median pair)",
               "line, every tag token decoded", "span, every tag token decoded", "paper"], bound_rows),
        "",
        "Copy lengths (tokens per copy op):",
        "",
        table(["corpus / oracle"] + edges, hist_rows),
    ])


def plot(data: dict, path: Path) -> bool:
    plt = pyplot()

    c = data["corpora"]
    names = list(c)
    x = range(len(names))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    w = 0.38
    left.bar([i - w / 2 for i in x], [100 * c[n]["line"]["coverage_tokens_pooled"] for n in names], w, label="line")
    left.bar([i + w / 2 for i in x], [100 * c[n]["span"]["coverage_tokens_pooled"] for n in names], w, label="span")
    left.set_ylabel("copied share of output tokens (%)")
    left.set_title("Copy coverage (Qwen2.5 tokens)")
    right.bar([i - w / 2 for i in x], [c[n]["line"]["engine_bound_pooled"] for n in names], w, label="line, engine loop")
    right.bar([i + w / 2 for i in x], [c[n]["span"]["bound_pooled"] for n in names], w, label="span, tags decoded")
    paper = [(i, PAPER_BOUND[n]) for i, n in enumerate(names) if n in PAPER_BOUND]
    right.plot([i for i, _ in paper], [v for _, v in paper], "s", color="black", label="paper")
    right.set_ylabel("bound on speedup (×)")
    right.set_title("Closed-form wall-clock bound")
    for ax in (left, right):
        ax.set_xticks(list(x), names, rotation=25, ha="right", fontsize=8)
        ax.legend(fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    return save_figure(fig, path)
