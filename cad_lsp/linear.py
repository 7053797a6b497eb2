"""Linear layers for a few rows on a CPU: the weight as the left operand, where that is measured faster.

A forward of 2-16 tokens is what a splice of a short copy and the check of a
draft cost, so its price decides whether speculation pays.  PyTorch computes
``x @ W.T``; on a 2-core AMD EPYC (AVX2, MKL 2024.2) a forward of 2-4
tokens then costs as much as 1.7-2.8 one-token forwards, although the
weights are read once either way.  ``(W @ x.T).T``, with the rows padded to
a multiple of 4, costs 1.1-1.4 (SmolLM2-135M and Qwen2.5-0.5B, fp32, after
1,000 cached tokens: ``bench smallforward``).  CPUs differ in which kernels
their BLAS picks, so the switch is made only after timing both products on
the model's own layers (``weight_left_pays``, 0.2 s at load).  One row
keeps PyTorch's path (its matrix-vector kernel is the faster one there), as
do long inputs (prefill) and other dtypes and devices.  The sums are the
same products in another order, so logits agree to float rounding.
"""

from __future__ import annotations

import time
import types

import torch

FEW_ROWS = (2, 32)  # the rows for which the weight goes on the left
ROW_MULTIPLE = 4  # MKL's kernels for a narrow right operand run fastest at multiples of 4 columns
MEASURED_BYTES = 256 << 20  # weights timed at load: more than a CPU cache holds
MARGIN = 0.85  # switch only when the weight-left pass takes at most this share of PyTorch's: noise must not flip it


def _weight_left(weight: torch.Tensor, bias: torch.Tensor | None, x: torch.Tensor) -> torch.Tensor:
    rows, width = x.shape
    if rows % ROW_MULTIPLE:
        x = torch.cat([x, x.new_zeros(ROW_MULTIPLE - rows % ROW_MULTIPLE, width)])
    out = torch.mm(weight, x.t()).t()[:rows]
    return out + bias if bias is not None else out


def _weight_left_forward(self: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
    width = x.shape[-1]
    rows = x.numel() // width if width else 0
    if not FEW_ROWS[0] <= rows <= FEW_ROWS[1] or x.dtype != self.weight.dtype:
        return torch.nn.functional.linear(x, self.weight, self.bias)
    return _weight_left(self.weight, self.bias, x.reshape(rows, width)).reshape(*x.shape[:-1], self.weight.shape[0])


def _candidates(model: torch.nn.Module) -> list[torch.nn.Linear]:
    if any(p.device.type != "cpu" for p in model.parameters()):
        return []
    return [m for m in model.modules() if isinstance(m, torch.nn.Linear) and m.weight.dtype == torch.float32]


@torch.inference_mode()
def weight_left_pays(linears: list[torch.nn.Linear], rows: int = 4, repeats: int = 2) -> bool:
    """Whether a pass over these layers with ``rows`` rows is faster weight-left, by ``MARGIN``: the fastest of
    a few passes each way, interleaved, after one pass each to warm up.  Layers in order up to ``MEASURED_BYTES``
    of weights, so they stream from memory as in a forward (one layer alone sits in the cache and times
    differently) without timing the whole model."""
    total = 0
    for count, m in enumerate(linears):
        total += m.weight.numel() * m.weight.element_size()
        if total >= MEASURED_BYTES:
            linears = linears[: count + 1]
            break
    inputs = {m.in_features: torch.randn(rows, m.in_features) for m in linears}
    passes = {
        "plain": lambda m: torch.nn.functional.linear(inputs[m.in_features], m.weight, m.bias),
        "left": lambda m: _weight_left(m.weight, m.bias, inputs[m.in_features]),
    }
    best = {name: float("inf") for name in passes}
    for repeat in range(repeats + 1):
        for name, run in passes.items():
            start = time.perf_counter()
            for m in linears:
                run(m)
            if repeat:
                best[name] = min(best[name], time.perf_counter() - start)
    return best["left"] <= MARGIN * best["plain"]


def use_weight_left_linear(model: torch.nn.Module, measure: bool = True) -> int:
    """Switch the float32 ``nn.Linear`` layers of a model on a CPU to the weight-left product for a few rows, if
    it is measured faster there (``measure=False``: switch without timing); the number switched (0: unchanged)."""
    linears = _candidates(model)
    if linears and all(getattr(m.forward, "__func__", None) is _weight_left_forward for m in linears):
        return len(linears)  # switched already (another backend on the same model)
    if not linears or (measure and not weight_left_pays(linears)):
        return 0
    for module in linears:
        module.forward = types.MethodType(_weight_left_forward, module)
    return len(linears)


def use_pytorch_linear(model: torch.nn.Module) -> None:
    """Undo ``use_weight_left_linear``: every layer back on PyTorch's own product (to compare the two)."""
    for module in model.modules():
        if getattr(module.forward, "__func__", None) is _weight_left_forward:
            del module.forward


__all__ = ["use_weight_left_linear", "use_pytorch_linear", "weight_left_pays", "FEW_ROWS", "ROW_MULTIPLE", "MARGIN"]
