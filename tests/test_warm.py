"""cad-lsp edit's background process: later runs reuse the loaded model and print the same edit."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from cad_lsp import warm
from cad_lsp.engine.window import DEFAULT_CONTEXT_LINES

pytestmark = pytest.mark.skipif(not warm.supported(), reason="no Unix sockets or file locks on this system")

SOURCE = "def area(w, h):\n    print(w, h)\n    return w * h\n"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def runtime(monkeypatch):
    """A private, short runtime folder (socket paths are limited to ~100 bytes), emptied of processes after."""
    folder = Path(tempfile.mkdtemp(prefix="cadw"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder
    for lock in (folder / "cad-lsp").glob("*.lock"):
        pid = _pid(lock)
        if pid and _alive(pid):
            os.kill(pid, signal.SIGTERM)
    shutil.rmtree(folder, ignore_errors=True)


def _pid(lock: Path) -> int | None:
    text = lock.read_text().strip()
    return int(text) if text.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a child of this process that exited and was not reaped yet
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return True


def edit(path: Path, *extra: str, model: str = "random:tiny", code: str | None = None) -> subprocess.CompletedProcess:
    """`cad-lsp edit` in a process of its own, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("CAD_LSP_KEEP_WARM", None)
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "cad_lsp"]
    return subprocess.run(command + ["edit", str(path), "--lines", "1-3", "--instruction", "Delete the print",
                                     "--model", model, "--max-tokens", "12", *extra],
                          capture_output=True, text=True, env=env, timeout=300)


def program_and_diff(stdout: str) -> str:
    return stdout.split("stats:")[0]  # the stats line differs: timings, and the cached prompt


def workers(folder: Path) -> list[int]:
    return [pid for lock in (folder / "cad-lsp").glob("*.lock") if (pid := _pid(lock)) and _alive(pid)]


def test_a_later_run_reuses_the_loaded_model_and_prints_the_same_edit(tmp_path, runtime):
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    here = edit(path, "--keep-warm", "0")
    assert "background process" not in here.stderr and not (runtime / "cad-lsp").exists()
    first = edit(path, "--keep-warm", "60")
    second = edit(path, "--keep-warm", "60")
    assert here.returncode == first.returncode == second.returncode, (first.stderr, second.stderr)
    assert "stays loaded in a background process (pid" in first.stderr  # says what it leaves, how to turn it off
    assert "--keep-warm 0" in first.stderr
    assert "background process" not in second.stderr  # found it warm
    assert program_and_diff(here.stdout) == program_and_diff(first.stdout) == program_and_diff(second.stdout)
    assert "(0 cached)" in first.stdout and "(0 cached)" not in second.stdout  # the document's prompt stayed warm
    assert len(workers(runtime)) == 1
    mode = (runtime / "cad-lsp").stat().st_mode & 0o777
    assert mode == 0o700  # the socket's folder is the user's alone


def test_a_warm_run_imports_neither_torch_nor_the_engine(tmp_path, runtime):
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    assert edit(path).returncode in (0, 1)
    code = ("import sys; from cad_lsp.cli import main; rc = main(sys.argv[1:]); "
            "print('LOADED', sorted(m for m in ('torch', 'transformers', 'cad_lsp.engine.engine') if m in sys.modules))")
    warm_run = edit(path, code=code)
    assert "LOADED []" in warm_run.stdout, warm_run.stdout + warm_run.stderr


def edit_request(path: Path) -> dict:
    """The request `cad-lsp edit --lines 1-3 --max-tokens 12` sends."""
    return {"document": path.read_text(), "first": 1, "last": 3, "instruction": "Delete the print", "name": path.name,
            "key": str(path), "max_tokens": 12, "temperature": 0.0, "seed": 0, "speculate": True,
            "context_lines": DEFAULT_CONTEXT_LINES}


def test_each_model_is_answered_by_its_own_process(tmp_path, runtime, monkeypatch, capsys):
    """Two models in turn, each answered by the process that holds it; a process refuses a request for another
    model, so a socket name that stopped telling models apart costs a load in the run, not a wrong answer."""
    from cad_lsp.backends.catalog import QWEN_TOKENIZER, load_tokenizer
    from cad_lsp.backends.pytorch.loading import random_model
    from cad_lsp.cli import main

    other = tmp_path / "other-model"
    random_model("tiny", seed=1).save_pretrained(other)  # another model: other weights, a local folder
    load_tokenizer(QWEN_TOKENIZER).save_pretrained(other)
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    request = edit_request(path)
    for model in ("random:tiny", str(other), "random:tiny", str(other)):
        reply = warm.edit_in_background(request, model, None, "auto", 60)
        assert "error" not in reply, reply
        assert reply["holder"] == warm.holder(model, None, "auto")
    assert len(workers(runtime)) == 2

    tiny_key = warm.worker_key("random:tiny", None, "auto")
    refused = warm._send(warm.socket_path(tiny_key), {**request, "holder": warm.holder(str(other), None, "auto")})
    assert "refused" in refused and str(other) in refused["refused"]
    monkeypatch.setattr(warm, "worker_key", lambda model, device, dtype, backend="torch": tiny_key)  # names no longer tell models apart
    with pytest.raises(warm.WorkerGone, match="holds"):
        warm.edit_in_background(request, str(other), None, "auto", 60)
    monkeypatch.delenv("CAD_LSP_KEEP_WARM", raising=False)
    assert main(["edit", str(path), "--lines", "1-3", "--instruction", "Delete the print", "--model", str(other),
                 "--max-tokens", "12", "--keep-warm", "60"]) in (0, 1)
    assert "loading the model in this process" in capsys.readouterr().err


@pytest.mark.slow
def test_the_process_leaves_when_idle(tmp_path, runtime):
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    assert edit(path, "--keep-warm", "2").returncode in (0, 1)
    deadline = time.monotonic() + 60
    while workers(runtime) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not workers(runtime)
    assert not list((runtime / "cad-lsp").glob("*.sock"))  # and takes its socket with it


@pytest.mark.slow
def test_concurrent_first_runs_load_the_model_once(tmp_path, runtime):
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "cad_lsp", "edit", str(path), "--lines", "1-3", "--instruction",
               "Delete the print", "--model", "random:tiny", "--max-tokens", "12", "--keep-warm", "60"]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(3)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert len({program_and_diff(out) for out, _ in outputs}) == 1, outputs
    assert not any("loading the model in this process" in err for _, err in outputs), outputs  # none had to fall back
    assert len(workers(runtime)) == 1
    assert sum("stays loaded in a background process" in err for _, err in outputs) == 1  # names the one left


@pytest.mark.slow
def test_a_process_that_stops_mid_request_costs_only_time(tmp_path, runtime):
    """Something listens on the socket and hangs up without answering: the run loads the model itself."""
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    here = edit(path, "--keep-warm", "0")
    sock_path = warm.socket_path(warm.worker_key("random:tiny", None, "auto"))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(sock_path))
    server.listen(4)

    def hang_up():
        conn, _ = server.accept()
        conn.recv(1 << 16)
        conn.close()

    thread = threading.Thread(target=hang_up, daemon=True)
    thread.start()
    try:
        run = edit(path, "--keep-warm", "60")
    finally:
        server.close()
    assert "stopped before it answered; loading the model in this process" in run.stderr
    assert run.returncode == here.returncode
    assert program_and_diff(run.stdout) == program_and_diff(here.stdout)


@pytest.mark.slow
def test_a_socket_left_by_a_killed_process_is_replaced(tmp_path, runtime):
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    sock_path = warm.socket_path(warm.worker_key("random:tiny", None, "auto"))
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(sock_path))  # bound, never listening: what a killed process leaves
    left.close()
    run = edit(path, "--keep-warm", "60")
    assert "background process (pid" in run.stderr and "loading the model in this process" not in run.stderr, run.stderr
    assert len(workers(runtime)) == 1


def test_a_model_that_cannot_load_is_the_same_clear_error(tmp_path, runtime):
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    here = edit(path, "--keep-warm", "0", model="random:nosuch")
    there = edit(path, "--keep-warm", "60", model="random:nosuch")
    assert here.returncode == there.returncode == 2
    message = "cad-lsp: unknown random shape 'nosuch'"
    assert message in here.stderr and message in there.stderr
    assert "Traceback" not in there.stderr
    assert "stays loaded" not in there.stderr  # the process that could not load leaves: nothing is said to stay


@pytest.mark.slow
def test_an_unusable_runtime_folder_costs_only_time(tmp_path, monkeypatch):
    """A runtime folder that is not the user's alone (or cannot be made) is not used: the run loads here."""
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    shared = tmp_path / "shared"
    (shared / "cad-lsp").mkdir(parents=True)
    (shared / "cad-lsp").chmod(0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    run = edit(path, "--keep-warm", "60")
    assert "is not private to this user; loading the model in this process" in run.stderr, run.stderr
    assert run.returncode in (0, 1) and "program" in run.stdout
    assert not list((shared / "cad-lsp").iterdir())  # no socket left in a folder others can enter


@pytest.mark.slow
def test_a_process_for_older_code_leaves_when_a_new_one_starts(tmp_path, runtime, monkeypatch):
    """After an upgrade (here: a key as older code would have), the old process does not linger."""
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    assert edit(path, "--keep-warm", "60").returncode in (0, 1)
    (old,) = workers(runtime)
    key = warm.worker_key("random:tiny", None, "auto")
    stale = runtime / "cad-lsp" / (key.split("-")[0] + "-" + "0" * 12)  # the same model, other code
    for suffix in (".sock", ".lock"):
        (runtime / "cad-lsp" / (key + suffix)).rename(stale.with_suffix(suffix))
    run = edit(path, "--keep-warm", "60")
    assert "stays loaded in a background process" in run.stderr, run.stderr
    deadline = time.monotonic() + 30
    while _alive(old) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(old)
    assert len(workers(runtime)) == 1


@pytest.mark.slow
def test_a_caller_that_leaves_stops_its_edit(tmp_path, runtime):
    """Ctrl-C on a run: the background process notices the closed socket and stops decoding for it."""
    path = tmp_path / "area.py"
    path.write_text(SOURCE)
    assert edit(path, "--keep-warm", "60").returncode in (0, 1)  # warm
    (worker,) = workers(runtime)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("CAD_LSP_KEEP_WARM", None)
    # Ctrl-C's SIGINT, with Python's own handler even where the test runs in the background (which ignores SIGINT)
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from cad_lsp.cli import main; sys.exit(main(sys.argv[1:]))")
    long_edit = subprocess.Popen(  # random weights never close the program: it would run to its token limit
        [sys.executable, "-c", code, "edit", str(path), "--lines", "1-3", "--instruction", "Rewrite it",
         "--model", "random:tiny", "--max-tokens", "100000", "--keep-warm", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    (log,) = (runtime / "cad-lsp").glob("*.log")
    time.sleep(3)
    long_edit.send_signal(signal.SIGINT)
    _, err = long_edit.communicate(timeout=30)
    assert long_edit.returncode == 130 and err.decode().strip().endswith("cad-lsp: interrupted"), err
    assert "Traceback" not in err.decode()
    deadline = time.monotonic() + 60
    while "its caller left" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "cad-lsp: an edit stopped: its caller left" in log.read_text()
    after = edit(path, "--keep-warm", "60")  # and the same process answers the next run
    assert after.returncode in (0, 1) and "in this process" not in after.stderr, after.stderr
    assert "background process" not in after.stderr and workers(runtime) == [worker]
