"""The engine: a model with warm per-document prompt caches, and the request plumbing around the
decode loop (``decode.py``): checks, the prompt and its window, the context's room, the result.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..program import Copy, Document, Op, format_program, oracle_for_selection, resolve, selection_problem, split_lines
from ..program.update import Merge, UpdateError, merge_update
from . import grammar as grammar_mod
from .backend import PREFILL_CHUNK, Cancelled, EngineError, KVState, ModelBackend, TooLongForContext
from .decode import (
    Stats,
    TeacherScript,
    autoregressive,
    check_cancel,
    choose_token,
    common_prefix,
    copy_tokens,
    decode_loop,
    expand,
    program_script,
    sample,
    sync_prefix,
)
from .drafter import DraftBudget, Drafter, PlanDrafter
from .grammar import ProgramConstraint, line_runs
from .prompt import (
    Prompt,
    apply_instruction,
    build_prompt,
    default_examples,
    document_prefix_ids,
    numbered_line_tokens,
    update_hints,
)
from .window import BLOCK_LINES, Placed, SelectionTooLong, Window, choose_window, find_again

WARM_CHUNK = 256  # tokens per turn of a background warm: an edit arriving meanwhile waits for one such forward
MIN_PROGRAM_TOKENS = 16  # room a request must leave in the model's context for its program
WINDOWS_KEPT = 4  # per document: windows found again by their text after lines are inserted or deleted above
SAME_PLACE_TOKENS = 16  # a cache shares more than this many tokens of the document part with a prompt: its place


@dataclass(frozen=True)
class View:
    """What the prompt shows of the document, numbered from 1: all of it, or a window's lines.

    The decode loop works on the view, whose line numbers do not change when
    lines are inserted above the window; ``to_file`` gives a program the
    file's own numbers back."""

    doc: Document
    offset: int = 0  # a file line's number is its view line's plus this
    window: Window | None = None

    @classmethod
    def of(cls, doc: Document, window: Window | None) -> "View":
        if window is None:
            return cls(doc)
        start, end = doc.line_range_offsets(window.start, window.end)
        return cls(Document(doc.text[start:end]), window.start - 1, window)

    def _shift(self, ops: Sequence[Op], by: int) -> list[Op]:
        return [Copy(op.start + by, op.end + by) if isinstance(op, Copy) else op for op in ops]

    def to_view(self, ops: Sequence[Op]) -> list[Op]:
        return self._shift(ops, -self.offset)

    def to_file(self, ops: Sequence[Op]) -> list[Op]:
        return self._shift(ops, self.offset)


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
    merge: Merge | None = None  # an apply's deterministic merge of the update (the program's plan)


@dataclass
class ApplyJob:
    """What an apply asks the model, worked out without it: the deterministic merge, the region's program it
    implies (the plan a drafter proposes), the instruction and the update as the prompt shows them."""

    merge: Merge
    plan: list[Op]
    instruction: str
    hints: str

    def max_tokens(self, tokenizer) -> int:
        """The plan's program twice over: room for a model that writes it its own way."""
        return 2 * len(tokenizer.encode(format_program(self.plan), add_special_tokens=False)) + 64


def plan_apply(document: str, update: str, instruction: str | None = None, language: str | None = None,
               force: bool = False) -> ApplyJob:
    """Place the update in the document; EngineError, saying why, when it has no place there (or, unless
    ``force``, when its merge breaks a file that parsed).  ``language``: ``merge_update``'s."""
    if not isinstance(update, str) or not update.strip():
        raise EngineError("the update is empty")
    try:
        merge = merge_update(document, update, language, force=force)
    except UpdateError as exc:
        raise EngineError(str(exc)) from None
    plan = oracle_for_selection(document, merge.first, merge.last, merge.text)
    return ApplyJob(merge, plan, apply_instruction(instruction), update_hints(document, merge.first, merge.last, plan))


def apply_constraint(tokenizer, plan: Sequence[Op], first: int, last: int) -> ProgramConstraint:
    """The program of the update's merge: the plan's copies are lines the program must copy, each ``<gen>`` is
    the plan's text after the line the plan writes it after (first - 1 at the region's start).  The grammar leaves
    the model no call: where the placement by lines guesses whether new text rewrites a file line, the model's
    own choice was measured wrong more often than the guess (``cad-lsp bench apply --suite peer``)."""
    must = sorted({n for op in plan if isinstance(op, Copy) for n in range(op.start, op.end + 1)})
    keep = line_runs(must)
    adds, after = [], first - 1
    for op in plan:
        if isinstance(op, Copy):
            after = op.end
        else:
            adds.append((after, op.text))
    return ProgramConstraint(tokenizer, first, last, keep=tuple(keep), must=tuple(must), adds=tuple(adds))


def decided_alone(constraint: ProgramConstraint, tokenizer, document: Document) -> bool:
    """Whether the grammar writes the whole program without a choice for the model (tried on a copy)."""
    probe = constraint.clone()
    expand(probe, None, tokenizer, document, True, None)
    return probe.done


class Engine:
    """A model with warm per-document prompt caches; one request at a time.

    ``edit`` may be called from a worker thread; ``cancel`` (an Event or a
    callable) is checked before every forward.
    """

    def __init__(self, backend: ModelBackend, *, max_documents: int = 8, max_cache_bytes: int = 4 << 30,
                 fast_forward: bool = True, examples: str | None = None, context_lines: int | None = None,
                 block_lines: int = BLOCK_LINES):
        self.backend = backend
        self.name = backend.name
        self.advice = backend.advice  # for the user, once, where the model is loaded
        self.examples = default_examples(backend.name, backend.adapted) if examples is None else examples
        self.tokenizer = backend.tokenizer
        self.ll_tokenizer = grammar_mod.ll_tokenizer(self.tokenizer)
        self.max_documents = max_documents
        self.max_cache_bytes = max_cache_bytes
        self.fast_forward = fast_forward
        self.context_lines = context_lines  # show at most this many lines of a document (a window), if set
        self.block_lines = block_lines  # window bounds fall on multiples of this many lines
        self.lock = threading.RLock()
        self._turn = threading.Condition()  # edits waiting for the lock, so that warming lets them go first
        self._edits_waiting = 0
        self._states: OrderedDict[tuple[str, int], KVState] = OrderedDict()  # (document key, place): its cache
        self._places = 0  # numbers the places
        self._windows: dict[str, list[Placed]] = {}  # per document key, the windows shown last, most recent first
        self._headers: dict[str, int] = {}  # per file name, tokens before the first line (_header_tokens)
        self._shown: dict[str, list[int]] = {}  # per document key, the prompt's document part its last request showed
        self.draft_budget = DraftBudget(  # acceptance rates and a token's cost, learned across requests
            head_ratio=getattr(self.backend, "head_ratio", 0.3))

    # -- caches: one per place of a document, so that edits in two windows of a long file, in turn, stay warm
    def _state(self, key: str, ids: Sequence[int], name: str, windowed: bool) -> KVState:
        """The cache for a prompt whose document part is ``ids``: the document's cache that shares most of it.

        A window shares with another window of the same file no more than the
        header; past ``SAME_PLACE_TOKENS`` of the document it is the same
        place, as is a cache that holds a beginning of the prompt (a warm
        under way).  A new place of a windowed document gets a cache of its own (the
        least recently used go when the engine's limits are reached); a
        document shown whole has one."""
        header = self._header_tokens(name) if windowed else 0
        best, shared = None, -1
        for label in reversed([label for label in self._states if label[0] == key]):  # most recently used first
            held = self._states[label].ids
            common = common_prefix(held, ids)
            same = not windowed or common == len(held) or common >= min(len(ids), header + SAME_PLACE_TOKENS)
            if same and common > shared:
                best, shared = label, common
        if best is None:
            self._places += 1
            best = (key, self._places)
            self._states[best] = self.backend.new_state()
        self._states.move_to_end(best)  # most recently used last
        return self._states[best]

    def _header_tokens(self, name: str) -> int:
        """Tokens of the prompt before a document's first line (system text, examples, the file's name)."""
        if name not in self._headers:
            self._headers[name] = len(document_prefix_ids(self.tokenizer, "", name, self.examples))
        return self._headers[name]

    def _evict(self) -> None:
        while len(self._states) > self.max_documents:
            self._states.popitem(last=False)
        while len(self._states) > 1 and sum(self.backend.nbytes(s) for s in self._states.values()) > self.max_cache_bytes:
            self._states.popitem(last=False)

    def forget(self, key: str) -> None:
        with self.lock:
            for label in [label for label in self._states if label[0] == key]:
                del self._states[label]
            self._windows.pop(key, None)
            self._shown.pop(key, None)

    def cached_documents(self) -> list[str]:
        return list(dict.fromkeys(key for key, _ in self._states))

    def cache_of(self, key: str) -> KVState | None:
        """The document's most recently used cache."""
        return next((self._states[label] for label in reversed(self._states) if label[0] == key), None)

    def warm(self, key: str, document: str, name: str = "document", line: int | None = None, cancel=None) -> int:
        """Bring the document's prompt prefix into the cache; returns tokens computed.

        Only what differs from the cached prefix is computed, WARM_CHUNK tokens per turn of the engine:
        between turns a waiting ``edit`` (on any document) goes first, and what the warm computed stays
        cached.  ``cancel`` (an Event or a callable) stops it between chunks, and so does a request on the
        document that has shown other text meanwhile (another window: the user is elsewhere).  A document
        too long to show whole is warmed as the window an edit at ``line`` would show; without a line, at
        the top, where editors open a file.
        """
        count = len(split_lines(document))
        try:
            with self.lock:
                view = View.of(Document(document), self._window(document, line or 1, line or 1, 0, name, key=key)
                               if count else None)
        except EngineError:
            return 0  # no request on it can run: edit() says why
        ids = document_prefix_ids(self.tokenizer, view.doc.text, name, self.examples)
        if self.context_length is not None and len(ids) + MIN_PROGRAM_TOKENS > self.context_length:
            return 0
        computed, shown = 0, self._shown.get(key)
        while True:
            self._after_waiting_edits()
            with self.lock:
                latest = self._shown.get(key)
                if latest is not shown and latest != ids:  # a request on this document since the warm began
                    return computed  # a request showed the user is elsewhere in the document: give way
                state = self._state(key, ids, name, view.window is not None)
                common = common_prefix(state.ids, ids)
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
        return self.backend.context_length

    def _window(self, document: str, first: int, last: int, request_tokens: int, name: str,
                selection_tokens: int = 0, key: str | None = None) -> Window | None:
        """The lines the prompt shows around lines first..last: None for the whole document.

        A window when the whole document, ``request_tokens`` (the request, the room it keeps for copying
        the ``selection_tokens`` and for the program) do not fit the model's context, or when
        the document is longer than ``context_lines``.  The window leaves the request a quarter of the
        context (more if it needs it), so that warming and most requests agree on it.  A window shown
        before on the document ``key`` that still holds the selection and fits is shown again, found by
        its text: lines inserted or deleted above it leave its prompt, and cache, as they were.
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
            fixed = self._header_tokens(name)
            budget = limit - reserve - fixed
        try:
            window = choose_window(line_tokens, first, last, budget, max_lines=self.context_lines,
                                   block=self.block_lines)
        except SelectionTooLong:
            # Each selected line is shown numbered and may be copied: count it about twice.
            room = limit - fixed - (request_tokens - selection_tokens)
            fits = 0
            while first + fits <= last and 2 * line_tokens[first - 1 + fits] <= room:
                room -= 2 * line_tokens[first - 1 + fits]
                fits += 1
            raise TooLongForContext(f"the {last - first + 1} selected lines do not fit the model's {limit}-token "
                                    f"context with the request and room for the program; about {fits} would: "
                                    f"select fewer lines, or use a model with a longer context") from None
        if key is None:
            return window
        lines = split_lines(document)
        placed = self._windows.get(key, [])
        known = next(filter(None, (find_again(p, lines, line_tokens, first, last, budget,
                                              max_lines=self.context_lines) for p in placed)), None)
        window = known or window
        again = Placed.of(lines, window)
        self._windows[key] = [again] + [p for p in placed if p.anchor != again.anchor][: WINDOWS_KEPT - 1]
        return window

    def _view(self, doc: Document, first: int, last: int, instruction: str, name: str, selection_tokens: int,
              update: str | None, key: str) -> View:
        """What the request's prompt shows: the whole document, or the window of it that fits."""
        request = build_prompt(self.tokenizer, "", first, last, instruction, name, examples=self.examples,
                               update=update)  # a window's note is paid from the quarter of the context it leaves
        needed = len(request.request_ids) + selection_tokens + MIN_PROGRAM_TOKENS
        return View.of(doc, self._window(doc.text, first, last, needed, name, selection_tokens, key))

    def _prompt(self, view: View, first: int, last: int, instruction: str, name: str,
                update: str | None = None) -> Prompt:
        """The request's prompt on the view, for file lines first..last."""
        return build_prompt(self.tokenizer, view.doc.text, first - view.offset, last - view.offset, instruction,
                            name, examples=self.examples, window=view.window, update=update)

    def _fit_context(self, prompt_tokens: int, selection_tokens: int, max_tokens: int) -> int:
        """The program's token limit within the model's context; refuses a request that does not fit.

        Copies fill positions too: room is kept for copying the whole selection.
        """
        limit = self.context_length
        if limit is None:
            return max_tokens
        room = limit - prompt_tokens - selection_tokens
        if room < MIN_PROGRAM_TOKENS:
            raise TooLongForContext(f"the document, the request and the selected lines take more than the model's "
                                    f"{limit}-token context ({prompt_tokens} tokens of prompt): edit a shorter file "
                                    f"or selection, or use a model with a longer context")
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
        return self._run(doc, first_line, last_line, instruction, key or name, name, max_tokens, selection_tokens,
                         program, temperature, top_p, seed, cancel, progress, fast_forward, speculate)

    def apply(self, document: str, update: str, instruction: str | None = None, *, key: str | None = None,
              name: str = "document", max_tokens: int | None = None, temperature: float = 0.0, top_p: float = 1.0,
              seed: int = 0, cancel=None, progress=None, program: Sequence[Op] | None = None,
              fast_forward: bool | None = None, speculate: bool = True,
              on_text: Callable[[str], None] | None = None, language: str | None = None,
              force: bool = False) -> EditResult:
        """Merge a chat model's update snippet into the document: the model writes the program of the region
        the update changes, shown where each update line sits in the file (``program.update``).

        The program spans only that region, so its cost follows the change,
        not the file.  ``speculate`` drafts the whole program the placement
        implies (``PlanDrafter``): a model that agrees has it accepted in a
        few forwards, and the program is still the model's own.  The result
        carries the deterministic merge as ``merge``.  An update that cannot
        be placed (empty, matching nothing, only markers, fitting in several
        places, or breaking a file that parsed unless ``force``) raises
        EngineError saying why.  ``language`` is the file's name or an
        editor's language id (``merge_update``'s): the placement reads the
        file's syntax with it.

        ``on_text`` receives the merged file as it is decided: the lines
        before the region at once, each op's text when the op is complete,
        the lines after the region when the program ends (a streamed answer);
        the pieces make the whole file only when the result is complete.
        """
        job = plan_apply(document, update, instruction, language, force)
        first, last = job.merge.first, job.merge.last
        doc = Document(document)
        _, _, default_tokens, selection_tokens = self._prepare(document, first, last, job.instruction, program,
                                                               max_tokens)
        if max_tokens is None:
            max_tokens = max(default_tokens, job.max_tokens(self.tokenizer))
        start, end = doc.line_range_offsets(first, last)
        if on_text is not None:
            on_text(document[:start])
        result = self._run(doc, first, last, job.instruction, key or name, name, max_tokens, selection_tokens,
                           program, temperature, top_p, seed, cancel, progress, fast_forward, speculate, job=job,
                           on_op=None if on_text is None else lambda op: on_text(resolve([op], doc, first, last)))
        if on_text is not None and result.complete:
            on_text(document[end:])
        result.merge = job.merge
        return result

    def _run(self, doc: Document, first_line: int, last_line: int, instruction: str, key: str, name: str,
             max_tokens: int, selection_tokens: int, program, temperature: float, top_p: float, seed: int, cancel,
             progress, fast_forward: bool | None, speculate: bool, job: ApplyJob | None = None,
             on_op: Callable[[Op], None] | None = None) -> EditResult:
        """One request through the decode loop, on the view's warm cache: its prompt, the program, its text.

        The loop works in the view's line numbers (a window's, from 1); the
        program comes back in the file's.  ``on_op`` receives each op of the
        program, in the file's numbers, as soon as it is complete."""
        stats = Stats()
        t_start = time.perf_counter()
        eos = self.ll_tokenizer.eos_token
        with self._edit_turn():
            view = self._view(doc, first_line, last_line, instruction, name, selection_tokens,
                              None if job is None else job.hints, key)
            first, last = first_line - view.offset, last_line - view.offset
            hints, drafter = None, None
            if job is not None:
                plan = view.to_view(job.plan)
                hints = update_hints(view.doc.text, first, last, plan)
                if speculate:
                    drafter = PlanDrafter(self.tokenizer, view.doc, first, last, eos, plan)
            elif speculate:
                drafter = Drafter(self.tokenizer, view.doc, first, last, eos)
            prompt = self._prompt(view, first_line, last_line, instruction, name, hints)
            stats.prompt_tokens = len(prompt.ids)
            max_tokens = self._fit_context(len(prompt.ids), selection_tokens, max_tokens)
            state = self._state(key, prompt.prefix_ids, name, view.window is not None)
            self._shown[key] = prompt.prefix_ids  # a new list each request: warm() tells them apart by identity

            def prefilled(done: int, total: int) -> None:  # a long document: say how far the prefill got
                stats.prefill_tokens, stats.cached_tokens = done, len(prompt.prefix_ids) - total
                if progress is not None:
                    progress(stats)

            constraint = ProgramConstraint(self.ll_tokenizer, first, last) if job is None else apply_constraint(
                self.ll_tokenizer, plan, first, last)
            ff = self.fast_forward if fast_forward is None else fast_forward
            # an apply's request waits for the first call the grammar leaves the model; with none, the model
            # reads nothing, not even the document (the background warming still does)
            unsent = prompt.request_ids if job is not None else ()
            decided = job is not None and ff and program is None and decided_alone(constraint, self.tokenizer,
                                                                                   view.doc)
            try:
                t0 = time.perf_counter()
                computed = 0 if decided else sync_prefix(self.backend, state, prompt.prefix_ids, cancel, prefilled)[1]
                check_cancel(cancel)
                logits = None if unsent else self.backend.extend(state, prompt.request_ids)
                stats.prefill_tokens = computed + len(prompt.request_ids) - len(unsent)
                stats.cached_tokens = 0 if decided else len(prompt.prefix_ids) - computed
                stats.prefill_s = time.perf_counter() - t0
                if program is None:
                    generator = np.random.default_rng(seed)
                    choose = lambda lg, c, d: choose_token(lg, c, temperature, top_p, generator, d)  # noqa: E731
                    expect = None
                else:
                    script = TeacherScript(program_script(self.tokenizer, view.to_view(program), eos))
                    choose, expect = script.choose, script.expect_forced
                done_ops = 0

                def step(stats_: Stats) -> None:
                    nonlocal done_ops
                    if on_op is not None:
                        while done_ops < len(constraint.ops):
                            on_op(view.to_file([constraint.ops[done_ops]])[0])
                            done_ops += 1
                    if progress is not None:
                        progress(stats_)

                complete = decode_loop(
                    self.backend, state, constraint, self.tokenizer, view.doc, logits, choose, stats,
                    max_tokens=max_tokens, cancel=cancel, progress=step, expect_forced=expect,
                    fast_forward=ff, drafter=drafter, budget=self.draft_budget, unsent=unsent,
                )
            finally:
                self.backend.crop(state, len(prompt.prefix_ids))  # keep the document warm, drop the request
                self._evict()
            if on_op is not None:
                for op in view.to_file(constraint.ops[done_ops:]):  # the ops the loop's last step completed
                    on_op(op)
        ops = view.to_file(constraint.ops)
        stats.total_s = time.perf_counter() - t_start
        text = resolve(ops, doc, first_line, last_line)
        return EditResult(ops, format_program(ops), text, complete, first_line, last_line, stats, view.window)

    def prompt_prefix(self, document: str, first_line: int, last_line: int, name: str = "document",
                      key: str | None = None) -> list[int]:
        """The cacheable part of an edit's prompt at lines first..last (for measuring what a request reuses)."""
        doc = Document(document)
        with self.lock:
            view = self._view(doc, first_line, last_line, "", name, 0, None, key or name)
        return document_prefix_ids(self.tokenizer, view.doc.text, name, self.examples)

    def rewrite_baseline(self, document: str, first_line: int, last_line: int | None, new_text: str, *,
                         key: str | None = None, name: str = "document", instruction: str = "rewrite",
                         decode=autoregressive) -> tuple[int, float]:
        """Time the rewrite of ``new_text`` on the same warm prompt: plain autoregressive, or ``decode(backend,
        state, ids)`` for another way of writing the same tokens (forwards, seconds)."""
        last_line = self._check_request(document, first_line, last_line)
        key = key or name
        with self.lock:
            view = self._view(Document(document), first_line, last_line, instruction, name, 0, None, key)
            prompt = self._prompt(view, first_line, last_line, instruction, name)
            state = self._state(key, prompt.prefix_ids, name, view.window is not None)
            try:
                sync_prefix(self.backend, state, prompt.prefix_ids)
                self.backend.extend(state, prompt.request_ids)
                ids = self.tokenizer.encode(new_text, add_special_tokens=False)
                return decode(self.backend, state, ids)
            finally:
                self.backend.crop(state, len(prompt.prefix_ids))


__all__ = [
    "Engine", "EditResult", "ApplyJob", "View", "plan_apply", "TeacherScript", "EngineError", "Cancelled", "Stats", "KVState", "ModelBackend",
    "sync_prefix", "sample", "choose_token", "check_cancel", "copy_tokens", "expand", "decode_loop", "program_script",
    "autoregressive", "PREFILL_CHUNK", "WARM_CHUNK",
]
