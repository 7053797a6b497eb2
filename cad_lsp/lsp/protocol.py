"""JSON-RPC for the server: every request gets exactly one answer, whatever the client sends.

pygls drops a request whose params do not convert to lsprotocol types: it logs
a traceback, shows the user "Error in server", and never answers, so the
editor waits forever.  Its frame reader cannot answer a body that is not JSON
either.  Here frames are read, and each message's envelope and params checked,
before pygls dispatches it; what fails is answered with JSON-RPC's error codes
and a message that names the problem, and logged in one line, never shown.

The checks are plain functions (``envelope_problem``, ``params_problems``);
``CadProtocol`` only routes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, Callable

import cattrs
from lsprotocol import types as lsp
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.protocol.language_server import lsp_method

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002
MAX_BODY_BYTES = 1 << 28  # 256 MiB: far above any source file, below what would exhaust memory
_HEADER = re.compile(rb"^\s*([A-Za-z-]+)\s*:\s*(.*?)\s*$")


# ---------------------------------------------------------------------------
# Checks


def _is_id(value: Any) -> bool:
    """JSON-RPC ids are strings or integers (null only in answers to unreadable messages)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def envelope_problem(message: Any) -> str | None:
    """What makes ``message`` an invalid JSON-RPC 2.0 message, or None."""
    if not isinstance(message, dict):
        return f"a message must be a JSON object, not {_json_type(message)}"
    if message.get("jsonrpc") != "2.0":
        return 'a message must carry "jsonrpc": "2.0"'
    if "id" in message and not _is_id(message["id"]) and not ("method" not in message and message["id"] is None):
        return f"id must be a string or an integer, not {_json_type(message['id'])}"
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return "method must be a non-empty string"
        return None
    if "id" not in message or ("result" in message) == ("error" in message):
        return "a message must be a request, a notification, or a response with either result or error"
    return None


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", float: "a number",
             int: "an integer", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _camel(path: str) -> str:
    """lsprotocol attribute names back to the protocol's JSON names: text_document -> textDocument."""
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path)


# lsprotocol's validators: "Position.line should be in range [0:2147483647], but was -1."
_RANGE = re.compile(r"^\w+\.(\w+) should be in range \[(-?\d+):(-?\d+)\], but was (.*?)\.?$")


def _describe(exc: BaseException, expected: type | None) -> str:
    """One failure as the end of a sentence that starts with its path; ``.name ...`` extends the path."""
    if isinstance(exc, KeyError):
        return "is required"
    if isinstance(exc, ValueError) and not isinstance(exc, cattrs.BaseValidationError):
        match = _RANGE.match(str(exc))
        if match:
            field, low, high, value = match.groups()
            return f".{field} must be {'≥ 0' if low == '0' else f'≥ {low}'} and ≤ {high}, not {value}"
        return f"is not valid ({exc})"
    name = getattr(expected, "__name__", None) or str(expected)
    kind = {"int": "an integer", "str": "a string", "bool": "a boolean", "float": "a number",
            "list": "an array"}.get(name)
    return f"must be {kind}" if kind else f"must be {'an object' if hasattr(expected, '__attrs_attrs__') else name}"


def params_problems(converter: cattrs.Converter, method: str, params: Any,
                    commands: dict[str, Callable[[list], str | None]] | None = None) -> list[str]:
    """Each way ``params`` fails to be the params of ``method``, e.g. ``params.range.start.line must be ≥ 0``.

    ``commands`` maps each command of ``workspace/executeCommand`` to a check
    of its arguments (a problem, or None).
    """
    commands = commands or {}
    types = lsp.METHOD_TO_TYPES.get(method)
    params_type = types[2] if types and len(types) > 2 else None
    if params_type is None:
        return []
    if not isinstance(params, dict):
        return [f"params must be an object, not {_json_type(params)}"]
    try:
        structured = converter.structure(params, params_type)
    except cattrs.BaseValidationError as exc:
        found = [line.split(" @ ", 1) for line in cattrs.transform_error(exc, path="params", format_exception=_describe)]
        return [_camel(path) + ("" if message.startswith(".") else " ") + message for message, path in found]
    except Exception as exc:  # noqa: BLE001 -- a shape cattrs did not anticipate
        return [f"params are not valid: {exc}"]
    if method == lsp.WORKSPACE_EXECUTE_COMMAND:
        check = commands.get(structured.command)
        if check is None:
            return [f"unknown command {structured.command!r}; this server has {', '.join(sorted(commands))}"]
        problem = check(structured.arguments or [])
        return [f"{structured.command}: {problem}"] if problem else []
    return []


# ---------------------------------------------------------------------------
# The protocol


class CadProtocol(LanguageServerProtocol):
    """pygls's protocol, answering every request and keeping running edits in step with the client.

    Besides the checks above: ``$/cancelRequest`` for ``workspace/executeCommand``
    also sets the edit's cancel flag (pygls leaves the command running);
    pygls 2.1.1's ``shutdown`` cancelled in-flight requests while iterating the
    dict their callbacks remove them from; and requests after ``shutdown`` are
    answered with InvalidRequest, as LSP asks, instead of being dropped.
    """

    initialize_seen = False
    command_checks: dict[str, Callable[[list], str | None]] = {}  # command -> check of its arguments

    # -- frames and messages

    def receive(self, body: bytes) -> None:
        """One frame's body: parse, check and dispatch; answer what cannot be dispatched."""
        try:
            message = json.loads(body)
        except ValueError as exc:  # JSONDecodeError, and UnicodeDecodeError for bytes that are not UTF-8
            self.reject(None, PARSE_ERROR, f"the message body is not JSON: {exc}")
            return
        if isinstance(message, list):  # a JSON-RPC batch: LSP has none, so each request is refused by its id
            if not message:
                self.reject(None, INVALID_REQUEST, "an empty batch")
            for item in message:
                has_id = isinstance(item, dict) and _is_id(item.get("id")) and "method" in item
                self.reject(item["id"] if has_id else None, INVALID_REQUEST,
                            "batches are not part of LSP: send each message in a frame of its own", answer=has_id)
            return
        try:
            self.receive_message(message)
        except Exception as exc:  # noqa: BLE001 -- a bug here must not end the server's reading loop
            log.exception("failed to handle a message")
            msg_id = message.get("id") if isinstance(message, dict) and "method" in message else None
            self.reject(msg_id, INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}",
                        answer=_is_id(msg_id))

    def receive_message(self, message: Any) -> None:
        problem = envelope_problem(message)
        if problem is not None:
            msg_id = message.get("id") if isinstance(message, dict) and _is_id(message.get("id")) else None
            self.reject(msg_id, INVALID_REQUEST, problem)
            return
        method, msg_id = message.get("method"), message.get("id")
        if method is None:
            self.dispatch(message, msg_id, None)  # a response to one of our requests
            return
        is_request = "id" in message
        if not self._knows(method):
            if is_request:
                self.reject(msg_id, METHOD_NOT_FOUND, f"{method}: this server does not implement it")
            else:
                log.debug("ignored notification %s", method)  # $/ notifications may be ignored, says LSP
            return
        if self._shutdown and method != lsp.EXIT:
            self.reject(msg_id, INVALID_REQUEST, f"{method}: the server is shutting down", answer=is_request)
            return
        if is_request and msg_id in self._request_futures:
            self.reject(msg_id, INVALID_REQUEST, f"id {msg_id!r} belongs to a request that is still running")
            return
        if is_request and method != lsp.INITIALIZE and not self.initialize_seen:
            self.reject(msg_id, SERVER_NOT_INITIALIZED, f"{method} before initialize")
            return
        problems = params_problems(self._converter, method, message.get("params"), self.command_checks)
        if problems:
            self.reject(msg_id, INVALID_PARAMS, f"{method}: {'; '.join(problems)}", answer=is_request)
            return
        self.initialize_seen = self.initialize_seen or method == lsp.INITIALIZE
        self.dispatch(message, msg_id if is_request else None, method)

    def dispatch(self, message: dict, msg_id: Any, method: str | None) -> None:
        """Structure a checked message into lsprotocol types and hand it to pygls."""
        try:
            if method is None:
                kind = self._result_types.pop(msg_id, None) or JsonRPCResponseMessage
                if "error" in message:
                    kind = lsp.ResponseErrorMessage
            else:
                fallback = JsonRPCRequestMessage if msg_id is not None else JsonRPCNotification
                kind = self.get_message_type(method) or fallback
            structured = self._converter.structure(message, kind)
        except Exception as exc:  # noqa: BLE001 -- checked above; a shape the checks missed
            if method is not None:
                self.reject(msg_id, INVALID_PARAMS, f"{method}: {exc}", answer=msg_id is not None)
                return
            waiting = self._request_futures.pop(msg_id, None)  # never answer a response: fail its request
            self.reject(msg_id, INVALID_PARAMS, f"the editor's answer to request {msg_id!r} is not valid: {exc}",
                        answer=False)
            if waiting is not None and not waiting.done():
                waiting.set_exception(ValueError(f"the editor's answer is not valid: {exc}"))
            return
        self.handle_message(structured)

    def reject(self, msg_id: Any, code: int, message: str, answer: bool = True) -> None:
        """Answer a request with an error (``answer``), and log the problem in one line either way."""
        log.debug("%s (%s)", message, code)
        self.notify(lsp.WINDOW_LOG_MESSAGE, lsp.LogMessageParams(
            type=lsp.MessageType.Warning, message=f"refused a message from the editor: {message}"))
        if answer:
            self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

    def _knows(self, method: str) -> bool:
        return method == lsp.CANCEL_REQUEST or method in self.fm.builtin_features or method in self.fm.features

    # -- pygls hooks

    def _handle_cancel_notification(self, msg_id):
        if msg_id not in self._request_futures:  # already answered: routine, not a warning
            log.debug("cancel for %r, which is not running", msg_id)
            return
        super()._handle_cancel_notification(msg_id)
        cancel = self._server.session.edits.by_request.get(msg_id)
        if cancel is not None:
            cancel.set()

    # The server keeps its own copy of open documents (documents.Documents, by LSP's line rules).
    # pygls's copy splits lines with str.splitlines, so a change after a U+2028 or a form feed
    # raised there and the server's handler never ran: these hand the notifications straight on.

    def _user_handler(self, method: str, params):
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params):
        yield from self._user_handler(lsp.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params):
        yield from self._user_handler(lsp.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params):
        yield from self._user_handler(lsp.TEXT_DOCUMENT_DID_CLOSE, params)

    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args):
        if (user_handler := self.fm.features.get(lsp.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):  # a copy: cancelling removes entries
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None


async def read_frames(reader, protocol: CadProtocol, stop_event) -> None:
    """Read LSP frames (``Content-Length`` headers, a blank line, the body) until EOF.

    Header names are case-insensitive and other headers are skipped; a frame
    whose length is missing, not a number or too large is answered with a
    parse error, and its bytes are read as headers until a frame starts again.
    """
    headers: dict[bytes, bytes] = {}
    while not stop_event.is_set():
        line = await reader.readline()
        if not line:
            return
        if line.strip():
            match = _HEADER.match(line)
            if match:
                headers[match.group(1).lower()] = match.group(2)
            continue
        if not headers:
            continue  # a stray blank line between frames
        length = headers.pop(b"content-length", b"")
        headers.clear()
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            protocol.reject(None, PARSE_ERROR, f"a frame needs a Content-Length of at most {MAX_BODY_BYTES} "
                                               f"bytes, not {length[:40].decode('ascii', 'replace')!r}")
            continue
        try:
            body = await reader.readexactly(int(length))
        except asyncio.IncompleteReadError:
            return
        if len(body) < int(length):
            return  # end of input inside a body
        protocol.receive(body)
