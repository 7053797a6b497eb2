"""kernel: N single-token decode steps vs ONE N-token splice through ``LocalModel.extend``.

This ratio is the whole mechanism: a copy of N tokens costs one forward
instead of N.  A raw ``model(...)`` forward is timed beside the engine's
``extend`` so that the engine's own overhead is visible, and the grammar
mask is timed at the real 151k vocabulary because it runs at every step.

N decode steps are timed as the first N steps of one run of max(N) steps
(the same thing as N separate steps, at half the cost).
"""

from __future__ import annotations

import time
from pathlib import Path

from .runner import dtypes, median, model_name, percentile, progress, pyplot, save_figure, synchronize, table, times

FULL_NS = [8, 16, 32, 64, 128, 256, 512]
QUICK_NS = [8, 32]
RAW_STEPS = 32  # raw single-token steps timed per repeat, for the engine-vs-raw step overhead
# The paper's kernel figure (Qwen2.5-1.5B/7B, A100, bf16): only its end points are quoted.
PAPER = {8: 6.8, 512: 303.0}
PAPER_SETUP = "Qwen2.5-1.5B/7B, A100, bf16"


def code_ids(tokenizer, count: int) -> list[int]:
    """``count`` tokens of real code: this project's own sources, always present."""
    import cad_lsp

    folder = Path(cad_lsp.__file__).parent
    text = "".join(path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.py")))
    ids = tokenizer.encode(text, add_special_tokens=False)
    while len(ids) < count:
        ids = ids + ids
    return ids[:count]


def _raw_forward(model, cache, ids, device) -> float:
    """One bare model forward appending ids to the cache, then rolled back; seconds."""
    import torch

    from cad_lsp.backends.pytorch.kvcache import cache_argument

    with torch.inference_mode():
        t0 = time.perf_counter()
        model(ids, **cache_argument(model, cache), use_cache=True, logits_to_keep=1)
        synchronize(device)
        elapsed = time.perf_counter() - t0
    return elapsed


def measure(local, prefix: list[int], follow: list[int], ns: list[int], repeats: int, desc: str = "kernel",
            steps: int | None = None) -> dict:
    """Median times of N decode steps, one N-token splice and one raw N-token forward.

    ``local`` is a ``LocalModel``; ``follow`` holds at least max(ns) tokens that
    come after ``prefix``.  The cache is cropped back to the prefix after each
    measurement, so every one starts from the same context.  ``steps`` limits
    the decode run (default max(ns)) when only the step time is wanted; N
    beyond it get no decode time.
    """
    import torch

    device = local.device
    state = local.new_state()
    local.extend(state, prefix)
    base = len(prefix)
    top = steps or max(ns)
    tensors = {n: torch.tensor([follow[:n]], device=device) for n in ns}
    singles = [torch.tensor([[t]], device=device) for t in follow[: min(RAW_STEPS, top)]]

    def raw(ids) -> float:
        elapsed = _raw_forward(local.model, state.cache, ids, device)
        state.cache.crop(-ids.shape[1])
        return elapsed

    for n in ns:  # warm-up: first calls of each shape pay for kernel selection (oneDNN, AMX)
        local.extend(state, follow[:n])
        local.crop(state, base)
        raw(tensors[n])
    runs: list[list[float]] = []
    splice = {n: [] for n in ns}
    raw_splice = {n: [] for n in ns}
    raw_steps: list[float] = []

    def run_steps():
        durations = []
        for token in follow[:top]:
            t0 = time.perf_counter()
            local.extend(state, [token])
            durations.append(time.perf_counter() - t0)
        local.crop(state, base)
        runs.append(durations)

    def run_splices(engine_first: bool):
        for n in ns:
            if not engine_first:
                raw_splice[n].append(raw(tensors[n]))
            t0 = time.perf_counter()
            local.extend(state, follow[:n])
            splice[n].append(time.perf_counter() - t0)
            local.crop(state, base)
            if engine_first:
                raw_splice[n].append(raw(tensors[n]))

    def run_raw_steps():
        for ids in singles:
            raw_steps.append(_raw_forward(local.model, state.cache, ids, device))
        state.cache.crop(-len(singles))

    for r in progress(range(repeats), desc):  # alternate the order, so drift hits both sides
        order = [run_steps, lambda: run_splices(r % 2 == 0), run_raw_steps]
        for fn in order if r % 2 == 0 else order[::-1]:
            fn()
    assert len(state.ids) == base and state.cache.get_seq_length() == base
    engine_step = median([d for run in runs for d in run[: len(singles)]])
    raw_step = median(raw_steps)
    points = []
    for n in ns:
        decode = median([sum(run[:n]) for run in runs]) if n <= top else None
        sp, rs = median(splice[n]), median(raw_splice[n])
        points.append({"n": n, "decode_s": decode, "splice_s": sp, "raw_splice_s": rs,
                       "speedup": decode / sp if decode else None, "splice_overhead": sp / rs - 1})
    return {"t_step_s": engine_step, "raw_step_s": raw_step, "step_overhead": engine_step / raw_step - 1,
            "repeats": repeats, "points": points}


def realistic_program():
    """(document, ops, label): a real commit's oracle program, or an edit of our own source."""
    from cad_lsp.program import oracle_program
    from cad_lsp.train import corpora

    if corpora.data_dir() is not None:
        pair = max(corpora.load("commits", 20), key=lambda p: len(oracle_program(p.before, p.after)))
        return pair.before, oracle_program(pair.before, pair.after), f"commits/{pair.id}"
    import cad_lsp.program.oracle as source

    before = Path(source.__file__).read_text(encoding="utf-8")
    lines = before.splitlines(True)
    after = "".join(line.replace("op", "operation") if k % 40 == 0 else line for k, line in enumerate(lines))
    return before, oracle_program(before, after), "cad_lsp/program/oracle.py, every 40th line edited"


def mask_timing(tokenizer) -> dict:
    """Time ProgramConstraint.allowed() (and advance()) along a teacher-forced program."""
    from cad_lsp.engine import program_script
    from cad_lsp.engine.grammar import ProgramConstraint, ll_tokenizer
    from cad_lsp.program import split_lines

    document, ops, label = realistic_program()
    ll = ll_tokenizer(tokenizer)
    constraint = ProgramConstraint(ll, 1, len(split_lines(document)))
    masks, advances = [], []
    for token in program_script(tokenizer, ops, ll.eos_token):
        t0 = time.perf_counter()
        allowed = constraint.allowed()
        masks.append(time.perf_counter() - t0)
        assert allowed[token] or token == ll.eos_token
        t0 = time.perf_counter()
        constraint.advance(token)
        advances.append(time.perf_counter() - t0)
        if constraint.done:
            break
    us = lambda xs, q: 1e6 * percentile(xs, q)  # noqa: E731
    return {"program": label, "ops": len(ops), "steps": len(masks), "vocab": ll.vocab_size,
            "mask_p50_us": us(masks, 0.5), "mask_p90_us": us(masks, 0.9), "mask_max_us": 1e6 * max(masks),
            "mask_mean_us": 1e6 * sum(masks) / len(masks),
            "advance_p50_us": us(advances, 0.5), "advance_max_us": 1e6 * max(advances)}


def run(args) -> dict:
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.loading import load_model

    name = model_name(args).split(",")[0]
    ns = args.ns or (QUICK_NS if args.quick else FULL_NS)
    repeats = args.repeats or 3
    curves = {}
    tokenizer = None
    for dtype in dtypes(args, "both"):
        loaded = load_model(name, args.device, dtype)
        tokenizer = loaded.tokenizer
        ids = code_ids(tokenizer, args.context + max(ns))
        curves[dtype] = measure(LocalModel(loaded), ids[: args.context], ids[args.context :], ns, repeats,
                                f"kernel {dtype}")
        del loaded
    return {"model": name, "dtype": ", ".join(curves), "context": args.context, "ns": ns,
            "curves": curves, "grammar": mask_timing(tokenizer)}


def markdown(data: dict) -> str:
    rows = []
    for dtype, curve in data["curves"].items():
        for p in curve["points"]:
            rows.append([dtype, p["n"], f"{1e3 * p['decode_s']:.1f}", f"{1e3 * p['splice_s']:.1f}",
                         f"{1e3 * p['raw_splice_s']:.1f}", times(p["speedup"]), f"{100 * p['splice_overhead']:+.1f}%",
                         times(PAPER.get(p["n"])) if p["n"] in PAPER else ""])
    out = [f"Model `{data['model']}`, {data['context']}-token context of real code, "
           f"median of {next(iter(data['curves'].values()))['repeats']} repeats.",
           "",
           table(["dtype", "N", "N steps (ms)", "1 splice (ms)", "raw forward (ms)", "speedup",
                  "engine over raw", f"paper ({PAPER_SETUP})"], rows),
           "",
           table(["dtype", "decode step (ms)", "raw step (ms)", "engine over raw"],
                 [[d, f"{1e3 * c['t_step_s']:.2f}", f"{1e3 * c['raw_step_s']:.2f}", f"{100 * c['step_overhead']:+.1f}%"]
                  for d, c in data["curves"].items()])]
    g = data.get("grammar")
    if g:
        out += ["", f"Grammar mask (`ProgramConstraint.allowed()`, {g['vocab']:,}-token vocabulary, {g['steps']} steps "
                f"of a {g['ops']}-op program from {g['program']}): p50 {g['mask_p50_us']:.0f} µs, "
                f"p90 {g['mask_p90_us']:.0f} µs, max {g['mask_max_us']:.0f} µs, mean {g['mask_mean_us']:.0f} µs; "
                f"`advance()` p50 {g['advance_p50_us']:.0f} µs, max {g['advance_max_us']:.0f} µs."]
    return "\n".join(out)


def plot(data: dict, path: Path) -> bool:
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for dtype, curve in data["curves"].items():
        ns = [p["n"] for p in curve["points"]]
        ax.plot(ns, [p["speedup"] for p in curve["points"]], "o-", label=f"this machine, {dtype}")
    ns = data["ns"]
    ax.plot([min(ns), max(max(ns), 512)], [min(ns), max(max(ns), 512)], ":", color="grey", label="N (upper limit)")
    ax.plot(list(PAPER), list(PAPER.values()), "s", color="black", label=f"paper ({PAPER_SETUP})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N (tokens copied)")
    ax.set_ylabel("N decode steps / one N-token splice")
    ax.set_title(f"Splice speedup, {data['model']}, {data['context']}-token context")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return save_figure(fig, path)
