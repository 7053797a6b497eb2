"""A KV cache that grows without copying what it holds.

transformers' ``DynamicLayer`` appends by concatenation: every forward copies
the whole cached length of every layer, which for a 2,000-line document
(24k positions of a 0.5B model) is ~0.6 GB per forward.  ``GrowingLayer``
writes new keys and values in place into preallocated storage that doubles
when full, and hands the model views of the valid length only, so attention
and its mask span what is cached (``StaticCache`` spans its whole preallocated
length on every step).  ``crop`` is a length change.

Used through the model's normal ``cache=`` argument: ``growing_cache(config)``
is a ``transformers.Cache`` whose layers are ``GrowingLayer``.
"""

from __future__ import annotations

import inspect
from functools import lru_cache

import torch
from transformers.cache_utils import Cache, DynamicCache, DynamicLayer

MIN_CAPACITY = 256  # positions allocated at first; doubling from here


class GrowingLayer(DynamicLayer):
    """One layer's keys and values in a buffer of ``capacity`` positions, ``length`` of them valid.

    ``keys``/``values`` are always views ``[:, :, :length]`` of the buffers,
    so everything that reads a ``DynamicLayer`` (sequence length, mask sizes)
    sees only the valid part.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.length = 0
        self._keys: torch.Tensor | None = None
        self._values: torch.Tensor | None = None

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        self.device = key_states.device
        self._keys = key_states.new_empty((*key_states.shape[:2], 0, key_states.shape[-1]))
        self._values = value_states.new_empty((*value_states.shape[:2], 0, value_states.shape[-1]))
        self.is_initialized = True
        self._publish()

    @property
    def capacity(self) -> int:
        return 0 if self._keys is None else self._keys.shape[-2]

    def _publish(self) -> None:
        self.keys = self._keys[:, :, : self.length]
        self.values = self._values[:, :, : self.length]

    def _reserve(self, needed: int) -> None:
        """Grow the buffers to hold ``needed`` positions: double, copying the valid part once."""
        if needed <= self.capacity:
            return
        capacity = max(MIN_CAPACITY, self.capacity)
        while capacity < needed:
            capacity *= 2
        for name in ("_keys", "_values"):
            old = getattr(self, name)
            new = old.new_empty((*old.shape[:2], capacity, old.shape[-1]))
            new[:, :, : self.length] = old[:, :, : self.length]
            setattr(self, name, new)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        n = key_states.shape[-2]
        self._reserve(self.length + n)
        self._keys[:, :, self.length : self.length + n] = key_states
        self._values[:, :, self.length : self.length + n] = value_states
        self.length += n
        self._publish()
        return self.keys, self.values

    def get_seq_length(self) -> int:
        return self.length

    def crop(self, tokens_to_remove: int) -> None:
        """Forget the last ``-tokens_to_remove`` positions (a negative count, as ``DynamicLayer`` takes it)."""
        if tokens_to_remove > 0:
            raise ValueError(f"crop takes a negative count of positions to remove, got {tokens_to_remove}")
        if tokens_to_remove == 0 or not self.is_initialized:
            return
        self.length = max(0, self.length + tokens_to_remove)
        self._publish()

    def reset(self) -> None:
        self.length = 0
        self._keys = self._values = None
        self.keys = self.values = None
        self.is_initialized = False

    def nbytes(self) -> int:
        """What the layer really holds: its allocated capacity, not only the valid length."""
        return sum(t.numel() * t.element_size() for t in (self._keys, self._values) if t is not None)

    def batch_repeat_interleave(self, repeats: int) -> None:
        raise NotImplementedError("GrowingLayer holds one sequence")

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        raise NotImplementedError("GrowingLayer holds one sequence")

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        raise NotImplementedError("GrowingLayer holds one sequence")


def supports_growing(config) -> bool:
    """Growing layers replace full-attention layers only; sliding or linear layers keep transformers' own."""
    from transformers.cache_utils import get_layer_types_and_kwargs

    layer_types, _ = get_layer_types_and_kwargs(config.get_text_config(decoder=True))
    return all(t == "full_attention" for t in layer_types)


def growing_cache(config) -> Cache:
    """A cache for ``config``'s model that grows in place; a ``DynamicCache`` where a layer is not full attention."""
    if not supports_growing(config):
        return DynamicCache(config=config)
    layers = config.get_text_config(decoder=True).num_hidden_layers
    return Cache(layers=[GrowingLayer() for _ in range(layers)])


def cache_argument(model, cache: Cache) -> dict:
    """``cache`` as the keyword argument ``model``'s forward takes it by.

    transformers renamed ``past_key_values`` to ``cache`` within 5.x (5.17 takes the first, 5.25 the second);
    a forward given the other name takes it into ``**kwargs`` and silently runs without the cache.  A peft
    model passes its keywords on to the model it wraps, whose forward names the keyword.
    """
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return {_cache_keyword(type(base)): cache}


@lru_cache(maxsize=None)
def _cache_keyword(model_class: type) -> str:
    parameters = inspect.signature(model_class.forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def cache_nbytes(cache) -> int:
    """Bytes a cache holds, allocated capacity included."""
    total = 0
    for layer in getattr(cache, "layers", []):
        if isinstance(layer, GrowingLayer):
            total += layer.nbytes()
            continue
        for name in ("keys", "values"):
            tensor = getattr(layer, name, None)
            if isinstance(tensor, torch.Tensor):
                total += tensor.numel() * tensor.element_size()
    return total


__all__ = ["GrowingLayer", "growing_cache", "supports_growing", "cache_argument", "cache_nbytes", "MIN_CAPACITY"]
