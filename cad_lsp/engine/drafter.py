"""Drafts of what an edit program says next, guessed from the document.

Most of a program is predictable from the document it edits: a copy starts
where the previous one ended (or after the lines a ``<gen>`` replaced), the
last copy runs to the end of the selection, and a ``<gen>`` body mostly
repeats the line it replaces, or text found elsewhere in the document.  The
decode loop appends a draft to its next forward and keeps the longest prefix
the model itself would have chosen
(``decode.decode_loop``), so a good draft saves forwards and a bad one costs
only the extra tokens in one forward; the output never changes.

``Drafter`` proposes tokens; ``DraftBudget`` decides how many of them are
worth a forward's extra cost, from the running acceptance rate of each kind of
draft and the measured cost of a token in a forward.  No torch here.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from ..program import Copy, Document, Gen, escape_gen, format_op, split_lines

# draft kinds: program structure (tags, line numbers, the end); <gen> text from the line it rewrites; <gen>
# text found elsewhere (prompt lookup); the program an apply's update implies (tags and text alike).  Each has
# its own acceptance rate: lookups miss far more often, an update's program rarely.
TAG, GEN, LOOKUP, UPDATE = "tag", "gen", "lookup", "update"
EDIT_KINDS = (TAG, GEN, LOOKUP)  # what an edit drafts
KINDS = EDIT_KINDS + (UPDATE,)
_COPY_HEAD = '<copy lines="'
_GEN_HEAD, _GEN_TAIL = "<gen>", "</gen>\n"
SIMILAR = 0.5  # difflib ratio above which a generated line is taken to replace the document line it resembles
CONTAINED_MIN = 8  # ... or characters of the shorter line when one holds the other
LOOKUP_MIN, LOOKUP_MAX = 3, 32  # characters of the line being written that a lookup matches, at least and at most
LOOKUP_ABOVE = 8  # lines above the one being rewritten where a lookup starts looking


@dataclass
class Draft:
    """Proposed program tokens, each with its kind."""

    tokens: list[int] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)

    def add(self, tokens: list[int], kind: str) -> None:
        self.tokens += tokens
        self.kinds += [kind] * len(tokens)

    def extend(self, other: "Draft") -> None:
        self.tokens += other.tokens
        self.kinds += other.kinds


class Drafter:
    """Proposes the program's next tokens for one request (lines ``first..last`` of ``document``)."""

    def __init__(self, tokenizer, document: Document, first: int, last: int, eos: int):
        self.tokenizer, self.document, self.first, self.last, self.eos = tokenizer, document, first, last, eos
        self._encoded: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        if text not in self._encoded:
            self._encoded[text] = self.tokenizer.encode(text, add_special_tokens=False)
        return self._encoded[text]

    def line(self, number: int) -> str:
        lines = self.document.lines
        return lines[number - 1] if 1 <= number <= len(lines) else ""

    # -- what comes next
    def propose(self, ops: list, next_line: int, copy_start: int | None, op_text: str,
                op_tokens: list[int]) -> Draft:
        """The draft after the program so far: ``ops`` complete, ``op_text`` (tokens ``op_tokens``) of the next.

        ``next_line`` is the first line a copy may name; ``copy_start`` is set
        once a copy's start line has been written.
        """
        if op_text.startswith(_GEN_HEAD):  # inside a <gen>: the rest of the line it rewrites, then close it
            body = op_text[len(_GEN_HEAD):]
            closing = self.closing(body, next_line)
            if closing is not None:  # the closing tag is begun (a draft was cut inside it): the rest of it
                current, pieces = Gen(body[:len(body) - len(closing)]), None
            else:
                guess = self.gen_rest(body, next_line, "".join(op.text for op in ops if isinstance(op, Gen)))
                if guess is None:
                    return Draft()
                rest, kind = guess
                current = Gen(body + rest)
                pieces = [(len(body) + len(_GEN_HEAD), TAG), (len(current.text) - len(body), kind),
                          (len(_GEN_TAIL), TAG)]
        elif copy_start is not None:  # the copy's end line is being written
            written = op_text.rsplit("-", 1)[-1]
            end = self.copy_end(ops, copy_start)
            if not str(end).startswith(written):
                end = self._complete_number(written, copy_start)
                if end is None:
                    return Draft()
            current, pieces = Copy(copy_start, end), None
        else:  # at an op's start, or in a copy's start line: the op the plan expects next, else the one begun
            planned = self.plan(ops, next_line)
            if not planned:
                return self._render([], ops, next_line) if not op_text else Draft()
            current = next((op for op in planned[:1] + self.alternatives(ops, next_line)
                            if self.op_text(op).startswith(op_text)), planned[0])  # none begun: refused below
            pieces = None
        text = self.op_text(current)
        if not text.startswith(op_text):
            return Draft()
        draft = self._tokens(op_text, op_tokens, text, pieces or self.pieces(current))
        draft.extend(self._render(self.plan(ops + [current], None if isinstance(current, Copy) else next_line),
                                  ops + [current], next_line))
        return draft

    def plan(self, ops: list, next_line: int | None) -> list:
        """The ops that likely follow ``ops`` (at most a gen, the copy after it, and one more)."""
        if next_line is None:
            next_line = ops[-1].end + 1 if ops and isinstance(ops[-1], Copy) else self.first
        planned: list = []
        for _ in range(3):
            previous = (ops + planned)[-1] if ops or planned else None
            if isinstance(previous, Gen):
                start = next_line + self.replaced_lines(previous.text, next_line)
                if start > self.last:
                    break
                op = Copy(start, self.copy_end(ops + planned, start))
            elif next_line > self.last:
                break
            elif previous is None:
                op = Copy(next_line, self.copy_end(ops, next_line))
            elif _splits_copies(ops + planned):  # a model that split a copy before likely does it again
                op = Copy(next_line, self.copy_end(ops + planned, next_line))
            else:  # after a copy that stopped early: the next line, rewritten
                op = Gen(self.line(next_line))
            planned.append(op)
            if isinstance(op, Copy):
                next_line = op.end + 1
        return planned

    def alternatives(self, ops: list, next_line: int) -> list:
        """The ops other than the plan's that a model often writes at ``next_line``: a copy from there (models
        split copies where nothing changes), or the line rewritten."""
        if next_line > self.last:
            return []
        return [Copy(next_line, self.copy_end(ops, next_line)), Gen(self.line(next_line))]

    def _ends(self, ops: list, next_line: int) -> bool:
        """Whether the program is likely complete after ``ops``."""
        if not ops:
            return False
        if isinstance(ops[-1], Copy):
            return ops[-1].end >= self.last
        return next_line + self.replaced_lines(ops[-1].text, next_line) > self.last

    def _render(self, planned: list, before: list, next_line: int) -> Draft:
        """Whole ops as the tokens a model writes them (each op tokenized alone), then the end if it is due."""
        draft = Draft()
        for op in planned:
            draft.extend(self._tokens("", [], self.op_text(op), self.pieces(op)))
            if isinstance(op, Copy):
                next_line = op.end + 1
        if self._ends(before + planned, next_line):
            draft.add([self.eos], TAG)
        return draft

    @classmethod
    def pieces(cls, op) -> list[tuple[int, str]]:
        """An op's text as (length, kind) pieces: a gen's body is GEN, everything else TAG."""
        text = cls.op_text(op)
        if isinstance(op, Copy):
            return [(len(text), TAG)]
        return [(len(_GEN_HEAD), TAG), (len(text) - len(_GEN_HEAD) - len(_GEN_TAIL), GEN), (len(_GEN_TAIL), TAG)]

    @staticmethod
    def op_text(op) -> str:
        return format_op(op) + "\n" if isinstance(op, Copy) else _GEN_HEAD + escape_gen(op.text) + _GEN_TAIL

    def _tokens(self, written: str, written_tokens: list[int], text: str, pieces: list[tuple[int, str]]) -> Draft:
        """The tokens of ``text`` after its first ``written`` characters (already written as ``written_tokens``).

        The op's whole text is tokenized as one piece, as a model writing it
        would, when that agrees with the tokens written; the rest alone
        otherwise.  Each token's kind is that of the piece its first character is in.
        """
        whole = self.encode(text)
        if whole[:len(written_tokens)] == written_tokens:
            tokens, at = whole[len(written_tokens):], len(written)
        else:
            tokens, at = self.encode(text[len(written):]), len(written)
        bounds, total = [], 0
        for size, kind in pieces:
            total += size
            bounds.append((total, kind))
        draft = Draft()
        for token in tokens:
            draft.add([token], next((kind for bound, kind in bounds if at < bound), bounds[-1][1]))
            at += len(self.tokenizer.decode([token]))
        return draft

    # -- the guesses
    def copy_end(self, ops: list, start: int) -> int:
        """Where a copy starting at ``start`` likely ends: the selection's end (the last copy, or a first
        copy before an edit we cannot place)."""
        return self.last

    def _complete_number(self, written: str, low: int) -> int | None:
        """The smallest line number >= low, <= last, that starts with the digits written."""
        for number in range(low, self.last + 1):
            if str(number).startswith(written):
                return number
        return None

    def closing(self, body: str, next_line: int) -> str | None:
        """The start of ``</gen>`` that ``body`` ends with (``</`` at least: a lone ``<`` begins a tag in HTML
        as often), on a line of its own, if it is not the start of the document line it stands for (``</div>``)."""
        partial = body.rsplit("\n", 1)[-1]
        if len(partial) < 2 or not _GEN_TAIL.startswith(partial):
            return None
        return None if self.line(next_line + body.count("\n")).startswith(partial) else partial

    def resembles(self, text: str, number: int) -> bool:
        """Whether a generated line reads as a rewrite of document line ``number``: alike, or one holds the
        other (a line that lost or gained a long comment is far from alike by difflib's ratio)."""
        mine, theirs = text.strip(), self.line(number).strip()
        if min(len(mine), len(theirs)) >= CONTAINED_MIN and (mine in theirs or theirs in mine):
            return True
        return difflib.SequenceMatcher(None, mine, theirs).ratio() >= SIMILAR

    def replaced_lines(self, text: str, next_line: int) -> int:
        """How many document lines from ``next_line`` a generated ``text`` replaced: as many as it has
        lines when its first line resembles the document's, none when it reads as an insertion."""
        lines = split_lines(text)
        if not lines:
            return 0
        return min(len(lines), self.last - next_line + 1) if self.resembles(lines[0], next_line) else 0

    def gen_rest(self, body: str, next_line: int, generated: str = "") -> tuple[str, str] | None:
        """The rest of a <gen> body's current line and its draft kind: how the document line it rewrites goes
        on (GEN), else how the line's last characters go on elsewhere (LOOKUP; at a line's start after a line of
        new text, with that line's end: indentation alone matches anywhere), else None: no guess, when the
        line has grown past the document's without meeting it or anything else again."""
        done = body.count("\n")
        partial = body.rsplit("\n", 1)[-1]
        if done and not partial.strip():  # at a line's start: after new text, how it goes on where it occurs
            ended = body[:len(body) - len(partial) - 1].rsplit("\n", 1)[-1]
            if not self.resembles(ended, next_line + done - 1):
                tail = ended + "\n" + partial
                found = self.lookup(tail, next_line + done, generated + body[:len(body) - len(tail)])
                if found:
                    return found, LOOKUP
            if not partial:
                return "", GEN  # a line just ended: the draft closes the gen
        source = self.line(next_line + done)
        if source.startswith(partial):
            return source[len(partial):], GEN
        common = _common_prefix(partial, source)
        resumed = _resume(partial, source, common, LOOKUP_MIN, LOOKUP_MAX)
        if resumed is not None:
            return resumed, GEN
        found = self.lookup(partial, next_line + done, generated + body[:len(body) - len(partial)])
        if found is not None:
            return found, LOOKUP
        resumed = _resume(partial, source, common, 1, LOOKUP_MIN - 1)  # a shorter match, where nothing else is
        if resumed is not None:
            return resumed, GEN
        if len(partial) >= len(source.rstrip("\r\n")):
            return None
        return source[len(partial):], GEN  # a substitution of the same length

    def lookup(self, partial: str, near: int, generated: str) -> str | None:
        """Prompt lookup: how the longest tail of ``partial`` found elsewhere goes on, to the end of the line
        after it (a match in new text often runs on into the next line).

        Looked for in the document from a few lines above ``near`` down, then
        above that, then in what the program generated before; the tail is at
        least ``LOOKUP_MIN`` characters, so a lone space does not count as a match.
        """
        text = self.document.text
        if len(partial) < LOOKUP_MIN or (partial[-LOOKUP_MIN:] not in text and partial[-LOOKUP_MIN:] not in generated):
            return None  # nothing longer matches either: new text, no need to search a long document 30 times
        start = self.document.line_starts[max(0, min(near - 1 - LOOKUP_ABOVE, len(self.document.lines)))]
        for size in range(min(len(partial), LOOKUP_MAX), LOOKUP_MIN - 1, -1):
            tail = partial[-size:]
            for haystack, at in ((text, text.find(tail, start)), (text, text.rfind(tail, 0, start + size - 1)),
                                 (generated, generated.rfind(tail))):
                if at >= 0:
                    end = haystack.find("\n", at + size)
                    if end >= 0:
                        end = max(end, haystack.find("\n", end + 1))
                    return haystack[at + size:] if end < 0 else haystack[at + size:end + 1]
        return None


def _resume(partial: str, source: str, common: int, least: int, most: int) -> str | None:
    """How ``source`` goes on after the longest tail of ``partial`` (``least`` to ``most`` characters) found in
    it past their ``common`` first characters: a line rewritten in the middle, back in step with the document."""
    for size in range(min(len(partial) - common, most), least - 1, -1):
        at = source.find(partial[-size:], common)
        if at >= 0:
            return source[at + size:]
    return None


class PlanDrafter(Drafter):
    """Drafts a program known in advance (an apply: the program of the update's merge), every op of it and
    the end, for as long as the model's program follows it; where the model parts from it, the document's
    guesses (``Drafter``) take over.  The model's program stays its own: a draft only saves forwards."""

    def __init__(self, tokenizer, document: Document, first: int, last: int, eos: int, plan: list):
        super().__init__(tokenizer, document, first, last, eos)
        self.planned_ops = list(plan)

    def propose(self, ops: list, next_line: int, copy_start: int | None, op_text: str,
                op_tokens: list[int]) -> Draft:
        done = len(ops)
        if ops != self.planned_ops[:done]:
            return super().propose(ops, next_line, copy_start, op_text, op_tokens)
        draft = Draft()
        if done < len(self.planned_ops):
            current = self.planned_ops[done]
            text = self.op_text(current)
            if not text.startswith(op_text):
                return super().propose(ops, next_line, copy_start, op_text, op_tokens)
            draft = self._tokens(op_text, op_tokens, text, [(len(text), UPDATE)])
            for op in self.planned_ops[done + 1:]:
                draft.extend(self._tokens("", [], self.op_text(op), [(len(self.op_text(op)), UPDATE)]))
        elif op_text:
            return super().propose(ops, next_line, copy_start, op_text, op_tokens)
        draft.add([self.eos], UPDATE)
        return draft


def _splits_copies(ops: list) -> bool:
    """Whether a copy follows another right where it ended (one copy's lines written as two)."""
    return any(isinstance(a, Copy) and isinstance(b, Copy) and b.start == a.end + 1 for a, b in zip(ops, ops[1:]))


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


USUAL_WEIGHT = 0.02  # a draft's weight in the usual acceptance rate (about the last fifty drafts)
RUN_PRIOR = 0.9  # a drafted choice after kept ones, before any is measured: a draft in step tends to stay so


class DraftBudget:
    """How much of a draft is worth its forward, learned as the engine runs.

    A drafted choice saves one forward if it and every choice before it are
    accepted.  The odds of that are kept per kind, apart for a draft's first
    choice (is the draft in step with the model at all?) and for those after
    kept ones (a draft in step tends to stay so: one pooled rate priced long
    lookups far too low); and the first choice the budget cuts is checked
    anyway by the loop's next step, so a rate that fell recovers without
    spending anything.  A choice's price is what its tokens add to the forward
    that runs anyway, and that is not linear in the tokens: on a 2-core CPU a
    forward of 2-3 tokens of SmolLM2 costs 1.1-1.2 decode steps, one of 4-6
    tokens 1.3 and one of 8-12 tokens 1.5 (``bench smallforward``, with
    ``linear``'s packed layers), on a GPU nearly nothing.  So the
    budget keeps the measured time of forwards by size (``cost``, a linear
    guess from the token cost until a size has been seen) and sends the
    number of choices whose expected saving exceeds their cost by most; plus
    a logits row per choice (``head_ratio`` tokens' worth: the output
    layer's share of the model).  Drafting itself is skipped (bar a probe now
    and then) while the best acceptance rate cannot pay for laying a draft out;
    a probe sends at least one choice, so a rate that fell is measured again.
    """

    PROBE_EVERY = 16  # rounds: a skipped drafter still tries now and then, so the rates follow the model

    def __init__(self, prior_accept: float = 0.6, prior_weight: float = 4.0, token_cost: float = 0.05,
                 head_ratio: float = 0.3, decay: float = 0.8, run_prior: float = RUN_PRIOR):
        self.prior_weight = prior_weight
        # acceptance over many requests (each request's start), by kind and whether a draft's first choice
        self.usual = {(kind, first): prior_accept if first else run_prior for kind in KINDS for first in (True, False)}
        self.new_request()
        self.token_cost, self.head_ratio, self.decay = token_cost, head_ratio, decay
        self.step_s: float | None = None  # a forward of one token
        self.draft_s = 0.0  # laying out one draft (Python: the grammar, the tokenizer)
        self.forward_s: dict[int, float] = {}  # seconds of a forward, by size (``size_class``)
        self._tokens: dict[int, float] = {}  # tokens of the forwards timed, on average, by size
        self._per_token_s: float | None = None
        self._rounds = 0
        self.probing = False  # this round is a probe: something is drafted whatever the rates say

    def new_request(self) -> None:
        """Acceptance starts again from the usual rate; forward costs stay (they belong to the machine).

        A rate left low by one request's new text would otherwise hold back
        the next request's drafts, and a kind that is not drafted is never
        measured again (one such edit stopped every later <gen> draft).
        """
        self.accepted = {key: self.usual[key] * self.prior_weight for key in self.usual}
        self.drafted = {key: self.prior_weight for key in self.usual}

    def rate(self, kind: str, first: bool = False) -> float:
        """How often a drafted choice of this kind is kept: the first of a draft (is the draft in step with
        the model at all?), or one after kept choices (does it stay in step?)."""
        return self.accepted[kind, first] / self.drafted[kind, first]

    def record(self, kind: str, accepted: bool, first: bool = False) -> None:
        """Acceptance rates that follow the request at hand (about its last five drafts): an edit that writes
        new text accepts far fewer drafts than the copy-heavy ones before it, and a rate still carrying
        theirs sends drafts that lose time (0.86x on a commit with slow decay, 0.96x at worst with this)."""
        key = kind, first
        self.accepted[key] = self.accepted[key] * self.decay + accepted
        self.drafted[key] = self.drafted[key] * self.decay + 1
        self.usual[key] += USUAL_WEIGHT * (accepted - self.usual[key])

    @staticmethod
    def size_class(tokens: int) -> int:
        """Forwards timed together: 1 to 4 tokens each alone, then up to each power of two."""
        return tokens if tokens <= 4 else 1 << (tokens - 1).bit_length()

    def observe_forward(self, tokens: int, seconds: float) -> None:
        """A forward's size and time: the cost of that size, and of a token on average (the guess for sizes
        not seen yet)."""
        size = self.size_class(tokens)
        before = self.forward_s.get(size)
        if before is None:
            self.forward_s[size] = seconds
        else:  # a forward slowed by another process must not price its size out for long: such times count little
            weight = 0.2 if seconds < 2 * before else 0.02
            self.forward_s[size] = (1 - weight) * before + weight * seconds
        self._tokens[size] = 0.8 * self._tokens.get(size, tokens) + 0.2 * tokens
        self.step_s = self.forward_s.get(1) or self._step_estimate()
        if self.step_s is not None and tokens >= 8:
            per_token = max(0.0, seconds - self.step_s) / (tokens - 1)
            self._per_token_s = per_token if self._per_token_s is None else 0.9 * self._per_token_s + 0.1 * per_token
        if self.step_s and self._per_token_s is not None:
            self.token_cost = min(1.0, max(1e-4, self._per_token_s / self.step_s))

    def _step_estimate(self) -> float | None:
        """A one-token forward's time where none was timed: the line through the two smallest sizes timed.

        Where every step carries a draft no one-token forward runs, and a
        guessed token cost of 0.05 steps sent drafts of 19 choices at
        llama.cpp's 0.2 (each choice a row of attention over the document):
        a warm edit of a 2,000-line file spent 1.1 s in such steps.  The
        estimate lies between the smallest size's time per token and its
        whole time (a forward of n tokens costs at most n steps).
        """
        sizes = sorted(self.forward_s)[:2]
        if len(sizes) < 2:
            return None
        (n1, t1), (n2, t2) = ((self._tokens[size], self.forward_s[size]) for size in sizes)
        slope = (t2 - t1) / (n2 - n1) if n2 > n1 else 0.0
        return min(t1, max(t1 / n1, t1 - slope * (n1 - 1)))

    def cost(self, tokens: int) -> float:
        """A forward of ``tokens`` tokens, in decode steps: on the line through the sizes timed (each at its
        forwards' mean length, the step at one token), past the longest at the measured cost of a token.

        Not a size class's time for every length in it: a 9-token forward
        then cost what the 16-token ones did, so drafts ran to the end of
        each class (16, 8, 16, 16 tokens).  Nor the dearer of the classes
        around a size not timed: with only 3 and 256 tokens timed (a
        request's first splice), that priced a 4-token forward at 6 decode
        steps, so no longer draft was sent, and so none was timed.
        """
        if not self.step_s:
            return 1.0 + self.token_cost * (tokens - 1)
        points = sorted((self._tokens.get(size, size), seconds / self.step_s)
                        for size, seconds in self.forward_s.items())
        if 1 not in self.forward_s:
            points.insert(0, (1.0, 1.0))  # the step, estimated
        if tokens <= points[0][0]:
            return points[0][1]
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            if tokens <= x1:
                return y0 + (y1 - y0) * (tokens - x0) / (x1 - x0)
        last_tokens, last_cost = points[-1]
        return last_cost + self.token_cost * (tokens - last_tokens)

    def observe_draft(self, seconds: float) -> None:
        self.draft_s = 0.9 * self.draft_s + 0.1 * seconds

    def worth_drafting(self) -> bool:
        """Whether a draft's likely saving exceeds the time it takes to lay out and check."""
        self._rounds += 1
        self.probing = self._rounds % self.PROBE_EVERY == 0
        if self.step_s is None or self.probing:
            return True
        best = max(self.rate(kind, first=True) for kind in KINDS)
        return best * self.step_s > self.draft_s + self.step_s * self.token_cost * (1 + self.head_ratio)

    def keep(self, choice_kinds: list[str], added_tokens: list[int], pending: int = 1) -> int:
        """How many drafted choices to send (their kinds, the tokens each adds) with ``pending`` tokens that
        go anyway: the number whose expected saving, in forwards, exceeds its cost by most."""
        base = self.cost(max(1, pending))
        best, best_net = 0, 0.0
        p, saved, tokens = 1.0, 0.0, pending
        for j, (kind, added) in enumerate(zip(choice_kinds, added_tokens)):
            p *= self.rate(kind, first=j == 0)
            saved += p
            tokens += added
            net = saved - (self.cost(tokens) - base) - self.token_cost * self.head_ratio * (j + 1)
            if net > best_net:
                best, best_net = j + 1, net
        if not best and choice_kinds and self.probing:
            return 1  # a probe, so a kind whose rate fell is measured again within the request
        return best
