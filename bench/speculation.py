"""speculation: the embedded model writing its own programs, with and without speculation.

``smollm2`` (as shipped: its adapter and prompt) decodes greedily on held-out
requests of each corpus (the test split), each request twice on the same warm
prompt: speculation off, then on, alternating which runs first.  The two
programs must be identical, token for token (the run stops if not); the table
gives the decode time (prefill excluded), the forwards and how many drafted
choices the model kept, per kind.
"""

from __future__ import annotations

from cad_lsp.engine.drafter import EDIT_KINDS as KINDS  # an edit drafts no update

from .runner import NO_CORPUS, corpus_pairs, draft_counts, median, progress, table, times

MAX_TOKENS = 96


def run(args) -> dict:
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.backends.pytorch.loading import load_model
    from cad_lsp.engine import Engine

    pairs = corpus_pairs()
    if pairs is None:
        return {"skipped": NO_CORPUS, "dtype": "n/a"}
    name = args.model or "smollm2"
    dtype = args.dtype or "fp32"
    per_corpus = args.limit or (2 if args.quick else 6)
    loaded = load_model(name, args.device, dtype)
    engine = Engine(LocalModel(loaded))
    corpora = {}
    for corpus in pairs:
        rows = []
        requests = held_out_requests({corpus: pairs[corpus]}, per_corpus)
        for i, (key, request) in enumerate(progress(requests, f"speculation {corpus}")):
            engine.warm(key, request.document)
            results = {}
            for speculate in ((False, True) if i % 2 == 0 else (True, False)):  # timed by the engine's own stats
                results[speculate] = engine.edit(request.document, request.first, request.last, request.instruction,
                                                 key=key, max_tokens=MAX_TOKENS, speculate=speculate)
            plain, fast = results[False], results[True]
            if (plain.ops, plain.complete) != (fast.ops, fast.complete):
                raise RuntimeError(f"{key}: speculation changed the program: {plain.program!r} vs {fast.program!r}")
            engine.forget(key)
            s, f = plain.stats, fast.stats
            rows.append({"plain_s": s.total_s - s.prefill_s, "spec_s": f.total_s - f.prefill_s,
                         "forwards_plain": s.forwards, "forwards_spec": f.forwards,
                         "tokens": s.sampled_tokens + s.forced_tokens, "complete": plain.complete,
                         **draft_counts(f)})
        corpora[corpus] = {"rows": rows, **summarize(rows)}
    corpora["pooled"] = summarize([r for c in corpora.values() for r in c["rows"]])
    return {"model": name, "dtype": dtype, "per_corpus": per_corpus, "max_tokens": MAX_TOKENS, "corpora": corpora}


def held_out_requests(pairs: dict, per_corpus: int) -> list:
    """(corpus/i, request) for the shortest ``per_corpus`` test-split requests of each corpus, each shown as a
    window of 8 lines around its selection."""
    from cad_lsp.train.split import request_for, split, window

    requests = []
    for corpus, items in pairs.items():
        _, test = split(items)
        chosen = sorted((window(request_for(p), 8) for p in test), key=lambda r: len(r.document))[:per_corpus]
        requests += [(f"{corpus}/{i}", r) for i, r in enumerate(chosen)]
    return requests


def summarize(rows: list[dict]) -> dict:
    total = lambda key: sum(r[key] for r in rows)  # noqa: E731
    return {"n": len(rows), "identical": len(rows),
            "plain_s_median": median([r["plain_s"] for r in rows]), "spec_s_median": median([r["spec_s"] for r in rows]),
            "speedup_median": median([r["plain_s"] / r["spec_s"] for r in rows]),
            "speedup_pooled": total("plain_s") / total("spec_s"),
            "forwards_plain_median": median([r["forwards_plain"] for r in rows]),
            "forwards_spec_median": median([r["forwards_spec"] for r in rows]),
            **{f"acceptance_{kind}": total(f"accepted_{kind}") / max(1, total(f"drafted_{kind}")) for kind in KINDS},
            **{f"drafted_{kind}": total(f"drafted_{kind}") for kind in KINDS}}


def markdown(data: dict) -> str:
    rows = [[name, c["n"], f"{c['identical']}/{c['n']}", f"{c['plain_s_median']:.2f}", f"{c['spec_s_median']:.2f}",
             times(c["speedup_median"]), times(c["speedup_pooled"]),
             f"{c['forwards_plain_median']:.0f} → {c['forwards_spec_median']:.0f}",
             *(f"{100 * c[f'acceptance_{kind}']:.0f}% of {c[f'drafted_{kind}']}" for kind in KINDS)]
            for name, c in data["corpora"].items()]
    return "\n".join([
        f"`{data['model']}` ({data['dtype']}, as shipped) writes its own programs, greedy, on the {data['per_corpus']} "
        f"shortest held-out requests of each corpus (a window of 8 lines around the selection; at most "
        f"{data['max_tokens']} program tokens), once without and once with speculation on the same warm prompt, "
        "alternating which runs first. Decode time, prefill excluded; medians per request.",
        "",
        table(["corpus", "requests", "identical programs", "plain (s)", "speculation (s)", "speedup (median)",
               "speedup (pooled)", "forwards (median)", "tag drafts kept", "gen drafts kept (line)",
               "gen drafts kept (lookup)"], rows),
    ])
