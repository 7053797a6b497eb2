"""Fixtures shared by the end-to-end tests."""

import os

import pytest

# `cad-lsp edit` keeps its model in a background process by default; the tests run it in their own
# process unless they test that process (tests/test_warm.py), so that no test leaves one behind.
os.environ["CAD_LSP_KEEP_WARM"] = "0"

SUMMARY: list[str] = []  # lines a test wants in the run's output even when it passes (counts, not timings)


def pytest_terminal_summary(terminalreporter):
    for line in SUMMARY:
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def tiny_engine():
    """An in-process engine on random:tiny: greedy decoding is deterministic, so it predicts
    the program a server on the same model writes for the same request."""
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.loading import load_model
    from cad_lsp.engine import Engine

    return Engine(LocalModel(load_model("random:tiny")))
