"""apply: merging a chat model's update snippet into a file, with the embedded model, on held-out code.

Quality: exact match of the merged file, per update style (``cad_lsp/train/updates.py``: markers, function,
bare, whole), on cases nobody trained on: the corpora's test split (commits on their whole file; HumanEvalFix
Python and JavaScript, QuixBugs, EditEval on their function) and synthetic edits of standard-library modules
kept for testing (``families.TEST_MODULES``).  Beside it, on the same cases: the deterministic merge alone
(``program.update``), and the same model writing the whole merged file as FastApply does (greedy, the files
of at most ``REWRITE_LINES`` lines: it decodes every token of the file).

Speed: a ~10-line update into the first 500 and 2,000 lines of a held-out module, the embedded model on this
CPU: warm (the file's prompt cached) and cold, through the engine and through ``cad-lsp apply`` (its
background process); forwards with the update's program drafted and without (the same program, asserted);
and the same model writing the merged file, timed token by token on the same warm prompt.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .runner import median, pct, progress, table
from .serve import Editor

STYLES = ("markers", "function", "bare", "whole")
HELD_OUT_MODULES_PER = 2  # synthetic edits per held-out module
REWRITE_LINES = 60  # the whole-file rewrite baseline runs on files of at most this many lines
REWRITE_CASES = 24  # ... and on at most this many cases
SPEED_MODULE = "argparse"  # held out (families.TEST_MODULES); 2,600 lines
REWRITE_TIMED_TOKENS = 2048  # the rewrite of a long file is timed on its first tokens unless --limit is 0

FASTAPPLY_SYSTEM = "You are a coding assistant that merges code updates into files exactly."
FASTAPPLY_USER = ("Merge all changes from the <update> snippet into the <code> below. Keep every line the "
                  "update does not change. Output only the complete updated code in one code block.\n"
                  "<code>{code}</code>\n<update>{update}</update>")


# ---------------------------------------------------------------------------
# Cases


def quality_cases(args) -> list[tuple[str, object]]:
    """(group, ApplyCase): the corpora's test split and the held-out modules, every style."""
    from cad_lsp.train import corpora
    from cad_lsp.train.families import TEST_MODULES
    from cad_lsp.train.split import request_for, split
    from cad_lsp.train.updates import cases_for, synthetic_cases

    limit = 1 if args.quick else args.limit
    out = []
    if corpora.data_dir() is not None:
        for name in corpora.CORPORA:
            _, test = split(corpora.load(name))
            pairs = []
            for pair in test[:limit]:
                request = request_for(pair)
                before = pair.before if name == "commits" else request.document  # a commit: its whole file
                lang = "javascript" if pair.lang.lower().startswith("j") else "python"
                pairs.append((pair.id, name, lang, before, pair.after if name == "commits" else request.after,
                              pair.instruction))
            out += [(f"test split: {name}", case) for case in cases_for(pairs, args.seed)]
    modules = TEST_MODULES[:2] if args.quick else TEST_MODULES
    synthetic = synthetic_cases(modules, 1 if args.quick else HELD_OUT_MODULES_PER, args.seed + 101)
    out += [("held-out modules", case) for case in
            cases_for([(pid, "stdlib", "python", b, a, i) for pid, b, a, i in synthetic], args.seed)]
    return out


def speed_documents(lines_list=(500, 2000)) -> list[tuple[str, str, str]]:
    """(label, document, update): the first N lines of a held-out module, and a ~10-line update in its middle
    (a function rewritten: lines added and changed, shown with markers)."""
    import ast

    from cad_lsp.program import split_lines
    from cad_lsp.train.updates import make_update, module_source

    text = module_source(SPEED_MODULE)
    out = []
    for n in lines_list:
        lines = split_lines(text)[:n]
        document = "".join(lines)
        tree = ast.parse(document) if _parses(document) else None
        functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                     and 6 <= node.end_lineno - node.lineno <= 20] if tree else []
        middle = min(functions, key=lambda node: abs(node.lineno - n // 2)) if functions else None
        if middle is None:  # the cut fell inside a statement: edit around the middle line
            at, indent = n // 2, "    "
        else:
            at, indent = middle.body[0].lineno - 1, " " * middle.body[0].col_offset
        new = [f"{indent}# checked before anything else\n", f"{indent}if self is None:\n",
               f"{indent}    raise ValueError('no parser')\n"]
        edited = lines[:at] + new + lines[at:]
        edited[at + 4] = edited[at + 4].rstrip("\n") + "  # kept\n"
        after = "".join(edited)
        update = make_update(document, after, "markers", random.Random(0))
        out.append((f"{n} lines", document, update, after))
    return out


def _parses(text: str) -> bool:
    import ast

    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


# ---------------------------------------------------------------------------
# Running


def run(args) -> dict:
    import torch

    from cad_lsp.backends import open_engine
    from cad_lsp.engine.window import DEFAULT_CONTEXT_LINES

    model = args.model or ("random:tiny" if args.quick else "smollm2")
    engine = open_engine(model, args.device, args.dtype or "fp32", context_lines=DEFAULT_CONTEXT_LINES)  # as editors do
    threads = torch.get_num_threads()
    quality = run_quality(engine, args)
    speed = run_speed(engine, model, args)
    return {"model": model, "dtype": args.dtype or "fp32", "threads": threads, "adapter": _adapter(engine),
            "quality": quality, "speed": speed}


def _adapter(engine) -> str | None:
    loaded = getattr(engine.backend, "loaded", None)
    return None if loaded is None or loaded.adapter is None else Path(loaded.adapter).name


def run_quality(engine, args) -> dict:
    from cad_lsp.engine import EngineError
    from cad_lsp.program import apply_program
    from cad_lsp.program.update import UpdateError, merge_update

    rows = []
    cases = quality_cases(args)
    rewrites = 0
    for group, case in progress(cases, "apply quality"):
        row = {"group": group, "id": case.id, "style": case.style, "lines": case.document.count("\n") + 1}
        try:
            row["merge"] = merge_update(case.document, case.update, _language(group)).merged == case.after
        except UpdateError:
            row["merge"] = None  # refused: ambiguous, or no place
        t0 = time.perf_counter()
        try:
            result = engine.apply(case.document, case.update, case.instruction, key=case.id.rsplit("/", 1)[0],
                                  language=_language(group))
            merged = apply_program(result.ops, case.document, result.first_line, result.last_line)
            row.update(cad=result.complete and merged == case.after, forwards=result.stats.forwards,
                       seconds=round(time.perf_counter() - t0, 3), region=result.last_line - result.first_line + 1,
                       differs=merged != result.merge.merged)
        except EngineError:
            row["cad"] = None
        if row["lines"] <= REWRITE_LINES and rewrites < (2 if args.quick else REWRITE_CASES):
            rewrites += 1
            row["rewrite"] = rewrite_exact(engine, case, args)
        rows.append(row)
    return {"rows": rows, "summary": summarize(rows)}


def _language(group: str) -> str:
    """The language of a quality case's file, by its corpus (the JavaScript half of HumanEvalFix, else Python)."""
    return "javascript" if group.endswith("-js") else "python"


def rewrite_exact(engine, case, args) -> bool:
    """The same model writing the whole merged file (FastApply's way), greedy: exactly the gold file?"""
    from .quality import chat_ids, greedy_text, parse_rewrite, rewrite_done

    ids = chat_ids(engine.tokenizer, FASTAPPLY_SYSTEM, FASTAPPLY_USER.format(code=case.document, update=case.update))
    budget = len(engine.tokenizer.encode(case.after, add_special_tokens=False)) + 32
    text, _ = greedy_text(engine.backend, engine.tokenizer, ids, budget, done=rewrite_done)
    answer = parse_rewrite(text)
    answer = text if answer is None else answer
    return answer.strip("\n") == case.after.strip("\n")


def summarize(rows: list[dict]) -> dict:
    """Exact-match counts per (group, style) and overall, for each method."""
    out: dict = {}
    for row in rows:
        for key in [(row["group"], row["style"]), (row["group"], "all"), ("all", row["style"]), ("all", "all")]:
            cell = out.setdefault(" / ".join(key), {"n": 0, "cad": 0, "merge": 0, "refused": 0, "rewrite_n": 0,
                                                   "rewrite": 0, "forwards": [], "choices": 0, "differs": 0,
                                                   "differs_right": 0})
            cell["n"] += 1
            cell["cad"] += bool(row.get("cad"))
            cell["merge"] += bool(row.get("merge"))
            cell["refused"] += row.get("cad") is None
            if "rewrite" in row:
                cell["rewrite_n"] += 1
                cell["rewrite"] += bool(row["rewrite"])
            if "forwards" in row:
                cell["forwards"].append(row["forwards"])
                cell["choices"] += row.get("choice", False)
                cell["differs"] += row["differs"]
                cell["differs_right"] += row["differs"] and row["cad"]
    for cell in out.values():
        cell["forwards_median"] = median(cell.pop("forwards")) if cell.get("forwards") else None
    return out


def run_speed(engine, model: str, args) -> dict:
    from cad_lsp.program import apply_program

    repeats = args.repeats or (2 if args.quick else 5)
    rows = []
    documents = speed_documents((120, 240) if args.quick else (500, 2000))
    for label, document, update, after in documents:
        key = f"speed-{label}"
        engine.forget(key)
        cold = engine.apply(document, update, key=key)
        merged = apply_program(cold.ops, document, cold.first_line, cold.last_line)
        warm = [engine.apply(document, update, key=key) for _ in range(repeats)]
        plain = engine.apply(document, update, key=key, speculate=False)
        assert plain.program == warm[0].program, "drafting changed the program"
        merged_tokens = len(engine.tokenizer.encode(merged, add_special_tokens=False))
        warm_s = median([r.stats.total_s for r in warm])
        rewrite = time_rewrite(engine, document, merged, key, 0 if args.quick else REWRITE_TIMED_TOKENS,
                               cold.first_line, cold.last_line)
        rows.append({"document": label, "lines": document.count("\n"), "exact": merged == after,
                     "region_lines": cold.last_line - cold.first_line + 1, "merged_tokens": merged_tokens,
                     "cold_s": round(cold.stats.total_s, 3), "warm_s": round(warm_s, 3),
                     "warm_prefill_tokens": warm[0].stats.prefill_tokens, "cold_prefill_tokens":
                     cold.stats.prefill_tokens, "forwards": warm[0].stats.forwards, "forwards_plain": plain.stats.forwards,
                     "plain_s": round(plain.stats.total_s, 3),
                     "accepted": warm[0].stats.accepted_tokens, "drafted": warm[0].stats.drafted_tokens,
                     "rewrite": rewrite, "merged_tokens_per_s": round(merged_tokens / warm_s, 1),
                     "cli": time_cli(document, update, model, args, repeats)})
    if not args.quick and args.device == "cpu":
        interfaces = asyncio.run(time_interfaces(documents, model, args, repeats))
        for row, lsp_s, http in zip(rows, interfaces["lsp"], interfaces["http"]):
            row["lsp"], row["http"] = lsp_s, http
    return {"rows": rows, "repeats": repeats}


# ---------------------------------------------------------------------------
# The same apply through the editor's command and the HTTP endpoint


def child_main(argv: list[str]) -> int:
    """``python -m bench.apply MODEL DTYPE THREADS``: the real language server on that model (no scripting)."""
    import torch

    from cad_lsp.cli import main

    model, dtype, threads = argv
    if int(threads):
        torch.set_num_threads(int(threads))
    return main(["serve", "--model", model, "--dtype", dtype, "--no-confirm"])


async def time_interfaces(documents, model: str, args, repeats: int) -> dict:
    """cad.applyUpdate (a real ``cad-lsp serve``: request to workspace/applyEdit, the file opened and warmed
    first as an editor does) and the HTTP endpoint (a real ``cad-lsp http``, the official openai client: the
    round trip, and the first streamed chunk), warm medians."""
    dtype = args.dtype or "fp32"
    lsp_rows = []
    editor = Editor()
    await editor.start(model, dtype, args.threads or 0, "bench.apply")
    try:
        for label, document, update, _ in documents:
            uri = f"file:///bench/apply-{label.split()[0]}.py"
            editor.open(uri, document)
            await editor.apply_update(uri, update)  # the first: the prompt read (the warm may still be on)
            lsp_rows.append(round(median([(await editor.apply_update(uri, update))["apply_s"]
                                          for _ in range(repeats)]), 3))
    finally:
        await editor.stop()
    return {"lsp": lsp_rows, "http": await asyncio.to_thread(time_http, documents, model, dtype, repeats)}


def time_http(documents, model: str, dtype: str, repeats: int) -> list[dict]:
    import socket

    from openai import OpenAI

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "cad_lsp", "http", "--model", model, "--dtype", dtype,
                               "--port", str(port), "--log-level", "warning"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0, timeout=600)
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                client.models.list()
                break
            except Exception:  # noqa: BLE001 -- still starting
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"cad-lsp http did not start: {server.stderr.read()[-500:]}") from None
                time.sleep(0.5)
        rows = []
        for _, document, update, after in documents:
            message = [{"role": "user", "content": f"<code>{document}</code>\n<update>{update}</update>"}]
            first = client.chat.completions.create(model="morph-v3-fast", messages=message)  # reads the prompt
            trips, firsts, exact = [], [], first.choices[0].message.content == after
            for _ in range(repeats):
                t0 = time.perf_counter()
                answer = client.chat.completions.create(model="morph-v3-fast", messages=message)
                trips.append(time.perf_counter() - t0)
                exact = exact and answer.choices[0].message.content == after
                t0 = time.perf_counter()
                stream = client.chat.completions.create(model="morph-v3-fast", messages=message, stream=True)
                text, first_chunk = [], None
                for chunk in stream:
                    piece = chunk.choices[0].delta.content if chunk.choices else None
                    if piece and first_chunk is None:
                        first_chunk = time.perf_counter() - t0
                    text.append(piece or "")
                firsts.append(first_chunk)
                exact = exact and "".join(text) == after
            rows.append({"round_trip_s": round(median(trips), 3), "first_chunk_s": round(median(firsts), 3),
                         "exact": exact})
        return rows
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))


def time_rewrite(engine, document: str, merged: str, key: str, timed_tokens: int, first: int, last: int) -> dict:
    """The same model writing the merged file on the same warm prompt (the apply's: its window and region
    ``first..last``; a long file's whole does not fit the model's context), one decode step a token: all of it,
    or its first ``timed_tokens`` tokens (then the whole is that rate times its tokens, and says so)."""
    from cad_lsp.engine import autoregressive

    ids = engine.tokenizer.encode(merged, add_special_tokens=False)
    measured = ids if not timed_tokens or len(ids) <= timed_tokens else ids[:timed_tokens]

    def decode(backend, state, _ids):
        return autoregressive(backend, state, measured)

    forwards, seconds = engine.rewrite_baseline(document, first, last, merged, key=key, decode=decode)
    whole = seconds * len(ids) / max(1, len(measured))
    return {"tokens": len(ids), "timed_tokens": len(measured), "timed_s": round(seconds, 2),
            "seconds": round(whole, 1), "measured_whole": len(measured) == len(ids)}


def time_cli(document: str, update: str, model: str, args, repeats: int) -> dict | None:
    """``cad-lsp apply`` as a user runs it, its background process kept warm: the first run (starting the
    process, loading the model, reading the file) and the median of the next ones, whole runs."""
    if args.device != "cpu" or args.quick:
        return None
    folder = Path(tempfile.mkdtemp(prefix="cad-apply-"))
    path, source = folder / "module.py", folder / "update.txt"
    path.write_text(document, encoding="utf-8")
    source.write_text(update, encoding="utf-8")
    runtime = Path(tempfile.mkdtemp(prefix="cadb"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    command = [sys.executable, "-m", "cad_lsp", "apply", str(path), "--update", str(source), "--model", model,
               "--dtype", args.dtype or "fp32", "--keep-warm", "120", "--json"]
    times_s, exact = [], True
    for _ in range(repeats + 1):
        t0 = time.perf_counter()
        out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
        times_s.append(time.perf_counter() - t0)
        if out.returncode != 0:
            return {"error": out.stderr.strip()[-300:]}
        exact = exact and json.loads(out.stdout)["complete"]
    _stop_background(runtime)
    return {"first_s": round(times_s[0], 2), "warm_s": round(median(times_s[1:]), 3), "complete": exact}


def _stop_background(runtime: Path) -> None:
    from cad_lsp import warm

    for sock in (runtime / "cad-lsp").glob("*.sock"):
        try:
            warm._send(sock, {"stop": True})
        except warm.WorkerGone:
            pass


# ---------------------------------------------------------------------------
# Tables


def markdown(data: dict) -> str:
    q, s = data["quality"]["summary"], data["speed"]
    groups = sorted({key.split(" / ")[0] for key in q} - {"all"}, key=lambda g: (g != "held-out modules", g))
    rows = []
    for group in groups + ["all"]:
        for style in list(STYLES) + ["all"]:
            cell = q.get(f"{group} / {style}")
            if not cell:
                continue
            rows.append([f"**{group}**" if style == "all" else group, style, cell["n"],
                         f"{cell['cad']} ({pct(cell['cad'] / cell['n'])})",
                         f"{cell['merge']} ({pct(cell['merge'] / cell['n'])})", cell["refused"],
                         f"{cell['rewrite']}/{cell['rewrite_n']}" if cell["rewrite_n"] else "",
                         f"{cell['choices']} / {cell['differs']} ({cell['differs_right']})",
                         cell["forwards_median"]])
    quality = table(["cases", "style", "n", "cad-lsp apply (exact)", "deterministic merge (exact)",
                     "refused (no place)", f"model rewrites the file (exact, files ≤ {REWRITE_LINES} lines)",
                     "model's call: cases / merged otherwise (exact)", "forwards (median)"], rows)
    ran = [r for r in data["quality"]["rows"] if "forwards" in r]
    called = [r for r in ran if r["forwards"]]
    calls = (f"{len(ran) - len(called)} of the {len(ran)} applies were decided by the grammar alone: no forward, "
             f"median {median([r['seconds'] for r in ran if not r['forwards']] or [0]):.3f} s; {len(called)} left "
             f"the model a call: median {median([r['forwards'] for r in called] or [0])} forwards, "
             f"{median([r['seconds'] for r in called] or [0]):.2f} s (each edit's first style reads its file cold).")
    speed_rows = []
    for r in s["rows"]:
        rw = r["rewrite"]
        rewrite = f"{rw['seconds']:.1f}" + ("" if rw["measured_whole"] else f" ({rw['timed_tokens']:,} of "
                                                                             f"{rw['tokens']:,} tokens timed)")
        cli, http = r.get("cli") or {}, r.get("http") or {}
        speed_rows.append([r["document"], r["region_lines"], r["merged_tokens"], f"{r['warm_s']:.2f}",
                           f"{r['cold_s']:.1f}", cli.get("warm_s", ""), cli.get("first_s", ""), r.get("lsp", ""),
                           http.get("round_trip_s", ""), http.get("first_chunk_s", ""),
                           f"{r['forwards']} / {r['forwards_plain']}", rewrite,
                           f"{rw['seconds'] / r['warm_s']:.0f}×", f"{r['merged_tokens_per_s']:,.0f}"])
    speed = table(["file", "region (lines)", "merged file (tokens)", "engine, warm (s)", "engine, cold (s)",
                   "cad-lsp apply, warm (s)", "cad-lsp apply, first run (s)", "cad.applyUpdate, warm (s)",
                   "HTTP round trip, warm (s)", "HTTP first streamed chunk (s)", "forwards drafted / not",
                   "model rewrites the file (s)", "rewrite / engine warm", "merged-file tokens/s (engine warm)"],
                  speed_rows)
    return (f"Model `{data['model']}` ({data['dtype']}, adapter {data.get('adapter')}), greedy, {data['threads']} "
            f"threads. Every case is held out: the corpora's test split (one task in five, `cad_lsp/train/split.py`) "
            f"and synthetic edits of modules kept for testing; each edit shown in four update styles "
            f"(`cad_lsp/train/updates.py`). *exact*: the merged file equals the edited file byte for byte; "
            f"*refused*: the update has no single place in the file (cad-lsp says so and applies nothing). "
            f"The program's grammar admits only merges of the update (copies of the lines the update keeps, "
            f"its new text where it puts it); *model's call*: the cases with a line that the update's new text "
            f"may rewrite or join (the placement guesses by likeness; the model decides), and those the model "
            f"merged otherwise than the deterministic merge (exactly right). "
            f"Morph v3-fast claims 96% and ~10,500 tokens/s on GPUs.\n\n{quality}\n\n{calls}\n\n"
            f"A ~10-line update (a check added to a function in the middle) into the first lines of "
            f"`{SPEED_MODULE}.py` (held out), an update that leaves the model no call when forwards are 0 "
            f"(then nothing is read, warm or cold). *warm*: the file's prompt cached, median of {s['repeats']}; *cold*: "
            f"the first apply on the file; *cad-lsp apply*: the whole command as a user runs it, answered by its "
            f"background process (first run: starting it and loading the model); *cad.applyUpdate*: a real `cad-lsp "
            f"serve`, from the command to its workspace/applyEdit; *HTTP*: a real `cad-lsp http` and the official "
            f"`openai` client (Morph's format), the whole answer and the first streamed piece of the merged file. "
            f"Drafted and plain runs wrote the "
            f"same program (asserted). *model rewrites the file*: the same model decoding the merged file token by "
            f"token on the same warm prompt (FastApply's way).\n\n{speed}")
