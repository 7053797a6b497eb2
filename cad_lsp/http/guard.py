"""What a request must pass before it reaches the model: a Host that names this machine (on loopback), the
API key (when one is set), and a body within the size limit.

Each refusal is an OpenAI error object, so a client shows its message.
"""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import APIError, bad_request
from .settings import LOOPBACK_NAMES


def host_name(header: str | None) -> str | None:
    """The name in a Host header (``[::1]:8000`` -> ``::1``), or None if it is malformed."""
    if not header:
        return None
    if header.startswith("["):
        name, bracket, rest = header[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
    else:
        name, _, port = header.partition(":")
    if not name or (port and not port.isdigit()):
        return None
    return name.lower()


class LoopbackHostOnly:
    """A loopback server answers only Hosts that name this machine.

    A web page whose domain an attacker points at 127.0.0.1 (DNS rebinding)
    can reach a loopback port from the user's browser, but its requests
    carry the attacker's domain as their Host.
    """

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and host_name(Headers(scope=scope).get("host")) not in LOOPBACK_NAMES:
            error = APIError(403, "this server answers only requests to localhost, 127.0.0.1 or [::1] (the Host "
                             "header names another host)", code="host_not_allowed")
            await error.response()(scope, receive, send)
            return
        await self.app(scope, receive, send)


class RequireBearer:
    """Every request carries ``Authorization: Bearer <key>``; the key is compared in constant time."""

    def __init__(self, app: ASGIApp, key: str):
        self.app = app
        self.key = key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scheme, _, token = Headers(scope=scope).get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode("latin-1"), self.key):
                error = APIError(401, "a valid API key is needed: send the header 'Authorization: Bearer <key>' "
                                 "with the key the server was started with", code="invalid_api_key",
                                 headers={"WWW-Authenticate": "Bearer"})
                await error.response()(scope, receive, send)
                return
        await self.app(scope, receive, send)


def too_large(limit: int) -> APIError:
    return APIError(413, f"the request body is larger than this server's limit of {limit} bytes "
                    "(--max-body-bytes)", code="request_too_large")


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused with 413 past ``limit`` bytes: by its Content-Length before reading, and by what
    arrives for a body sent in chunks."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise bad_request(f"the Content-Length header is not a number: {length!r}")
        if int(length) > limit:
            raise too_large(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)
