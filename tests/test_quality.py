"""bench quality --quick: the whole pipeline on random:tiny, a row per corpus, and its table."""

import json

import pytest

from bench import quality
from cad_lsp.program import Copy, Gen
from cad_lsp.train import corpora


def test_boundary_errors_against_the_oracle():
    gold = [Copy(1, 4), Gen("x\n"), Copy(6, 9)]
    emitted = [Copy(1, 5), Gen("x\n"), Copy(7, 9), Copy(20, 21)]
    assert quality.boundary_errors(emitted, gold) == [(0, 1), (1, 0), None]


def test_answer_parsers():
    assert quality.parse_rewrite("Sure:\n```python\ndef f():\n    pass\n```\n") == "def f():\n    pass\n"
    assert quality.parse_rewrite("no fence") is None
    text = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
    assert quality.parse_search_replace(text) == [("a\n", "b\n")]


def test_js_tests_throw_on_a_failed_assert():
    class Row:
        lang, extra = "javascript", {"test": "console.assert(f() === 2)\n"}

    assert quality.run_tests(Row, "const f = () => 2\n") is True
    assert quality.run_tests(Row, "const f = () => 3\n") is False


@pytest.mark.slow
@pytest.mark.skipif(corpora.data_dir() is None, reason="no corpus folder")
def test_quick_run_writes_its_table(tmp_path):
    assert quality.main(["--quick", "--limit", "1", "--threads", "1", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "quality.json").read_text())
    assert set(data["corpora"]) == set(quality.CORPORA)
    summary = data["corpora"]["humanevalfix-py"]["summary"]
    assert {"copy/gen zero-shot", "copy/gen few-shot", "whole rewrite", "search/replace"} <= set(summary)
    table = (tmp_path / "quality.md").read_text()
    assert "| humanevalfix-py | copy/gen zero-shot |" in table and quality.markdown(data) in table


def test_dedupe_drops_a_copied_line_that_the_next_gen_rewrites():
    from cad_lsp.train.split import Request

    doc = "def f(x):\n    y = x + 1\n    return y - 1\n"
    request = Request(doc, 1, 3, "fix", "", "")
    ops = [Copy(1, 3), Gen("    return y\n")]
    assert quality.dedupe(ops, request) == [Copy(1, 2), Gen("    return y\n")]
    assert quality.dedupe([Copy(1, 2), Gen("    return y\n")], request) == [Copy(1, 2), Gen("    return y\n")]
