"""Token-level constraint that admits exactly the valid edit programs.

llguidance does the token work (a 151k vocabulary, tokens that straddle tag
boundaries such as ``>x`` after ``<gen``, special tokens, forced tokens).
The parts of validity that a context-free grammar expresses badly -- copies
in order, ``i <= j`` -- come from small grammars rebuilt at op boundaries:
one for "the next op", one for "the end line of this copy".  Each is O(digits)
in size, so the cost does not grow with the document.

Canonical program text: ``<copy lines="i-j"/>\\n`` or ``<gen>body</gen>\\n``,
then the end-of-sequence token.
"""

from __future__ import annotations

import bisect
import copy
import json
from dataclasses import dataclass, field

import llguidance
import numpy as np

from ..program import Copy, Gen, Op, escape_gen, unescape_gen

_COPY_HEAD = '<copy lines="'
_COPY_TAIL = '"/>\n'
_GEN_HEAD = "<gen>"
_GEN_TAIL = "</gen>\n"


def number_range_regex(lo: int, hi: int) -> str:
    """A regex matching the decimal numbers lo..hi (no leading zeros), lo <= hi, lo >= 0."""
    if lo > hi or lo < 0:
        raise ValueError(f"empty range {lo}..{hi}")
    parts = []
    for length in range(len(str(lo)), len(str(hi)) + 1):
        a = max(lo, 10 ** (length - 1) if length > 1 else 0)
        b = min(hi, 10**length - 1)
        if a <= b:
            parts.extend(_same_length_ranges(str(a), str(b)))
    return "|".join(parts)


def _same_length_ranges(a: str, b: str) -> list[str]:
    """Regexes for numbers between the equal-length decimal strings a..b."""
    if a == b:
        return [a]
    if len(a) == 1:
        return [f"[{a}-{b}]"]
    # Common leading digits stay literal.
    if a[0] == b[0]:
        return [a[0] + "(?:" + "|".join(_same_length_ranges(a[1:], b[1:])) + ")"]
    rest = len(a) - 1
    out = []
    low_full = a[1:] == "0" * rest
    high_full = b[1:] == "9" * rest
    first = int(a[0]) if low_full else int(a[0]) + 1
    last = int(b[0]) if high_full else int(b[0]) - 1
    if not low_full:
        out.append(a[0] + "(?:" + "|".join(_same_length_ranges(a[1:], "9" * rest)) + ")")
    if first <= last:
        digit = str(first) if first == last else f"[{first}-{last}]"
        out.append(digit + f"[0-9]{{{rest}}}")
    if not high_full:
        out.append(b[0] + "(?:" + "|".join(_same_length_ranges("0" * rest, b[1:])) + ")")
    return out


def _lark_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def next_op_grammar(lo: int, hi: int, allow_gen: bool, allow_end: bool = True, gen_text: str | None = None,
                    starts: list[tuple[int, int]] | None = None) -> str:
    """Lark grammar for one op (or the end of the program, if ``allow_end``).

    A copy may start at lines lo..hi (or, with ``starts``, in those ranges);
    the grammar stops right after the ``-`` so that the end line can be
    constrained to start..hi.  With ``gen_text`` (an apply: the update's
    new lines at this place) a ``<gen>`` writes exactly that.
    """
    alternatives = []
    if allow_gen:
        alternatives.append("gen")
    ranges = [(lo, hi)] if starts is None else starts
    ranges = [(a, b) for a, b in ranges if a <= b]
    if ranges:
        alternatives.append("copy")
    optional = "?" if allow_end else ""
    rules = [f"start: ({' | '.join(alternatives)}){optional}" if alternatives else 'start: ""']
    if allow_gen:
        rules.append(f"gen: {_lark_string(_GEN_HEAD)} body {_lark_string(chr(10))}")
        if gen_text is not None:
            rules.append(f"body: {_lark_string(escape_gen(gen_text) + _GEN_TAIL[:-1])}")
        else:
            rules.append(r"body[lazy]: /(?s:.*)<\/gen>/")
    if ranges:
        rules.append(f"copy: {_lark_string(_COPY_HEAD)} START {_lark_string('-')}")
        rules.append(f"START: /{'|'.join(number_range_regex(a, b) for a, b in ranges)}/")
    return "\n".join(rules) + "\n"


def copy_end_grammar(lo: int, hi: int, ends: list[tuple[int, int]] | None = None) -> str:
    """Lark grammar for the end line of a copy (lo..hi, or in the ranges ``ends``) and the tag's close."""
    ranges = [(lo, hi)] if ends is None else ends
    return f"start: END {_lark_string(_COPY_TAIL)}\nEND: /{'|'.join(number_range_regex(a, b) for a, b in ranges)}/\n"


def line_runs(lines) -> list[tuple[int, int]]:
    """Ascending line numbers as runs of consecutive ones, (first, last) each."""
    runs: list[tuple[int, int]] = []
    for n in lines:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


_MATCHERS: dict[tuple[int, str], llguidance.LLMatcher] = {}  # phase grammars in their initial state
_MATCHERS_KEPT = 512


class GrammarError(RuntimeError):
    """The constraint reached a state with no valid continuation (a bug, never user input)."""


@dataclass
class ProgramConstraint:
    """Walks the model through one program for lines ``first..last``.

    ``advance(token)`` consumes a sampled or forced token and returns the op
    it completed, if any; ``allowed()`` is the mask for the next token;
    ``forced()`` the tokens the grammar now forces (tag text, mostly).

    ``must_change`` refuses the programs that leave the selection as it is:
    once copies in order have covered every selected line and nothing was
    generated or skipped, the program may not end there (a ``<gen>`` must follow).

    ``keep`` (an apply: the runs of lines the update's placement keeps) lets
    copies name only those lines, and the program end only after the last of
    them: a line the update removes is never copied, and the region's
    unchanged last lines are never dropped.  ``must`` (the lines the update
    shows or a marker keeps) are copied, none left out; a line in ``keep``
    but not in ``must`` (one the placement thinks a new line rewrites) may be
    kept or left out.  ``adds`` (the update's new text, each piece with the
    line the update shows before it) is all a ``<gen>`` may write, after that
    line and before the next ``must`` line; the program ends once all are
    written.  So every program is a merge of the update: what stays the
    model's is whether a new line rewrites the line it resembles or joins it,
    the one call the placement makes by a guess (``program.update``).
    """

    tokenizer: llguidance.LLTokenizer
    first: int
    last: int
    ops: list = field(default_factory=list)
    done: bool = False
    must_change: bool = False
    keep: tuple[tuple[int, int], ...] | None = None  # the only lines a copy may name, as runs
    must: tuple[int, ...] | None = None  # lines a copy may not leave out, ascending
    adds: tuple[tuple[int, str], ...] | None = None  # (after line, text): the only <gen>s, in this order

    def __post_init__(self):
        if self.first < 1 or self.last < self.first - 1:
            raise ValueError(f"bad line range {self.first}..{self.last}")
        self._copy_start: int | None = None
        self._next_line = self.first
        self._unchanged = True  # so far, copies of lines first..next_line-1 in order, nothing generated
        self.consumed = 0  # tokens advanced through, sampled or forced
        self.op_tokens: list[int] = []  # the tokens of the op being written
        self._added = 0  # how many of adds the program has written
        self._start_phase(self._next_op(allow_gen=True))

    def clone(self) -> "ProgramConstraint":
        """An independent copy, to try tokens on (a draft) without moving this one."""
        twin = copy.copy(self)
        twin._matcher = self._matcher.deep_copy()
        twin.ops, twin.op_tokens = list(self.ops), list(self.op_tokens)
        return twin

    # -- where the program is (what a drafter reads)
    @property
    def next_line(self) -> int:
        """The first line a copy may name next."""
        return self._next_line

    @property
    def copy_start(self) -> int | None:
        """The start line of the copy being written, once its ``-`` is written."""
        return self._copy_start

    @property
    def op_text(self) -> str:
        """The text of the op being written so far, from its first token (``op_tokens``), though a copy's
        end line is a phase of its own; a character split across tokens is left out."""
        text = self._text.decode("utf-8", errors="ignore")
        return text if self._copy_start is None else f"{_COPY_HEAD}{self._copy_start}-{text}"

    # -- phases
    def _may_end(self) -> bool:
        """Whether the program may end after the ops so far: not, under must_change, when they are the
        selection's lines copied in order and nothing else; not before a line it must copy (under keep,
        its last line), nor before its adds are written."""
        if self.must is not None:
            if self._next_must(self._next_line - 1) <= self.last:
                return False
        elif self.keep and self._next_line <= max(b for _, b in self.keep):
            return False
        if self.adds is not None and self._added < len(self.adds):
            return False
        return not (self.must_change and self._unchanged and self._next_line > self.last)

    def _next_must(self, line: int) -> int:
        """The first line after ``line`` that a copy may not leave out (last + 1 when none)."""
        if not self.must:
            return self.last + 1
        at = bisect.bisect_right(self.must, line)
        return self.must[at] if at < len(self.must) else self.last + 1

    def _pending_add(self) -> tuple[int, str] | None:
        return self.adds[self._added] if self.adds is not None and self._added < len(self.adds) else None

    def _next_op(self, allow_gen: bool) -> str:
        starts, gen_text, pending = None, None, self._pending_add()
        if self.keep is not None:
            first_start = min(self._copy_limit(), self._next_must(self._next_line - 1))  # a must line is not skipped
            starts = [(max(a, self._next_line), min(b, first_start)) for a, b in self.keep]
        if self.adds is not None:
            allow_gen = allow_gen and pending is not None and self._next_line > pending[0]
            gen_text = pending[1] if allow_gen else None
        return next_op_grammar(self._next_line, self._copy_limit(), allow_gen=allow_gen, allow_end=self._may_end(),
                               gen_text=gen_text, starts=starts)

    def _copy_limit(self) -> int:
        """The last line a copy may name: with new text still to write, the last before the next line it
        must follow (under must: the last line before the must line after it)."""
        pending = self._pending_add()
        if pending is None:
            return self.last
        after = pending[0]
        return min(self.last, after if self.must is None else self._next_must(after) - 1)

    def _copy_ends(self, start: int) -> list[tuple[int, int]] | None:
        """Under must, where a copy from ``start`` may end: not just before a line it must copy too (a copy
        split in two writes the same text: the split would be a choice that changes nothing), so the end
        is the model's to choose only among the lines it may leave out."""
        if self.must is None:
            return None
        last = self._copy_end(start)
        return line_runs(end for end in range(start, last + 1) if end == last or self._next_must(end) != end + 1)

    def _copy_end(self, start: int) -> int:
        """The last line a copy from ``start`` may reach."""
        if self.keep is None:
            return self._copy_limit()
        return next(min(b, self._copy_limit()) for a, b in self.keep if a <= start <= b)

    def _start_phase(self, lark: str) -> None:
        key = (id(self.tokenizer), lark)
        fresh = _MATCHERS.get(key)
        if fresh is None:  # building a matcher takes milliseconds; copying a fresh one, microseconds
            fresh = llguidance.LLMatcher(self.tokenizer, llguidance.LLMatcher.grammar_from_lark(lark))
            if fresh.is_error():
                raise GrammarError(fresh.get_error())
            if len(_MATCHERS) >= _MATCHERS_KEPT:
                _MATCHERS.pop(next(iter(_MATCHERS)))
            _MATCHERS[key] = fresh
        self._matcher = fresh.deep_copy()
        self._text = b""

    def _finish_phase(self) -> Op | None:
        text = self._text.decode("utf-8", errors="strict")
        if self._copy_start is not None:
            if text.endswith(_COPY_TAIL):
                end = int(text[: -len(_COPY_TAIL)])
                op = Copy(self._copy_start, end)
                self._unchanged = self._unchanged and self._copy_start == self._next_line
                self._copy_start = None
                self._next_line = end + 1
                self._start_phase(self._next_op(allow_gen=True))
                return op
            return None
        if text.startswith(_COPY_HEAD) and text.endswith("-"):
            self._copy_start = int(text[len(_COPY_HEAD) : -1])
            self._start_phase(copy_end_grammar(self._copy_start, self._copy_end(self._copy_start),
                                               self._copy_ends(self._copy_start)))
            return None
        if text.startswith(_GEN_HEAD) and text.endswith(_GEN_TAIL) and self._matcher.is_accepting():
            op = Gen(unescape_gen(text[len(_GEN_HEAD) : -len(_GEN_TAIL)]))
            self._unchanged = False
            self._added += self.adds is not None
            self._start_phase(self._next_op(allow_gen=False))
            return op
        return None

    # -- the interface the decode loop uses
    @property
    def vocab_size(self) -> int:
        return self.tokenizer.vocab_size

    def allowed(self) -> np.ndarray:
        """Boolean mask over the tokenizer's vocabulary."""
        bits = np.frombuffer(self._matcher.compute_bitmask(), dtype=np.uint8)
        return np.unpackbits(bits, bitorder="little")[: self.tokenizer.vocab_size].astype(bool)

    def sole_token(self) -> int | None:
        """The one token the grammar allows next, end of program included, or None.  Checked only under an
        apply's ``adds``: there the grammar decides most of the program and the model only its calls, so a
        program decided to its end needs no forward (elsewhere the mask would cost each step for nothing)."""
        if self.adds is None or self.done:
            return None
        allowed = np.flatnonzero(self.allowed())
        return int(allowed[0]) if len(allowed) == 1 else None

    def forced(self) -> list[int]:
        """Tokens the grammar forces next (without consuming them)."""
        if self.done or self._matcher.is_stopped():
            return []
        return list(self._matcher.compute_ff_tokens())

    def accepts(self, token: int) -> bool:
        """Whether ``token`` may come next (checked without consuming it)."""
        if self.done:
            return False
        if token == self.tokenizer.eos_token:
            return self._matcher.is_accepting() and not self._text
        return self._matcher.validate_tokens([token]) == 1

    def advance(self, token: int) -> Op | None:
        if self.done:
            raise GrammarError("the program already ended")
        if token == self.tokenizer.eos_token:
            if not self._matcher.is_accepting() or self._text:
                raise GrammarError("end of program inside an op")
            self.consumed += 1
            self.done = True
            return None
        if not self._matcher.consume_token(token):
            raise GrammarError(f"token {token} is not allowed here: {self._matcher.get_error()}")
        self.consumed += 1
        self.op_tokens.append(token)
        self._text += self.tokenizer.decode_bytes([token])
        try:
            op = self._finish_phase()
        except UnicodeDecodeError:
            return None  # a multi-byte character split across tokens: wait for the rest
        if op is not None:
            self.ops.append(op)
            self.op_tokens = []
        return op

    @property
    def in_gen(self) -> bool:
        return self._text.startswith(_GEN_HEAD.encode())


_TOKENIZER_CACHE: dict[int, llguidance.LLTokenizer] = {}


def ll_tokenizer(hf_tokenizer) -> llguidance.LLTokenizer:
    """llguidance's view of a Hugging Face tokenizer (built once per tokenizer; ~0.5 s).

    ``llguidance.hf.from_tokenizer`` copies the Rust tokenizer to switch its
    padding and truncation off before serializing it; the copy is a JSON round
    trip (~0.3 s for a 49k vocabulary), so a tokenizer with neither is
    serialized as it is: the same JSON.
    """
    key = id(hf_tokenizer)
    if key not in _TOKENIZER_CACHE:
        backend = getattr(hf_tokenizer, "backend_tokenizer", None)
        if backend is not None and backend.padding is None and backend.truncation is None:
            built = llguidance.LLTokenizer(backend.to_str(), eos_token=hf_tokenizer.eos_token_id)
        else:
            from llguidance.hf import from_tokenizer

            built = from_tokenizer(hf_tokenizer)
        _TOKENIZER_CACHE[key] = built
    return _TOKENIZER_CACHE[key]


__all__ = [
    "number_range_regex",
    "next_op_grammar",
    "copy_end_grammar",
    "line_runs",
    "ProgramConstraint",
    "GrammarError",
    "ll_tokenizer",
]
