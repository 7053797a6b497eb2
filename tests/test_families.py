"""The held-out edit families: each case's gold answer is the edit its instruction asks for,
checked by means other than the code that built it."""

import ast
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import families  # noqa: E402
from cad_lsp.program import oracle_for_selection, resolve, split_lines  # noqa: E402


def all_cases(family):
    return families.cases(family, families.TEST_MODULES, None)


@pytest.mark.parametrize("family", families.FAMILIES)
def test_cases_are_many_deterministic_and_valid_python(family):
    cases = all_cases(family)
    assert len(cases) >= 20
    assert cases == families.cases(family, families.TEST_MODULES, None)
    assert len({c["id"] for c in cases}) == len(cases)
    for case in cases:
        ast.parse(case["document"])
        ast.parse(case["target"])
        assert case["document"] != case["target"]
        n = len(split_lines(case["document"]))
        ops = oracle_for_selection(case["document"], 1, n, case["target"])
        assert resolve(ops, case["document"], 1, n) == case["target"]


def test_examples_come_from_other_modules_than_the_tests():
    assert not set(families.EXAMPLE_MODULES) & set(families.TEST_MODULES)
    for family in families.FAMILIES:
        test_ids = {c["id"] for c in all_cases(family)}
        example_ids = {c["id"] for c in families.cases(family, families.EXAMPLE_MODULES, None)}
        assert example_ids and not test_ids & example_ids


def test_delete_prints_removes_exactly_the_debug_lines():
    for case in all_cases("delete-prints"):
        kept = [line for line in split_lines(case["document"]) if not line.strip().startswith('print("DEBUG", ')]
        assert "".join(kept) == case["target"]
        assert len(split_lines(case["document"])) - len(kept) in (1, 2)


def test_delete_comments_removes_exactly_the_comment_lines():
    for case in all_cases("delete-comments"):
        kept = [line for line in split_lines(case["document"]) if not line.lstrip().startswith("#")]
        assert "".join(kept) == case["target"]


def names(source):
    return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)]


def test_rename_changes_every_use_of_the_name_and_nothing_else():
    for case in all_cases("rename"):
        old, new = re.fullmatch(r"Rename `(\w+)` to `(\w+)`", case["instruction"]).groups()
        assert [new if t == old else t for t in names(case["document"])] == names(case["target"])
        assert old not in names(case["target"])


def test_add_docstring_adds_the_docstring_the_instruction_gives():
    for case in all_cases("add-docstring"):
        text = re.fullmatch(r'Add the docstring "(.*)"', case["instruction"]).group(1)
        assert ast.get_docstring(ast.parse(case["target"]).body[0]) == text
        assert ast.get_docstring(ast.parse(case["document"]).body[0]) is None
        removed = [line for line in split_lines(case["target"]) if line.strip() != f'"""{text}"""']
        assert "".join(removed) == case["document"]


def test_training_cases_share_no_code_with_the_held_out_ones():
    from cad_lsp.train import families as lib
    from cad_lsp.train.sft import family_requests

    assert not set(lib.TRAIN_MODULES) & (set(lib.TEST_MODULES) | set(lib.EXAMPLE_MODULES))
    training = family_requests()
    assert len(training) >= 200 and {source for _, source in training} == {f"family:{f}" for f in lib.FAMILIES}
    trained = {request.document for request, _ in training} | {request.target for request, _ in training}
    for family in lib.FAMILIES:
        for case in lib.cases(family, lib.TEST_MODULES, None):
            assert case["document"] not in trained and case["target"] not in trained
