"""Losslessness over every real edit pair we have (the paper: 482/482)."""

import pytest

from cad_lsp.program import format_program, oracle_program, oracle_program_spans, parse_program, resolve
from cad_lsp.program.edits import apply_text_edits, text_edits
from cad_lsp.program.metrics import copy_coverage
from cad_lsp.train import corpora

pytestmark = pytest.mark.skipif(corpora.data_dir() is None, reason="corpus folder not present in this checkout")


@pytest.mark.parametrize("corpus", list(corpora.CORPORA))
def test_oracle_round_trip_on_every_pair(corpus):
    pairs = corpora.load(corpus)
    assert pairs
    exact = 0
    line_cov = span_cov = 0.0
    for pair in pairs:
        ops = oracle_program(pair.before, pair.after)
        span_ops = oracle_program_spans(pair.before, pair.after)
        assert parse_program(format_program(ops)) == ops
        assert apply_text_edits(pair.before, text_edits(ops, pair.before)) == pair.after
        ok = resolve(ops, pair.before) == pair.after and resolve(span_ops, pair.before) == pair.after
        exact += ok
        line_cov += copy_coverage(ops, pair.before)
        span_cov += copy_coverage(span_ops, pair.before)
    print(f"{corpus}: {exact}/{len(pairs)} byte-exact; coverage (chars) line {line_cov / len(pairs):.1%}, "
          f"span {span_cov / len(pairs):.1%}")
    assert exact == len(pairs)
