"""vllm: Copy-as-Decode on a vLLM server, against the same server decoding.

The server is the one ``CAD_LSP_VLLM_URL`` names, started with the flags of
``.ci/vllm.sh`` (prefix caching, 32-token blocks, llguidance structured
outputs); for timings leave out its ``--enforce-eager``.

- **continuation**: a request whose prompt is a warm prefix plus N new tokens
  and that generates one token (how a copy is spliced), vs a request that
  decodes N tokens after the same prefix (what writing them costs).  Every
  repeat appends new tokens, so the cache holds the prefix, never the N tokens.
- **e2e**: HumanEvalFix oracle programs teacher-forced through ``VLLMEngine``
  (a literal grammar: the server decodes the tags and gen text, copies are
  continuations) vs a plain rewrite on the same prompt that decodes as many
  tokens as the gold output has, with 1 and 4 edits at once.  Whole-edit
  wall-clock after the document was warmed; each run tags its instruction so
  no run finds another's program in the cache.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .runner import NO_CORPUS, corpus_pairs, median, pyplot, save_figure, table, times

NS = [8, 16, 32, 64, 128, 256]
QUICK_NS = [8, 64]
CONTEXT = 512
CORPORA = ("humanevalfix-py", "humanevalfix-js")
CONCURRENCY = (1, 4)
NO_SERVER = "no vLLM server (set CAD_LSP_VLLM_URL; .ci/vllm.sh shows how to start one)"


def completion(client, model: str, prompt: list[int], tokens: int) -> tuple[float, dict]:
    """Seconds for one request that decodes exactly ``tokens`` tokens, and its usage."""
    body = {"model": model, "prompt": prompt, "max_tokens": tokens, "min_tokens": tokens, "ignore_eos": True,
            "temperature": 0.0}
    t0 = time.perf_counter()
    reply = client.post("/v1/completions", body)
    return time.perf_counter() - t0, reply.get("usage") or {}


def continuation_curve(engine, ns: list[int], repeats: int) -> dict:
    """Median seconds of an N-token continuation and of N decoded tokens, after a warm prefix."""
    from .kernel import code_ids

    tag = engine.tokenizer.encode(f"# {uuid.uuid4()}\n", add_special_tokens=False)  # a prefix new to the server
    ids = tag + code_ids(engine.tokenizer, CONTEXT + repeats * sum(ns))
    prefix, rest = ids[:CONTEXT], ids[CONTEXT:]
    model = engine.served_model
    cached = [completion(engine.client, model, prefix, 1)[0] for _ in range(repeats + 1)][1:]  # the first warms
    points, used = [], 0
    for n in ns:
        cont, dec, recomputed = [], [], []
        for r in range(repeats):
            chunk = rest[used : used + n]
            used += n
            for which in ("cont", "dec") if r % 2 == 0 else ("dec", "cont"):
                if which == "cont":
                    seconds, usage = completion(engine.client, model, prefix + chunk, 1)
                    cont.append(seconds)
                    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
                    recomputed.append(None if cached is None else len(prefix) + n - cached)
                else:
                    dec.append(completion(engine.client, model, prefix, n)[0])
        points.append({"n": n, "continuation_s": median(cont), "decode_s": median(dec),
                       "speedup": median(dec) / median(cont), "recomputed_max": max(recomputed, default=None)})
    return {"prefix": len(prefix), "repeats": repeats, "cached_prompt_s": median(cached), "points": points}


def rewrite(engine, pair, instruction: str, n_out: int) -> float:
    """The plain rewrite: the same prompt, decoding as many tokens as the gold output has."""
    from cad_lsp.engine.prompt import build_prompt
    from cad_lsp.program import split_lines

    prompt = build_prompt(engine.tokenizer, pair.before, 1, len(split_lines(pair.before)), instruction)
    return completion(engine.client, engine.served_model, prompt.ids, n_out)[0]


def run_set(engine, items: list, mode: str, concurrency: int) -> dict:
    """Run every pair's edit, ``concurrency`` at a time; per-edit seconds and the whole set's wall-clock."""
    tag = uuid.uuid4().hex[:8]

    def one(item) -> dict:
        pair, ops, n_out = item
        instruction = f"{pair.instruction} (run {tag})"  # a request part no earlier run has cached
        t0 = time.perf_counter()
        if mode == "cad":
            result = engine.edit(pair.before, 1, None, instruction, program=ops)
            if not result.complete or result.text != pair.after:
                raise RuntimeError(f"{pair.id}: the teacher-forced program did not reproduce the gold text")
            s = result.stats
            return {"s": time.perf_counter() - t0, "requests": s.requests, "written": s.sampled_tokens,
                    "spliced": s.spliced_tokens}
        rewrite(engine, pair, instruction, n_out)
        return {"s": time.perf_counter() - t0}

    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        rows = list(pool.map(one, items))
    return {"wall_s": time.perf_counter() - t0, "edits": rows}


def e2e(engine, pairs: dict, k: int, max_out: int, repeats: int, seed: int) -> dict:
    from cad_lsp.program import oracle_program
    from cad_lsp.program.metrics import token_counter

    from .e2e import sample

    count = token_counter(engine.tokenizer)
    items = []
    for corpus in CORPORA:
        for pair in sample(pairs[corpus], k, max_out, count, seed):
            items.append((pair, oracle_program(pair.before, pair.after), count(pair.after)))
    for pair, _, _ in items:
        engine.warm(pair.id, pair.before)  # an editor warms a document when it opens it
    runs = {}
    for concurrency in CONCURRENCY:
        sets = {"cad": [], "rewrite": []}
        for r in range(repeats):
            for mode in ("cad", "rewrite") if r % 2 == 0 else ("rewrite", "cad"):
                sets[mode].append(run_set(engine, items, mode, concurrency))
        runs[str(concurrency)] = summarize(items, sets)
    return {"pairs": [{"id": p.id, "corpus": p.corpus, "n_out": n, "ops": len(ops)} for p, ops, n in items],
            "runs": runs}


def summarize(items: list, sets: dict) -> dict:
    """Medians over repeats: the set's wall-clock, and per edit its seconds (and CaD's requests)."""
    out = {}
    for mode, repeats in sets.items():
        per_edit = [median([rep["edits"][i]["s"] for rep in repeats]) for i in range(len(items))]
        out[mode] = {"wall_s": median([rep["wall_s"] for rep in repeats]), "edit_s": per_edit,
                     "edit_median_s": median(per_edit)}
        if mode == "cad":
            first = repeats[0]["edits"]
            out[mode].update({"requests_median": median([e["requests"] for e in first]),
                              "written_median": median([e["written"] for e in first]),
                              "spliced_median": median([e["spliced"] for e in first])})
    out["speedup_wall"] = out["rewrite"]["wall_s"] / out["cad"]["wall_s"]
    out["speedup_median_edit"] = median([a / b for a, b in zip(out["rewrite"]["edit_s"], out["cad"]["edit_s"])])
    return out


def run(args) -> dict:
    from cad_lsp.backends.vllm import VLLMEngine

    url = os.environ.get("CAD_LSP_VLLM_URL")
    if not url:
        return {"skipped": NO_SERVER, "dtype": "n/a"}
    engine = VLLMEngine.connect(url, args.model or "smollm2")
    version = json.loads(engine.client.get("/version")).get("version", "?")
    repeats = args.repeats or (1 if args.quick else 3)
    data = {"model": engine.served_model, "server": version, "dtype": "bf16 (server)",
            "curve": continuation_curve(engine, args.ns or (QUICK_NS if args.quick else NS), repeats)}
    pairs = corpus_pairs()
    if pairs is None:
        data["e2e"] = {"skipped": NO_CORPUS}
        return data
    k = args.limit or (2 if args.quick else 8)
    data["e2e"] = {"per_corpus": k, "max_out_tokens": args.max_out_tokens or 300, "seed": args.seed,
                   "repeats": args.repeats or (1 if args.quick else 2),
                   **e2e(engine, pairs, k, args.max_out_tokens or 300, args.repeats or (1 if args.quick else 2),
                         args.seed)}
    return data


def markdown(data: dict) -> str:
    c = data["curve"]
    rows = [[p["n"], f"{1e3 * p['continuation_s']:.0f}", f"{1e3 * p['decode_s']:.0f}", times(p["speedup"]),
             "n/a" if p["recomputed_max"] is None else p["recomputed_max"]] for p in c["points"]]
    out = [f"Server: vLLM {data['server']}, model `{data['model']}`, with the flags of `.ci/vllm.sh` (prefix "
           "caching, 32-token blocks) but compiled (without its `--enforce-eager`). "
           f"A {c['prefix']}-token prefix of real code is warm; median of {c['repeats']} repeats, "
           "each with new tokens. "
           f"A request whose whole prompt is cached takes {1e3 * c['cached_prompt_s']:.0f} ms for one token (vLLM "
           "then recomputes the prompt's last block, so it is no floor for the rows below). The last column is the "
           "prompt tokens the server computed for a continuation (from the usage's cached_tokens).",
           "",
           table(["N", "continuation + 1 token (ms)", "decode N tokens (ms)", "speedup", "prompt tokens computed"],
                 rows)]
    e = data.get("e2e") or {}
    if e.get("skipped"):
        return "\n".join(out + ["", f"End to end: {e['skipped']}: not run."])
    n_out = [p["n_out"] for p in e["pairs"]]
    out += ["", f"End to end: {e['per_corpus']} HumanEvalFix pairs per language (Python, JS; seed {e['seed']}, output "
            f"≤ {e['max_out_tokens']} tokens, median {median(n_out):.0f}), whole-document oracle programs "
            "teacher-forced through the vLLM backend vs a plain rewrite of the same length on the same prompt; "
            f"median of {e['repeats']} repeats; the document was warmed first, everything else is in the time.", ""]
    rows = []
    for concurrency, r in e["runs"].items():
        cad, rw = r["cad"], r["rewrite"]
        rows.append([concurrency, f"{rw['wall_s']:.1f}", f"{cad['wall_s']:.1f}", times(r["speedup_wall"]),
                     f"{rw['edit_median_s']:.2f}", f"{cad['edit_median_s']:.2f}", times(r["speedup_median_edit"]),
                     cad["requests_median"]])
    out.append(table(["edits at once", "rewrite, all pairs (s)", "CaD, all pairs (s)", "speedup (wall)",
                      "rewrite per edit (s, median)", "CaD per edit (s, median)", "speedup (median edit)",
                      "CaD requests per edit (median)"], rows))
    return "\n".join(out)


def plot(data: dict, path: Path) -> bool:
    plt = pyplot()

    points = data["curve"]["points"]
    ns = [p["n"] for p in points]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.plot(ns, [1e3 * p["decode_s"] for p in points], "o-", label="decode N tokens")
    ax.plot(ns, [1e3 * p["continuation_s"] for p in points], "s-", label="continuation with N tokens")
    ax.axhline(1e3 * data["curve"]["cached_prompt_s"], ls=":", color="grey", label="whole prompt cached, 1 token")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N (tokens)")
    ax.set_ylabel("ms per request")
    ax.set_title(f"vLLM {data['server']}: copy as a continuation, {data['model']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return save_figure(fig, path)


if __name__ == "__main__":
    import sys

    from . import runner

    sys.exit(runner.main(["vllm", *sys.argv[1:]]))
