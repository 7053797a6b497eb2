"""Fixtures shared by the end-to-end tests."""

import pytest

SUMMARY: list[str] = []  # lines a test wants in the run's output even when it passes (counts, not timings)


def pytest_terminal_summary(terminalreporter):
    for line in SUMMARY:
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def tiny_engine():
    """An in-process engine on random:tiny: greedy decoding is deterministic, so it predicts
    the program a server on the same model writes for the same request."""
    from cad_lsp.engine import Engine
    from cad_lsp.models import load_model

    return Engine(load_model("random:tiny"))
