"""One apply, answered: checked without the model, queued on it, then a chat completion or a stream of chunks.

A streamed answer's status is decided before its first byte: it waits for
the first piece of the merged file (the lines before the change, sent as
soon as the request starts decoding), so an update the engine refuses still
gets a plain error answer.  A failure after that is an error event, and the
stream ends without ``[DONE]``.

Morph's answer is the merged file alone, with no place to say that the merge
removes file lines the update did not show: that goes in a response header,
``X-Cad-Removed-Unseen: 12-22,40`` (known before the first byte, from the
merge), and in the server's log.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive

from ..program.update import Merge, UpdateError, merge_update
from .errors import failure, not_applicable
from .model import DONE, FAILED, TEXT, ModelHolder, Outcome, Run
from .schema import ApplyRequest, chunk, completion, completion_id, event, usage_chunk

log = logging.getLogger(__name__)
UNSEEN_HEADER = "X-Cad-Removed-Unseen"


def merged(apply: ApplyRequest) -> tuple[Merge | None, str | None]:
    """The update's merge (the engine's own, without the model), or why it has none: (merge, None) or
    (None, why)."""
    if not apply.update.strip():
        return None, "the update is empty"
    try:
        return merge_update(apply.code, apply.update, apply.language, force=apply.force), None
    except UpdateError as exc:
        return None, str(exc)


def unseen_header(merge: Merge) -> dict[str, str]:
    """The header naming the file lines the merge removes that the update did not show (``12-22,40``), or none."""
    if not merge.unseen:
        return {}
    return {UNSEEN_HEADER: ",".join(str(a) if a == b else f"{a}-{b}" for a, b in merge.unseen)}


async def _client_gone(receive: Receive) -> None:
    """Return when the client disconnects (the body has been read: nothing else arrives before that)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def answer(request: Request, holder: ModelHolder, apply: ApplyRequest) -> Response:
    merge, problem = await run_in_threadpool(merged, apply)
    if problem is not None:
        raise not_applicable(problem)
    headers = unseen_header(merge)
    if headers:
        log.warning("%s", merge.unseen_note())
    run = holder.submit(apply)
    watcher = asyncio.create_task(_client_gone(request.receive))
    watcher.add_done_callback(lambda task: task.cancelled() or run.abandon())
    try:
        first = await run.next()
    finally:
        watcher.cancel()
    model = apply.model or holder.name
    kind, value = first
    if kind == FAILED:
        return failure(value, holder.remote).response()
    if not apply.stream:
        return JSONResponse(_completion(value, model), headers=headers)
    return StreamingResponse(_chunks(run, first, model, holder.remote), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", **headers})


def _finish_reason(outcome: Outcome) -> str:
    """"length" when max_tokens cut the program short: the text is then only what was decided before the cut."""
    return "stop" if outcome.complete else "length"


def _completion(outcome: Outcome, model: str) -> dict:
    _log_outcome(outcome)
    return completion(completion_id(), model, outcome.text, _finish_reason(outcome), outcome.stats)


async def _chunks(run: Run, first: tuple[str, object], model: str, remote: bool):
    """The stream: the role, the merged file's pieces as they come (joined when several are waiting), the
    finish reason, the usage if asked, [DONE]; an error event instead of the end when the apply fails."""
    ident = completion_id()
    try:
        yield event(chunk(ident, model, {"role": "assistant", "content": ""}))
        kind, value = first
        while kind == TEXT:
            pieces = [value]
            report = run.ready()
            while report is not None and report[0] == TEXT:
                pieces.append(report[1])
                report = run.ready()
            yield event(chunk(ident, model, {"content": "".join(pieces)}))
            kind, value = report if report is not None else await run.next()
        if kind == DONE:
            _log_outcome(value)
            yield event(chunk(ident, model, {}, _finish_reason(value)))
            if run.request.include_usage:
                yield event(usage_chunk(ident, model, value.stats))
            yield event("[DONE]")
        else:
            yield event(failure(value, remote).body())
    finally:
        run.abandon()  # the client left mid-stream (or it ended: then this changes nothing)


def _log_outcome(outcome: Outcome) -> None:
    s, r = outcome.stats, outcome.result
    log.info("applied: lines %d-%d, %s, %d program tokens in %d forwards, prompt %d tokens (%d cached), %.2f s",
             r.first_line, r.last_line, "complete" if outcome.complete else "cut short by max_tokens",
             s.sampled_tokens + s.forced_tokens, s.forwards, s.prompt_tokens, s.cached_tokens, s.total_s)
