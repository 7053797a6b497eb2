"""Updates placed by syntax (``program.blocks``): each way chat models write an update that line alignment gets
wrong, in each language it shows up in, and the peer suite (Continue's lazy-apply fixtures) when the data is
there.  Comparisons are exact unless a test says otherwise."""

import json
from pathlib import Path

import pytest

from cad_lsp.program.answer import read_answer
from cad_lsp.program.syntax import error_count, guess_language, language_of, parse_units
from cad_lsp.program.update import UpdateError, merge_update

PEER = Path(__file__).resolve().parents[2] / "shared" / "data" / "apply-peer" / "continue-lazy.jsonl"

CALCULATOR_JS = """class Calculator {
  constructor() {
    this.result = 0;
  }

  add(number) {
    this.result += number;
    return this;
  }

  double() {
    this.result *= 2;
    return this;
  }

  getResult() {
    return this.result;
  }
}
"""

SHAPES_PY = """import math
from dataclasses import dataclass


@dataclass
class Circle:
    radius: float

    def area(self):
        return math.pi * self.radius ** 2

    def grow(self, by):
        self.radius += by
        return self


def describe(shape):
    return f"{type(shape).__name__} of area {shape.area():.2f}"
"""

STACK_RS = """use std::fmt;

pub struct Stack {
    items: Vec<i32>,
}

impl Stack {
    pub fn new() -> Self {
        Stack { items: Vec::new() }
    }

    pub fn push(&mut self, item: i32) {
        self.items.push(item);
    }

    pub fn pop(&mut self) -> Option<i32> {
        self.items.pop()
    }
}
"""

SERVER_GO = """package server

import (
	"fmt"
	"net/http"
)

type Server struct {
	addr string
}

func (s *Server) Start() error {
	fmt.Println("listening on", s.addr)
	return http.ListenAndServe(s.addr, nil)
}

func (s *Server) Stop() {
	fmt.Println("stopped")
}
"""

ACCOUNT_JAVA = """package bank;

public class Account {
    private long balance;

    public Account(long balance) {
        this.balance = balance;
    }

    public void deposit(long amount) {
        balance += amount;
    }

    public long getBalance() {
        return balance;
    }
}
"""


def merged(document: str, update: str, language: str) -> str:
    return merge_update(document, update, language).merged


# 1. Closing lines belong to the block they close.
@pytest.mark.parametrize("document, update, language, expected", [
    (CALCULATOR_JS,
     "class Calculator {\n  // ... existing code ...\n\n  triple() {\n    this.result *= 3;\n    return this;\n  }\n}\n",
     "calc.js", CALCULATOR_JS.replace("    return this.result;\n  }\n}\n",
                                      "    return this.result;\n  }\n\n  triple() {\n    this.result *= 3;\n"
                                      "    return this;\n  }\n}\n")),
    (STACK_RS,
     "impl Stack {\n    // ... existing methods ...\n\n    pub fn len(&self) -> usize {\n        self.items.len()\n"
     "    }\n}\n", "stack.rs",
     STACK_RS.replace("        self.items.pop()\n    }\n}\n",
                      "        self.items.pop()\n    }\n\n    pub fn len(&self) -> usize {\n        self.items.len()\n"
                      "    }\n}\n")),
    (ACCOUNT_JAVA,
     "public class Account {\n    // ...\n\n    public void withdraw(long amount) {\n        balance -= amount;\n"
     "    }\n}\n", "Account.java",
     ACCOUNT_JAVA.replace("        return balance;\n    }\n}\n",
                          "        return balance;\n    }\n\n    public void withdraw(long amount) {\n"
                          "        balance -= amount;\n    }\n}\n")),
])
def test_a_closing_brace_after_a_marker_closes_the_files_block(document, update, language, expected):
    assert merged(document, update, language) == expected


# 2. A rewritten line replaces the line it rewrites.
def test_a_changed_signature_and_an_import_that_gains_a_name_replace_their_lines():
    update = ("import math\nfrom dataclasses import dataclass, field\n\n# ... existing code ...\n\n"
              "    def grow(self, by, limit=None):\n        self.radius += by\n        return self\n\n# ... existing code ...\n")
    out = merged(SHAPES_PY, update, "shapes.py")
    assert out == SHAPES_PY.replace("from dataclasses import dataclass\n",
                                    "from dataclasses import dataclass, field\n").replace(
        "def grow(self, by):", "def grow(self, by, limit=None):")


def test_a_call_spread_over_lines_replaces_the_one_line_call():
    update = ("func (s *Server) Start() error {\n\tfmt.Println(\n\t\t\"listening on\",\n\t\ts.addr,\n\t)\n"
              "\treturn http.ListenAndServe(s.addr, nil)\n}\n")
    out = merged(SERVER_GO, update, "server.go")
    assert out == SERVER_GO.replace('\tfmt.Println("listening on", s.addr)\n',
                                    '\tfmt.Println(\n\t\t"listening on",\n\t\ts.addr,\n\t)\n')


# 3. A function pasted alone finds its place by name, at its place's indentation.
@pytest.mark.parametrize("document, update, language, old, new", [
    (CALCULATOR_JS, "double() {\n  this.add(this.result);\n  return this;\n}\n", "calc.js",
     "    this.result *= 2;\n", "    this.add(this.result);\n"),
    (SHAPES_PY, "def grow(self, by):\n    if by < 0:\n        raise ValueError(by)\n    self.radius += by\n    return self\n",
     "shapes.py", "        self.radius += by\n", "        if by < 0:\n            raise ValueError(by)\n        self.radius += by\n"),
    (STACK_RS, "pub fn pop(&mut self) -> Option<i32> {\n    let item = self.items.pop();\n    item\n}\n", "stack.rs",
     "        self.items.pop()\n", "        let item = self.items.pop();\n        item\n"),
    (ACCOUNT_JAVA, "public void deposit(long amount) {\n    if (amount <= 0) throw new IllegalArgumentException();\n"
     "    balance += amount;\n}\n", "Account.java", "        balance += amount;\n",
     "        if (amount <= 0) throw new IllegalArgumentException();\n        balance += amount;\n"),
])
def test_a_method_pasted_alone_at_column_zero_replaces_the_method_of_its_name(document, update, language, old, new):
    assert merged(document, update, language) == document.replace(old, new, 1)


def test_among_look_alike_functions_the_name_decides():
    document = "".join(f"function f{i}(x) {{\n  const y = x * {i};\n  return y + {i};\n}}\n\n" for i in range(6))
    update = "function f4(x) {\n  const y = x * 4;\n  return Math.abs(y + 4);\n}\n"
    assert merged(document, update, "f.js") == document.replace("return y + 4;", "return Math.abs(y + 4);")


def test_the_changed_lines_likeness_picks_the_place_where_context_fits_twice():
    document = ("def run(f):\n    setup()\n    return make(f)\n\n\ndef build(f):\n    check(f)\n    return make(f)\n"
                "\n\ndef report(f):\n    return str(f)\n")
    update = "def build(f):\n    check(f)\n    cmd = make(f)\n    return cmd\n"
    assert merged(document, update, "a.py") == document.replace("    check(f)\n    return make(f)\n",
                                                                 "    check(f)\n    cmd = make(f)\n    return cmd\n")


# 4. A function shown to its end replaces the whole old one.
def test_a_marker_then_a_function_to_its_end_replaces_its_whole_body():
    update = ("// ... existing code ...\n\n  add(number) {\n    if (typeof number !== 'number') throw new TypeError();\n"
              "    this.result += number;\n    return this;\n  }\n\n  // ... existing code ...\n")
    out = merged(CALCULATOR_JS, update, "calc.js")
    assert out == CALCULATOR_JS.replace("  add(number) {\n", "  add(number) {\n    if (typeof number !== 'number') "
                                        "throw new TypeError();\n")
    shorter = "// ...\n  double() {\n    return this.add(this.result);\n  }\n// ...\n"  # the old body's lines go
    assert merged(CALCULATOR_JS, shorter, "calc.js") == CALCULATOR_JS.replace(
        "    this.result *= 2;\n    return this;\n", "    return this.add(this.result);\n")


# 5. Markers in other syntaxes.
def test_a_jsx_marker_keeps_the_elements_it_stands_for():
    document = ("export function Page() {\n  return (\n    <div>\n      <h1>Title</h1>\n      <p>Body</p>\n"
                "      <Footer />\n    </div>\n  );\n}\n")
    update = ("export function Page() {\n  return (\n    <div>\n      <h1>New title</h1>\n"
              "      {/* ... existing code ... */}\n    </div>\n  );\n}\n")
    assert merged(document, update, "page.tsx") == document.replace("<h1>Title</h1>", "<h1>New title</h1>")


def test_markdown_sections_are_blocks_and_html_comments_are_markers():
    document = "# Guide\n\n## Install\n\npip install x\n\n## Use\n\nRun x.\n\n## License\n\nMIT\n"
    update = "# Guide\n\n<!-- ... existing sections ... -->\n\n## Use\n\nRun `x --help` first.\n\n<!-- ... -->\n"
    assert merged(document, update, "README.md") == document.replace("Run x.", "Run `x --help` first.")


def test_other_methods_marker_wording():
    update = ("class Calculator {\n  // ... other methods ...\n\n  getResult() {\n    return Number(this.result);\n"
              "  }\n}\n")
    assert merged(CALCULATOR_JS, update, "calc.js") == CALCULATOR_JS.replace("return this.result;",
                                                                             "return Number(this.result);")


# 6. Nothing removed unseen.
def test_a_method_a_marker_keeps_is_never_dropped():
    update = "class Calculator {\n  constructor() {\n    this.result = 1;\n  }\n\n  // ... existing code ...\n}\n"
    merge = merge_update(CALCULATOR_JS, update, "calc.js")
    assert merge.merged == CALCULATOR_JS.replace("this.result = 0;", "this.result = 1;") and merge.unseen == ()


def test_statements_from_inside_a_python_function_are_not_read_as_the_files_top_level():
    """An update of indented statements (a test's body after a marker): its import names the module the file
    imports at its top, but it is the function's line; the syntax does not read such a fragment."""
    from cad_lsp.program.blocks import merge_by_blocks
    from cad_lsp.program.update import _lines_of_block, marker_lines

    document = ("import math\nfrom shapes import Circle\n\n\ndef test_area():\n    from shapes import area\n\n"
                "    assert area(Circle(1)) == math.pi\n    assert area(Circle(2)) == 4 * math.pi\n")
    update = "# ... existing code ...\n    from shapes import area\n\n    assert area(Circle(1)) == pytest.approx(math.pi)\n" \
        "# ... existing code ...\n"
    assert merge_by_blocks(document.splitlines(True), update.splitlines(True), "python", marker_lines,
                           _lines_of_block) is None
    assert merge_update(document, update, "test_shapes.py").merged == document.replace(
        "== math.pi\n", "== pytest.approx(math.pi)\n")


GREETER_JAVA = """package com.acme;

import java.util.Map;

public class Greeter {
    private final Map<String, String> names;

    public Greeter(Map<String, String> names) {
        this.names = names;
    }

    public String greet(String id) {
        return "Hello, " + names.get(id);
    }

    public String farewell(String id) {
        return "Goodbye, " + names.get(id);
    }
}
"""


def test_members_shown_after_imports_without_their_class_line_are_placed_in_it():
    """Java as chat models write it: the new import, a marker, then methods and the class's closing brace, but
    no class line; the imports go at the top, the methods replace theirs inside the class, and the brace is the
    class's own."""
    update = ("import java.util.Locale;\nimport java.util.Map;\n\n// ... existing code ...\n\n"
              "    public String greet(String id, Locale locale) {\n"
              "        return \"Hello, \" + names.get(id).toUpperCase(locale);\n    }\n\n    // ... existing code ...\n}\n")
    want = GREETER_JAVA.replace("import java.util.Map;", "import java.util.Locale;\nimport java.util.Map;").replace(
        "    public String greet(String id) {\n        return \"Hello, \" + names.get(id);\n",
        "    public String greet(String id, Locale locale) {\n        return \"Hello, \" + names.get(id).toUpperCase(locale);\n")
    merge = merge_update(GREETER_JAVA, update, "Greeter.java")
    assert merge.merged == want and merge.unseen == ()


@pytest.mark.parametrize("update", ["from .c import d\n", "# ... existing code ...\nfrom .c import d\n# ... existing code ...\n"])
def test_an_import_shown_alone_goes_among_the_files_imports(update):
    """"Add this import", shown with no line of the file: beside the file's import most like it, in name order."""
    document = "import os\nimport sys\n\nfrom .a import b\nfrom .e import f\n\n\ndef g():\n    return 1\n"
    want = document.replace("from .e import f\n", "from .c import d\nfrom .e import f\n")
    assert merge_update(document, update, "app.py").merged == want


def test_an_import_of_a_name_the_file_imports_is_a_rewrite_not_a_second_import():
    document = "import os\n\nfrom .server import EDIT\nfrom .util import run\n\n\ndef g():\n    return EDIT\n"
    merged = merge_update(document, "from .requests import EDIT\n", "app.py").merged
    assert merged == document.replace("from .server import EDIT", "from .requests import EDIT")


def test_of_two_readings_the_one_that_removes_nothing_unseen_wins():
    """A whole-file update that stops before the file's last function: read as the whole file it removes that
    function unseen, read as a snippet it keeps it; the merge keeps it."""
    document = SHAPES_PY + "\n\ndef main():\n    print(describe(Circle(1)))\n"
    update = SHAPES_PY.replace("math.pi", "3.14159")
    merge = merge_update(document, update, "shapes.py")
    assert merge.merged == document.replace("math.pi", "3.14159") and merge.unseen == ()


def test_lines_removed_where_the_update_does_not_show_them_are_reported(monkeypatch):
    """Where only the syntax places an update (lines cannot: here they are refused), the lines its reading
    removes at the update's end, which no shown line follows, are named; a method removed between two shown
    ones is the update's own doing and is not."""
    from cad_lsp.program import update as update_module

    def refused(document, update, context=False, place=None):
        raise UpdateError("refused")

    monkeypatch.setattr(update_module, "_line_merge", refused)
    document = SHAPES_PY + "\n\ndef main():\n    print(describe(Circle(1)))\n"
    update = SHAPES_PY.replace("    def grow(self, by):\n        self.radius += by\n        return self\n\n", "")
    merge = merge_update(document, update, "shapes.py")
    assert merge.whole_file and merge.merged == update
    main_at = document.splitlines().index("def main():") + 1
    assert merge.unseen == ((main_at, main_at + 1),) and merge.unseen_lines == 2
    assert "2 lines" in merge.unseen_note() and f"{main_at}-{main_at + 1}" in merge.unseen_note()


def test_a_merge_that_breaks_a_file_that_parsed_is_refused_unless_forced():
    update = "  double() {\n    this.result *= (2;\n    return this;\n  }\n"  # an unclosed parenthesis
    with pytest.raises(UpdateError, match="would not parse"):
        merge_update(CALCULATOR_JS, update, "calc.js")
    forced = merge_update(CALCULATOR_JS, update, "calc.js", force=True).merged
    assert "this.result *= (2;" in forced and error_count(forced, "javascript")


def test_bad_input_keeps_its_bytes():
    """CRLF, a byte-order mark, tabs, no final newline and emoji survive a merge by syntax."""
    document = "\ufeff" + SERVER_GO.replace("fmt.Println(\"stopped\")", "fmt.Println(\"stopped 😀\")") \
        .replace("\n", "\r\n").rstrip("\r\n")
    update = "func (s *Server) Stop() {\n\tfmt.Println(\"stopped 😀\")\n\ts.addr = \"\"\n}\n"
    out = merged(document, update, "server.go")
    assert out == document + "\r\n\ts.addr = \"\"\r\n}".replace("\r\n}", "") or out.startswith("\ufeff")
    assert out.startswith("\ufeffpackage server\r\n") and "\n" not in out.replace("\r\n", "")
    assert out.endswith("\ts.addr = \"\"\r\n}") and "stopped 😀" in out


def test_languages_are_named_by_file_names_extensions_and_editor_ids():
    assert language_of("src/App.tsx") == "tsx" and language_of("typescriptreact") == "tsx"
    assert language_of(".rs") == "rust" and language_of("notes.txt") is None and language_of(None) is None
    assert guess_language(SERVER_GO) == "go" and guess_language("just some words, not code (\n") is None


def test_a_file_without_a_grammar_is_placed_by_lines():
    document = "alpha\nbeta\ngamma\n"
    assert merge_update(document, "beta\nBETA\ngamma\n", "notes.txt").merged == "alpha\nbeta\nBETA\ngamma\n"


def peer_cases():
    if not PEER.is_file():
        return []
    return [json.loads(line) for line in PEER.read_text(encoding="utf-8").splitlines() if line.strip()]


def blank_insensitive(text: str) -> list[str]:
    """As the peer's own test compares: trailing blanks and whitespace-only lines ignored."""
    return [line.rstrip() for line in text.splitlines() if line.strip()]


@pytest.mark.skipif(not PEER.is_file(), reason="the peer suite is in the project's shared data, not in a clone")
def test_the_peer_suite_merges_as_its_authors_expect():
    sound = [case for case in peer_cases() if case["sound"]]
    assert len(sound) == 23
    wrong = []
    for case in sound:
        try:
            out = merge_update(case["before"], case["update"], case["ext"]).merged
        except UpdateError as exc:
            out = f"refused: {exc}"
        if blank_insensitive(out) != blank_insensitive(case["after"]):
            wrong.append(case["id"])
    assert len(wrong) <= 2, wrong


CHAT = Path(__file__).resolve().parent / "data" / "apply-chat.jsonl"
# The one hand-written case the merge reads otherwise: a whole component without markers that starts at the
# file's second import; its author deletes the first import above it, the merge keeps it (an update's start keeps
# what comes before it, rather than removing a line no marker and no shown line put in question).
READ_OTHERWISE = {"tsx/jsx-block-removed"}


def chat_cases() -> list[dict]:
    return [json.loads(line) for line in CHAT.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("case", chat_cases(), ids=lambda case: case["id"])
def test_hand_written_chat_updates_merge_byte_for_byte(case):
    """Updates written as chat models write them, ten languages, every class of the placement rules."""
    out = merge_update(case["before"], case["update"], case["ext"]).merged
    if case["id"] in READ_OTHERWISE:
        assert out != case["after"] and blank_insensitive(out)[1:] == blank_insensitive(case["after"])
    else:
        assert out == case["after"]


def test_a_whole_file_update_that_removes_a_blank_line_inside_a_function_removes_it():
    update = SHAPES_PY.replace("        self.radius += by\n", "        self.radius += by\n\n")
    assert merge_update(update, SHAPES_PY, "shapes.py").merged == SHAPES_PY  # the blank line goes
    assert merge_update(SHAPES_PY, update, "shapes.py").merged == update  # and comes


NVIM_BEFORE = """local M = {}

function M.setup()
  vim.api.nvim_create_user_command("CadApply", function(cmd)
    local register = cmd.args ~= "" and cmd.args or M.default_register()
    if #register ~= 1 then
      return vim.notify("cad-lsp: :CadApply takes one register name, e.g. :CadApply a", vim.log.levels.ERROR)
    end
    local update = vim.fn.getreg(register)
    if type(update) ~= "string" or vim.trim(update) == "" then
      return vim.notify(("cad-lsp: register %s holds no update"):format(register), vim.log.levels.WARN)
    end
    M.apply(vim.api.nvim_get_current_buf(), update, nil, vim.schedule_wrap(notify_result))
  end, { nargs = "?", desc = "cad-lsp: apply the update in a register (default: the clipboard) to the buffer" })
end

return M
"""
NVIM_AFTER = NVIM_BEFORE.replace(
    """notify_result))
  end, { nargs = "?", desc = "cad-lsp: apply the update in a register (default: the clipboard) to the buffer" })""",
    """notify_result), cmd.bang)
  end, {
    nargs = "?",
    bang = true, -- :CadApply! applies a merge that leaves the buffer unparsable
    desc = "cad-lsp: apply the update in a register (default: the clipboard) to the buffer",
  })""")


def test_a_whole_file_without_a_grammar_ends_where_the_file_ends():
    """Lines place a whole new Lua module (this project's own Neovim plugin, one commit) whose last function
    changed: its last lines (``end``, ``return M``) are the file's last lines, not new ones after which the
    file's end is written again (the long lines they follow cost more to delete than ``return M`` saves)."""
    assert NVIM_AFTER != NVIM_BEFORE
    assert merge_update(NVIM_BEFORE, NVIM_AFTER, "init.lua").merged == NVIM_AFTER


RUST_TESTS = """pub fn double(x: i32) -> i32 {
    x * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles() {
        assert_eq!(double(2), 4);
    }

    #[test]
    fn doubles_zero() {
        assert_eq!(double(0), 0);
    }
}
"""


def test_a_rust_attribute_goes_with_its_item_and_a_new_test_after_a_marker_keeps_the_old_ones():
    update = """#[cfg(test)]
mod tests {
    use super::*;

    // ... existing tests ...
    #[test]
    fn doubles_negative() {
        assert_eq!(double(-2), -4);
    }
}
"""
    merged = merge_update(RUST_TESTS, update, "lib.rs")
    assert merged.merged == RUST_TESTS.replace("""        assert_eq!(double(0), 0);
    }
""", """        assert_eq!(double(0), 0);
    }

    #[test]
    fn doubles_negative() {
        assert_eq!(double(-2), -4);
    }
""") and not merged.unseen


GO_STORE = """package store

func (s *Store) Get(id int64) (Todo, error) {
\ts.mu.RLock()
\tdefer s.mu.RUnlock()
\tt, ok := s.todos[id]
\tif !ok {
\t\treturn Todo{}, ErrNotFound
\t}
\treturn t, nil
}

func (s *Store) Create(t Todo) (Todo, error) {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\ts.todos[t.ID] = t
\treturn t, nil
}

func (s *Store) Delete(id int64) error {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\tdelete(s.todos, id)
\treturn nil
}
"""

GO_UPDATE = """func (s *Store) Update(id int64, fn func(*Todo)) (Todo, error) {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\tt, ok := s.todos[id]
\tif !ok {
\t\treturn Todo{}, ErrNotFound
\t}
\tfn(&t)
\treturn t, nil
}
"""


def test_a_new_function_pasted_alone_goes_at_the_end_not_over_the_functions_it_resembles():
    merged = merge_update(GO_STORE, GO_UPDATE, "store.go")
    assert merged.merged == GO_STORE + "\n" + GO_UPDATE and not merged.unseen


def test_a_new_function_goes_after_the_one_the_answer_names():
    merged = merge_update(GO_STORE, GO_UPDATE, "store.go", after="Create").merged
    create_end = GO_STORE.index("func (s *Store) Delete")
    assert merged == GO_STORE[:create_end] + GO_UPDATE + "\n" + GO_STORE[create_end:]
    [block] = read_answer("Add `Update` right after `Create`:\n\n```go store.go\nx := 1\n```\n").blocks
    assert block.after == "Create"


CSHARP = """namespace Shop;

public sealed class Cart
{
    public decimal Total()
    {
        return 0m;
    }

    public int Count()
    {
        return 0;
    }
}
"""

KOTLIN = """package shop

class Cart {
    fun total(): Int {
        return 0
    }

    fun count(): Int {
        return 0
    }
}
"""


@pytest.mark.parametrize("name, text, update, old, new", [
    ("Cart.cs", CSHARP, "public decimal Total()\n{\n    return 1m;\n}\n", "return 0m;", "return 1m;"),
    ("Cart.kt", KOTLIN, "fun count(): Int {\n    return items.size\n}\n", "        return 0\n    }\n}",
     "        return items.size\n    }\n}"),
])
def test_csharp_and_kotlin_methods_pasted_alone_replace_theirs_by_name(name, text, update, old, new):
    assert language_of(name) in ("csharp", "kotlin")
    assert merge_update(text, update, name).merged == text.replace(old, new)


JAVA_REPOSITORY = """public interface OrderRepository {

    /**
     * Loads an order with its lines.
     */
    Optional<Order> findWithLinesById(Long id);

    /**
     * Orders pending for longer than the cut-off.
     */
    List<Order> findStalePending(Instant cutoff);
}
"""


def test_a_new_method_s_doc_comment_goes_with_it_not_with_another_method_s():
    """A Javadoc block is its method's: a new method's ``/**`` after a marker is not the file's last ``/**``
    rewritten (which took the methods between with it)."""
    update = ("public interface OrderRepository {\n\n    // ... existing methods unchanged ...\n\n    /**\n"
              "     * One page of orders in the given status.\n     */\n"
              "    Page<Order> findByStatus(OrderStatus status, Pageable pageable);\n}\n")
    out = merged(JAVA_REPOSITORY, update, "java")
    assert out == JAVA_REPOSITORY.replace("Instant cutoff);\n}\n", "Instant cutoff);\n\n" + update.split("\n\n")[2])


def test_a_definition_shown_without_its_doc_comment_keeps_it():
    document = ("use clap::Parser;\n\n/// Count words.\n#[derive(Debug, Parser)]\nstruct Cli {\n    /// Top N.\n"
                "    #[arg(long)]\n    top: usize,\n}\n\nfn main() {}\n")
    update = "#[derive(Debug, Parser)]\nstruct Cli {\n    // ... existing fields ...\n\n    #[arg(long)]\n    json: bool,\n}\n"
    assert merged(document, update, "rust") == document.replace("    top: usize,\n", "    top: usize,\n\n"
                                                                 "    #[arg(long)]\n    json: bool,\n")


CPP_RING = """#include "ring_buffer.hpp"

namespace audio {

std::size_t RingBuffer::pop() {
    return 0;
}

std::size_t RingBuffer::pop(std::span<float> out) {
    return out.size();
}

void RingBuffer::clear() noexcept {
    size_ = 0;
}

}  // namespace audio
"""


@pytest.mark.parametrize("prose, after, before", [
    ("Add this after `RingBuffer::pop(std::span<float>)`, just before `clear()`:", "pop", None),
    ("Add this new function between `clean_columns` and `normalize_currency`:", "clean_columns", None),
    ("Next, add the `reserveStock` method. Place it right above `releaseStock` so the pair sits together.",
     None, "releaseStock"),
    ("Add a tiny helper above `optimizeAll`:", None, "optimizeAll"),
    ("Place it just before the catch-all `handleUnexpected` so the handlers stay together.", None,
     "handleUnexpected"),
])
def test_the_place_an_answer_names_for_new_code(prose, after, before):
    [block] = read_answer(f"{prose}\n\n```cpp src/x.cpp\nint x;\n```\n").blocks
    assert (block.after, block.before) == (after, before)


JAVA_SERVICE = """package com.acme.shop.service;

import com.acme.shop.domain.Product;

@Service
public class InventoryService {

    private final ProductRepository productRepository;

    public InventoryService(ProductRepository productRepository) {
        this.productRepository = productRepository;
    }

    @Transactional
    public Product addStock(Long productId, int qty) {
        Product product = getProduct(productId);
        product.setStockOnHand(product.getStockOnHand() + qty);
        return productRepository.save(product);
    }

    /** Gives reserved units back. */
    @Transactional
    public Product releaseStock(Long productId, int qty) {
        Product product = getProduct(productId);
        product.setStockReserved(product.getStockReserved() - qty);
        return productRepository.save(product);
    }

    private Product getProduct(Long productId) {
        return productRepository.findById(productId).orElseThrow();
    }
}
"""
RESERVE = """    @Transactional
    public Product reserveStock(Long productId, int qty) {
        Product product = getProduct(productId);
        product.setStockReserved(product.getStockReserved() + qty);
        return productRepository.save(product);
    }
"""


def test_a_new_method_between_markers_goes_before_the_one_the_answer_names():
    """"Place it right above `releaseStock`": the class shown with a marker, the new method, a marker. Nothing
    of the file around the method says where among the members it goes; the answer does (above the doc
    comment of the one it names)."""
    update = ("@Service\npublic class InventoryService {\n\n    // ... existing code ...\n\n" + RESERVE +
              "\n    // ... existing code ...\n}\n")
    want = JAVA_SERVICE.replace("    /** Gives reserved", RESERVE + "\n    /** Gives reserved")
    assert merge_update(JAVA_SERVICE, update, "InventoryService.java", before="releaseStock").merged == want
    assert merge_update(JAVA_SERVICE, update, "InventoryService.java").merged != want  # (the class's end)


def test_a_method_pasted_without_its_class_after_a_marker_goes_after_the_one_the_answer_names():
    """"Put this method right after `addStock`": imports, a marker, then the method alone at its class's
    indentation. The syntax reads the method at the top level (after the class); the lines, told the place,
    put it after the method it names, inside the class."""
    update = "import com.acme.shop.domain.Product;\n// ...\n\n" + RESERVE
    want = JAVA_SERVICE.replace("    /** Gives reserved", RESERVE + "\n    /** Gives reserved")
    assert merge_update(JAVA_SERVICE, update, "InventoryService.java", after="addStock").merged == want


def test_a_new_function_pasted_alone_goes_before_the_one_the_answer_names():
    document = "def load(path):\n    return open(path).read()\n\n\ndef save(path, text):\n    open(path, 'w').write(text)\n"
    update = "def exists(path):\n    return os.path.exists(path)\n"
    merged = merge_update(document, update, "files.py", before="save").merged
    assert merged == document.replace("def save", update + "\n\ndef save")


def test_a_new_definition_goes_after_the_named_one_inside_a_namespace_after_its_last_overload():
    """Nothing of the new function is in the file, but the answer names where it goes: after ``pop`` (the last
    of its overloads), inside the namespace."""
    update = "std::size_t RingBuffer::copy_latest(std::span<float> out) const {\n    return 0;\n}\n"
    merged = merge_update(CPP_RING, update, "ring_buffer.cpp", after="pop").merged
    assert merged == CPP_RING.replace("void RingBuffer::clear", update + "\nvoid RingBuffer::clear")


def test_a_new_constant_goes_with_the_new_function_after_the_named_one():
    update = ('// validOutputs lists the formats accepted by --output.\nvar validOutputs = []string{"text", "json"}\n\n'
              "func validateOutput(format string) error {\n\treturn nil\n}\n")
    merged = merge_update(GO_STORE, update, "store.go", after="Create").merged
    create_end = GO_STORE.index("func (s *Store) Delete")
    assert merged == GO_STORE[:create_end] + update + "\n" + GO_STORE[create_end:]


RUBY_CLI = ("module Tally\n  class CLI\n    def initialize(argv)\n      @argv = argv\n    end\n\n    def run_start\n"
            "      @store.start(@argv.first)\n      0\n    end\n\n    def run_stop\n      @store.stop\n      0\n    end\n"
            "  end\nend\n")
PHP_CONTROLLER = ("<?php\n\nnamespace App;\n\nclass PostController extends Controller\n{\n    public function index(): View\n"
                  "    {\n        return view('posts.index');\n    }\n\n    public function store(Request $r): RedirectResponse\n"
                  "    {\n        return redirect()->route('posts.index');\n    }\n}\n")
SHELL_SCRIPT = ("#!/usr/bin/env bash\nset -euo pipefail\n\nusage() {\n  echo \"usage: deploy.sh ENV\"\n}\n\n"
                "deploy() {\n  echo \"deploying $1\"\n}\n\nmain \"$@\"\n")


@pytest.mark.parametrize("document, update, name, old, new", [
    (RUBY_CLI, "def run_stop\n  @store.stop(force: true)\nend\n", "cli.rb",
     "    def run_stop\n      @store.stop\n      0\n", "    def run_stop\n      @store.stop(force: true)\n"),
    (PHP_CONTROLLER, "public function store(StorePostRequest $r): RedirectResponse\n{\n"
                     "    $r->user()->posts()->create($r->validated());\n    return redirect()->route('posts.index');\n}\n",
     "PostController.php", "    public function store(Request $r): RedirectResponse\n    {\n",
     "    public function store(StorePostRequest $r): RedirectResponse\n    {\n"
     "        $r->user()->posts()->create($r->validated());\n"),
    (SHELL_SCRIPT, "deploy() {\n  echo \"deploying $1\" >&2\n  rsync -a build/ \"$1\":/srv/app\n}\n", "deploy.sh",
     "  echo \"deploying $1\"\n", "  echo \"deploying $1\" >&2\n  rsync -a build/ \"$1\":/srv/app\n"),
])
def test_ruby_php_and_shell_definitions_pasted_alone_replace_theirs_by_name(document, update, name, old, new):
    """Ruby, PHP (with or without ``<?php``) and shell scripts have grammars: a method or function pasted alone,
    at any indentation, replaces the one of its name."""
    merge = merge_update(document, update, name)
    assert merge.merged == document.replace(old, new) and merge.placement is None


def test_a_new_test_after_a_marker_is_not_a_rewrite_of_the_last_one():
    """Calls named by a string (routes, tests) name different things: a new ``router.patch("/:id")`` route
    after a marker goes after the file's ``router.delete("/:id")`` one, not over it."""
    document = ('router.get("/:id", (req, res) => {\n  res.json(find(req.params.id));\n});\n\n'
                'router.delete("/:id", (req, res) => {\n  remove(req.params.id);\n  res.status(204).end();\n});\n')
    update = ('// ... existing code ...\n\nrouter.patch("/:id", (req, res) => {\n  update(req.params.id, req.body);\n'
              '  res.status(204).end();\n});\n')
    assert merge_update(document, update, "users.ts").merged == document + update.split("...\n")[1]


def test_new_functions_go_at_the_end_where_the_answer_says_so_even_with_nothing_of_the_file_in_them():
    answer = ("Add these to the end of `tests/version.rs`:\n\n```rust tests/version.rs\n#[test]\nfn caret() {\n"
              "    assert!(v(\"1.4.2\").is_compatible_with(&v(\"1.2.0\")));\n}\n```\n")
    [block] = read_answer(answer).blocks
    assert block.after == ""
    document = "use semver::Version;\n\n#[test]\nfn parses() {\n    assert!(v(\"1.0.0\").major == 1);\n}\n"
    merged = merge_update(document, block.text, "version.rs", after=block.after).merged
    assert merged == document + "\n" + block.text
    with pytest.raises(UpdateError):  # said nowhere: nothing of it in the file may mean another file
        merge_update(document, block.text, "version.rs")


def test_a_section_shown_up_to_one_of_its_first_bullets_keeps_the_rest():
    """A changelog's ``### Changed`` shown with a new bullet and the first old one, and no marker: the section's
    other bullets stay (a snippet), where a section shown to its end would replace it whole."""
    document = ("# Changelog\n\n## Unreleased\n\n### Changed\n- Old first change.\n- Old second change.\n"
                "- Old third change.\n\n## 0.1.0\n\n- First release.\n")
    update = "### Changed\n- A new change.\n- Old first change.\n"
    assert merge_update(document, update, "CHANGELOG.md").merged == document.replace(
        "### Changed\n", "### Changed\n- A new change.\n")


def test_an_element_wrapped_in_a_condition_after_a_marker_rewrites_the_element():
    """``{items.length === 0 ? (<p/>) : (<ul>...)}`` holds the file's ``<ul>`` line: it is that list rewritten,
    not new JSX beside it, and the list it replaces counts as shown."""
    document = ("export function List({ items }) {\n  return (\n    <section>\n      <form>\n        <input />\n"
                "      </form>\n\n      <ul className=\"list\">\n        {items.map((i) => <li key={i}>{i}</li>)}\n"
                "      </ul>\n\n      <footer>done</footer>\n    </section>\n  );\n}\n")
    update = ("export function List({ items }) {\n  return (\n    <section>\n      {/* ... form unchanged ... */}\n\n"
              "      {items.length === 0 ? (\n        <p>Nothing.</p>\n      ) : (\n        <ul className=\"list\">\n"
              "          {items.map((i) => <li key={i}>{i}</li>)}\n        </ul>\n      )}\n\n"
              "      <footer>done</footer>\n    </section>\n  );\n}\n")
    merge = merge_update(document, update, "List.jsx")
    assert merge.merged == document.replace(
        "      <ul className=\"list\">\n        {items.map((i) => <li key={i}>{i}</li>)}\n      </ul>\n",
        update.split("unchanged ... */}\n\n")[1].split("\n\n")[0] + "\n") and not merge.unseen


KOTLIN_CONTROLLER = """package com.acme.users.api

import com.acme.users.service.UserService
import org.springframework.web.bind.annotation.PatchMapping

@RestController
class UserController(private val userService: UserService) {

    @PostMapping
    fun create(@RequestBody request: CreateUserRequest): UserResponse {
        val user = userService.register(request.email.trim(), request.displayName)
        return UserResponse.from(user)
    }

    @PatchMapping("/{id}")
    fun update(
        @PathVariable id: UUID,
        @RequestBody request: UpdateUserRequest,
    ): UserResponse {
        val user = userService.updateProfile(id, request.displayName)
        return UserResponse.from(user)
    }
}
"""


def test_kotlin_methods_shown_without_their_class_keep_the_bodies_their_markers_stand_for():
    """Methods shown after the imports without their class, each body elided by a marker, an annotation with
    arguments above one (read at the top level as an expression of its own): each signature is rewritten, each
    body kept, nothing appended after the class."""
    update = ("import com.acme.users.service.UserService\nimport jakarta.validation.Valid\n// ... existing code ...\n\n"
              "    @PostMapping\n    fun create(@Valid @RequestBody request: CreateUserRequest): UserResponse {\n"
              "        // ... existing code ...\n    }\n\n    @PatchMapping(\"/{id}\")\n    fun update(\n"
              "        @PathVariable id: UUID,\n        @Valid @RequestBody request: UpdateUserRequest,\n"
              "    ): UserResponse {\n        // ... existing code ...\n    }\n\n// ... existing code ...\n")
    want = KOTLIN_CONTROLLER.replace("import com.acme.users.service.UserService\n",
                                     "import com.acme.users.service.UserService\nimport jakarta.validation.Valid\n")
    want = want.replace("@RequestBody request", "@Valid @RequestBody request")
    assert merge_update(KOTLIN_CONTROLLER, update, "UserController.kt").merged == want


def test_a_dependency_added_after_a_shown_one_is_added_not_a_rewrite_of_the_next():
    """``implementation("...-validation")`` after ``...-web`` and before a marker: alike as text to the next
    line, ``...-data-jpa``, but another entry of the list, so it is added; a version changed is a rewrite."""
    document = ('dependencies {\n    implementation("org.springframework.boot:spring-boot-starter-web")\n'
                '    implementation("org.springframework.boot:spring-boot-starter-data-jpa")\n'
                '    implementation("org.springframework.boot:spring-boot-starter-actuator")\n}\n')
    added = '    implementation("org.springframework.boot:spring-boot-starter-validation")\n'
    update = ('dependencies {\n    implementation("org.springframework.boot:spring-boot-starter-web")\n' + added +
              '    // ... existing code ...\n}\n')
    want = document.replace('-web")\n', '-web")\n' + added)
    assert merge_update(document, update, "build.gradle.kts").merged == want
    assert merge_update(document, update).merged == want
    manifest = '[dependencies]\nserde = "1.0"\ntokio = { version = "1", features = ["full"] }\n'
    bumped = '[dependencies]\nserde = "1.0.200"\n# ... existing code ...\n'
    assert merge_update(manifest, bumped, "Cargo.toml").merged == manifest.replace('"1.0"', '"1.0.200"')


RAILS_MODEL = """class Article < ApplicationRecord
  belongs_to :author, class_name: "User"
  has_many :comments, dependent: :destroy

  scope :published, -> { where(status: "published") }
  scope :visible, -> { published.where(published_at: ..Time.current) }
  scope :recent, -> { order(published_at: :desc) }
  scope :search, ->(q) { where("title ILIKE ?", "%#{q}%") }

  def to_param
    slug
  end

  def publish!
    update!(status: "published", published_at: Time.current)
  end
end
"""


def test_a_new_ruby_scope_between_markers_goes_after_the_scopes_the_marker_stands_for():
    """``scope :recent`` shown, ``# ... other scopes ...``, a new scope, ``# ... rest of the model ...``: the
    first marker stands for the other scopes, and the new one goes after them, not at the class's end."""
    update = ("class Article < ApplicationRecord\n  # ... associations ...\n\n"
              "  scope :recent, -> { order(published_at: :desc) }\n  # ... other scopes ...\n\n"
              "  # Most-viewed articles of the last week.\n  scope :trending, -> { visible.order(views: :desc).limit(10) }\n\n"
              "  # ... rest of the model ...\nend\n")
    want = RAILS_MODEL.replace('"%#{q}%") }\n', '"%#{q}%") }\n\n  # Most-viewed articles of the last week.\n'
                               '  scope :trending, -> { visible.order(views: :desc).limit(10) }\n')
    assert merge_update(RAILS_MODEL, update, "article.rb").merged == want


def test_a_ruby_statement_rewritten_after_a_new_one_is_still_a_rewrite():
    """A new ``before_action`` shown before the one rewritten (a ``restore`` added to its list): the rewrite is
    found among the next few new statements, so the old one does not stay beside it."""
    document = ("class ArticlesController < ApplicationController\n  before_action :set_article, only: %i[show edit]\n"
                "  before_action :authorize_author!, only: %i[edit update destroy]\n\n  def index\n"
                "    @articles = Article.all\n  end\n\n  def destroy\n    @article.destroy\n  end\nend\n")
    update = ("class ArticlesController < ApplicationController\n  before_action :set_article, only: %i[show edit]\n"
              "  before_action :set_discarded_article, only: :restore\n"
              "  before_action :authorize_author!, only: %i[edit update destroy restore]\n\n  # ... index unchanged ...\n\n"
              "  def destroy\n    @article.discard!\n  end\nend\n")
    want = document.replace("  before_action :authorize_author!, only: %i[edit update destroy]\n",
                            "  before_action :set_discarded_article, only: :restore\n"
                            "  before_action :authorize_author!, only: %i[edit update destroy restore]\n")
    want = want.replace("@article.destroy", "@article.discard!")
    assert merge_update(document, update, "articles_controller.rb").merged == want


RAILS_CONTROLLER = """class ArticlesController < ApplicationController
  PER_PAGE = 12

  before_action :authenticate_user!, except: %i[index show]
  after_action :verify_policy_scoped, only: :index

  # GET /articles
  def index
    @articles = policy_scope(Article).page(params[:page]).per(PER_PAGE)
  end

  # GET /articles/:slug
  def show
    @comments = @article.comments.order(:created_at)
  end
end
"""


def test_a_class_s_first_lines_shown_without_its_end_keep_the_rest_of_the_class():
    """The class line, a new constant and rewritten filters, and no ``end``: the update shows the class's head,
    not the whole class, so its methods stay (they were removed, and counted as shown)."""
    update = ("class ArticlesController < ApplicationController\n  PER_PAGE = 12\n  WINDOWS = { \"24h\" => 1.day }.freeze\n\n"
              "  before_action :authenticate_user!, except: %i[index show trending]\n"
              "  after_action :verify_policy_scoped, only: %i[index trending]\n")
    want = RAILS_CONTROLLER.replace("  PER_PAGE = 12\n", "  PER_PAGE = 12\n  WINDOWS = { \"24h\" => 1.day }.freeze\n")
    want = want.replace("%i[index show]\n", "%i[index show trending]\n").replace("only: :index", "only: %i[index trending]")
    merge = merge_update(RAILS_CONTROLLER, update, "articles_controller.rb")
    assert merge.merged == want and not merge.unseen


def test_a_method_pasted_alone_at_its_class_s_indentation_goes_after_the_one_the_answer_names():
    update = "  # GET /articles/trending\n  def trending\n    @articles = policy_scope(Article).trending\n  end\n"
    merged = merge_update(RAILS_CONTROLLER, update, "articles_controller.rb", after="index").merged
    assert merged == RAILS_CONTROLLER.replace("  end\n\n  # GET /articles/:slug", "  end\n\n" + update +
                                              "\n  # GET /articles/:slug")


def test_a_new_definition_after_a_marker_that_lists_what_it_elides_goes_after_the_last_one_listed():
    """``// ... (useEffect and `remaining` remain the same)``, a new ``visibleTodos``, then a marker listing the
    handlers: the first marker stands for the units it names, and the new code goes after them, before the
    handlers (not after everything the component holds)."""
    document = ("export default function TodoList() {\n  const [todos, setTodos] = useState([]);\n\n"
                "  useEffect(() => {\n    save(todos);\n  }, [todos]);\n\n"
                "  const remaining = useMemo(() => todos.filter((t) => !t.done).length, [todos]);\n\n"
                "  function handleSubmit(event) {\n    event.preventDefault();\n  }\n\n"
                "  function clearCompleted() {\n    setTodos((prev) => prev.filter((t) => !t.done));\n  }\n\n"
                "  return <ul>{todos.map(render)}</ul>;\n}\n")
    new = "  const visible = useMemo(() => todos.filter(matches), [todos]);\n"
    update = ("export default function TodoList() {\n  const [todos, setTodos] = useState([]);\n\n"
              "  // ... (useEffect and `remaining` remain the same)\n\n" + new + "\n"
              "  // ... (handleSubmit and clearCompleted remain the same)\n\n"
              "  return <ul>{visible.map(render)}</ul>;\n}\n")
    want = document.replace("[todos]);\n\n  function handleSubmit", "[todos]);\n\n" + new + "\n  function handleSubmit")
    want = want.replace("{todos.map(render)}", "{visible.map(render)}")
    assert merge_update(document, update, "TodoList.jsx").merged == want


def test_a_test_added_at_the_end_of_the_tests_module_goes_inside_it():
    """"Add this test at the end of the `tests` module": pasted alone at the module's indentation, it goes after
    the module's last test, before its closing brace (not after the file's end, nor refused)."""
    document = ("pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
                "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n")
    answer = ("Add this test at the end of the `tests` module in `src/lib.rs`:\n\n```rust\n// src/lib.rs\n"
              "    #[test]\n    fn adds_negatives() {\n        assert_eq!(add(-1, -2), -3);\n    }\n```\n")
    [block] = read_answer(answer).blocks
    merged = merge_update(document, block.text, "lib.rs", after=block.after).merged
    assert merged == document.replace("        assert_eq!(add(1, 2), 3);\n    }\n", "        assert_eq!(add(1, 2), 3);\n    }\n\n"
                                      "    #[test]\n    fn adds_negatives() {\n        assert_eq!(add(-1, -2), -3);\n    }\n")


def test_gtest_cases_are_told_apart_by_their_arguments():
    """``TEST(PolygonTest, ContainsPoint)`` appended at the end: every test is the ``TEST`` macro, so its name is
    its arguments; it was read as the file's last ``TEST`` rewritten, and replaced it."""
    document = ("#include <gtest/gtest.h>\n\nTEST(PolygonTest, Area) {\n    EXPECT_EQ(unitSquare().area(), 1.0);\n}\n\n"
                "TEST(PolygonTest, Convexity) {\n    EXPECT_TRUE(unitSquare().isConvex());\n}\n")
    update = "TEST(PolygonTest, ContainsPoint) {\n    EXPECT_TRUE(unitSquare().contains({0.5, 0.5}));\n}\n"
    assert merge_update(document, update, "polygon_test.cpp", after="").merged == document + "\n" + update


def test_a_statement_made_an_arm_of_a_new_match_is_that_match_s_to_replace():
    """``print_text(&summary, cli.top);`` becomes the ``Text`` arm of a new ``match`` shown after a marker and
    before the function's unchanged ``Ok(())``: the statement goes, not stays above the match."""
    document = ("fn main() -> Result<()> {\n    let cli = Cli::parse();\n    let summary = read(&cli)?;\n\n"
                "    print_text(&summary, cli.top);\n    Ok(())\n}\n\nfn read(cli: &Cli) -> Result<Summary> {\n"
                "    Ok(Summary::default())\n}\n")
    new = ("    match cli.format {\n        OutputFormat::Text => print_text(&summary, cli.top),\n"
           "        OutputFormat::Json => println!(\"{}\", serde_json::to_string(&summary)?),\n    }\n")
    update = "fn main() -> Result<()> {\n    // ... reading input unchanged ...\n\n" + new + "    Ok(())\n}\n"
    assert merge_update(document, update, "main.rs").merged == document.replace(
        "    print_text(&summary, cli.top);\n", new)


# -- Swift, Scala and Elixir, read by their grammars

NOTE_SWIFT = """import Foundation

struct Note: Identifiable, Codable {
    let id: UUID
    var title: String

    var isEmpty: Bool {
        title.isEmpty
    }
}

extension Note {
    static let sample = Note(id: UUID(), title: "Groceries")
}

final class NotesStore {
    private(set) var notes: [Note] = []

    func add(_ title: String) {
        notes.append(Note(id: UUID(), title: title))
    }

    func remove(_ note: Note) {
        notes.removeAll { $0.id == note.id }
    }
}
"""


def test_swift_elixir_and_scala_files_are_read_by_their_grammars():
    assert [language_of(name) for name in ("Note.swift", "loans.ex", "loans_test.exs", "Routes.scala")] == \
        ["swift", "elixir", "elixir", "scala"]
    assert error_count(NOTE_SWIFT, "swift") == 0
    assert error_count(LOANS_EX, "elixir") == 0
    assert error_count(ROUTES_SCALA, "scala") == 0


def _keys(text: str, language: str) -> list:
    lines = text.splitlines(True)
    units, _ = parse_units(text, language, lines)
    out, stack = [], list(units)
    while stack:
        unit = stack.pop(0)
        out.append((unit.start, unit.key))
        stack = list(unit.body or []) + stack
    return out


def test_the_grammars_name_what_an_update_rewrites_by_name():
    swift = dict(_keys(NOTE_SWIFT, "swift"))
    assert swift[2] == ("type", "Note") and swift[11] == ("type", "extension Note")  # not one type twice
    assert swift[18] == ("function", "add") and swift[16] == ("variable", "notes")
    elixir = _keys(LOANS_EX, "elixir")  # a definition with its ``@doc`` above it, by its name
    assert (5, ("function", "list_loans")) in elixir and (10, ("function", "overdue?")) in elixir
    assert (13, ("function", "today")) in elixir and (2, ("import", "Ecto.Query")) in elixir
    scala = dict(_keys(ROUTES_SCALA, "scala"))  # ``scala.concurrent.Future`` is not ``scala.concurrent``'s only
    assert scala[2] != scala[3] and scala[6] == ("function", "getBooks") and scala[9] == ("variable", "routes")


def test_a_swift_method_pasted_alone_replaces_its_namesake_in_its_class():
    update = """    func add(_ title: String) {
        let trimmed = title.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        notes.append(Note(id: UUID(), title: trimmed))
    }
"""
    merged = merge_update(NOTE_SWIFT, update, "Note.swift").merged
    assert merged == NOTE_SWIFT.replace("""        notes.append(Note(id: UUID(), title: title))
""", """        let trimmed = title.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        notes.append(Note(id: UUID(), title: trimmed))
""")


def test_a_second_swift_extension_of_a_type_is_added_not_written_over_the_first():
    update = """// ... existing code ...

extension Note {
    var preview: String {
        String(title.prefix(40))
    }
}
"""
    merged = merge_update(NOTE_SWIFT, update, "Note.swift").merged
    assert merged == NOTE_SWIFT + """
extension Note {
    var preview: String {
        String(title.prefix(40))
    }
}
"""


LOANS_EX = """defmodule Library.Loans do
  @moduledoc "Loans of books to members."
  import Ecto.Query
  alias Library.{Loan, Repo}

  @doc "The member's loans, newest first."
  def list_loans(member) do
    Repo.all(from l in Loan, where: l.member_id == ^member.id, order_by: [desc: l.inserted_at])
  end

  @doc "Whether a loan is past its due date."
  def overdue?(%Loan{due_on: due_on}), do: Date.compare(due_on, Date.utc_today()) == :lt

  defp today, do: Date.utc_today()
end
"""


def test_an_elixir_function_shown_with_its_doc_replaces_the_one_of_its_name_and_its_doc():
    update = """  @doc \"\"\"
  The member's loans, newest first; `:open` only those not returned.
  \"\"\"
  def list_loans(member, opts \\\\ []) do
    query = from l in Loan, where: l.member_id == ^member.id, order_by: [desc: l.inserted_at]
    query = if opts[:open], do: where(query, [l], is_nil(l.returned_on)), else: query
    Repo.all(query)
  end
"""
    merged = merge_update(LOANS_EX, update, "lib/library/loans.ex").merged
    assert merged == LOANS_EX.replace("""  @doc "The member's loans, newest first."
  def list_loans(member) do
    Repo.all(from l in Loan, where: l.member_id == ^member.id, order_by: [desc: l.inserted_at])
  end
""", update)


ROUTES_SCALA = """package bookstore

import scala.concurrent.Future
import scala.concurrent.duration._

class BookRoutes(registry: BookRegistry) {
  def getBooks(): Future[Books] = registry.ask(GetBooks)
  def getBook(id: String): Future[Option[Book]] = registry.ask(GetBook(id, _))

  val routes: Route =
    pathPrefix("books") {
      get {
        complete(getBooks())
      }
    }
}
"""


def test_a_scala_one_line_def_added_below_a_shown_one_keeps_the_file_s_spacing():
    update = """  def getBook(id: String): Future[Option[Book]] = registry.ask(GetBook(id, _))
  def deleteBook(id: String): Future[Done] = registry.ask(DeleteBook(id, _))
"""
    merged = merge_update(ROUTES_SCALA, update, "BookRoutes.scala").merged
    assert merged == ROUTES_SCALA.replace(update.splitlines(True)[0], update)


def test_scala_imports_of_one_package_are_not_one_import_rewritten():
    update = """import scala.concurrent.Future
import scala.concurrent.ExecutionContext
import scala.concurrent.duration._
"""
    merged = merge_update(ROUTES_SCALA, update, "BookRoutes.scala").merged
    assert merged == ROUTES_SCALA.replace("import scala.concurrent.duration._\n", update.splitlines(True)[1] +
                                          "import scala.concurrent.duration._\n")


ERRORS_SWIFT = """public enum InventoryError: Error {
    case itemNotFound(String)
    case insufficientStock(available: Int)
}

extension InventoryError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .itemNotFound(let sku):
            return "No item with SKU \\(sku)"
        case .insufficientStock(let available):
            return "Only \\(available) in stock"
        }
    }
}
"""


def test_a_new_swift_case_after_a_marker_for_the_switch_s_cases_goes_after_them():
    update = """extension InventoryError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        // ... existing cases ...
        case .invalidQuantity(let quantity):
            return "Quantity must be positive, got \\(quantity)"
        }
    }
}
"""
    merged = merge_update(ERRORS_SWIFT, update, "Item.swift").merged
    assert merged == ERRORS_SWIFT.replace("""            return "Only \\(available) in stock"
""", """            return "Only \\(available) in stock"
        case .invalidQuantity(let quantity):
            return "Quantity must be positive, got \\(quantity)"
""")


def test_a_new_elixir_clause_above_the_one_shown_with_a_marker_is_added_not_written_over_it():
    document = """defmodule ShelfWeb.LoanController do
  use ShelfWeb, :controller

  def index(conn, params) do
    loans = Lending.list_loans(member_id: params["member_id"])
    render(conn, :index, loans: loans)
  end

  def show(conn, %{"id" => id}) do
    loan = Lending.get_loan!(id)
    render(conn, :show, loan: loan)
  end

  def return(conn, %{"id" => id}) do
    loan = Lending.get_loan!(id)

    case Lending.return_book(loan) do
      {:ok, loan} -> render(conn, :show, loan: loan)
      {:error, :already_returned} -> conn |> put_status(:conflict) |> json(%{error: "already returned"})
    end
  end
end
"""
    update = """  def index(conn, %{"status" => "overdue"}) do
    loans = Lending.list_overdue_loans()
    render(conn, :index, loans: loans)
  end

  def index(conn, params) do
    # ... unchanged ...
  end
"""
    merged = merge_update(document, update, "loan_controller.ex").merged
    assert merged == document.replace("  def index(conn, params) do\n", update.split("\n\n")[0] + "\n\n" +
                                      "  def index(conn, params) do\n")


def test_a_new_line_before_a_marker_that_is_one_more_of_a_series_the_update_adds_is_new_not_a_rewrite():
    """Under each field a ``{fieldErrors.x && ...}`` line: the last, right before the marker, resembles the
    file's ``{error && ...}`` line the marker keeps, but it resembles the other new ones more."""
    document = """export default function TodoForm() {
  return (
    <form onSubmit={handleSubmit}>
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} />
      </label>
      <label>
        Due date
        <input type="date" value={dueDate} onChange={(e) => setDueDate(e.target.value)} />
      </label>
      {error && <p className="error">{error}</p>}
      <button type="submit">Add todo</button>
    </form>
  );
}
"""
    update = document.replace("      </label>\n      <label>\n", "      </label>\n      {fieldErrors.title && <p "
                              "className=\"field-error\">{fieldErrors.title[0]}</p>}\n      <label>\n").replace(
        '      {error && <p className="error">{error}</p>}\n      <button type="submit">Add todo</button>\n',
        '      {fieldErrors.dueDate && <p className="field-error">{fieldErrors.dueDate[0]}</p>}\n'
        '      {/* ... existing code ... */}\n')
    merged = merge_update(document, update, "TodoForm.tsx").merged
    assert merged == update.replace("      {/* ... existing code ... */}\n", """      {error && <p className="error">{error}</p>}
      <button type="submit">Add todo</button>
""")


def test_a_doc_comment_moved_inside_a_group_with_its_declaration_goes_with_it():
    document = """package store

// ErrNotFound is returned when a user does not exist.
var ErrNotFound = errors.New("store: not found")

func find() {}
"""
    update = """var (
	// ErrNotFound is returned when a user does not exist or has been deleted.
	ErrNotFound = errors.New("store: not found")
	// ErrEmailTaken is returned when the email belongs to another account.
	ErrEmailTaken = errors.New("store: email already taken")
)
"""
    merged = merge_update(document, update, "users.go").merged
    assert merged == document.replace(document.split("\n\n")[1] + "\n", update)


SPEC_SCALA = """package weather

import weather.config.WeatherApiConfig
import munit.FunSuite

class WeatherClientSpec extends FunSuite {

  private val okBody = \"\"\"{"name":"Oslo"}\"\"\"

  test("current returns parsed weather on 200") {
    val backend = SttpBackendStub.synchronous.whenAnyRequest.thenRespond(okBody)
    assertEquals(new WeatherClient(config, backend).current("Oslo").isRight, true)
  }

  test("current maps 500 to UpstreamError") {
    val backend = SttpBackendStub.synchronous.whenAnyRequest.thenRespond("boom", StatusCode.InternalServerError)
    assertEquals(new WeatherClient(config, backend).current("Oslo"), Left(UpstreamError(500, "boom")))
  }
}
"""


def test_a_marker_naming_one_unit_and_no_marker_after_it_keeps_every_unit_it_stands_for():
    """``// ... okBody and the first test are unchanged ...`` names ``okBody``: new tests after it go after
    all the file's, not after ``okBody`` with the tests past it deleted."""
    update = """class WeatherClientSpec extends FunSuite {

  // ... okBody and the first tests are unchanged ...

  test("current retries a 503") {
    val backend = SttpBackendStub.synchronous.whenAnyRequest.thenRespondCyclic(unavailable, ok)
    assertEquals(new WeatherClient(config, backend, noSleep).current("Oslo").isRight, true)
  }
}
"""
    want = SPEC_SCALA.replace("  }\n}\n", "  }\n\n" + update.split("\n\n", 2)[2])
    assert merge_update(SPEC_SCALA, update, "WeatherClientSpec.scala").merged == want
    assert _by_blocks(SPEC_SCALA, update, "scala") == want  # (the syntax's reading itself, not only the lines')


def test_a_test_whose_title_says_more_of_the_same_after_a_marker_is_that_test_renamed():
    new_test = """  test("current maps 500 to UpstreamError after exhausting retries") {
    val backend = SttpBackendStub.synchronous.whenAnyRequest.thenRespond("boom", StatusCode.InternalServerError)
    assertEquals(new WeatherClient(config, backend, noSleep).current("Oslo"), Left(UpstreamError(500, "boom")))
  }"""
    update = "class WeatherClientSpec extends FunSuite {\n\n  // ... okBody and the first tests are unchanged ...\n\n" \
        + new_test + "\n}\n"
    merged = merge_update(SPEC_SCALA, update, "WeatherClientSpec.scala").merged
    old_test = SPEC_SCALA.split("\n\n")[5].removesuffix("\n}\n")
    assert merged == SPEC_SCALA.replace(old_test, new_test)


def test_new_members_below_a_leading_marker_with_nothing_of_the_file_go_inside_its_one_class():
    """Indented new code after ``// ... the other tests ...``: at the end of the class, not after its ``}``."""
    new_test = """  test("current retries a 503") {
    assertEquals(retried, true)
  }
"""
    merged = merge_update(SPEC_SCALA, "  // ... the other tests ...\n\n" + new_test, "WeatherClientSpec.scala").merged
    assert merged == SPEC_SCALA.removesuffix("}\n") + "\n" + new_test + "}\n"


def test_an_import_given_one_more_name_in_braces_is_the_file_s_import_rewritten():
    update = """import weather.config.{RetryConfig, WeatherApiConfig}
import munit.FunSuite
"""
    merged = merge_update(SPEC_SCALA, update, "WeatherClientSpec.scala").merged
    assert merged == SPEC_SCALA.replace("import weather.config.WeatherApiConfig\n", update.splitlines(True)[0])


def test_a_constant_rewritten_above_a_marker_that_lists_other_members_is_rewritten_not_doubled():
    document = """module Tally
  class CLI
    COMMANDS = %w[start stop report].freeze

    def initialize(argv)
      @argv = argv
    end

    def run
      send("run_#{@argv.first}")
    end

    def run_report
      0
    end
  end
end
"""
    update = """module Tally
  class CLI
    COMMANDS = %w[start stop report export].freeze

    # ... initialize, run and the existing run_* methods stay as they are ...
    def run_export
      1
    end
  end
end
"""
    want = document.replace("report].freeze", "report export].freeze").replace(
        "    def run_report\n      0\n    end\n", "    def run_report\n      0\n    end\n\n    def run_export\n      1\n    end\n")
    assert merge_update(document, update, "lib/tally/cli.rb").merged == want
    assert _by_blocks(document, update, "ruby") == want


def _by_blocks(document: str, update: str, language: str) -> str | None:
    """The merge the syntax makes alone (``merge_update`` weighs it against the lines')."""
    from cad_lsp.program import blocks
    from cad_lsp.program.update import _lines_of_block, marker_lines, split_lines
    merge = blocks.merge_by_blocks(split_lines(document), split_lines(update), language, marker_lines, _lines_of_block)
    return None if merge is None else "".join(piece.text for piece in merge.pieces)


def test_an_update_that_starts_inside_a_doc_comment_keeps_the_doc_lines_above_it():
    document = """package main

import "fmt"

// Run deploys the application.
//
// Usage: deploy [-e ENV] [-t TAG]
func Run(args []string) error {
	fmt.Println(args)
	return nil
}
"""
    update = """// Usage: deploy [-e ENV] [-t TAG] [--dry-run]
func Run(args []string) error {
	fmt.Println(args, dryRun)
	return nil
}
"""
    want = document.split("// Usage")[0] + update
    assert merge_update(document, update, "main.go").merged == want
    assert _by_blocks(document, update, "go") == want


def test_a_lone_comment_mark_shown_above_a_placed_line_is_the_one_above_it_not_the_file_s_first():
    """``#`` after a rewritten usage line and above ``set -euo pipefail``: the file's header has three ``#``
    lines, and taking the first of them deleted the title lines between, unseen."""
    document = """#!/usr/bin/env bash
#
# Deploy the application to a remote host.
#
# Usage: scripts/deploy.sh [-e ENV] [-t TAG]
#
set -euo pipefail

ENVIRONMENT="staging"
"""
    update = """# Usage: scripts/deploy.sh [-e ENV] [-t TAG] [--dry-run]
#
set -euo pipefail

ENVIRONMENT="staging"
DRY_RUN=0
"""
    want = document.replace("[-t TAG]\n", "[-t TAG] [--dry-run]\n") + "DRY_RUN=0\n"
    assert merge_update(document, update, "scripts/deploy.sh").merged == want
    assert _by_blocks(document, update, "bash") == want


def test_functions_after_a_marker_down_to_the_namespace_s_closing_line_rewrite_the_namespace_s_functions():
    """``// ... includes and constructor unchanged ...``, then every function, then ``}  // namespace
    ratelimit``: read inside the file's namespace, the functions replace theirs by name, a renamed one replaces
    the one it was (it is no longer shown), and the update no longer fails to parse (a stray ``}``)."""
    document = """#include "token_bucket.h"

namespace ratelimit {

TokenBucket::TokenBucket(double capacity) : capacity_(capacity), tokens_(capacity) {}

bool TokenBucket::tryAcquire() {
    refill(Clock::now());
    return take(1.0);
}

void TokenBucket::refill(Clock::time_point now) {
    tokens_ = capacity_;
}

}  // namespace ratelimit
"""
    update = """// ... includes and constructor unchanged ...

bool TokenBucket::tryAcquire(double tokens) {
    std::lock_guard<std::mutex> lock(mutex_);
    refillLocked(Clock::now());
    return take(tokens);
}

void TokenBucket::refillLocked(Clock::time_point now) {
    tokens_ = capacity_;
}

}  // namespace ratelimit
"""
    want = document.split("bool TokenBucket")[0] + update.split("...\n\n")[1]
    assert merge_update(document, update, "src/token_bucket.cpp").merged == want
    assert _by_blocks(document, update, "cpp") == want


def test_new_includes_a_marker_and_new_tests_down_to_the_namespace_s_end_keep_what_lies_between():
    document = """#include "token_bucket.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace std::chrono_literals;

namespace {

TEST(TokenBucketTest, StartsFull) {
    EXPECT_EQ(TokenBucket(3).available(), 3);
}

}  // namespace
"""
    update = """#include "token_bucket.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

// ... existing tests ...

TEST(TokenBucketTest, SharedAcrossThreads) {
    std::thread worker([] {});
    worker.join();
}

}  // namespace
"""
    want = document.replace("#include <chrono>\n", "#include <chrono>\n#include <thread>\n").replace(
        "}\n\n}  // namespace\n", "}\n\n" + update.split("...\n\n")[1])
    assert merge_update(document, update, "tests/token_bucket_test.cpp").merged == want
    assert _by_blocks(document, update, "cpp") == want


def test_an_update_that_starts_at_a_method_s_last_attribute_keeps_the_attributes_above_it():
    document = """public class ForecastController : ControllerBase
{
    /// <summary>Returns the forecast for a city.</summary>
    [HttpGet("{city}")]
    [ProducesResponseType(StatusCodes.Status200OK)]
    [ProducesResponseType(StatusCodes.Status404NotFound)]
    public async Task<ActionResult> Get(string city)
    {
        var forecasts = await _weather.GetForecastAsync(city);
        return Ok(forecasts);
    }
}
"""
    update = """    [ProducesResponseType(StatusCodes.Status404NotFound)]
    [ProducesResponseType(StatusCodes.Status503ServiceUnavailable)]
    public async Task<ActionResult> Get(string city)
    {
        try
        {
            return Ok(await _weather.GetForecastAsync(city));
        }
        catch (WeatherUnavailableException)
        {
            return Problem(statusCode: StatusCodes.Status503ServiceUnavailable);
        }
    }
"""
    want = document.split("    [ProducesResponseType(StatusCodes.Status404NotFound)]")[0] + update + "}\n"
    assert merge_update(document, update, "Controllers/ForecastController.cs").merged == want
    assert _by_blocks(document, update, "csharp") == want


def test_a_blank_line_the_update_shows_between_new_code_and_a_marker_is_kept_where_the_file_had_none():
    document = """int main() {
    Counter counter;
    if (path.empty()) {
        counter.consume(std::cin);
    }
    return 0;
}
"""
    update = """int main() {
    Counter counter;
    if (!stopwords.empty()) {
        counter.set_stopwords(stopwords);
    }

    // ... reading the input is unchanged ...
}
"""
    want = document.replace("    Counter counter;\n", "    Counter counter;\n" + update.split("counter;\n")[1].split("    //")[0])
    assert merge_update(document, update, "src/main.cpp").merged == want


def test_a_method_added_after_the_one_an_answer_names_is_set_off_as_the_class_sets_off_its_members():
    document = '''from dataclasses import asdict, dataclass


@dataclass
class Item:
    sku: str
    price: float = 0.0

    @property
    def total_value(self) -> float:
        return self.price


class Store:
    pass
'''
    update = '''    def to_dict(self) -> dict:
        return asdict(self)
'''
    want = document.replace("        return self.price\n", "        return self.price\n\n" + update)
    assert merge_update(document, update, "store.py", after="total_value").merged == want


def test_a_new_function_holding_a_marker_is_left_to_the_lines_which_know_what_it_stands_for():
    """``fn parse_token`` is new, and its ``// ... digits / unit parsing unchanged ...`` stands for the old
    ``parse``'s lines: the syntax, which pairs nothing with it, wrote the marker's lines nowhere."""
    document = """pub fn parse(input: &str) -> Result<u64, Error> {
    let split = input.find(|c: char| !c.is_ascii_digit()).ok_or(Error::MissingUnit)?;
    let (digits, unit) = input.split_at(split);
    let value: u64 = digits.parse().map_err(|_| Error::InvalidNumber)?;
    Ok(value * factor(unit)?)
}
"""
    update = """pub fn parse(input: &str) -> Result<u64, Error> {
    input.split(',').map(parse_token).sum()
}

fn parse_token(input: &str) -> Result<u64, Error> {
    let split = input.find(|c: char| !c.is_ascii_digit()).ok_or(Error::MissingUnit)?;
    // ... digits / unit parsing unchanged ...
    Ok(value * factor(unit)?)
}
"""
    assert _by_blocks(document, update, "rust") is None
    merged = merge_update(document, update, "src/lib.rs").merged
    assert "let (digits, unit) = input.split_at(split);" in merged and "// ..." not in merged


def test_a_route_whose_lambda_gains_a_parameter_is_rewritten_not_read_as_another_match_arm():
    """``todos.MapGet("/", (bool? done, TodoStore store) => ...)`` over ``(TodoStore store) =>``: the ``=>`` is
    a lambda's inside a call, not a ``match`` arm of another pattern, and the route is rewritten."""
    document = """var app = builder.Build();

var todos = app.MapGroup("/todos");

todos.MapGet("/", (TodoStore store) => Results.Ok(store.All()));

todos.MapDelete("/{id:int}", (int id, TodoStore store) => Results.NoContent());

app.Run();
"""
    update = """// ... existing code ...

var todos = app.MapGroup("/todos");

todos.MapGet("/", (bool? done, TodoStore store) => Results.Ok(store.All(done)));

// ... existing code ...
"""
    want = document.replace("(TodoStore store) => Results.Ok(store.All())", "(bool? done, TodoStore store) => "
                            "Results.Ok(store.All(done))")
    assert merge_update(document, update, "Program.cs").merged == want
    assert _by_blocks(document, update, "csharp") == want


def test_ruby_methods_shown_with_the_end_of_their_module_replace_and_join_its_methods():
    """``def post_json`` rewritten, a new ``def auth_headers`` and the module's ``end``: Ruby's grammar reads the
    ``end`` as a statement, and the methods went to the file's last block (``RSpec.configure``)."""
    document = """module AppHelpers
  def app
    NotesApp
  end

  def post_json(path, payload)
    post path, payload.to_json
  end
end

RSpec.configure do |config|
  config.include AppHelpers
end
"""
    update = """  def post_json(path, payload, headers = {})
    post path, payload.to_json, headers
  end

  def auth_headers(key = 'test-key')
    { 'HTTP_X_API_KEY' => key }
  end
end
"""
    want = document.replace("""  def post_json(path, payload)
    post path, payload.to_json
  end
end
""", update)
    assert merge_update(document, update, "spec/spec_helper.rb").merged == want


def test_a_new_type_shown_right_above_the_function_it_rewrites_goes_right_above_it():
    document = """#pragma once

#include <string>
#include <vector>

namespace strutil {

inline std::string trim(std::string_view s) {
    return std::string(s);
}

inline std::vector<std::string> split(std::string_view s, char sep) {
    return {std::string(s)};
}

}  // namespace strutil
"""
    update = """enum class SplitMode { KeepEmpty, SkipEmpty };

inline std::vector<std::string> split(std::string_view s, char sep, SplitMode mode = SplitMode::KeepEmpty) {
    return {std::string(s)};
}
"""
    want = document.replace("""inline std::vector<std::string> split(std::string_view s, char sep) {
    return {std::string(s)};
}
""", update)
    assert merge_update(document, update, "include/strutil.hpp").merged == want
    assert _by_blocks(document, update, "cpp") == want


def test_a_new_type_whose_method_shares_a_name_with_another_type_s_is_added_at_the_end():
    """``struct UpdateTodoRequest`` with its own ``static func validations``: new, though the file's
    ``CreateTodoRequest`` has a ``validations`` too (read as that method moved into a new type, it was refused)."""
    document = """import Vapor

struct CreateTodoRequest: Content, Validatable {
    var title: String

    static func validations(_ validations: inout Validations) {
        validations.add("title", as: String.self, is: !.empty)
    }
}
"""
    update = """struct UpdateTodoRequest: Content, Validatable {
    var title: String?

    static func validations(_ validations: inout Validations) {
        validations.add("title", as: String.self, is: !.empty, required: false)
    }
}
"""
    assert merge_update(document, update, "Sources/App/Models/Todo.swift").merged == document + "\n" + update
    assert _by_blocks(document, update, "swift") == document + "\n" + update


def test_ruby_describe_blocks_keep_their_examples_behind_a_marker():
    """Ruby's ``describe ".format" do`` blocks are placed by lines (Elixir's ``do`` blocks are read by syntax):
    read as bodies, the examples behind ``# ... existing examples ...`` went."""
    document = """RSpec.describe MoneyFmt do
  describe ".format" do
    it "formats US dollars" do
      expect(described_class.format(123_456, "USD")).to eq("$1,234.56")
    end

    it "rejects non-integer amounts" do
      expect { described_class.format(1.5, "USD") }.to raise_error(ArgumentError)
    end
  end
end
"""
    update = """RSpec.describe MoneyFmt do
  describe ".format" do
    # ... existing examples ...

    it "formats negatives in accounting style" do
      expect(described_class.format(-123_456, "USD", negative: :parentheses)).to eq("($1,234.56)")
    end
  end
end
"""
    want = document.replace("    end\n  end\nend\n", "    end\n\n" + update.split("...\n\n")[1])
    assert merge_update(document, update, "spec/money_fmt_spec.rb").merged == want
    [unit], _ = parse_units(document, "ruby", document.splitlines(True))
    assert unit.body is None  # (lines place what a Ruby ``do`` block holds)


POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
    <modelVersion>4.0.0</modelVersion>
    <properties>
        <maven.compiler.release>17</maven.compiler.release>
    </properties>
    <dependencies>
        <dependency>
            <groupId>org.springframework.boot</groupId>
            <artifactId>spring-boot-starter-web</artifactId>
        </dependency>

        <dependency>
            <groupId>org.junit.jupiter</groupId>
            <artifactId>junit-jupiter-engine</artifactId>
            <version>${junit.version}</version>
            <scope>test</scope>
        </dependency>
    </dependencies>
</project>
"""


def test_a_new_maven_dependency_after_a_marker_is_added_not_written_over_the_last_one():
    """XML by its grammar: a ``<dependency>`` after ``<!-- ... existing dependencies ... -->`` goes at the end of
    ``<dependencies>``; read by lines, its ``<groupId>`` and ``<version>`` matched the last dependency's and its
    ``<artifactId>`` replaced that one's."""
    new = ("        <dependency>\n            <groupId>org.junit.jupiter</groupId>\n"
           "            <artifactId>junit-jupiter-params</artifactId>\n            <version>${junit.version}</version>\n"
           "            <scope>test</scope>\n        </dependency>\n")
    update = "    <dependencies>\n        <!-- ... existing dependencies ... -->\n" + new + "    </dependencies>\n"
    want = POM.replace("    </dependencies>\n", "\n" + new + "    </dependencies>\n")  # (set off as the file's last)
    assert merge_update(POM, update, "pom.xml").merged == want


def test_a_new_xml_element_shown_after_one_of_the_file_s_goes_right_after_it():
    """Two ``<dependency>`` elements side by side, the first the file's (named by its ``<artifactId>``), the second
    new: the new one goes after the first, and the file's next dependency stays."""
    new = ("        <dependency>\n            <groupId>org.springframework.boot</groupId>\n"
           "            <artifactId>spring-boot-starter-validation</artifactId>\n        </dependency>\n")
    update = ("        <dependency>\n            <groupId>org.springframework.boot</groupId>\n"
              "            <artifactId>spring-boot-starter-web</artifactId>\n        </dependency>\n" + new)
    want = POM.replace("</dependency>\n\n", "</dependency>\n" + new + "\n", 1)
    assert merge_update(POM, update, "pom.xml").merged == want
    assert parse_units(POM, "xml", POM.splitlines(True))[1] == 0


def test_a_new_method_shown_after_a_nested_one_with_the_imports_goes_in_its_class():
    """A PHP update shows the file's imports plus one new, a marker, then ``findPublished`` (its body a marker) and a
    new ``findPublishedPage`` right after it: the new method goes after ``findPublished`` in the class, not after
    the class's closing brace, and ``findPublished``'s body stays."""
    document = ("<?php\n\nnamespace App\\Repository;\n\nuse App\\Entity\\Article;\nuse Doctrine\\Persistence\\ManagerRegistry;\n\n"
                "class ArticleRepository extends ServiceEntityRepository\n{\n"
                "    public function findPublished(): array\n    {\n        return $this->createQueryBuilder('a')\n"
                "            ->andWhere('a.publishedAt IS NOT NULL')\n            ->orderBy('a.publishedAt', 'DESC')\n"
                "            ->getQuery()\n            ->getResult();\n    }\n\n"
                "    public function countAll(): int\n    {\n        return 0;\n    }\n}\n")
    new = ("    public function findPublishedPage(int $page): Paginator\n    {\n"
           "        $query = $this->createQueryBuilder('a')\n            ->andWhere('a.publishedAt IS NOT NULL')\n"
           "            ->orderBy('a.publishedAt', 'DESC')\n            ->setMaxResults(10)\n            ->getQuery();\n\n"
           "        return new Paginator($query);\n    }\n")
    update = ("use App\\Entity\\Article;\nuse Doctrine\\ORM\\Tools\\Pagination\\Paginator;\n"
              "use Doctrine\\Persistence\\ManagerRegistry;\n\n// ...\n\n"
              "    public function findPublished(): array\n    {\n        // ...\n    }\n\n" + new)
    want = document.replace("use Doctrine\\Persistence", "use Doctrine\\ORM\\Tools\\Pagination\\Paginator;\n"
                            "use Doctrine\\Persistence").replace("    }\n\n    public function countAll",
                                                               "    }\n\n" + new + "\n    public function countAll")
    assert merge_update(document, update, "ArticleRepository.php").merged == want


def test_a_new_constant_between_a_marker_and_one_naming_the_next_class_goes_before_that_class():
    """``# ... other imports ...``, a new constant, ``# ... PublishedManager ...``, then the ``Post`` class: the
    constant goes after the imports, before the class the second marker names, set off by the one blank line the
    update shows (not the two before a class); it went after that class."""
    document = ("import math\n\nfrom django.conf import settings\nfrom django.db import models\n\n\n"
                "class PublishedManager(models.Manager):\n    def get_queryset(self):\n        return super().get_queryset()\n\n\n"
                "class Post(models.Model):\n    title = models.CharField(max_length=200)\n\n"
                "    def __str__(self):\n        return self.title\n")
    update = ("import math\n\nfrom django.conf import settings\n# ... other imports ...\n\nWORDS_PER_MINUTE = 200\n\n"
              "# ... PublishedManager ...\n\nclass Post(models.Model):\n    # ... fields unchanged ...\n\n"
              "    def __str__(self):\n        return self.title\n\n    @property\n    def minutes(self):\n"
              "        return math.ceil(len(self.body.split()) / WORDS_PER_MINUTE)\n")
    want = document.replace("from django.db import models\n\n\n", "from django.db import models\n\n"
                            "WORDS_PER_MINUTE = 200\n\n\n") + ("\n    @property\n    def minutes(self):\n"
                                                               "        return math.ceil(len(self.body.split()) / "
                                                               "WORDS_PER_MINUTE)\n")
    assert merge_update(document, update, "models.py").merged == want


def test_a_class_shown_without_its_decorator_keeps_the_decorator_over_several_lines():
    """``@Component({`` ... ``})`` above ``export class``; the update shows the class from ``export class`` on (a
    marker above it): the decorator's lines stay, the class's are merged (its first line was written over the
    decorator's)."""
    document = ("import { Component } from '@angular/core';\n\n@Component({\n  selector: 'app-todo-list',\n"
                "  templateUrl: './todo-list.component.html',\n})\nexport class TodoListComponent {\n"
                "  todos: Todo[] = [];\n}\n")
    update = ("import { Component } from '@angular/core';\n\n// ...existing code...\nexport class TodoListComponent {\n"
              "  todos: Todo[] = [];\n  loading = false;\n}\n")
    want = document.replace("  todos: Todo[] = [];\n", "  todos: Todo[] = [];\n  loading = false;\n")
    assert merge_update(document, update, "todo-list.component.ts").merged == want
    units, _ = parse_units(document, "typescript", document.splitlines(True))
    assert (units[-1].start, units[-1].inner) == (2, 6)  # the class's own first line, after the decorator


def test_a_new_ruby_action_with_a_rescue_goes_where_the_class_s_markers_say():
    """A controller shown with a marker for its actions, a new ``cancel`` action that ends with a ``rescue`` like
    ``pay``'s, ``private`` and a marker: the action goes after ``pay``, before ``private``.  (The ``rescue`` line,
    at the method's depth inside its body, made the update read as cut from a block, and lines cut ``cancel``
    into ``pay``.)"""
    document = ("class OrdersController < ApplicationController\n  before_action :set_order, only: %i[show pay]\n\n"
                "  def show\n    render json: @order\n  end\n\n  def pay\n    @order.mark_paid!\n    render json: @order\n"
                "  rescue ArgumentError => e\n    render json: { error: e.message }, status: :conflict\n  end\n\n"
                "  private\n\n  def set_order\n    @order = Order.find(params[:id])\n  end\nend\n")
    new = ("  def cancel\n    @order.cancel!(reason: params.require(:reason))\n    render json: @order\n"
           "  rescue Order::NotCancellable => e\n    render json: { error: e.message }, status: :conflict\n  end\n")
    update = ("class OrdersController < ApplicationController\n  before_action :set_order, only: %i[show pay cancel]\n\n"
              "  # ... show and pay unchanged ...\n\n" + new + "\n  private\n\n  # ... rest unchanged ...\nend\n")
    want = document.replace("%i[show pay]", "%i[show pay cancel]").replace("  private\n", new + "\n  private\n")
    assert merge_update(document, update, "orders_controller.rb").merged == want


def test_a_lone_line_between_markers_in_a_component_rewrites_the_line_it_resembles_inside_the_return():
    """``// ... existing code ...``, one JSX line, ``// ... existing code ...`` inside ``TaskItem``: the line is the
    ``<span>`` of the ``return (...)`` rewritten, not a new statement after the function's last one."""
    document = ("export default function TaskItem({ task, onToggle }) {\n  const due = formatDue(task.due);\n\n"
                "  return (\n    <li>\n      <label>\n        <span className={styles.text}>{task.title}</span>\n"
                "      </label>\n      {due && <time>{due}</time>}\n    </li>\n  );\n}\n")
    update = ("export default function TaskItem({ task, highlight = '', onToggle }) {\n  // ... existing code ...\n"
              "        <span className={styles.text}>{highlightMatch(task.title, highlight)}</span>\n"
              "  // ... existing code ...\n}\n")
    want = document.replace("{ task, onToggle }", "{ task, highlight = '', onToggle }").replace(
        "{task.title}</span>", "{highlightMatch(task.title, highlight)}</span>")
    assert merge_update(document, update, "TaskItem.jsx").merged == want


def test_new_test_methods_after_imports_and_a_marker_go_inside_the_test_class():
    """New imports (one of them the file's), ``// ...``, two new ``@Test`` methods and the class's closing brace,
    its head not shown: read inside a stand-in class, the methods go at the end of the file's one class, not after
    its closing brace."""
    document = ("package com.example\n\nimport io.ktor.client.request.post\nimport kotlin.test.Test\n\n"
                "class TodoRoutesTest {\n    @Test\n    fun `create todo`() = testApplication {\n"
                "        client.post(\"/todos\")\n    }\n}\n")
    new = ("    @Test\n    fun `update todo`() = testApplication {\n        client.put(\"/todos/1\")\n    }\n")
    update = ("import io.ktor.client.request.post\nimport io.ktor.client.request.put\n\n// ...\n\n" + new + "}\n")
    want = document.replace("import kotlin.test.Test", "import io.ktor.client.request.put\nimport kotlin.test.Test") \
        .replace("    }\n}\n", "    }\n\n" + new + "}\n")
    assert merge_update(document, update, "TodoRoutesTest.kt").merged == want


def test_a_method_renamed_under_its_doc_comment_rewrites_the_file_s():
    """Between markers, ``/** Title search used by the catalogue page. */`` over a longer name: the file's method
    under that doc comment (it has it once) renamed, not a second method added at the interface's end."""
    document = ("public interface BookRepository extends JpaRepository<Book, Long> {\n\n"
                "    List<Book> findByAuthor(String author);\n\n    /** Title search used by the catalogue page. */\n"
                "    Page<Book> findByTitleContainingIgnoreCase(String fragment, Pageable pageable);\n\n"
                "    long countByAuthor(String author);\n}\n")
    update = ("public interface BookRepository extends JpaRepository<Book, Long> {\n\n    // ...\n\n"
              "    /** Title search used by the catalogue page. */\n"
              "    Page<Book> findByTitleContainingIgnoreCaseAndDeletedAtIsNull(String fragment, Pageable pageable);\n\n"
              "    // ...\n}\n")
    want = document.replace("IgnoreCase(String fragment", "IgnoreCaseAndDeletedAtIsNull(String fragment")
    assert merge_update(document, update, "BookRepository.java").merged == want


def test_a_new_struct_after_a_marker_naming_the_structs_it_keeps_goes_after_them_not_after_the_functions():
    """``// ... ListParams and CreateTodo unchanged ...``, a new struct, and the update's end: the struct goes
    after the two it names (no struct after them in the file), and the functions past them stay, after it."""
    document = ("use serde::Deserialize;\n\n#[derive(Deserialize)]\npub struct ListParams {\n    pub limit: usize,\n}\n\n"
                "#[derive(Deserialize)]\npub struct CreateTodo {\n    pub title: String,\n}\n\n"
                "pub async fn list_todos() -> usize {\n    0\n}\n\npub async fn create_todo() -> usize {\n    1\n}\n")
    new = "#[derive(Deserialize)]\npub struct UpdateTodo {\n    pub title: Option<String>,\n}\n"
    update = "use serde::Deserialize;\n\n// ... ListParams and CreateTodo unchanged ...\n\n" + new
    want = document.replace("\npub async fn list_todos", "\n" + new + "\npub async fn list_todos")
    assert merge_update(document, update, "handlers.rs").merged == want
    assert _by_blocks(document, update, "rust") == want
    # a marker naming one method among others of the new one's kind still keeps them all before it
    ruby = ("class CLI\n  def run\n    send(:x)\n  end\n\n  def run_start\n    0\n  end\nend\n")
    shown = "class CLI\n  # ... run and the existing run_* methods stay as they are ...\n  def run_export\n    1\n  end\nend\n"
    assert merge_update(ruby, shown, "cli.rb").merged == ruby.replace("    0\n  end\n", "    0\n  end\n\n  def run_export\n    1\n  end\n")


def test_a_scala_doc_comment_after_an_indented_body_is_the_next_definition_s():
    """Scala's parser reads the doc comment below ``def subtotal(...) =`` and its indented body into that body:
    the method rewritten with its doc comment rewrites the comment too, not writes it twice."""
    document = ("object Pricing {\n\n  def subtotal(order: Order): Money =\n    order.lines.foldLeft(Money.Zero)(_ + _.total)\n\n"
                "  /** Amount a discount takes off. */\n  def discountAmount(order: Order, d: Discount): Money = {\n"
                "    Money.Zero\n  }\n\n  def total(order: Order): Money = subtotal(order)\n}\n")
    update = ("  /** Amount a discount takes off. */\n  def discountAmount(order: Order, d: Discount): Money = {\n"
              "    d.amount.min(subtotal(order))\n  }\n")
    want = document.replace("    Money.Zero\n", "    d.amount.min(subtotal(order))\n")
    assert merge_update(document, update, "Pricing.scala").merged == want
    assert _by_blocks(document, update, "scala") == want


def test_a_marker_naming_a_rust_type_keeps_its_impl_blocks():
    """``// ... MinimumSpend is unchanged ...`` stands for the struct and its ``impl`` blocks (named by their
    type), not the struct alone (the impls went)."""
    document = ("pub struct Percentage(u8);\n\npub struct MinimumSpend<D> {\n    inner: D,\n}\n\n"
                "impl<D: Discount> MinimumSpend<D> {\n    pub fn new(inner: D) -> Self {\n        Self { inner }\n    }\n}\n\n"
                "impl<D: Discount> Discount for MinimumSpend<D> {\n    fn apply(&self, s: u64) -> u64 {\n"
                "        self.inner.apply(s)\n    }\n}\n\npub enum DiscountError {\n    Invalid,\n}\n")
    stacked = "pub struct Stacked {\n    rules: Vec<Box<dyn Discount>>,\n}\n"
    update = ("pub struct Percentage(u8);\n\n// ... MinimumSpend is unchanged ...\n\n" + stacked +
              "\n// ... DiscountError is unchanged ...\n")
    want = document.replace("\npub enum DiscountError", "\n" + stacked + "\npub enum DiscountError")
    assert merge_update(document, update, "discount.rs").merged == want


def test_a_swift_overload_of_other_argument_labels_is_a_new_method_not_the_file_s():
    """UIKit's delegate methods are all ``tableView``: a new ``tableView(_:trailingSwipeActionsConfigurationForRowAt:)``
    shown after the class's ``tableView(_:didSelectRowAt:)`` is added beside it, not written over it."""
    select = ("    override func tableView(_ tableView: UITableView, didSelectRowAt indexPath: IndexPath) {\n"
              "        store.toggle(indexPath.row)\n    }\n")
    rows = ("    override func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {\n"
            "        store.tasks.count\n    }\n")
    document = "final class TaskList: UITableViewController {\n" + rows + "\n" + select + "}\n"
    swipe = ("    override func tableView(\n        _ tableView: UITableView,\n"
             "        trailingSwipeActionsConfigurationForRowAt indexPath: IndexPath\n"
             "    ) -> UISwipeActionsConfiguration? {\n        nil\n    }\n")
    update = "final class TaskList: UITableViewController {\n    // ... data source unchanged ...\n\n" + select + "\n" + swipe + "}\n"
    assert merge_update(document, update, "TaskList.swift").merged == document.replace(select, select + "\n" + swipe)


def test_rust_use_paths_widened_and_new_items_between_two_markers():
    """``use std::{collections::HashSet, net::SocketAddr};`` is ``use std::net::SocketAddr;`` given a path (not a
    second import); and new items between ``// ... imports unchanged ...`` and ``// ... body_json and
    health_is_ok unchanged ...`` go after the imports, before ``body_json`` (the update's start stood for all of
    them, and the items went after ``health_is_ok``)."""
    main = "use std::net::SocketAddr;\n\nuse api::app;\n\nfn main() {\n    let addr: SocketAddr = todo!();\n}\n"
    update = "use std::{collections::HashSet, net::SocketAddr};\n\nuse api::app;\n"
    assert merge_update(main, update, "main.rs").merged == main.replace("use std::net::SocketAddr;", update.split("\n")[0])
    tests = ("use api::{app, AppState};\nuse tower::ServiceExt;\n\nasync fn body_json(res: Response) -> Value {\n    todo!()\n}\n\n"
             "#[tokio::test]\nasync fn health_is_ok() {\n    app(AppState::default());\n}\n\n"
             "#[tokio::test]\nasync fn create_item() {\n    let app = app(AppState::default());\n}\n")
    items = 'const API_KEY: &str = "test-key";\n\nfn test_app() -> axum::Router {\n    app(AppState::with_api_keys([API_KEY]))\n}\n'
    create = "#[tokio::test]\nasync fn create_item() {\n    let app = test_app();\n}\n"
    update = ("// ... imports unchanged ...\n\n" + items + "\n// ... body_json and health_is_ok unchanged ...\n\n" + create)
    assert merge_update(tests, update, "api.rs").merged == tests.replace(
        "\nasync fn body_json", "\n" + items + "\nasync fn body_json").replace("    let app = app(AppState::default());\n}\n",
                                                                          "    let app = test_app();\n}\n")


def test_kotlin_annotated_properties_are_named_by_their_names_not_their_annotations():
    """``@Column(...) lateinit var createdAt`` is ``createdAt`` (all annotated properties read as ``Column``, so
    ``updatedAt`` shown after ``// ... id and createdAt unchanged ...`` was paired with ``createdAt``, which went)."""
    document = ("class Project(\n    val ownerId: Long,\n) {\n    @Id\n    var id: Long? = null\n\n"
                "    @Column(name = \"created_at\")\n    lateinit var createdAt: Instant\n\n"
                "    @Column(name = \"updated_at\")\n    lateinit var updatedAt: Instant\n}\n")
    deleted = "    @Column(name = \"deleted_at\")\n    var deletedAt: Instant? = null\n"
    update = ("class Project(\n    // ... constructor properties unchanged ...\n) {\n    // ... id and createdAt unchanged ...\n\n"
              "    @Column(name = \"updated_at\")\n    lateinit var updatedAt: Instant\n\n" + deleted + "}\n")
    assert [u.key for u in parse_units(document, "kotlin", document.splitlines(True))[0][0].body] == \
        [("variable", "id"), ("variable", "createdAt"), ("variable", "updatedAt")]
    assert merge_update(document, update, "Project.kt").merged == document.replace("Instant\n}\n", "Instant\n\n" + deleted + "}\n")


def test_an_update_that_closes_the_file_s_last_block_after_another_one_is_read_without_a_crash():
    """A C++ test file: new tests after a marker, the anonymous namespace's ``}`` shown, then ``int main() {``
    (the file's last block) with a call added and a marker for the rest.  Read under ``main``'s head, the
    units before the last one include lines of that head, which the update does not have: it used to raise a
    TypeError; the new test goes into the namespace and its call into ``main``."""
    document = ("#include <cstdlib>\n\nnamespace {\n\nint failures = 0;\n\nvoid testSell() {\n    failures += 0;\n}\n\n"
                "}  // namespace\n\nint main() {\n    testSell();\n    if (failures > 0) {\n        return EXIT_FAILURE;\n"
                "    }\n    return EXIT_SUCCESS;\n}\n")
    update = ("// ... existing tests unchanged ...\n\nvoid testFindAdjacent() {\n    failures += 1;\n}\n\n}  // namespace\n\n"
              "int main() {\n    testSell();\n    testFindAdjacent();\n    // ... rest of main unchanged ...\n}\n")
    merge = merge_update(document, update, "seat_map_test.cpp")
    assert merge.merged == document.replace(
        "}\n\n}  // namespace", "}\n\nvoid testFindAdjacent() {\n    failures += 1;\n}\n\n}  // namespace").replace(
        "    testSell();\n", "    testSell();\n    testFindAdjacent();\n")


def test_a_new_constant_below_a_marker_after_a_function_is_set_off_as_the_file_sets_off_functions():
    """``# ... existing code ...``, one blank line, a new constant, then a rewritten function: the marker keeps a
    function, which the file sets off by two blank lines; the constant is set off by two as well, not by the
    update's one."""
    document = ("import json\n\n\ndef build(url):\n    return url\n\n\ndef fetch(url):\n    return json.loads(url)\n")
    update = ("import json\n\n# ... existing code ...\n\nRETRYABLE = {429, 503}\n\n\n"
              "def fetch(url, retries=3):\n    return json.loads(url)\n")
    assert merge_update(document, update, "http.py").merged == document.replace(
        "\n\n\ndef fetch(url):", "\n\n\nRETRYABLE = {429, 503}\n\n\ndef fetch(url, retries=3):")


@pytest.mark.parametrize("name", ["commands.rb", "commands.cr"])
def test_new_methods_at_the_file_s_end_go_into_the_class_inside_its_module(name):
    """Methods at a class's depth, said to go at the end, in a file that holds a module around one class: before
    the class's ``end``, not the module's (where they were written, re-indented as module functions); by the
    syntax where a grammar reads the file (Ruby), by the lines' depth where none does (Crystal)."""
    document = "module Bot\n  class Commands\n    def status(id)\n      id\n    end\n  end\nend\n"
    update = "    def slowest(project)\n      project\n    end\n"
    assert merge_update(document, update, name, after="").merged == document.replace(
        "      id\n    end\n", "      id\n    end\n\n" + update)


def test_a_marker_deeper_than_the_statement_above_it_stands_for_the_rest_of_that_statement():
    """``val request = HttpRequest.newBuilder(...)`` then ``    // ... existing code ...`` one level deeper: the
    marker stands for the builder's ``.timeout(...)``, ``.build()`` lines and what follows, which stay (the
    syntax read the statement as rewritten to its first line and dropped its calls)."""
    document = ("class Client(private val http: HttpClient) {\n    fun fetch(url: String): String? {\n"
                "        val request = HttpRequest.newBuilder(URI.create(url))\n            .timeout(Duration.ofSeconds(20))\n"
                "            .GET()\n            .build()\n        val response = http.send(request, ofString())\n"
                "        return when (response.statusCode()) {\n            200 -> response.body()\n"
                "            else -> null\n        }\n    }\n}\n")
    update = ("    fun fetch(url: String): String? {\n        cache?.get(url)?.let { return it }\n"
              "        val request = HttpRequest.newBuilder(URI.create(url))\n            // ... existing code ...\n"
              "        return when (response.statusCode()) {\n            200 -> response.body().also { cache?.put(url, it) }\n"
              "            else -> null\n        }\n    }\n")
    assert merge_update(document, update, "Client.kt").merged == document.replace(
        "String? {\n        val request", "String? {\n        cache?.get(url)?.let { return it }\n        val request").replace(
        "200 -> response.body()\n", "200 -> response.body().also { cache?.put(url, it) }\n")


def test_a_new_method_after_a_marker_among_methods_pasted_alone_goes_after_what_the_marker_keeps():
    """A helper and, after ``// ... existing tests ...``, a new test, pasted without their class: the new test
    goes after the tests the marker keeps (at the class's end, or after the one the marker names), not right
    after the helper."""
    document = ("final class SimulationTests: XCTestCase {\n    private func orbit(step: Double = 10) -> Simulation {\n"
                "        Simulation(step: step)\n    }\n\n    func testRadius() {\n        XCTAssertEqual(orbit().radius, 7)\n"
                "    }\n\n    func testTime() {\n        XCTAssertEqual(orbit().time, 0)\n    }\n}\n")
    update = ("    private func orbit(step: Double = 10, method: Method = .verlet) -> Simulation {\n"
              "        Simulation(step: step, method: method)\n    }\n\n    // ... existing tests ...\n\n"
              "    func testEnergy() {\n        XCTAssertLessThan(orbit().drift, 1e-4)\n    }\n}\n")
    assert merge_update(document, update, "SimulationTests.swift").merged == document.replace(
        "private func orbit(step: Double = 10) -> Simulation {\n        Simulation(step: step)",
        "private func orbit(step: Double = 10, method: Method = .verlet) -> Simulation {\n"
        "        Simulation(step: step, method: method)").replace(
        "orbit().time, 0)\n    }\n", "orbit().time, 0)\n    }\n\n    func testEnergy() {\n"
        "        XCTAssertLessThan(orbit().drift, 1e-4)\n    }\n")


def test_a_new_field_after_a_marker_that_keeps_the_fields_goes_after_the_last_field():
    """``// ... existing fields ...``, a new field, ``// ... existing constructors and methods ...``, new methods:
    the field after the class's fields, not after its methods."""
    document = ("@Entity\npublic class Order {\n\n    @Id\n    private Long id;\n\n    private String status;\n\n"
                "    protected Order() {\n    }\n\n    public Long getId() {\n        return id;\n    }\n}\n")
    update = ("@Entity\npublic class Order {\n\n    // ... existing fields ...\n\n    @Column(name = \"deleted_at\")\n"
              "    private Instant deletedAt;\n\n    // ... existing constructors and methods ...\n\n"
              "    public Instant getDeletedAt() {\n        return deletedAt;\n    }\n}\n")
    assert merge_update(document, update, "Order.java").merged == document.replace(
        "    private String status;\n", "    private String status;\n\n    @Column(name = \"deleted_at\")\n"
        "    private Instant deletedAt;\n").replace(
        "        return id;\n    }\n}\n", "        return id;\n    }\n\n    public Instant getDeletedAt() {\n"
        "        return deletedAt;\n    }\n}\n")


def test_new_service_registrations_in_a_program_cs_do_not_rewrite_the_ones_after_them():
    """C# top-level statements: ``builder.Services.Configure<ReportOptions>(...)`` shown, new registrations after
    it, a marker, then the middleware with a new ``UseAuthentication()``: the file's ``AddResponseCompression()``
    stays (it was taken as the rewrite of the new ``AddAuthorization()`` and dropped)."""
    document = ("using Reporting.Api.Data;\n\nvar builder = WebApplication.CreateBuilder(args);\n\n"
                "builder.Services.AddControllers();\nbuilder.Services.Configure<ReportOptions>(builder.Configuration);\n\n"
                "builder.Services.AddResponseCompression();\nbuilder.Services.AddHostedService<ExportCleanupService>();\n\n"
                "var app = builder.Build();\n\napp.UseHttpsRedirection();\napp.UseResponseCompression();\n\n"
                "app.UseAuthorization();\n\napp.MapControllers();\n\napp.Run();\n")
    new = ("builder.Services.Configure<ApiKeyOptions>(builder.Configuration);\nbuilder.Services\n"
           "    .AddAuthentication(ApiKeyHandler.SchemeName)\n    .AddScheme<SchemeOptions, ApiKeyHandler>(ApiKeyHandler.SchemeName);\n"
           "builder.Services.AddAuthorization();\n")
    update = ("using Reporting.Api.Authentication;\nusing Reporting.Api.Data;\n\n// ... existing code ...\n"
              "builder.Services.Configure<ReportOptions>(builder.Configuration);\n\n" + new +
              "\n// ... existing code ...\napp.UseResponseCompression();\n\napp.UseAuthentication();\napp.UseAuthorization();\n"
              "\napp.MapControllers();\n// ... existing code ...\n")
    assert merge_update(document, update, "Program.cs").merged == document.replace(
        "using Reporting.Api.Data;\n", "using Reporting.Api.Authentication;\nusing Reporting.Api.Data;\n").replace(
        "builder.Configuration);\n\n", "builder.Configuration);\n\n" + new + "\n", 1).replace(
        "\napp.UseAuthorization();", "\napp.UseAuthentication();\napp.UseAuthorization();")


def test_a_standard_library_import_in_a_file_that_imports_none_goes_in_a_group_of_its_own_first():
    """``from datetime import timedelta`` for a test module that imports only pandas, pytest and sqlalchemy: its
    own group above theirs (isort's order), not sorted in among them."""
    document = ('"""Tests."""\n\nimport pandas as pd\nimport pytest\nfrom sqlalchemy import create_engine\n\n\n'
                'def test_x():\n    assert pd\n')
    merged = merge_update(document, "from datetime import timedelta\n", "test_io.py").merged
    assert merged == document.replace('"""Tests."""\n\n', '"""Tests."""\n\nfrom datetime import timedelta\n\n')
