"""Speculation is lossless: drafting the program from the document and checking the draft in the same forwards
writes the program the plain loop writes, token for token; sampling keeps its distribution exactly."""

import collections

import numpy as np
import pytest
import torch

from cad_lsp.backends.pytorch import LocalModel
from cad_lsp.backends.pytorch.loading import load_model
from cad_lsp.engine import Engine, sample
from cad_lsp.engine.drafter import GEN, KINDS, LOOKUP, TAG, DraftBudget, Drafter
from cad_lsp.engine.grammar import ProgramConstraint, ll_tokenizer
from cad_lsp.program import Copy, Document, Gen
from cad_lsp.train import corpora

from .greedy import Case, assert_same_greedy, engine_runner, random_cases
from .test_greedy import corpus_cases, one_thread  # noqa: F401 -- a fixture

CASES = 300  # random requests on random:tiny (CRLF, emoji, blank lines, no final newline)
MAX_TOKENS = 24


@pytest.fixture(scope="module")
def tiny():
    return load_model("random:tiny", "cpu", "fp32")


def always_draft(engine: Engine) -> Engine:
    """An engine that drafts at every forward: random weights accept few drafts (and random:tiny's output layer
    makes checking one dear), and the claim is about what the loop does with the drafts it checks."""
    engine.draft_budget = DraftBudget(head_ratio=0.0)
    engine.draft_budget.worth_drafting = lambda: True
    return engine


def same_as_plain(speculating: Engine, plain: Engine, cases: list[Case]) -> tuple[list, list]:
    """Greedy programs with speculation and without, asserted the same on every case; the pairs of runs, and
    the speculating edits' stats."""
    stats, edit = [], speculating.edit

    def recording(*args, **kwargs):
        result = edit(*args, **kwargs)
        stats.append(result.stats)
        return result

    speculating.edit = recording
    pairs = assert_same_greedy(engine_runner(speculating, MAX_TOKENS, speculate=True),
                               engine_runner(plain, MAX_TOKENS, speculate=False), cases, MAX_TOKENS)
    return pairs, stats


@pytest.mark.parametrize("count", [100, pytest.param(CASES, marks=pytest.mark.slow)])
def test_speculation_writes_the_plain_greedy_program(tiny, one_thread, count):  # noqa: F811
    pairs, stats = same_as_plain(always_draft(Engine(LocalModel(tiny))), Engine(LocalModel(tiny)),
                                 random_cases(seed=29, count=count))
    # the cases reach accepted and rejected drafts, and finished programs with copies
    assert sum(run.complete and any(isinstance(op, Copy) for op in run.ops) for run, _ in pairs) >= count // 10
    accepted, drafted = sum(s.accepted_tokens for s in stats), sum(s.drafted_tokens for s in stats)
    assert 0 < accepted < drafted
    # a draft rides on a forward the plain loop runs anyway: never more forwards (fewer: the teacher test below)
    assert all(run.forwards <= plain.forwards for run, plain in pairs)


def teacher_cases() -> list[tuple[Case, list]]:
    """Requests with the programs an editing model writes: keep most lines, rewrite or add a few."""
    lines = ["def total(xs: list[int]) -> int:\n", "    \"\"\"Sum 😀 of xs.\"\"\"\r\n", "    s = 0\n",
             "    for x in xs[1:]:\n", "        s += x\n", "\n", "    return s\n", "print(total([1, 2]))"]
    doc = "".join(lines)
    return [
        (Case(doc, 1, 7, "fix the off-by-one"),
         [Copy(1, 3), Gen("    for x in xs:\n"), Copy(5, 7)]),
        (Case(doc, 1, 8, "add a comment"),
         [Copy(1, 2), Gen("    # start at zero\n"), Copy(3, 8)]),
        (Case(doc, 3, 5, "rename s"),
         [Gen("    total_ = 0\n    for x in xs[1:]:\n        total_ += x\n")]),
        (Case(doc, 2, 7, "delete the docstring"), [Copy(3, 7)]),
        (Case(doc, 1, 8, "no change"), [Copy(1, 8)]),
    ]


def test_teacher_forced_programs_take_fewer_forwards_and_fill_the_same_cache(tiny):
    """Teacher forcing: the drafter guesses the program, every accepted guess saves a forward, and the cache
    ends with exactly the tokens the plain loop put there."""
    for case, program in teacher_cases():
        runs = {}
        for speculate in (False, True):
            engine = always_draft(Engine(LocalModel(tiny)))
            kept = []
            crop = engine.backend.crop
            engine.backend.crop = lambda state, length, crop=crop: (kept.append(list(state.ids)), crop(state, length))
            result = engine.edit(case.document, case.first, case.last, case.instruction, program=program,
                                 speculate=speculate)
            assert result.ops == program and result.complete
            runs[speculate] = (result.stats, kept[-1])
        (plain, plain_cache), (fast, fast_cache) = runs[False], runs[True]
        assert fast_cache == plain_cache, case.instruction
        assert fast.accepted_tokens > 0 and fast.forwards < plain.forwards, (case.instruction, fast, plain)
        for what in ("drafted", "accepted"):
            assert getattr(fast, f"{what}_tokens") == sum(getattr(fast, f"{what}_{kind}_tokens") for kind in KINDS)
        assert plain.drafted_tokens == 0


@pytest.mark.slow
@pytest.mark.skipif(corpora.data_dir() is None, reason="no corpus folder (shared/data)")
def test_smollm2_writes_the_same_program_with_speculation_on_corpus_requests(one_thread):  # noqa: F811
    loaded = load_model("smollm2", "cpu", "fp32")
    max_tokens = 32
    cases = corpus_cases(candidates=40, per_corpus=8)
    assert len(cases) >= 40
    engine = Engine(LocalModel(loaded))
    pairs = assert_same_greedy(engine_runner(always_draft(Engine(LocalModel(loaded))), max_tokens, speculate=True),
                               engine_runner(engine, max_tokens, speculate=False), cases, max_tokens)
    assert sum(run.forwards for run, _ in pairs) < sum(plain.forwards for _, plain in pairs)


# ---------------------------------------------------------------------------
# Sampling: the acceptance rule against the exact distribution


def exact_distribution(logits: torch.Tensor, allowed: np.ndarray, temperature: float, top_p: float) -> np.ndarray:
    """The masked, tempered, top-p distribution, written out independently of ``sample``."""
    scores = np.where(allowed, logits.numpy() / temperature, -np.inf)
    p = np.exp(scores - scores.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
    kept, mass = np.zeros_like(p), 0.0
    for i in order:
        if mass >= top_p:
            break
        kept[i], mass = p[i], mass + p[i]
    return kept / kept.sum()


@pytest.mark.parametrize("draft", [0, 2, 4, 5])  # likely, unlikely, masked out, cut by top-p
def test_sampling_with_a_draft_keeps_the_exact_distribution(draft):
    logits = torch.tensor([2.0, 1.0, 0.5, -0.5, 1.5, -3.0])
    allowed = np.array([True, True, True, True, False, True])
    temperature, top_p, n = 0.8, 0.95, 20000
    expected = exact_distribution(logits, allowed, temperature, top_p)
    generator = np.random.default_rng(7)
    counts = collections.Counter(sample(logits, allowed, temperature, top_p, generator, draft) for _ in range(n))
    observed = np.array([counts[i] / n for i in range(len(logits))])
    assert observed[~allowed].sum() == 0 and observed[expected == 0].sum() == 0
    assert np.abs(observed - expected).max() < 0.015, (observed, expected)
    # and without a draft, the same distribution
    counts = collections.Counter(sample(logits, allowed, temperature, top_p, generator) for _ in range(n))
    assert np.abs(np.array([counts[i] / n for i in range(len(logits))]) - expected).max() < 0.015


def test_greedy_ignores_the_draft():
    logits = torch.tensor([0.1, 3.0, 2.0])
    assert sample(logits, None, 0.0, 1.0, None, 2) == 1


# ---------------------------------------------------------------------------
# The drafter and the budget


def test_the_drafter_guesses_the_structure_and_the_rewritten_line(tiny):
    tokenizer = tiny.tokenizer
    doc = Document("".join(f"v{i} = f({i}) < n\n" for i in range(1, 21)))
    drafter = Drafter(tokenizer, doc, 3, 15, eos=-1)
    text = lambda draft: tokenizer.decode([t for t in draft.tokens if t != -1])  # noqa: E731

    start = drafter.propose([], 3, None, "", [])
    assert text(start) == '<copy lines="3-15"/>\n' and start.tokens[-1] == -1 and set(start.kinds) == {TAG}
    after_copy = drafter.propose([Copy(3, 7)], 8, None, "", [])
    assert text(after_copy) == '<gen>v8 = f(8) < n\n</gen>\n<copy lines="9-15"/>\n'
    assert GEN in after_copy.kinds and after_copy.tokens[-1] == -1
    written = "<gen>v8 = f(8) <="
    mid_gen = drafter.propose([Copy(3, 7)], 8, None, written, tokenizer.encode(written))
    assert text(mid_gen).endswith('n\n</gen>\n<copy lines="9-15"/>\n')
    after_gen = drafter.propose([Copy(3, 7), Gen("v8 = f(8) <= n\n")], 8, None, "", [])
    assert text(after_gen) == '<copy lines="9-15"/>\n'  # the gen replaced line 8
    after_insert = drafter.propose([Copy(3, 7), Gen("# a comment about nothing here\n")], 8, None, "", [])
    assert text(after_insert) == '<copy lines="8-15"/>\n'  # unlike line 8: an insertion
    trimmed = Document("a = 1\nfirst, *rest = arr  # just like car and cdr (here anyway)\nb = 2\n")
    commented = Drafter(tokenizer, trimmed, 1, 3, eos=-1)
    after_trim = commented.propose([Copy(1, 1), Gen("first, *rest = arr\n")], 2, None, "", [])
    assert text(after_trim) == '<copy lines="3-3"/>\n'  # line 2 without its comment replaced line 2
    # a line rewritten longer than the document's, not yet back in step with it: no guess (no early </gen>)
    written = "<gen>v8 = f(8) < n and g(8"
    assert drafter.propose([Copy(3, 7)], 8, None, written, tokenizer.encode(written)).tokens == []
    written = "<gen>v8 = f(8) < n and g(8) < n\n"
    assert text(drafter.propose([Copy(3, 7)], 8, None, written, tokenizer.encode(written))).startswith("</gen>")
    # a new line that repeats text found elsewhere: prompt lookup, in the document, then in earlier gens, on to
    # the end of the line after it; drafts of its own kind (they miss more often than the line rewritten)
    written = "<gen>total = f(12"
    looked_up = drafter.propose([Copy(3, 7)], 8, None, written, tokenizer.encode(written))
    assert text(looked_up).startswith(") < n\nv13 = f(13) < n\n</gen>") and LOOKUP in looked_up.kinds
    assert GEN not in looked_up.kinds
    earlier = Gen("helper_value = compute(x)\nprint(x)\n")
    written = "<gen>y = helper_val"
    assert text(drafter.propose([Copy(3, 7), earlier, Copy(9, 9)], 10, None, written,
                                tokenizer.encode(written))).startswith("ue = compute(x)\nprint(x)\n</gen>")
    # a new line begun after a line of new text: the lookup reaches across the line break, so the indentation
    # alone does not pick the first indented line of the document
    blocks = Document("def half(x):\n    z = x / 2\n    return z\ndef twice(x):\n    y = x * 2\n    return y\nc = 3\nd = 4\n")
    across = Drafter(tokenizer, blocks, 1, 8, eos=-1)
    written = "<gen>def twice(x):\n    "
    continued = across.propose([Copy(1, 7)], 8, None, written, tokenizer.encode(written))
    assert text(continued).startswith("y = x * 2\n    return y\n</gen>") and LOOKUP in continued.kinds
    # a line rewritten in the middle and back in step with the document: the line's own rest, not a lookup
    written = "<gen>v8 = g(8) < n"
    resumed = drafter.propose([Copy(3, 7)], 8, None, written, tokenizer.encode(written))
    assert text(resumed).startswith("\n</gen>") and LOOKUP not in resumed.kinds
    # a draft cut inside the closing tag: the rest of the tag and what follows it, unless the document line
    # there starts the same way (a line of HTML)
    for written in ("<gen>v8 = f(8) <= n\n</", "<gen>v8 = f(8) <= n\n</gen"):
        closed = drafter.propose([Copy(3, 7)], 8, None, written, tokenizer.encode(written))
        assert text(closed).endswith('>\n<copy lines="9-15"/>\n') and written + text(closed) == (
            '<gen>v8 = f(8) <= n\n</gen>\n<copy lines="9-15"/>\n')
    html = Drafter(tokenizer, Document("<div>\n<p>a</p>\n</div>\n"), 1, 3, eos=-1)
    written = "<gen><p>b</p>\n</"
    assert text(html.propose([Copy(1, 1)], 2, None, written, tokenizer.encode(written))).startswith("div>\n")
    written = "<gen>v8 = f(8) <= n\n<"  # a line that starts a tag: not taken for the closing one
    assert not text(drafter.propose([Copy(3, 7)], 8, None, written, tokenizer.encode(written))).startswith("/gen>")
    # a model that wrote another op than the plan's: the draft follows the op begun
    written = '<copy lines="'
    assert text(drafter.propose([Copy(3, 7)], 8, None, written, tokenizer.encode(written))).startswith('8-15"/>')
    # a model that split a copy where nothing changed is expected to do it again
    assert text(drafter.propose([Copy(3, 4), Copy(5, 7)], 8, None, "", [])) == '<copy lines="8-15"/>\n'
    # a copy's end line, as the grammar reports it mid-number: the digits written so far are the op's too
    constraint = ProgramConstraint(ll_tokenizer(tokenizer), 3, 15)
    for token in tokenizer.encode('<copy lines="3-1', add_special_tokens=False):
        constraint.advance(token)
    assert constraint.copy_start == 3 and constraint.op_text == '<copy lines="3-1'
    mid_end = drafter.propose([], 3, 3, constraint.op_text, constraint.op_tokens)
    assert text(mid_end).startswith('5"/>')  # to the end, 15
    longer = Drafter(tokenizer, doc, 3, 20, eos=-1)
    assert text(longer.propose([], 3, 3, constraint.op_text, constraint.op_tokens)).startswith('0"/>')  # 20 is not 1...


def test_the_budget_cuts_unlikely_and_costly_drafts():
    budget = DraftBudget(prior_accept=0.9, token_cost=0.05, head_ratio=0.3)
    assert budget.keep([TAG] * 5, [1] * 5) == 5
    assert budget.keep([TAG, TAG], [1, 400]) == 1  # a drafted copy's lines cost more than the odds pay
    for _ in range(200):
        budget.record(GEN, False, first=True)
    assert budget.keep([GEN, GEN], [1, 1]) == 0
    budget.step_s, budget.draft_s = 0.01, 0.02  # laying out a draft costs more than a good guess saves
    for _ in range(200):
        budget.record(TAG, False, first=True)
    assert sum(budget.worth_drafting() for _ in range(64)) == 64 // DraftBudget.PROBE_EVERY
    probes = 0
    for _ in range(64):  # a probe round sends one choice even of a kind priced out, so its rate is measured again
        probing = budget.worth_drafting()
        probes += budget.keep([GEN, GEN], [1, 1]) == 1
        assert budget.keep([GEN, GEN], [1, 1]) == (1 if probing else 0)
    assert probes == 64 // DraftBudget.PROBE_EVERY
    fresh = DraftBudget(prior_accept=0.9, token_cost=0.05, head_ratio=0.3)
    for _ in range(12):  # one edit of new text: its drafts fail, and the rest of that edit drafts no <gen>
        fresh.record(GEN, False, first=True)
    assert fresh.keep([GEN, GEN], [1, 1]) == 0
    fresh.new_request()  # the next starts from the usual rate, which a few failures move only a little
    assert fresh.keep([GEN, GEN], [1, 1]) == 2
    budget.new_request()  # long runs of failures do move it; what forwards cost is kept
    assert budget.rate(GEN, first=True) < 0.1 and budget.step_s == 0.01
    measured = DraftBudget()
    measured.observe_forward(1, 0.1)  # a decode step: 100 ms; 20 more tokens: 100 ms more
    measured.observe_forward(21, 0.2)
    assert measured.token_cost == pytest.approx(0.05)


def test_the_budget_prices_a_draft_by_the_measured_time_of_forwards_of_that_size():
    """On a CPU a forward of 2 tokens can cost 1.6 decode steps and one of 9 barely more: one drafted
    token alone does not pay there, several do, and on a forward that is large anyway one does."""
    budget = DraftBudget(prior_accept=0.5, prior_weight=1e6, token_cost=0.01, head_ratio=0.0, run_prior=0.5)
    assert budget.keep([GEN], [1]) == 1  # the linear guess before any forward is timed: nearly free
    for tokens, seconds in ((1, 0.100), (2, 0.160), (9, 0.175)):
        budget.observe_forward(tokens, seconds)
    assert budget.cost(2) == pytest.approx(1.6) and budget.cost(9) == pytest.approx(1.75)
    assert budget.keep([GEN], [1]) == 0  # saves 0.5 forwards on average, costs 0.6
    assert budget.keep([GEN] * 8, [1] * 8) == 5  # five save 0.97 forwards; 6 tokens cost 0.69 more (on the line
    # from 2 tokens to 9), eight would save 1.0 for 0.75
    assert budget.keep([GEN], [1], pending=10) == 1  # 10 or 11 tokens: the same forward
    budget.observe_forward(2, 3.0)  # a forward slowed by another process
    assert budget.cost(2) < 2.3


def test_the_budget_prices_a_size_not_timed_from_the_sizes_around_it():
    """A request's first forwards are a few tokens and a splice of hundreds: a size between them costs the
    smaller one and the measured cost of its extra tokens, not the splice's time (which kept every longer
    draft from being sent, so no longer forward was ever timed)."""
    budget = DraftBudget(prior_accept=0.9, prior_weight=1e6, token_cost=0.05, head_ratio=0.0, run_prior=0.9)
    for tokens, seconds in ((1, 0.100), (3, 0.115), (256, 0.600)):
        budget.observe_forward(tokens, seconds)
    assert budget.cost(4) == pytest.approx(1.15 + (6.0 - 1.15) / 253) and budget.cost(16) < 1.5
    assert budget.keep([GEN] * 12, [1] * 12) == 12



def test_the_budget_prices_a_step_it_never_timed_alone_from_the_sizes_it_did():
    """Where every step carries a draft no one-token forward is timed; llama.cpp's tokens cost a fifth of a
    step each at a long document (rows of attention), and drafts priced at the first guess (0.05) ran to 19
    choices that one rejection wasted.  The step is read off the line through the sizes timed."""
    budget = DraftBudget(prior_accept=0.5, prior_weight=1e6, token_cost=0.05, head_ratio=0.0, run_prior=0.5)
    assert budget.cost(16) == pytest.approx(1.75) and budget.keep([GEN] * 8, [1] * 8) == 4  # the first guess
    for tokens, seconds in ((6, 0.050), (12, 0.080)):  # 25 ms a step, 5 ms a token
        budget.observe_forward(tokens, seconds)
    assert budget.step_s == pytest.approx(0.025) and budget.token_cost == pytest.approx(0.2)
    assert budget.cost(16) == pytest.approx(3.2 + 0.2 * 4) and budget.keep([GEN] * 8, [1] * 8) == 2
    flat = DraftBudget()
    for tokens, seconds in ((8, 0.200), (16, 0.210)):  # nearly flat: the step is at most the smallest forward
        flat.observe_forward(tokens, seconds)
    assert flat.step_s == pytest.approx(0.2 - 0.01 / 8 * 7)
    steep = DraftBudget()
    for tokens, seconds in ((4, 0.040), (8, 0.160)):  # steeper than linear: at least the smallest's per token
        steep.observe_forward(tokens, seconds)
    assert steep.step_s == pytest.approx(0.010)
    one_size = DraftBudget()
    one_size.observe_forward(54, 0.3)  # one size alone says nothing of a token's cost
    assert one_size.step_s is None


# a <gen> that repeats line 2 with a comment added: its draft runs long
LONG_GEN = Case("def f(alpha, beta):\n    total = compute(alpha, beta, alpha * beta, beta - alpha)\n    return total\n",
                1, 3, "note that it was checked")
LONG_GEN_PROGRAM = [Copy(1, 1), Gen("    total = compute(alpha, beta, alpha * beta, beta - alpha)  # checked\n"),
                    Copy(3, 3)]


def test_a_draft_in_step_is_priced_by_how_long_drafts_stay_in_step():
    """Half the lookups start in step with the model, and those that do run on: with one pooled rate a long draft
    looked no better than a short one and was cut where it pays (a CPU forward of 2-9 tokens costs 1.6-1.75)."""
    budget = DraftBudget(prior_weight=1.0, token_cost=0.01, head_ratio=0.0)
    for tokens, seconds in ((1, 0.100), (2, 0.160), (9, 0.175)):
        budget.observe_forward(tokens, seconds)
    for _ in range(40):
        budget.record(LOOKUP, False, first=True)
        budget.record(LOOKUP, True, first=True)
        for _ in range(6):
            budget.record(LOOKUP, True)
        budget.record(LOOKUP, False)
    assert budget.rate(LOOKUP, first=True) == pytest.approx(0.5, abs=0.1) and budget.rate(LOOKUP) > 0.7
    assert budget.keep([LOOKUP], [1]) == 0  # one choice: saves 0.5 forwards, costs 0.6
    assert budget.keep([LOOKUP] * 8, [1] * 8) == 8  # eight: save about 2, cost 0.75


def test_the_first_choice_the_budget_cuts_is_measured_by_the_next_step(tiny):
    """A kind priced out is measured for free: the loop's next choice is the one the cut draft would have made."""
    engine = always_draft(Engine(LocalModel(tiny)))
    engine.draft_budget.keep = lambda *args, **kwargs: 0
    seen = []
    record = engine.draft_budget.record
    engine.draft_budget.record = lambda kind, accepted, first=False: (seen.append((kind, accepted, first)),
                                                                       record(kind, accepted, first))
    case = LONG_GEN
    result = engine.edit(case.document, case.first, case.last, case.instruction, program=LONG_GEN_PROGRAM)
    assert result.ops == LONG_GEN_PROGRAM and result.stats.drafted_tokens == 0  # nothing was sent
    assert seen and all(first for _, _, first in seen)
    assert any(accepted for kind, accepted, _ in seen if kind == GEN)  # the <gen> repeats line 2: in step


def test_a_cancel_is_seen_between_the_drafted_positions_of_one_forward(tiny):
    """Checking a long draft takes a mask per position: a cancel must not wait for the whole draft."""
    import threading

    from cad_lsp.engine import Cancelled

    case, program = LONG_GEN, LONG_GEN_PROGRAM
    cancel = threading.Event()

    def watched(stop: bool) -> tuple[Engine, list[int], list[bool]]:
        """An engine that notes each drafted forward's positions and the choices checked in the latest; with
        ``stop``, cancels two choices into the second drafted forward."""
        engine, forwards, checked = always_draft(Engine(LocalModel(tiny))), [], []
        scored, record = engine.backend.extend_scored, engine.draft_budget.record

        def scoring(state, ids, positions):
            forwards.append(len(positions))
            checked.clear()
            return scored(state, ids, positions)

        def counting(kind, accepted, first=False):
            checked.append(accepted)
            record(kind, accepted, first)
            if stop and len(forwards) == 2 and len(checked) == 2:
                cancel.set()

        engine.backend.extend_scored, engine.draft_budget.record = scoring, counting
        return engine, forwards, checked

    plain, forwards, _ = watched(stop=False)
    plain.edit(case.document, case.first, case.last, case.instruction, program=program)
    assert len(forwards) >= 2 and forwards[1] >= 8  # the draft the cancel lands in is long enough to tell
    engine, forwards, checked = watched(stop=True)
    with pytest.raises(Cancelled):
        engine.edit(case.document, case.first, case.last, case.instruction, program=program, cancel=cancel)
    assert len(forwards) == 2 and checked == [True, True]  # stopped two choices into it
