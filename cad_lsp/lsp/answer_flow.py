"""``cad.applyAnswer``: a whole chat answer applied to every file it touches as one WorkspaceEdit.

The plan is ``program.answer_plan``'s, read from the editor's open documents first and the disk for the rest; no
model runs (an apply's program is the merge's).  The edit holds a versioned TextDocumentEdit per open document
(the editor refuses it if one moved on), a CreateFile and its text per new file, and an unversioned edit per file
on disk that is not open, so the editor shows one review and applies all of it or nothing.  A block refused or
placed in no file applies nothing unless the request says ``partial``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from ..program import oracle_for_selection, split_lines
from ..program.answer_plan import AnswerPlan, FileChange, plan_answer, read_text
from ..program.edits import text_edits
from .documents import Snapshot
from .edit_flow import Outcome
from .requests import MAX_UPDATE_CHARS, NAME, RequestError, supports_change_annotations
from .session import Session
from .workers import in_thread

ANSWER_COMMAND = "cad.applyAnswer"
ANSWER_SHAPE = "{text, uri?, version?, partial?, force?}"
ANSWER_ANNOTATION = "cad-lsp.answer"
ANSWER_UNSEEN_ANNOTATION = "cad-lsp.answer.unseen"


@dataclass(frozen=True)
class AnswerRequest:
    """The one argument of ``cad.applyAnswer``: the answer's markdown, the active document (the file for blocks
    that name none; its ``version``, when given, must still be the document's), and whether to apply what merged
    when some blocks did not (``partial``) or merges that break a file (``force``)."""

    text: str
    uri: str | None = None
    version: int | None = None
    partial: bool = False
    force: bool = False


def parse_answer_request(value: Any) -> AnswerRequest:
    if not isinstance(value, dict):
        raise RequestError(f"{ANSWER_COMMAND} takes one object {ANSWER_SHAPE}")
    text, uri, version = value.get("text"), value.get("uri"), value.get("version")
    if not isinstance(text, str):
        raise RequestError("text must be a string: the chat answer, as markdown")
    if not text.strip():
        raise RequestError("the answer is empty")
    if len(text) > MAX_UPDATE_CHARS:
        raise RequestError(f"the answer is {len(text):,} characters long; at most {MAX_UPDATE_CHARS:,} are accepted")
    if uri is not None and (not isinstance(uri, str) or not uri):
        raise RequestError("uri must be a string when given")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise RequestError("version must be the document's integer version when given")
    flags = {}
    for name in ("partial", "force"):
        flags[name] = value.get(name, False)
        if not isinstance(flags[name], bool):
            raise RequestError(f"{name} must be true or false")
    return AnswerRequest(text, uri, version, **flags)


def parse_answer_arguments(arguments: list) -> AnswerRequest:
    if len(arguments) != 1:
        raise RequestError(f"takes one argument {ANSWER_SHAPE}, got {len(arguments)}")
    return parse_answer_request(arguments[0])


def path_of(uri: str) -> Path | None:
    """A file: URI's path; None for other schemes (an untitled buffer has no place on disk)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(os.path.abspath(unquote(parsed.path)))


def answer_root(request: AnswerRequest, folders: list[str], root_uri: str | None) -> Path:
    """Where the answer's paths start: the workspace folder holding the active document, else the first folder,
    else the workspace's root, else the active document's folder; RequestError when there is none."""
    active = path_of(request.uri) if request.uri else None
    roots = [p for p in (path_of(uri) for uri in folders) if p is not None]
    for root in roots:
        if active is not None and (active == root or root in active.parents):
            return root
    if roots:
        return roots[0]
    if root_uri and path_of(root_uri) is not None:
        return path_of(root_uri)
    if active is not None:
        return active.parent
    raise RequestError("no workspace folder and no file open to read the answer's paths from; nothing applied")


def plan_from_editor(request: AnswerRequest, root: Path, open_documents: dict[Path, Snapshot]) -> AnswerPlan:
    """The plan, reading each file from its open document where it is open, else from the disk."""

    def read(path: Path):
        snapshot = open_documents.get(path)
        return (snapshot.text, None) if snapshot is not None else read_text(path)

    default = path_of(request.uri) if request.uri else None
    return plan_answer(request.text, root, default, read=read, force=request.force)


def minimal_edits(before: str, after: str, encoding: str) -> list[lsp.TextEdit]:
    """The fewest TextEdits from one text to the other, as an edit's are made: the oracle's program of the whole
    file, turned into edits that leave every copied line alone."""
    if not before:
        return [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0),
                                             end=lsp.Position(line=0, character=0)), new_text=after)]
    last = len(split_lines(before))
    return text_edits(oracle_for_selection(before, 1, last, after), before, 1, last, encoding)


def answer_workspace_edit(plan: AnswerPlan, open_documents: dict[Path, Snapshot], encoding: str, annotate: bool,
                          confirm: bool) -> lsp.WorkspaceEdit:
    """One WorkspaceEdit for every file the plan changes and that merged; the editor applies it whole."""
    changes: list = []
    annotations = {}
    for change in plan.changed:
        uri = change.target.as_uri()
        snapshot = open_documents.get(change.target)
        if snapshot is not None:
            uri = snapshot.uri
        notes = change.unseen_notes()
        annotation = ANSWER_ANNOTATION if not notes else f"{ANSWER_UNSEEN_ANNOTATION}:{change.path}"
        edits = minimal_edits(change.before, change.after, encoding)
        if annotate:
            edits = [lsp.AnnotatedTextEdit(range=e.range, new_text=e.new_text, annotation_id=annotation)
                     for e in edits]
            said = f"{change.path}: {'; '.join(notes)}" if notes else "every file the chat answer changes"
            annotations[annotation] = lsp.ChangeAnnotation(label=f"{NAME}: apply a chat answer",
                                                           needs_confirmation=confirm, description=said)
        if not change.exists:
            changes.append(lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(overwrite=False,
                                                                                 ignore_if_exists=False)))
        version = snapshot.version if snapshot is not None else None
        changes.append(lsp.TextDocumentEdit(text_document=lsp.OptionalVersionedTextDocumentIdentifier(
            uri=uri, version=version), edits=edits))
    return lsp.WorkspaceEdit(document_changes=changes, change_annotations=annotations or None)


def creates_files(capabilities: lsp.ClientCapabilities) -> bool:
    """Whether the editor applies CreateFile in a WorkspaceEdit (``workspace.workspaceEdit.resourceOperations``)."""
    workspace_edit = getattr(getattr(capabilities, "workspace", None), "workspace_edit", None)
    operations = getattr(workspace_edit, "resource_operations", None) or []
    return any(getattr(op, "value", op) == "create" for op in operations)


def files_json(plan: AnswerPlan, open_documents: dict[Path, Snapshot]) -> list[dict]:
    out = []
    for change in plan.files:
        snapshot = open_documents.get(change.target)
        status = ("refused" if change.after is None else "unchanged" if not change.changed
                  else "changed" if change.exists else "created")
        entry = {"path": change.path, "uri": snapshot.uri if snapshot else change.target.as_uri(), "status": status,
                 "removedUnseen": [list(span) for span in change.unseen]}
        if change.refusal:
            entry["reason"] = change.refusal
        if change.named_as:
            entry["namedAs"] = change.named_as
        out.append(entry)
    return out


def summary_message(plan: AnswerPlan, changed: list[FileChange]) -> str:
    created = sum(1 for f in changed if not f.exists)
    said = f"applied a chat answer: {len(changed) - created} file{'s' if len(changed) - created != 1 else ''} changed"
    said += f", {created} created"
    notes = "; ".join(f"{f.path}: {note}" for f in changed for note in f.unseen_notes())
    if notes:  # lines removed unseen, definitions removed because the prose says so
        said += f"; {notes}"
    found = [f.found_note() for f in changed if f.named_as]
    if found:
        said += "; " + "; ".join(found)
    refusals = plan.refusals()
    if refusals:
        said += "; not applied: " + "; ".join(refusals)
    return said


@dataclass
class AnswerOutcome(Outcome):
    """An Outcome that also names each file (its status, why it was refused) and the blocks placed in no file."""

    files: list[dict] = field(default_factory=list)
    unplaced: list[dict] = field(default_factory=list)

    def as_json(self) -> dict:
        return {**super().as_json(), "files": self.files, "unplaced": self.unplaced}


def open_files(session: Session) -> dict[Path, Snapshot]:
    """The open documents that are files, by path."""
    found = {}
    for uri in session.documents.uris():
        path, snapshot = path_of(uri), session.documents.get(uri)
        if path is not None and snapshot is not None:
            found[path] = snapshot
    return found


async def run_answer(session: Session, request: AnswerRequest, root: Path) -> AnswerOutcome:
    """Plan the answer, then send one WorkspaceEdit if it is complete (or ``partial``) and nothing moved."""
    if request.uri is not None and request.version is not None:
        snapshot = session.documents.get(request.uri)
        if snapshot is not None and snapshot.version != request.version:
            raise RequestError(f"the request is stale: it was made on version {request.version}, the document is at "
                               f"version {snapshot.version}; nothing applied", lsp.MessageType.Warning)
    documents = open_files(session)
    plan = await in_thread(plan_from_editor, request, root, documents)
    files = files_json(plan, documents)
    unplaced = [{"line": p.block.line, "reason": p.reason} for p in plan.problems]

    def outcome(applied: bool, message: str, kind: lsp.MessageType) -> AnswerOutcome:
        return AnswerOutcome(applied, message, kind, files=files, unplaced=unplaced)

    if not plan.files and not plan.problems:
        return outcome(False, "the answer has no code block that changes a file; nothing applied",
                       lsp.MessageType.Info)
    if not plan.complete and not request.partial:
        return outcome(False, "nothing applied: " + "; ".join(plan.refusals()) + " (partial applies the files that "
                       "merged)", lsp.MessageType.Warning)
    changed = list(plan.changed)
    if any(not f.exists for f in changed) and not creates_files(session.editor.capabilities):
        return outcome(False, "the answer creates files and the editor does not create files in an edit "
                       "(workspace.workspaceEdit.resourceOperations); nothing applied", lsp.MessageType.Warning)
    if not changed:
        return outcome(False, "no change: the answer's files already read as it says; nothing applied",
                       lsp.MessageType.Info)
    for change in changed:
        before = documents.get(change.target)
        current = session.documents.get(before.uri) if before is not None else None
        if before is not None and (current is None or current.version != before.version):
            return outcome(False, f"{change.path} changed while the answer was merged; nothing applied",
                           lsp.MessageType.Warning)
    confirm = session.options.needs_confirmation
    annotate = (confirm or any(f.unseen for f in changed)) and supports_change_annotations(session.editor.capabilities)
    edit = answer_workspace_edit(plan, documents, session.encoding, annotate, confirm)
    label = f"{NAME}: apply a chat answer"
    try:
        response = await session.editor.apply_edit(lsp.ApplyWorkspaceEditParams(edit=edit, label=label))
    except Exception as exc:  # noqa: BLE001 -- an error answer from the editor
        return outcome(False, f"the editor refused the edit: {exc}", lsp.MessageType.Warning)
    if not response.applied:
        reason = f": {response.failure_reason}" if response.failure_reason else ""
        return outcome(False, f"the editor did not apply the edit{reason}", lsp.MessageType.Info)
    kind = lsp.MessageType.Warning if any(f.unseen for f in changed) or not plan.complete else lsp.MessageType.Log
    return outcome(True, summary_message(plan, changed), kind)
