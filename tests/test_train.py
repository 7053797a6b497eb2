"""Supervised fine-tuning: sequences match the engine's stream, masking, the split, a quick run."""

import json

import pytest
import torch

from cad_lsp.backends.pytorch import LocalModel
from cad_lsp.engine import Engine
from cad_lsp.engine.prompt import build_prompt, program_stream
from cad_lsp.program import Copy, Gen, oracle_program, resolve
from cad_lsp.train import sft as train
from cad_lsp.train import split as split_mod
from cad_lsp.train.split import Request, oracle_for

BEFORE = "def area(w, h):\n    x = w * h\n    return x + 1\n\n\ndef double(n):\n    return n * 2\n"
AFTER = "def area(w, h):\n    x = w * h\n    return x\n\n\ndef double(n):\n    return n * 2\n"


class Recorder(LocalModel):
    """A backend that remembers every token it was asked to append, in order."""

    def __init__(self, loaded):
        super().__init__(loaded)
        self.stream: list[int] = []

    def extend(self, state, ids):
        self.stream += list(ids)
        return super().extend(state, ids)


@pytest.fixture(scope="module")
def loaded():
    from cad_lsp.backends.pytorch.loading import load_model

    return load_model("random:tiny")


def test_sequence_is_the_engine_stream_with_copies_masked(loaded):
    tok = loaded.tokenizer
    request = Request(BEFORE, 1, 7, "Drop the + 1.", AFTER, AFTER)
    ops = oracle_for(request)
    assert any(isinstance(op, Copy) for op in ops) and any(isinstance(op, Gen) for op in ops)
    eos = train.end_of_program(tok)
    seq = train.training_sequence(tok, request, ops, eos)

    backend = Recorder(loaded)
    # the plain loop: speculation appends drafts it may crop again (its cache is checked in test_speculation)
    result = Engine(backend).edit(BEFORE, 1, 7, request.instruction, program=ops, speculate=False)
    assert result.text == AFTER
    assert seq.ids[:-1] == backend.stream  # what the engine's cache holds, token for token
    assert seq.ids[-1] == eos and seq.labels[-1] == eos

    prompt = build_prompt(tok, BEFORE, 1, 7, request.instruction)
    n = len(prompt.ids)
    assert seq.ids[:n] == prompt.ids and all(label == train.IGNORE for label in seq.labels[:n])
    assert tok.decode(seq.ids[n:-1]) == program_stream(ops, BEFORE)

    # Walk the program: tag and gen tokens carry the loss, copied lines do not.
    pos = n
    for op in ops:
        tag = tok.encode(f'<copy lines="{op.start}-{op.end}"/>\n' if isinstance(op, Copy)
                         else f"<gen>{op.text}</gen>\n", add_special_tokens=False)
        assert seq.ids[pos : pos + len(tag)] == tag and seq.labels[pos : pos + len(tag)] == tag
        pos += len(tag)
        if isinstance(op, Copy):
            lines = "".join(BEFORE.splitlines(True)[op.start - 1 : op.end])
            content = tok.encode(lines, add_special_tokens=False)
            assert seq.ids[pos : pos + len(content)] == content
            assert all(label == train.IGNORE for label in seq.labels[pos : pos + len(content)])
            pos += len(content)
    assert pos == len(seq.ids) - 1


def test_an_apply_sequence_is_the_engine_stream_of_the_apply(loaded):
    """Training on apply sees exactly what Engine.apply appends to its cache: the prompt with the placed update,
    the region's program, the copied lines masked; the target is the true edit."""
    from cad_lsp.train.updates import ApplyCase
    from cad_lsp.program import apply_program

    before = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(30))
    after = before.replace("    return x + 12\n", "    x = abs(x)\n    return x + 12\n")
    update = "# ... existing code ...\ndef f12(x):\n    x = abs(x)\n    return x + 12\n# ... existing code ...\n"
    case = ApplyCase("t/markers", "stdlib", "markers", before, update, after, "Guard f12.")
    tok = loaded.tokenizer
    seq = train.apply_sequence(tok, case, "Guard f12.", train.end_of_program(tok), name="t.py")
    assert seq is not None and seq.source == "apply:stdlib:markers"
    backend = Recorder(loaded)
    engine = Engine(backend)
    plan = engine.apply(before, update, max_tokens=1).merge
    from cad_lsp.program import oracle_for_selection

    ops = oracle_for_selection(before, plan.first, plan.last, plan.text)
    backend.stream.clear()
    # fast-forwarding off: the model reads every position (with it on, a program the grammar forces to its end
    # is never read at all)
    result = engine.apply(before, update, "Guard f12.", name="t.py", program=ops, speculate=False, fast_forward=False)
    assert apply_program(result.ops, before, result.first_line, result.last_line) == after
    assert seq.ids[:-1] == backend.stream
    assert sum(label != train.IGNORE for label in seq.labels) < len(seq.ids) // 4  # the loss is on the program only
    wrong = ApplyCase("t/x", "stdlib", "markers", before, update, after.replace("f29", "g29"), None)
    assert train.apply_sequence(tok, wrong, None, train.end_of_program(tok)) is None  # the merge cannot make it


def test_split_is_pinned_disjoint_and_by_task():
    """The split is the same on every machine: its test ids are written out here, not recomputed."""
    ids = [f"humanevalfix/Python/{n}" for n in range(164)] + [f"quixbugs/q{n}" for n in range(40)]
    test = [i for i in ids if split_mod.is_test(i)]
    # HumanEval task n is a test task when n % 5 == 0; any other row when SHA-256(id) % 5 == 0
    assert test == [f"humanevalfix/Python/{n}" for n in range(0, 164, 5)] + [
        "quixbugs/q0", "quixbugs/q2", "quixbugs/q12", "quixbugs/q14", "quixbugs/q24"]
    assert [i for i in ["editeval/7", "editeval/12", "quixbugs/gcd", "commits/a1b2c3"] if split_mod.is_test(i)] == [
        "editeval/12"]
    assert split_mod.is_test("humanevalfix/JavaScript/35") and split_mod.is_test("HumanEval/35")
    assert not split_mod.is_test("humanevalfix/JavaScript/36") and not split_mod.is_test("HumanEval/36")

    class Row:
        def __init__(self, id):
            self.id = id

    rows = [Row(i) for i in reversed(ids)]
    tr, te = split_mod.split(rows)
    assert [r.id for r in te] == list(reversed(test))  # the test rows, in the input order
    assert [r.id for r in tr] == [i for i in reversed(ids) if i not in set(test)]


def test_synthetic_edits_round_trip():
    import random

    rng = random.Random(1)
    bug = train.inject_bug(BEFORE, rng)
    assert bug is not None and bug[0] != BEFORE
    assert resolve(oracle_program(bug[0], BEFORE), bug[0]) == BEFORE
    code = BEFORE.replace("x", "size")
    renamed = train.rename(code, rng)
    assert renamed is not None and renamed[1] == "size" and "size" not in renamed[0]


def test_commit_request_selects_the_change_with_context():
    from cad_lsp.train.corpora import EditPair

    before = "".join(f"line {n}\n" for n in range(1, 31))
    after = before.replace("line 15\n", "line fifteen\n")
    request = split_mod.request_for(EditPair("c1", "commits", "python", "msg", before, after, {}))
    assert (request.first, request.last) == (12, 18)
    assert resolve(oracle_for(request), before, request.first, request.last) == request.target
    cut = split_mod.window(request, 2)
    assert (cut.first, cut.last) == (3, 9) and resolve(oracle_for(cut), cut.document, 3, 9) == cut.target


def test_quick_training_run_saves_a_mergeable_adapter(tmp_path, loaded):
    from cad_lsp.backends.pytorch.loading import load_model, merge_lora

    cfg = train.TrainConfig(model="random:tiny", out=tmp_path / "adapter", sequences=4, accumulate=2, quick=True,
                            lr=1e-2, warmup=1)
    record = train.train(cfg, log=lambda *_: None)
    assert record["optimizer_steps"] == 2 and record["sequences"] == 4
    assert json.loads((tmp_path / "adapter" / "adapter_config.json").read_text())["r"] == cfg.rank
    base = load_model("random:tiny")
    merged = load_model("random:tiny", adapter=tmp_path / "adapter")
    assert merge_lora(load_model("random:tiny").model, tmp_path / "adapter") == 2 * len(train.TARGET_MODULES)
    ids = torch.tensor([[1, 2, 3, 4]])
    with torch.no_grad():
        assert not torch.equal(base.model(ids).logits, merged.model(ids).logits)
