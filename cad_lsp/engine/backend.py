"""The seam between the decode loop and a model: token ids in, logits out, over a KV cache it can
extend and crop.

Backends live in ``cad_lsp.backends`` (PyTorch in this process, a vLLM server, llama.cpp); this module
knows none of them and imports no model library, so a new backend closes no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence

if TYPE_CHECKING:
    import torch

PREFILL_CHUNK = 2048  # tokens per forward at most: bounds attention memory, and how long a cancel waits


class EngineError(ValueError):
    """A request the engine cannot serve (bad selection, empty document...); the message is for the user."""


class TooLongForContext(EngineError):
    """A request that the model's context cannot hold with room for its program; the message says what would fit."""


class Cancelled(RuntimeError):
    """The request was cancelled; nothing was produced."""


@dataclass
class KVState:
    """Token ids whose keys and values the backend holds, and its handle on them (one per document)."""

    ids: list[int] = field(default_factory=list)
    cache: object = None


class ModelBackend(Protocol):
    """A model the decode loop can drive, and what the engine needs to know of it."""

    name: str  # as the user named it (``--model``)
    tokenizer: object  # a Hugging Face tokenizer: encode, decode, apply_chat_template
    vocab_size: int
    context_length: int | None  # positions the model was trained for; past them it writes nonsense
    adapted: bool  # a fine-tuned adapter is in the weights: its prompt carries no worked examples
    advice: str | None  # what the user should know about this choice of model, dtype and device
    head_ratio: float  # the output layer's cost per position, in tokens' worth of the rest (drafting prices it)

    def new_state(self) -> KVState: ...

    def extend(self, state: KVState, ids: Sequence[int]) -> torch.Tensor:
        """Append ids in ONE forward; return float32 logits after the last one."""

    def extend_scored(self, state: KVState, ids: Sequence[int], positions: Sequence[int]) -> torch.Tensor:
        """Append ids in one forward; float32 logits after each of ``positions`` (indices into ids), one row each."""

    def crop(self, state: KVState, length: int) -> None:
        """Forget everything after the first ``length`` tokens."""

    def nbytes(self, state: KVState) -> int: ...


__all__ = ["PREFILL_CHUNK", "EngineError", "Cancelled", "KVState", "ModelBackend"]
