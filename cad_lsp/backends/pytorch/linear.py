"""Linear layers on a CPU through oneDNN, weights packed once at load, where that is measured faster.

A forward of 2-16 tokens is what a splice of a short copy and the check of a
draft cost, so its price decides whether speculation pays.  PyTorch sends a
float32 ``nn.Linear`` on a CPU to MKL's general matrix product, which packs
the weights again on every call; on a 2-core AMD EPYC (AVX2, MKL 2024.2) a
forward of 2-8 tokens then costs 1.5-1.9 one-token forwards although the
weights are read once either way.  oneDNN's inner product, with the weights
reordered once into its blocked layout (PyTorch's ``mkldnn`` operators, the
ones its compiler emits for frozen CPU graphs), costs 1.0-1.4, and a bit less
for one token and for prefill too (``bench smallforward``).  CPUs differ in
which kernels their libraries pick, so the switch is made only after timing
both on the model's own layers (``packed_pays``).

Costs: a packed copy of every switched weight (the float32 weights of the
linear layers again: 0.5 GB for SmolLM2-135M) and the time to pack them at
load (0.5 s for SmolLM2, 5 s for Qwen2.5-0.5B on that CPU).  A packed copy
follows its weight: a weight changed in place (not through ``.data``) or a
copied module is packed again on its next use, never read stale.  Autograd
does not pass through oneDNN's operator, so with gradients on a layer takes
PyTorch's path.  The sums are the same products in another order: logits
agree to float rounding.
"""

from __future__ import annotations

import time
import types

import torch

MEASURED_BYTES = 256 << 20  # weights timed at load: more than a CPU cache holds
MARGIN = 0.85  # switch only when 4 rows take at most this share of PyTorch's time: noise must not flip it
ONE_ROW_SLACK = 1.1  # ... and one row (a decode step) no more than this share


def packed_linear_available() -> bool:
    mkldnn = torch.ops.mkldnn
    return torch.backends.mkldnn.is_available() and all(
        hasattr(mkldnn, op) for op in ("_linear_pointwise", "_reorder_linear_weight"))


class _Packed:
    """A weight's packed copy, with what it was packed from: a changed weight is packed again."""

    def __init__(self, weight: torch.Tensor):
        self.source = (weight.data_ptr(), weight._version)
        self.tensor = torch.ops.mkldnn._reorder_linear_weight(weight.detach())

    def __deepcopy__(self, memo):  # an opaque oneDNN tensor cannot be copied; the copy packs its own weight
        return None


def _packed(module: torch.nn.Linear) -> torch.Tensor:
    packed = module.__dict__.get("packed_weight")
    if packed is None or packed.source != (module.weight.data_ptr(), module.weight._version):
        packed = module.__dict__["packed_weight"] = _Packed(module.weight)
    return packed.tensor


def _packed_linear(module: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
    return torch.ops.mkldnn._linear_pointwise(x, _packed(module), module.bias, "none", [], "")


def _packed_forward(self: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
    if torch.is_grad_enabled() or x.dtype != torch.float32 or x.device.type != "cpu" or not x.shape[-1]:
        return torch.nn.functional.linear(x, self.weight, self.bias)
    return _packed_linear(self, x)


def _candidates(model: torch.nn.Module) -> list[torch.nn.Linear]:
    if not packed_linear_available() or any(p.device.type != "cpu" for p in model.parameters()):
        return []
    return [m for m in model.modules() if isinstance(m, torch.nn.Linear) and m.weight.dtype == torch.float32]


@torch.inference_mode()
def packed_pays(linears: list[torch.nn.Linear], repeats: int = 4) -> bool:
    """Whether passes over these layers are faster packed: by ``MARGIN`` with 4 rows (a short draft), within
    ``ONE_ROW_SLACK`` with one.  The fastest of a few passes each way, interleaved, after one pass each to warm
    up; layers in order up to ``MEASURED_BYTES`` of weights, so they stream from memory as in a forward (one
    layer alone sits in the cache and times differently) without timing the whole model.  Four passes, not
    two: with two, 2 of 14 SmolLM2 loads (2-core AMD EPYC) left every layer on PyTorch's path, where
    packed layers take 0.6 of its time with 4 rows."""
    total = 0
    for count, m in enumerate(linears):
        total += m.weight.numel() * m.weight.element_size()
        if total >= MEASURED_BYTES:
            linears = linears[: count + 1]
            break
    best = {}
    for rows in (1, 4):
        inputs = {m.in_features: torch.randn(rows, m.in_features) for m in linears}
        passes = {
            "plain": lambda m: torch.nn.functional.linear(inputs[m.in_features], m.weight, m.bias),
            "packed": lambda m: _packed_linear(m, inputs[m.in_features]),
        }
        for repeat in range(repeats + 1):
            for name, run in passes.items():
                start = time.perf_counter()
                for m in linears:
                    run(m)
                if repeat:
                    best[name, rows] = min(best.get((name, rows), float("inf")), time.perf_counter() - start)
    return (best["packed", 4] <= MARGIN * best["plain", 4]
            and best["packed", 1] <= ONE_ROW_SLACK * best["plain", 1])


def use_packed_linear(model: torch.nn.Module, measure: bool = True) -> int:
    """Switch the float32 ``nn.Linear`` layers of a model on a CPU to oneDNN's packed product, if it is
    measured faster there (``measure=False``: switch without timing); the number switched (0: unchanged)."""
    linears = _candidates(model)
    if linears and all(getattr(m.forward, "__func__", None) is _packed_forward for m in linears):
        return len(linears)  # switched already (another backend on the same model)
    if not linears:
        return 0
    if measure and not packed_pays(linears):
        use_pytorch_linear(model)  # and drop the copies packed to time them
        return 0
    for module in linears:
        _packed(module)  # packed now, at load, not in the first edit
        module.forward = types.MethodType(_packed_forward, module)
    return len(linears)


def use_pytorch_linear(model: torch.nn.Module) -> None:
    """Undo ``use_packed_linear``: every layer back on PyTorch's own product, its packed copy freed."""
    for module in model.modules():
        if getattr(module.forward, "__func__", None) is _packed_forward:
            del module.forward
        module.__dict__.pop("packed_weight", None)


__all__ = ["use_packed_linear", "use_pytorch_linear", "packed_pays", "packed_linear_available", "MARGIN",
           "ONE_ROW_SLACK"]
