"""The server's settings: one typed object read from the command line, checked before a model loads."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

API_KEY_ENV = "CAD_LSP_API_KEY"  # a key in the environment stays out of `ps`
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")  # the Host names a loopback server answers (DNS rebinding)


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` keeps the server to this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    api_key: str | None = None  # every request needs "Authorization: Bearer <key>" when set
    allow_origin: str | None = None  # the one browser origin given CORS headers; none by default
    model: str = "smollm2"
    device: str | None = None
    dtype: str = "auto"
    backend: str = "auto"
    vllm_url: str | None = None
    max_tokens: int | None = None  # the program token limit a request may ask up to (default: the engine's)
    context_lines: int | None = None
    queue: int = 8  # requests that may wait while one decodes; past them: 429
    max_body_bytes: int = 8 << 20
    log_level: str = "info"

    @classmethod
    def from_args(cls, args) -> Settings:
        names = cls.__dataclass_fields__
        values = {name: getattr(args, name) for name in names if hasattr(args, name)}
        if not values.get("api_key"):
            values["api_key"] = os.environ.get(API_KEY_ENV) or None
        return cls(**values)

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def problem(self) -> str | None:
        """Why the server must not start with these settings, or None."""
        if not self.loopback and not self.api_key:
            return (f"refusing to listen on {self.host!r} without an API key: anyone who can reach it could run "
                    f"the model; set --api-key (or ${API_KEY_ENV}), or listen on 127.0.0.1")
        if self.api_key is not None and not (self.api_key.isascii() and self.api_key.isprintable()
                                             and self.api_key and " " not in self.api_key):
            return "the API key must be printable ASCII without spaces (it travels in an HTTP header)"
        if not 0 <= self.port <= 65535:
            return f"--port must be 0-65535, got {self.port}"
        for flag, value, least in (("--max-tokens", self.max_tokens, 1), ("--context-lines", self.context_lines, 1),
                                   ("--queue", self.queue, 0), ("--max-body-bytes", self.max_body_bytes, 1024)):
            if value is not None and value < least:
                return f"{flag} must be at least {least}, got {value}"
        if self.allow_origin is not None and (self.allow_origin == "*" or "://" not in self.allow_origin):
            return (f"--allow-origin takes one origin such as http://localhost:3000, got {self.allow_origin!r} "
                    "(a wildcard would let any web page use the model)")
        if self.backend == "vllm" and not self.vllm_url:
            return "--backend vllm needs --vllm-url"
        return None
