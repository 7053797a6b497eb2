"""cad-lsp: LLM code edits as copy/gen programs (Copy-as-Decode), served over LSP."""

__version__ = "0.1.0"
