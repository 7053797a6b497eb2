"""lossless: resolve(oracle(before, after), before) == after on every pair of every corpus.

The paper's claim (482/482) is that the program representation loses
nothing; here it is checked byte for byte, for the line and the span
oracle, and through the program's text form (format, then parse).
Always every pair: it takes seconds.
"""

from __future__ import annotations

from .runner import NO_CORPUS, corpus_pairs, table

PAPER = "482/482 exact on the paper's corpora"


def check(pair) -> dict[str, bool]:
    from cad_lsp.program import format_program, oracle_program, oracle_program_spans, parse_program, resolve

    results = {}
    for label, oracle in (("line", oracle_program), ("span", oracle_program_spans)):
        ops = oracle(pair.before, pair.after)
        results[label] = resolve(ops, pair.before) == pair.after
        results[f"{label}_text"] = resolve(parse_program(format_program(ops)), pair.before) == pair.after
    return results


def run(args) -> dict:
    pairs = corpus_pairs()
    if pairs is None:
        return {"skipped": NO_CORPUS, "dtype": "n/a"}
    corpora = {}
    for name, items in pairs.items():
        checks = [(p.id, check(p)) for p in items]
        counts = {key: sum(c[key] for _, c in checks) for key in ("line", "span", "line_text", "span_text")}
        failures = [pid for pid, c in checks if not all(c.values())]
        corpora[name] = {"total": len(items), **counts, "failures": failures}
    total = {key: sum(c[key] for c in corpora.values()) for key in ("total", "line", "span", "line_text", "span_text")}
    return {"dtype": "n/a (no model)", "corpora": corpora, "all": total}


def markdown(data: dict) -> str:
    rows = [[name, f"{c['line']}/{c['total']}", f"{c['span']}/{c['total']}", f"{c['line_text']}/{c['total']}",
             f"{c['span_text']}/{c['total']}", ", ".join(c["failures"][:5]) or "none"]
            for name, c in data["corpora"].items()]
    a = data["all"]
    rows.append(["**all**", f"{a['line']}/{a['total']}", f"{a['span']}/{a['total']}", f"{a['line_text']}/{a['total']}",
                 f"{a['span_text']}/{a['total']}", ""])
    return "\n".join([
        f"Exact matches of the resolved oracle program against the gold text (paper: {PAPER}). "
        "\"via text\" formats the program, parses it back, then resolves.",
        "",
        table(["corpus", "line oracle", "span oracle", "line, via text", "span, via text", "failures"], rows),
    ])
