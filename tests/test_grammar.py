import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cad_lsp.grammar import GrammarError, ProgramConstraint, ll_tokenizer, number_range_regex
from cad_lsp.models import QWEN_TOKENIZER, load_tokenizer
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
