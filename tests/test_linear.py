"""Packed oneDNN linear layers: the same logits as PyTorch's own, never stale, and only where measured faster."""

import copy
import time

import pytest
import torch
from transformers import DynamicCache

import cad_lsp.backends.pytorch.linear as linear_module
from cad_lsp.backends.pytorch.kvcache import cache_argument
from cad_lsp.backends.pytorch.linear import packed_linear_available, packed_pays, use_packed_linear, use_pytorch_linear

from .test_kvcache import qwen2_shaped

pytestmark = pytest.mark.skipif(not packed_linear_available(), reason="this torch build has no oneDNN")


def _count_packed(monkeypatch) -> list:
    """The rows of every product that goes through oneDNN."""
    calls = []
    packed_linear = linear_module._packed_linear

    def recording(module, x):
        calls.append(x.numel() // x.shape[-1])
        return packed_linear(module, x)

    monkeypatch.setattr(linear_module, "_packed_linear", recording)
    return calls


def test_packed_linear_matches_pytorch_after_a_cached_prefix(monkeypatch):
    plain = qwen2_shaped()  # biased q/k/v projections, an output layer of its own
    switched = copy.deepcopy(plain)
    linears = sum(isinstance(m, torch.nn.Linear) for m in plain.modules())
    assert use_packed_linear(switched, measure=False) == linears
    assert use_packed_linear(switched) == linears  # switched once, not measured again
    undone = copy.deepcopy(switched)
    use_pytorch_linear(undone)
    assert all("forward" not in m.__dict__ and "packed_weight" not in m.__dict__ for m in undone.modules())
    generator = torch.Generator().manual_seed(5)
    ids = lambda n: torch.randint(0, 500, (1, n), generator=generator)  # noqa: E731
    reference, cache = DynamicCache(config=plain.config), DynamicCache(config=plain.config)
    calls = _count_packed(monkeypatch)
    with torch.inference_mode():
        for n in (200, 1, 2, 3, 4, 5, 8, 33):  # a prefill, decode steps, drafts
            chunk = ids(n)
            expected = plain(chunk, **cache_argument(plain, reference), use_cache=True).logits
            got = switched(chunk, **cache_argument(switched, cache), use_cache=True).logits
            assert torch.allclose(expected, got, atol=1e-5), (n, (expected - got).abs().max())
            assert calls == [n] * linears, n  # every layer through oneDNN, whatever the rows
            calls.clear()
    with torch.enable_grad():  # autograd does not pass through oneDNN's operator: PyTorch's path
        switched(ids(3)).logits.sum().backward()
    assert calls == [] and switched.lm_head.weight.grad is not None


def test_a_changed_or_copied_weight_is_packed_again():
    model = qwen2_shaped()
    use_packed_linear(model, measure=False)
    layer = model.lm_head
    x = torch.randn(3, layer.in_features)
    with torch.inference_mode():
        before = layer(x)
    with torch.no_grad():
        layer.weight.mul_(2)
    with torch.inference_mode():
        assert torch.allclose(layer(x), 2 * before, atol=1e-5)  # not the copy packed before the change
    twin = copy.deepcopy(model)  # oneDNN's opaque tensor cannot be copied: the copy packs its own
    with torch.no_grad():
        twin.lm_head.weight.zero_()
    with torch.inference_mode():
        assert torch.count_nonzero(twin.lm_head(x)) == 0
        assert torch.allclose(layer(x), 2 * before, atol=1e-5)


def test_other_dtypes_and_devices_are_left_alone(monkeypatch):
    half = qwen2_shaped().to(torch.bfloat16)
    assert use_packed_linear(half) == 0
    assert all("forward" not in m.__dict__ for m in half.modules())
    model = qwen2_shaped()
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda", 0)))
    assert use_packed_linear(model) == 0
    monkeypatch.undo()
    assert all("forward" not in m.__dict__ for m in model.modules())


def test_the_switch_follows_which_product_is_measured_faster(monkeypatch):
    """Machines differ in which kernels run faster; the slower product, made slower still, must lose."""
    linear = torch.nn.functional.linear

    def slowed(product):
        def slow(*args, **kwargs):
            time.sleep(0.002)
            return product(*args, **kwargs)
        return slow

    model = qwen2_shaped()
    monkeypatch.setattr(linear_module, "_packed_linear", slowed(linear_module._packed_linear))
    assert use_packed_linear(model) == 0
    assert all("forward" not in m.__dict__ and "packed_weight" not in m.__dict__ for m in model.modules())
    monkeypatch.undo()
    monkeypatch.setattr(torch.nn.functional, "linear", slowed(linear))
    layers = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert packed_pays(layers)
    monkeypatch.undo()
