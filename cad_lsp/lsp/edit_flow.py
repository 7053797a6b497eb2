"""One edit from a checked request to the editor: decode in a thread, turn the program into
minimal TextEdits, and send one versioned WorkspaceEdit unless something moved meanwhile.

An edit of a selection and an update to apply take the same road; the request
says what differs (``requests.EditRequest``/``ApplyRequest``: which engine call,
its title, the lines it names before the model runs).  The edit replaces the
lines the engine's result names.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

from lsprotocol import types as lsp

from ..engine.backend import Cancelled, EngineError
from ..program import oracle_for_selection, resolve
from ..program.edits import text_edits
from .documents import Snapshot, document_language, document_name
from .model_work import wait_for_engine
from .progress import Progress, progress_message
from .requests import NAME, EditRequest, Request, RequestError, remove_ai_comment, supports_change_annotations
from .session import Session
from .workers import in_thread


EDIT_ANNOTATION = "cad-lsp.edit"
UNSEEN_ANNOTATION = "cad-lsp.unseen"  # an update's merge that removes lines the update did not show


def workspace_edit(uri: str, version: int, edits: list[lsp.TextEdit], label: str, description: str,
                   annotate: bool, confirm: bool = True, note: str | None = None) -> lsp.WorkspaceEdit:
    """One versioned TextDocumentEdit: one undo step, refused by the editor if the document moved on.

    With ``annotate`` every edit carries a change annotation that describes
    it, and with ``confirm`` asks the editor to have the user confirm it.  A
    ``note`` on what the merge removes unseen joins the description, under
    UNSEEN_ANNOTATION: the editor shows it where it asks, and a client of
    ours tells it apart.
    """
    if annotate:
        annotation_id = EDIT_ANNOTATION if note is None else UNSEEN_ANNOTATION
        edits = [lsp.AnnotatedTextEdit(range=e.range, new_text=e.new_text, annotation_id=annotation_id)
                 for e in edits]
        said = description if note is None else f"{description}; {note}"
        annotations = {annotation_id: lsp.ChangeAnnotation(label=label, needs_confirmation=confirm, description=said)}
    else:
        annotations = None
    document = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(text_document=document, edits=edits)],
                             change_annotations=annotations)


@dataclass
class Outcome:
    applied: bool
    message: str
    kind: lsp.MessageType = lsp.MessageType.Info  # how the user is told; Log: not shown (a success, or
    # a failure the user has been told about already)
    stats: dict | None = None  # the engine's counts and timings, once the model has run
    removed_unseen: list[list[int]] | None = None  # an update's: file lines [first, last] its merge removes unseen

    def as_json(self) -> dict:
        answer = {"applied": self.applied, "message": self.message}
        if self.stats is not None:
            answer["stats"] = self.stats
        if self.removed_unseen is not None:
            answer["removedUnseen"] = self.removed_unseen
        return answer


def claim(session: Session, request: Request, cancel: threading.Event) -> tuple[Snapshot, tuple[int, int] | None]:
    """The checks that refuse a request at once (RequestError); when they pass, the model is the request's.

    Returns the document and the lines the request names (an edit's selection; None for an update, which the
    engine places).  No await between the check of the running edit and setting it: two requests cannot both
    pass.  A cancelled edit does not hold the model: it stops at its next forward, and the engine runs one edit
    at a time, so the new one starts then (pygls answers ``$/cancelRequest`` at once; a user who cancels and
    retries must not be refused).
    """
    snapshot = session.documents.get(request.uri)
    if snapshot is None:
        raise RequestError(f"{request.uri} is not open in the editor (or went out of sync: reopen it)")
    if snapshot.version != request.version:
        raise RequestError(f"the request is stale: it was made on version {request.version}, the document "
                           f"is at version {snapshot.version}; nothing applied", lsp.MessageType.Warning)
    lines = request.lines(snapshot.text, session.encoding, document_language(snapshot))
    if lines is not None:
        session.viewed_lines[request.uri] = lines[0]  # the user is here: a later warm keeps the window this edit shows
    running = session.edits.holder
    if running is not None and not running.is_set():
        raise RequestError("another edit is running; try again when it has finished", lsp.MessageType.Warning)
    session.edits.holder = cancel
    return snapshot, lines


def where(uri: str, lines: tuple[int, int] | None) -> str:
    """What a request works on, for the user: ``a.py lines 3-5``, or ``a.py`` before an update is placed."""
    return document_name(uri) if lines is None else f"{document_name(uri)} lines {lines[0]}-{lines[1]}"


async def run_claimed(session: Session, request: Request, snapshot: Snapshot, lines: tuple[int, int] | None,
                      cancel: threading.Event) -> Outcome:
    """Decode a claimed request and send one WorkspaceEdit if nothing moved meanwhile."""
    progress = Progress(session.editor, f"{NAME}: {request.title}", cancel, session.edits.by_progress)
    outcome = Outcome(False, "failed", lsp.MessageType.Error)
    try:
        try:
            await progress.begin(where(request.uri, lines))
            result = await decode(session, snapshot, request, cancel, progress)
        finally:
            if session.edits.holder is cancel:  # the model is free; the editor may hold the edit in a preview
                session.edits.holder = None
        outcome = await apply(session, snapshot, request, result, cancel, progress)
        outcome.stats = result.stats.as_dict()
        if result.merge is not None:
            outcome.removed_unseen = [list(lines) for lines in result.merge.unseen]
    except RequestError as exc:
        outcome = Outcome(False, str(exc), exc.kind)
    finally:
        progress.end(outcome.message)
    return outcome


async def run_edit(session: Session, request: Request, cancel: threading.Event) -> Outcome:
    """Check the request, decode, and send one WorkspaceEdit if nothing moved meanwhile."""
    try:
        snapshot, lines = claim(session, request, cancel)
    except RequestError as exc:
        return Outcome(False, str(exc), exc.kind)
    return await run_claimed(session, request, snapshot, lines, cancel)


async def decode(session: Session, snapshot: Snapshot, request: Request, cancel: threading.Event,
                 progress: Progress):
    """The engine's EditResult, decoded in a worker thread; raises RequestError when cancelled or refused."""
    engine = await wait_for_engine(session, cancel, progress)
    options = session.options
    name = document_name(snapshot.uri)
    try:
        result = await in_thread(request.run, engine, snapshot.text, document_language(snapshot), key=snapshot.uri,
                                 name=name, max_tokens=options.max_tokens, cancel=cancel,
                                 speculate=options.speculation, progress=progress.reporter(asyncio.get_running_loop()))
    except Cancelled:
        raise RequestError("cancelled; nothing applied", lsp.MessageType.Info) from None
    except EngineError as exc:  # a request the model cannot serve: longer than its context, an update with no place
        raise RequestError(f"{exc}; nothing applied") from None
    stats = result.stats
    session.editor.log(f"{name} lines {result.first_line}-{result.last_line}, {request.title!r}: prompt "
                       f"{stats.prompt_tokens} tokens ({stats.cached_tokens} cached), {progress_message(stats)}, "
                       f"{stats.forwards} forwards, {stats.total_s:.2f} s; program:\n{result.program}",
                       lsp.MessageType.Log)
    return result


def result_ops(ops, document: str, first: int, last: int, request: Request, keep_ai_comments: bool):
    """The program's ops, less the ``AI:`` comment that gave an edit's instruction (unless kept).

    The comment is removed from the resolved text and the ops rebuilt by the
    oracle, so the editor still receives edits only where text changes.
    """
    if not isinstance(request, EditRequest) or not request.ai_comment or keep_ai_comments:
        return ops
    text = resolve(ops, document, first, last)
    without = remove_ai_comment(text, request.instruction)
    return ops if without == text else oracle_for_selection(document, first, last, without)


async def apply(session: Session, snapshot: Snapshot, request: Request, result, cancel: threading.Event,
                progress: Progress) -> Outcome:
    """Send the edit of lines ``result.first_line..result.last_line`` unless it was cancelled, is incomplete,
    changes nothing or the document moved on."""
    first, last = result.first_line, result.last_line
    if cancel.is_set():
        return Outcome(False, "cancelled; nothing applied", lsp.MessageType.Info)
    if not result.complete:
        return Outcome(False, f"the edit program was not finished after {progress_message(result.stats)} "
                              f"(maxTokens); nothing applied", lsp.MessageType.Warning)
    current = session.documents.get(snapshot.uri)
    if current is None or current.version != snapshot.version:
        return Outcome(False, "the document changed during the edit; nothing applied", lsp.MessageType.Warning)
    ops = result_ops(result.ops, snapshot.text, first, last, request, session.options.keep_ai_comments)
    edits = text_edits(ops, snapshot.text, first, last, session.encoding)
    if not edits:
        return Outcome(False, f"no change: the program reproduces lines {first}-{last}", lsp.MessageType.Info)
    note = None if result.merge is None else result.merge.unseen_note()
    confirm = session.options.needs_confirmation
    # a note is annotated even unconfirmed: a client that reviews edits itself shows it there
    annotate = (confirm or note is not None) and supports_change_annotations(session.editor.capabilities)
    label = f"{NAME}: {request.title}"
    edit = workspace_edit(snapshot.uri, snapshot.version, edits, label, where(snapshot.uri, (first, last)), annotate,
                          confirm, note)
    progress.end("the edit is ready")  # the editor may now hold it in a review for long: nothing left to cancel
    try:
        response = await session.editor.apply_edit(lsp.ApplyWorkspaceEditParams(edit=edit, label=label))
    except Exception as exc:  # noqa: BLE001 -- an error answer from the editor
        return Outcome(False, f"the editor refused the edit: {exc}", lsp.MessageType.Warning)
    if not response.applied:
        reason = f": {response.failure_reason}" if response.failure_reason else ""
        return Outcome(False, f"the editor did not apply the edit{reason}", lsp.MessageType.Info)
    message = f"edited lines {first}-{last}: {progress_message(result.stats)}"
    return Outcome(True, message if note is None else f"{message}; {note}", lsp.MessageType.Log)
