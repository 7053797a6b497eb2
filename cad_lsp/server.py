"""The language server: code actions and one command that edits selected lines.

Handlers are short and named after their LSP method; the decisions they make
(which lines a range selects, which instruction an ``AI:`` comment gives,
what WorkspaceEdit to send, what the client supports) are plain functions
above them that know nothing of a running server.

Model work never runs on the event loop: the model loads in a thread after
``initialized``, document caches are warmed one at a time in a thread, and an
edit decodes in a thread that checks a cancel flag before every forward.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, fields, replace
from pathlib import PurePosixPath
from typing import Any, Callable
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer

from .edits import offset_at, text_edits, units
from .program import Document, oracle_for_selection, resolve, split_lines
from .protocol import CadProtocol, read_frames

log = logging.getLogger(__name__)

NAME = "cad-lsp"
EDIT_COMMAND = "cad.editSelection"
ACTION_KIND = lsp.CodeActionKind.RefactorRewrite
PRESETS = ("Add docstrings", "Add type hints", "Fix the bug", "Simplify")
WARM_DELAY_S = 0.5  # debounce: warm a document's cache once typing pauses
MODEL_WAIT_S = 600.0  # how long an edit that arrives during the model load waits for it
REPORT_INTERVAL_S = 0.25  # at most this often, a progress report during decoding
EXIT_WAIT_S = 2.0  # at exit, how long model threads get to stop
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_UINTEGER = 2**31 - 1  # LSP's uinteger: positions beyond it are not positions


class RequestError(ValueError):
    """A request the server refuses or gives up; the message is shown to the user as it is."""

    def __init__(self, message: str, kind: lsp.MessageType = lsp.MessageType.Error):
        super().__init__(message)
        self.kind = kind


# ---------------------------------------------------------------------------
# Options


@dataclass(frozen=True)
class Options:
    """Server settings: command-line values, overridden by initializationOptions."""

    model: str = "smollm2"
    device: str | None = None
    dtype: str | None = "auto"
    backend: str = "local"  # or "vllm": a vLLM server at vllm_url runs the model
    vllm_url: str | None = None
    max_tokens: int | None = None
    needs_confirmation: bool = True
    max_documents: int = 4
    keep_ai_comments: bool = False  # leave the AI: comment that gave the instruction in the result


# initializationOptions key -> (Options field, type)
_INIT_KEYS = {
    "model": ("model", str),
    "device": ("device", str),
    "dtype": ("dtype", str),
    "backend": ("backend", str),
    "vllmUrl": ("vllm_url", str),
    "maxTokens": ("max_tokens", int),
    "needsConfirmation": ("needs_confirmation", bool),
    "maxDocuments": ("max_documents", int),
    "keepAiComments": ("keep_ai_comments", bool),
}


def _valid(value: Any, kind: type) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:  # a count: positive, and JSON's true is not 1
        return isinstance(value, int) and not isinstance(value, bool) and value > 0
    return isinstance(value, str) and bool(value.strip())


def merge_options(options: Options, init: Any) -> tuple[Options, list[str]]:
    """Apply initializationOptions; returns the options and one problem per ignored key.

    Null keys keep the command-line value, so an editor may send every setting.
    """
    if init is None:
        return options, []
    if not isinstance(init, dict):
        return options, [f"initializationOptions must be an object, not {type(init).__name__}"]
    changes, problems = {}, []
    for key, value in init.items():
        if value is None:
            continue
        if key not in _INIT_KEYS:
            problems.append(f"unknown initialization option {key!r} ignored")
            continue
        name, kind = _INIT_KEYS[key]
        if not _valid(value, kind):
            problems.append(f"initialization option {key}={value!r} is not valid; ignored")
            continue
        changes[name] = value.strip() if isinstance(value, str) else value
    return replace(options, **changes), problems


# ---------------------------------------------------------------------------
# Pure request logic


@dataclass(frozen=True)
class EditRequest:
    """The one argument of ``cad.editSelection`` (and the data of a code action).

    ``ai_comment``: the instruction came from an ``AI:`` comment in the
    selection, which the edit then removes.
    """

    uri: str
    version: int
    range: lsp.Range
    instruction: str
    ai_comment: bool = False

    def as_json(self) -> dict:
        answer = {"uri": self.uri, "version": self.version, "range": range_json(self.range),
                  "instruction": self.instruction}
        return {**answer, "aiComment": True} if self.ai_comment else answer


def range_json(r: lsp.Range) -> dict:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}


def _position(value: Any, where: str) -> lsp.Position:
    if not isinstance(value, dict):
        raise RequestError(f"{where} must be a position object")
    line, character = value.get("line"), value.get("character")
    for name, number in (("line", line), ("character", character)):
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise RequestError(f"{where}.{name} must be a non-negative integer")
        if number > MAX_UINTEGER:
            raise RequestError(f"{where}.{name} must be at most {MAX_UINTEGER}")
    return lsp.Position(line=line, character=character)


def parse_edit_request(value: Any) -> EditRequest:
    """Validate ``{uri, version, range, instruction}`` as JSON; raises RequestError."""
    if not isinstance(value, dict):
        raise RequestError(f"{EDIT_COMMAND} takes one object {{uri, version, range, instruction}}")
    uri, version, instruction = value.get("uri"), value.get("version"), value.get("instruction")
    if not isinstance(uri, str) or not uri:
        raise RequestError("uri must be a string")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RequestError("version must be the document's integer version")
    if not isinstance(instruction, str) or not instruction.strip():
        raise RequestError("the instruction is empty")
    raw_range = value.get("range")
    if not isinstance(raw_range, dict):
        raise RequestError("range must be an object {start, end}")
    start, end = _position(raw_range.get("start"), "range.start"), _position(raw_range.get("end"), "range.end")
    if (end.line, end.character) < (start.line, start.character):
        raise RequestError("range ends before it starts")
    ai_comment = value.get("aiComment", False)
    if not isinstance(ai_comment, bool):
        raise RequestError("aiComment must be true or false")
    return EditRequest(uri, version, lsp.Range(start=start, end=end), instruction.strip(), ai_comment)


def parse_edit_arguments(arguments: list) -> EditRequest:
    """``cad.editSelection``'s argument list, which holds one request; raises RequestError."""
    if len(arguments) != 1:
        raise RequestError(f"takes one argument {{uri, version, range, instruction}}, got {len(arguments)}")
    return parse_edit_request(arguments[0])


def edit_arguments_problem(arguments: list) -> str | None:
    """What is wrong with ``cad.editSelection``'s arguments, or None (answered as invalid params)."""
    try:
        parse_edit_arguments(arguments)
    except RequestError as exc:
        return str(exc)
    return None


def selected_lines(r: lsp.Range) -> tuple[int, int]:
    """The whole lines (1-based, inclusive) a range selects.

    A range ending at the start of a later line does not select that line:
    that is how editors report a selection of whole lines.
    """
    first = r.start.line + 1
    if r.end.character == 0 and r.end.line > r.start.line:
        return first, r.end.line
    return first, r.end.line + 1


def check_selection(text: str, r: lsp.Range, encoding: str) -> tuple[int, int]:
    """Lines selected by a range after checking both ends lie in the document."""
    doc = Document(text)
    for name, position in (("start", r.start), ("end", r.end)):
        try:
            offset_at(doc, position, encoding)
        except ValueError as exc:
            raise RequestError(f"the range's {name} is not in the document: {exc}") from None
    first, last = selected_lines(r)
    if last > doc.line_count:
        raise RequestError(f"the selection ends at line {last}, past the document's {doc.line_count} lines")
    return first, last


# A comment marker, then "AI:" and the instruction; a closing */ or --> is dropped.
_AI_COMMENT = re.compile(r"(?:#|//|--|/\*)\s*AI:\s*(.*?)\s*(?:\*/|-->)?\s*$")


def ai_instructions(text: str) -> list[str]:
    """Instructions written as ``AI: ...`` comments, in order, each once.

    The comment may use ``#``, ``//``, ``--`` or ``/* */``, so the action works
    in any language and any editor without a plugin.
    """
    found: list[str] = []
    for line in split_lines(text):
        match = _AI_COMMENT.search(line.rstrip("\r\n"))
        if match and match.group(1) and match.group(1) not in found:
            found.append(match.group(1))
    return found


def remove_ai_comment(text: str, instruction: str) -> str:
    """``text`` without the ``AI:`` comments that say ``instruction``.

    A line that holds only the comment goes with its line break; a comment
    after code leaves the code, and the line break, as they were.
    """
    kept = []
    for line in split_lines(text):
        body = line.rstrip("\r\n")
        match = _AI_COMMENT.search(body)
        if match is None or match.group(1) != instruction:
            kept.append(line)
        elif body[: match.start()].strip():
            kept.append(body[: match.start()].rstrip() + line[len(body):])
    return "".join(kept)


def action_instructions(text: str) -> list[tuple[str, str, bool]]:
    """(title, instruction, from an AI: comment) of every action offered on the selected text."""
    return [(f"AI: {i}", i, True) for i in ai_instructions(text)] + [(p, p, False) for p in PRESETS]


def kind_wanted(only: list[str] | None) -> bool:
    """Whether a request restricted to kinds ``only`` wants refactor.rewrite actions."""
    if not only:
        return True
    kinds = [getattr(k, "value", k) for k in only]  # enum members or plain strings
    return any(ACTION_KIND.value == k or ACTION_KIND.value.startswith(f"{k}.") for k in kinds)


def _capability(caps: Any, path: str) -> Any:
    for name in path.split("."):
        caps = getattr(caps, name, None)
        if caps is None:
            return None
    return caps


def resolves_commands(caps: lsp.ClientCapabilities) -> bool:
    """Whether the client fills a code action's ``command`` from codeAction/resolve.

    VS Code resolves only ``edit``; such clients get the command in the listing
    (it is just the arguments, so listing stays instant).
    """
    properties = _capability(caps, "text_document.code_action.resolve_support.properties") or []
    return "command" in properties


def supports_change_annotations(caps: lsp.ClientCapabilities) -> bool:
    return _capability(caps, "workspace.workspace_edit.change_annotation_support") is not None


def supports_progress(caps: lsp.ClientCapabilities) -> bool:
    return bool(_capability(caps, "window.work_done_progress"))


def workspace_edit(uri: str, version: int, edits: list[lsp.TextEdit], label: str, description: str,
                   annotate: bool) -> lsp.WorkspaceEdit:
    """One versioned TextDocumentEdit: one undo step, refused by the editor if the document moved on.

    With ``annotate`` every edit carries a change annotation that asks the
    editor to have the user confirm it.
    """
    if annotate:
        annotation_id = "cad-lsp.edit"
        edits = [lsp.AnnotatedTextEdit(range=e.range, new_text=e.new_text, annotation_id=annotation_id)
                 for e in edits]
        annotations = {annotation_id: lsp.ChangeAnnotation(label=label, needs_confirmation=True,
                                                           description=description)}
    else:
        annotations = None
    document = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(text_document=document, edits=edits)],
                             change_annotations=annotations)


def progress_message(stats) -> str:
    if stats.forwards == 0 and stats.prefill_tokens:  # still reading the document into the cache
        return f"reading the document: {stats.prefill_tokens} of {stats.prompt_tokens - stats.cached_tokens} tokens"
    return f"{stats.sampled_tokens + stats.forced_tokens} tokens generated, {stats.spliced_tokens} copied"


def document_name(uri: str) -> str:
    """The file name the model sees in the prompt."""
    return PurePosixPath(unquote(urlparse(uri).path)).name or "document"


def encoding_name(kind: Any) -> str:
    """The negotiated position encoding as edits.py names it (LSP's default is UTF-16)."""
    value = getattr(kind, "value", kind)
    return value if value in ("utf-8", "utf-16", "utf-32") else "utf-16"


# ---------------------------------------------------------------------------
# Open documents


@dataclass(frozen=True)
class Snapshot:
    uri: str
    version: int
    text: str


def sync_offset(doc: Document, position: lsp.Position, encoding: str) -> int:
    """Offset of a position in a document change, where LSP clamps a character past its line's end.

    Edit requests do not get this leniency (``check_selection``): there a
    clamped position would edit the wrong place.
    """
    if position.line >= doc.line_count:
        return len(doc.text)
    body = doc.lines[position.line].rstrip("\r\n")
    if position.character >= units(body, encoding):
        return doc.line_starts[position.line] + len(body)
    return offset_at(doc, position, encoding)


class Documents:
    """The server's copy of open documents, changed by LSP's line rules.

    pygls's own copy splits lines with ``str.splitlines``, which also breaks
    at form feeds, U+2028 and other characters that are not LSP line ends, so
    an incremental change after one of them lands on the wrong line.  Edits
    must be computed on exactly the editor's text, so this copy uses
    ``program.split_lines`` and ``edits.offset_at`` instead.
    """

    def __init__(self) -> None:
        self._docs: dict[str, Snapshot] = {}

    def open(self, uri: str, version: int, text: str) -> None:
        self._docs[uri] = Snapshot(uri, version, text)

    def change(self, uri: str, version: int, changes, encoding: str) -> None:
        """Apply content changes in order; a change that does not fit drops the document (ValueError)."""
        current = self._docs.get(uri)
        if current is None:
            raise ValueError(f"{uri} changed but was never opened")
        text = current.text
        try:
            for change in changes:
                if getattr(change, "range", None) is None:
                    text = change.text
                    continue
                doc = Document(text)
                start = sync_offset(doc, change.range.start, encoding)
                end = sync_offset(doc, change.range.end, encoding)
                if end < start:
                    raise ValueError("the change's range ends before it starts")
                text = text[:start] + change.text + text[end:]
        except ValueError:
            self._docs.pop(uri, None)
            raise
        self._docs[uri] = Snapshot(uri, version, text)

    def close(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def get(self, uri: str) -> Snapshot | None:
        return self._docs.get(uri)

    def uris(self) -> list[str]:
        return list(self._docs)


# ---------------------------------------------------------------------------
# Threads


_threads: set[threading.Thread] = set()  # model work still running


def in_thread(fn: Callable, *args, **kwargs) -> asyncio.Future:
    """Run ``fn`` in a daemon thread and await its result on the loop.

    Daemon threads, not an executor: a server told to exit must not wait for
    a model load to finish (see ``stop_model_work``).
    """
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def deliver(setter, value):
        if not future.done():
            setter(value)

    def run():
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 -- re-raised on the loop
            outcome = (future.set_exception, exc)
        else:
            outcome = (future.set_result, result)
        try:
            loop.call_soon_threadsafe(deliver, *outcome)
        except RuntimeError:
            pass  # the loop is closed: the server is exiting
        finally:
            _threads.discard(threading.current_thread())

    thread = threading.Thread(target=run, daemon=True, name=f"cad-lsp {getattr(fn, '__name__', 'work')}")
    _threads.add(thread)
    thread.start()
    return future


def stop_model_work(ls: CadServer, timeout: float = EXIT_WAIT_S) -> bool:
    """Cancel edits and give model threads ``timeout`` seconds to leave torch; True if all did.

    A decode stops at its next forward; a model load cannot be interrupted.
    """
    ls.cancel_edits()
    deadline = time.monotonic() + timeout
    for thread in list(_threads):
        thread.join(max(0.0, deadline - time.monotonic()))
    return not any(thread.is_alive() for thread in _threads)


class CacheJobs:
    """Warm and forget document caches one at a time, off the event loop.

    Jobs are keyed by URI and the latest job for a URI replaces a pending one,
    so a burst of changes costs one warm.  The engine lock orders them with
    edits.
    """

    def __init__(self, on_error: Callable[[str], None]):
        self.jobs: dict[str, Callable[[], object]] = {}
        self.on_error = on_error
        self.task: asyncio.Task | None = None

    def put(self, uri: str, job: Callable[[], object]) -> None:
        self.jobs.pop(uri, None)
        self.jobs[uri] = job
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self.jobs:
            uri = next(iter(self.jobs))
            job = self.jobs.pop(uri)
            try:
                await in_thread(job)
            except Exception as exc:  # noqa: BLE001 -- a failed warm only costs speed
                self.on_error(f"cache work on {uri} failed: {exc}")


# ---------------------------------------------------------------------------
# The server


class CadServer(LanguageServer):
    """The pygls server plus the state its handlers share."""

    def __init__(self, options: Options):
        super().__init__(NAME, "0.1.0", protocol_cls=CadProtocol)
        self.options = options
        self.option_problems: list[str] = []
        self.documents = Documents()
        self.engine = None
        self.load_error: str | None = None
        self.model_ready = asyncio.Event()
        self.editing: tuple[threading.Event, asyncio.Future] | None = None  # the running edit: its cancel, its end
        self.request_cancels: dict[Any, threading.Event] = {}  # JSON-RPC id -> running edit's flag
        self.progress_cancels: dict[str, threading.Event] = {}  # progress token -> running edit's flag
        self.warm_timers: dict[str, asyncio.TimerHandle] = {}
        self.cache_jobs = CacheJobs(lambda message: self.log(message, lsp.MessageType.Warning))
        self.tasks: set[asyncio.Task] = set()

    @property
    def encoding(self) -> str:
        return encoding_name(self.workspace.position_encoding)

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        """A detail for the editor's log (and stderr)."""
        log.log(logging.ERROR if kind == lsp.MessageType.Error else logging.INFO, "%s", message)
        self.window_log_message(lsp.LogMessageParams(type=kind, message=message))

    def show(self, message: str, kind: lsp.MessageType) -> None:
        """Something the user must see."""
        self.log(message, kind)
        self.window_show_message(lsp.ShowMessageParams(type=kind, message=f"{NAME}: {message}"))

    def start_io(self, stdin=None, stdout=None) -> int:
        """Serve on stdio with the checking frame reader (see protocol.py); returns the exit code."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        return self._serve(read_frames(reader, self.protocol, self._stop_event))

    def start_tcp(self, host: str, port: int) -> int:
        """Serve one editor at a time on TCP, with the same reader as stdio."""
        self._stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            await read_frames(reader, self.protocol, self._stop_event)
            self.shutdown()

        async def listen() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        return self._serve(listen())

    def _serve(self, main) -> int:
        """Run the loop; the exit code is LSP's: 0 after shutdown then exit, 1 for exit alone or a lost editor."""
        try:
            asyncio.run(main)
        except SystemExit as exc:  # the exit notification
            return exc.code if isinstance(exc.code, int) else 1
        except asyncio.CancelledError:  # the TCP listener closed after its editor left
            pass
        except (BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
            log.warning("the connection to the editor was lost")
        finally:
            self.shutdown()
        return 0 if self.protocol._shutdown else 1  # the editor closed the stream: fine after shutdown

    def report_server_error(self, error: Exception, source) -> None:
        """pygls's hook for a failed notification handler: one line in the log, not a popup."""
        self.log(f"{type(error).__name__}: {error}", lsp.MessageType.Error)

    def cancel_edits(self) -> None:
        for cancel in [*self.request_cancels.values(), *self.progress_cancels.values()]:
            cancel.set()

    def spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)  # keep a reference until it ends
        task.add_done_callback(self.tasks.discard)


class Progress:
    """Server-initiated work-done progress, silent when the client does not support it.

    A cancel from the client sets ``cancel``.
    """

    def __init__(self, ls: CadServer, title: str, cancel: threading.Event | None = None):
        self.ls, self.title, self.cancel = ls, title, cancel
        self.token: str | None = None
        self.last_report = 0.0

    async def begin(self, message: str) -> None:
        if not supports_progress(self.ls.client_capabilities):
            return
        token = f"cad-lsp/{uuid.uuid4()}"
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as exc:  # noqa: BLE001 -- progress is optional
            self.ls.log(f"no progress bar: {exc}", lsp.MessageType.Warning)
            return
        self.token = token
        if self.cancel is not None:
            self.ls.progress_cancels[token] = self.cancel
        self.ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
            title=self.title, message=message, cancellable=self.cancel is not None))

    def report(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.report(self.token, lsp.WorkDoneProgressReport(message=message))

    def reporter(self, loop: asyncio.AbstractEventLoop) -> Callable:
        """An engine ``progress`` callback: runs in the worker thread, reports at most every REPORT_INTERVAL_S."""

        def on_progress(stats) -> None:
            now = time.monotonic()
            if now - self.last_report < REPORT_INTERVAL_S:
                return
            self.last_report = now
            try:
                loop.call_soon_threadsafe(self.report, progress_message(stats))
            except RuntimeError:
                pass  # the loop is closed: the server is exiting

        return on_progress

    def end(self, message: str) -> None:
        if self.token is None:
            return
        self.ls.work_done_progress.end(self.token, lsp.WorkDoneProgressEnd(message=message))
        self.ls.progress_cancels.pop(self.token, None)
        self.ls.work_done_progress.tokens.pop(self.token, None)
        self.token = None


# ---------------------------------------------------------------------------
# Model and caches


def build_engine(options: Options):
    """Load the model and wrap it in an Engine; runs in a thread (torch is imported here, not on the loop)."""
    from .engine import Engine
    from .models import load_model

    if options.backend == "vllm":
        from .vllm_backend import VLLMEngine

        return VLLMEngine.connect(options.vllm_url, options.model)
    if options.backend != "local":
        raise ValueError(f"unknown backend {options.backend!r}: use local or vllm")
    return Engine(load_model(options.model, options.device, options.dtype), max_documents=options.max_documents)


async def load_engine(ls: CadServer) -> None:
    """Load the model in a thread; a failure is shown once and answers every later edit."""
    options = ls.options
    progress = Progress(ls, f"{NAME}: loading {options.model}")
    await progress.begin(f"{options.model} on {options.device or 'the default device'}")
    started = time.monotonic()
    try:
        ls.engine = await in_thread(build_engine, options)
    except Exception as exc:  # noqa: BLE001 -- ModelLoadError and anything the loaders raise
        ls.load_error = str(exc) or type(exc).__name__
        ls.log(traceback.format_exc(), lsp.MessageType.Log)
        ls.show(f"cannot load the model {options.model!r}: {ls.load_error}", lsp.MessageType.Error)
        progress.end("failed")
    else:
        elapsed = time.monotonic() - started
        ls.log(f"model {options.model} loaded in {elapsed:.1f} s")
        progress.end(f"loaded in {elapsed:.1f} s")
        for uri in ls.documents.uris():
            schedule_warm(ls, uri, delay=0.0)
    finally:
        ls.model_ready.set()


def schedule_warm(ls: CadServer, uri: str, delay: float = WARM_DELAY_S) -> None:
    """Warm the document's prompt cache once changes pause for ``delay`` seconds."""
    timer = ls.warm_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    if ls.engine is None:
        return  # warmed when the model has loaded

    def queue_warm() -> None:
        ls.warm_timers.pop(uri, None)
        snapshot = ls.documents.get(uri)
        if snapshot is not None and ls.engine is not None and snapshot.text:
            ls.cache_jobs.put(uri, lambda: ls.engine.warm(uri, snapshot.text, document_name(uri)))

    ls.warm_timers[uri] = asyncio.get_running_loop().call_later(delay, queue_warm)


def forget_document(ls: CadServer, uri: str) -> None:
    timer = ls.warm_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    if ls.engine is not None:
        ls.cache_jobs.put(uri, lambda: ls.engine.forget(uri))  # forget takes the engine lock: not on the loop


async def wait_for_engine(ls: CadServer, cancel: threading.Event, progress: Progress):
    """The engine, waiting up to MODEL_WAIT_S for a model that is still loading."""
    if not ls.model_ready.is_set():
        progress.report(f"waiting for the model {ls.options.model} to load")
        deadline = time.monotonic() + MODEL_WAIT_S
        while not ls.model_ready.is_set():
            if cancel.is_set():
                raise RequestError("cancelled while the model was loading; nothing applied", lsp.MessageType.Info)
            if time.monotonic() > deadline:
                raise RequestError(f"the model is still loading after {MODEL_WAIT_S:.0f} s; try again later")
            try:
                await asyncio.wait_for(ls.model_ready.wait(), 0.1)
            except asyncio.TimeoutError:
                pass
    if ls.engine is None:
        raise RequestError(f"the model {ls.options.model!r} could not be loaded: {ls.load_error}")
    return ls.engine


# ---------------------------------------------------------------------------
# The edit


@dataclass
class Outcome:
    applied: bool
    message: str
    kind: lsp.MessageType = lsp.MessageType.Info  # how the user is told; Log: not shown
    stats: dict | None = None  # the engine's counts and timings, once the model has run

    def as_json(self) -> dict:
        answer = {"applied": self.applied, "message": self.message}
        return answer if self.stats is None else {**answer, "stats": self.stats}


async def run_edit(ls: CadServer, request: EditRequest, cancel: threading.Event) -> Outcome:
    """Check the request, decode, and send one WorkspaceEdit if nothing moved meanwhile."""
    snapshot = ls.documents.get(request.uri)
    if snapshot is None:
        raise RequestError(f"{request.uri} is not open in the editor (or went out of sync: reopen it)")
    if snapshot.version != request.version:
        return Outcome(False, f"the request is stale: it was made on version {request.version}, the document "
                              f"is at version {snapshot.version}; nothing applied", lsp.MessageType.Warning)
    first, last = check_selection(snapshot.text, request.range, ls.encoding)
    while ls.editing is not None and ls.editing[0].is_set():  # a cancelled edit stops within one forward
        await asyncio.shield(ls.editing[1])
    if ls.editing is not None:
        return Outcome(False, "another edit is running; try again when it has finished", lsp.MessageType.Warning)

    progress = Progress(ls, f"{NAME}: {request.instruction}", cancel)
    outcome = Outcome(False, "failed", lsp.MessageType.Error)
    ls.editing = (cancel, asyncio.get_running_loop().create_future())  # before the first await: one passes
    try:
        try:
            await progress.begin(f"{document_name(request.uri)} lines {first}-{last}")
            result = await decode(ls, snapshot, first, last, request.instruction, cancel, progress)
        finally:
            ls.editing[1].set_result(None)  # the model is free; the editor may hold the edit in a preview for long
            ls.editing = None
        outcome = await apply(ls, snapshot, first, last, request, result, cancel, progress)
        outcome.stats = result.stats.as_dict()
    except RequestError as exc:
        outcome = Outcome(False, str(exc), exc.kind)
    finally:
        progress.end(outcome.message)
    return outcome


async def decode(ls: CadServer, snapshot: Snapshot, first: int, last: int, instruction: str,
                 cancel: threading.Event, progress: Progress):
    """The engine's EditResult, decoded in a worker thread; raises RequestError when cancelled."""
    engine = await wait_for_engine(ls, cancel, progress)
    from .engine import Cancelled, EngineError  # loaded with the model

    name = document_name(snapshot.uri)
    try:
        result = await in_thread(engine.edit, snapshot.text, first, last, instruction, key=snapshot.uri, name=name,
                                 max_tokens=ls.options.max_tokens, cancel=cancel,
                                 progress=progress.reporter(asyncio.get_running_loop()))
    except Cancelled:
        raise RequestError("cancelled; nothing applied", lsp.MessageType.Info) from None
    except EngineError as exc:  # a request the model cannot serve, e.g. longer than its context
        raise RequestError(f"{exc}; nothing applied") from None
    stats = result.stats
    ls.log(f"{name} lines {first}-{last}, {instruction!r}: prompt {stats.prompt_tokens} tokens "
           f"({stats.cached_tokens} cached), {progress_message(stats)}, {stats.forwards} forwards, "
           f"{stats.total_s:.2f} s; program:\n{result.program}", lsp.MessageType.Log)
    return result


def result_ops(ops, document: str, first: int, last: int, request: EditRequest, keep_ai_comments: bool):
    """The program's ops, less the ``AI:`` comment that gave the instruction (unless kept).

    The comment is removed from the resolved text and the ops rebuilt by the
    oracle, so the editor still receives edits only where text changes.
    """
    if not request.ai_comment or keep_ai_comments:
        return ops
    text = resolve(ops, document, first, last)
    without = remove_ai_comment(text, request.instruction)
    return ops if without == text else oracle_for_selection(document, first, last, without)


async def apply(ls: CadServer, snapshot: Snapshot, first: int, last: int, request: EditRequest, result,
                cancel: threading.Event, progress: Progress) -> Outcome:
    """Send the edit unless it was cancelled, is incomplete, changes nothing or the document moved on."""
    instruction = request.instruction
    if cancel.is_set():
        return Outcome(False, "cancelled; nothing applied", lsp.MessageType.Info)
    if not result.complete:
        return Outcome(False, f"the edit program was not finished after {progress_message(result.stats)} "
                              f"(maxTokens); nothing applied", lsp.MessageType.Warning)
    current = ls.documents.get(snapshot.uri)
    if current is None or current.version != snapshot.version:
        return Outcome(False, "the document changed during the edit; nothing applied", lsp.MessageType.Warning)
    ops = result_ops(result.ops, snapshot.text, first, last, request, ls.options.keep_ai_comments)
    edits = text_edits(ops, snapshot.text, first, last, ls.encoding)
    if not edits:
        return Outcome(False, "no change: the program reproduces the selected lines", lsp.MessageType.Info)
    annotate = ls.options.needs_confirmation and supports_change_annotations(ls.client_capabilities)
    label = f"{NAME}: {instruction}"
    description = f"{document_name(snapshot.uri)} lines {first}-{last}"
    edit = workspace_edit(snapshot.uri, snapshot.version, edits, label, description, annotate)
    progress.end("the edit is ready")  # the editor may now hold it in a review for long: nothing left to cancel
    try:
        response = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(edit=edit, label=label))
    except Exception as exc:  # noqa: BLE001 -- an error answer from the editor
        return Outcome(False, f"the editor refused the edit: {exc}", lsp.MessageType.Warning)
    if not response.applied:
        reason = f": {response.failure_reason}" if response.failure_reason else ""
        return Outcome(False, f"the editor did not apply the edit{reason}", lsp.MessageType.Info)
    return Outcome(True, f"edited lines {first}-{last}: {progress_message(result.stats)}", lsp.MessageType.Log)


# ---------------------------------------------------------------------------
# Handlers


def initialize(ls: CadServer, params: lsp.InitializeParams) -> None:
    ls.options, ls.option_problems = merge_options(ls.options, params.initialization_options)


def initialized(ls: CadServer, params: lsp.InitializedParams) -> None:
    for problem in ls.option_problems:
        ls.show(problem, lsp.MessageType.Warning)
    ls.log(f"options: {', '.join(f'{f.name}={getattr(ls.options, f.name)!r}' for f in fields(Options))}; "
           f"position encoding {ls.encoding}")
    ls.spawn(load_engine(ls))


def did_open(ls: CadServer, params: lsp.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    ls.documents.open(item.uri, item.version, item.text)
    schedule_warm(ls, item.uri)


def did_change(ls: CadServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if ls.documents.get(uri) is None:
        return  # never opened, or dropped when it went out of sync (already reported)
    try:
        ls.documents.change(uri, params.text_document.version, params.content_changes, ls.encoding)
    except ValueError as exc:
        ls.show(f"lost track of {document_name(uri)} ({exc}); close and reopen it to edit it", lsp.MessageType.Error)
        forget_document(ls, uri)
        return
    schedule_warm(ls, uri)


def did_close(ls: CadServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.documents.close(params.text_document.uri)
    forget_document(ls, params.text_document.uri)


def code_action(ls: CadServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
    """Offer the actions at once: each carries only its request; nothing runs until executed."""
    snapshot = ls.documents.get(params.text_document.uri)
    r = params.range
    if snapshot is None or (r.start.line, r.start.character) >= (r.end.line, r.end.character):
        return None
    if not kind_wanted(params.context.only):
        return None
    first, last = selected_lines(r)
    lines = split_lines(snapshot.text)
    if last > len(lines):
        return None
    with_command = not resolves_commands(ls.client_capabilities)
    actions = []
    for title, instruction, ai_comment in action_instructions("".join(lines[first - 1 : last])):
        data = EditRequest(snapshot.uri, snapshot.version, r, instruction, ai_comment).as_json()
        command = lsp.Command(title=title, command=EDIT_COMMAND, arguments=[data]) if with_command else None
        actions.append(lsp.CodeAction(title=title, kind=ACTION_KIND, data=data, command=command))
    return actions


def code_action_resolve(ls: CadServer, action: lsp.CodeAction) -> lsp.CodeAction:
    """Attach the command; the model does not run here (a picker may resolve every action it shows)."""
    try:
        request = parse_edit_request(action.data)
    except RequestError as exc:
        ls.log(f"cannot resolve code action {action.title!r}: {exc}", lsp.MessageType.Warning)
        return action
    action.command = lsp.Command(title=action.title, command=EDIT_COMMAND, arguments=[request.as_json()])
    return action


async def edit_selection(ls: CadServer, *arguments) -> dict:
    """``cad.editSelection {uri, version, range, instruction}`` -> ``{applied, message[, stats]}``.

    Failures are answered, shown with window/showMessage and detailed in the
    log; the server survives any request.
    """
    cancel = threading.Event()
    msg_id = ls.protocol.msg_id
    if msg_id is not None:
        ls.request_cancels[msg_id] = cancel
    try:
        outcome = await run_edit(ls, parse_edit_arguments(list(arguments)), cancel)
    except RequestError as exc:
        outcome = Outcome(False, str(exc), exc.kind)
    except Exception as exc:  # noqa: BLE001 -- a bug must not take the server down
        ls.log(traceback.format_exc(), lsp.MessageType.Error)
        outcome = Outcome(False, f"internal error: {exc}", lsp.MessageType.Error)
    finally:
        ls.request_cancels.pop(msg_id, None)
    if outcome.kind == lsp.MessageType.Log:
        ls.log(outcome.message)
    else:
        ls.show(outcome.message, outcome.kind)
    return outcome.as_json()


def progress_cancel(ls: CadServer, params: lsp.WorkDoneProgressCancelParams) -> None:
    cancel = ls.progress_cancels.get(params.token)
    if cancel is not None:
        cancel.set()


def shutdown(ls: CadServer, params: None) -> None:
    """Stop running edits: nothing may be applied after shutdown."""
    ls.cancel_edits()


def create_server(options: Options) -> CadServer:
    ls = CadServer(options)
    ls.feature(lsp.INITIALIZE)(initialize)
    ls.feature(lsp.INITIALIZED)(initialized)
    ls.feature(lsp.TEXT_DOCUMENT_DID_OPEN)(did_open)
    ls.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    ls.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    ls.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
               lsp.CodeActionOptions(code_action_kinds=[ACTION_KIND], resolve_provider=True))(code_action)
    ls.feature(lsp.CODE_ACTION_RESOLVE)(code_action_resolve)
    ls.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)(progress_cancel)
    ls.feature(lsp.SHUTDOWN)(shutdown)
    ls.command(EDIT_COMMAND)(edit_selection)
    ls.protocol.command_checks = {EDIT_COMMAND: edit_arguments_problem}
    return ls


def serve(model: str = "smollm2", device: str | None = None, dtype: str | None = "auto", backend: str = "local",
          vllm_url: str | None = None, max_tokens: int | None = None, needs_confirmation: bool = True,
          tcp: bool = False, host: str = "127.0.0.1", port: int = 2087, log_level: str = "warning") -> None:
    """Run the server on stdio, or on TCP on the loopback interface only.

    The server edits files and runs a model for anyone who can connect, so it
    never listens beyond this machine.
    """
    if tcp and host not in LOOPBACK_HOSTS:
        raise SystemExit(f"cad-lsp: refusing to listen on {host!r}: the server accepts only local "
                         f"connections ({', '.join(LOOPBACK_HOSTS)})")
    # stderr is for problems: editors show it as errors (VS Code's output channel marks every stderr
    # line [error]).  Details go to the editor's log through window/logMessage.
    logging.basicConfig(stream=sys.stderr, level=log_level.upper(), format="cad-lsp %(levelname)s: %(message)s")
    logging.getLogger("pygls").setLevel(max(logging.WARNING, logging.getLogger().level))  # it logs every message at INFO
    options = Options(model=model, device=device, dtype=dtype, backend=backend, vllm_url=vllm_url,
                      max_tokens=max_tokens, needs_confirmation=needs_confirmation)
    server = create_server(options)
    code = 1
    try:
        code = server.start_tcp(host, port) if tcp else server.start_io()
    finally:
        if not stop_model_work(server):
            log.info("exiting while the model is still loading")
        # Leave without finalizing the interpreter: a model load still inside torch would abort
        # it, and the thread reading stdin may be blocked in a read the editor never ends.
        logging.shutdown()
        os._exit(code)


__all__ = [
    "serve", "create_server", "Options", "merge_options", "EditRequest", "parse_edit_request", "selected_lines",
    "check_selection", "ai_instructions", "action_instructions", "workspace_edit", "Documents", "RequestError",
    "EDIT_COMMAND", "PRESETS",
]
