"""The decode loop: grammar-constrained decoding with one-forward copy splices.

Read top to bottom: ``sync_prefix``, ``decode_loop`` and ``autoregressive``
are small functions over a ``ModelBackend`` (``backend.py``); drafts
(``drafter.py``) ride in the same forwards when speculation is on.

Every forward appends *all* tokens already known -- the sampled token, the
tag text the grammar forces after it and, when a copy tag closes, the copied
lines' tokens -- so a copy costs one forward whatever its length (up to
PREFILL_CHUNK tokens; a longer one takes one forward per chunk).
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

import numpy as np

from ..program import Copy, Document, Op, format_op
from . import backend
from .backend import Cancelled, EngineError, KVState, ModelBackend
from .drafter import DraftBudget, Drafter
from .grammar import ProgramConstraint

# ---------------------------------------------------------------------------
# Stats


@dataclass
class Stats:
    prompt_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens found in the warm cache
    prefill_tokens: int = 0  # prompt tokens computed for this request
    decode_steps: int = 0  # forwards that carried a sampled token and no copy
    splice_forwards: int = 0  # forwards that carried copied lines
    forwards: int = 0
    sampled_tokens: int = 0  # tokens chosen by the model (grammar-masked)
    forced_tokens: int = 0  # tag tokens the grammar forced, appended without a decode step
    spliced_tokens: int = 0  # copied lines' tokens appended in splices
    drafted_tokens: int = 0  # drafted choices checked in a forward (speculation)
    accepted_tokens: int = 0  # drafted choices the model chose too: each saved a forward
    drafted_tag_tokens: int = 0  # ... of which tags, line numbers and the end
    accepted_tag_tokens: int = 0
    drafted_gen_tokens: int = 0  # ... <gen> text from the line it rewrites
    accepted_gen_tokens: int = 0
    drafted_lookup_tokens: int = 0  # ... <gen> text found elsewhere in the document or program
    accepted_lookup_tokens: int = 0
    drafted_update_tokens: int = 0  # ... the program an apply's update implies
    accepted_update_tokens: int = 0
    prefill_s: float = 0.0
    decode_s: float = 0.0
    splice_s: float = 0.0
    mask_s: float = 0.0
    total_s: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------
# The loop's small functions


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many tokens two sequences share from the start."""
    common, limit = 0, min(len(a), len(b))
    while common < limit and a[common] == b[common]:
        common += 1
    return common


def sync_prefix(model: ModelBackend, state: KVState, ids: Sequence[int], cancel=None,
                on_chunk: Callable[[int, int], None] | None = None) -> tuple[object | None, int]:
    """Make the state hold exactly ``ids``, computing only what is not cached.

    Keeps the longest common prefix and prefills the rest PREFILL_CHUNK tokens
    at a time, checking ``cancel`` before each chunk: a long document's prefill
    takes a minute on a CPU, and what was computed before a cancel stays cached.
    ``on_chunk(done, total)`` follows each chunk.  Returns (logits after the
    last new token or None, tokens computed).
    """
    common = common_prefix(state.ids, ids)
    model.crop(state, common)
    rest = list(ids[common:])
    logits = None
    for start in range(0, len(rest), backend.PREFILL_CHUNK):
        check_cancel(cancel)
        logits = model.extend(state, rest[start:start + backend.PREFILL_CHUNK])
        if on_chunk is not None:
            on_chunk(min(start + backend.PREFILL_CHUNK, len(rest)), len(rest))
    return logits, len(rest)


def as_logits(logits) -> np.ndarray:
    """A backend's logits as a float32 numpy array: PyTorch's CPU tensors are read in place, llama.cpp's are
    numpy already.  The loop itself imports no model library (a llama.cpp process holds no PyTorch)."""
    return np.asarray(logits, dtype=np.float32)


def sample(logits, allowed: np.ndarray | None, temperature: float = 0.0, top_p: float = 1.0,
           generator: np.random.Generator | None = None, draft: int | None = None) -> int:
    """Greedy by default; temperature/top-p sampling over the allowed tokens only.

    With a ``draft`` token (speculation) sampling stays exact: the draft is
    kept with its probability p(draft), and otherwise a token is drawn from
    the distribution without it, renormalised -- together exactly p.  Greedy
    ignores the draft: it is kept iff it is the argmax.
    """
    logits = as_logits(logits).copy()
    if allowed is not None:
        n = len(allowed)
        logits[:n][~allowed] = -np.inf
        logits[n:] = -np.inf
    if temperature <= 0:
        return int(np.argmax(logits))
    generator = generator if generator is not None else np.random.default_rng()
    scaled = logits / temperature
    probs = np.exp(scaled - scaled.max())
    probs /= probs.sum()
    order = None
    if top_p < 1.0:
        order = np.argsort(-probs, kind="stable")
        probs = probs[order]
        probs[1:][np.cumsum(probs)[:-1] >= top_p] = 0.0
    if draft is not None:
        at = draft if order is None else int(np.flatnonzero(order == draft)[0])
        kept = float(probs[at]) / float(probs.sum())
        if kept > 0 and generator.random() < kept:
            return draft
        probs[at] = 0.0
        if float(probs.sum()) <= 0:
            return draft  # the draft had all the mass (kept above unless round-off)
    cdf = np.cumsum(probs, dtype=np.float64)  # inverse-CDF draw
    index = min(int(np.searchsorted(cdf, generator.random() * cdf[-1], side="right")), len(cdf) - 1)
    while probs[index] == 0:  # float round-off may land on a masked token: step back
        index -= 1
    return int(order[index]) if order is not None else index


def choose_token(logits, constraint: ProgramConstraint, temperature: float = 0.0, top_p: float = 1.0,
                 generator: np.random.Generator | None = None, draft: int | None = None) -> int:
    """``sample`` over the tokens the grammar allows, computing the mask only when it can matter.

    Greedy: when the unmasked argmax is a token the grammar accepts, it is also
    the argmax of the masked logits (masking only removes tokens), so the
    vocabulary-wide mask (~20 ms over 151k tokens) is skipped; that is most
    steps of a model that writes programs, and every accepted drafted position.
    """
    if temperature <= 0:
        top = int(np.argmax(as_logits(logits)[: constraint.vocab_size]))
        if constraint.accepts(top):
            return top
    return sample(logits, constraint.allowed(), temperature, top_p, generator, draft)


def copy_tokens(tokenizer, document: Document, op: Copy) -> list[int]:
    """The copied lines' tokens, as the model would write that text on its own.

    Lines are tokenized together, not line by line: a line boundary often
    falls inside a token (``)\\n\\n``), and this is the sequence a model
    writing these lines would produce.
    """
    start, end = document.line_range_offsets(op.start, op.end)
    return tokenizer.encode(document.text[start:end], add_special_tokens=False)


def check_cancel(cancel) -> None:
    if cancel is None:
        return
    if cancel.is_set() if isinstance(cancel, threading.Event) else cancel():
        raise Cancelled("cancelled")


Chooser = Callable[[object, ProgramConstraint, "int | None"], int]  # (logits, grammar, drafted token) -> token
ExpectForced = Callable[[list[int], ProgramConstraint], bool]


@dataclass
class _Expansion:
    """What one chosen token brings: itself, the tags the grammar forces after it, copied lines."""

    appended: list[int]  # for the cache: the token, forced tokens and copy contents (not the end token)
    forced: list[int]  # forced grammar tokens, in order
    spliced: int  # copied lines' tokens among ``appended``


def expand(constraint: ProgramConstraint, token: int | None, tokenizer, document: Document, fast_forward: bool,
           expect_forced: ExpectForced | None) -> _Expansion:
    """Advance ``constraint`` through ``token`` (None: none, at the program's start) and whatever the grammar
    then forces."""
    result = _Expansion([], [], 0)

    def take(t: int) -> None:
        op = constraint.advance(t)
        if constraint.done:
            return  # the end-of-sequence token never needs a forward
        result.appended.append(t)
        if isinstance(op, Copy):
            content = copy_tokens(tokenizer, document, op)
            result.appended.extend(content)
            result.spliced += len(content)

    if token is not None:
        take(token)
    while fast_forward and not constraint.done:
        forced = constraint.forced()
        if not forced and (sole := constraint.sole_token()) is not None:
            forced = [sole]  # the grammar's own choice, the end of the program included
        if not forced or (expect_forced is not None and not expect_forced(forced, constraint)):
            break
        for t in forced:
            result.forced.append(t)
            take(t)
            if constraint.done:
                break
    return result


@dataclass
class _Draft:
    """A draft laid out for one forward: the tokens to append and where each drafted choice sits."""

    tokens: list[int] = field(default_factory=list)
    choices: list[tuple[int, int, str]] = field(default_factory=list)  # (index in tokens, token, kind)
    spliced: int = 0  # copied lines' tokens among ``tokens``
    unsent: tuple[int, str] | None = None  # the first choice the budget cut (token, kind): checked for free


def lay_out_draft(constraint: ProgramConstraint, drafter: Drafter, budget: DraftBudget, tokenizer,
                  document: Document, fast_forward: bool, expect_forced: ExpectForced | None,
                  pending: int) -> _Draft:
    """The drafter's proposal as the plain loop would append it (forced tags, copied lines), on a copy of
    the grammar; cut where the grammar refuses it and where the budget says more is not worth its cost."""
    proposal = drafter.propose(constraint.ops, constraint.next_line, constraint.copy_start, constraint.op_text,
                               constraint.op_tokens)
    laid, twin, i, sizes, spliced = _Draft(), None, 0, [], []
    while i < len(proposal.tokens) and len(laid.choices) < MAX_DRAFT_CHOICES:
        twin = twin or constraint.clone()
        if twin.done:
            break
        token = proposal.tokens[i]
        if not twin.accepts(token):
            break
        step = expand(twin, token, tokenizer, document, fast_forward, expect_forced)
        laid.choices.append((len(laid.tokens), token, proposal.kinds[i]))
        laid.tokens += step.appended
        laid.spliced += step.spliced
        sizes.append(len(step.appended))
        spliced.append(step.spliced)
        i += 1
        if proposal.tokens[i:i + len(step.forced)] != step.forced:
            break  # the proposal and the grammar part: what follows would be misplaced
        i += len(step.forced)
    keep = budget.keep([kind for _, _, kind in laid.choices], sizes, pending)
    if keep < len(laid.choices):
        laid.unsent = laid.choices[keep][1:]
        laid.tokens, laid.choices = laid.tokens[:laid.choices[keep][0]], laid.choices[:keep]
        laid.spliced = sum(spliced[:keep])
    return laid


MAX_DRAFT_CHOICES = 64  # drafted choices per forward at most


def decode_loop(model: ModelBackend, state: KVState, constraint: ProgramConstraint, tokenizer, document: Document,
                logits: object | None, choose: Chooser, stats: Stats, *, max_tokens: int = 2048,
                fast_forward: bool = True, cancel=None, progress=None, expect_forced: ExpectForced | None = None,
                drafter: Drafter | None = None, budget: DraftBudget | None = None,
                unsent: Sequence[int] = ()) -> bool:
    """Run the program to its end; returns False if max_tokens was hit first.

    ``choose`` picks the next token from the logits (sampling, or a script
    for teacher forcing).  Forced tag tokens join the next forward when
    ``fast_forward``; a closed copy tag adds the copied lines' tokens to it.

    With a ``drafter`` each forward also carries a draft of the next choices
    (speculation): the forward scores every drafted position, the loop chooses
    at each as it would have anyway, keeps the draft up to the first choice
    that differs, and crops the rest from the cache.  The program is the one
    the plain loop writes, token for token.

    ``unsent`` (with ``logits`` None) are prompt tokens not in the cache yet:
    they go with the first forward the program needs, after what the grammar
    writes alone (an apply's request: the model reads it only for a call the
    grammar leaves it).
    """
    pending: list[int] = list(unsent)
    carries_copy = False
    budget = budget or DraftBudget()
    budget.new_request()
    if logits is None:
        head = expand(constraint, None, tokenizer, document, fast_forward, expect_forced)
        stats.forced_tokens += len(head.forced)
        stats.spliced_tokens += head.spliced
        pending += head.appended
        carries_copy = head.spliced > 0
        if stats.forced_tokens > max_tokens:
            return False  # a program longer than max_tokens is cut short, decided or not
        if constraint.done:
            return True

    def choose_and_expand(scores, drafted: int | None) -> tuple[int, _Expansion]:
        """The loop's choice at one position (the draft's token there, if any, as a hint), taken."""
        t0 = time.perf_counter()
        token = choose(scores, constraint, drafted)
        stats.mask_s += time.perf_counter() - t0
        step = expand(constraint, token, tokenizer, document, fast_forward, expect_forced)
        stats.sampled_tokens += 1
        stats.forced_tokens += len(step.forced)
        stats.spliced_tokens += step.spliced
        return token, step

    def record(kind: str, accepted: bool, first: bool) -> None:
        budget.record(kind, accepted, first)
        stats.drafted_tokens += 1
        stats.accepted_tokens += accepted
        setattr(stats, f"drafted_{kind}_tokens", getattr(stats, f"drafted_{kind}_tokens") + 1)
        if accepted:
            setattr(stats, f"accepted_{kind}_tokens", getattr(stats, f"accepted_{kind}_tokens") + 1)

    while True:
        check_cancel(cancel)
        draft = _Draft()
        if (drafter is not None and pending and stats.sampled_tokens + stats.forced_tokens < max_tokens
                and budget.worth_drafting()):  # a draft rides on a forward that runs anyway: never one more
            t0 = time.perf_counter()
            draft = lay_out_draft(constraint, drafter, budget, tokenizer, document, fast_forward, expect_forced,
                                  len(pending))
            budget.observe_draft(time.perf_counter() - t0)
            stats.mask_s += time.perf_counter() - t0
        if pending or draft.tokens:
            sent = pending + draft.tokens
            base = len(state.ids)
            rows = [len(pending) + at - 1 for at, _, _ in draft.choices]
            t0 = time.perf_counter()
            if draft.choices:
                scored = model.extend_scored(state, sent, [r for r in rows if r >= 0] + [len(sent) - 1])
                after = scored[-1]
            else:
                scored, after = (), model.extend(state, sent)
            elapsed = time.perf_counter() - t0
            budget.observe_forward(len(sent), elapsed)
            stats.forwards += 1
            if carries_copy or draft.spliced:
                stats.splice_forwards += 1
                stats.splice_s += elapsed
            else:
                stats.decode_steps += 1
                stats.decode_s += elapsed
            stats.prefill_tokens += len(unsent)  # the prompt's last tokens, read with the program's first ones
            unsent = ()
            pending.clear()
            carries_copy = False
            row_logits = iter(scored)
            rejected = False
            for index, ((at, drafted, kind), row) in enumerate(zip(draft.choices, rows)):
                check_cancel(cancel)  # checking a long draft takes a while too (a mask per position)
                here = logits if row < 0 else next(row_logits)
                if stats.sampled_tokens + stats.forced_tokens >= max_tokens:
                    model.crop(state, base + len(sent) - len(draft.tokens) + at)
                    return False
                token, step = choose_and_expand(here, drafted)
                record(kind, token == drafted, index == 0)
                if token != drafted:
                    model.crop(state, base + len(sent) - len(draft.tokens) + at)
                    pending, carries_copy, rejected = step.appended, step.spliced > 0, True
                    break
                if constraint.done:
                    return True
            if rejected:
                if constraint.done:
                    return True
                if progress is not None:
                    progress(stats)
                continue
            logits = after
        if stats.sampled_tokens + stats.forced_tokens >= max_tokens:
            return False
        token, step = choose_and_expand(logits, None)
        if draft.unsent is not None:  # the choice after the draft sent is made anyway: was the budget right?
            budget.record(draft.unsent[1], token == draft.unsent[0], not draft.choices)
        pending, carries_copy = step.appended, step.spliced > 0
        if progress is not None:
            progress(stats)
        if constraint.done:
            return True


def program_script(tokenizer, ops: Sequence[Op], eos: int) -> list[int]:
    """The tokens a model writes for a program: each op's text (copy contents are spliced, not written)."""
    script: list[int] = []
    for op in ops:
        script += tokenizer.encode(format_op(op) + "\n", add_special_tokens=False)
    return script + [eos]


class TeacherScript:
    """Teacher forcing: the next token comes from a script, and forced tokens must match it.

    The script's position is the number of tokens the grammar has consumed,
    so a draft tried on a copy of the grammar reads the same script.
    """

    def __init__(self, script: list[int]):
        self.script = script

    def choose(self, logits, constraint: ProgramConstraint, draft: int | None = None) -> int:
        if constraint.consumed >= len(self.script):
            raise EngineError("the teacher program ended before the grammar did")
        return self.script[constraint.consumed]

    def expect_forced(self, forced: list[int], constraint: ProgramConstraint) -> bool:
        at = constraint.consumed
        return self.script[at:at + len(forced)] == forced  # else tokenized differently: the script drives these


def autoregressive(model: ModelBackend, state: KVState, ids: Sequence[int], cancel=None) -> tuple[int, float]:
    """The baseline: append ``ids`` one decode step each. Returns (forwards, seconds)."""
    t0 = time.perf_counter()
    for token in ids:
        check_cancel(cancel)
        model.extend(state, [token])
    return len(ids), time.perf_counter() - t0


__all__ = [
    "EngineError", "Cancelled", "Stats", "common_prefix", "sync_prefix", "sample", "choose_token", "copy_tokens", "check_cancel",
    "expand", "decode_loop", "program_script", "TeacherScript", "autoregressive",
]
