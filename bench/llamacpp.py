"""llamacpp: the embedded model through llama.cpp beside PyTorch, in one run on one CPU.

Variants of SmolLM2-135M with the shipped adapter: PyTorch fp32 (the GGUF
file de-quantized, the adapter merged), and llama.cpp on the Q4_1 file as
shipped and on q8_0 and f16 copies that llama.cpp's own quantizer writes from
it (the same weights up to rounding; made in the cache folder, not shipped).

- forwards: a decode step and forwards of 8 and 64 tokens after 1,000 cached
  tokens of code, and that prefill of 1,000, median of 5;
- end to end: the e2e table's sides (CaD, CaD + speculation, the rewrite,
  prompt lookup; teacher-forced gold programs, ``e2e.time_pair``) on the same
  sampled pairs for every variant, plus llama.cpp's own n-gram lookup decoding
  (``LlamaPromptLookupDecoding``) writing the rewrite greedily, the peer;
- speculation on vs off on llama.cpp, with the batch-invariant forwards and
  without them (PyTorch's programs beside llama.cpp's: ``agreement``);
- memory and the first run: a process that loads the model and makes one edit
  (peak RSS), and ``cad-lsp apply`` on an empty cache folder, per backend.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .runner import NO_CORPUS, corpus_pairs, median, progress, table, times

VARIANTS = ["torch fp32", "llama.cpp q4_1", "llama.cpp q8_0", "llama.cpp f16"]
LOOKUP_TOKENS = 10
MAX_TOKENS = 96
ROOT = Path(__file__).resolve().parent.parent


def corpus_or_skip() -> tuple[dict | None, dict | None]:
    """The corpora's pairs, or the benchmark's answer where it cannot run here (no llama.cpp, no corpora)."""
    from cad_lsp.backends.llamacpp import installed

    if not installed():
        return None, {"skipped": "llama-cpp-python is not installed (pip install -e '.[llamacpp]')"}
    pairs = corpus_pairs()
    return (pairs, None) if pairs is not None else (None, {"skipped": NO_CORPUS})


def variants_folder() -> Path:
    """Where the requantized copies go (q8_0, f16, f32: 900 MB), kept out of the results folder."""
    from cad_lsp.backends.catalog import cache_dir

    folder = cache_dir() / "bench-llamacpp"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def requantized(kind: str, folder: Path) -> Path:
    """The shipped file written by llama.cpp's quantizer as ``kind`` (q8_0, f16, f32)."""
    import ctypes

    import llama_cpp

    from cad_lsp.backends.catalog import smollm2_path

    out = folder / f"smollm2-{kind}.gguf"
    if not out.is_file():
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = {"q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0, "f16": llama_cpp.LLAMA_FTYPE_MOSTLY_F16,
                        "f32": llama_cpp.LLAMA_FTYPE_ALL_F32}[kind]
        params.allow_requantize = True
        if llama_cpp.llama_model_quantize(str(smollm2_path()).encode(), str(out).encode(), ctypes.byref(params)):
            raise RuntimeError(f"llama.cpp could not write {out}")
    return out


def open_variant(variant: str, folder: Path, batch_invariant: bool = True):
    from cad_lsp.backends.catalog import SMOLLM2_ADAPTER_GGUF, smollm2_path
    from cad_lsp.backends.llamacpp.model import LlamaCppModel
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.loading import load_model
    from cad_lsp.engine import Engine

    if variant == "torch fp32":
        return Engine(LocalModel(load_model("smollm2", "cpu", "fp32")))
    kind = variant.split()[-1]
    path = smollm2_path() if kind == "q4_1" else requantized(kind, folder)
    return Engine(LlamaCppModel("smollm2", path, adapter=SMOLLM2_ADAPTER_GGUF, batch_invariant=batch_invariant))


def forwards(engine, repeats: int = 5) -> dict:
    from . import kernel

    backend = engine.backend
    ids = kernel.code_ids(engine.tokenizer, 1100)
    state = backend.new_state()
    t0 = time.perf_counter()
    backend.extend(state, ids[:1000])
    out = {"prefill_1000_s": time.perf_counter() - t0}
    for n in (1, 8, 64):
        spent = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            backend.extend(state, ids[1000:1000 + n])
            spent.append(time.perf_counter() - t0)
            backend.crop(state, 1000)
        out[f"forward_{n}_s"] = median(spent)
    return out


def own_lookup(path: Path, adapter: Path, engine, pair, count) -> dict:
    """llama.cpp's n-gram lookup decoding (llama-cpp-python's ``LlamaPromptLookupDecoding``) vs its plain
    greedy decoding, writing the rewrite from the same prompt: tokens per second after the first token."""
    from llama_cpp import Llama
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    from cad_lsp.engine.prompt import build_prompt
    from cad_lsp.program import split_lines

    from .e2e import REWRITE_SYSTEM

    prompt = build_prompt(engine.tokenizer, pair.before, 1, len(split_lines(pair.before)), pair.instruction,
                          system=REWRITE_SYSTEM).ids
    rates, outputs = {}, {}
    for which in ("greedy", "lookup"):
        draft = LlamaPromptLookupDecoding(num_pred_tokens=LOOKUP_TOKENS) if which == "lookup" else None
        # a draft model needs logits kept for every position (n_ctx rows): 4,096 fit a pair's rewrite
        llm = Llama(model_path=str(path), lora_path=str(adapter), n_ctx=4096, n_threads=len(os.sched_getaffinity(0)),
                    draft_model=draft, logits_all=draft is not None, verbose=False)
        marks, text = [], []
        for chunk in llm.create_completion(prompt, max_tokens=count(pair.after) + 16, temperature=0.0, stream=True):
            marks.append(time.perf_counter())
            text.append(chunk["choices"][0]["text"])
        rates[which] = (len(marks) - 1) / (marks[-1] - marks[0]) if len(marks) > 1 else None
        outputs[which] = "".join(text)
        llm.close()
    return {"greedy_tokens_per_s": rates["greedy"], "lookup_tokens_per_s": rates["lookup"],
            "equal": outputs["greedy"] == outputs["lookup"]}


def speculation_flips(engine, requests) -> dict:
    differ, drafted, accepted, spent = 0, 0, 0, {True: 0.0, False: 0.0}
    for key, request in progress(requests, "llamacpp speculation"):
        results = {}
        for speculate in (False, True):
            r = engine.edit(request.document, request.first, request.last, request.instruction, key=key,
                            max_tokens=MAX_TOKENS, speculate=speculate)
            results[speculate] = r
            spent[speculate] += r.stats.total_s - r.stats.prefill_s
        differ += (results[False].ops, results[False].complete) != (results[True].ops, results[True].complete)
        drafted += results[True].stats.drafted_tokens
        accepted += results[True].stats.accepted_tokens
    return {"differ": differ, "n": len(requests), "drafted": drafted, "accepted": accepted,
            "plain_s": spent[False], "spec_s": spent[True]}


PROBE = """
import json, resource, sys, time
t0 = time.perf_counter()
from cad_lsp.backends import open_engine
engine = open_engine("smollm2", backend=sys.argv[1])
loaded = time.perf_counter() - t0
doc = open(sys.argv[2]).read()
engine.edit(doc, 3, 8, "Add type hints", max_tokens=64)
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(json.dumps({"load_s": loaded, "rss_mb": int(status["VmRSS"].split()[0]) / 1024,
                  "peak_rss_mb": int(status["VmHWM"].split()[0]) / 1024}))
"""


def process_figures(backend: str) -> dict:
    """Memory of a process holding the model after an edit, and the first run's time on an empty cache."""
    example = ROOT / "examples" / "inventory.py"
    probe = subprocess.run([sys.executable, "-c", PROBE, backend, str(example)], capture_output=True, text=True,
                           timeout=900, cwd=ROOT)
    if probe.returncode != 0:
        raise RuntimeError(probe.stderr[-2000:])
    figures = json.loads(probe.stdout.strip().splitlines()[-1])
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "CAD_LSP_CACHE": cache}
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "cad_lsp", "apply", str(example), "--update",
                              str(ROOT / "examples" / "inventory-update.py"), "--keep-warm", "0", "--backend",
                              backend], capture_output=True, text=True, timeout=900, env=env, cwd=ROOT)
        figures["first_run_s"] = time.perf_counter() - t0
        figures["first_run_ok"] = run.returncode == 0
    return figures


def run(args) -> dict:
    from cad_lsp.backends.catalog import SMOLLM2_ADAPTER_GGUF, smollm2_path
    from cad_lsp.program import oracle_program
    from cad_lsp.program.metrics import token_counter

    from .e2e import SIDES, sample, time_pair

    pairs, skipped = corpus_or_skip()
    if skipped:
        return skipped
    if args.quick:  # a smoke run: one corpus, one pair, one request
        pairs = dict(list(pairs.items())[:1])
    k = args.limit or (1 if args.quick else 3)
    repeats = args.repeats or (1 if args.quick else 3)
    folder = variants_folder()
    variants = VARIANTS[:2] if args.quick else VARIANTS
    data = {"sample": {"per_corpus": k, "seed": args.seed}, "repeats": repeats, "variants": variants,
            "forwards": {}, "e2e": {}, "own_lookup": []}
    engines = {v: open_variant(v, folder) for v in variants}
    count = token_counter(engines["torch fp32"].tokenizer)
    for variant, engine in engines.items():
        data["forwards"][variant] = forwards(engine)
    chosen = {corpus: sample(items, k, 400, count, args.seed) for corpus, items in pairs.items()}
    for variant, engine in engines.items():
        rows = []
        for corpus, items in chosen.items():
            for i, pair in enumerate(progress(items, f"llamacpp e2e {variant} {corpus}")):
                ops = oracle_program(pair.before, pair.after)
                rows.append({"id": f"{corpus}/{pair.id}", "n_out": count(pair.after),
                             **time_pair(engine, pair, ops, repeats, i % len(SIDES))})
        data["e2e"][variant] = {"rows": rows, **summarize(rows)}
    spec = {r["id"]: r["t_spec_s"] for r in data["e2e"]["llama.cpp q4_1"]["rows"]}
    for corpus, items in chosen.items():
        for pair in progress(items, f"llamacpp own lookup {corpus}"):
            row = own_lookup(smollm2_path(), SMOLLM2_ADAPTER_GGUF, engines["llama.cpp q4_1"], pair, count)
            n_out = count(pair.after)
            if row["lookup_tokens_per_s"]:
                row["spec_over_lookup"] = n_out / row["lookup_tokens_per_s"] / spec[f"{corpus}/{pair.id}"]
            data["own_lookup"].append({"id": f"{corpus}/{pair.id}", "n_out": n_out, **row})
    from .speculation import held_out_requests

    requests = held_out_requests(pairs, 4)[:1] if args.quick else held_out_requests(pairs, 4)
    data["speculation"] = speculation_flips(engines["llama.cpp q4_1"], requests)
    plain = open_variant("llama.cpp q4_1", folder, batch_invariant=False)
    data["speculation_plain_kernels"] = speculation_flips(plain, requests)
    del engines, plain
    if not args.quick:  # a first run on an empty cache converts the model for PyTorch: half a minute
        data["process"] = {backend: process_figures(backend) for backend in ("torch", "llamacpp")}
    return data


def summarize(rows: list[dict]) -> dict:
    ratio = lambda key: median([r["t_ar_s"] / r[key] for r in rows])  # noqa: E731
    return {"n": len(rows), "t_cad_s": median([r["t_cad_s"] for r in rows]),
            "t_spec_s": median([r["t_spec_s"] for r in rows]), "t_ar_s": median([r["t_ar_s"] for r in rows]),
            "t_lookup_s": median([r["t_lookup_s"] for r in rows]), "cad_over_ar": ratio("t_cad_s"),
            "spec_over_ar": ratio("t_spec_s"), "lookup_over_ar": ratio("t_lookup_s"),
            "forwards_cad": median([r["forwards"] for r in rows]),
            "forwards_spec": median([r["spec"]["forwards"] for r in rows])}


def markdown(data: dict) -> str:
    if "skipped" in data:
        return f"_Skipped: {data['skipped']}._\n"
    variants = data["variants"]
    ms = lambda s: f"{1000 * s:,.1f} ms"  # noqa: E731
    f = data["forwards"]
    base = f["torch fp32"]
    out = [f"SmolLM2-135M with the shipped adapter; llama.cpp q8_0 and f16 are the Q4_1 file rewritten by llama.cpp's "
           f"quantizer. {data['sample']['per_corpus']} pairs per corpus, median of {data['repeats']}.\n",
           "**Forwards** after 1,000 cached tokens of code (median of 5):\n",
           table(["", "decode step", "8 tokens", "64 tokens", "prefill of 1,000", "step vs torch"],
                 [[v, ms(f[v]["forward_1_s"]), ms(f[v]["forward_8_s"]), ms(f[v]["forward_64_s"]),
                   ms(f[v]["prefill_1000_s"]), times(base["forward_1_s"] / f[v]["forward_1_s"])] for v in variants])]
    e = data["e2e"]
    out += ["\n**End to end** (teacher-forced gold programs on the same pairs; median per pair, prefill excluded):\n",
            table(["", "CaD", "CaD + speculation", "rewrite", "CaD over rewrite", "CaD + spec over rewrite",
                   "prompt lookup over rewrite", "forwards CaD / + spec", "CaD + spec vs torch's"],
                  [[v, f"{e[v]['t_cad_s']:.2f} s", f"{e[v]['t_spec_s']:.2f} s", f"{e[v]['t_ar_s']:.2f} s",
                    times(e[v]["cad_over_ar"]), times(e[v]["spec_over_ar"]), times(e[v]["lookup_over_ar"]),
                    f"{e[v]['forwards_cad']:g} / {e[v]['forwards_spec']:g}",
                    times(e["torch fp32"]["t_spec_s"] / e[v]["t_spec_s"])] for v in variants])]
    own = [r for r in data["own_lookup"] if r.get("lookup_tokens_per_s")]
    if own:
        out += ["\n**llama.cpp's own n-gram lookup decoding** (`LlamaPromptLookupDecoding`, 10 tokens) writing the "
                "rewrite greedily on the Q4_1 file, tokens/s after the first token:\n",
                table(["pairs", "greedy tok/s", "n-gram lookup tok/s", "lookup over greedy",
                       "CaD + spec over lookup (median)", "same text"],
                      [[len(own), median([r["greedy_tokens_per_s"] for r in own]),
                        median([r["lookup_tokens_per_s"] for r in own]),
                        times(median([r["lookup_tokens_per_s"] / r["greedy_tokens_per_s"] for r in own])),
                        times(median([r["spec_over_lookup"] for r in own])),
                        f"{sum(r['equal'] for r in own)}/{len(own)}"]])]
    for name, label in (("speculation", "batch-invariant forwards (the default)"),
                        ("speculation_plain_kernels", "llama.cpp's one-row kernels allowed")):
        s = data[name]
        out.append(f"\nSpeculation on vs off on llama.cpp Q4_1, {label}: **{s['differ']}/{s['n']} programs differ**; "
                   f"{s['accepted']}/{s['drafted']} drafted tokens kept; decode {s['plain_s']:.1f} s off, "
                   f"{s['spec_s']:.1f} s on.\n")
    p = data.get("process")
    if p is None:
        return "\n".join(out) + "\n"
    out += ["\n**A process holding the model** after one edit, and `cad-lsp apply` on an empty cache folder "
            "(the first run):\n",
            table(["backend", "load", "RSS", "peak RSS", "first run"],
                  [[b, f"{p[b]['load_s']:.1f} s", f"{p[b]['rss_mb']:.0f} MB", f"{p[b]['peak_rss_mb']:.0f} MB",
                    f"{p[b]['first_run_s']:.1f} s" + ("" if p[b]["first_run_ok"] else " (failed)")] for b in p])]
    return "\n".join(out) + "\n"
