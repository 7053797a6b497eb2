"""report: RESULTS.md rebuilt from the JSON files of an output folder.

Only what a run measured is written; the paper's figures appear beside them,
labelled as the paper's.  A benchmark without a JSON file says "not run".
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

from .catalog import BENCHMARKS, TITLES
from .tables import pct, table, times


def machine_line(data: dict) -> str:
    m = data["machine"]
    where = m.get("gpu") or f"{m['cpu']}, {m['cores']} cores ({m['torch_threads']} torch threads)"
    if not m.get("gpu") and "cpu_features" in m:
        where += f", {'AMX' if 'amx_bf16' in m['cpu_features'] else 'no AMX'}"
    if m.get("omp_wait_policy", "default") != "default":  # threads that sleep between kernels make small forwards dear
        where += f", OpenMP threads {m['omp_wait_policy']}"
    load = m.get("load_average") or {}
    load_text = ""
    if load.get("before") and load.get("after"):
        load_text = f", load average {load['before'][0]:.1f} → {load['after'][0]:.1f}"
    return (f"_`{data['command']}` · {data['started']} · {data['seconds']:.0f} s · {where}, torch {m['torch']}, "
            f"transformers {m['transformers']}, dtype {data.get('dtype', 'n/a')}{load_text}_")


def section(name: str, data: dict | None, out: Path, base: Path) -> str:
    """One benchmark's Markdown; links are relative to ``base`` (the Markdown file's folder)."""
    lines = [f"## {TITLES[name]}", ""]
    if data is None:
        return "\n".join(lines + ["not run"])
    lines += [machine_line(data), ""]
    if data.get("skipped"):
        return "\n".join(lines + [f"{data['skipped']}: not run"])
    module = importlib.import_module(f"bench.{name}")
    lines.append(module.markdown(data))
    if data.get("plot"):
        link = os.path.relpath(out / data["plot"], base)
        lines += ["", f"![{name}]({Path(link).as_posix()})"]
    return "\n".join(lines)


def _load(out: Path, name: str) -> dict | None:
    file = out / f"{name}.json"
    data = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else None
    return None if data is None or data.get("skipped") else data


def summary(out: Path) -> str:
    """One row per corpus with the headline figure of each benchmark; the sections below give the details."""
    ceiling, e2e, lossless, perturb, formats = (_load(out, n) for n in ("ceiling", "e2e", "lossless", "perturb",
                                                                        "formats"))
    names = [n for n in (ceiling or lossless or formats or {}).get("corpora", {}) if n != "pooled"]
    if not names:
        return "The corpus benchmarks have not been run."
    runs = list((e2e or {}).get("runs", {}).values())
    headers = ["corpus", "lossless", "coverage line / token", "bound (engine loop)"]
    headers += [f"e2e vs AR, `{r['model']}`" for r in runs]
    spec_runs = [r for r in runs if any("spec" in c for c in r["corpora"].values())]
    headers += [f"e2e with speculation vs AR, `{r['model']}`" for r in spec_runs]
    lookup_runs = [r for r in runs if any("lookup" in c for c in r["corpora"].values())]
    headers += [f"prompt lookup vs greedy, `{r['model']}`" for r in lookup_runs]
    headers += [f"CaD vs prompt lookup, `{r['model']}`" for r in lookup_runs]
    spec_lookup_runs = [r for r in lookup_runs if r in spec_runs]
    headers += [f"CaD+spec vs prompt lookup, `{r['model']}`" for r in spec_lookup_runs]
    forced_runs = [r for r in runs if any("lookup_forced" in c for c in r["corpora"].values())]
    headers += [f"CaD+spec vs teacher-forced prompt lookup, `{r['model']}`" for r in forced_runs]
    headers += ["off-by-one EM (all ±1)", "tokens: copy/gen · rewrite · S/R · udiff n=3"]
    rows = []
    for name in names:
        row = [name]
        lo = (lossless or {}).get("corpora", {}).get(name)
        row.append(f"{lo['line']}/{lo['total']}" if lo else "")
        ce = (ceiling or {}).get("corpora", {}).get(name)
        row.append(f"{pct(ce['line']['coverage_tokens_pooled'])} / {pct(ce['span']['coverage_tokens_pooled'])}"
                   if ce else "")
        row.append(times(ce["line"]["engine_bound_pooled"]) if ce else "")
        row += [times(r["corpora"][name]["speedup_median"]) if name in r["corpora"] else "" for r in runs]
        row += [times(r["corpora"][name]["spec"]["speedup_median"]) if "spec" in r["corpora"].get(name, {}) else ""
                for r in spec_runs]
        lookups = [r["corpora"].get(name, {}).get("lookup") for r in lookup_runs]
        row += [times(x["ratio_median"]) if x else "" for x in lookups]
        row += [times(r["corpora"][name]["speedup_median"] / x["ratio_median"]) if x else ""
                for r, x in zip(lookup_runs, lookups)]
        row += [times(r["corpora"][name]["spec"]["speedup_median"] / x["ratio_median"])
                if x and "spec" in r["corpora"].get(name, {}) else ""
                for r, x in zip(lookup_runs, lookups) if r in spec_lookup_runs]
        row += [times(r["corpora"][name]["lookup_forced"]["spec_over_lookup_median"])
                if "lookup_forced" in r["corpora"].get(name, {}) else "" for r in forced_runs]
        pe = (perturb or {}).get("corpora", {}).get(name, {}).get("all_1")
        row.append(pct(pe["exact_rate"]) if pe else "")
        fo = (formats or {}).get("corpora", {}).get(name)
        row.append(" · ".join(f"{fo['formats'][f]['tokens_mean']:.0f}"
                              for f in ("copy/gen", "whole rewrite", "search/replace", "udiff n=3")) if fo else "")
        rows.append(row)
    notes = ("Medians per pair where timed. *lossless*: oracle programs that resolve byte-exact (line oracle). "
             "*coverage*: share of output tokens copied by the line / span oracle. *bound*: the closed-form "
             "speedup from the kernel curve. *e2e vs AR*: measured wall clock of the teacher-forced program vs "
             "the autoregressive rewrite on the same engine. *prompt lookup vs greedy*: Hugging Face "
             "`prompt_lookup_num_tokens` against plain greedy `generate` on a rewrite prompt (only meaningful "
             "with real weights). *CaD vs prompt lookup*: the two ratios divided, both against plain decoding "
             "of the same model in the same run; *CaD+spec* the same with speculation. *teacher-forced prompt lookup*: "
             "Hugging Face's drafting rule run on the same gold output as the programs, its time over CaD+spec's "
             "(e2e). *tokens*: mean output tokens of each format's natural minimal "
             "answer (Qwen2.5 tokenizer). Paper: coverage 74–98% line / 91–99% token, bounds 3.4× (HEF-Py), "
             "4.2× (HEF-JS), 13.0× pooled, 482/482 lossless, 15.48% EM under off-by-one noise.")
    return "\n".join([table(headers, rows), "", notes])


def write(out: Path, path: Path) -> Path:
    parts = [
        "# Benchmark results",
        "",
        f"Regenerated by `cad-lsp bench report` from the JSON files in `{_shown(out, path.parent)}`. "
        "Every number here was measured by the run named under its heading; the paper's numbers "
        "(Copy-as-Decode, arXiv 2604.18170) stand beside them for reference only.",
        "",
        "## At a glance, per corpus",
        "",
        summary(out),
        "",
    ]
    for name in BENCHMARKS:
        file = out / f"{name}.json"
        data = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else None
        parts += [section(name, data, out, path.parent), ""]
    if (out / GPU).is_dir():
        parts += [gpu_section(out / GPU, path.parent), ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


GPU = "gpu"  # OUT/gpu: what bench/gpu.sh measured on a CUDA device


def gpu_section(folder: Path, base: Path) -> str:
    """The GPU run (``bench/gpu.sh``): the equivalence checks on CUDA, then its kernel and e2e tables."""
    lines = ["# On a GPU", "", f"Measured by `bench/gpu.sh` into `{_shown(folder, base)}`.", ""]
    check = folder / "gpu_check.json"
    if check.is_file():
        data = json.loads(check.read_text(encoding="utf-8"))
        spec = data["speculation"]
        lines += [f"Equivalence on {data['device']} (`{data['model']}`, {data['dtype']}): splice vs decoding the same "
                  "tokens one by one, the logits after the last token: "
                  + ", ".join(f"N={r['n']}: max |diff| {r['max_abs_diff']:.3g}, same argmax {r['same_argmax']}"
                              for r in data["splice"]["rows"])
                  + f". Speculation on vs off on {spec['random_cases']} random requests: "
                  f"{'identical programs' if spec['identical'] else 'programs differ: ' + str(spec['failures'])} "
                  f"({spec['forwards_on']} vs {spec['forwards_off']} forwards); a teacher-forced program: "
                  f"{spec['teacher_forced']['True']['forwards']} vs {spec['teacher_forced']['False']['forwards']} "
                  "forwards.", ""]
    for name in ("kernel", "e2e"):
        file = folder / f"{name}.json"
        if file.is_file():
            lines += [section(name, json.loads(file.read_text(encoding="utf-8")), folder, base), ""]
    return "\n".join(lines)


def _shown(out: Path, base: Path) -> str:
    try:
        return Path(os.path.relpath(out, base)).as_posix()
    except ValueError:
        return str(out)
