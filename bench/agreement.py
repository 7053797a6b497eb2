"""agreement: the greedy programs PyTorch and llama.cpp write on the test split, at each of llama.cpp's precisions.

The embedded model is one set of weights (the GGUF file's Q4_1 blocks and the
shipped adapter): PyTorch de-quantizes them to fp32 and multiplies in fp32;
llama.cpp multiplies the Q4_1 blocks with activations quantized to 8 bits, and
the q8_0, f16 and f32 copies its own quantizer writes from the same file
(``llamacpp.requantized``) with activations at those precisions (f32: the
weights PyTorch holds, fp32 products).  Each test-split request (8-line
windows, as ``speculation`` chooses them; speculation off) is decoded greedily
by PyTorch once and by every llama.cpp variant: identical programs or not, and
at the first differing step each side's margin (its choice's logit over the
other's choice), which says whether the two parted at a near-tie.
"""

from __future__ import annotations

import numpy as np

from .llamacpp import MAX_TOKENS, corpus_or_skip, open_variant, variants_folder
from .runner import median, progress, table

KINDS = ["q4_1", "q8_0", "f16", "f32"]
ALL = 10 ** 6  # requests per corpus: the whole test split
FEW = 5  # a precision's differing requests are listed where there are at most this many (the shipped file's always)


def greedy_with_logits(engine, key: str, request) -> tuple:
    """The greedy program (speculation off), and each sampled step's logits row and choice."""
    import cad_lsp.engine.engine as engine_module

    steps, choose = [], engine_module.choose_token

    def recording(logits, constraint, *args):
        token = choose(logits, constraint, *args)
        steps.append((np.array(logits, dtype=np.float32), token))  # a copy: torch or numpy rows
        return token

    engine_module.choose_token = recording
    try:
        result = engine.edit(request.document, request.first, request.last, request.instruction, key=key,
                             max_tokens=MAX_TOKENS, speculate=False)
    finally:
        engine_module.choose_token = choose
    return result, steps


def compare(key: str, reference: tuple, other: tuple, tokenizer) -> dict:
    """One request's programs side by side: identical, else where and by what margins they parted."""
    (a, steps_a), (b, steps_b) = reference, other
    row = {"key": key, "identical": (a.ops, a.complete) == (b.ops, b.complete)}
    for k, ((row_a, tok_a), (row_b, tok_b)) in enumerate(zip(steps_a, steps_b)):
        if tok_a != tok_b:
            row.update(step=k, gap_torch=float(row_a[tok_a] - row_a[tok_b]),
                       gap_llama=float(row_b[tok_b] - row_b[tok_a]),
                       tokens=[tokenizer.decode([tok_a]), tokenizer.decode([tok_b])])
            break
    return row


def run(args) -> dict:
    from cad_lsp.engine.backend import TooLongForContext

    from .speculation import held_out_requests

    pairs, skipped = corpus_or_skip()
    if skipped:
        return skipped
    requests = held_out_requests(pairs, args.limit or ALL)
    kinds = KINDS[:1] if args.quick else KINDS
    if args.quick:
        requests = requests[:1]
    folder = variants_folder()
    torch_engine = open_variant("torch fp32", folder)
    engines = {kind: open_variant(f"llama.cpp {kind}", folder) for kind in kinds}
    rows: dict[str, list] = {kind: [] for kind in kinds}
    too_long = []  # requests the model's context cannot hold (the whole split has selections of 400 lines)
    for key, request in progress(requests, "agreement"):
        try:
            reference = greedy_with_logits(torch_engine, key, request)
        except TooLongForContext:
            too_long.append(key)
            continue
        for kind, engine in engines.items():
            rows[kind].append(compare(key, reference, greedy_with_logits(engine, key, request),
                                      torch_engine.tokenizer))
    return {"requests": len(requests) - len(too_long), "too_long": too_long, "per_corpus": args.limit,
            "kinds": kinds,
            "variants": {kind: {"rows": r, "identical": sum(x["identical"] for x in r)} for kind, r in rows.items()}}


def _margin(value: float | None) -> str:
    return "–" if value is None else f"{value:.3g}"  # 0.0004 is a tie, not 0.000


def markdown(data: dict) -> str:
    if "skipped" in data:
        return f"_Skipped: {data['skipped']}._\n"
    n, variants = data["requests"], data["variants"]
    scope = "the whole test split" if not data["per_corpus"] else f"the {data['per_corpus']} shortest per corpus"
    if data.get("too_long"):
        scope += f"; {len(data['too_long'])} more do not fit the model's context: {', '.join(data['too_long'])}"
    out = [f"SmolLM2-135M with the shipped adapter: greedy programs (speculation off, 8-line windows) of {n} "
           f"test-split requests ({scope}), PyTorch fp32 against llama.cpp on the Q4_1 file as shipped and on the "
           f"copies llama.cpp's quantizer writes from it. *Margin*: a side's logit for its own choice minus its "
           f"logit for the other side's, at the first step where they part.\n"]
    body = []
    for kind in data["kinds"]:
        v = variants[kind]
        differ = [r for r in v["rows"] if not r["identical"] and "gap_torch" in r]
        margins = [r["gap_torch"] for r in differ]
        body.append([kind, f"{v['identical']}/{n}", f"{100 * v['identical'] / n:.0f}%",
                     _margin(median(margins)) if margins else "–", _margin(max(margins)) if margins else "–",
                     sum(1 for r in v["rows"] if not r["identical"] and "gap_torch" not in r)])
    out.append(table(["llama.cpp weights", "identical", "share", "torch's margin where they part (median)",
                      "(largest)", "differ after the same choices"], body))
    for kind in data["kinds"]:  # where the shipped file parts from PyTorch, and where a precision rarely does
        differ = [r for r in variants[kind]["rows"] if not r["identical"]]
        if not differ or (kind != data["kinds"][0] and len(differ) > FEW):
            continue
        out.append(f"\nWhere {kind} writes otherwise:\n")
        out.append(table(["request", "first differing step", "torch / llama.cpp chose", "torch's margin",
                          "llama.cpp's margin"],
                         [[r["key"], r.get("step", "after the last sampled step"),
                           " / ".join(repr(t) for t in r.get("tokens", [])), _margin(r.get("gap_torch")),
                           _margin(r.get("gap_llama"))] for r in differ]))
    return "\n".join(out) + "\n"
