"""The decode loop is lossless: splices and fast-forwarded tags write the same greedy program as decoding
every token one by one (``tests/greedy.py`` holds the harness and the reference)."""

import pytest
import torch

from cad_lsp.backends.pytorch import LocalModel
from cad_lsp.backends.pytorch.loading import load_model
from cad_lsp.engine import Engine
from cad_lsp.program import Copy, Gen
from cad_lsp.train import corpora

from .greedy import Case, assert_same_greedy, engine_runner, random_cases, stepwise_reference

CASES = 100  # random requests on random:tiny; fast_forward=False runs on every fourth one
MAX_TOKENS = 24


@pytest.fixture
def one_thread():
    """One torch thread: these tests are all single-token forwards, which two threads only slow down."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def memo(runner):
    runs = {}
    return lambda case: runs[case] if case in runs else runs.setdefault(case, runner(case))


@pytest.mark.parametrize("count", [40, pytest.param(CASES, marks=pytest.mark.slow)])
def test_splices_and_fast_forward_write_the_stepwise_greedy_program(one_thread, count):
    loaded = load_model("random:tiny", "cpu", "fp32")
    reference = memo(stepwise_reference(loaded, MAX_TOKENS, examples=Engine(LocalModel(loaded)).examples))
    cases = random_cases(seed=17, count=count)
    pairs = assert_same_greedy(engine_runner(Engine(LocalModel(loaded)), MAX_TOKENS), reference, cases, MAX_TOKENS)
    assert_same_greedy(engine_runner(Engine(LocalModel(loaded), fast_forward=False), MAX_TOKENS), reference, cases[::4],
                       MAX_TOKENS)

    # The cases reach what the claim is about: spliced copies with decoding after them, finished programs
    # with copies, and fewer forwards than tokens.
    spliced_then_decoded = sum(any(i < len(run.program_tokens) - 1 for i in run.copy_ends) for run, _ in pairs)
    finished_with_copies = sum(run.complete and any(isinstance(op, Copy) for op in run.ops) for run, _ in pairs)
    assert spliced_then_decoded >= count // 4 and finished_with_copies >= count // 10
    assert sum(run.forwards for run, _ in pairs) < sum(ref.forwards for _, ref in pairs) / 2


def corpus_cases(candidates: int = 30, margin: int = 3, per_corpus: int = 1) -> list[Case]:
    """Per corpus, the ``per_corpus`` requests with the fewest selected lines among its first ``candidates``
    (CI time), on a window of the document around the selection."""
    from cad_lsp.train.split import request_for, window

    cases = []
    for name in corpora.CORPORA:
        requests = [window(request_for(pair), margin) for pair in corpora.load(name, candidates)]
        for request in sorted(requests, key=lambda r: (r.last - r.first, len(r.document)))[:per_corpus]:
            cases.append(Case(request.document, request.first, request.last, request.instruction))
    return cases


@pytest.mark.slow
@pytest.mark.skipif(corpora.data_dir() is None, reason="no corpus folder (shared/data)")
def test_smollm2_writes_the_stepwise_greedy_program_on_corpus_requests(one_thread):
    loaded = load_model("smollm2", "cpu", "fp32")
    max_tokens = 48
    engine = Engine(LocalModel(loaded))  # the embedded model as shipped: its adapter and its prompt
    reference = stepwise_reference(loaded, max_tokens, examples=engine.examples)
    pairs = assert_same_greedy(engine_runner(engine, max_tokens), reference, corpus_cases(), max_tokens)
    assert any(isinstance(op, Copy) for run, _ in pairs for op in run.ops)
    assert any(isinstance(op, Gen) for run, _ in pairs for op in run.ops)
