"""Attention for short queries over a long cache: the query heads of a group as rows of one head.

With grouped-query attention (Qwen2.5-0.5B: 14 query heads on 2 key/value
heads) transformers' SDPA path runs PyTorch's ``enable_gqa`` kernel or
repeats the cached keys and values per query head; on a CPU both cost ~4x
more than attention over the key/value heads themselves once tens of
thousands of positions are cached (a decode step after 24k positions: 32 ms
a layer, against 8 ms when the 7 query heads sharing a key/value head become
7 rows of one query).  The result is the same attention; longer queries
(prefill chunks) keep transformers' own path.
"""

from __future__ import annotations

import torch
from transformers.integrations.sdpa_attention import sdpa_attention_forward

NAME = "cad_grouped_sdpa"
GROUPED_MAX_QUERIES = 32  # beyond this the rows no longer fit the kernel better than the heads do


def grouped_sdpa_forward(module: torch.nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                         attention_mask: torch.Tensor | None, dropout: float = 0.0, scaling: float | None = None,
                         is_causal: bool | None = None, **kwargs):
    groups = getattr(module, "num_key_value_groups", 1)
    batch, heads, q_length, dim = query.shape
    plain = (groups <= 1 or q_length > GROUPED_MAX_QUERIES or kwargs.get("position_bias") is not None
             or kwargs.get("softcap") is not None or (q_length > 1 and attention_mask is None)
             or (attention_mask is not None and attention_mask.shape[1] != 1))
    if plain:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      is_causal=is_causal, **kwargs)
    kv_heads = heads // groups
    rows = query.reshape(batch, kv_heads, groups * q_length, dim)  # row g*q + i: query head g of the group, token i
    mask = attention_mask
    if mask is not None and q_length > 1:
        mask = mask.repeat(1, 1, groups, 1)
    out = torch.nn.functional.scaled_dot_product_attention(rows, key, value, attn_mask=mask, dropout_p=dropout,
                                                           scale=scaling)
    return out.reshape(batch, heads, q_length, value.shape[-1]).transpose(1, 2).contiguous(), None


def use_grouped_attention(model: torch.nn.Module) -> bool:
    """Switch a model on SDPA on a CPU to the grouped path; False (unchanged) for any other attention or
    device (measured on CPUs only; GPU kernels handle grouped heads themselves)."""
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask

    config = getattr(model, "config", None)
    if getattr(config, "_attn_implementation", None) != "sdpa":
        return False
    if any(p.device.type != "cpu" for p in model.parameters()):
        return False
    AttentionInterface.register(NAME, grouped_sdpa_forward)
    ALL_MASK_ATTENTION_FUNCTIONS.register(NAME, sdpa_mask)
    try:
        model.set_attn_implementation(NAME)
    except (ValueError, KeyError, AttributeError):
        return False
    return config._attn_implementation == NAME


__all__ = ["grouped_sdpa_forward", "use_grouped_attention", "NAME", "GROUPED_MAX_QUERIES"]
