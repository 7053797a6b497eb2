"""Benchmarks that reproduce the Copy-as-Decode paper's tables on this machine.

Run them with ``cad-lsp bench NAME``; ``bench/runner.py`` holds what they share.
"""
