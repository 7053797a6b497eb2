"""A picture of Neovim's review: the confirmation prompt for a cad-lsp edit, as a PNG.

    python clients/nvim/test/screenshot.py docs/img/nvim-review.png

Runs a real Neovim (the venv's ``nvim``) inside tmux with the plugin and the
real ``cad-lsp serve`` (a scripted model, ``bench/scripted.py``), asks for an
edit with ``:CadEdit``, waits for Neovim's "Apply all changes?" prompt, and
renders the terminal (``tmux capture-pane -e``: text and colours) to HTML with
rich and to PNG with Chromium. Needs tmux and chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = ROOT / "clients" / "nvim"
COLUMNS, ROWS = 90, 17
SOURCE = """\
def total(prices, tax):
    subtotal = sum(prices)
    return subtotal * (1 + tax)


def last_items(items, n):
    # AI: make the bound inclusive
    end = len(items) - 1
    return items[end - n:end]
"""
INIT = """\
vim.opt.runtimepath:prepend({plugin})
vim.o.number = true
vim.o.swapfile = false
require("cad_lsp").setup({{ cmd = {cmd}, needs_confirmation = true }})
"""


def tmux(socket: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["tmux", "-L", socket, *args], check=True, text=True, capture_output=True, **kwargs)


def render(ansi: str, png: Path, work: Path) -> None:
    """Terminal text with SGR colours -> PNG, through rich's HTML export and Chromium."""
    from rich.console import Console
    from rich.text import Text

    console = Console(record=True, width=COLUMNS, file=open(os.devnull, "w"), color_system="truecolor")
    console.print(Text.from_ansi(ansi.rstrip("\n")), overflow="crop", no_wrap=True)
    page = console.export_html(inline_styles=True, code_format=(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        "body {{ margin: 0; background: #14161b; color: #e0e2ea; }}"  # Neovim's default dark colours
        "pre {{ margin: 8px 10px; font: 15px/1.3 'DejaVu Sans Mono', monospace; }}"
        "</style></head><body><pre>{code}</pre></body></html>"))
    html = work / "screen.html"
    html.write_text(page, encoding="utf-8")
    width, height = int(COLUMNS * 9.05) + 20, int(ROWS * 19.5) + 16
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={png}", f"--window-size={width},{height}", html.as_uri()],
                   check=True, capture_output=True, timeout=120)


def main(argv: list[str]) -> int:
    png = Path(argv[0] if argv else "nvim-review.png").resolve()
    nvim = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")
    if nvim is None or shutil.which("tmux") is None or shutil.which("chromium") is None:
        print("screenshot.py: needs nvim, tmux and chromium", file=sys.stderr)
        return 2
    socket = f"cad-lsp-shot-{os.getpid()}"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "calc.py").write_text(SOURCE, encoding="utf-8")
        (work / ".git").mkdir()  # the plugin's root marker
        cmd = [sys.executable, "-m", "bench.scripted", "--model", "random:tiny", "--dtype", "fp32"]
        (work / "init.lua").write_text(INIT.format(plugin=json.dumps(str(PLUGIN)), cmd=lua_list(cmd)))
        env = ["-e", f"PYTHONPATH={ROOT}", "-e", "COLORTERM=truecolor"]
        tmux(socket, "-f", "/dev/null", "new-session", "-d", "-x", str(COLUMNS), "-y", str(ROWS), *env,
             "-c", str(work), f"{nvim} -u init.lua calc.py")
        try:
            tmux(socket, "set", "-g", "default-terminal", "tmux-256color")
            deadline = time.monotonic() + 180
            asked = 0.0
            while True:
                screen = tmux(socket, "capture-pane", "-p", "-e").stdout
                if "Apply all changes?" in screen:
                    break
                if not asked or "not attached" in screen and time.monotonic() - asked > 1:
                    tmux(socket, "send-keys", ":6,9CadEdit make the bound inclusive", "Enter")  # once it attaches
                    asked = time.monotonic()
                if time.monotonic() > deadline:
                    print(f"screenshot.py: no confirmation prompt; the screen:\n{screen}", file=sys.stderr)
                    return 1
                time.sleep(0.3)
            time.sleep(0.3)
            render(tmux(socket, "capture-pane", "-p", "-e").stdout, png, work)
            tmux(socket, "send-keys", "n")
        finally:
            subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
    print(f"screenshot.py: {png} ({png.stat().st_size // 1024} KB)")
    return 0


def lua_list(items: list[str]) -> str:
    return "{ " + ", ".join(json.dumps(item) for item in items) + " }"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
