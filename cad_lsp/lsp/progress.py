"""Progress bars for the editor: loading the model and each edit, cancellable from the client."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from typing import Callable

from lsprotocol import types as lsp

from .requests import supports_progress
from .session import Editor

REPORT_INTERVAL_S = 0.25  # at most this often, a progress report during decoding


def progress_message(stats) -> str:
    if stats.forwards == 0 and stats.prefill_tokens:  # still reading the document into the cache
        return f"reading the document: {stats.prefill_tokens} of {stats.prompt_tokens - stats.cached_tokens} tokens"
    return f"{stats.sampled_tokens + stats.forced_tokens} tokens generated, {stats.spliced_tokens} copied"


class Progress:
    """Server-initiated work-done progress, silent when the client does not support it.

    A cancel from the client sets ``cancel``: the bar registers it in
    ``cancels`` (progress token -> flag) while it is shown.
    """

    def __init__(self, editor: Editor, title: str, cancel: threading.Event | None = None,
                 cancels: dict[str, threading.Event] | None = None):
        self.editor, self.title, self.cancel = editor, title, cancel
        self.cancels = {} if cancels is None else cancels
        self.token: str | None = None
        self.last_report = 0.0

    async def begin(self, message: str) -> None:
        if not supports_progress(self.editor.capabilities):
            return
        token = f"cad-lsp/{uuid.uuid4()}"
        try:
            await self.editor.create_progress(token)
        except Exception as exc:  # noqa: BLE001 -- progress is optional
            self.editor.log(f"no progress bar: {exc}", lsp.MessageType.Warning)
            return
        self.token = token
        if self.cancel is not None:
            self.cancels[token] = self.cancel
        self.editor.report_progress(token, lsp.WorkDoneProgressBegin(title=self.title, message=message,
                                                               cancellable=self.cancel is not None))

    def report(self, message: str) -> None:
        if self.token is not None:
            self.editor.report_progress(self.token, lsp.WorkDoneProgressReport(message=message))

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
        self.editor.report_progress(self.token, lsp.WorkDoneProgressEnd(message=message))
        self.cancels.pop(self.token, None)
        self.token = None
