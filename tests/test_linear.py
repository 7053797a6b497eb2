"""Weight-left linear layers for a few rows: the same logits as PyTorch's own, and only where they were measured."""

import copy
import time

import torch
from transformers import DynamicCache

from cad_lsp.linear import FEW_ROWS, ROW_MULTIPLE, use_pytorch_linear, use_weight_left_linear, weight_left_pays

from .test_kvcache import qwen2_shaped


def test_weight_left_linear_matches_pytorch_after_a_cached_prefix(monkeypatch):
    plain = qwen2_shaped()  # biased q/k/v projections, an output layer of its own
    switched = copy.deepcopy(plain)
    linears = sum(isinstance(m, torch.nn.Linear) for m in plain.modules())
    assert use_weight_left_linear(switched, measure=False) == linears
    assert use_weight_left_linear(switched) == linears  # switched once, not measured again
    undone = copy.deepcopy(switched)
    use_pytorch_linear(undone)
    assert all("forward" not in m.__dict__ for m in undone.modules())
    products = []
    mm = torch.mm

    def recording(left, right, *args, **kwargs):
        products.append(right.shape[1])
        return mm(left, right, *args, **kwargs)

    generator = torch.Generator().manual_seed(5)
    ids = lambda n: torch.randint(0, 500, (1, n), generator=generator)  # noqa: E731
    reference, cache = DynamicCache(config=plain.config), DynamicCache(config=plain.config)
    with torch.inference_mode():
        prefix = ids(200)
        assert torch.equal(plain(prefix, cache=reference, use_cache=True).logits,
                           switched(prefix, cache=cache, use_cache=True).logits)  # prefill: PyTorch's path, bit for bit
        for n in (1, 2, 3, 4, 5, FEW_ROWS[1], FEW_ROWS[1] + 1):
            chunk = ids(n)
            expected = plain(chunk, cache=reference, use_cache=True).logits
            monkeypatch.setattr(torch, "mm", recording)
            got = switched(chunk, cache=cache, use_cache=True).logits
            monkeypatch.undo()
            assert torch.allclose(expected, got, atol=1e-5), (n, (expected - got).abs().max())
            weight_left = FEW_ROWS[0] <= n <= FEW_ROWS[1]
            padded = -(-n // ROW_MULTIPLE) * ROW_MULTIPLE
            assert products == ([padded] * linears if weight_left else []), n
            products.clear()


def test_other_dtypes_and_devices_are_left_alone(monkeypatch):
    half = qwen2_shaped().to(torch.bfloat16)
    assert use_weight_left_linear(half) == 0
    assert all("forward" not in m.__dict__ for m in half.modules())
    model = qwen2_shaped()
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda", 0)))
    assert use_weight_left_linear(model) == 0
    monkeypatch.undo()
    assert all("forward" not in m.__dict__ for m in model.modules())


def test_the_switch_follows_which_product_is_measured_faster(monkeypatch):
    """Machines differ in which product their BLAS runs faster; the slower one, made slower still, must lose."""
    mm, linear = torch.mm, torch.nn.functional.linear

    def slowed(product):
        def slow(*args, **kwargs):
            time.sleep(0.002)
            return product(*args, **kwargs)
        return slow

    model = qwen2_shaped()
    monkeypatch.setattr(torch, "mm", slowed(mm))
    assert use_weight_left_linear(model) == 0
    assert all("forward" not in m.__dict__ for m in model.modules())
    monkeypatch.undo()
    monkeypatch.setattr(torch.nn.functional, "linear", slowed(linear))
    layers = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert weight_left_pays(layers)
    monkeypatch.undo()
