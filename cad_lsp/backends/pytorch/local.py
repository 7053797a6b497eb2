"""The in-process PyTorch backend: a Hugging Face model behind the engine's seam (``engine.backend``)."""

from __future__ import annotations

from typing import Sequence

import torch

from ...engine import backend as seam
from ...engine.backend import KVState
from .attention import use_grouped_attention
from .kvcache import cache_argument, cache_nbytes, growing_cache
from .linear import use_packed_linear
from .loading import LoadedModel


def output_layer_share(model) -> float:
    """The output layer's compute per position, in tokens' worth of the rest of the model.

    Checking a draft needs logits at every drafted position; with a 151k
    vocabulary on a small model that row costs more than the token itself.
    """
    head = model.get_output_embeddings()
    embed = model.get_input_embeddings()
    if head is None:
        return 0.3
    skip = {id(head.weight), id(embed.weight) if embed is not None else None}
    body = sum(p.numel() for p in model.parameters() if id(p) not in skip)
    return head.weight.numel() / max(1, body)


class LocalModel:
    """An in-process Hugging Face model with a growing cache per state (``kvcache``: written in place, no
    concatenation per forward)."""

    def __init__(self, loaded: LoadedModel):
        self.loaded = loaded
        self.model = loaded.model
        self.device = loaded.device
        self.name, self.tokenizer, self.advice = loaded.name, loaded.tokenizer, loaded.advice
        self.adapted = loaded.adapter is not None
        self.vocab_size = self.model.config.vocab_size
        self.forwards = 0
        self.head_ratio = output_layer_share(self.model)
        use_grouped_attention(self.model)  # decode steps and splices over a long cache: see attention.py
        self.packed_linears = use_packed_linear(self.model)  # forwards of a few tokens: see linear.py

    @property
    def context_length(self) -> int | None:
        return getattr(self.model.config, "max_position_embeddings", None)

    def new_state(self) -> KVState:
        return KVState([], growing_cache(self.model.config))

    @torch.inference_mode()
    def extend(self, state: KVState, ids: Sequence[int]) -> torch.Tensor:
        """Append ``ids`` to the cache; the logits after the last one.

        More than PREFILL_CHUNK tokens go in several forwards: attention over a
        long document with a cached prefix needs a query x key mask, which for
        30k tokens would take gigabytes in one piece.
        """
        if not ids:
            raise ValueError("extend needs at least one token")
        ids = list(ids)
        for start in range(0, len(ids), seam.PREFILL_CHUNK):
            chunk = ids[start:start + seam.PREFILL_CHUNK]
            out = self._forward(state, chunk, 1)
        return out.logits[0, -1].float().cpu()

    @torch.inference_mode()
    def extend_scored(self, state: KVState, ids: Sequence[int], positions: Sequence[int]) -> torch.Tensor:
        """Append ``ids``; the logits after each of ``positions`` (to check a draft at every drafted token)."""
        ids, rows = list(ids), []
        for start in range(0, len(ids), seam.PREFILL_CHUNK):
            chunk = ids[start:start + seam.PREFILL_CHUNK]
            keep = [p - start for p in positions if start <= p < start + len(chunk)]
            out = self._forward(state, chunk, torch.tensor(keep, device=self.device) if keep else 1)
            if keep:
                rows.append(out.logits[0].float().cpu())
        return torch.cat(rows) if rows else torch.empty(0, self.vocab_size)

    def _forward(self, state: KVState, chunk: list[int], logits_to_keep):
        """One forward appending ``chunk`` to the state's cache.  A cache the model did not write to (a
        transformers release taking it by another name, say) would give logits with no context, silently."""
        before = state.cache.get_seq_length()
        out = self.model(torch.tensor([chunk], device=self.device), **cache_argument(self.model, state.cache),
                         use_cache=True, logits_to_keep=logits_to_keep)
        if state.cache.get_seq_length() != before + len(chunk):
            raise RuntimeError(f"{self.name}: the model did not write {len(chunk)} positions into the cache "
                               f"(it holds {state.cache.get_seq_length()}, {before} before the forward)")
        state.ids.extend(chunk)
        self.forwards += 1
        return out

    def crop(self, state: KVState, length: int) -> None:
        extra = len(state.ids) - length
        if extra > 0:
            state.cache.crop(-extra)
            del state.ids[length:]

    def nbytes(self, state: KVState) -> int:
        return cache_nbytes(state.cache)  # allocated capacity, so the cache budget counts what is held


__all__ = ["LocalModel", "output_layer_share"]
