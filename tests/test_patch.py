"""Diffs in a chat answer (unified diffs, OpenAI's apply_patch envelope): found by their lines, not trusted for
their numbers, refused where unsure."""

import pytest

from cad_lsp.program.answer import read_answer
from cad_lsp.program.answer_plan import plan_answer
from cad_lsp.program.patch import PatchError, apply_patch, looks_like_patch, patch_files
from cad_lsp.program.update import UpdateError, merge_update

APP = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 2\n"


def test_hunks_are_placed_by_their_lines_whatever_their_headers_say():
    patch = ("--- a/app.py\n+++ b/app.py\n@@ -40,2 +40,2 @@\n def a():\n-    return 1\n+    return 10\n"
             "@@ -2,2 +2,3 @@\n def b():\n-    return 2\n+    x = 2\n+    return x\n")
    assert apply_patch(APP, patch) == APP.replace("return 1", "return 10").replace(
        "def b():\n    return 2", "def b():\n    x = 2\n    return x")


def test_a_diff_without_headers_is_one_hunk():
    [block] = read_answer("```diff\n def c():\n-    return 2\n+    return 3\n```\n").blocks
    assert block.is_patch and block.path is None
    assert apply_patch(APP, block.text) == APP[: APP.rindex("return 2")] + "return 3\n"


def test_a_hunk_that_is_not_in_the_file_or_is_there_twice_is_refused():
    with pytest.raises(PatchError, match="does not match the file"):
        apply_patch(APP, "@@ -1 +1 @@\n-    return 7\n+    return 8\n")
    with pytest.raises(PatchError, match="matches 2 places"):
        apply_patch(APP, "@@ @@\n-    return 2\n+    return 3\n")
    # a line number chooses among the places
    assert apply_patch(APP, "@@ -10 +10 @@\n-    return 2\n+    return 3\n") == APP[: APP.rindex("return 2")] + "return 3\n"


def test_new_lines_take_the_file_line_ends_and_its_missing_final_newline():
    crlf = APP.replace("\n", "\r\n")
    merged = apply_patch(crlf, "@@ -1,2 +1,3 @@\n def a():\n+    # one\n     return 1\n")
    assert merged == crlf.replace("def a():\r\n", "def a():\r\n    # one\r\n")
    assert apply_patch("x = 1\ny = 2", "@@ -2 +2 @@\n-y = 2\n+y = 3\n") == "x = 1\ny = 3"


def test_a_removed_comment_line_of_dashes_is_not_a_file_header():
    patch = "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- the old note\n+-- the new note\n select 1;\n"
    [(path, text)] = patch_files(patch)
    assert path == "q.sql"
    assert apply_patch("-- the old note\nselect 1;\n", text) == "-- the new note\nselect 1;\n"


def test_lists_and_code_are_not_diffs():
    assert not looks_like_patch("- one\n- two\n") and not looks_like_patch("x = 1\n")
    [block] = read_answer("```\n- one\n- two\n```\n").blocks
    assert not block.is_patch


def test_one_diff_block_changes_one_file_and_creates_another(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(APP)
    answer = ("Here is the patch:\n\n```diff\ndiff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
              "@@ -1,2 +1,2 @@\n def a():\n-    return 1\n+    return 11\n"
              "diff --git a/src/new.py b/src/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.py\n"
              "@@ -0,0 +1,2 @@\n+def d():\n+    return 4\n```\n")
    plan = plan_answer(answer, tmp_path)
    files = {f.path: f for f in plan.files}
    assert plan.complete and set(files) == {"src/app.py", "src/new.py"}
    assert files["src/app.py"].after == APP.replace("return 1", "return 11")
    assert files["src/new.py"].after == "def d():\n    return 4\n" and not files["src/new.py"].exists
    assert {b.named_by for f in plan.files for b in f.blocks} == {"diff header"}


def test_a_diff_named_the_usual_ways_that_does_not_apply_refuses_its_file(tmp_path):
    (tmp_path / "app.py").write_text(APP)
    plan = plan_answer("`app.py`:\n```diff\n-    return 9\n+    return 10\n```\n", tmp_path)
    assert not plan.complete and "does not match the file" in plan.refused[0].refusal


def test_an_update_that_is_a_diff_is_applied_as_one_by_every_apply():
    from cad_lsp.program.update import merge_update

    patch = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def a():\n-    return 1\n+    return 10\n"
    assert merge_update(APP, patch, "app.py").merged == APP.replace("return 1", "return 10")


CODEX = """I'll make `baz` return a value and add a helper.

```
*** Begin Patch
*** Update File: src/app.py
@@ class Foo:
@@     def baz(self):
-        pass
+        return 123
*** Add File: src/util.py
+def helper():
+    return 1
*** End Patch
```
"""
FOO = "class Foo:\n    def bar(self):\n        pass\n\n    def baz(self):\n        pass\n"


def test_openai_s_apply_patch_envelope_updates_below_the_lines_its_headers_name_and_adds_files(tmp_path):
    """``@@ class Foo`` then ``@@     def baz(self):``: the hunk's ``pass`` is the first below them (the file has
    two); ``*** Add File`` is a new file, its lines without their ``+``."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(FOO)
    plan = plan_answer(CODEX, tmp_path)
    changes = {c.path: c for c in plan.files}
    assert plan.complete
    assert changes["src/app.py"].after == FOO[: FOO.rindex("pass")] + "return 123\n"
    assert changes["src/util.py"].after == "def helper():\n    return 1\n" and not changes["src/util.py"].exists
    # the same envelope as a single apply's update
    update = CODEX[CODEX.index("*** Begin"): CODEX.index("*** Add File")] + "*** End Patch\n"
    assert merge_update(FOO, update, "app.py").merged == changes["src/app.py"].after
    # a header naming a line the file does not have, or a file deleted: not applied, and said why
    with pytest.raises(UpdateError, match="which the file does not have"):
        merge_update(FOO, update.replace("class Foo:", "class Bar:"), "app.py")
    deleting = CODEX.replace("*** End Patch", "*** Delete File: src/old.py\n*** End Patch")
    plan = plan_answer(deleting, tmp_path)
    assert not plan.complete and "deletes src/old.py" in plan.refusals()[0]
