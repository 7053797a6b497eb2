"""cancel: how long an editor waits for the answer after it cancels a running edit.

The real server runs as a subprocess (``cad-lsp serve`` with a scripted
model, as in ``bench serve``) and a pygls client cancels its
``cad.editSelection`` in the two places an edit spends its time:

- **decoding**: the program's long ``<gen>`` is being written, one forward
  per token;
- **a cold prefill**: a long document was just opened and its prompt is being
  read into the cache, PREFILL_CHUNK tokens per forward.

Each is cancelled both ways an editor can: ``$/cancelRequest`` (the request)
and ``window/workDoneProgress/cancel`` (the progress bar's button), at a
random moment within a forward, and timed to the command's answer.  The
yardstick is measured in the same run: one decode step (from an uncancelled
edit's stats) and one prefill chunk (from the request to the first "reading
the document" report).  The goal is an answer within one of each.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time

from lsprotocol import types as lsp

from cad_lsp.lsp.server import EDIT_COMMAND

from .runner import median, model_name, table
from .serve import Editor, document, selection

MECHANISMS = ["$/cancelRequest", "window/workDoneProgress/cancel"]
SHORT_WORD = "reference"  # an instruction with it decodes one short line: the decode step's yardstick


def cancel_plan(text: str, first: int, last: int, instruction: str):
    """Copy the first selected line, then a <gen> long enough to be cancelled (or one short line)."""
    from cad_lsp.program import Copy, Gen, split_lines

    selected = "".join(split_lines(text)[first - 1:last])
    body = "    # checked\n" if SHORT_WORD in instruction else "".join(f"# {line}" for line in selected.splitlines(True)) * 4
    return [Copy(first, first), Gen(body)]


def child_main(argv: list[str]) -> int:
    from .scripted import serve

    model, dtype, threads = argv
    return serve(cancel_plan, ["--model", model, "--dtype", dtype, "--no-confirm"], int(threads))


class CancellingEditor(Editor):
    """The bench editor, with the progress reports kept: they say which phase an edit is in."""

    def __init__(self):
        super().__init__()
        self.reports: list[tuple[float, str, str]] = []  # (time, token, message)
        self.ended: dict[str, float] = {}  # progress token -> when its end arrived

    def progress(self, params: lsp.ProgressParams) -> None:
        value = params.value
        get = value.get if isinstance(value, dict) else lambda key: getattr(value, key, None)
        self.reports.append((time.perf_counter(), str(params.token), get("message") or ""))
        if get("kind") == "end":
            self.ended[str(params.token)] = time.perf_counter()

    async def wait_for(self, predicate, since: int, timeout: float = 600.0) -> tuple[float, str, str]:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for report in self.reports[since:]:
                if predicate(report[2]):
                    return report
            await asyncio.sleep(0.01)
        raise RuntimeError(f"no progress report matched in {timeout:.0f} s: {self.reports[-3:]}")

    def send_edit(self, uri: str, first: int, last: int, instruction: str, msg_id: str) -> asyncio.Future:
        rng = {"start": {"line": first - 1, "character": 0}, "end": {"line": last, "character": 0}}
        params = lsp.ExecuteCommandParams(command=EDIT_COMMAND, arguments=[
            {"uri": uri, "version": 1, "range": rng, "instruction": instruction}])
        return asyncio.ensure_future(self.client.protocol.send_request_async(
            lsp.WORKSPACE_EXECUTE_COMMAND, params, msg_id=msg_id))

    def cancel(self, mechanism: str, msg_id: str, token: str) -> None:
        if mechanism == "$/cancelRequest":
            self.client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))
        else:
            self.client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))


def answer_message(answer) -> str:
    return answer.get("message", "") if isinstance(answer, dict) else str(answer)


async def cancel_once(editor: CancellingEditor, mechanism: str, phase: str, size: int, index: int,
                      rnd: random.Random, step_s: float) -> dict:
    """Start an edit, cancel it at a random moment within a forward of ``phase``; seconds to the answer."""
    text = document(size)
    first, last = selection(size)
    uri = f"file:///bench/cancel-{phase}-{index}.py"  # a new URI: its prefill is cold
    editor.open(uri, text)
    since = len(editor.reports)
    msg_id = f"cancel-{phase}-{index}"
    sent = time.perf_counter()
    running = editor.send_edit(uri, first, last, "Explain each line", msg_id)
    chunk_s = None
    if phase == "prefill":  # the first chunk's report: its time from the request is the yardstick, the cancel
        # lands inside the second chunk (progress reports are coalesced, so a later chunk's report may not come)
        t1, token, _ = await editor.wait_for(lambda m: m.startswith("reading the document"), since)
        chunk_s = t1 - sent
        await asyncio.sleep(rnd.uniform(0, chunk_s))
    else:
        _, token, _ = await editor.wait_for(lambda m: "tokens generated" in m, since)
        await asyncio.sleep(rnd.uniform(0, step_s))
    if running.done():
        raise RuntimeError(f"the {phase} edit ended before it was cancelled: {running.result()}; "
                           f"{editor.messages[-6:]}")
    t0 = time.perf_counter()
    editor.cancel(mechanism, msg_id, token)
    try:
        answer = answer_message(await running)
    except Exception as exc:  # noqa: BLE001 -- $/cancelRequest is answered with an error
        answer = f"{type(exc).__name__}: {exc}"
    answered = time.perf_counter()
    while token not in editor.ended:  # the progress ends when the model has stopped: the server is free again
        await asyncio.sleep(0.005)
    editor.client.text_document_did_close(lsp.DidCloseTextDocumentParams(  # no background warm of it afterwards
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    return {"mechanism": mechanism, "phase": phase, "lines": size, "latency_s": answered - t0,
            "stopped_s": editor.ended[token] - t0, "chunk_s": chunk_s, "answer": answer}


async def decode_step_s(editor: CancellingEditor, size: int) -> float:
    """One decode step on a warm document of ``size`` lines, from an uncancelled edit's stats."""
    text = document(size)
    first, last = selection(size)
    uri = "file:///bench/cancel-reference.py"
    editor.open(uri, text)
    steps = []
    for r in range(3):
        answer = await editor.send_edit(uri, first, last, f"{SHORT_WORD} {r}", f"reference-{r}")
        stats = answer["stats"] if isinstance(answer, dict) else answer.stats
        steps.append(stats["decode_s"] / stats["decode_steps"])
    return median(steps)


async def measure(model: str, dtype: str, threads: int, short: int, long: int, repeats: int) -> dict:
    editor = CancellingEditor()
    load_s = await editor.start(model, dtype, threads, child="bench.cancel")
    rnd = random.Random(0)
    rows = []
    try:
        step_s = await decode_step_s(editor, short)
        index = 0
        for mechanism in MECHANISMS:
            for phase, size in (("decoding", short), ("prefill", long)):
                for _ in range(repeats):
                    rows.append(await cancel_once(editor, mechanism, phase, size, index, rnd, step_s))
                    index += 1
                    print(f"bench cancel: {rows[-1]}", file=sys.stderr)
    finally:
        await editor.stop()
    return {"load_s": load_s, "decode_step_s": step_s, "cancels": rows}


def run(args) -> dict:
    name = model_name(args)
    dtype = args.dtype or "auto"
    short, long = (20, 400) if args.quick else (50, 2000)
    repeats = args.repeats or (1 if args.quick else 3)
    data = asyncio.run(measure(name, dtype, args.threads or 0, short, long, repeats))
    chunks = [c["chunk_s"] for c in data["cancels"] if c["chunk_s"]]
    data["prefill_chunk_s"] = median(chunks) if chunks else None
    for c in data["cancels"]:
        unit = data["decode_step_s"] if c["phase"] == "decoding" else data["prefill_chunk_s"]
        c["in_units"] = c["stopped_s"] / unit
    return {"model": name, "dtype": dtype, "repeats": repeats, "lines": [short, long], **data}


def markdown(data: dict) -> str:
    rows = []
    for mechanism in MECHANISMS:
        for phase, unit_name in (("decoding", "decode steps"), ("prefill", "prefill chunks")):
            runs = [c for c in data["cancels"] if c["mechanism"] == mechanism and c["phase"] == phase]
            if not runs:
                continue
            latencies = [c["latency_s"] for c in runs]
            stopped = [c["stopped_s"] for c in runs]
            units = [c["in_units"] for c in runs]
            rows.append([f"`{mechanism}`", f"{phase} ({runs[0]['lines']} lines)", len(runs),
                         f"{1e3 * median(latencies):.0f} / {1e3 * max(latencies):.0f}",
                         f"{1e3 * median(stopped):.0f} / {1e3 * max(stopped):.0f}",
                         f"{median(units):.2f} / {max(units):.2f} {unit_name}", runs[0]["answer"]])
    chunk = data.get("prefill_chunk_s")
    return "\n".join([
        f"`cad-lsp serve --model {data['model']} --dtype {data['dtype']}` as a subprocess over stdio; a pygls client "
        f"cancels a running `cad.editSelection` at a random moment within a forward and times the command's answer. "
        f"Yardsticks measured in the same run: one decode step **{1e3 * data['decode_step_s']:.0f} ms**, one prefill "
        f"chunk **{'' if chunk is None else f'{1e3 * chunk:.0f} ms'}** (2,048 tokens). Model load: "
        f"{data['load_s']:.1f} s.",
        "",
        table(["cancelled by", "during", "runs", "answered (ms): median / max", "model stopped (ms): median / max",
               "stopped, in forwards: median / max", "the answer"], rows),
        "",
        "*Answered*: the command's response. *Model stopped*: the edit's progress ended, the model is free and a "
        "new edit starts at once (one sent meanwhile waits for this moment instead of being refused). The engine "
        "checks for a cancel before every forward, so it stops at the end of the forward that is running: at most "
        "one forward (one prefill chunk) is the goal. `$/cancelRequest` is answered at once (pygls answers the "
        "request as cancelled); the progress bar's cancel is answered when the model has stopped.",
    ])


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
