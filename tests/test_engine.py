"""The engine on random weights: the mechanism is exact whatever the weights."""

import random
import threading

import pytest
import torch

from cad_lsp.backends.pytorch import LocalModel
from cad_lsp.backends.pytorch.attention import GROUPED_MAX_QUERIES
from cad_lsp.backends.pytorch.loading import ModelLoadError, load_model
from cad_lsp.engine import Cancelled, Engine, EngineError, copy_tokens, sync_prefix
from cad_lsp.engine.prompt import document_prefix_ids
from cad_lsp.program import (
    Copy,
    Document,
    Gen,
    format_op,
    format_program,
    oracle_for_selection,
    oracle_program,
    parse_program,
    split_lines,
)
from cad_lsp.train import corpora

from .reference import plain_lines

BLANK_RUNS = "import os\n\n\ndef f(x):\n    return x + 1\n\n\n\nclass A:\n    pass\n"


@pytest.fixture(scope="module")
def loaded():
    return load_model("random:tiny", "cpu", "fp32")


@pytest.fixture(scope="module")
def engine(loaded):
    return Engine(LocalModel(loaded))


def cache_tensors(state):
    return [t for layer in state.cache.layers for t in (layer.keys, layer.values)]


def record_attention(monkeypatch) -> list[dict]:
    """Every SDPA call from here on: query and key heads, query length, and whether it was masked GQA."""
    calls = []
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def recording(query, key, value, *args, **kwargs):
        calls.append({"query_heads": query.shape[1], "key_heads": key.shape[1], "queries": query.shape[2],
                      "masked": kwargs.get("attn_mask") is not None, "gqa": kwargs.get("enable_gqa", False)})
        return sdpa(query, key, value, *args, **kwargs)

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", recording)
    return calls


# A splice in the decode loop carries the copy tag's last token and at least one copied token.
@pytest.mark.parametrize("n_copied", [2, 7, 33])
def test_splice_equals_one_shot_and_single_steps(loaded, monkeypatch, n_copied):
    model = LocalModel(loaded)
    tok = loaded.tokenizer
    prefix = tok.encode("<|im_start|>user\nFix it<|im_end|>\n<copy lines=\"1-3\"/>\n")
    copied = tok.encode(BLANK_RUNS * 3)[:n_copied]

    spliced = model.new_state()
    model.extend(spliced, prefix)
    attention = record_attention(monkeypatch)
    splice_logits = model.extend(spliced, copied)
    monkeypatch.undo()

    one_shot = model.new_state()
    one_shot_logits = model.extend(one_shot, prefix + copied)

    stepped = model.new_state()
    model.extend(stepped, prefix)
    for token in copied:
        step_logits = model.extend(stepped, [token])

    # random:tiny has 4 query heads sharing 2 key/value heads: the splice ran masked attention on the
    # shared heads without expanding the cached keys and values -- a short one with the query heads of a
    # group as rows of one head (cad_lsp.backends.pytorch.attention), a long one through enable_gqa
    config = loaded.model.config
    groups = config.num_attention_heads // config.num_key_value_heads
    assert len(attention) == config.num_hidden_layers
    for call in attention:
        if n_copied <= GROUPED_MAX_QUERIES:
            expected = {"query_heads": config.num_key_value_heads, "queries": groups * n_copied, "gqa": False}
        else:
            expected = {"query_heads": config.num_attention_heads, "queries": n_copied, "gqa": True}
        assert call == {**expected, "key_heads": config.num_key_value_heads, "masked": True}
    assert config.num_key_value_heads < config.num_attention_heads
    assert torch.allclose(splice_logits, one_shot_logits, atol=1e-5)
    assert torch.allclose(splice_logits, step_logits, atol=1e-5)
    for a, b, c in zip(cache_tensors(spliced), cache_tensors(one_shot), cache_tensors(stepped)):
        assert a.shape == b.shape == c.shape
        assert torch.allclose(a, b, atol=1e-5) and torch.allclose(a, c, atol=1e-5)


def test_copied_lines_keep_their_text_across_token_boundaries(loaded):
    """A copy that ends or starts inside a "\\n\\n" token still yields exactly its text."""
    doc = Document(BLANK_RUNS)
    tok = loaded.tokenizer
    whole = tok.encode(BLANK_RUNS)
    assert any("\n\n" in tok.decode([t]) for t in whole)  # the hazard is present
    for start in range(1, doc.line_count + 1):
        for end in range(start, doc.line_count + 1):
            ids = copy_tokens(tok, doc, Copy(start, end))
            assert tok.decode(ids) == "".join(doc.lines[start - 1 : end])


def teacher_pairs():
    pairs = [
        (BLANK_RUNS, BLANK_RUNS.replace("x + 1", "x - 1")),  # copies end inside "\n\n\n" runs
        (BLANK_RUNS, BLANK_RUNS.replace("\n\n\nclass", "\nclass")),
        ("a = 1\r\nb = '😀'\r\nc = 3", "a = 1\r\nb = '😀😀'\r\nc = 3\r\n"),
        ("x = '</gen>'\ny = 2\n", "x = '</gen> and <copy lines=\"1-2\"/>'\ny = 2\n"),
    ]
    if corpora.data_dir() is not None:
        for name in corpora.CORPORA:
            pairs += [(p.before, p.after) for p in corpora.load(name)[:3]]
    return pairs


@pytest.mark.parametrize("before, after", teacher_pairs())
def test_teacher_forced_oracle_goes_through_grammar_splices_and_cache(engine, monkeypatch, before, after):
    """The gold program, driven through the loop: every tag token accepted by the grammar, each copy's
    lines spliced in one forward, and the cache holding exactly the prompt and the program's stream."""
    ops = oracle_program(before, after)
    appended = []
    extend = engine.backend.extend
    monkeypatch.setattr(engine.backend, "extend", lambda state, ids: appended.append(list(ids)) or extend(state, ids))
    # The plain loop's forwards (speculation, which may carry a draft on any of them, is compared with this
    # loop in test_speculation: the same program and the same cache).
    result = engine.edit(before, 1, None, "", program=ops, key="teacher", speculate=False)
    assert result.complete and result.ops == ops and result.text == after

    # The stream the cache received, from plain slicing and the tokenizer: each op's text, then a copy's lines.
    tok, lines = engine.tokenizer, plain_lines(before)
    stream = []
    for op in ops:
        stream += tok.encode(format_op(op) + "\n", add_special_tokens=False)
        if isinstance(op, Copy):
            stream += tok.encode("".join(lines[op.start - 1 : op.end]), add_special_tokens=False)
    program_forwards = appended[-result.stats.forwards:] if result.stats.forwards else []
    assert sum(program_forwards, []) == stream  # the end-of-sequence token needs no forward
    copies = [op for op in ops if isinstance(op, Copy)]
    stats = result.stats
    assert stats.splice_forwards == len(copies)  # one forward per copy, whatever its length
    assert stats.spliced_tokens == sum(len(tok.encode("".join(lines[c.start - 1 : c.end]), add_special_tokens=False))
                                       for c in copies)
    assert stats.forwards == stats.decode_steps + stats.splice_forwards
    assert stats.sampled_tokens + stats.forced_tokens == len(stream) - stats.spliced_tokens + 1  # + end of sequence


def test_teacher_forced_on_a_selection(engine):
    new_text = "def f(x: int) -> int:\n    return x + 1\n"
    ops = oracle_for_selection(BLANK_RUNS, 4, 5, new_text)
    result = engine.edit(BLANK_RUNS, 4, 5, "", program=ops)
    assert result.text == new_text
    assert Copy(5, 5) in result.ops


@pytest.mark.parametrize("runs", [60, pytest.param(200, marks=pytest.mark.slow)])
def test_sampled_programs_are_always_valid(engine, runs):
    """Sampled runs: every program parses and respects the selection and the order."""
    rng = random.Random(1234)
    documents = [BLANK_RUNS, "a\r\nb\r\n\r\nc = '😀'\r\n", "".join(f"line {i}\n" for i in range(1, 41)), "x = 1"]
    instructions = ["Fix the bug", "Add type hints", "rename x to y", "", "😀 make it faster", "delete everything"]
    invalid, copies, complete = 0, 0, 0
    for run in range(runs):
        document = rng.choice(documents)
        n = len(split_lines(document))
        first = rng.randint(1, n)
        last = rng.randint(first, n)
        result = engine.edit(document, first, last, rng.choice(instructions) or "edit", key=f"doc{run % 3}",
                             temperature=rng.choice([0.3, 0.7, 1.0, 1.5]), top_p=rng.choice([0.9, 1.0]),
                             seed=run, max_tokens=24)
        ops = result.ops
        previous_end = first - 1
        ok = parse_program(format_program(ops)) == ops
        for a, b in zip(ops, ops[1:]):
            ok &= not (isinstance(a, Gen) and isinstance(b, Gen))
        for op in ops:
            if isinstance(op, Copy):
                ok &= previous_end < op.start <= op.end <= last
                previous_end = op.end
                copies += 1
        invalid += not ok
        complete += result.complete
    assert invalid == 0
    assert copies > 0 and complete > 0  # the runs exercised copies and finished programs


def test_warm_cache_is_reused_and_extended(loaded):
    engine = Engine(LocalModel(loaded))
    document = "".join(f"value_{i} = {i} * 2\n" for i in range(60))
    prefix = document_prefix_ids(engine.tokenizer, document)
    assert engine.warm("doc", document) == len(prefix)
    forwards = engine.backend.forwards
    result = engine.edit(document, 10, 12, "Add comments", key="doc", max_tokens=8)
    assert result.stats.cached_tokens == len(prefix)  # no re-prefill of the document
    assert result.stats.prefill_tokens == result.stats.prompt_tokens - len(prefix)
    assert engine.backend.forwards - forwards == 1 + result.stats.forwards  # request prefill + the loop

    changed = document.replace("value_50 = 50 * 2", "value_50 = 50 * 3")
    new_prefix = document_prefix_ids(engine.tokenizer, changed)
    common = next(i for i, (a, b) in enumerate(zip(prefix, new_prefix)) if a != b)
    computed = engine.warm("doc", changed)
    assert computed == len(new_prefix) - common  # only the tail after the change
    assert computed < len(new_prefix) / 4


def test_chunked_prefill_equals_one_forward(loaded, monkeypatch):
    """Long prefills go PREFILL_CHUNK tokens at a time, with the same cache and logits."""
    from cad_lsp.engine import backend

    model = LocalModel(loaded)
    ids = loaded.tokenizer.encode(BLANK_RUNS * 4)
    whole = model.new_state()
    whole_logits = model.extend(whole, ids)

    monkeypatch.setattr(backend, "PREFILL_CHUNK", 7)
    chunked = model.new_state()
    model.extend(chunked, ids[:5])
    forwards = model.forwards
    chunked_logits, computed = sync_prefix(model, chunked, ids)
    assert computed == len(ids) - 5 and chunked.ids == ids
    assert model.forwards - forwards == -(-(len(ids) - 5) // 7)
    assert torch.allclose(chunked_logits, whole_logits, atol=1e-5)
    for a, b in zip(cache_tensors(chunked), cache_tensors(whole)):
        assert a.shape == b.shape and torch.allclose(a, b, atol=1e-5)
    spliced = model.new_state()  # a long splice is chunked the same way
    assert torch.allclose(model.extend(spliced, ids), whole_logits, atol=1e-5)


def test_cancel_during_a_long_prefill_keeps_what_was_computed(loaded, monkeypatch):
    from cad_lsp.engine import backend

    monkeypatch.setattr(backend, "PREFILL_CHUNK", 16)
    engine = Engine(LocalModel(loaded))
    document = "".join(f"value_{i} = {i} * 2\n" for i in range(60))
    checks = []

    def cancel() -> bool:  # let three chunks through, then cancel
        checks.append(1)
        return len(checks) > 3

    forwards, reported = engine.backend.forwards, []
    with pytest.raises(Cancelled):
        engine.edit(document, 1, 2, "Add comments", key="doc", cancel=cancel,
                    progress=lambda stats: reported.append(stats.prefill_tokens))
    assert engine.backend.forwards - forwards == 3
    assert reported == [16, 32, 48]  # the prefill reports how far it got
    prefix = document_prefix_ids(engine.tokenizer, document)
    assert engine.warm("doc", document) == len(prefix) - 3 * 16  # the next request starts where it stopped


def test_requests_stay_inside_the_models_context(loaded, monkeypatch):
    """Past its trained positions a model writes nonsense without an error: refuse, or cap the program."""
    engine = Engine(LocalModel(loaded))
    document = "".join(f"value_{i} = {i} * 2\n" for i in range(60))
    prompt_tokens = engine.edit(document, 1, 1, "Add comments", max_tokens=1).stats.prompt_tokens
    selection_tokens = len(engine.tokenizer.encode(document.splitlines(keepends=True)[0]))

    monkeypatch.setattr(loaded.model.config, "max_position_embeddings", prompt_tokens // 2)
    assert engine.edit(document, 1, 1, "Add comments", max_tokens=1).window is not None  # shown through a window
    with pytest.raises(EngineError, match="context"):
        engine.edit(document, 1, 60, "Add comments")  # the selection alone does not fit
    # not shown whole: with no line to say where the user is, the window at the top is warmed, where editors open
    assert engine.warm("too long", document) > 0
    assert engine.edit(document, 1, 1, "Add comments", key="too long", max_tokens=1).stats.prefill_tokens < 40

    room = 20
    monkeypatch.setattr(loaded.model.config, "max_position_embeddings", prompt_tokens + selection_tokens + room)
    for seed in range(3):
        result = engine.edit(document, 1, 1, "Add comments", max_tokens=500, temperature=1.0, seed=seed)
        assert result.stats.sampled_tokens + result.stats.forced_tokens <= room


def test_cache_budget_evicts_least_recently_used(loaded):
    engine = Engine(LocalModel(loaded), max_documents=2)
    engine.warm("a", "a = 1\n")
    engine.warm("b", "b = 1\n")
    engine.edit("a = 1\n", 1, 1, "x", key="a", max_tokens=2)  # a is used again: b is now the least recent
    engine.warm("c", "c = 1\n")
    assert engine.cached_documents() == ["a", "c"]  # first in, first out would have dropped a
    assert engine.warm("a", "a = 1\n") == 0  # and a's cache is still there


def test_cancel_in_mid_decode_stops_before_the_next_forward(engine):
    """A cancel after three decode forwards: no fourth, and the cache is cut back to the document's prefix."""
    cancel = threading.Event()
    seen = []

    def progress(stats):
        seen.append(stats.forwards)
        if stats.forwards == 3:
            cancel.set()

    prefix = document_prefix_ids(engine.tokenizer, BLANK_RUNS)
    engine.warm("cancel", BLANK_RUNS)
    forwards_before = engine.backend.forwards
    with pytest.raises(Cancelled):  # the plain loop: with drafts, how far 3 forwards get depends on their timing
        engine.edit(BLANK_RUNS, 1, 10, "rewrite", key="cancel", cancel=cancel, progress=progress,
                    temperature=1.0, max_tokens=500, speculate=False)
    assert seen == [0, 1, 2, 3]  # a token chosen after each forward; the flag set after the third
    assert engine.backend.forwards - forwards_before == 1 + 3  # the request prefill and three decode forwards
    state = engine.cache_of("cancel")
    assert state.ids == prefix and state.cache.get_seq_length() == len(prefix)  # nothing of the request kept
    result = engine.edit(BLANK_RUNS, 1, 2, "x", key="cancel", max_tokens=4)
    assert result.stats.cached_tokens == len(prefix)


@pytest.mark.parametrize(
    "document, first, last, instruction, message",
    [
        ("", 1, 1, "x", "empty"),
        ("a\nb\n", 2, 3, "x", "outside the document"),
        ("a\nb\n", 0, 1, "x", "outside the document"),
        ("a\nb\n", 2, 1, "x", "outside the document"),
        ("a\nb\n", 1, 2, "   ", "instruction is empty"),
    ],
)
def test_bad_requests_get_clear_errors(engine, document, first, last, instruction, message):
    with pytest.raises(EngineError, match=message):
        engine.edit(document, first, last, instruction)


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelLoadError, match="does not exist"):
        load_model(str(tmp_path / "no-such-model"))
    with pytest.raises(ModelLoadError, match="unknown random shape"):
        load_model("random:huge")
    with pytest.raises(ModelLoadError, match="dtype"):
        load_model("random:tiny", "cpu", "int3")


def test_sync_prefix_keeps_the_common_part(loaded):
    model = LocalModel(loaded)
    state = model.new_state()
    _, computed = sync_prefix(model, state, [1, 2, 3, 4])
    assert computed == 4
    _, computed = sync_prefix(model, state, [1, 2, 9])
    assert computed == 1 and state.ids == [1, 2, 9]
    assert state.cache.get_seq_length() == 3


def test_sampling_respects_the_mask_and_top_p():
    import numpy as np

    from cad_lsp.engine import sample

    logits = torch.tensor([5.0, 4.0, 3.0, -1.0, 2.0, 0.0])
    allowed = np.array([False, True, True, True, False])  # index 5 lies past the mask: never allowed
    assert sample(logits, allowed) == 1
    generator = np.random.default_rng(0)
    draws = {sample(logits, allowed, 1.0, 1.0, generator) for _ in range(300)}
    assert draws == {1, 2, 3}
    draws = {sample(logits, allowed, 1.0, 0.5, generator) for _ in range(300)}
    assert draws == {1}  # token 1 alone holds over half of the allowed mass
