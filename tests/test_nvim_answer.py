"""The Neovim client's :CadApplyAnswer, headless with a stand-in client (``clients/nvim/test/answer.lua``): the
answer's files in the quickfix list, one question for all of them, Reject applies nothing, Accept hands the edit to
Neovim's own handler."""

import os
import subprocess
from pathlib import Path

import pytest

from tests.test_nvim import find_nvim

ANSWER_LUA = Path(__file__).resolve().parent.parent / "clients" / "nvim" / "test" / "answer.lua"


def test_cad_apply_answer_asks_once_for_every_file(tmp_path):
    nvim = find_nvim()
    if nvim is None:
        pytest.skip("nvim not found")
    env = {**os.environ, **{name: str(tmp_path / name.lower()) for name in ("XDG_STATE_HOME", "XDG_DATA_HOME",
                                                                             "XDG_CACHE_HOME")}}
    run = subprocess.run([nvim, "--headless", "--clean", "-l", str(ANSWER_LUA)], check=False, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "answer.lua: ok" in run.stdout + run.stderr, run.stderr
