"""The PyTorch backend: a Hugging Face causal LM in this process.

``loading`` reads a model by name (the embedded GGUF file converted once,
random shapes, any Hugging Face checkpoint); ``local`` is the backend itself;
``kvcache`` grows each document's cache in place, ``attention`` lets a short
query attend over a long cache without copying it, ``linear`` packs the
weights for forwards of a few tokens on a CPU.
"""

from .loading import LoadedModel, load_model
from .local import LocalModel

__all__ = ["LoadedModel", "LocalModel", "load_model"]
