"""Supervised fine-tuning: teach a model to write oracle programs for edit requests.

A training sequence is exactly what the engine's context holds while it
decodes: the prompt, then each op's tag as the model writes it and, after a
copy tag, the copied lines' tokens (spliced at inference).  The loss covers
the tokens the model chooses -- tags, gen text, the end of the program --
and never the prompt or the copied lines, which the model does not write.

LoRA rather than full fine-tuning: the adapter of a 135M model is a few MB
(the full delta would be the whole 540 MB model), it merges into the base
weights at load so inference costs nothing extra, and the base stays the
embedded GGUF.  Training data is the train split of every corpus (see
``split``) plus edits synthesised from code of train tasks only:
HumanEval solutions and windows of the requests files, each with one
injected bug to fix or one identifier to rename.
"""

from __future__ import annotations

import gzip
import json
import math
import random
import re
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from ..backends.catalog import SMOLLM2_ADAPTER
from ..engine.decode import copy_tokens
from ..engine.prompt import build_prompt
from ..program import Copy, Document, format_op, split_lines
from . import corpora
from . import split as split_mod
from .split import Request, oracle_for, request_for, window

IGNORE = -100
TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
SHIPPED_ADAPTER = SMOLLM2_ADAPTER  # smollm2 merges it when present
DEFAULT_OUT = Path("out") / "smollm2-cad"  # the shipped adapter came from `--families --sequences 160` (bench families)
COMMIT_MARGIN = 20  # lines of file kept around a commit's selection in training documents
TRAIN_CORPORA = ["humanevalfix-py", "humanevalfix-js", "quixbugs", "commits"]


# ---------------------------------------------------------------------------
# Training sequences


@dataclass
class Sequence:
    ids: list[int]
    labels: list[int]  # IGNORE where no loss is taken
    source: str
    prompt_len: int = 0


def training_sequence(tokenizer, request: Request, ops, eos: int, name: str = "document",
                      source: str = "", update: str | None = None) -> Sequence:
    """Prompt + program as the engine streams it, with the loss masked on prompt and copied lines.

    Tags are tokenized op by op (as ``engine.program_script`` does) and copied
    lines by ``engine.copy_tokens``, so the ids equal what a teacher-forced
    engine run appends to its cache, plus the end-of-program token.  An apply
    passes the ``update`` as ``Engine.apply`` shows it (``update_hints``).
    """
    prompt = build_prompt(tokenizer, request.document, request.first, request.last, request.instruction, name,
                          update=update)
    ids = list(prompt.ids)
    labels = [IGNORE] * len(ids)
    doc = Document(request.document)
    for op in ops:
        tag = tokenizer.encode(format_op(op) + "\n", add_special_tokens=False)
        ids += tag
        labels += tag
        if isinstance(op, Copy):
            content = copy_tokens(tokenizer, doc, op)
            ids += content
            labels += [IGNORE] * len(content)
    ids.append(eos)
    labels.append(eos)
    return Sequence(ids, labels, source, len(prompt.ids))


def end_of_program(tokenizer) -> int:
    """The token that ends a program: the one the engine's grammar accepts as its end."""
    from ..engine.grammar import ll_tokenizer

    return ll_tokenizer(tokenizer).eos_token


# ---------------------------------------------------------------------------
# Data: the train split, and edits synthesised from train-task code

_SWAPS = [(" <= ", " < "), (" < ", " <= "), (" >= ", " > "), (" > ", " >= "), (" == ", " != "), (" != ", " == "),
          (" + ", " - "), (" - ", " + "), (" and ", " or "), (" or ", " and "), ("True", "False"),
          ("False", "True"), ("+= ", "-= "), (" * ", " + "), ("[0]", "[1]"), ("[-1]", "[0]")]
_INT_RE = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
_NAME_RE = re.compile(r"\b([a-z_][a-z0-9_]{2,})\s*=(?!=)")
_RENAMES = ["value", "result", "item", "count", "total", "data", "current", "output"]


def inject_bug(code: str, rng: random.Random) -> tuple[str, str] | None:
    """(buggy code, kind): one plausible one-line bug in a code line, or None when none fits."""
    lines = split_lines(code)
    body = [i for i, line in enumerate(lines)
            if line.strip() and not line.lstrip().startswith(("#", '"""', "'''", "def ", "class ", "import ", "from ", ">>>"))]
    rng.shuffle(body)
    for i in body:
        line = lines[i]
        choices = [(a, b) for a, b in _SWAPS if a in line]
        if _INT_RE.search(line):
            choices.append(("int", ""))
        if len(line.strip()) > 4:
            choices.append(("delete", ""))
        if not choices:
            continue
        a, b = rng.choice(choices)
        if a == "delete":
            return "".join(lines[:i] + lines[i + 1 :]), "delete"
        if a == "int":
            m = rng.choice(list(_INT_RE.finditer(line)))
            bumped = str(int(m.group(1)) + rng.choice((1, -1)) if m.group(1) != "0" else 1)
            line = line[: m.start()] + bumped + line[m.end() :]
        else:
            at = rng.choice([m.start() for m in re.finditer(re.escape(a), line)])
            line = line[:at] + b + line[at + len(a) :]
        return "".join(lines[:i] + [line] + lines[i + 1 :]), "swap"
    return None


def rename(code: str, rng: random.Random) -> tuple[str, str, str] | None:
    """(renamed code, old, new): an assigned name used at least twice, renamed everywhere."""
    names = sorted({m.group(1) for m in _NAME_RE.finditer(code)})
    names = [n for n in names if len(re.findall(rf"\b{n}\b", code)) >= 2 and n not in ("self", "cls")]
    if not names:
        return None
    old = rng.choice(names)
    new = next((n for n in rng.sample(_RENAMES, len(_RENAMES)) if not re.search(rf"\b{n}\b", code)), None)
    if new is None:
        return None
    return re.sub(rf"\b{old}\b", new, code), old, new


def humaneval_solutions() -> list[tuple[str, str, str]]:
    """(task id, entry point, prompt + canonical solution) of every HumanEval problem."""
    folder = corpora.data_dir()
    path = folder / "humaneval" / "HumanEval.jsonl.gz" if folder else None
    if path is None or not path.is_file():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [(r["task_id"], r["entry_point"], r["prompt"] + r["canonical_solution"]) for r in rows]


def whole(document: str, after: str, instruction: str) -> Request:
    n = max(len(split_lines(document)), 1)
    return Request(document, 1, n, instruction, after, after)


def corpus_requests() -> list[tuple[Request, str]]:
    """(request, source) for every train row; HumanEvalFix rows also in their no-docstring form."""
    out = []
    for name in TRAIN_CORPORA:
        train, _ = split_mod.split(corpora.load(name))
        for pair in train:
            request = request_for(pair)
            out.append((window(request, COMMIT_MARGIN) if name == "commits" else request, name))
            if "before_nodoc" in pair.extra:
                nodoc = whole(pair.extra["before_nodoc"], pair.extra["after_nodoc"], pair.instruction)
                out.append((nodoc, name + " (no docstring)"))
    return out


def synthetic_requests(seed: int) -> list[tuple[Request, str]]:
    """Edits made from train-task code: a bug to fix, or a name to change.

    HumanEval solutions (train tasks only: a test task's solution is its
    gold answer) give whole-function selections; requests files (train
    commits only) give 40-line windows with a selection around the change.
    """
    rng = random.Random(seed)
    out = []
    for task_id, entry, code in humaneval_solutions():
        if split_mod.is_test(task_id):
            continue
        bug = inject_bug(code, rng)
        if bug:
            out.append((whole(bug[0], code, f"Fix bugs in {entry}."), f"humaneval {bug[1]}"))
        renamed = rename(code, rng)
        if renamed:
            out.append((whole(code, renamed[0], f"Rename {renamed[1]} to {renamed[2]}."), "humaneval rename"))
    train, _ = split_mod.split(corpora.load("commits"))
    for pair in train:
        lines = split_lines(pair.after)
        if len(lines) < 12:
            continue
        start = rng.randrange(0, max(1, len(lines) - 40))
        code = "".join(lines[start : start + 40])
        bug = inject_bug(code, rng)
        if bug:
            request = request_for_change(bug[0], code, "Fix the bug.")
            if request:
                out.append((request, f"commits {bug[1]}"))
        renamed = rename(code, rng)
        if renamed:
            out.append((whole(code, renamed[0], f"Rename {renamed[1]} to {renamed[2]}."), "commits rename"))
    return out


def request_for_change(before: str, after: str, instruction: str) -> Request | None:
    """A request selecting the changed lines and three lines around them (as commits are evaluated)."""
    changed = split_mod.changed_lines(before, after)
    if changed is None:
        return None
    n = len(split_lines(before))
    first, last = max(1, changed[0] - 3), min(n, changed[1] + 3)
    new = split_lines(after)
    target = "".join(new[first - 1 : len(new) - (n - last)])
    return Request(before, first, last, instruction, target, after)


def build_dataset(tokenizer, seed: int = 0, max_tokens: int = 1024, quick: bool = False,
                  families: bool = False) -> list[Sequence]:
    """Shuffled training sequences (no test row, no test task) of at most ``max_tokens``.

    ``families``: the edit families of ``cad_lsp.families`` on TRAIN_MODULES only.
    """
    eos = end_of_program(tokenizer)
    if families:
        items = family_requests()
    elif quick or corpora.data_dir() is None:
        items = toy_requests()
    else:
        items = corpus_requests() + synthetic_requests(seed)
    sequences = []
    for request, source in items:
        ops = oracle_for(request)
        seq = training_sequence(tokenizer, request, ops, eos, source=source)
        if len(seq.ids) <= max_tokens:
            sequences.append(seq)
    random.Random(seed).shuffle(sequences)
    return sequences


def apply_sequences(tokenizer, seed: int = 0, max_tokens: int = 4096, per_module: int = 4) -> list[Sequence]:
    """Apply cases from training code only: synthetic edits of TRAIN_MODULES and the corpora's train split, each
    edit in every update style, as the engine prompts for them (the update placed, the region found); half of
    them carry the chat's instruction."""
    from .families import TRAIN_MODULES
    from .updates import cases_for, synthetic_cases

    eos = end_of_program(tokenizer)
    pairs = [(pid, "stdlib", "python", before, after, instruction)
             for pid, before, after, instruction in synthetic_cases(TRAIN_MODULES, per_module, seed)]
    pairs += corpus_apply_pairs()
    rng = random.Random(seed)
    out = []
    for case in cases_for(pairs, seed):
        seq = apply_sequence(tokenizer, case, case.instruction if rng.random() < 0.5 else None, eos)
        if seq is not None and len(seq.ids) <= max_tokens:
            out.append(seq)
    return out


def apply_sequence(tokenizer, case, instruction: str | None, eos: int, name: str | None = None) -> Sequence | None:
    """One apply case as ``Engine.apply`` streams it: the update placed, the region's program after the prompt.

    The target is the true edit, never the deterministic merge: a case whose
    edit the merge gets wrong outside its region teaches nothing (None).
    """
    from ..engine.backend import EngineError
    from ..engine.engine import plan_apply

    try:
        job = plan_apply(case.document, case.update, instruction)
    except EngineError:
        return None  # no place for this update (ambiguous): nothing to teach
    merge, lines = job.merge, split_lines(case.document)
    prefix, suffix = "".join(lines[: merge.first - 1]), "".join(lines[merge.last:])
    if not (case.after.startswith(prefix) and case.after.endswith(suffix)) or \
            len(prefix) + len(suffix) > len(case.after):
        return None
    target = case.after[len(prefix): len(case.after) - len(suffix)]
    request = Request(case.document, merge.first, merge.last, job.instruction, target, case.after)
    name = name or ("module.js" if case.source.endswith("js") else "module.py")
    return training_sequence(tokenizer, request, oracle_for(request), eos, name=name,
                             source=f"apply:{case.source}:{case.style}", update=job.hints)


def corpus_apply_pairs(margin: int = 40) -> list[tuple[str, str, str, str, str, str]]:
    """(id, source, lang, before, after, instruction) from the corpora's train split; a commit's file is cut to
    the change and ``margin`` lines around it (long files make long prompts)."""
    if corpora.data_dir() is None:
        return []
    out = []
    for name in TRAIN_CORPORA + ["editeval"]:
        train_pairs, _ = split_mod.split(corpora.load(name))
        for pair in train_pairs:
            request = request_for(pair)
            if name == "commits":
                request = window(request, margin)
            lang = "javascript" if pair.lang.lower().startswith("j") else "python"
            out.append((pair.id, name, lang, request.document, request.after, pair.instruction))
    return out


def family_requests() -> list[tuple[Request, str]]:
    """Every family case from the training modules (disjoint from the held-out and few-shot ones)."""
    from .families import FAMILIES, TRAIN_MODULES, cases, request

    return [(request(case), f"family:{family}") for family in FAMILIES for case in cases(family, TRAIN_MODULES, None)]


def toy_requests() -> list[tuple[Request, str]]:
    """A few synthetic edits that need no corpus: for --quick and CI."""
    code = "def add(a, b):\n    total = a + b\n    return total\n\n\ndef sub(a, b):\n    return a - b\n"
    rng = random.Random(0)
    items = []
    for _ in range(4):
        bug = inject_bug(code, rng)
        if bug:
            items.append((whole(bug[0], code, "Fix bugs in add."), "toy"))
    renamed = rename(code, rng)
    items.append((whole(code, renamed[0], f"Rename {renamed[1]} to {renamed[2]}."), "toy"))
    return items


# ---------------------------------------------------------------------------
# Training


@dataclass
class TrainConfig:
    model: str = "smollm2:base"
    out: Path = DEFAULT_OUT
    sequences: int = 320  # training sequences seen (of 778 distinct): ~23 min on one busy CPU core
    accumulate: int = 2  # sequences per optimizer step
    lr: float = 1e-3
    warmup: int = 4  # optimizer steps
    rank: int = 8
    alpha: int = 16
    max_tokens: int = 768
    seed: int = 0
    bf16: bool = False  # autocast; measured slower here (shapes vary per sequence: 1.6 s vs 0.9 s at 232 tokens)
    device: str = "cpu"
    quick: bool = False
    families: bool = False  # train on the edit families (cad_lsp/families.py) instead of the corpora
    apply: bool = False  # ... and on applying update snippets (``apply_sequences``), one adapter for both
    apply_share: float = 0.75  # of the sequences seen, when training on both


def lr_at(step: int, total: int, cfg: TrainConfig) -> float:
    """Linear warmup, then cosine decay to zero."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    progress = (step - cfg.warmup) / max(1, total - cfg.warmup)
    return cfg.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def sequence_loss(model, seq: Sequence, device) -> torch.Tensor:
    """Mean loss over the labelled tokens, with the prompt's keys and values computed without gradients.

    The prompt (system text and the whole numbered document) is most of every
    sequence and carries no loss; running it under no_grad and the program on
    top of its cache gives the same forward and losses, and a backward pass
    only as long as the program.  What it drops is the gradient that would
    reach the adapter through the prompt's keys and values.
    """
    from transformers import DynamicCache

    from ..backends.pytorch.kvcache import cache_argument

    split_at = max(1, seq.prompt_len - 1)  # the prompt's last token predicts the program's first
    cache = DynamicCache(config=model.config)
    with torch.no_grad():
        model(input_ids=torch.tensor([seq.ids[:split_at]], device=device), **cache_argument(model, cache), use_cache=True,
              logits_to_keep=1)
    tail = torch.tensor([seq.ids[split_at:]], device=device)
    labels = torch.tensor([seq.labels[split_at:]], device=device)
    return model(input_ids=tail, labels=labels, **cache_argument(model, cache), use_cache=True).loss


def train(cfg: TrainConfig, log=print) -> dict:
    """Fit a LoRA adapter and save it (fp16 safetensors + config + a record of the run) to cfg.out."""
    from peft import LoraConfig, get_peft_model

    from ..backends.pytorch.loading import load_model

    torch.manual_seed(cfg.seed)
    loaded = load_model(cfg.model, cfg.device, "fp32")
    data = build_dataset(loaded.tokenizer, cfg.seed, cfg.max_tokens, cfg.quick, cfg.families)
    if not data:
        raise RuntimeError("no training sequences")
    order = [data[i % len(data)] for i in range(cfg.sequences)]
    if cfg.apply:  # both tasks in one adapter, so one warm cache serves edits and applies
        applies = apply_sequences(loaded.tokenizer, cfg.seed)
        random.Random(cfg.seed).shuffle(applies)
        rng = random.Random(cfg.seed + 1)
        picks = iter(applies * (1 + cfg.sequences // max(1, len(applies))))
        order = [next(picks) if rng.random() < cfg.apply_share else seq for seq in order]
        data = data + applies
    with warnings.catch_warnings():  # peft reads transformers' deprecated is_gradient_checkpointing property
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
        model = get_peft_model(loaded.model, LoraConfig(r=cfg.rank, lora_alpha=cfg.alpha, lora_dropout=0.0,
                                                        target_modules=TARGET_MODULES, task_type="CAUSAL_LM"))
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=0.0)
    total_steps = math.ceil(len(order) / cfg.accumulate)
    losses, t0, tokens, window_loss = [], time.perf_counter(), 0, []
    autocast = torch.autocast(loaded.device.type, dtype=torch.bfloat16, enabled=cfg.bf16)
    for index, seq in enumerate(order):
        with autocast:
            loss = sequence_loss(model, seq, loaded.device)
        (loss / cfg.accumulate).backward()
        tokens += len(seq.ids)
        window_loss.append(loss.item())
        if (index + 1) % cfg.accumulate == 0 or index + 1 == len(order):
            step = index // cfg.accumulate
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step, total_steps, cfg)
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(sum(window_loss) / len(window_loss))
            window_loss = []
            if step % 5 == 0 or step + 1 == total_steps:
                elapsed = time.perf_counter() - t0
                log(f"step {step + 1}/{total_steps}  loss {losses[-1]:.4f}  {tokens / elapsed:.0f} tok/s  "
                    f"{elapsed:.0f} s")
    seconds = time.perf_counter() - t0
    record = {
        "model": cfg.model, "sequences": len(order), "distinct_sequences": len(data),
        "sources": _count(s.source for s in data), "optimizer_steps": total_steps, "tokens": tokens,
        "seconds": round(seconds, 1), "threads": torch.get_num_threads(), "device": cfg.device,
        "autocast": "bf16" if cfg.bf16 else "fp32", "lr": cfg.lr, "rank": cfg.rank, "alpha": cfg.alpha,
        "accumulate": cfg.accumulate, "seed": cfg.seed, "max_tokens": cfg.max_tokens, "families": cfg.families,
        "apply": cfg.apply, "apply_share": cfg.apply_share if cfg.apply else None,
        "loss_first": losses[0], "loss_last": losses[-1], "losses": [round(x, 4) for x in losses],
    }
    save_adapter(model, cfg.out, record)
    return record


def save_adapter(model, out: Path, record: dict) -> None:
    """The LoRA weights in fp16 (half the bytes; merged into fp32 weights at load) and their config."""
    from peft import get_peft_model_state_dict
    from safetensors.torch import save_file

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in get_peft_model_state_dict(model).items()}
    save_file(state, str(out / "adapter_model.safetensors"))
    config = model.peft_config["default"]
    (out / "adapter_config.json").write_text(json.dumps({
        "peft_type": "LORA", "r": config.r, "lora_alpha": config.lora_alpha,
        "target_modules": sorted(config.target_modules), "base_model": record["model"],
    }, indent=1) + "\n", encoding="utf-8")
    (out / "training.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def _count(items) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return dict(sorted(counts.items()))


__all__ = ["training_sequence", "build_dataset", "inject_bug", "rename", "TrainConfig", "train", "save_adapter",
           "SHIPPED_ADAPTER", "IGNORE"]
