"""smallforward: a forward of a few tokens, PyTorch's linear layers vs the weight on the left (``cad_lsp.linear``).

Checking a draft of k tokens and splicing a short copy are forwards of a
few tokens over a long cache; speculation pays only where such a forward
costs little more than one decode step.  Both products run in one process
on the same model and cache, interleaved size by size, so a busy machine
slows both alike; times are in decode steps (a one-token forward with
PyTorch's layers).  The row *switched at load* says what the engine's own
measurement at load chose on this machine.
"""

from __future__ import annotations

import time

from .kernel import code_ids
from .runner import median, model_name, progress, table

FULL_SIZES = [1, 2, 3, 4, 6, 8, 12, 16, 32]
QUICK_SIZES = [1, 2, 4]
CONTEXT = 1000  # cached tokens before each forward: a document's prompt
PRODUCTS = ["PyTorch", "weight left"]


def _curve(name: str, args) -> dict:
    import torch

    from cad_lsp.backend import LocalModel
    from cad_lsp.linear import use_pytorch_linear, use_weight_left_linear
    from cad_lsp.models import load_model

    loaded = load_model(name, args.device, args.dtype or "fp32")
    local = LocalModel(loaded)  # measures at load which product to use
    chosen = local.weight_left_linears > 0

    def use(product: str) -> None:
        if product == "weight left":
            use_weight_left_linear(loaded.model, measure=False)
        else:
            use_pytorch_linear(loaded.model)

    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    repeats = args.repeats or (1 if args.quick else 7)
    ids = code_ids(loaded.tokenizer, (64 if args.quick else CONTEXT) + max(sizes))
    base = len(ids) - max(sizes)
    state = local.new_state()
    local.extend(state, ids[:base])
    seconds = {(p, n): [] for p in PRODUCTS for n in sizes}
    for repeat in progress(range(repeats + 1), f"smallforward {name}"):  # the first round warms each shape up
        for n in sizes:
            for product in PRODUCTS if repeat % 2 else PRODUCTS[::-1]:
                use(product)
                start = time.perf_counter()
                local.extend_scored(state, ids[base:base + n], list(range(n)))  # logits at every position
                if repeat:
                    seconds[(product, n)].append(time.perf_counter() - start)
                local.crop(state, base)
    use("weight left" if chosen else "PyTorch")
    step = median(seconds[("PyTorch", 1)])
    rows = [{"tokens": n, **{p: median(seconds[(p, n)]) for p in PRODUCTS}} for n in sizes]
    return {"model": name, "dtype": str(loaded.dtype).replace("torch.", ""), "switched_at_load": chosen,
            "threads": torch.get_num_threads(), "repeats": repeats, "context": base, "step_s": step, "rows": rows}


def run(args) -> dict:
    curves = [_curve(name, args) for name in model_name(args).split(",")]
    return {"dtype": ", ".join(f"{c['model']} {c['dtype']}" for c in curves), "curves": curves}


def markdown(data: dict) -> str:
    out = []
    for curve in data["curves"]:
        step = curve["step_s"]
        rows = [[r["tokens"], f"{r['PyTorch'] / step:.2f}", f"{r['weight left'] / step:.2f}",
                 f"{r['PyTorch'] / r['weight left']:.2f}×"] for r in curve["rows"]]
        out += [f"`{curve['model']}`, {curve['dtype']}, {curve['context']} cached tokens, median of "
                f"{curve['repeats']} interleaved runs; one decode step = {1e3 * step:.1f} ms; switched at load: "
                f"**{'yes' if curve['switched_at_load'] else 'no'}**.", "",
                table(["tokens in the forward", "PyTorch (decode steps)", "weight left (decode steps)",
                       "weight left faster by"], rows), ""]
    return "\n".join(out).rstrip()
