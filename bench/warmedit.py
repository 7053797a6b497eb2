"""warmedit: a warm edit of a long document against a short one, in the engine, today's cache vs the growing one.

``serve`` measures this through the server, but needs the long document's
cold prefill first (minutes on a CPU).  The cost of a warm edit depends on
the cache's shapes, not on its values, so here each document's prompt
prefix is put in the cache as random keys and values of its real length,
and the same teacher-forced program as ``serve`` runs through
``Engine.edit``.  Two engines share one model: *concatenating* (transformers'
DynamicCache and SDPA, the engine before the growing cache) and *growing*
(cad_lsp.backends.pytorch.kvcache + cad_lsp.backends.pytorch.attention, the engine now); their edits are
interleaved within each repeat so a busy machine slows both alike.
"""

from __future__ import annotations

from .runner import median, model_name, progress, table
from .serve import FULL_SIZES, INSTRUCTION, QUICK_SIZES, document, planned_program, selection

WINDOWS = (512, 256)  # contextLines measured: the window a warm edit attends to is the lever on its cost
VARIANTS = ["concatenating", "growing", *(f"growing, {n}-line window" for n in WINDOWS)]


def _engines(loaded):
    from transformers import DynamicCache

    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.engine import Engine, KVState

    class Concatenating(LocalModel):
        def new_state(self) -> KVState:
            return KVState([], DynamicCache(config=self.model.config))

    growing = Engine(LocalModel(loaded))  # switches the model to grouped attention
    concatenating = Engine(Concatenating(loaded))
    windows = {f"growing, {n}-line window": Engine(LocalModel(loaded), context_lines=n) for n in WINDOWS}
    return {"concatenating": concatenating, "growing": growing, **windows}


def _fill(engine, key: str, ids: list[int]) -> None:
    """The state of ``key`` holding ``ids`` as random keys and values of that length."""
    import torch

    config = engine.backend.loaded.model.config
    state = engine.backend.new_state()
    heads = config.num_key_value_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    generator = torch.Generator().manual_seed(0)
    for layer in range(config.num_hidden_layers):
        shape = (1, heads, len(ids), head_dim)
        state.cache.update(torch.randn(shape, generator=generator).to(engine.backend.loaded.dtype),
                           torch.randn(shape, generator=generator).to(engine.backend.loaded.dtype), layer)
    state.ids = list(ids)
    engine._states[(key, 0)] = state  # the document's cache at its first place


def run(args) -> dict:
    import torch

    from cad_lsp.backends.pytorch.loading import load_model

    name = model_name(args)
    loaded = load_model(name, args.device, args.dtype or "fp32")
    engines = _engines(loaded)
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    repeats = args.repeats or (1 if args.quick else 3)
    seconds = {(v, s): [] for v in VARIANTS for s in sizes}
    info = {}
    for size in sizes:
        text = document(size)
        first, last = selection(size)
        for variant, engine in engines.items():  # the prompt prefix the edit will look for (a window's, if shown)
            _fill(engine, f"doc{size}", engine.prompt_prefix(text, first, last, f"doc{size}.py", key=f"doc{size}"))
        for _ in progress(range(repeats), f"warmedit {size}"):
            for variant, engine in engines.items():
                attention = "sdpa" if variant == "concatenating" else "cad_grouped_sdpa"
                loaded.model.set_attn_implementation(attention)
                result = engine.edit(text, first, last, INSTRUCTION, key=f"doc{size}", name=f"doc{size}.py",
                                     program=planned_program(first, last), speculate=False)  # same forwards
                seconds[(variant, size)].append(result.stats.total_s)
                info[(variant, size)] = {"prompt_tokens": result.stats.prompt_tokens, "cached": result.stats.cached_tokens,
                              "forwards": result.stats.forwards}
        for engine in engines.values():
            engine.forget(f"doc{size}")
    rows = []
    for variant in VARIANTS:
        for size in sizes:
            rows.append({"variant": variant, "lines": size, **info[(variant, size)], "edit_s": median(seconds[(variant, size)]),
                         "runs": seconds[(variant, size)]})
    ratios = {v: next(r["edit_s"] for r in rows if r["variant"] == v and r["lines"] == sizes[-1])
              / next(r["edit_s"] for r in rows if r["variant"] == v and r["lines"] == sizes[0]) for v in VARIANTS}
    from cad_lsp.engine.window import DEFAULT_CONTEXT_LINES

    return {"model": name, "dtype": str(loaded.dtype).replace("torch.", ""), "repeats": repeats,
            "default_context_lines": DEFAULT_CONTEXT_LINES,
            "threads": torch.get_num_threads(), "rows": rows, "long_over_short": ratios}


def markdown(data: dict) -> str:
    rows = [[r["variant"], r["lines"], r["prompt_tokens"], r["cached"], r["forwards"], f"{1e3 * r['edit_s']:.0f}"]
            for r in data["rows"]]
    sizes = sorted({r["lines"] for r in data["rows"]})
    ratio = ", ".join(f"{v} **{x:.2f}×**" for v, x in data["long_over_short"].items())
    return "\n".join([
        f"`{data['model']}`, {data['dtype']}: `Engine.edit` with the document's prompt prefix already cached "
        "(random keys and values of its real length), teacher-forced through serve's program without speculation (the same forwards in every row); *concatenating* is "
        "DynamicCache + SDPA, *growing* is cad_lsp.backends.pytorch.kvcache + grouped attention, showing the whole document; *growing, "
        f"N-line window* is the same showing N lines around the selection (`contextLines`; the editors' default is "
        f"{data.get('default_context_lines', 512)}); interleaved, median of {data['repeats']}.", "",
        table(["engine", "document lines", "prompt tokens", "cached", "forwards", "warm edit (ms)"], rows), "",
        f"{sizes[-1]} vs {sizes[0]} lines, warm: {ratio}."])
