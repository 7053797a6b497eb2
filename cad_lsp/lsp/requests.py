"""What a request is, checked before anything runs: settings, the commands' arguments (an edit of a selection,
an update to apply), the selection, the instructions a selection offers (presets and ``AI:`` comments), and what
the client supports.

Plain functions over lsprotocol types; nothing here knows a running server.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from lsprotocol import types as lsp

from ..engine.window import DEFAULT_CONTEXT_LINES
from ..program import Document, split_lines
from ..program.edits import offset_at
from ..program.update import UpdateError, merge_update

NAME = "cad-lsp"
EDIT_COMMAND = "cad.editSelection"
APPLY_COMMAND = "cad.applyUpdate"
EDIT_SHAPE, APPLY_SHAPE = "{uri, version, range, instruction}", "{uri, version, update, instruction?, force?}"
MAX_UPDATE_CHARS = 1 << 20  # far above any update a chat model writes (its context is far smaller): a paste gone wrong
ACTION_KIND = lsp.CodeActionKind.RefactorRewrite
PRESETS = ("Add docstrings", "Add type hints", "Fix the bug", "Simplify")
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
    backend: str = "auto"  # torch, llamacpp (GGUF files), vllm (a vLLM server at vllm_url), auto: see backends
    vllm_url: str | None = None
    max_tokens: int | None = None
    needs_confirmation: bool = True
    max_documents: int = 8  # caches kept: one per document, one per window of a long file
    keep_ai_comments: bool = False  # leave the AI: comment that gave the instruction in the result
    speculation: bool = True  # draft the program from the document, check the draft in the same forwards
    context_lines: int | None = DEFAULT_CONTEXT_LINES  # show the model at most this many lines around the selection


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
    "speculation": ("speculation", bool),
    "contextLines": ("context_lines", int),
}


def _valid(value: Any, kind: type) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:  # a count: positive, and JSON's true is not 1
        return isinstance(value, int) and not isinstance(value, bool) and value > 0
    return isinstance(value, str) and bool(value.strip())


def merge_options(options: Options, init: Any, source: str = "initialization option") -> tuple[Options, list[str]]:
    """Apply initializationOptions (or the client's settings for us, ``source="setting"``); returns the
    options and one problem per ignored key.

    Null keys keep the command-line value, so an editor may send every setting.
    """
    if init is None:
        return options, []
    if not isinstance(init, dict):
        return options, [f"{source}s must be an object, not {type(init).__name__}"]
    changes, problems = {}, []
    for key, value in init.items():
        if value is None:
            continue
        if key not in _INIT_KEYS:
            problems.append(f"unknown {source} {key!r} ignored")
            continue
        name, kind = _INIT_KEYS[key]
        if not _valid(value, kind):
            problems.append(f"{source} {key}={value!r} is not valid; ignored")
            continue
        changes[name] = value.strip() if isinstance(value, str) else value
    return replace(options, **changes), problems


# ---------------------------------------------------------------------------
# Pure request logic


@dataclass(frozen=True)
class EditRequest:
    """The one argument of ``cad.editSelection`` (and the data of a code action).

    ``ai_comment``: the instruction came from an ``AI:`` comment in the
    selection, which the edit then removes.  ``background``: answer the
    command at once and deliver the outcome as the edit and one message (the
    code actions' requests: generic clients give up on a request after a few
    seconds, and an edit may take longer).
    """

    uri: str
    version: int
    range: lsp.Range
    instruction: str
    ai_comment: bool = False
    background: bool = False

    def as_json(self) -> dict:
        answer = {"uri": self.uri, "version": self.version, "range": range_json(self.range),
                  "instruction": self.instruction}
        flags = {"aiComment": self.ai_comment, "background": self.background}
        return {**answer, **{name: True for name, value in flags.items() if value}}

    @property
    def title(self) -> str:
        """What the progress bar and the edit's label say it does."""
        return self.instruction

    def lines(self, text: str, encoding: str, language: str | None = None) -> tuple[int, int]:
        """The selected lines, once both ends of the range are checked against the document (RequestError).
        ``language`` is for an update's merge: an edit needs none."""
        return check_selection(text, self.range, encoding)

    def run(self, engine, document: str, language: str | None = None, **options):
        """The engine's EditResult: the program of the selected lines (``options``: the engine's keywords)."""
        first, last = selected_lines(self.range)
        return engine.edit(document, first, last, self.instruction, **options)


@dataclass(frozen=True)
class ApplyRequest:
    """The one argument of ``cad.applyUpdate``: merge a chat model's update snippet (changed code, unchanged
    stretches elided by ``# ... existing code ...``) into the document.

    Which lines it changes is found by the engine, so the request names none;
    otherwise it runs as an edit does (``background`` likewise).  ``force``
    accepts a merge that breaks a document which parsed (refused otherwise).
    """

    uri: str
    version: int
    update: str
    instruction: str | None = None
    background: bool = False
    force: bool = False

    @property
    def title(self) -> str:
        return f"apply an update: {self.instruction}" if self.instruction else "apply an update"

    def lines(self, text: str, encoding: str, language: str | None = None) -> tuple[int, int] | None:
        """None: the engine places the update, and the result names the lines it replaces.  An update with no
        place in the document, or whose merge breaks it, is refused here, before the model is claimed (the merge
        needs no model); ``language``: the document's, as ``merge_update`` takes it."""
        try:
            merge_update(text, self.update, language, force=self.force)
        except UpdateError as exc:
            raise RequestError(f"{exc}; nothing applied") from None
        return None

    def run(self, engine, document: str, language: str | None = None, **options):
        """The engine's EditResult: the program of the region the update changes (EngineError if it has none)."""
        return engine.apply(document, self.update, self.instruction, language=language, force=self.force,
                            **options)


Request = EditRequest | ApplyRequest  # what edit_flow runs: an edit of a selection, or an update to apply
R = TypeVar("R", EditRequest, ApplyRequest)  # one_argument returns the kind of request its parser makes


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


def _document_version(value: dict) -> tuple[str, int]:
    uri, version = value.get("uri"), value.get("version")
    if not isinstance(uri, str) or not uri:
        raise RequestError("uri must be a string")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RequestError("version must be the document's integer version")
    return uri, version


def _flag(value: dict, name: str) -> bool:
    flag = value.get(name, False)
    if not isinstance(flag, bool):
        raise RequestError(f"{name} must be true or false")
    return flag


def parse_edit_request(value: Any) -> EditRequest:
    """Validate ``{uri, version, range, instruction}`` as JSON; raises RequestError."""
    if not isinstance(value, dict):
        raise RequestError(f"{EDIT_COMMAND} takes one object {EDIT_SHAPE}")
    uri, version = _document_version(value)
    instruction = value.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise RequestError("the instruction is empty")
    raw_range = value.get("range")
    if not isinstance(raw_range, dict):
        raise RequestError("range must be an object {start, end}")
    start, end = _position(raw_range.get("start"), "range.start"), _position(raw_range.get("end"), "range.end")
    if (end.line, end.character) < (start.line, start.character):
        raise RequestError("range ends before it starts")
    return EditRequest(uri, version, lsp.Range(start=start, end=end), instruction.strip(),
                       _flag(value, "aiComment"), _flag(value, "background"))


def parse_apply_request(value: Any) -> ApplyRequest:
    """Validate ``{uri, version, update, instruction?, force?}`` as JSON; raises RequestError.

    Whether the update has a place in the document is the engine's to say;
    here only its type and size are checked.
    """
    if not isinstance(value, dict):
        raise RequestError(f"{APPLY_COMMAND} takes one object {APPLY_SHAPE}")
    uri, version = _document_version(value)
    update, instruction = value.get("update"), value.get("instruction")
    if not isinstance(update, str):
        raise RequestError("update must be a string: the changed code, unchanged stretches elided by a comment "
                           "such as '# ... existing code ...'")
    if not update.strip():
        raise RequestError("the update is empty")
    if len(update) > MAX_UPDATE_CHARS:
        raise RequestError(f"the update is {len(update):,} characters long; at most {MAX_UPDATE_CHARS:,} are accepted")
    if instruction is not None and not isinstance(instruction, str):
        raise RequestError("instruction must be a string when given")
    return ApplyRequest(uri, version, update, (instruction or "").strip() or None, _flag(value, "background"),
                        _flag(value, "force"))


def one_argument(arguments: list, parse: Callable[[Any], R], shape: str) -> R:
    """A command's argument list, which holds one request; raises RequestError."""
    if len(arguments) != 1:
        raise RequestError(f"takes one argument {shape}, got {len(arguments)}")
    return parse(arguments[0])


def parse_edit_arguments(arguments: list) -> EditRequest:
    return one_argument(arguments, parse_edit_request, EDIT_SHAPE)


def parse_apply_arguments(arguments: list) -> ApplyRequest:
    return one_argument(arguments, parse_apply_request, APPLY_SHAPE)


def arguments_problem(parse: Callable[[list], Any]) -> Callable[[list], str | None]:
    """A check for protocol's ``command_checks``: what is wrong with a command's arguments, or None
    (answered as invalid params)."""

    def problem(arguments: list) -> str | None:
        try:
            parse(arguments)
        except RequestError as exc:
            return str(exc)
        return None

    return problem


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


def encoding_name(kind: Any) -> str:
    """The negotiated position encoding as edits.py names it (LSP's default is UTF-16)."""
    value = getattr(kind, "value", kind)
    return value if value in ("utf-8", "utf-16", "utf-32") else "utf-16"
