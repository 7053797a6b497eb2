"""The language server: pygls handlers named after their LSP method, and the editor they talk to.

Handlers are short; the decisions they make live in plain modules that know
no pygls server: ``requests`` (settings, the command's argument, the
selection, the actions a selection offers), ``documents`` (the server's copy
of open documents), ``session`` (the state the helpers share, and the
``Editor`` they talk to, which ``CadServer`` implements), ``progress``,
``model_work`` (loading the model and warming caches in threads) and
``edit_flow`` (one edit, from decoding to the versioned WorkspaceEdit) and ``answer_flow`` (a whole chat
answer as one WorkspaceEdit over every file it touches).

Model work never runs on the event loop: the model loads in a thread after
``initialized``, document caches are warmed one at a time in a thread, and an
edit decodes in a thread that checks a cancel flag before every forward.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
import traceback
from dataclasses import fields, replace
from typing import Any

from lsprotocol import types as lsp
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer

from ..engine.window import BLOCK_LINES
from ..program import split_lines
from .answer_flow import ANSWER_COMMAND, answer_root, parse_answer_arguments, run_answer
from .documents import document_name
from .edit_flow import Outcome, claim, run_claimed, run_edit, where
from .model_work import forget_document, load_engine, schedule_warm, stop_model_work
from .protocol import CadProtocol, read_frames
from .requests import (
    ACTION_KIND,
    APPLY_COMMAND,
    EDIT_COMMAND,
    NAME,
    EditRequest,
    Options,
    Request,
    RequestError,
    action_instructions,
    arguments_problem,
    kind_wanted,
    merge_options,
    parse_apply_arguments,
    parse_edit_arguments,
    parse_edit_request,
    resolves_commands,
    selected_lines,
)
from .session import Session
from .workers import CacheJobs

log = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


# ---------------------------------------------------------------------------
# The server


class CadServer(LanguageServer):
    """The pygls server: the editor the helpers talk to (``session.Editor``), and their shared ``session``."""

    def __init__(self, options: Options):
        super().__init__(NAME, "0.1.0", protocol_cls=CadProtocol)
        self.option_problems: list[str] = []
        self.session = Session(options, editor=self)
        self.session.cache_jobs = CacheJobs(lambda message: self.log(message, lsp.MessageType.Warning),
                                            recency=lambda uri: self.session.last_seen.get(uri, 0.0))
        self.tasks: set[asyncio.Task] = set()

    # -- the Editor the helpers talk to
    @property
    def capabilities(self) -> lsp.ClientCapabilities:
        return self.client_capabilities

    @property
    def position_encoding(self) -> Any:
        return self.workspace.position_encoding

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        """A detail for the editor's log (and stderr)."""
        log.log(logging.ERROR if kind == lsp.MessageType.Error else logging.INFO, "%s", message)
        self.window_log_message(lsp.LogMessageParams(type=kind, message=message))

    def show(self, message: str, kind: lsp.MessageType) -> None:
        """Something the user must see."""
        self.log(message, kind)
        self.window_show_message(lsp.ShowMessageParams(type=kind, message=f"{NAME}: {message}"))

    async def apply_edit(self, params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        return await self.workspace_apply_edit_async(params)

    async def create_progress(self, token: str) -> None:
        await self.work_done_progress.create_async(token)

    def report_progress(self, token: str, value) -> None:
        if isinstance(value, lsp.WorkDoneProgressBegin):
            self.work_done_progress.begin(token, value)
        elif isinstance(value, lsp.WorkDoneProgressReport):
            self.work_done_progress.report(token, value)
        else:
            self.work_done_progress.end(token, value)
            self.work_done_progress.tokens.pop(token, None)

    def spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)  # keep a reference until it ends
        task.add_done_callback(self.tasks.discard)

    # -- transports
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


# ---------------------------------------------------------------------------
# Handlers


def initialize(ls: CadServer, params: lsp.InitializeParams) -> None:
    ls.session.options, ls.option_problems = merge_options(ls.session.options, params.initialization_options)


def initialized(ls: CadServer, params: lsp.InitializedParams) -> None:
    for problem in ls.option_problems:
        ls.show(problem, lsp.MessageType.Warning)
    ls.log(f"options: {', '.join(f'{f.name}={getattr(ls.session.options, f.name)!r}' for f in fields(Options))}; "
           f"position encoding {ls.session.encoding}")
    ls.spawn(load_engine(ls.session))


def did_open(ls: CadServer, params: lsp.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    ls.session.documents.open(item.uri, item.version, item.text, item.language_id)
    ls.session.last_seen[item.uri] = time.monotonic()
    schedule_warm(ls.session, item.uri)


def did_change(ls: CadServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if ls.session.documents.get(uri) is None:
        return  # never opened, or dropped when it went out of sync (already reported)
    try:
        ls.session.documents.change(uri, params.text_document.version, params.content_changes, ls.session.encoding)
    except ValueError as exc:
        ls.show(f"lost track of {document_name(uri)} ({exc}); close and reopen it to edit it", lsp.MessageType.Error)
        forget_document(ls.session, uri)
        return
    ls.session.last_seen[uri] = time.monotonic()
    schedule_warm(ls.session, uri)


def did_close(ls: CadServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.session.documents.close(params.text_document.uri)
    forget_document(ls.session, params.text_document.uri)
    ls.session.viewed_lines.pop(params.text_document.uri, None)
    ls.session.last_seen.pop(params.text_document.uri, None)


def did_save(ls: CadServer, params: lsp.DidSaveTextDocumentParams) -> None:
    """Nothing to do: the server edits the editor's text, not the file (editors send it after every save)."""


# Settings that change the loaded model: they take effect when the server starts again.
MODEL_SETTINGS = {"model": "model", "device": "device", "dtype": "dtype", "backend": "backend", "vllmUrl": "vllm_url",
                  "maxDocuments": "max_documents", "contextLines": "context_lines"}  # setting -> Options field
SETTINGS_SECTIONS = ("cad-lsp", "cadLsp")  # our part of workspace/didChangeConfiguration's settings


def did_change_configuration(ls: CadServer, params: lsp.DidChangeConfigurationParams) -> None:
    """Honour the settings under ``cad-lsp`` (or ``cadLsp``); anything else is another server's, or empty.

    Editors send this routinely (eglot when it connects, with no settings).
    """
    settings = params.settings if isinstance(params.settings, dict) else {}
    section = next((settings[name] for name in SETTINGS_SECTIONS if name in settings), None)
    if section is None:
        return
    options, problems = merge_options(ls.session.options, section, source="setting")
    later = [key for key, name in MODEL_SETTINGS.items() if getattr(options, name) != getattr(ls.session.options, name)]
    ls.session.options = replace(options, **{MODEL_SETTINGS[key]: getattr(ls.session.options, MODEL_SETTINGS[key]) for key in later})
    if later:
        problems.append(f"a change of {', '.join(later)} takes effect when the server restarts")
    for problem in problems:
        ls.show(problem, lsp.MessageType.Warning)
    ls.log(f"settings: {', '.join(f'{f.name}={getattr(ls.session.options, f.name)!r}' for f in fields(Options))}")


def note_viewed_line(session: Session, uri: str, line: int) -> None:
    """Remember where the user is (editors ask for code actions as the cursor moves); a long document shown
    as a window is warmed again when the user moves to another block of lines."""
    if session.documents.get(uri) is None or not 0 < line < 1 << 31:
        return
    before = session.viewed_lines.get(uri, 1)  # a document nobody has looked into is warmed at its top
    session.viewed_lines[uri] = line
    session.last_seen[uri] = time.monotonic()
    if (before - 1) // BLOCK_LINES != (line - 1) // BLOCK_LINES:
        schedule_warm(session, uri)


def code_action(ls: CadServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
    """Offer the actions at once: each carries only its request; nothing runs until executed."""
    snapshot = ls.session.documents.get(params.text_document.uri)
    r = params.range
    note_viewed_line(ls.session, params.text_document.uri, r.start.line + 1)
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
        data = EditRequest(snapshot.uri, snapshot.version, r, instruction, ai_comment, background=True).as_json()
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

    A request marked ``background`` (the code actions' requests) is answered
    at once with ``{started, message}`` once its checks pass; the edit then
    arrives as workspace/applyEdit and its outcome as one message.  Failures
    are answered, shown with window/showMessage and detailed in the log; the
    server survives any request.
    """
    return await run_command(ls, parse_edit_arguments, list(arguments))


async def apply_update(ls: CadServer, *arguments) -> dict:
    """``cad.applyUpdate {uri, version, update, instruction?, force?}`` -> ``{applied, message[, stats,
    removedUnseen]}``: a chat model's update snippet merged into the document, through the same road as an edit
    (``background`` too); ``removedUnseen`` lists the file lines [first, last] the merge removes that the update
    did not show, also said in the message and in the edit's annotation."""
    return await run_command(ls, parse_apply_arguments, list(arguments))


async def apply_answer(ls: CadServer, *arguments) -> dict:
    """``cad.applyAnswer {text, uri?, version?, partial?, force?}`` -> ``{applied, message, files, unplaced}``:
    every file a chat answer changes, as one WorkspaceEdit (``answer_flow``); its paths start at the workspace
    folder (else the active document's folder), and blocks naming no file go to ``uri``."""
    try:
        request = parse_answer_arguments(list(arguments))
        folders = [folder.uri for folder in (ls.workspace.folders or {}).values()]
        root = answer_root(request, folders, ls.workspace.root_uri)
        outcome = await outcome_of(ls, run_answer(ls.session, request, root))
    except RequestError as exc:
        outcome = Outcome(False, str(exc), exc.kind)
    tell(ls, outcome)
    return outcome.as_json()


async def run_command(ls: CadServer, parse, arguments: list) -> dict:
    """Parse a command's request and run it: answered when done, or at once for a ``background`` one."""
    cancel = threading.Event()
    msg_id = ls.protocol.msg_id
    if msg_id is not None:
        ls.session.edits.by_request[msg_id] = cancel
    try:
        request = parse(arguments)
        if request.background:
            return start_in_background(ls, request)
        outcome = await outcome_of(ls, run_edit(ls.session, request, cancel))
    except RequestError as exc:
        outcome = Outcome(False, str(exc), exc.kind)
    finally:
        ls.session.edits.by_request.pop(msg_id, None)
    tell(ls, outcome)
    return outcome.as_json()


def start_in_background(ls: CadServer, request: Request) -> dict:
    """Claim the model for ``request`` and run it after answering; a refusal is answered (and shown) at once.

    Generic clients give up on a request after a few seconds (Emacs eglot:
    10 s) while an edit may take longer, so they get the edit itself, its
    progress and one message, whether or not they still wait.
    """
    cancel = threading.Event()
    try:
        snapshot, lines = claim(ls.session, request, cancel)
    except RequestError as exc:
        outcome = Outcome(False, str(exc), exc.kind)
        tell(ls, outcome)
        return outcome.as_json()

    async def run() -> None:
        ls.session.edits.background.add(cancel)
        try:
            outcome = await outcome_of(ls, run_claimed(ls.session, request, snapshot, lines, cancel))
        finally:
            ls.session.edits.background.discard(cancel)
        tell(ls, outcome, success_shown=True)  # no client is waiting for the answer: the message is the answer

    ls.spawn(run())
    return {"started": True, "message": f"editing {where(request.uri, lines)}: the edit arrives as workspace/applyEdit"}


async def outcome_of(ls: CadServer, edit) -> Outcome:
    """Await an edit's Outcome; a bug becomes one (logged with its traceback) instead of taking the server down."""
    try:
        return await edit
    except RequestError as exc:
        return Outcome(False, str(exc), exc.kind)
    except Exception as exc:  # noqa: BLE001 -- a bug must not take the server down
        ls.log(traceback.format_exc(), lsp.MessageType.Error)
        return Outcome(False, f"internal error: {exc}", lsp.MessageType.Error)


def tell(ls: CadServer, outcome: Outcome, success_shown: bool = False) -> None:
    """One message for the user, or a line in the log for what the user has seen already or will see from
    the client (a success answered to a client that waits for it)."""
    if outcome.applied and success_shown:  # a warning when the merge removed lines the update did not show
        ls.show(outcome.message, lsp.MessageType.Warning if outcome.removed_unseen else lsp.MessageType.Info)
    elif outcome.kind == lsp.MessageType.Log:
        ls.log(outcome.message)
    else:
        ls.show(outcome.message, outcome.kind)


def progress_cancel(ls: CadServer, params: lsp.WorkDoneProgressCancelParams) -> None:
    cancel = ls.session.edits.by_progress.get(params.token)
    if cancel is not None:
        cancel.set()


def shutdown(ls: CadServer, params: None) -> None:
    """Stop running edits: nothing may be applied after shutdown."""
    ls.session.edits.cancel_all()


def create_server(options: Options) -> CadServer:
    ls = CadServer(options)
    ls.feature(lsp.INITIALIZE)(initialize)
    ls.feature(lsp.INITIALIZED)(initialized)
    ls.feature(lsp.TEXT_DOCUMENT_DID_OPEN)(did_open)
    ls.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    ls.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    ls.feature(lsp.TEXT_DOCUMENT_DID_SAVE)(did_save)
    ls.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    ls.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
               lsp.CodeActionOptions(code_action_kinds=[ACTION_KIND], resolve_provider=True))(code_action)
    ls.feature(lsp.CODE_ACTION_RESOLVE)(code_action_resolve)
    ls.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)(progress_cancel)
    ls.feature(lsp.SHUTDOWN)(shutdown)
    ls.command(EDIT_COMMAND)(edit_selection)
    ls.command(APPLY_COMMAND)(apply_update)
    ls.command(ANSWER_COMMAND)(apply_answer)
    ls.protocol.command_checks = {EDIT_COMMAND: arguments_problem(parse_edit_arguments),
                                  APPLY_COMMAND: arguments_problem(parse_apply_arguments),
                                  ANSWER_COMMAND: arguments_problem(parse_answer_arguments)}
    return ls


def serve(model: str = "smollm2", device: str | None = None, dtype: str | None = "auto", backend: str = "auto",
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
        if not stop_model_work(server.session):
            log.info("exiting while the model is still loading")
        # Leave without finalizing the interpreter: a model load still inside torch would abort
        # it, and the thread reading stdin may be blocked in a read the editor never ends.
        logging.shutdown()
        os._exit(code)
