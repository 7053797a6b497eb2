"""``cad-lsp apply --answer``: one diff per file and a summary, the same as JSON, and --write all or nothing
(a refused block, a block placed in no file, or a file changed on disk since it was read writes nothing)."""

import json
import os

import pytest

from cad_lsp import apply_answer
from cad_lsp.cli import main

APP = "import os\n\n\ndef load(path):\n    with open(path) as fh:\n        return fh.read()\n"
MAIN = "from app import load\n\n\ndef main():\n    print(load('x'))\n"

ANSWER = """Read the file as UTF-8, print a default, and add a helper:

**src/app.py**
```python
def load(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()
```

```python src/main.py
# ... existing code ...
def main():
    print(load('x') or "(empty)")
```

```python
# File: src/util/paths.py
from pathlib import Path
```

```bash
python -m pytest
```
"""
REFUSED = ANSWER + "\n```python src/broken.py\nimport os\n# ... existing code ...\n```\n"


@pytest.fixture
def root(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(APP)
    (tmp_path / "src" / "main.py").write_text(MAIN)
    (tmp_path / "answer.md").write_text(ANSWER)
    (tmp_path / "refused.md").write_text(REFUSED)
    return tmp_path


def run(capsys, *argv):
    code = main(["apply", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def untouched(root):
    return ((root / "src" / "app.py").read_text() == APP and (root / "src" / "main.py").read_text() == MAIN
            and not (root / "src" / "util").exists())


def test_an_answer_prints_a_diff_per_file_and_a_summary_without_writing(root, capsys):
    code, out, _err = run(capsys, "--answer", str(root / "answer.md"), "--root", str(root))
    assert code == 0 and untouched(root)
    assert "+++ b/src/app.py" in out and "+++ b/src/main.py" in out and "--- /dev/null\n+++ b/src/util/paths.py" in out
    assert '+    print(load(\'x\') or "(empty)")' in out
    assert out.rstrip().endswith("files: 2 changed, 1 created, 0 refused; 1 block of commands, output or examples left out")


def test_the_json_says_the_same(root, capsys):
    code, out, _err = run(capsys, "--answer", str(root / "answer.md"), "--root", str(root), "--json")
    answer = json.loads(out)
    assert code == 0 and answer["complete"] and "written" not in answer
    assert [(f["path"], f["status"]) for f in answer["files"]] == [
        ("src/app.py", "changed"), ("src/main.py", "changed"), ("src/util/paths.py", "created")]
    assert answer["files"][2]["text"] == "from pathlib import Path\n"
    assert answer["summary"] == {"changed": 2, "created": 1, "refused": 0, "unchanged": 0, "unplaced": 0,
                                 "skipped": 1, "removed_unseen": 0}


def test_write_writes_every_file_and_creates_folders(root, capsys):
    os.chmod(root / "src" / "app.py", 0o640)
    code, out, _err = run(capsys, "--answer", str(root / "answer.md"), "--root", str(root), "--write")
    assert code == 0 and "written: src/app.py, src/main.py, src/util/paths.py" in out
    assert 'encoding="utf-8"' in (root / "src" / "app.py").read_text()
    assert (root / "src" / "app.py").stat().st_mode & 0o777 == 0o640
    assert (root / "src" / "util" / "paths.py").read_text() == "from pathlib import Path\n"
    assert not [p for p in (root / "src").rglob("*.cad-lsp")]


def test_the_answer_from_standard_input_with_the_root_here(root, capsys, monkeypatch):
    monkeypatch.chdir(root)
    with open(root / "answer.md") as answer:
        monkeypatch.setattr("sys.stdin", answer)
        code, out, _err = run(capsys, "--answer", "-")
    assert code == 0 and "+++ b/src/main.py" in out


def test_a_refused_block_writes_nothing_and_says_why(root, capsys):
    code, out, err = run(capsys, "--answer", str(root / "refused.md"), "--root", str(root), "--write")
    assert code == 2 and untouched(root) and not (root / "src" / "broken.py").exists()
    assert "not applied: src/broken.py:" in err and "a file that does not exist" in err
    assert "nothing written: 1 block of the answer could not be applied" in err and "--partial" in err
    assert "files: 2 changed, 1 created, 1 refused" in out and "written: nothing" in out


def test_partial_writes_what_merged_and_names_the_rest(root, capsys):
    code, out, _err = run(capsys, "--answer", str(root / "refused.md"), "--root", str(root), "--write", "--partial",
                         "--json")
    answer = json.loads(out)
    assert code == 2 and answer["written"] == ["src/app.py", "src/main.py", "src/util/paths.py"]
    assert "not written: 1 block of the answer not applied" in answer["not_written"]
    assert not untouched(root) and not (root / "src" / "broken.py").exists()


def test_a_file_changed_while_the_answer_was_merged_writes_nothing(root, capsys, monkeypatch):
    real = apply_answer.plan_answer

    def plan_then_save(*args, **kwargs):  # the user saves main.py in an editor while the answer is merged
        plan = real(*args, **kwargs)
        (root / "src" / "main.py").write_text(MAIN + "# saved meanwhile\n")
        return plan

    monkeypatch.setattr(apply_answer, "plan_answer", plan_then_save)
    code, _out, err = run(capsys, "--answer", str(root / "answer.md"), "--root", str(root), "--write")
    assert code == 1 and "nothing written: src/main.py changed on disk since the answer was read" in err
    assert (root / "src" / "app.py").read_text() == APP and not (root / "src" / "util").exists()
    assert (root / "src" / "main.py").read_text() == MAIN + "# saved meanwhile\n"


def test_a_new_file_that_appeared_meanwhile_writes_nothing(root, capsys, monkeypatch):
    real = apply_answer.plan_answer

    def plan_then_create(*args, **kwargs):
        plan = real(*args, **kwargs)
        (root / "src" / "util").mkdir()
        (root / "src" / "util" / "paths.py").write_text("mine\n")
        return plan

    monkeypatch.setattr(apply_answer, "plan_answer", plan_then_create)
    code, _out, err = run(capsys, "--answer", str(root / "answer.md"), "--root", str(root), "--write")
    assert code == 1 and "src/util/paths.py changed on disk" in err
    assert (root / "src" / "util" / "paths.py").read_text() == "mine\n" and (root / "src" / "app.py").read_text() == APP


def test_blocks_naming_no_file_go_to_file_or_are_unplaced(root, capsys):
    (root / "plain.md").write_text("Change main:\n\n```python\ndef main():\n    print(load('w'))\n```\n")
    code, _out, err = run(capsys, "--answer", str(root / "plain.md"), "--root", str(root))
    assert code == 2 and "the block at line 3 of the answer: it names no file" in err
    code, _out, err = run(capsys, str(root / "src" / "main.py"), "--answer", str(root / "plain.md"), "--root",
                         str(root), "--write")
    assert code == 0 and "print(load('w'))" in (root / "src" / "main.py").read_text()


@pytest.mark.parametrize("argv, message", [
    (["--answer", "missing.md"], "cannot read the answer missing.md"),
    (["--answer", "empty.md"], "the answer empty.md is empty"),
    (["--answer", "prose.md"], "the answer has no code block that changes a file"),
    (["x.py"], "apply needs --update (a snippet for FILE) or --answer"),
    (["--answer", "prose.md", "--update", "u.py"], "give --update or --answer, not both"),
    (["--update", "u.py"], "apply needs the FILE to apply --update to"),
    (["--answer", "prose.md", "--root", "nowhere"], "--root nowhere is not a folder"),
])
def test_bad_input_is_refused(root, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(root)
    (root / "empty.md").write_text("  \n")
    (root / "prose.md").write_text("Just run it:\n\n```sh\nmake\n```\n")
    code, _out, err = run(capsys, *argv)
    assert code == 2 and message in err
