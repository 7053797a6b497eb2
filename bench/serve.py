"""serve: what an editor user waits for, from ``workspace/executeCommand`` to ``workspace/applyEdit``.

The real server runs as a subprocess over stdio (``cad-lsp serve``) and a
pygls client plays the editor: it opens a document of real code, sends
``cad.editSelection`` and stops the clock when the server's
``workspace/applyEdit`` arrives.  Two document sizes (50 and 2,000 lines by
default), two cache states:

- **cold**: the document was just opened under a new URI, so the request
  pays for the prefill of the whole document-first prompt;
- **warm**: the same document again; its prompt prefix is already in the
  KV cache (as it is after the server's background warm), so the request
  pays only for the instruction and the program.

Random weights write arbitrary programs (often an unfinished ``<gen>``), so
the server's model is teacher-forced through one fixed program (copy, a
generated comment line, copy) by the same decode loop it uses for its own
choices: every request does the same work after the prompt, and the
difference between rows is the prompt and its cache.  The client does not
apply the edit, so each request sees the same text.

After the warm edits, a **warm apply** (``cad.applyUpdate``) of an update of
the same lines (one rewritten, one added), teacher-forced through the
update's merge, on every document size.

Then what an editor does all the time, on the longest document:

- **a line inserted near the top**, and the edit right after it (the
  window shown is found again by its text: its prompt is unchanged);
- **a line inserted inside the window**, 20 lines above the selection, and
  the edit right after it (the window's tokens after that line are read
  again);
- **edits alternating between two places** far apart (the first and last
  tenth of the file), each place keeping its own cache;
- **typing**: 100 one-character changes over 20 s in the selection's middle
  (pauses drawn at random, seeded), with the server's CPU-seconds counted
  during the session and until it is idle again, for today's warming and for
  the previous one (2,048-token turns, a warm of changed text runs to its end)
  in a second server, side by side.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from cad_lsp.lsp import model_work
from cad_lsp.lsp.requests import EDIT_COMMAND

from .runner import median, progress, table

FULL_SIZES = [50, 2000]
QUICK_SIZES = [20, 200]
SELECTION = 8  # lines selected, in the middle of the document
INSERTED_AT = 3  # the line inserted near the top goes before this line
INSIDE_ABOVE = 20  # ... and one inside the window, this many lines above the selection
ALTERNATIONS = 6  # edits alternating between two places of the longest document
TYPED = "  # noted while typing: each character is one change"
TYPING_CHANGES, TYPING_S = 100, 20.0
QUICK_TYPING = (20, 4.0)
PREVIOUS_WARM_DELAY_S = 0.5  # the previous warming's debounce
IDLE_CAP_S = 900.0  # the longest wait for the server to go idle after typing
GEN_LINE = "    # checked: the bound includes the last element\n"
INSTRUCTION = "Add a comment that the bound was checked"


def document(lines: int) -> str:
    """``lines`` lines of real code that every Python has: the standard library's argparse."""
    import argparse

    text = Path(argparse.__file__).read_text(encoding="utf-8")
    source = text.splitlines(keepends=True)
    while len(source) < lines:
        source += source
    return "".join(source[:lines])


def selection(lines: int) -> tuple[int, int]:
    first = max(1, lines // 2 - SELECTION // 2)
    return first, min(lines, first + SELECTION - 1)


def update_snippet(text: str, first: int, last: int) -> str:
    """A chat model's update of the selected lines, as its markers show it: the first line rewritten, a line
    added after the third, the rest kept."""
    import random

    from cad_lsp.program import split_lines
    from cad_lsp.train.updates import make_update

    lines = split_lines(text)
    changed = lines[first - 1].rstrip("\n") + "  # checked\n"
    after = lines[:first - 1] + [changed] + lines[first:first + 2] + [GEN_LINE] + lines[first + 2:]
    return make_update(text, "".join(after), "markers", random.Random(0))


def planned_program(first: int, last: int):
    """Copy the first three selected lines, generate one, copy the rest."""
    from cad_lsp.program import Copy, Gen

    split = min(last, first + 2)
    ops = [Copy(first, split), Gen(GEN_LINE)]
    return ops + [Copy(split + 1, last)] if split < last else ops


# ---------------------------------------------------------------------------
# The server side: ``python -m bench.serve MODEL DTYPE THREADS`` is ``cad-lsp serve`` with a scripted model.


def previous_warming() -> None:
    """Warming as it was before warms stopped for changed text: 2,048-token turns, each run to its end, after
    half a second without a change."""
    from cad_lsp.engine import engine

    model_work.WARM_DELAY_S = PREVIOUS_WARM_DELAY_S
    engine.WARM_CHUNK = engine.PREFILL_CHUNK
    warm = engine.Engine.warm
    engine.Engine.warm = lambda self, *args, cancel=None, **kwargs: warm(self, *args, **kwargs)


def child_main(argv: list[str]) -> int:
    from .scripted import serve

    model, dtype, threads, *policy = argv
    if policy == ["previous-warming"]:
        previous_warming()
    plan = lambda document, first, last, instruction: planned_program(first, last)  # noqa: E731
    model, _, backend = model.partition("@")  # smollm2@llamacpp: a model on a backend other than auto's
    return serve(plan, ["--model", model, "--dtype", dtype, "--no-confirm", *(["--backend", backend] if backend else [])],
                 int(threads))


# ---------------------------------------------------------------------------
# The editor side


class Editor:
    """A pygls client that answers the server's requests the way an editor does."""

    def __init__(self):
        self.client = client = LanguageClient("cad-lsp-bench", "1")
        self.applied: asyncio.Future | None = None
        self.loaded = asyncio.Event()
        self.messages: list[str] = []
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}  # the documents as the server has them

        @client.feature(lsp.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: lsp.ApplyWorkspaceEditParams):
            if self.applied is not None and not self.applied.done():
                self.applied.set_result((time.perf_counter(), params.edit))
            return lsp.ApplyWorkspaceEditResult(applied=True)

        @client.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def create_progress(params):
            return None

        @client.feature(lsp.PROGRESS)
        def on_progress(params: lsp.ProgressParams):
            self.progress(params)

        @client.feature(lsp.WINDOW_LOG_MESSAGE)
        def log_message(params: lsp.LogMessageParams):
            if " loaded in " in params.message:
                self.loaded.set()
            self.messages.append(params.message)

        @client.feature(lsp.WINDOW_SHOW_MESSAGE)
        def show_message(params: lsp.ShowMessageParams):
            self.messages.append(params.message)
            if "cannot load" in params.message:
                self.loaded.set()

    def progress(self, params: lsp.ProgressParams) -> None:
        """A ``$/progress`` notification: ignored here (subclasses keep what they need)."""

    async def start(self, model: str, dtype: str, threads: int, child: str = "bench.serve", *extra: str) -> float:
        """Start the server (``python -m child``) and wait for its model; returns the load time in seconds."""
        root = Path(__file__).resolve().parent.parent
        await self.client.start_io(sys.executable, "-m", child, model, dtype, str(threads), *extra, cwd=str(root))
        caps = lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True),
                                      workspace=lsp.WorkspaceClientCapabilities(apply_edit=True))
        t0 = time.perf_counter()
        await self.client.initialize_async(lsp.InitializeParams(capabilities=caps, process_id=None, root_uri=None))
        self.client.initialized(lsp.InitializedParams())
        await self.loaded.wait()
        if not any(" loaded in " in m for m in self.messages):
            raise RuntimeError(f"the server could not load {model}: {self.messages[-1]}")
        return time.perf_counter() - t0

    def open(self, uri: str, text: str) -> None:
        self.versions[uri], self.texts[uri] = 1, text
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))

    def insert(self, uri: str, line: int, character: int, text: str) -> None:
        """Insert ``text`` at a 0-based position (ASCII lines: characters are UTF-16 units), as a typing editor
        reports it."""
        lines = self.texts[uri].splitlines(keepends=True)
        lines[line] = lines[line][:character] + text + lines[line][character:]
        self.texts[uri] = "".join(lines)
        self.versions[uri] += 1
        at = lsp.Position(line=line, character=character)
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[lsp.TextDocumentContentChangePartial(range=lsp.Range(start=at, end=at), text=text)]))

    def server_cpu_s(self) -> float:
        """The server process's CPU-seconds so far (user + system), from /proc."""
        fields = Path(f"/proc/{self.client._server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def edit(self, uri: str, first: int, last: int) -> dict:
        """One ``cad.editSelection``; seconds to the applyEdit and to the command's answer."""
        self.applied = asyncio.get_running_loop().create_future()
        whole_lines = {"start": {"line": first - 1, "character": 0}, "end": {"line": last, "character": 0}}
        argument = {"uri": uri, "version": self.versions[uri], "range": whole_lines, "instruction": INSTRUCTION}
        t0 = time.perf_counter()
        answer = await self.client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command=EDIT_COMMAND, arguments=[argument]))
        answered = time.perf_counter()
        if not self.applied.done():
            raise RuntimeError(f"no workspace/applyEdit for {uri}: {answer}; {self.messages[-3:]}")
        at, edit = self.applied.result()
        stats = (answer.get("stats") if isinstance(answer, dict) else getattr(answer, "stats", None)) or {}
        return {"apply_s": at - t0, "answer_s": answered - t0, "engine_s": stats.get("total_s"),
                "prompt_tokens": stats.get("prompt_tokens"), "cached_tokens": stats.get("cached_tokens"),
                "text_edits": sum(len(c.edits) for c in edit.document_changes or [])}

    async def apply_update(self, uri: str, update: str) -> dict:
        """One ``cad.applyUpdate``; seconds to the applyEdit, and the engine's time and forwards."""
        from cad_lsp.lsp.requests import APPLY_COMMAND

        self.applied = asyncio.get_running_loop().create_future()
        t0 = time.perf_counter()
        answer = await self.client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command=APPLY_COMMAND, arguments=[{"uri": uri, "version": self.versions[uri], "update": update}]))
        if not self.applied.done():
            raise RuntimeError(f"no workspace/applyEdit for {uri}: {answer}; {self.messages[-3:]}")
        stats = (answer.get("stats") if isinstance(answer, dict) else getattr(answer, "stats", None)) or {}
        return {"apply_s": self.applied.result()[0] - t0, "engine_s": stats.get("total_s"),
                "forwards": stats.get("forwards")}

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 30)
            self.client.exit(None)
        finally:
            await self.client.stop()


async def typing_session(editor: Editor, uri: str, line: int, seed: int, changes: int, seconds: float,
                         warm_delay: float) -> dict:
    """Type TYPED at the end of ``line`` (1-based), one change per character, with random pauses that add up
    to ``seconds``; the server's CPU-seconds during the session and until it has been idle for 2 s
    (``warm_delay``: the server's debounce, to count the pauses that let a warm start)."""
    rng = random.Random(seed)
    gaps = [rng.expovariate(1.0) for _ in range(changes)]
    gaps = [seconds * g / sum(gaps) for g in gaps]
    text = (TYPED * (1 + changes // len(TYPED)))[:changes]
    column = len(editor.texts[uri].splitlines()[line - 1])
    cpu0, t0 = editor.server_cpu_s(), time.perf_counter()
    for i, (char, gap) in enumerate(zip(text, gaps)):
        editor.insert(uri, line - 1, column + i, char)
        await asyncio.sleep(gap)
    cpu_session, session_s = editor.server_cpu_s() - cpu0, time.perf_counter() - t0
    idle_for, last = 0.0, editor.server_cpu_s()
    while idle_for < 2.0 and time.perf_counter() - t0 < IDLE_CAP_S:
        await asyncio.sleep(0.5)
        now = editor.server_cpu_s()
        idle_for = idle_for + 0.5 if now - last < 0.05 else 0.0
        last = now
    return {"changes": changes, "session_s": session_s, "cpu_session_s": cpu_session, "cpu_until_idle_s": last - cpu0,
            "idle_after_s": time.perf_counter() - t0 - session_s, "warm_delay_s": warm_delay,
            "pauses_over_warm_delay": sum(g > warm_delay for g in gaps),
            "capped": idle_for < 2.0}


async def measure(model: str, dtype: str, threads: int, sizes: list[int], repeats: int, seed: int,
                  typing_changes: int, typing_s: float) -> dict:
    editor = Editor()
    load_s = await editor.start(model, dtype, threads)
    results, typing = {}, {}
    try:
        steps = [(size, r) for size in sizes for r in range(repeats)]
        for size, r in progress(steps, "serve"):
            text = document(size)
            first, last = selection(size)
            uri = f"file:///bench/doc{size}-{r}.py"  # a new URI: nothing of it is cached
            editor.open(uri, text)
            cold = await editor.edit(uri, first, last)
            warm = [await editor.edit(uri, first, last) for _ in range(2)]
            row = results.setdefault(size, {"lines": size, "chars": len(text), "selection": [first, last],
                                            "cold": [], "warm": [], "inserted": [], "inside": [],
                                            "alternating": []})
            row["cold"].append(cold)
            row["warm"].extend(warm)
            update = update_snippet(text, first, last)
            await editor.apply_update(uri, update)  # its request read once
            row.setdefault("apply", []).extend([await editor.apply_update(uri, update) for _ in range(2)])
            if size == sizes[-1]:
                editor.insert(uri, INSERTED_AT - 1, 0, "# a line inserted near the top\n")
                row["inserted"].append(await editor.edit(uri, first + 1, last + 1))
                editor.insert(uri, first - INSIDE_ABOVE, 0, "# a line inserted inside the window\n")
                row["inside"].append(await editor.edit(uri, first + 2, last + 2))
                if r == 0:
                    places = [size // 10, size - size // 10 - SELECTION]
                    for n in range(ALTERNATIONS):
                        at = places[n % 2]
                        row["alternating"].append({"place": at, **await editor.edit(uri, at, at + SELECTION - 1)})
                if r == repeats - 1:
                    typing["today"] = await typing_session(editor, uri, (first + last) // 2 + 1, seed, typing_changes,
                                                           typing_s, model_work.WARM_DELAY_S)
    finally:
        await editor.stop()
    if sizes:  # the previous warming, in a second server: the same document, warmed, the same session
        previous = Editor()
        await previous.start(model, dtype, threads, "bench.serve", "previous-warming")
        try:
            size = sizes[-1]
            text, (first, last) = document(size), selection(size)
            uri = f"file:///bench/typing{size}.py"
            previous.open(uri, text)
            await previous.edit(uri, first, last)  # warm
            typing["previous"] = await typing_session(previous, uri, (first + last) // 2, seed, typing_changes,
                                                        typing_s, PREVIOUS_WARM_DELAY_S)
        finally:
            await previous.stop()
    return {"load_s": load_s, "sizes": list(results.values()), "typing": typing,
            "typing_lines": sizes[-1] if sizes else None}


DEFAULT_MODELS = ["smollm2", "random:qwen2.5-0.5b"]  # the embedded model, and the paper's smallest shape


def run(args) -> dict:
    """Every model of ``--model`` (comma-separated; default DEFAULT_MODELS, random:tiny with --quick), one after
    the other in this run."""
    models = args.model.split(",") if args.model else (["random:tiny"] if args.quick else DEFAULT_MODELS)
    dtype = args.dtype or "auto"
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    repeats = args.repeats or (1 if args.quick else 3)
    typing = (QUICK_TYPING if args.quick else (TYPING_CHANGES, TYPING_S))
    runs = [summarize(model, asyncio.run(measure(model, dtype, args.threads or 0, sizes, repeats, args.seed, *typing)))
            for model in models]
    return {"models": models, "dtype": dtype, "repeats": repeats, "program": "copy 3 lines, gen 1 line, copy 5 lines",
            "runs": runs}


def summarize(model: str, data: dict) -> dict:
    """Medians per document size and cache state, and the long/short ratios."""
    for row in data["sizes"]:
        row["prompt_tokens"] = row["cold"][0]["prompt_tokens"]
        for state in ("cold", "warm", "inserted", "inside", "apply"):
            for key in ("apply_s", "answer_s", "engine_s", "cached_tokens", "forwards"):
                values = [m[key] for m in row.get(state, []) if m.get(key) is not None]
                row[f"{state}_{key}"] = median(values) if values else None
    sizes_rows = data["sizes"]
    if len(sizes_rows) >= 2:
        short, long = sizes_rows[0], sizes_rows[-1]
        data["warm_long_over_short"] = long["warm_apply_s"] / short["warm_apply_s"]
        data["cold_long_over_short"] = long["cold_apply_s"] / short["cold_apply_s"]
    return {"model": model, **data}


def markdown(data: dict) -> str:
    runs = data.get("runs") or [data]  # one model per run before the list
    parts = [f"### {run['model']}\n\n{model_markdown(run, data)}" for run in runs]
    return "\n\n".join(parts) if len(runs) > 1 else model_markdown(runs[0], data)


def model_markdown(data: dict, common: dict) -> str:
    """One model's tables (``common``: the run's dtype, program and typing settings)."""
    def ms(x):
        return "" if x is None else f"{1e3 * x:.0f}"

    rows = [[r["lines"], r["prompt_tokens"], f"{r['selection'][0]}-{r['selection'][1]}",
             ms(r["cold_apply_s"]), ms(r["cold_engine_s"]), ms(r["warm_apply_s"]), ms(r["warm_engine_s"]),
             r["warm_cached_tokens"], f"{r['cold_apply_s'] / r['warm_apply_s']:.1f}×", len(r["cold"]), len(r["warm"])]
            for r in data["sizes"]]
    out = [f"`cad-lsp serve --model {data['model']} --dtype {common['dtype']}` as a subprocess over stdio; a pygls "
           f"client times `workspace/executeCommand` (`cad.editSelection`) → `workspace/applyEdit`. The model is "
           f"teacher-forced through one fixed program ({common['program']}) so every request does the same work after "
           f"the prompt. Cold: the document was just opened (new URI), the whole prompt is prefilled. Warm: the same "
           f"document again, its prompt prefix already cached. Model load: {data['load_s']:.1f} s. Medians.",
           "",
           table(["document lines", "prompt tokens", "selection", "cold (ms)", "cold, in the engine (ms)",
                  "warm (ms)", "warm, in the engine (ms)", "warm: tokens cached", "cold / warm", "cold runs",
                  "warm runs"], rows),
           "",
           "\"in the engine\" is the engine's own time for the request (prefill, decode, splices); the rest of "
           "each figure is the protocol, the event loop and the worker thread."]
    applies = [r for r in data["sizes"] if r.get("apply_apply_s") is not None]
    if applies:
        out += ["", "A warm apply (`cad.applyUpdate`) of an update of the same lines (the first line rewritten, a "
                    "line added, with markers; teacher-forced through the update's merge; forwards are those the "
                    "grammar leaves to the model), to applyEdit: " + "; ".join(
                        f"{r['lines']} lines **{ms(r['apply_apply_s'])} ms** ({ms(r['apply_engine_s'])} ms in the "
                        f"engine, {r['apply_forwards']:.0f} forwards)" for r in applies) + f"; {len(applies[0]['apply'])} "
                    "runs each."]
    if "warm_long_over_short" in data:
        short, long = data["sizes"][0]["lines"], data["sizes"][-1]["lines"]
        out += ["", f"{long} lines vs {short} lines: **warm {data['warm_long_over_short']:.2f}×**, "
                    f"cold {data['cold_long_over_short']:.1f}×."]
    long = data["sizes"][-1] if data["sizes"] else {}
    if long.get("inserted_apply_s") is not None:
        out += ["", f"A line inserted before line {INSERTED_AT} of the {long['lines']}-line document, then the same "
                    f"edit at once: **{ms(long['inserted_apply_s'])} ms** ({ms(long['inserted_engine_s'])} ms in the "
                    f"engine; {long['inserted_cached_tokens']:,.0f} of {long['prompt_tokens']:,} prompt tokens still cached), "
                    f"against {ms(long['warm_apply_s'])} ms warm and {ms(long['cold_apply_s'])} ms cold; "
                    f"{len(long['inserted'])} run(s)."]
    if long.get("inside_apply_s") is not None:
        out += ["", f"A line inserted inside the window, {INSIDE_ABOVE} lines above the selection, then the edit: "
                    f"**{ms(long['inside_apply_s'])} ms** ({ms(long['inside_engine_s'])} ms in the engine; "
                    f"{long['inside_cached_tokens']:,.0f} prompt tokens cached, the rest read again), against "
                    f"{ms(long['warm_apply_s'])} ms warm."]
    alternating = long.get("alternating") or []
    if alternating:
        rows = [[n + 1, a["place"], ms(a["apply_s"]), ms(a["engine_s"]), a["cached_tokens"], a["prompt_tokens"]]
                for n, a in enumerate(alternating)]
        later = [a["apply_s"] for a in alternating[2:]]
        out += ["", f"Edits alternating between two places of the {long['lines']}-line document (lines "
                    f"{alternating[0]['place']} and {alternating[1]['place']}), after the edits above:", "",
                table(["edit", "first line", "to applyEdit (ms)", "in the engine (ms)", "tokens cached",
                       "prompt tokens"], rows)]
        if later:
            out += ["", f"Every edit after the first two: median {ms(median(later))} ms, "
                        f"{median(later) / long['warm_apply_s']:.2f}× the warm edit."]
    typing = data.get("typing") or {}
    if typing:
        names = {"today": "warms stop when the text changes; 256-token turns",
                 "previous": "before: a warm runs to its end; 2,048-token turns"}

        def delay(t):  # runs before the debounce was recorded: half a second
            return t.get("warm_delay_s", PREVIOUS_WARM_DELAY_S)

        rows = [[names[k], f"{delay(t):g}", f"{t['session_s']:.1f}", t["pauses_over_warm_delay"],
                 f"{t['cpu_session_s']:.1f}",
                 f"{t['cpu_until_idle_s']:.1f}" + (" (capped)" if t["capped"] else ""), f"{t['idle_after_s']:.1f}"]
                for k, t in typing.items()]
        first = next(iter(typing.values()))
        out += ["", f"Typing in the warm {data['typing_lines']}-line document: {first['changes']} one-character changes "
                    f"over {first['session_s']:.0f} s in the selection's middle (random pauses, seeded; the server warms "
                    f"once changes pause for its debounce). The server's CPU-seconds from /proc, each warming in its own "
                    f"server:",
                "", table(["warming", "debounce (s)", "session (s)", "pauses over the debounce",
                           "server CPU during the session (s)",
                           "server CPU until idle (s)", "busy after the last change (s)"], rows)]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
