"""The decode loop: grammar-constrained decoding with one-forward copy splices.

Read top to bottom: ``LocalModel`` is the seam (token ids in, logits out,
a KV cache it can extend and crop); ``sync_prefix``, ``decode_loop``,
``teacher_forced`` and ``autoregressive`` are small functions over it; the
``Engine`` adds warm per-document caches and the request plumbing.

Every forward appends *all* tokens already known -- the sampled token, the
tag text the grammar forces after it and, when a copy tag closes, the copied
lines' tokens -- so a copy costs one forward whatever its length (up to
PREFILL_CHUNK tokens; a longer one takes one forward per chunk).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Callable, Protocol, Sequence

import numpy as np
import torch

from . import grammar as grammar_mod
from .attention import use_grouped_attention
from .drafter import Drafter, DraftBudget
from .grammar import ProgramConstraint
from .kvcache import cache_nbytes, growing_cache
from .models import LoadedModel
from .program import Copy, Document, Op, format_op, format_program, resolve, selection_problem, split_lines
from .prompt import Prompt, build_prompt, document_prefix_ids, numbered_line_tokens
from .window import BLOCK_LINES, SelectionTooLong, Window, choose_window


PREFILL_CHUNK = 2048  # tokens per forward at most: bounds attention memory, and how long a cancel waits
WARM_CHUNK = 256  # tokens per turn of a background warm: an edit arriving meanwhile waits for one such forward
MIN_PROGRAM_TOKENS = 16  # room a request must leave in the model's context for its program


class EngineError(ValueError):
    """A request the engine cannot serve (bad selection, empty document...)."""


class Cancelled(RuntimeError):
    """The request was cancelled; nothing was produced."""


# ---------------------------------------------------------------------------
# The seam: anything that can extend a token sequence and return the next logits.


@dataclass
class KVState:
    """Token ids whose keys and values the backend holds, and its handle on them."""

    ids: list[int] = field(default_factory=list)
    cache: object = None


class ModelBackend(Protocol):
    vocab_size: int

    def new_state(self) -> KVState: ...

    def extend(self, state: KVState, ids: Sequence[int]) -> torch.Tensor:
        """Append ids in ONE forward; return float32 logits after the last one."""

    def extend_scored(self, state: KVState, ids: Sequence[int], positions: Sequence[int]) -> torch.Tensor:
        """Append ids in one forward; float32 logits after each of ``positions`` (indices into ids), one row each."""

    def crop(self, state: KVState, length: int) -> None:
        """Forget everything after the first ``length`` tokens."""

    def nbytes(self, state: KVState) -> int: ...


def output_layer_share(model) -> float:
    """The output layer's compute per position, in tokens' worth of the rest of the model.

    Checking a draft needs logits at every drafted position; with a 151k
    vocabulary on a small model that row costs more than the token itself.
    """
    head = model.get_output_embeddings()
    embed = model.get_input_embeddings()
    if head is None:
        return 0.3
    skip = {id(head.weight), id(embed.weight) if embed is not None else None}
    body = sum(p.numel() for p in model.parameters() if id(p) not in skip)
    return head.weight.numel() / max(1, body)


class LocalModel:
    """An in-process Hugging Face model with a growing cache per state (``kvcache``: written in place, no
    concatenation per forward)."""

    def __init__(self, loaded: LoadedModel):
        self.loaded = loaded
        self.model = loaded.model
        self.device = loaded.device
        self.vocab_size = self.model.config.vocab_size
        self.forwards = 0
        self.head_ratio = output_layer_share(self.model)
        use_grouped_attention(self.model)  # decode steps and splices over a long cache: see attention.py

    def new_state(self) -> KVState:
        return KVState([], growing_cache(self.model.config))

    @torch.inference_mode()
    def extend(self, state: KVState, ids: Sequence[int]) -> torch.Tensor:
        """Append ``ids`` to the cache; the logits after the last one.

        More than PREFILL_CHUNK tokens go in several forwards: attention over a
        long document with a cached prefix needs a query x key mask, which for
        30k tokens would take gigabytes in one piece.
        """
        if not ids:
            raise ValueError("extend needs at least one token")
        ids = list(ids)
        for start in range(0, len(ids), PREFILL_CHUNK):
            chunk = ids[start:start + PREFILL_CHUNK]
            out = self.model(torch.tensor([chunk], device=self.device), cache=state.cache, use_cache=True,
                             logits_to_keep=1)
            state.ids.extend(chunk)
            self.forwards += 1
        return out.logits[0, -1].float().cpu()

    @torch.inference_mode()
    def extend_scored(self, state: KVState, ids: Sequence[int], positions: Sequence[int]) -> torch.Tensor:
        """Append ``ids``; the logits after each of ``positions`` (to check a draft at every drafted token)."""
        ids, rows = list(ids), []
        for start in range(0, len(ids), PREFILL_CHUNK):
            chunk = ids[start:start + PREFILL_CHUNK]
            keep = [p - start for p in positions if start <= p < start + len(chunk)]
            out = self.model(torch.tensor([chunk], device=self.device), cache=state.cache, use_cache=True,
                             logits_to_keep=torch.tensor(keep, device=self.device) if keep else 1)
            state.ids.extend(chunk)
            self.forwards += 1
            if keep:
                rows.append(out.logits[0].float().cpu())
        return torch.cat(rows) if rows else torch.empty(0, self.vocab_size)

    def crop(self, state: KVState, length: int) -> None:
        extra = len(state.ids) - length
        if extra > 0:
            state.cache.crop(-extra)
            del state.ids[length:]

    def nbytes(self, state: KVState) -> int:
        return cache_nbytes(state.cache)  # allocated capacity, so the cache budget counts what is held


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
    drafted_gen_tokens: int = 0  # ... of which <gen> bodies
    accepted_gen_tokens: int = 0
    prefill_s: float = 0.0
    decode_s: float = 0.0
    splice_s: float = 0.0
    mask_s: float = 0.0
    total_s: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------
# The loop's small functions


def sync_prefix(model: ModelBackend, state: KVState, ids: Sequence[int], cancel=None,
                on_chunk: Callable[[int, int], None] | None = None) -> tuple[torch.Tensor | None, int]:
    """Make the state hold exactly ``ids``, computing only what is not cached.

    Keeps the longest common prefix and prefills the rest PREFILL_CHUNK tokens
    at a time, checking ``cancel`` before each chunk: a long document's prefill
    takes a minute on a CPU, and what was computed before a cancel stays cached.
    ``on_chunk(done, total)`` follows each chunk.  Returns (logits after the
    last new token or None, tokens computed).
    """
    common = 0
    limit = min(len(state.ids), len(ids))
    while common < limit and state.ids[common] == ids[common]:
        common += 1
    model.crop(state, common)
    rest = list(ids[common:])
    logits = None
    for start in range(0, len(rest), PREFILL_CHUNK):
        check_cancel(cancel)
        logits = model.extend(state, rest[start:start + PREFILL_CHUNK])
        if on_chunk is not None:
            on_chunk(min(start + PREFILL_CHUNK, len(rest)), len(rest))
    return logits, len(rest)


def sample(logits: torch.Tensor, allowed: np.ndarray | None, temperature: float = 0.0, top_p: float = 1.0,
           generator: torch.Generator | None = None, draft: int | None = None) -> int:
    """Greedy by default; temperature/top-p sampling over the allowed tokens only.

    With a ``draft`` token (speculation) sampling stays exact: the draft is
    kept with its probability p(draft), and otherwise a token is drawn from
    the distribution without it, renormalised -- together exactly p.  Greedy
    ignores the draft: it is kept iff it is the argmax.
    """
    logits = logits.clone()
    if allowed is not None:
        n = len(allowed)
        logits[:n].masked_fill_(torch.from_numpy(~allowed), float("-inf"))
        logits[n:] = float("-inf")
    if temperature <= 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits / temperature, dim=-1)
    order = None
    if top_p < 1.0:
        probs, order = torch.sort(probs, descending=True)
        probs[1:][torch.cumsum(probs, 0)[:-1] >= top_p] = 0.0
    if draft is not None:
        at = draft if order is None else int(torch.nonzero(order == draft)[0, 0])
        kept = float(probs[at]) / float(probs.sum())
        if kept > 0 and float(torch.rand(1, generator=generator)) < kept:
            return draft
        probs[at] = 0.0
        if float(probs.sum()) <= 0:
            return draft  # the draft had all the mass (kept above unless round-off)
    # inverse-CDF draw: torch.multinomial takes ~30 ms over a 151k vocabulary on a CPU
    cdf = torch.cumsum(probs, 0)
    u = torch.rand(1, generator=generator) * cdf[-1]
    index = min(int(torch.searchsorted(cdf, u)), len(cdf) - 1)
    while probs[index] == 0:  # float round-off may land on a masked token: step back
        index -= 1
    return int(order[index]) if order is not None else index


def choose_token(logits: torch.Tensor, constraint: ProgramConstraint, temperature: float = 0.0, top_p: float = 1.0,
                 generator: torch.Generator | None = None, draft: int | None = None) -> int:
    """``sample`` over the tokens the grammar allows, computing the mask only when it can matter.

    Greedy: when the unmasked argmax is a token the grammar accepts, it is also
    the argmax of the masked logits (masking only removes tokens), so the
    vocabulary-wide mask (~20 ms over 151k tokens) is skipped; that is most
    steps of a model that writes programs, and every accepted drafted position.
    """
    if temperature <= 0:
        top = int(torch.argmax(logits[: constraint.vocab_size]))
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


Chooser = Callable[[torch.Tensor, ProgramConstraint, "int | None"], int]  # (logits, grammar, drafted token) -> token
ExpectForced = Callable[[list[int], ProgramConstraint], bool]


@dataclass
class _Expansion:
    """What one chosen token brings: itself, the tags the grammar forces after it, copied lines."""

    appended: list[int]  # for the cache: the token, forced tokens and copy contents (not the end token)
    forced: list[int]  # forced grammar tokens, in order
    spliced: int  # copied lines' tokens among ``appended``


def expand(constraint: ProgramConstraint, token: int, tokenizer, document: Document, fast_forward: bool,
           expect_forced: ExpectForced | None) -> _Expansion:
    """Advance ``constraint`` through ``token`` and whatever the grammar then forces."""
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

    take(token)
    while fast_forward and not constraint.done:
        forced = constraint.forced()
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
        laid.tokens, laid.choices = laid.tokens[:laid.choices[keep][0]], laid.choices[:keep]
        laid.spliced = sum(spliced[:keep])
    return laid


MAX_DRAFT_CHOICES = 64  # drafted choices per forward at most


def decode_loop(model: ModelBackend, state: KVState, constraint: ProgramConstraint, tokenizer, document: Document,
                logits: torch.Tensor, choose: Chooser, stats: Stats, *, max_tokens: int = 2048,
                fast_forward: bool = True, cancel=None, progress=None, expect_forced: ExpectForced | None = None,
                drafter: Drafter | None = None, budget: DraftBudget | None = None) -> bool:
    """Run the program to its end; returns False if max_tokens was hit first.

    ``choose`` picks the next token from the logits (sampling, or a script
    for teacher forcing).  Forced tag tokens join the next forward when
    ``fast_forward``; a closed copy tag adds the copied lines' tokens to it.

    With a ``drafter`` each forward also carries a draft of the next choices
    (speculation): the forward scores every drafted position, the loop chooses
    at each as it would have anyway, keeps the draft up to the first choice
    that differs, and crops the rest from the cache.  The program is the one
    the plain loop writes, token for token.
    """
    pending: list[int] = []
    carries_copy = False
    budget = budget or DraftBudget()

    def choose_and_expand(scores: torch.Tensor, drafted: int | None) -> tuple[int, _Expansion]:
        """The loop's choice at one position (the draft's token there, if any, as a hint), taken."""
        t0 = time.perf_counter()
        token = choose(scores, constraint, drafted)
        stats.mask_s += time.perf_counter() - t0
        step = expand(constraint, token, tokenizer, document, fast_forward, expect_forced)
        stats.sampled_tokens += 1
        stats.forced_tokens += len(step.forced)
        stats.spliced_tokens += step.spliced
        return token, step

    def record(kind: str, accepted: bool) -> None:
        budget.record(kind, accepted)
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
            pending.clear()
            carries_copy = False
            row_logits = iter(scored)
            rejected = False
            for (at, drafted, kind), row in zip(draft.choices, rows):
                check_cancel(cancel)  # checking a long draft takes a while too (a mask per position)
                here = logits if row < 0 else next(row_logits)
                if stats.sampled_tokens + stats.forced_tokens >= max_tokens:
                    model.crop(state, base + len(sent) - len(draft.tokens) + at)
                    return False
                token, step = choose_and_expand(here, drafted)
                record(kind, token == drafted)
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
        _, step = choose_and_expand(logits, None)
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


# ---------------------------------------------------------------------------
# The engine: warm caches and requests


@dataclass
class EditResult:
    ops: list[Op]
    program: str  # canonical text
    text: str  # what replaces lines first..last
    complete: bool  # False when max_tokens ended the program early
    first_line: int
    last_line: int
    stats: Stats
    window: Window | None = None  # the lines the prompt showed, when not the whole document


class Engine:
    """A model with warm per-document prompt caches; one request at a time.

    ``edit`` may be called from a worker thread; ``cancel`` (an Event or a
    callable) is checked before every forward.
    """

    def __init__(self, loaded: LoadedModel, backend: ModelBackend | None = None, *, max_documents: int = 4,
                 max_cache_bytes: int = 4 << 30, fast_forward: bool = True, examples: str | None = None,
                 context_lines: int | None = None, block_lines: int = BLOCK_LINES):
        from .prompt import default_examples

        self.loaded = loaded
        adapted = getattr(loaded, "adapter", None) is not None
        self.examples = default_examples(loaded.name, adapted) if examples is None else examples  # in the prefix
        self.tokenizer = loaded.tokenizer
        self.backend = backend or LocalModel(loaded)
        self.ll_tokenizer = grammar_mod.ll_tokenizer(self.tokenizer)
        self.max_documents = max_documents
        self.max_cache_bytes = max_cache_bytes
        self.fast_forward = fast_forward
        self.context_lines = context_lines  # show at most this many lines of a document (a window), if set
        self.block_lines = block_lines  # window bounds fall on multiples of this many lines
        self.lock = threading.RLock()
        self._turn = threading.Condition()  # edits waiting for the lock, so that warming lets them go first
        self._edits_waiting = 0
        self._states: OrderedDict[str, KVState] = OrderedDict()
        self.draft_budget = DraftBudget(  # acceptance rates and a token's cost, learned across requests
            head_ratio=getattr(self.backend, "head_ratio", 0.3))

    # -- caches
    def _state(self, key: str) -> KVState:
        state = self._states.pop(key, None) or self.backend.new_state()
        self._states[key] = state  # most recently used last
        return state

    def _evict(self) -> None:
        while len(self._states) > self.max_documents:
            self._states.popitem(last=False)
        while len(self._states) > 1 and sum(self.backend.nbytes(s) for s in self._states.values()) > self.max_cache_bytes:
            self._states.popitem(last=False)

    def forget(self, key: str) -> None:
        with self.lock:
            self._states.pop(key, None)

    def cached_documents(self) -> list[str]:
        return list(self._states)

    def warm(self, key: str, document: str, name: str = "document", line: int | None = None, cancel=None) -> int:
        """Bring the document's prompt prefix into the cache; returns tokens computed.

        Only what differs from the cached prefix is computed, WARM_CHUNK tokens per turn of the engine:
        between turns a waiting ``edit`` (on any document) goes first, and what the warm computed stays
        cached.  ``cancel`` (an Event or a callable) stops it between chunks.  A document too long to
        show whole is warmed as the window an edit at ``line`` would show; without a line, at the top,
        where editors open a file.
        """
        count = len(split_lines(document))
        try:
            window = self._window(document, line or 1, line or 1, 0, name) if count else None
        except EngineError:
            return 0  # no request on it can run: edit() says why
        ids = document_prefix_ids(self.tokenizer, document, name, self.examples, window)
        if self.context_length is not None and len(ids) + MIN_PROGRAM_TOKENS > self.context_length:
            return 0
        computed = 0
        while True:
            self._after_waiting_edits()
            with self.lock:
                state = self._state(key)
                common = 0
                limit = min(len(state.ids), len(ids))
                while common < limit and state.ids[common] == ids[common]:
                    common += 1
                if common == len(ids) == len(state.ids):
                    self._evict()
                    return computed
                try:
                    _, done = sync_prefix(self.backend, state, ids[: common + WARM_CHUNK], cancel)
                except Cancelled:
                    return computed
                computed += done
                self._evict()

    def _after_waiting_edits(self) -> None:
        """Block while an edit waits for the engine: warming gives way to edits between its chunks."""
        with self._turn:
            while self._edits_waiting:
                self._turn.wait()

    @contextmanager
    def _edit_turn(self):
        """The engine for an edit: ahead of any warm that has not started its next chunk."""
        with self._turn:
            self._edits_waiting += 1
        try:
            self.lock.acquire()
        finally:
            with self._turn:
                self._edits_waiting -= 1
                self._turn.notify_all()
        try:
            yield
        finally:
            self.lock.release()

    # -- requests
    def _check_request(self, document: str, first: int, last: int | None) -> int:
        problem = selection_problem(document, first, last)
        if problem is not None:
            raise EngineError(problem)
        return len(split_lines(document)) if last is None else last

    def _prepare(self, document: str, first: int, last: int | None, instruction: str,
                 program: Sequence[Op] | None, max_tokens: int | None) -> tuple[Document, int, int, int]:
        """Check a request; returns the document, the last line, the program token limit and the
        selection's length in tokens."""
        last = self._check_request(document, first, last)
        if program is None and not instruction.strip():
            raise EngineError("the instruction is empty")
        doc = Document(document)
        start, end = doc.line_range_offsets(first, last)
        selection_tokens = len(self.tokenizer.encode(document[start:end], add_special_tokens=False))
        if max_tokens is None:  # room for a rewrite of the selection twice over, plus tags
            max_tokens = 2 * selection_tokens + 256
        return doc, last, max_tokens, selection_tokens

    @property
    def context_length(self) -> int | None:
        """Positions the model was trained for; past them it writes nonsense without any error."""
        config = getattr(self.loaded.model, "config", None)
        return getattr(config, "max_position_embeddings", None)

    def _window(self, document: str, first: int, last: int, request_tokens: int, name: str,
                selection_tokens: int = 0) -> Window | None:
        """The lines the prompt shows around lines first..last: None for the whole document.

        A window when the whole document, ``request_tokens`` (the request, the room it keeps for copying
        the ``selection_tokens`` and for the program) do not fit the model's context, or when
        the document is longer than ``context_lines``.  The window leaves the request a quarter of the
        context (more if it needs it), so that warming and most requests agree on it.
        """
        limit = self.context_length
        total = len(split_lines(document))
        if self.context_lines is None or total <= self.context_lines:
            if limit is None:
                return None
            whole = document_prefix_ids(self.tokenizer, document, name, self.examples)
            if len(whole) + max(request_tokens, MIN_PROGRAM_TOKENS) <= limit:
                return None
        reserve = max(request_tokens, (limit or 0) // 4)
        line_tokens = numbered_line_tokens(self.tokenizer, document)
        if limit is None:
            budget = sum(line_tokens)
        else:
            fixed = len(document_prefix_ids(self.tokenizer, "", name, self.examples, Window(total, total, total)))
            budget = limit - reserve - fixed
        try:
            return choose_window(line_tokens, first, last, budget, max_lines=self.context_lines, block=self.block_lines)
        except SelectionTooLong:
            # Each selected line is shown numbered and may be copied: count it about twice.
            room = limit - fixed - (request_tokens - selection_tokens)
            fits = 0
            while first + fits <= last and 2 * line_tokens[first - 1 + fits] <= room:
                room -= 2 * line_tokens[first - 1 + fits]
                fits += 1
            raise EngineError(f"the {last - first + 1} selected lines do not fit the model's {limit}-token context "
                              f"with the request and room for the program; about {fits} would: select fewer "
                              f"lines, or use a model with a longer context") from None

    def _prompt(self, document: str, first: int, last: int, instruction: str, name: str,
                selection_tokens: int) -> tuple[Prompt, Window | None]:
        """The request's prompt: the whole document, or the window of it that fits."""
        request = build_prompt(self.tokenizer, "", first, last, instruction, name, examples=self.examples)
        needed = len(request.request_ids) + selection_tokens + MIN_PROGRAM_TOKENS
        window = self._window(document, first, last, needed, name, selection_tokens)
        return build_prompt(self.tokenizer, document, first, last, instruction, name, examples=self.examples,
                            window=window), window

    def _fit_context(self, prompt_tokens: int, selection_tokens: int, max_tokens: int) -> int:
        """The program's token limit within the model's context; refuses a request that does not fit.

        Copies fill positions too: room is kept for copying the whole selection.
        """
        limit = self.context_length
        if limit is None:
            return max_tokens
        room = limit - prompt_tokens - selection_tokens
        if room < MIN_PROGRAM_TOKENS:
            raise EngineError(f"the document, the request and the selected lines take more than the model's "
                              f"{limit}-token context ({prompt_tokens} tokens of prompt): edit a shorter file or "
                              f"selection, or use a model with a longer context")
        return min(max_tokens, room)

    def edit(self, document: str, first_line: int, last_line: int | None, instruction: str, *, key: str | None = None,
             name: str = "document", max_tokens: int | None = None, temperature: float = 0.0, top_p: float = 1.0,
             seed: int = 0, cancel=None, progress=None, program: Sequence[Op] | None = None,
             fast_forward: bool | None = None, speculate: bool = True) -> EditResult:
        """Decode an edit program for lines first..last and resolve it.

        With ``program`` the model is teacher-forced through that program by
        the same loop (for benchmarks and tests) instead of choosing tokens.
        ``speculate`` drafts the program from the document and checks the
        draft in the same forwards (``decode_loop``): the same program, in
        fewer forwards.
        """
        doc, last_line, max_tokens, selection_tokens = self._prepare(document, first_line, last_line, instruction,
                                                                     program, max_tokens)
        stats = Stats()
        t_start = time.perf_counter()
        with self._edit_turn():
            prompt, window = self._prompt(document, first_line, last_line, instruction, name, selection_tokens)
            stats.prompt_tokens = len(prompt.ids)
            max_tokens = self._fit_context(len(prompt.ids), selection_tokens, max_tokens)
            state = self._state(key or name)

            def prefilled(done: int, total: int) -> None:  # a long document: say how far the prefill got
                stats.prefill_tokens, stats.cached_tokens = done, len(prompt.prefix_ids) - total
                if progress is not None:
                    progress(stats)

            try:
                t0 = time.perf_counter()
                _, computed = sync_prefix(self.backend, state, prompt.prefix_ids, cancel, prefilled)
                check_cancel(cancel)
                logits = self.backend.extend(state, prompt.request_ids)
                stats.prefill_tokens = computed + len(prompt.request_ids)
                stats.cached_tokens = len(prompt.prefix_ids) - computed
                stats.prefill_s = time.perf_counter() - t0
                constraint = ProgramConstraint(self.ll_tokenizer, first_line, last_line)
                if program is None:
                    generator = torch.Generator().manual_seed(seed)
                    choose = lambda lg, c, d: choose_token(lg, c, temperature, top_p, generator, d)  # noqa: E731
                    expect = None
                else:
                    script = TeacherScript(program_script(self.tokenizer, program, self.ll_tokenizer.eos_token))
                    choose, expect = script.choose, script.expect_forced
                drafter = Drafter(self.tokenizer, doc, first_line, last_line,
                                  self.ll_tokenizer.eos_token) if speculate else None
                complete = decode_loop(
                    self.backend, state, constraint, self.tokenizer, doc, logits, choose, stats,
                    max_tokens=max_tokens, cancel=cancel, progress=progress, expect_forced=expect,
                    fast_forward=self.fast_forward if fast_forward is None else fast_forward,
                    drafter=drafter, budget=self.draft_budget,
                )
            finally:
                self.backend.crop(state, len(prompt.prefix_ids))  # keep the document warm, drop the request
                self._evict()
        ops = list(constraint.ops)
        stats.total_s = time.perf_counter() - t_start
        text = resolve(ops, doc, first_line, last_line)
        return EditResult(ops, format_program(ops), text, complete, first_line, last_line, stats, window)

    def rewrite_baseline(self, document: str, first_line: int, last_line: int | None, new_text: str, *,
                         key: str | None = None, name: str = "document", instruction: str = "rewrite") -> tuple[int, float]:
        """Time the plain autoregressive rewrite of ``new_text`` on the same warm prompt."""
        last_line = self._check_request(document, first_line, last_line)
        with self.lock:
            state = self._state(key or name)
            prompt, _ = self._prompt(document, first_line, last_line, instruction, name, 0)
            try:
                sync_prefix(self.backend, state, prompt.prefix_ids)
                self.backend.extend(state, prompt.request_ids)
                ids = self.tokenizer.encode(new_text, add_special_tokens=False)
                return autoregressive(self.backend, state, ids)
            finally:
                self.backend.crop(state, len(prompt.prefix_ids))


__all__ = [
    "Engine", "EditResult", "TeacherScript", "EngineError", "Cancelled", "Stats", "KVState", "ModelBackend", "LocalModel",
    "sync_prefix", "sample", "copy_tokens", "expand", "decode_loop", "program_script", "autoregressive",
]
