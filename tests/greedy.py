"""Greedy equivalence: two ways of decoding the same requests must write the same program, token for token.

A *runner* takes a ``Case`` and returns the ``Run`` it decoded greedily.
``engine_runner`` wraps an ``Engine`` in any configuration (splices and
fast-forward on or off, later speculation); ``stepwise_reference`` is the
independent definition of greedy copy/gen decoding -- one forward per token,
every copied token included, written here without the engine's loop.
``assert_same_greedy`` compares two runners over many cases.
"""

from __future__ import annotations

import random
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Callable
from unittest import mock

import torch

from cad_lsp.backends.pytorch import LocalModel
from cad_lsp.engine import Engine, autoregressive, copy_tokens
from cad_lsp.engine import engine as engine_mod
from cad_lsp.engine.grammar import ProgramConstraint, ll_tokenizer
from cad_lsp.engine.prompt import build_prompt
from cad_lsp.program import Copy, Document, resolve, split_lines


@dataclass(frozen=True)
class Case:
    document: str
    first: int
    last: int
    instruction: str
    name: str = "document"


@dataclass
class Run:
    """What one greedy decode produced, as the grammar and the cache saw it."""

    program_tokens: list[int]  # every token the grammar consumed, sampled or forced, in order
    ops: list
    text: str
    complete: bool
    stream: list[int]  # program tokens with each copy's content after the token that closed it
    cached: list[int] = field(default_factory=list)  # the request's tokens the cache held at the end
    forwards: int = 0
    copy_ends: list[int] = field(default_factory=list)  # indices of program tokens that closed a copy tag


Runner = Callable[[Case], Run]


class _Recording(ProgramConstraint):
    """A ProgramConstraint that remembers each token it consumed and the op that token completed."""

    def __post_init__(self):
        self.trace: list[tuple[int, object]] = []
        super().__post_init__()

    def advance(self, token):
        op = super().advance(token)
        self.trace.append((token, op))
        return op

    def clone(self):  # a draft's trial copy records on its own
        twin = super().clone()
        twin.trace = list(self.trace)
        return twin


def _copy_ends(trace) -> list[int]:
    return [i for i, (_, op) in enumerate(trace) if isinstance(op, Copy)]


def _stream(tokenizer, doc: Document, trace) -> list[int]:
    out = []
    for token, op in trace:
        out.append(token)
        if isinstance(op, Copy):
            out += copy_tokens(tokenizer, doc, op)
    return out


def engine_runner(engine: Engine, max_tokens: int, **edit_kwargs) -> Runner:
    """Greedy edits through ``engine`` as configured; records the grammar's tokens and the cache's last contents."""

    def run(case: Case) -> Run:
        made: list[_Recording] = []
        cropped: list[list[int]] = []
        backend_crop = engine.backend.crop

        def recording(*args, **kwargs):
            made.append(_Recording(*args, **kwargs))
            return made[-1]

        def crop(state, length):
            cropped.append(list(state.ids))
            backend_crop(state, length)

        prompt = build_prompt(engine.tokenizer, case.document, case.first, case.last, case.instruction, case.name,
                              examples=getattr(engine, "examples", ""))
        with ExitStack() as stack:
            stack.enter_context(mock.patch.object(engine_mod, "ProgramConstraint", recording))
            stack.enter_context(mock.patch.object(engine.backend, "crop", crop))
            result = engine.edit(case.document, case.first, case.last, case.instruction, name=case.name,
                                 max_tokens=max_tokens, temperature=0.0, **edit_kwargs)
        (constraint,) = made
        doc = Document(case.document)
        assert cropped[-1][: len(prompt.ids)] == prompt.ids
        return Run([t for t, _ in constraint.trace], result.ops, result.text, result.complete,
                   _stream(engine.tokenizer, doc, constraint.trace), cropped[-1][len(prompt.ids):],
                   result.stats.forwards, _copy_ends(constraint.trace))

    return run


def stepwise_reference(loaded, max_tokens: int, examples: str = "") -> Runner:
    """Greedy decoding by its definition: the prompt in one forward, then every token in a forward of its own.

    Each step masks the logits with the grammar and takes the argmax; a closed
    copy tag is followed by the copied lines' tokens, each decoded one by one
    (``autoregressive``).  Nothing is spliced and nothing is fast-forwarded.  ``examples``: the few-shot
    text of the prompt, as the engine under comparison has it (``engine.examples``).
    """
    model = LocalModel(loaded)
    tokenizer = loaded.tokenizer
    ll = ll_tokenizer(tokenizer)

    def run(case: Case) -> Run:
        prompt = build_prompt(tokenizer, case.document, case.first, case.last, case.instruction, case.name,
                              examples=examples)
        doc = Document(case.document)
        state = model.new_state()
        forwards = model.forwards
        logits = model.extend(state, prompt.ids)
        constraint = _Recording(ll, case.first, case.last)
        while not constraint.done and len(constraint.trace) < max_tokens:
            allowed = torch.from_numpy(constraint.allowed())
            scores = torch.full_like(logits, float("-inf"))
            scores[: len(allowed)] = torch.where(allowed, logits[: len(allowed)], float("-inf"))
            token = int(torch.argmax(scores))
            op = constraint.advance(token)
            if constraint.done:
                break
            ids = [token] + (copy_tokens(tokenizer, doc, op) if isinstance(op, Copy) else [])
            autoregressive(model, state, ids[:-1])
            logits = model.extend(state, ids[-1:])
        ops = list(constraint.ops)
        return Run([t for t, _ in constraint.trace], ops, resolve(ops, doc, case.first, case.last), constraint.done,
                   _stream(tokenizer, doc, constraint.trace), state.ids[len(prompt.ids):],
                   model.forwards - forwards - 1, _copy_ends(constraint.trace))

    return run


def compare(a: Run, b: Run, max_tokens: int) -> str | None:
    """None when the two runs are the same greedy program; else what differs.

    A run that hit ``max_tokens`` may stop a few forced tokens later than
    another (fast-forward appends a forced tag whole), so an unfinished run
    must be a prefix of the other and must have used its budget.
    """
    for run in (a, b):
        if not run.cached == run.stream[: len(run.cached)]:
            return f"the cache holds tokens the program did not write: {run.cached} vs {run.stream}"
        if not run.complete and len(run.program_tokens) < max_tokens:
            return f"unfinished before the budget: {len(run.program_tokens)} tokens"
    if a.complete and b.complete:
        if (a.program_tokens, a.ops, a.text) != (b.program_tokens, b.ops, b.text):
            return f"different programs: {a.ops} vs {b.ops}"
        return None
    n = min(len(a.program_tokens), len(b.program_tokens))
    if a.program_tokens[:n] != b.program_tokens[:n]:
        at = next(i for i in range(n) if a.program_tokens[i] != b.program_tokens[i])
        return f"programs part at token {at}: {a.program_tokens[at]} vs {b.program_tokens[at]} ({a.ops} vs {b.ops})"
    finished = a if a.complete else b if b.complete else None
    if finished is not None and len(finished.program_tokens) != n:
        return "one run finished, the other stopped at its budget with a longer program"
    return None


def assert_same_greedy(a: Runner, b: Runner, cases: list[Case], max_tokens: int) -> list[tuple[Run, Run]]:
    """Both runners on every case; fails listing each case where they wrote different programs."""
    pairs, failures = [], []
    for index, case in enumerate(cases):
        run_a, run_b = a(case), b(case)
        problem = compare(run_a, run_b, max_tokens)
        if problem:
            failures.append(f"case {index} {case!r}: {problem}")
        pairs.append((run_a, run_b))
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures[:5])
    return pairs


# ---------------------------------------------------------------------------
# Random requests with the awkward cases in them

PIECES = ["x = 1", "def f(x):", "    return x + 1", "\t", "", "😀", "é", "日本", "</gen>", '<copy lines="1-2"/>',
          "class A:", "    pass", "# comment", "print('hi')", "  ", "a, b = b, a"]
ENDINGS = ["\n", "\n", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n"]
INSTRUCTIONS = ["Fix the bug", "Add type hints", "rename x to y", "😀 make it faster", "delete everything",
                "Add docstrings", "use é and 日本", "keep it\r\nthe same"]


def random_cases(seed: int, count: int, max_lines: int = 10) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        body = "".join(" ".join(rng.sample(PIECES, rng.randint(1, 3))) + rng.choice(ENDINGS)
                       for _ in range(rng.randint(1, max_lines)))
        if rng.random() < 0.3:
            body = body.rstrip("\r\n")  # no final line terminator
        lines = split_lines(body)
        if not lines:
            continue
        first = rng.randint(1, len(lines))
        last = rng.randint(first, min(len(lines), first + 6))
        cases.append(Case(body, first, last, rng.choice(INSTRUCTIONS)))
    return cases
