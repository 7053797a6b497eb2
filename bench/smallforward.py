"""smallforward: a forward of a few tokens, PyTorch's linear layers vs oneDNN's packed ones (``cad_lsp.backends.pytorch.linear``).

Checking a draft of k tokens and splicing a short copy are forwards of a
few tokens over a long cache; speculation pays only where such a forward
costs little more than one decode step.  Each product runs in a process of
its own, the two taking turns: in one process, oneDNN's calls also made
PyTorch's few-token forwards faster (2 tokens of SmolLM2: 1.03 decode steps
beside them, 1.5-1.6 alone), which the engine, using one or the other, never
sees.  A time is in decode steps of its own process (one-token forwards
with the same product) and the median over the turns; the absolute decode
step is shown too.  The row *switched at load* says what the engine's own
measurement at load chose on this machine.
"""

from __future__ import annotations

import multiprocessing
import time

from .kernel import code_ids
from .runner import median, model_name, progress, table

FULL_SIZES = [1, 2, 3, 4, 6, 8, 12, 16, 32]
QUICK_SIZES = [1, 2, 4]
CONTEXT = 1000  # cached tokens before each forward: a document's prompt
PRODUCTS = ["PyTorch", "oneDNN packed"]
TURNS = 2  # processes per product, taking turns with the other's


def _measure(name: str, device: str, dtype: str, product: str, sizes: list[int], repeats: int, context: int,
             threads: int | None) -> dict:
    """In a process of its own: seconds of a forward of each size (median of ``repeats``), one product."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.linear import use_packed_linear, use_pytorch_linear
    from cad_lsp.backends.pytorch.loading import load_model

    loaded = load_model(name, device, dtype)
    local = LocalModel(loaded)  # measures at load which product to use
    chosen = local.packed_linears > 0
    if product == "PyTorch":
        use_pytorch_linear(loaded.model)
    else:
        use_packed_linear(loaded.model, measure=False)
    ids = code_ids(loaded.tokenizer, context + max(sizes))
    base = len(ids) - max(sizes)
    state = local.new_state()
    local.extend(state, ids[:base])
    seconds = {n: [] for n in sizes}
    for repeat in range(repeats + 1):  # the first round warms each shape up
        for n in sizes:
            start = time.perf_counter()
            local.extend_scored(state, ids[base:base + n], list(range(n)))  # logits at every position
            if repeat:
                seconds[n].append(time.perf_counter() - start)
            local.crop(state, base)
    return {"chosen": chosen, "dtype": str(loaded.dtype).replace("torch.", ""), "context": base,
            "seconds": {n: median(values) for n, values in seconds.items()}}


def _curve(name: str, args) -> dict:
    import torch

    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    repeats = args.repeats or (1 if args.quick else 5)
    context = 64 if args.quick else CONTEXT
    turns = []
    spawn = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing of the other product's state
    with spawn.Pool(1, maxtasksperchild=1) as pool:
        for turn in progress(range(1 if args.quick else TURNS), f"smallforward {name}"):
            for product in PRODUCTS if turn % 2 == 0 else PRODUCTS[::-1]:
                turns.append((product, pool.apply(_measure, (name, args.device, args.dtype or "fp32", product,
                                                             sizes, repeats, context, args.threads))))
    rows = []
    for n in sizes:
        row = {"tokens": n}
        for product in PRODUCTS:
            mine = [m["seconds"] for p, m in turns if p == product]
            row[product] = median([s[n] / s[1] for s in mine])  # decode steps of its own process
            row[product + " step_s"] = median([s[1] for s in mine])
        rows.append(row)
    first = turns[0][1]
    return {"model": name, "dtype": first["dtype"], "switched_at_load": all(m["chosen"] for _, m in turns),
            "threads": torch.get_num_threads(), "repeats": repeats, "turns": len(turns) // len(PRODUCTS),
            "context": first["context"], "rows": rows}


def run(args) -> dict:
    curves = [_curve(name, args) for name in model_name(args).split(",")]
    return {"dtype": ", ".join(f"{c['model']} {c['dtype']}" for c in curves), "curves": curves}


def markdown(data: dict) -> str:
    out = []
    for curve in data["curves"]:
        steps = {p: curve["rows"][0][p + " step_s"] for p in PRODUCTS}
        rows = [[r["tokens"], *(f"{r[p]:.2f}" for p in PRODUCTS)] for r in curve["rows"]]
        out += [f"`{curve['model']}`, {curve['dtype']}, {curve['context']} cached tokens, median of "
                f"{curve['repeats']} runs in each of {curve['turns']} processes per product, taking turns; one "
                f"decode step = {1e3 * steps['PyTorch']:.1f} ms with PyTorch's layers, "
                f"{1e3 * steps['oneDNN packed']:.1f} ms packed; switched at load: "
                f"**{'yes' if curve['switched_at_load'] else 'no'}**.", "",
                table(["tokens in the forward", "PyTorch (its decode steps)", "oneDNN packed (its decode steps)"],
                      rows), ""]
    return "\n".join(out).rstrip()
