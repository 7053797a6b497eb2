"""Every failure as the error object OpenAI's clients parse: ``{"error": {"message", "type", "param", "code"}}``.

Clients show ``message`` to the user, so it says what to change; details of
an unexpected failure go to the server's log, never into the answer.
"""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

from ..engine.backend import Cancelled, EngineError

log = logging.getLogger(__name__)

INVALID_REQUEST = "invalid_request_error"
AUTHENTICATION = "authentication_error"
PERMISSION = "permission_error"
NOT_FOUND = "not_found_error"
RATE_LIMIT = "rate_limit_error"
SERVER = "server_error"

TYPE_BY_STATUS = {401: AUTHENTICATION, 403: PERMISSION, 404: NOT_FOUND, 429: RATE_LIMIT}


class APIError(Exception):
    """A failure with the HTTP status and the OpenAI error fields its answer carries."""

    def __init__(self, status: int, message: str, *, type: str | None = None, param: str | None = None,
                 code: str | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type or TYPE_BY_STATUS.get(status, SERVER if status >= 500 else INVALID_REQUEST)
        self.param = param
        self.code = code
        self.headers = headers or {}

    def body(self) -> dict:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


def bad_request(message: str, param: str | None = None, code: str | None = None) -> APIError:
    return APIError(400, message, param=param, code=code)


def not_applicable(message: str) -> APIError:
    """The request is well formed but the update has no place in the code (or the code none for it)."""
    return APIError(422, message, param="messages", code="update_not_applicable")


def engine_failure(message: str, remote: bool) -> APIError:
    """An EngineError raised while the model ran: about the request on a local engine (the context is too
    short for it), about the serving engine on vLLM (down, refusing, answering nonsense)."""
    if remote:
        return APIError(502, message, code="engine_unavailable")
    return not_applicable(message)


def failure(exc: BaseException, remote: bool) -> APIError:
    """The answer for what an apply raised: the engine's messages are for the user, anything else is logged."""
    if isinstance(exc, APIError):
        return exc
    if isinstance(exc, EngineError):
        return engine_failure(str(exc), remote)
    if isinstance(exc, Cancelled):  # the client left, or the server is stopping: nobody may read this
        return APIError(503, "the request was cancelled before it finished", code="cancelled")
    log.error("the apply failed", exc_info=(type(exc), exc, exc.__traceback__))
    return APIError(500, "the server failed on this request; its log has the details")


async def api_error(request: Request, exc: APIError) -> JSONResponse:
    return exc.response()


async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
    """Starlette's own failures (no such route, wrong method) in the same shape."""
    messages = {404: f"no route {request.url.path}: this server answers /v1/chat/completions and /v1/models",
                405: f"{request.method} is not allowed on {request.url.path}"}
    error = APIError(exc.status_code, messages.get(exc.status_code, str(exc.detail)), headers=exc.headers)
    return error.response()


async def client_left(request: Request, exc: ClientDisconnect) -> JSONResponse:
    """The client closed the connection before its body arrived: nobody reads this answer, and it is no fault."""
    log.debug("%s %s: the client left before its request arrived", request.method, request.url.path)
    return APIError(400, "the connection closed before the request body arrived", code="client_left").response()


async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected failure on %s %s", request.method, request.url.path)
    return APIError(500, "the server failed on this request; its log has the details").response()


HANDLERS = {APIError: api_error, HTTPException: http_error, ClientDisconnect: client_left, Exception: unexpected_error}
