"""Linear layers for a few rows on a CPU: the weight as the left operand.

A forward of 2-16 tokens is what a splice of a short copy and the check of a
draft cost, so its price decides whether speculation pays.  PyTorch computes
``x @ W.T``; on a 2-core AVX2 CPU (MKL 2024.2) that costs as much for 2-4
rows as 1.6-2.4 one-token forwards, although the weights are read once
either way.  ``(W @ x.T).T``, with the rows padded to a multiple of 4, costs
1.0-1.4 (SmolLM2-135M and Qwen2.5-0.5B shapes, fp32, measured side by side
in one process).  One row keeps PyTorch's path (its matrix-vector kernel is
the faster one there), as do long inputs (prefill) and other dtypes and
devices.  The sums are the same products in another order, so logits agree
to float rounding.
"""

from __future__ import annotations

import types

import torch

FEW_ROWS = (2, 32)  # the rows for which the weight goes on the left
ROW_MULTIPLE = 4  # MKL's kernels for a narrow right operand run fastest at multiples of 4 columns


def _weight_left_forward(self: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
    width = x.shape[-1]
    rows = x.numel() // width if width else 0
    if not FEW_ROWS[0] <= rows <= FEW_ROWS[1] or x.dtype != self.weight.dtype:
        return torch.nn.functional.linear(x, self.weight, self.bias)
    flat = x.reshape(rows, width)
    if rows % ROW_MULTIPLE:
        flat = torch.cat([flat, flat.new_zeros(ROW_MULTIPLE - rows % ROW_MULTIPLE, width)])
    out = torch.mm(self.weight, flat.t()).t()[:rows]
    if self.bias is not None:
        out = out + self.bias
    return out.reshape(*x.shape[:-1], self.weight.shape[0])


def use_weight_left_linear(model: torch.nn.Module) -> int:
    """Switch every float32 ``nn.Linear`` of a model on a CPU to the weight-left product for a few rows; the
    number switched (0, model unchanged, on any other device or dtype: measured on CPUs in fp32 only)."""
    if any(p.device.type != "cpu" for p in model.parameters()):
        return 0
    switched = 0
    for module in model.modules():
        if isinstance(module, torch.nn.Linear) and module.weight.dtype == torch.float32:
            module.forward = types.MethodType(_weight_left_forward, module)
            switched += 1
    return switched


__all__ = ["use_weight_left_linear", "FEW_ROWS", "ROW_MULTIPLE"]
