"""kvcache: the cost of one forward over a long cached document, per cache kind.

A warm edit of a long document runs its forwards (the request, decode steps,
splices) after tens of thousands of cached positions.  ``DynamicCache``
concatenates, copying every cached position of every layer per forward;
``GrowingLayer`` (cad_lsp.backends.pytorch.kvcache) writes in place; ``StaticCache`` writes in
place but attends over its whole preallocated length.  Each cache is filled
with random keys and values of the cached length (the cost depends on the
shapes, not on the values), then a 1-token and a 64-token forward are timed
and cropped back, so every timing starts from the same length.
"""

from __future__ import annotations

import time

from .runner import median, model_name, progress, table

FULL_POSITIONS = [600, 24_000]  # ~50 and ~2,000 lines of Python in the numbered Qwen2.5 prompt
QUICK_POSITIONS = [256, 2048]
QUERY_LENGTHS = [1, 16, 64]  # a decode step; a request or a short splice; a splice
KINDS = ["dynamic", "growing", "static", "growing + grouped attention"]  # the last is what the engine runs


def new_cache(kind: str, config, positions: int):
    from transformers import DynamicCache, StaticCache

    from cad_lsp.backends.pytorch.kvcache import growing_cache

    if kind == "dynamic":
        return DynamicCache(config=config)
    if kind.startswith("growing"):
        return growing_cache(config)
    capacity = 1 << (positions + max(QUERY_LENGTHS)).bit_length()  # what a static cache must preallocate
    return StaticCache(config=config, max_cache_len=capacity)


def fill(cache, config, positions: int, dtype) -> None:
    """``positions`` random keys and values in every layer, written through the cache's own update."""
    import torch

    heads = config.num_key_value_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    generator = torch.Generator().manual_seed(0)
    for layer in range(config.num_hidden_layers):
        keys = torch.randn(1, heads, positions, head_dim, generator=generator, dtype=torch.float32).to(dtype)
        values = torch.randn(1, heads, positions, head_dim, generator=generator, dtype=torch.float32).to(dtype)
        cache.update(keys, values, layer)


def time_forward(model, cache, query: int) -> float:
    """Seconds of one ``query``-token forward after the cached positions, cropped back after it."""
    import torch

    from cad_lsp.backends.pytorch.kvcache import cache_argument

    ids = torch.randint(0, 1000, (1, query), generator=torch.Generator().manual_seed(query))
    with torch.inference_mode():
        t0 = time.perf_counter()
        model(ids, **cache_argument(model, cache), use_cache=True, logits_to_keep=1)
        elapsed = time.perf_counter() - t0
    cache.crop(-query)
    return elapsed


def run(args) -> dict:
    import torch

    from cad_lsp.backends.pytorch.attention import use_grouped_attention
    from cad_lsp.backends.pytorch.kvcache import cache_nbytes
    from cad_lsp.backends.pytorch.loading import load_model

    name = model_name(args)
    loaded = load_model(name, args.device, args.dtype or "fp32")
    model, config, dtype = loaded.model, loaded.model.config, loaded.dtype
    positions = QUICK_POSITIONS if args.quick else FULL_POSITIONS
    repeats = args.repeats or (2 if args.quick else 5)
    rows = []
    for count in positions:
        caches = {}
        for kind in KINDS:
            caches[kind] = new_cache(kind, config, count)
            fill(caches[kind], config, count, dtype)
        seconds = {(kind, q): [] for kind in KINDS for q in QUERY_LENGTHS}
        # Kinds interleaved within each repeat (the first a warm-up), so a busy machine slows them alike.
        for repeat in progress(range(repeats + 1), f"kvcache {count}"):
            for kind in KINDS:
                grouped = kind.endswith("grouped attention")
                if grouped:
                    use_grouped_attention(model)
                for query in QUERY_LENGTHS:
                    elapsed = time_forward(model, caches[kind], query)
                    if repeat:
                        seconds[(kind, query)].append(elapsed)
                if grouped:
                    model.set_attn_implementation("sdpa")
        for kind in KINDS:
            row = {"positions": count, "cache": kind, "bytes": cache_nbytes(caches[kind])}
            for query in QUERY_LENGTHS:
                row[f"forward_{query}_s"] = median(seconds[(kind, query)])
            rows.append(row)
        del caches
    for row in rows:
        dynamic = next(r for r in rows if r["positions"] == row["positions"] and r["cache"] == "dynamic")
        for query in QUERY_LENGTHS:
            row[f"vs_dynamic_{query}"] = row[f"forward_{query}_s"] / dynamic[f"forward_{query}_s"]
        row["bytes_per_position"] = row["bytes"] / row["positions"]
    return {"model": name, "dtype": str(dtype).replace("torch.", ""), "repeats": repeats,
            "threads": torch.get_num_threads(), "rows": rows}


def markdown(data: dict) -> str:
    queries = [int(k.split("_")[1]) for k in data["rows"][0] if k.startswith("forward_")]
    rows = [[r["positions"], r["cache"]] + [f"{1e3 * r[f'forward_{q}_s']:.1f} ({r[f'vs_dynamic_{q}']:.2f})"
                                            for q in queries] + [f"{r['bytes_per_position']:,.0f}"]
            for r in data["rows"]]
    return "\n".join([
        f"`{data['model']}`, {data['dtype']}: one forward after N cached positions (random keys and values), "
        f"cropped back after each; the cache kinds interleaved within each repeat, median of {data['repeats']}. "
        "*growing* writes in place into storage that "
        "doubles (cad_lsp.backends.pytorch.kvcache); *dynamic* is transformers' DynamicCache (concatenation); *static* is its "
        "StaticCache preallocated to the next power of two (its attention spans the whole allocation); "
        "*grouped attention* runs a short query's heads that share a key/value head as rows of one head "
        "(cad_lsp.backends.pytorch.attention), as the engine does. In brackets: the time over DynamicCache's. "
        "Bytes per position count the allocated storage.",
        "",
        table(["cached positions", "cache"] + [f"{q}-token forward (ms)" for q in queries] + ["bytes per position"],
              rows),
    ])
