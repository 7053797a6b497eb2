"""SEARCH/REPLACE edit blocks (``program.search_replace``): Aider's and Cline's forms, in a chat answer and as
the update of a single apply; each section found where the file has its lines, or refused with the reason."""

import pytest

from cad_lsp.program.answer import read_answer
from cad_lsp.program.answer_plan import plan_answer
from cad_lsp.program.search_replace import looks_like_search_replace, parse_sections
from cad_lsp.program.update import UpdateError, merge_update

APP = ("from flask import Flask\n\napp = Flask(__name__)\n\n\ndef factorial(n):\n    \"compute factorial\"\n\n"
       "    if n == 0:\n        return 1\n    else:\n        return n * factorial(n-1)\n\n\n"
       "@app.route('/prime/<int:n>')\ndef nth_prime(n):\n    count = 0\n    num = 1\n    return str(factorial(n))\n")

# Aider's answer (its documentation's example): the path before each fence, or inside the fence above the section.
AIDER = """Here are the *SEARCH/REPLACE* blocks:

mathweb/flask/app.py
```python
<<<<<<< SEARCH
from flask import Flask
=======
import math
from flask import Flask
>>>>>>> REPLACE
```

```
mathweb/flask/app.py
<<<<<<< SEARCH
    return str(factorial(n))
=======
    return str(math.factorial(n))
>>>>>>> REPLACE

mathweb/flask/hello.py
<<<<<<< SEARCH
=======
def hello():
    print("hello")
>>>>>>> REPLACE
```
"""


def test_an_aider_answer_edits_one_file_and_creates_another(tmp_path):
    (tmp_path / "mathweb" / "flask").mkdir(parents=True)
    (tmp_path / "mathweb" / "flask" / "app.py").write_text(APP)
    assert [(b.path, b.search_replace) for b in read_answer(AIDER).blocks] == [
        ("mathweb/flask/app.py", True), ("mathweb/flask/app.py", True), ("mathweb/flask/hello.py", True)]
    plan = plan_answer(AIDER, tmp_path)
    changes = {c.path: c for c in plan.files}
    assert plan.complete
    assert changes["mathweb/flask/app.py"].after == "import math\n" + APP.replace("str(factorial", "str(math.factorial")
    assert changes["mathweb/flask/hello.py"].after == 'def hello():\n    print("hello")\n'
    assert not changes["mathweb/flask/hello.py"].exists


@pytest.mark.parametrize("search, divider, replace", [("<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"),
                                                     ("------- SEARCH", "=======", "+++++++ REPLACE")])
def test_aider_s_and_cline_s_sections_apply_as_a_single_update(search, divider, replace):
    update = f"{search}\n    count = 0\n    num = 1\n{divider}\n    count, num = 0, 1\n{replace}\n"
    assert looks_like_search_replace(update)
    assert merge_update(APP, update, "app.py").merged == APP.replace("count = 0\n    num = 1", "count, num = 0, 1")


def test_roo_code_s_start_line_is_not_a_line_to_find():
    update = ("<<<<<<< SEARCH\n:start_line:17\n-------\n    count = 0\n=======\n    count = 1\n>>>>>>> REPLACE\n")
    [section] = parse_sections(update)
    assert section.search == ("    count = 0",)
    assert merge_update(APP, update, "app.py").merged == APP.replace("count = 0", "count = 1")


def test_a_section_indented_otherwise_is_found_and_its_replacement_takes_the_file_s_indentation():
    update = "<<<<<<< SEARCH\nif n == 0:\n    return 1\n=======\nif n <= 1:\n    return 1\n>>>>>>> REPLACE\n"
    assert merge_update(APP, update, "app.py").merged == APP.replace("if n == 0:", "if n <= 1:")


def test_sections_apply_in_order_and_a_repeated_search_takes_the_place_after_the_one_before():
    document = "def a():\n    return 0\n\n\ndef b():\n    return 0\n"
    first = "<<<<<<< SEARCH\ndef b():\n=======\ndef b(x):\n>>>>>>> REPLACE\n"
    second = "<<<<<<< SEARCH\n    return 0\n=======\n    return x\n>>>>>>> REPLACE\n"
    assert merge_update(document, first + second, "m.py").merged == document.replace(
        "def b():\n    return 0", "def b(x):\n    return x")


def test_a_section_that_is_not_in_the_file_or_is_in_two_places_is_refused():
    with pytest.raises(UpdateError, match="is not in the file"):
        merge_update(APP, "<<<<<<< SEARCH\n    return -1\n=======\n    return 0\n>>>>>>> REPLACE\n", "app.py")
    document = "def a():\n    return 0\n\n\ndef b():\n    return 0\n"
    with pytest.raises(UpdateError, match="matches 2 places"):
        merge_update(document, "<<<<<<< SEARCH\n    return 0\n=======\n    return 1\n>>>>>>> REPLACE\n", "m.py")


def test_crlf_and_a_missing_final_newline_are_kept():
    document = "a = 1\r\nb = 2\r\nc = 3"
    update = "<<<<<<< SEARCH\nc = 3\n=======\nc = 4\nd = 5\n>>>>>>> REPLACE\n"
    assert merge_update(document, update, "m.py").merged == "a = 1\r\nb = 2\r\nc = 4\r\nd = 5"


def test_a_refused_section_refuses_its_file_in_an_answer(tmp_path):
    (tmp_path / "app.py").write_text(APP)
    answer = "app.py\n```python\n<<<<<<< SEARCH\nimport os\n=======\nimport sys\n>>>>>>> REPLACE\n```\n"
    plan = plan_answer(answer, tmp_path)
    assert not plan.complete and "is not in the file" in plan.refusals()[0]
