"""The shared runner behind ``cad-lsp bench NAME [options]``.

Each benchmark is a module of this package with three functions:

- ``run(args) -> dict``: measure, return a JSON-able payload;
- ``markdown(data) -> str``: its tables, rebuilt from the JSON alone;
- ``plot(data, path) -> bool`` (optional): its figure.

Keeping the tables a pure function of the JSON is what lets ``report``
rebuild ``RESULTS.md`` without rerunning anything.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from . import report
from .catalog import BENCHMARKS
from .tables import pct, table, times  # noqa: F401  (the benchmarks import them from here)

NAMES = BENCHMARKS + ["report", "all"]
DEFAULT_OUT = Path(__file__).resolve().parent / "results"
DEFAULT_RESULTS_MD = Path(__file__).resolve().parent / "RESULTS.md"
NO_CORPUS = "corpus folder not present (the corpora go in ../shared/data, or set CAD_LSP_DATA)"


# ---------------------------------------------------------------------------
# Arguments


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return sorted(set(values))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cad-lsp bench",
        description="Benchmarks of Copy-as-Decode; each writes OUT/NAME.json, OUT/NAME.md and a plot.",
        epilog="examples:\n  cad-lsp bench apply --suite peer\n  cad-lsp bench all --quick --out /tmp/bench",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("name", choices=NAMES, help="the benchmark; 'all' runs every one, then 'report'")
    parser.add_argument("--model", default=None,
                        help="kernel/e2e model (default random:qwen2.5-0.5b; random:tiny with --quick); serve takes a "
                             "comma-separated list (default smollm2,random:qwen2.5-0.5b; MODEL@BACKEND picks a backend, "
                             "e.g. smollm2@llamacpp)")
    parser.add_argument("--dtype", default=None,
                        help="fp32, bf16 or both (default: kernel both, e2e bf16, ceiling: bf16 curve if measured)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda ...")
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny model, few N, 2 pairs per corpus")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default bench/results)")
    parser.add_argument("--repeats", type=int, default=None, help="timing repeats (median reported)")
    parser.add_argument("--limit", type=int, default=None,
                        help="pairs per corpus (default: all; e2e 5; 2 with --quick; lossless always all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--suite", choices=["own", "peer"], default="own",
                        help="apply: the project's own held-out updates (default), or peer: Continue's fixtures and "
                             "hand-written chat updates beside them (also 'cad-lsp bench peer')")
    parser.add_argument("--context", type=int, default=512, help="kernel: tokens of real code before the splice")
    parser.add_argument("--ns", type=_int_list, default=None, help="kernel: N values, e.g. 8,32,128")
    parser.add_argument("--max-out-tokens", type=int, default=None,
                        help="e2e: sample only pairs whose output has at most this many tokens (default 400)")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads (default: torch's own; 1 with --quick, which keeps a tiny model "
                             "from stalling on a busy machine)")
    parser.add_argument("--results-md", type=Path, default=None,
                        help="where report writes RESULTS.md (default bench/RESULTS.md for the default --out, "
                             "else OUT/RESULTS.md)")
    return parser


def dtypes(args, default: str) -> list[str]:
    """``--dtype both`` means fp32 then bf16."""
    value = args.dtype or default
    return ["fp32", "bf16"] if value == "both" else [value]


def model_name(args) -> str:
    return args.model or ("random:tiny" if args.quick else "random:qwen2.5-0.5b")


def set_threads(args) -> None:
    """With as many threads as cores, a busy machine stalls small forwards on thread barriers
    (random:tiny: 56 ms a step with 2 threads, 2.5 ms with 1, beside one other busy process)."""
    threads = args.threads or (1 if args.quick else None)
    if threads:
        import torch

        torch.set_num_threads(threads)


def results_md_path(args) -> Path:
    if args.results_md is not None:
        return args.results_md
    if args.out.resolve() == DEFAULT_OUT:
        return DEFAULT_RESULTS_MD
    return args.out / "RESULTS.md"


# ---------------------------------------------------------------------------
# Shared helpers


def machine(device: str) -> dict:
    """What the numbers were measured on: they mean little without it."""
    import torch
    import transformers

    cpu, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        cpu = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
        flags = set(next(line.split(":", 1)[1].split() for line in lines if line.startswith("flags")))
    except (OSError, StopIteration):
        pass
    info = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "device": device,
        # left as the engine runs (unset): with PASSIVE a forward of 2-8 tokens of SmolLM2 cost 2.1-2.7 decode
        # steps against 1.1-1.8, so speculation measured under it is understated; on a busy machine it may be set
        # by hand, and the report's header then says so
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default"),
        # bf16 is fast on CPU only with AMX; the same VM image has run with and without it.
        "cpu_features": sorted(flags & {"avx512f", "avx512_bf16", "amx_bf16", "amx_tile"}),
    }
    if device.startswith("cuda") and torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(torch.device(device))
    return info


def load_average() -> list[float] | None:
    """The machine is shared: the load beside each run says how noisy it was."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def draft_counts(stats) -> dict:
    """Drafted and accepted choices per draft kind, from an edit's stats."""
    from cad_lsp.engine.drafter import KINDS

    return {f"{what}_{kind}": getattr(stats, f"{what}_{kind}_tokens")
            for kind in KINDS for what in ("drafted", "accepted")}


def median(values) -> float:
    return float(statistics.median(values))


def percentile(values, q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def progress(iterable, desc: str, total: int | None = None):
    """A progress bar on stderr for loops that take a while."""
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False, mininterval=2.0, dynamic_ncols=True, file=sys.stderr)


def pyplot():
    """matplotlib's pyplot drawing to files only: benchmarks run without a display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: Path) -> bool:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot().close(fig)
    return True


def synchronize(device) -> None:
    import torch

    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


@functools.lru_cache(maxsize=1)
def qwen_tokenizer():
    """The real Qwen2.5 tokenizer: every token count in the paper's tables is in its tokens."""
    from cad_lsp.backends.pytorch.loading import QWEN_TOKENIZER, load_tokenizer

    return load_tokenizer(QWEN_TOKENIZER)


def corpus_pairs(limit: int | None = None) -> dict | None:
    """{corpus: [EditPair]} (the first ``limit`` of each), or None without the corpus folder."""
    from cad_lsp.train import corpora

    if corpora.data_dir() is None:
        return None
    return {name: corpora.load(name, limit) for name in corpora.CORPORA}


def pair_limit(args, full: int | None = None) -> int | None:
    if args.limit is not None:
        return args.limit
    return 2 if args.quick else full


# ---------------------------------------------------------------------------
# Running


def write_outputs(name: str, data: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    module = importlib.import_module(f"bench.{name}")
    if hasattr(module, "plot") and not data.get("skipped"):
        if module.plot(data, out / f"{name}.png"):
            data["plot"] = f"{name}.png"
    (out / f"{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / f"{name}.md").write_text(report.section(name, data, out, out) + "\n", encoding="utf-8")


def run_benchmark(name: str, args) -> dict:
    module = importlib.import_module(f"bench.{name}")
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    load_before, t0 = load_average(), time.perf_counter()
    payload = module.run(args)
    data = {
        "benchmark": name,
        "command": args.command,
        "quick": args.quick,
        "started": started,
        "seconds": round(time.perf_counter() - t0, 1),
        "machine": {**machine(args.device), "load_average": {"before": load_before, "after": load_average()}},
        **payload,
    }
    write_outputs(name, data, args.out)
    if data.get("skipped"):  # say why on the terminal, not only inside the Markdown
        print(f"bench {name}: not run: {data['skipped']}", file=sys.stderr)
    print(f"bench {name}: {data['seconds']} s -> {args.out / (name + '.json')}", file=sys.stderr)
    return data


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    args.command = "cad-lsp bench " + " ".join(argv)
    set_threads(args)
    if args.name == "report":
        path = report.write(args.out, results_md_path(args))
        print(f"bench report -> {path}", file=sys.stderr)
        return 0
    if args.name == "apply" and args.suite == "peer":
        args.name = "peer"  # the updates other people wrote: a benchmark (and a results file) of its own
    names = BENCHMARKS if args.name == "all" else [args.name]
    for name in names:
        run_benchmark(name, args)
    if args.name == "all":
        report.write(args.out, results_md_path(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
