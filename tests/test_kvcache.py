"""The growing cache against transformers' DynamicCache: the same logits and the same keys and values."""

import pytest
import torch
from transformers import DynamicCache

from cad_lsp.backends.pytorch.kvcache import MIN_CAPACITY, GrowingLayer, cache_argument, cache_nbytes, growing_cache
from cad_lsp.backends.pytorch.loading import load_model, random_model


def qwen2_shaped():
    """A small random Qwen2 with the 0.5B model's head layout (14 query heads on 2 key/value heads, head dim 64)."""
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(vocab_size=512, hidden_size=896, intermediate_size=256, num_hidden_layers=3,
                         num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=4096,
                         rope_theta=1_000_000.0)
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()


@pytest.fixture(scope="module", params=["tiny", "qwen2-shaped"])
def model(request):
    return load_model("random:tiny", "cpu", "fp32").model if request.param == "tiny" else qwen2_shaped()


def forward(model, cache, ids):
    with torch.inference_mode():
        out = model(torch.tensor([ids]), **cache_argument(model, cache), use_cache=True)
    return out.logits[0]


def assert_same(model, dynamic, growing, ids, atol=1e-5):
    a, b = forward(model, dynamic, ids), forward(model, growing, ids)
    assert torch.allclose(a, b, atol=atol), (a - b).abs().max()
    assert dynamic.get_seq_length() == growing.get_seq_length()
    for d, g in zip(dynamic.layers, growing.layers):
        assert isinstance(g, GrowingLayer)
        for x, y in ((d.keys, g.keys), (d.values, g.values)):
            assert x.shape == y.shape and torch.allclose(x, y, atol=atol)


def test_prefill_splices_crops_and_regrowth_match_dynamic_cache(model):
    vocab = model.config.vocab_size
    generator = torch.Generator().manual_seed(1)
    ids = lambda n: torch.randint(0, min(vocab, 500), (n,), generator=generator).tolist()  # noqa: E731
    dynamic, growing = DynamicCache(config=model.config), growing_cache(model.config)

    assert_same(model, dynamic, growing, ids(100))  # prefill inside the first allocation
    for n in (1, 1, 9, 40):  # decode steps and splices
        assert_same(model, dynamic, growing, ids(n))
    for cut in (3, 60):  # a rejected tail, a request dropped back to the document
        dynamic.crop(-cut), growing.crop(-cut)
        assert_same(model, dynamic, growing, ids(5))
    capacity = growing.layers[0].capacity
    assert capacity == MIN_CAPACITY
    assert_same(model, dynamic, growing, ids(capacity))  # one splice past a doubling
    assert growing.layers[0].capacity == 2 * capacity
    dynamic.crop(-200), growing.crop(-200)  # crop back below the old capacity, then regrow over the stale tail
    assert_same(model, dynamic, growing, ids(300))
    assert growing.get_seq_length() == dynamic.get_seq_length() == 100 + 51 - 63 + 10 + capacity - 200 + 300


def test_nbytes_counts_the_allocated_capacity():
    model = load_model("random:tiny", "cpu", "fp32").model
    cache = growing_cache(model.config)
    forward(model, cache, list(range(10)))
    config = model.config
    head_dim = config.hidden_size // config.num_attention_heads
    per_position = 2 * config.num_hidden_layers * config.num_key_value_heads * head_dim * 4  # keys+values, fp32
    assert cache_nbytes(cache) == MIN_CAPACITY * per_position  # 10 valid positions, 256 allocated
    cache.crop(-5)
    assert cache_nbytes(cache) == MIN_CAPACITY * per_position  # a crop keeps the storage


def test_grows_without_copying_the_cached_positions():
    """A forward writes its own positions only: the storage of the cached ones is not reallocated."""
    model = load_model("random:tiny", "cpu", "fp32").model
    cache = growing_cache(model.config)
    forward(model, cache, list(range(100)))
    pointers = [layer._keys.data_ptr() for layer in cache.layers]
    forward(model, cache, list(range(50)))
    assert [layer._keys.data_ptr() for layer in cache.layers] == pointers
    assert all(layer.keys.data_ptr() == p for layer, p in zip(cache.layers, pointers))  # views, not copies


def test_sliding_window_models_keep_the_dynamic_cache():
    from transformers import Qwen2Config

    config = Qwen2Config(vocab_size=64, hidden_size=64, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, use_sliding_window=True, sliding_window=16,
                         max_window_layers=0)
    assert isinstance(growing_cache(config), DynamicCache)
    assert not isinstance(growing_cache(random_model("tiny").config), DynamicCache)


def test_the_cache_goes_by_the_keyword_the_forward_names(model):
    """transformers renamed the forward's ``past_key_values`` to ``cache`` within 5.x: either given under the
    other name falls into ``**kwargs`` and the forward runs without it."""
    import inspect

    class OlderForward(torch.nn.Module):
        def forward(self, input_ids, past_key_values=None, use_cache=None, **kwargs):
            return past_key_values

    cache = growing_cache(model.config)
    (name,) = cache_argument(model, cache)
    assert name in inspect.signature(type(model).forward).parameters
    assert cache_argument(OlderForward(), cache) == {"past_key_values": cache}
    assert OlderForward()(None, **cache_argument(OlderForward(), cache)) is cache


def test_a_forward_that_leaves_the_cache_unwritten_is_an_error_not_logits_without_context(monkeypatch):
    import cad_lsp.backends.pytorch.local as local_module
    from cad_lsp.backends.pytorch import LocalModel

    local = LocalModel(load_model("random:tiny", "cpu", "fp32"))
    state = local.new_state()
    local.extend(state, [1, 2, 3])
    monkeypatch.setattr(local_module, "cache_argument", lambda model, cache: {"past_cache_by_another_name": cache})
    with pytest.raises(RuntimeError, match="did not write 2 positions into the cache"):
        local.extend(state, [4, 5])
    assert state.ids == [1, 2, 3] and state.cache.get_seq_length() == 3
