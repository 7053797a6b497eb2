"""Grouped attention for short queries: the same logits as transformers' SDPA, on the key/value heads only."""

import copy

import pytest
import torch
from transformers import DynamicCache

from cad_lsp.backends.pytorch.attention import GROUPED_MAX_QUERIES, use_grouped_attention
from cad_lsp.backends.pytorch.kvcache import cache_argument, growing_cache

from .test_kvcache import qwen2_shaped


@pytest.fixture(scope="module")
def models():
    plain = qwen2_shaped()
    grouped = copy.deepcopy(plain)
    assert use_grouped_attention(grouped) and plain.config._attn_implementation == "sdpa"
    return plain, grouped


def test_grouped_attention_matches_sdpa_after_a_cached_prefix(models, monkeypatch):
    plain, grouped = models
    calls = []
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def recording(query, key, *args, **kwargs):
        calls.append((query.shape[1], key.shape[1], query.shape[2]))
        return sdpa(query, key, *args, **kwargs)

    generator = torch.Generator().manual_seed(3)
    ids = lambda n: torch.randint(0, 500, (1, n), generator=generator)  # noqa: E731
    reference, cache = DynamicCache(config=plain.config), growing_cache(grouped.config)
    with torch.inference_mode():
        prefix = ids(300)
        assert torch.allclose(plain(prefix, **cache_argument(plain, reference), use_cache=True).logits,
                              grouped(prefix, **cache_argument(grouped, cache), use_cache=True).logits, atol=1e-5)
        for n in (1, 1, 7, GROUPED_MAX_QUERIES, GROUPED_MAX_QUERIES + 1):
            chunk = ids(n)
            expected = plain(chunk, **cache_argument(plain, reference), use_cache=True).logits
            monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", recording)
            got = grouped(chunk, **cache_argument(grouped, cache), use_cache=True).logits
            monkeypatch.undo()
            assert torch.allclose(expected, got, atol=1e-5), (n, (expected - got).abs().max())
    config = plain.config
    layers, kv, heads, groups = (config.num_hidden_layers, config.num_key_value_heads, config.num_attention_heads,
                                 config.num_attention_heads // config.num_key_value_heads)
    grouped_calls = [(kv, kv, groups * n) for n in (1, 1, 7, GROUPED_MAX_QUERIES) for _ in range(layers)]
    assert calls[: len(grouped_calls)] == grouped_calls  # rows of the key/value heads, nothing repeated
    assert all(c[0] == heads for c in calls[len(grouped_calls):])  # a longer query keeps transformers' path


def test_other_attention_implementations_are_left_alone():
    model = qwen2_shaped()
    model.set_attn_implementation("eager")
    assert not use_grouped_attention(model) and model.config._attn_implementation == "eager"


def test_models_off_the_cpu_are_left_alone(monkeypatch):
    model = qwen2_shaped()
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda", 0)))
    assert not use_grouped_attention(model)
    monkeypatch.undo()
    assert model.config._attn_implementation == "sdpa"
