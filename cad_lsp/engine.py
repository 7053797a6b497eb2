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
from .grammar import ProgramConstraint
from .kvcache import cache_nbytes, growing_cache
from .models import LoadedModel
from .program import Copy, Document, Op, format_op, format_program, resolve, selection_problem, split_lines
from .prompt import Prompt, build_prompt, document_prefix_ids, numbered_line_tokens
from .window import BLOCK_LINES, SelectionTooLong, Window, choose_window


PREFILL_CHUNK = 2048  # tokens per forward at most: bounds attention memory, and how long a cancel waits
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

    def crop(self, state: KVState, length: int) -> None:
        """Forget everything after the first ``length`` tokens."""

    def nbytes(self, state: KVState) -> int: ...


class LocalModel:
    """An in-process Hugging Face model with a growing cache per state (``kvcache``: written in place, no
    concatenation per forward)."""

    def __init__(self, loaded: LoadedModel):
        self.loaded = loaded
        self.model = loaded.model
        self.device = loaded.device
        self.vocab_size = self.model.config.vocab_size
        self.forwards = 0
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
           generator: torch.Generator | None = None) -> int:
    """Greedy by default; temperature/top-p sampling over the allowed tokens only."""
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
    # inverse-CDF draw: torch.multinomial takes ~30 ms over a 151k vocabulary on a CPU
    cdf = torch.cumsum(probs, 0)
    u = torch.rand(1, generator=generator) * cdf[-1]
    index = min(int(torch.searchsorted(cdf, u)), len(cdf) - 1)
    while probs[index] == 0:  # float round-off may land on a masked token: step back
        index -= 1
    return int(order[index]) if order is not None else index


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


Chooser = Callable[[torch.Tensor, ProgramConstraint], int]


def decode_loop(model: ModelBackend, state: KVState, constraint: ProgramConstraint, tokenizer, document: Document,
                logits: torch.Tensor, choose: Chooser, stats: Stats, *, max_tokens: int = 2048,
                fast_forward: bool = True, cancel=None, progress=None,
                expect_forced: Callable[[list[int]], bool] | None = None) -> bool:
    """Run the program to its end; returns False if max_tokens was hit first.

    ``choose`` picks the next token from the logits (sampling, or a script
    for teacher forcing).  Forced tag tokens join the next forward when
    ``fast_forward``; a closed copy tag adds the copied lines' tokens to it.
    """
    pending: list[int] = []
    carries_copy = False

    def take(token: int) -> None:
        nonlocal carries_copy
        op = constraint.advance(token)
        if constraint.done:
            return  # the end-of-sequence token never needs a forward
        pending.append(token)
        if isinstance(op, Copy):
            content = copy_tokens(tokenizer, document, op)
            pending.extend(content)
            stats.spliced_tokens += len(content)
            carries_copy = True

    while True:
        check_cancel(cancel)
        if pending:
            t0 = time.perf_counter()
            logits = model.extend(state, pending)
            elapsed = time.perf_counter() - t0
            stats.forwards += 1
            if carries_copy:
                stats.splice_forwards += 1
                stats.splice_s += elapsed
            else:
                stats.decode_steps += 1
                stats.decode_s += elapsed
            pending.clear()
            carries_copy = False
        if stats.sampled_tokens + stats.forced_tokens >= max_tokens:
            return False
        t0 = time.perf_counter()
        token = choose(logits, constraint)
        stats.mask_s += time.perf_counter() - t0
        stats.sampled_tokens += 1
        take(token)
        while fast_forward and not constraint.done:
            forced = constraint.forced()
            if not forced or (expect_forced is not None and not expect_forced(forced)):
                break
            for token in forced:
                stats.forced_tokens += 1
                take(token)
                if constraint.done:
                    break
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


class _Script:
    """Teacher forcing: the next token comes from a script, and forced tokens must match it."""

    def __init__(self, script: list[int]):
        self.script, self.pos = script, 0

    def choose(self, logits, constraint) -> int:
        if self.pos >= len(self.script):
            raise EngineError("the teacher program ended before the grammar did")
        token = self.script[self.pos]
        self.pos += 1
        return token

    def expect_forced(self, forced: list[int]) -> bool:
        if self.script[self.pos : self.pos + len(forced)] != forced:
            return False  # tokenized differently: let the script drive these too
        self.pos += len(forced)
        return True


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

        Only what differs from the cached prefix is computed, one PREFILL_CHUNK per turn of the engine:
        between turns a waiting ``edit`` (on any document) goes first, and what the warm computed stays
        cached.  ``cancel`` (an Event or a callable) stops it between chunks.  A document too long to
        show whole is warmed as the window an edit at ``line`` would show; without a line it is not
        warmed (where the user will edit is unknown).
        """
        count = len(split_lines(document))
        try:
            window = self._window(document, line or 1, line or 1, 0, name) if count else None
        except EngineError:
            return 0  # no request on it can run: edit() says why
        if window is not None and line is None:
            return 0
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
                    _, done = sync_prefix(self.backend, state, ids[: common + PREFILL_CHUNK], cancel)
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
             fast_forward: bool | None = None) -> EditResult:
        """Decode an edit program for lines first..last and resolve it.

        With ``program`` the model is teacher-forced through that program by
        the same loop (for benchmarks and tests) instead of choosing tokens.
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
                    choose = lambda lg, c: sample(lg, c.allowed(), temperature, top_p, generator)  # noqa: E731
                    expect = None
                else:
                    script = _Script(program_script(self.tokenizer, program, self.ll_tokenizer.eos_token))
                    choose, expect = script.choose, script.expect_forced
                complete = decode_loop(
                    self.backend, state, constraint, self.tokenizer, doc, logits, choose, stats,
                    max_tokens=max_tokens, cancel=cancel, progress=progress, expect_forced=expect,
                    fast_forward=self.fast_forward if fast_forward is None else fast_forward,
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
    "Engine", "EditResult", "EngineError", "Cancelled", "Stats", "KVState", "ModelBackend", "LocalModel",
    "sync_prefix", "sample", "copy_tokens", "decode_loop", "program_script", "autoregressive",
]
