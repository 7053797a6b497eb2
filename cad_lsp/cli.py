"""Command line: ``cad-lsp edit``, ``cad-lsp apply``, ``cad-lsp serve``, ``cad-lsp http``, ``cad-lsp train``,
``cad-lsp bench``."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from . import __version__, warm
from .engine.window import BLOCK_LINES, DEFAULT_CONTEXT_LINES
from .files import read_document, read_update, write_back

DEFAULT_MODEL = "smollm2"
RAW = argparse.RawDescriptionHelpFormatter

DESCRIPTION = ("Code edits by Copy-as-Decode: the model writes a program that copies the lines that stay\n"
               "the same and generates only what changes.")

# What each command's --help ends with: a command to copy (argparse's RawDescriptionHelpFormatter keeps it as is).
EXAMPLES = {
    None: "cad-lsp apply examples/inventory.py --update examples/inventory-update.py\n"
          "cad-lsp edit --help",
    "edit": "cad-lsp edit examples/temperature.py --lines 6-7 \\\n"
            "    --instruction 'Add the docstring \"Convert a temperature from Fahrenheit to Celsius.\"'",
    "apply": "cad-lsp apply examples/inventory.py --update examples/inventory-method.py\n"
             "cat examples/inventory-update.py | cad-lsp apply examples/inventory.py --update - --json\n"
             "cad-lsp apply --answer answer.md --root .   # every file a whole chat answer names",
    "serve": "cad-lsp serve                    # an editor starts it (docs/editors.md)\n"
             "cad-lsp serve --tcp --port 2087  # or listen on 127.0.0.1:2087",
    "http": "cad-lsp http --port 8000         # then point the client's apply model at http://127.0.0.1:8000/v1",
    "train": "cad-lsp train --families --apply --out out/smollm2-cad",
}


def _example(command: str | None) -> str:
    lines = EXAMPLES[command].splitlines()
    heading = "examples:" if sum(not line.startswith(" ") for line in lines) > 1 else "example:"
    return "\n".join([heading] + ["  " + line for line in lines])


def _line_range(text: str) -> tuple[int, int]:
    try:
        a, _, b = text.partition("-")
        first, last = int(a), int(b or a)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected lines as A-B (1-based), got {text!r}") from None
    if first < 1 or last < first:
        raise argparse.ArgumentTypeError(f"bad line range {text!r}: need 1 <= A <= B")
    return first, last


def _model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default=DEFAULT_MODEL,
                        help="smollm2 (embedded), gguf:PATH, ollama:NAME[:TAG], random:tiny, random:qwen2.5-0.5b, "
                             "a local path or a hub id")
    parser.add_argument("--device", default=None, help="cpu, cuda, cuda:1 ... (default: cuda if available)")
    parser.add_argument("--dtype", default="auto", help="auto, bf16, fp16, fp32")
    parser.add_argument("--backend", choices=("auto", "torch", "llamacpp", "vllm", "local"), default="auto",
                        help="torch or llamacpp: the model runs in this process (llamacpp for GGUF files, an extra: "
                             "pip install 'cad-lsp[llamacpp]'); vllm: a vLLM server runs it (docs/vllm.md); auto "
                             "(default): llamacpp for gguf: and ollama: models, else torch; local: torch's old name")
    parser.add_argument("--vllm-url", default=None, help="the vLLM server, e.g. http://gpu-host:8000 (--backend vllm)")


def _edit_here(args: argparse.Namespace, request: dict) -> dict:
    """The edit in this process: load the model, answer the request as the background process would."""
    from .backends import open_engine
    from .backends.catalog import ModelLoadError
    from .engine import EngineError

    try:
        engine = open_engine(args.model, args.device, args.dtype, args.backend, args.vllm_url)
    except (ModelLoadError, EngineError) as exc:
        return {"error": str(exc)}
    return warm.answer(engine, request)


def _number_problems(args: argparse.Namespace) -> str | None:
    if args.max_tokens is not None and args.max_tokens < 1:
        return f"--max-tokens must be at least 1, got {args.max_tokens}"
    if args.context_lines is not None and args.context_lines < 1:
        return f"--context-lines must be at least 1, got {args.context_lines}"
    return None


def _answer(args: argparse.Namespace, request: dict) -> dict:
    """The request answered by the background process for this model (started if none runs), else here."""
    from .backends import resolve_backend

    backend = resolve_backend(args.model, args.backend)
    if backend != "vllm" and args.keep_warm > 0 and warm.supported():
        try:
            return warm.edit_in_background(request, args.model, args.device, args.dtype, args.keep_warm,
                                           log=lambda line: print(line, file=sys.stderr), backend=backend)
        except warm.WorkerGone as exc:
            print(f"cad-lsp: {exc}; loading the model in this process", file=sys.stderr)
    return _edit_here(args, request)


def cmd_edit(args: argparse.Namespace) -> int:
    from .program import selection_problem

    path = Path(args.file)
    document, problem = read_document(path)
    first, last = args.lines
    if problem is None:  # every check that needs no model, before one loads (seconds to a minute)
        problem = selection_problem(document, first, last)
    if problem is None and not args.instruction.strip():
        problem = "the instruction is empty"
    problem = problem or _number_problems(args)
    if problem is not None:
        print(f"cad-lsp: {path}: {problem}", file=sys.stderr)
        return 2
    request = {"document": document, "first": first, "last": last, "instruction": args.instruction,
               "name": path.name, "key": str(path.resolve()), "max_tokens": args.max_tokens,
               "temperature": args.temperature, "seed": args.seed, "speculate": not args.no_speculation,
               "context_lines": args.context_lines}
    return _finish(args, path, document, _answer(args, request))


def cmd_apply(args: argparse.Namespace) -> int:
    from .program.update import UpdateError, merge_update

    if args.answer is not None or args.update is None:
        return _apply_answer(args)
    if args.file is None:
        print("cad-lsp: apply needs the FILE to apply --update to", file=sys.stderr)
        return 2
    path = Path(args.file)
    document, problem = read_document(path)
    update, update_problem = read_update(args.update)
    if problem is None and update_problem is not None:
        problem = update_problem
    if problem is None and not document:
        problem = "the file is empty: there is nothing to apply an update to"
    if problem is None:  # no place for the update, or a merge that breaks the file: refused before a model loads
        try:
            merge_update(document, update, path.name, force=args.force)
        except UpdateError as exc:
            problem = str(exc)
    problem = problem or _number_problems(args)
    if problem is not None:
        print(f"cad-lsp: {path}: {problem}", file=sys.stderr)
        return 2
    request = {"task": "apply", "document": document, "update": update, "instruction": args.instruction,
               "name": path.name, "key": str(path.resolve()), "max_tokens": args.max_tokens,
               "temperature": args.temperature, "seed": args.seed, "speculate": not args.no_speculation,
               "context_lines": args.context_lines, "language": path.name, "force": args.force}
    return _finish(args, path, document, _answer(args, request))


def _apply_answer(args: argparse.Namespace) -> int:
    """``apply --answer``: every file a chat answer changes (``apply_answer``); no model loads."""
    from .apply_answer import cmd_apply_answer

    if args.answer is None:
        print("cad-lsp: apply needs --update (a snippet for FILE) or --answer (a whole chat answer)", file=sys.stderr)
        return 2
    if args.update is not None:
        print("cad-lsp: give --update or --answer, not both", file=sys.stderr)
        return 2
    return cmd_apply_answer(args)


def _finish(args: argparse.Namespace, path: Path, document: str, record: dict) -> int:
    """Print an answered request (program, diff and stats, or --json) and write it back if asked."""
    from .program import apply_program, parse_program

    if "error" in record:
        print(f"cad-lsp: {record['error']}", file=sys.stderr)
        return 2
    if record.get("advice"):
        print(f"cad-lsp: {record['advice']}", file=sys.stderr)
    if record.get("unseen_note"):
        print(f"cad-lsp: {record['unseen_note']}", file=sys.stderr)
    first, last = record["first"], record["last"]
    ops = parse_program(record["program"])
    new_document = apply_program(ops, document, first, last)
    s, window = record["stats"], record["window"]
    whole_file = getattr(args, "command", None) == "apply"
    if args.json:
        from .program.edits import text_edits  # imports lsprotocol (0.6 s), which only --json needs

        edits = [{"range": {"start": {"line": e.range.start.line, "character": e.range.start.character},
                            "end": {"line": e.range.end.line, "character": e.range.end.character}},
                  "newText": e.new_text} for e in text_edits(ops, document, first, last)]
        answer = {"program": record["program"], "text": new_document if whole_file else record["text"],
                  "lines": [first, last], "complete": record["complete"], "edits": edits, "stats": s,
                  "window": None if window is None else window[:2]}
        if whole_file:
            answer["removed_unseen"] = record.get("removed_unseen", [])
        print(json.dumps(answer, ensure_ascii=False))
    elif not record["complete"]:
        print("program (incomplete):\n" + record["program"])
    else:
        print(f"program (lines {first}-{last}):\n" + record["program"] if whole_file else
              "program:\n" + record["program"])
        diff = difflib.unified_diff(document.splitlines(True), new_document.splitlines(True),
                                    f"a/{path.name}", f"b/{path.name}")
        print("".join(diff) or "(no change)")
    if not args.json:
        print(f"stats: {s['sampled_tokens']} sampled, {s['forced_tokens']} forced, {s['spliced_tokens']} spliced "
              f"tokens; {s['forwards']} forwards ({s['splice_forwards']} with copies, {s['accepted_tokens']} of "
              f"{s['drafted_tokens']} drafted tokens accepted); prompt {s['prompt_tokens']} tokens "
              f"({s['cached_tokens']} cached); {s['total_s']:.2f} s")
        if window is not None:
            print(f"shown: lines {window[0]}-{window[1]} of {window[2]}")
    if not record["complete"]:
        print("cad-lsp: the program hit --max-tokens before it ended; nothing applied", file=sys.stderr)
        return 1
    if args.write:
        problem = write_back(path, document, new_document)
        if problem is not None:
            print(f"cad-lsp: {path}: {problem}; nothing written", file=sys.stderr)
            return 1
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from .lsp.server import serve

    for flag in ("node_ipc", "pipe", "socket"):
        if getattr(args, flag):
            print(f"cad-lsp: --{flag.replace('_', '-')} is not supported: start the server on stdio "
                  "(the default, --stdio) or with --tcp", file=sys.stderr)
            return 2
    if args.stdio and args.tcp:
        print("cad-lsp: --stdio and --tcp exclude each other", file=sys.stderr)
        return 2
    serve(model=args.model, device=args.device, dtype=args.dtype, backend=args.backend, vllm_url=args.vllm_url,
          max_tokens=args.max_tokens, needs_confirmation=not args.no_confirm, tcp=args.tcp, host=args.host,
          port=args.port, log_level=args.log_level)
    return 0


def cmd_http(args: argparse.Namespace) -> int:
    from .http.server import serve
    from .http.settings import Settings

    return serve(Settings.from_args(args))


def cmd_train(args: argparse.Namespace) -> int:
    from .train.sft import TrainConfig, train

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    quick = dict(model="random:tiny", sequences=8, accumulate=2, warmup=1) if args.quick else {}
    cfg = TrainConfig(**{"model": args.model, "sequences": args.sequences, "lr": args.lr, "rank": args.rank,
                         "seed": args.seed, "device": args.device or "cpu", "bf16": args.bf16, "quick": args.quick,
                         "families": args.families, "apply": args.apply,
                         **quick})
    cfg.out = Path(args.out) if args.out else (Path("out") / "adapter-quick" if args.quick else cfg.out)
    record = train(cfg, log=lambda line: print(line, file=sys.stderr))
    print(json.dumps({k: v for k, v in record.items() if k != "losses"}, indent=1))
    print(f"adapter -> {cfg.out}", file=sys.stderr)
    return 0


def cmd_bench(argv: list[str]) -> int:
    root = Path(__file__).resolve().parent.parent
    if not (root / "bench" / "__init__.py").is_file():
        print("cad-lsp: the benchmarks live in the source checkout's bench/ folder", file=sys.stderr)
        return 2
    sys.path.insert(0, str(root))
    from bench.runner import main as bench_main

    return bench_main(argv)


def _request_options(parser: argparse.ArgumentParser) -> None:
    """What edit and apply share: the model, decoding, the window, the background process, the output."""
    _model_options(parser)
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="program token limit (default: from the selection or the update)")
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="sampling temperature (default 0: greedy, the same program every run)")
    parser.add_argument("--seed", type=int, default=0, help="random seed for sampling (--temperature > 0)")
    parser.add_argument("--no-speculation", action="store_true",
                        help="do not draft the program ahead (the same program, in more forwards)")
    parser.add_argument("--context-lines", type=int, default=DEFAULT_CONTEXT_LINES,
                        help="show the model at most this many lines around the change, a window of whole "
                             f"{BLOCK_LINES}-line blocks (default {DEFAULT_CONTEXT_LINES}; fewer when the model's "
                             "context is shorter)")
    parser.add_argument("--keep-warm", type=int, default=warm.keep_warm_default(), metavar="SECONDS",
                        help="keep the model loaded in a background process for the next runs until this many "
                             f"seconds pass without one (default ${warm.KEEP_WARM_ENV} or {warm.DEFAULT_KEEP_WARM_S}; "
                             "0: load it in this process and keep nothing)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object: program, text (apply: the whole merged file), lines, edits, stats; "
                             "apply: removed_unseen, the file lines [first, last] it removes that the update did "
                             "not show")
    parser.add_argument("--write", action="store_true",
                        help="write the result back to the file (atomically, and only if the file did not change "
                             "meanwhile; exit code 1 if it did)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cad-lsp", description=DESCRIPTION, epilog=_example(None),
                                     formatter_class=RAW)
    parser.add_argument("--version", action="version", version=f"cad-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    edit = sub.add_parser("edit", epilog=_example("edit"), formatter_class=RAW,
                          help="edit lines of a file and print the program, a diff and stats")
    edit.add_argument("file", help="the file to edit (UTF-8 text)")
    edit.add_argument("--lines", type=_line_range, required=True, help="A-B, 1-based, inclusive")
    edit.add_argument("--instruction", required=True, help='what to do, e.g. "Add type hints"')
    _request_options(edit)
    edit.set_defaults(run=cmd_edit)

    apply = sub.add_parser("apply", epilog=_example("apply"), formatter_class=RAW,
                           help="merge a chat model's update snippet into a file and print the program, a diff "
                                "and stats")
    apply.add_argument("file", nargs="?", default=None,
                       help="the file to apply the update to (UTF-8 text); with --answer, the file for code blocks "
                            "that name none (optional)")
    apply.add_argument("--update", default=None, metavar="PATH",
                       help="the update: changed code with unchanged stretches elided by comments such as "
                            "'# ... existing code ...', or a unified diff (a file, or - for standard input)")
    apply.add_argument("--answer", default=None, metavar="PATH",
                       help="a whole chat answer (markdown, a file or - for standard input): every code block that "
                            "names a file is applied to it, in one review; --write writes all of them or nothing")
    apply.add_argument("--root", default=None, metavar="DIR",
                       help="with --answer: the folder the answer's paths are relative to (default: here); files "
                            "outside it are refused")
    apply.add_argument("--partial", action="store_true",
                       help="with --answer --write: write the files that merged even if other blocks were refused, "
                            "placed in no file or their files changed on disk (all or nothing otherwise)")
    apply.add_argument("--instruction", default=None, help="what the update is for, as the chat said it (optional)")
    apply.add_argument("--force", action="store_true",
                       help="apply a merge that leaves a file which parsed unparsable (refused otherwise), e.g. an "
                            "update that opens a block for you to finish")
    _request_options(apply)
    apply.set_defaults(run=cmd_apply)

    serve = sub.add_parser("serve", epilog=_example("serve"), formatter_class=RAW,
                           help="run the language server (stdio unless --tcp)")
    _model_options(serve)
    serve.add_argument("--max-tokens", type=int, default=None,
                       help="program token limit per request (default: from the selection)")
    serve.add_argument("--no-confirm", action="store_true", help="apply edits without asking the editor to confirm")
    serve.add_argument("--tcp", action="store_true", help="listen on TCP (loopback only) instead of stdio")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on with --tcp (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=2087, help="port to listen on with --tcp (default 2087)")
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="warning",
                       help="what the server writes to stderr (default: warning); the editor's log gets "
                            "every detail through window/logMessage either way")
    # What editors' LSP clients append to the command line (vscode-languageclient: --stdio and
    # --clientProcessId=PID).  stdio is the default; the other transports are refused clearly.
    serve.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    serve.add_argument("--clientProcessId", type=int, default=None, metavar="PID",
                       help="the editor's process id, as LSP clients pass it; accepted and not needed: the "
                            "server exits when the editor closes its stdin")
    serve.add_argument("--node-ipc", action="store_true", help=argparse.SUPPRESS)
    serve.add_argument("--pipe", default=None, help=argparse.SUPPRESS)
    serve.add_argument("--socket", default=None, help=argparse.SUPPRESS)
    serve.set_defaults(run=cmd_serve)

    http = sub.add_parser("http", epilog=_example("http"), formatter_class=RAW,
                          help="serve an OpenAI-compatible apply endpoint (Morph's format) over HTTP "
                               "(docs/apply-clients.md)")
    _model_options(http)
    http.add_argument("--host", default="127.0.0.1",
                      help="address to listen on (default 127.0.0.1; any other needs --api-key)")
    http.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    http.add_argument("--api-key", default=None, metavar="KEY",
                      help="require 'Authorization: Bearer KEY' on every request (or set $CAD_LSP_API_KEY, which "
                           "keeps the key out of the process list)")
    http.add_argument("--allow-origin", default=None, metavar="ORIGIN",
                      help="send CORS headers to this one browser origin, e.g. http://localhost:3000 (default: none)")
    http.add_argument("--max-tokens", type=int, default=None,
                      help="the most program tokens a request may decode (default: from the update; a client's "
                           "max_tokens may ask for fewer)")
    http.add_argument("--context-lines", type=int, default=DEFAULT_CONTEXT_LINES,
                      help="show the model at most this many lines around the change "
                           f"(default {DEFAULT_CONTEXT_LINES})")
    http.add_argument("--queue", type=int, default=8,
                      help="requests that may wait while one decodes; more get 429 (default 8)")
    http.add_argument("--max-body-bytes", type=int, default=8 << 20,
                      help="the largest request body accepted; larger ones get 413 (default 8 MiB)")
    http.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info",
                      help="what the server writes to stderr (default: info, a line per request)")
    http.set_defaults(run=cmd_http)

    tr = sub.add_parser("train", epilog=_example("train"), formatter_class=RAW,
                        help="fine-tune a LoRA adapter that writes edit programs (SFT)")
    tr.add_argument("--model", default="smollm2:base", help="the base model (default: smollm2 without an adapter)")
    tr.add_argument("--out", default=None, help="adapter folder (default out/smollm2-cad; copy it to "
                    "cad_lsp/assets/adapters/smollm2-cad to make smollm2 use it)")
    tr.add_argument("--sequences", type=int, default=320, help="training sequences seen")
    tr.add_argument("--lr", type=float, default=1e-3, help="peak learning rate (default 1e-3)")
    tr.add_argument("--rank", type=int, default=8, help="LoRA rank (default 8)")
    tr.add_argument("--seed", type=int, default=0, help="seed for the data order and initialisation")
    tr.add_argument("--device", default=None, help="cpu (default), cuda ...")
    tr.add_argument("--bf16", action="store_true", help="bf16 autocast (the faster on a GPU)")
    tr.add_argument("--threads", type=int, default=None, help="torch threads")
    tr.add_argument("--quick", action="store_true", help="a few steps on random:tiny and toy edits (for CI)")
    tr.add_argument("--families", action="store_true",
                    help="train on the edit families (delete prints, delete comments, rename, add a docstring) built "
                         "from standard-library modules that bench families never tests")
    tr.add_argument("--apply", action="store_true",
                    help="with --families: also train applying update snippets (three sequences in four), from "
                         "training code only: one adapter for edits and applies")
    tr.set_defaults(run=cmd_train)

    sub.add_parser("bench", help="benchmarks: cad-lsp bench NAME --help", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        return cmd_bench(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback through torch or a socket
        print("cad-lsp: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
