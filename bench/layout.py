"""layout: where the prompt needs line numbers, measured.

Copies name lines by number, so the model must see numbers -- but only the
selected lines can be copied.  Three layouts of the same request:

- **numbered** (today's): every document line as ``N| text`` in the cached part;
- **plain + numbered selection**: the cached document part as plain text, the
  request part repeating the selected lines numbered;
- **sparse**: a number on every 10th line of the document, the selected lines
  numbered in the request part.

Measured per layout: prompt tokens (Qwen2.5 and the model's tokenizer) of
real code (argparse at 50, 2,000 and 5,000 lines); how many cached tokens
survive a line inserted near the top; the prefill time of a document that
fits the model; and, with a real model, the parse rate, exact match and
copy-boundary accuracy on held-out rows (``cad_lsp.train.split``) with the
engine's own decode loop.  The shipped adapter was trained on the numbered
layout: a better number on another layout is needed before switching.
"""

from __future__ import annotations

import time

from .runner import NO_CORPUS, median, pct, progress, qwen_tokenizer, table

LAYOUTS = ["numbered", "plain + numbered selection", "sparse"]
SPARSE_EVERY = 10
SIZES = [50, 2000, 5000]
INSERT_AT = 10  # a line inserted after this one: "a change near the top"
PREFILL_LINES = 200
QUALITY_LAYOUTS = LAYOUTS[:2]  # the sparse layout is measured in tokens only


def _plain(document: str) -> str:
    from cad_lsp.program import split_lines

    return "".join(line.rstrip("\r\n") + "\n" for line in split_lines(document))


def _sparse(document: str) -> str:
    from cad_lsp.program import split_lines

    return "".join((f"{n}| " if n % SPARSE_EVERY == 0 else "") + line.rstrip("\r\n") + "\n"
                   for n, line in enumerate(split_lines(document), 1))


def build(tokenizer, layout: str, document: str, first: int, last: int, instruction: str, examples: str = ""):
    """(prefix ids, request ids) of a request in a layout; ``numbered`` is the engine's own prompt."""
    from cad_lsp.engine import prompt as p

    if layout == "numbered":
        built = p.build_prompt(tokenizer, document, first, last, instruction, examples=examples)
        return built.prefix_ids, built.request_ids
    shown = _plain(document) if layout.startswith("plain") else _sparse(document)
    request = f"\nSelected lines {first}-{last}:\n{p.numbered(document, first, last)}Instruction: {instruction.strip()}"
    user = f"{examples}File document:\n{shown}{p._MARK}{request}"
    messages = [{"role": "system", "content": p.SYSTEM}, {"role": "user", "content": user}]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True,
                                         chat_template=p._template(tokenizer))
    prefix, rest = text.split(p._MARK)
    encode = lambda s: tokenizer.encode(s, add_special_tokens=False)  # noqa: E731
    return encode(prefix), encode(rest)


def _common(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def token_rows(tokenizer, sizes: list[int]) -> list[dict]:
    from .serve import document, selection

    rows = []
    for size in sizes:
        text = document(size)
        lines = text.splitlines(keepends=True)
        inserted = "".join(lines[:INSERT_AT]) + "    pass  # inserted\n" + "".join(lines[INSERT_AT:])
        first, last = selection(size)
        for layout in LAYOUTS:
            prefix, request = build(tokenizer, layout, text, first, last, "Add a comment")
            after, _ = build(tokenizer, layout, inserted, first, last, "Add a comment")
            rows.append({"lines": size, "layout": layout, "prefix_tokens": len(prefix),
                         "prompt_tokens": len(prefix) + len(request),
                         "survive_insert": _common(prefix, after) / len(after)})
    return rows


def prefill_rows(loaded, lines: int, repeats: int) -> list[dict]:
    """Seconds to prefill each layout's prompt of a ``lines``-line document (one forward per chunk)."""
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.engine import sync_prefix

    from .serve import document, selection

    text = document(lines)
    first, last = selection(lines)
    backend = LocalModel(loaded)
    rows = []
    for layout in LAYOUTS:
        prefix, request = build(loaded.tokenizer, layout, text, first, last, "Add a comment")
        seconds = []
        for _ in range(repeats):
            state = backend.new_state()
            t0 = time.perf_counter()
            sync_prefix(backend, state, prefix + request)
            seconds.append(time.perf_counter() - t0)
        rows.append({"lines": lines, "layout": layout, "tokens": len(prefix) + len(request),
                     "prefill_s": median(seconds)})
    return rows


def quality_rows(loaded, limit: int | None, layouts: list[str]) -> dict:
    """Parse rate, exact match and copy-boundary accuracy per layout on held-out rows, greedy."""
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.engine import Stats, choose_token, decode_loop
    from cad_lsp.engine.grammar import ProgramConstraint, ll_tokenizer
    from cad_lsp.program import Document, resolve
    from cad_lsp.train import corpora
    from cad_lsp.train.split import oracle_for, request_for, split

    from .quality import EXTRA_TOKENS, boundary_errors

    backend, ll = LocalModel(loaded), ll_tokenizer(loaded.tokenizer)
    count = lambda s: len(loaded.tokenizer.encode(s, add_special_tokens=False))  # noqa: E731
    out = {layout: {"rows": 0, "parsed": 0, "exact": 0, "copies": 0, "exact_boundaries": 0} for layout in layouts}
    pairs = []
    for corpus in ("humanevalfix-py", "humanevalfix-js"):
        pairs += split(corpora.load(corpus))[1][:limit]
    for pair in progress(pairs, "layout quality"):
        request = request_for(pair)
        doc = Document(request.document)
        selected = "".join(doc.lines[request.first - 1 : request.last])
        gold = oracle_for(request)
        for layout in layouts:
            prefix, req = build(loaded.tokenizer, layout, request.document, request.first, request.last,
                                request.instruction)
            state = backend.new_state()
            logits = backend.extend(state, prefix + req)
            constraint = ProgramConstraint(ll, request.first, request.last)
            complete = decode_loop(backend, state, constraint, loaded.tokenizer, doc, logits,
                                   lambda lg, c, draft: choose_token(lg, c), Stats(),
                                   max_tokens=count(selected) + EXTRA_TOKENS)
            ops = list(constraint.ops)
            entry = out[layout]
            entry["rows"] += 1
            entry["parsed"] += complete
            entry["exact"] += complete and resolve(ops, doc, request.first, request.last) == request.target
            errors = [e for e in boundary_errors(ops, gold)]
            entry["copies"] += len(errors)
            entry["exact_boundaries"] += sum(e == (0, 0) for e in errors)
    return out


def run(args) -> dict:
    from cad_lsp.backends.pytorch.loading import SMOLLM2_ADAPTER, load_model
    from cad_lsp.train import corpora

    quick = args.quick
    sizes = [20, 200] if quick else SIZES
    data = {"sizes": sizes, "qwen_tokens": token_rows(qwen_tokenizer(), sizes)}
    name = args.model or ("random:tiny" if quick else "smollm2")
    adapter = SMOLLM2_ADAPTER if name == "smollm2" and (SMOLLM2_ADAPTER / "adapter_config.json").is_file() else None
    loaded = load_model("smollm2:base" if adapter else name, args.device, args.dtype or "fp32", adapter=adapter)
    data.update(model=name, adapter=str(adapter) if adapter else None, dtype=args.dtype or "fp32")
    data["model_tokens"] = token_rows(loaded.tokenizer, sizes)
    data["prefill"] = prefill_rows(loaded, 40 if quick else PREFILL_LINES, args.repeats or (1 if quick else 2))
    if corpora.data_dir() is None:
        data["quality"] = None
        data["quality_skipped"] = NO_CORPUS
    else:
        data["quality"] = quality_rows(loaded, args.limit if args.limit is not None else (1 if quick else 10),
                                       QUALITY_LAYOUTS)
    return data


def markdown(data: dict) -> str:
    def token_table(rows):
        return table(["document lines", "layout", "prompt tokens", "cached part", "cache kept after an insert at "
                      f"line {INSERT_AT}"],
                     [[r["lines"], r["layout"], r["prompt_tokens"], r["prefix_tokens"], pct(r["survive_insert"])]
                      for r in rows])

    out = ["Three places for line numbers (see `bench/layout.py`). Tokens of the standard library's argparse, "
           "a line inserted after line 10 for the cache column (a prefix cache keeps only what comes before the "
           "first changed token).", "", "Qwen2.5 tokenizer:", "", token_table(data["qwen_tokens"]), "",
           f"`{data['model']}` tokenizer:", "", token_table(data["model_tokens"]), "",
           f"Prefill of the whole prompt, `{data['model']}`{' + adapter' if data.get('adapter') else ''}, "
           f"{data['dtype']}:", "",
           table(["document lines", "layout", "tokens", "prefill (s)"],
                 [[r["lines"], r["layout"], r["tokens"], f"{r['prefill_s']:.2f}"] for r in data["prefill"]])]
    if data.get("quality"):
        rows = [[layout, q["rows"], pct(q["parsed"] / q["rows"]), pct(q["exact"] / q["rows"]),
                 f"{q['exact_boundaries']}/{q['copies']}"] for layout, q in data["quality"].items() if q["rows"]]
        out += ["", "Held-out rows (HumanEvalFix Py + JS test split), greedy, the engine's decode loop:", "",
                table(["layout", "rows", "parsed", "exact match", "copies with exact boundaries"], rows)]
    return "\n".join(out)
