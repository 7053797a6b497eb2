"""What the server's helpers share: the settings, the open documents, the model, the running edits, and the
editor to talk to.

The handlers in ``server`` hand a ``Session`` to the helpers (``edit_flow``,
``model_work``, ``progress``); none of them sees the pygls server.  The editor
is reached through ``Editor``, which the server implements over pygls, so a
reader of a helper sees every way it can reach the user.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from lsprotocol import types as lsp

from .documents import Documents
from .requests import Options, encoding_name
from .workers import CacheJobs


class Editor(Protocol):
    """What a helper may say to the editor (implemented by the server over pygls)."""

    @property
    def capabilities(self) -> lsp.ClientCapabilities: ...

    @property
    def position_encoding(self) -> Any: ...

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        """A detail for the editor's log (and stderr)."""

    def show(self, message: str, kind: lsp.MessageType) -> None:
        """Something the user must see."""

    async def apply_edit(self, params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult: ...

    async def create_progress(self, token: str) -> None: ...

    def report_progress(self, token: str, value: lsp.WorkDoneProgressBegin | lsp.WorkDoneProgressReport
                        | lsp.WorkDoneProgressEnd) -> None: ...

    def spawn(self, coroutine) -> None:
        """Run a coroutine on the server's loop, keeping it referenced until it ends."""


@dataclass
class Model:
    """The model, once loaded: the engine, or why it could not be loaded; ``ready`` when either is known."""

    engine: Any = None
    load_error: str | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class RunningEdits:
    """The cancel flags of the edits under way, by every road a cancel can come."""

    holder: threading.Event | None = None  # the edit whose model runs (one at a time)
    by_request: dict[Any, threading.Event] = field(default_factory=dict)  # JSON-RPC id -> flag
    by_progress: dict[str, threading.Event] = field(default_factory=dict)  # progress token -> flag
    background: set[threading.Event] = field(default_factory=set)  # edits whose command was answered at once

    def cancel_all(self) -> None:
        for cancel in [*self.by_request.values(), *self.by_progress.values(), *self.background]:
            cancel.set()


@dataclass
class Session:
    options: Options
    editor: Editor
    documents: Documents = field(default_factory=Documents)
    model: Model = field(default_factory=Model)
    edits: RunningEdits = field(default_factory=RunningEdits)
    viewed_lines: dict[str, int] = field(default_factory=dict)  # uri -> the line of the user's last selection
    last_seen: dict[str, float] = field(default_factory=dict)  # uri -> when the user last opened, changed, selected
    warm_timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)
    cache_jobs: CacheJobs | None = None  # warms and forgets, one at a time; made by the server

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the editor: utf-16, utf-8 or utf-32."""
        return encoding_name(self.editor.position_encoding)


__all__ = ["Editor", "Model", "RunningEdits", "Session"]
