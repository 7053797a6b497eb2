"""Where an update snippet goes in a file: the conventions of the fast-apply format, one rule per test, and the
merge checked against the edits updates are made from (``train.updates``)."""

import random

import pytest

from cad_lsp.program import apply_program, oracle_for_selection, resolve
from cad_lsp.program.update import MARKER, NEW, SKIP, UpdateError, align_update, is_marker, merge_update
from cad_lsp.program.syntax import breaks
from cad_lsp.train import updates

FILE = ("import os\n\n\ndef area(w, h):\n    total = w * h\n    return total\n\n\n"
        "def perimeter(w, h):\n    return 2 * (w + h)\n\n\ndef main():\n    print(area(2, 3))\n")


def merged(update: str, document: str = FILE) -> str:
    return merge_update(document, update).merged


@pytest.mark.parametrize("line, marker", [
    ("# ... existing code ...\n", True), ("    // ...\n", True), ("# (unchanged)\n", True), ("/* ... */", True),
    ("<!-- rest of the file -->\n", True), ("# ... rest of the code unchanged ...\n", True), ("...\n", True),
    ("# keep existing code\n", True), ("# compute the total\n", False), ("x = ...\n", False),
    ("# this function keeps the existing behaviour of the old parser but adds many more checks\n", False),
    ("{{ ... }}\n", True), ("  {{ ... existing code ... }}\n", True), ("{{ user.name }}\n", False),
    ("// keep the rest as is\n", True), ("// (keep as is)\n", True), ("# Keep debug builds usable.\n", False),
    ("    // Already cancelled: keep the original timestamp and reason.\n", False),  # a comment, not a marker
    ("// code omitted for brevity\n", True), ("// constructor remains the same\n", True),
    ("// Other routes remain unchanged\n", True), ("# Handle existing points\n", False),
    ("    // merge the remaining items\n", False), ("# Clears all existing requests and connections.\n", False),
    ("    // constructors, getters/setters and toString() stay exactly as they are\n", True),
    ("# both shapes are the same\n", False),
    ("            // ... (Divider, Total row and Checkout button stay as they are)\n", True),
    ("// ... (UserStore, UserHandler, Register and List go here)\n", True), ("# TODO: validation goes here\n", False),
    ("// your code goes here\n", False),
    ("    # Existing rows were saved before normalization was added.\n", False),  # a sentence about them
    ("// Existing tests are unchanged.\n", True),
    ("// ... LoginRequest, RegisterRequest, TokenResponse\n", True), ("    # ... login() and register()\n", True),
    ("// ... we retry here because the server is slow\n", False),
    ("  # in render/1, replace the stats grid:\n", True), ("  # next to format_money/2:\n", True),
    ("# in seconds:\n", False), ("# in the loop, count:\n", False),
])
def test_markers_are_lone_comments_that_elide(line, marker):
    assert is_marker(line) is marker


def test_a_line_added_between_markers_lands_where_its_context_is():
    update = "# ... existing code ...\ndef area(w, h):\n    total = w * h\n    assert total >= 0\n    return total\n" \
             "# ... existing code ...\n"
    assert merged(update) == FILE.replace("    return total\n", "    assert total >= 0\n    return total\n")


def test_lines_left_out_between_two_shown_lines_are_deleted():
    update = "def area(w, h):\n    return total\n# ... existing code ...\n"
    assert merged(update) == FILE.replace("    total = w * h\n", "")


def test_a_marker_keeps_what_it_stands_for():
    update = "def area(w, h):\n    # ... existing code ...\n    return total + 0\n\n\ndef perimeter(w, h):\n"
    out = merged(update)
    assert "    total = w * h\n" in out and "return total + 0" in out and "    return total\n" not in out


def test_a_snippet_without_markers_keeps_the_rest_of_the_file():
    update = "def perimeter(w, h):\n    return 2 * w + 2 * h\n"
    assert merged(update) == FILE.replace("return 2 * (w + h)", "return 2 * w + 2 * h")


def test_a_function_shown_whole_replaces_the_files_function():
    """No marker, the update starts on a function's first line: its body is the new body, even where no line of
    it resembles the old one."""
    update = "def area(w, h):\n    if w < 0 or h < 0:\n        raise ValueError(w, h)\n"
    assert merged(update) == FILE.replace("    total = w * h\n    return total\n",
                                          "    if w < 0 or h < 0:\n        raise ValueError(w, h)\n")


def test_blank_lines_where_kept_and_shown_lines_meet_are_not_doubled():
    update = "def perimeter(w, h):\n    return 2 * (w + h) + 1\n\n\n"
    assert merged(update) == FILE.replace("2 * (w + h)", "2 * (w + h) + 1")
    update = "# ... existing code ...\n\n\ndef perimeter(w, h):\n    return 2 * (w + h) + 1\n# ...\n"
    assert merged(update) == FILE.replace("2 * (w + h)", "2 * (w + h) + 1")


def test_a_changed_first_line_rewrites_the_line_it_resembles():
    update = "def area(w, h, scale=1):\n    total = w * h\n    return total\n"
    assert merged(update) == FILE.replace("def area(w, h):", "def area(w, h, scale=1):")


def test_the_whole_new_file_replaces_the_file():
    new = FILE.replace("import os\n", "import os\nimport sys\n").replace("print(area(2, 3))", "print(area(3, 4))")
    placement = align_update(FILE, new)
    assert placement.whole_file and merged(new) == new
    no_import = new.replace("import os\nimport sys\n", "import sys\n")  # its first line gone: still the file
    assert merged(no_import) == no_import
    # Without markers, an update that stops short of the file's end reads as a snippet: what it does not show
    # stays (a function shown bare and the whole file minus its last function look alike; this keeps code).
    shorter = new.replace("\n\ndef main():\n    print(area(3, 4))\n", "")
    assert not align_update(FILE, shorter).whole_file and merged(shorter).endswith("print(area(2, 3))\n")


def test_new_code_after_a_leading_marker_goes_at_the_end():
    assert merged("# ... existing code ...\n\n\ndef volume(w, h, d):\n    return w * h * d\n") == \
        FILE + "\n\ndef volume(w, h, d):\n    return w * h * d\n"


@pytest.mark.parametrize("update, message", [
    ("", "empty"), ("   \n", "empty"), ("# ... existing code ...\n\n", "only markers"),
    ("shape = Shape()\nshape.draw()\n", "matches a line of the file"),
    ("# ...\nclass Shape:\n    pass\n# ...\n", "where its code goes is unknown"),
])
def test_updates_with_no_place_in_the_file_are_refused(update, message):
    with pytest.raises(UpdateError, match=message):
        merge_update(FILE, update)


def test_short_lines_place_an_update_when_they_are_most_of_it():
    assert merge_update("a = 1\nb = 2\nc = 3\n", "b = 5\nc = 3\n").merged == "a = 1\nb = 5\nc = 3\n"


def test_an_update_that_fits_twice_is_refused():
    twice = "def f():\n    x = compute_something(1)\n    return x\n\n\ndef g():\n    x = compute_something(1)\n" \
            "    return x\n"
    with pytest.raises(UpdateError, match="more than one place"):
        merge_update(twice, "    x = compute_something(1)\n    log(x)\n    return x\n")


def test_crlf_emoji_and_no_final_newline_survive():
    document = FILE.replace("\n", "\r\n").replace("print(area(2, 3))", "print('😀', area(2, 3))").rstrip("\r\n")
    update = "def main():\n    print('😀', area(2, 3))\n    print('done 😀')"
    out = merged(update, document)
    assert out == document + "\r\n    print('done 😀')"
    assert "\n" not in out.replace("\r\n", "")  # every new line written with the file's terminator


def test_trailing_blanks_dropped_by_the_chat_still_match():
    document = FILE.replace("    total = w * h\n", "    total = w * h   \n")
    update = "def area(w, h):\n    total = w * h\n    total += 1\n    return total\n"
    out = merged(update, document)
    assert "    total = w * h   \n    total += 1\n" in out  # the file's own line, copied as it was


def test_the_region_program_resolves_to_the_merge():
    update = "# ... existing code ...\ndef perimeter(w, h):\n    return 2 * (w + h) + 0\n# ... existing code ...\n"
    merge = merge_update(FILE, update)
    ops = oracle_for_selection(FILE, merge.first, merge.last, merge.text)
    assert resolve(ops, FILE, merge.first, merge.last) == merge.text
    assert apply_program(ops, FILE, merge.first, merge.last) == merge.merged
    assert merge.last - merge.first + 1 == 3  # the changed line and one unchanged line on each side
    placement = align_update(FILE, update)  # as lines place it, where no grammar reads the file
    assert placement.lines[0] == MARKER and NEW in placement.lines


def test_a_long_file_is_placed_quickly_and_only_the_region_changes():
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(2000))
    update = "# ... existing code ...\ndef f1000(x):\n    x = abs(x)\n    return x + 1000\n# ... existing code ...\n"
    merge = merge_update(body, update)
    assert merge.merged == body.replace("def f1000(x):\n", "def f1000(x):\n    x = abs(x)\n")
    assert merge.last - merge.first < 5
    whole = merge_update(body, body.replace("return x + 7\n", "return x + 8\n"))  # a whole 8,000-line file
    assert whole.whole_file and whole.last - whole.first < 5


@pytest.mark.parametrize("style", updates.STYLES)
def test_updates_of_synthetic_edits_merge_back_to_the_edit(style):
    """On synthetic edits of standard-library modules, the merge of each style's update is the edited file in
    almost every case (the rest are the format's ambiguities: an edit that repeats nearby code)."""
    pairs = updates.synthetic_cases(["colorsys", "shlex", "textwrap", "fnmatch"], per_module=10, seed=3)
    rng = random.Random(5)
    made = exact = 0
    for _, before, after, _ in pairs:
        update = updates.make_update(before, after, style, rng)
        if update is None:
            continue
        made += 1
        try:
            exact += merge_update(before, update).merged == after
        except UpdateError:
            pass
    assert made >= 20 and exact >= 0.9 * made, (exact, made)


RATES = ("import math\n\n\ndef rate(kind):\n    if kind is None:\n        return None\n    scale = 2 if kind == 'a' else 3\n"
         "    return math.sqrt(scale)\n\n\ndef main():\n    print(rate('a'))\n")


def test_new_code_before_a_less_indented_marker_rewrites_the_rest_of_the_block():
    """New lines after a shown line, then a marker less indented than the file's next lines: the marker stands
    for what follows the block, so the block's old tail is what the new lines rewrote, not lines to keep."""
    update = ("# ... existing code ...\n    if kind is None:\n        return None\n    return math.sqrt(SCALES[kind])\n"
              "\n\nSCALES = {'a': 2, 'b': 3}\n\n\n# ... existing code ...\n")
    want = RATES.replace("    scale = 2 if kind == 'a' else 3\n    return math.sqrt(scale)\n",
                         "    return math.sqrt(SCALES[kind])\n\n\nSCALES = {'a': 2, 'b': 3}\n")
    assert merge_update(RATES, update, "python").merged == want


def test_a_merge_python_would_not_indent_is_refused():
    """tree-sitter reads a statement indented under nothing as a block of its own; Python does not, so such a
    merge is a broken file."""
    from cad_lsp.program.syntax import breaks

    document = "SCALES = {'a': 2}\n\n\ndef main():\n    print(SCALES)\n"
    tail = document.replace("\n\n\ndef main():\n", "\n")  # the function's line lost, its body left indented
    assert breaks(document, tail, "python")
    assert not breaks(document, document.replace("print(SCALES)", "print(SCALES['a'])"), "python")


TABLE = ("# Results\n\n| set | right |\n| --- | --- |\n| the peer fixtures, exact merges | 23 of 23 |\n"
         "| the held-out updates, exact | 636 of 702 |\n\nMeasured on one machine.\n")


def test_a_changed_line_shown_alone_rewrites_the_line_it_clearly_resembles():
    """A table row (or a sentence) shown with no line of context: the file line it is a rewrite of, when only
    one is that alike; with markers around it, the same."""
    want = TABLE.replace("636 of 702", "637 of 702")
    assert merge_update(TABLE, "| the held-out updates, exact | 637 of 702 |\n", "README.md").merged == want
    assert merge_update(TABLE, "<!-- ... -->\n| the held-out updates, exact | 637 of 702 |\n<!-- ... -->\n",
                        "README.md").merged == want


def test_the_last_line_of_new_code_rewrites_the_next_file_line_it_resembles_past_lines_it_inserts():
    """An enum gains a constant and the set below it gains the constant too, shown last with no line after it:
    the set's line is rewritten, not kept beside its rewrite; a last line like no file line below is added."""
    document = ("enum Status {\n    PAID(\"Paid\"),\n\n    /** Cancelled before payment. */\n    CANCELLED(\"Cancelled\");\n\n"
                "    static final Set<Status> TERMINAL = EnumSet.of(CANCELLED);\n\n    Status(String label) {}\n}\n")
    update = ("    /** Cancelled before payment. */\n    CANCELLED(\"Cancelled\"),\n\n    /** Paid back. */\n"
              "    REFUNDED(\"Refunded\");\n\n"
              "    static final Set<Status> TERMINAL = EnumSet.of(CANCELLED, REFUNDED);\n")
    want = document.replace('CANCELLED("Cancelled");', 'CANCELLED("Cancelled"),\n\n    /** Paid back. */\n'
                            '    REFUNDED("Refunded");').replace(
        "EnumSet.of(CANCELLED)", "EnumSet.of(CANCELLED, REFUNDED)")
    assert merge_update(document, update, "java").merged == want
    added = update.replace("static final Set<Status> TERMINAL = EnumSet.of(CANCELLED, REFUNDED);",
                           "public boolean isRefund() { return this == REFUNDED; }")
    assert merge_update(document, added, "java").merged.count("EnumSet.of(CANCELLED);") == 1


def test_a_kotlin_test_named_in_backticks_is_a_new_definition_and_goes_before_the_class_s_closing_line():
    """``fun `name with spaces`()`` names a test as ``def test_x`` does: new code whole, its ``@Test`` and ``}``
    no places in the file (they fit every test), so the new test goes before the class's ``}`` it is shown
    above."""
    tests = "".join(f"    @Test\n    fun `case {n}`() {{\n        assertEquals({n}, f({n}))\n    }}\n\n" for n in range(3))
    document = "package app\n\nimport kotlin.test.Test\nimport kotlin.test.assertEquals\n\nclass FTest {\n\n" + \
        tests.rstrip("\n") + "\n}\n"
    new = "    @Test\n    fun `negative numbers fail`() {\n        assertFailsWith<IllegalArgumentException> { f(-1) }\n    }\n"
    update = "import kotlin.test.Test\nimport kotlin.test.assertEquals\nimport kotlin.test.assertFailsWith\n// ...\n\n" + \
        new + "}\n"
    want = document.replace("import kotlin.test.assertEquals\n", "import kotlin.test.assertEquals\n"
                            "import kotlin.test.assertFailsWith\n").replace("    }\n}\n", "    }\n\n" + new + "}\n")
    assert merge_update(document, update, "kotlin").merged == want


def test_a_line_given_a_block_gets_new_lines_and_an_end_after_a_marker_closes_the_block_its_opener_opens():
    """``resources :users`` gains `` do`` and member routes: the ``member do`` and ``end`` lines under it are new
    (the file's other ``member do`` is not their place); the ``end`` shown after ``# ...`` is the end of the
    ``namespace`` the update opens, not of any block ending in ``end``."""
    document = ("Rails.application.routes.draw do\n  resources :posts do\n    member do\n      patch :publish\n"
                "    end\n  end\n\n  namespace :admin do\n    resources :users\n    resources :posts do\n"
                "      member do\n        patch :feature\n      end\n    end\n  end\n\n  namespace :api do\n"
                "    resources :tags\n  end\nend\n")
    update = ("  namespace :admin do\n    resources :users do\n      member do\n        patch :deactivate\n"
              "      end\n    end\n    # ... existing code ...\n  end\n")
    want = document.replace("    resources :users\n", "    resources :users do\n      member do\n"
                            "        patch :deactivate\n      end\n    end\n")
    assert merge_update(document, update, "ruby").merged == want


def test_a_second_extension_shown_whole_after_a_marker_is_another_one_not_the_file_s_rewritten():
    """Swift's ``extension Note {`` shown whole after ``// ...``, none of the file's extension's members in it: a
    second extension at the end, the first kept (not its lines replaced by the new one's)."""
    document = ("import Foundation\n\nstruct Note {\n    var title: String\n}\n\nextension Note {\n"
                "    static let sample = Note(title: \"Groceries\")\n}\n")
    new = ("extension Note {\n    var isEmpty: Bool {\n        title.trimmingCharacters(in: .whitespaces).isEmpty\n"
           "    }\n}\n")
    update = "struct Note {\n    var title: String\n    var isPinned = false\n}\n\n// ... existing code ...\n\n" + new
    want = document.replace("    var title: String\n", "    var title: String\n    var isPinned = false\n") + "\n" + new
    assert merge_update(document, update, "swift").merged == want


def test_new_code_at_the_end_of_a_module_that_closes_it_goes_before_the_module_s_closing_line():
    """A file with no grammar here (Elixir), "add a describe block at the end of the test module": a marker for
    the whole module, the new block, and the module's ``end``: the block goes inside the module, before its
    ``end``, not after it."""
    document = ('defmodule CacheTest do\n  use ExUnit.Case\n\n  describe "get/1" do\n    test "misses" do\n'
                '      assert Cache.get(:x) == :error\n    end\n  end\nend\n')
    new = '  describe "ttl" do\n    test "expires" do\n      assert Cache.get(:short) == :error\n    end\n  end\n'
    update = "# ... existing tests ...\n\n" + new + "end\n"
    want = document[: -len("end\n")] + "\n" + new + "end\n"
    assert merge_update(document, update, "elixir", after="").merged == want


def test_a_new_method_then_the_next_one_s_head_rewritten_between_markers():
    """Between two markers: a new route method, then ``show``'s attribute and signature changed and its ``{``
    (the marker after it stands for its body): the new method goes above ``show``, whose head is rewritten; the
    new method's attribute is not a rewrite of ``show``'s, which it resembles more."""
    document = ("<?php\n\nclass ArticleController\n{\n    #[Route('', name: 'index')]\n    public function index(): Response\n"
                "    {\n        return $this->render('index');\n    }\n\n"
                "    #[Route('/{id}', name: 'show', requirements: ['id' => '\\d+'])]\n    public function show(Article $a): Response\n"
                "    {\n        return $this->render('show', ['a' => $a]);\n    }\n}\n")
    update = ("class ArticleController\n{\n// ... existing code ...\n\n    #[Route('/{id}', name: 'show_legacy', requirements: ['id' => '\\d+'])]\n"
              "    public function showLegacy(Article $a): Response\n    {\n        return $this->redirectToRoute('show');\n    }\n\n"
              "    #[Route('/{slug}', name: 'show', requirements: ['slug' => '[a-z-]+'])]\n"
              "    public function show(#[MapEntity(mapping: ['slug' => 'slug'])] Article $a): Response\n    {\n"
              "// ... existing code ...\n")
    old_head = document[document.index("    #[Route('/{id}'"): document.index("    {\n        return $this->render('show'")]
    new_head = update[update.index("    #[Route('/{id}'"): update.index("    {\n// ...")]
    assert merge_update(document, update, "php").merged == document.replace(old_head, new_head)


def test_a_one_line_case_class_written_one_parameter_a_line_replaces_the_line():
    """Scala (no grammar here): ``case class LinkResponse(...)`` on one line, rewritten with a new field one
    parameter a line after its unchanged annotation, and the method below it rewritten too, before a marker:
    both replace their lines, not join them."""
    document = ("import io.circe.generic.JsonCodec\n\n@JsonCodec\ncase class LinkResponse(code: String, url: String, "
                "hits: Long)\n\nobject LinkResponse {\n  def of(link: Link) = LinkResponse(link.code, link.url, link.hits)\n}\n\n"
                "class LinkRoutes(repository: LinkRepository) {\n  def all() = repository.all()\n}\n")
    new = ("case class LinkResponse(\n    code: String,\n    url: String,\n    hits: Long,\n"
           "    expiresAt: Option[String] = None\n)\n\nobject LinkResponse {\n  def of(link: Link) = LinkResponse(link.code, "
           "link.url, link.hits, link.expiresAt.map(_.toString))\n}\n")
    update = "@JsonCodec\n" + new + "\n// ... LinkRoutes unchanged ...\n"
    start, end = document.index("case class"), document.index("\nclass LinkRoutes")
    assert merge_update(document, update, "scala").merged == document[:start] + new + document[end:]


def test_a_css_property_given_another_value_is_a_rewrite_of_its_line():
    """``color: #656d76;`` becoming ``color: var(--muted);`` in the last rule an update shows: alike as a
    property, not as text; the old value does not stay beside the new one."""
    document = (".tags {\n  flex: 1;\n  color: #656d76;\n}\n\n.empty {\n  text-align: center;\n  color: #656d76;\n}\n\n"
                "@media (max-width: 600px) {\n  .tags {\n    display: none;\n  }\n}\n")
    update = "/* ... */\n\n.empty {\n  text-align: center;\n  color: var(--muted);\n}\n"
    want = document.replace("center;\n  color: #656d76;", "center;\n  color: var(--muted);")
    assert merge_update(document, update, "styles.css").merged == want


def test_a_function_shown_with_a_marker_then_a_new_ending_replaces_its_old_last_paragraph():
    """``# ... filters unchanged ...`` in a function, then new code to its end that returns: the marker keeps the
    filters, the file's last paragraph (the old ``return`` and the line above it) is what the new ending
    replaces, not lines kept before it."""
    document = ("def product_list(request):\n    products = Product.objects.all()\n\n    q = request.GET.get('q')\n"
                "    if q:\n        products = products.filter(name__icontains=q)\n\n"
                "    products = products.order_by('name')\n    return JsonResponse({'results': list(products)})\n\n\n"
                "def product_detail(request, slug):\n    return JsonResponse({'slug': slug})\n")
    update = ("def product_list(request):\n    products = Product.objects.all()\n\n    # ... search filter unchanged ...\n\n"
              "    paginator = Paginator(products.order_by('name'), 20)\n    page = paginator.page(request.GET.get('page', 1))\n"
              "    return JsonResponse(\n        {'results': list(page.object_list), 'count': paginator.count}\n    )\n")
    want = document.replace("    products = products.order_by('name')\n    return JsonResponse({'results': list(products)})\n",
                            update[update.index("    paginator"):])
    assert merge_update(document, update, "views.py").merged == want


def test_a_new_guard_after_a_shown_one_is_added_not_a_rewrite_of_the_next_guard():
    """``if c.MaxRetries < 0 { return ... }`` after the unchanged timeout check, the update's end: its head is
    alike the next check's head, its body not alike that check's body: a new block, added; the next check and
    the ``return nil`` after it stay."""
    document = ("package config\n\nfunc (c *Config) validate() error {\n\tif c.BaseURL == \"\" {\n"
                "\t\treturn errors.New(\"config: base_url is required\")\n\t}\n\tif c.TimeoutSeconds <= 0 {\n"
                "\t\treturn errors.New(\"config: timeout_seconds must be positive\")\n\t}\n\tif len(c.Services) == 0 {\n"
                "\t\treturn errors.New(\"config: at least one service is required\")\n\t}\n\treturn nil\n}\n")
    guard = "\tif c.MaxRetries < 0 {\n\t\treturn errors.New(\"config: max_retries cannot be negative\")\n\t}\n"
    update = ("\tif c.TimeoutSeconds <= 0 {\n\t\treturn errors.New(\"config: timeout_seconds must be positive\")\n\t}\n"
              + guard)
    want = document.replace("\tif len(c.Services)", guard + "\tif len(c.Services)")
    assert merge_update(document, update, "config.go").merged == want


def test_a_ruby_test_given_a_longer_title_is_a_rewrite_and_a_new_describe_is_new():
    """``it "needs a title" do`` rewritten as ``it "needs a title of at least 3 characters" do`` with a new body:
    the test is rewritten (its name grew), not kept beside the new one."""
    document = ('RSpec.describe Article do\n  it "is valid with a title" do\n    expect(build(:article)).to be_valid\n'
                '  end\n\n  it "needs a title" do\n    expect(build(:article, title: nil)).not_to be_valid\n  end\nend\n')
    update = ('  it "needs a title of at least 3 characters" do\n    expect(build(:article, title: "ab")).not_to be_valid\n'
              '  end\nend\n')
    start = document.index('  it "needs a title" do')
    assert merge_update(document, update, "article_spec.rb").merged == document[:start] + update


def test_a_line_shown_alone_that_resembles_two_file_lines_is_refused():
    document = TABLE.replace("| the peer fixtures, exact merges | 23 of 23 |", "| the held-in updates, exact | 600 of 702 |")
    with pytest.raises(UpdateError):
        merge_update(document, "| the held-out updates, exact | 637 of 702 |\n", "README.md")


def test_lines_that_rewrite_a_run_as_a_whole_replace_it():
    """A comment moved from one line to the next leaves each line unlike its old self but the run like its old
    run: the new lines after a shown line, up to a marker, rewrite the file's next lines, not join them."""
    document = ("NAMES = {\n    'down': 'ffn_down',\n}\nPERMUTED = ('llama',)\nRANK = 16  # float products need multiples"
                " of 16  # architectures whose converter reorders rows\n\n\ndef permute(rows):\n    return rows\n")
    update = ("# ... existing code ...\n    'down': 'ffn_down',\n}\nPERMUTED = ('llama',)  # architectures whose "
              "converter reorders rows\nRANK = 16  # float products need multiples of 16\n# ... existing code ...\n")
    want = document.replace("PERMUTED = ('llama',)\nRANK = 16  # float products need multiples of 16  # architectures "
                            "whose converter reorders rows\n", "PERMUTED = ('llama',)  # architectures whose converter "
                            "reorders rows\nRANK = 16  # float products need multiples of 16\n")
    assert merge_update(document, update, "python").merged == want


def test_context_lines_between_a_marker_and_a_rewritten_line_are_placed_near_it():
    """``else:`` shown after a marker above a rewritten line: too common to place the update, and not next to
    a placed line; kept new, it would be written twice and break the file, so it is found next to the change."""
    document = ("def budget(limit, reserve, windowed, name):\n    if windowed:\n        fixed = 0\n    else:\n"
                "        fixed = len(prefix_ids(TOKENIZER, '', name, EXAMPLES))\n    spare = limit - reserve - fixed\n"
                "    if spare < 0:\n        raise ValueError('too long')\n    else:\n        return spare\n")
    update = ("# ... existing code ...\n    else:\n        fixed = header_tokens(name)\n"
              "    spare = limit - reserve - fixed\n# ... existing code ...\n")
    want = document.replace("len(prefix_ids(TOKENIZER, '', name, EXAMPLES))", "header_tokens(name)")
    assert merge_update(document, update, "python").merged == want


def test_a_reading_that_takes_a_shown_line_for_new_code_loses_to_one_that_keeps_it():
    """A marker inside ``__init__`` also stands for the ``def rate`` line of the next method, whose last line
    the update shows: read by syntax, that line joins ``__init__`` as new code and ``rate`` is removed between
    two shown methods; lines keep it where the file has it.  The merge that keeps such lines wins."""
    document = ("class Rates:\n    EVERY = 16\n\n    def __init__(self, prior=0.6):\n        self.accepted = {}\n"
                "        self.drafted = {}\n        self.rounds = 0\n\n    def rate(self, kind):\n"
                "        return self.accepted[kind] / self.drafted[kind]\n\n    def record(self, kind, ok):\n"
                "        self.accepted[kind] += ok\n\n    def reset(self):\n        self.rounds = 0\n")
    update = ("# ... existing code ...\n    def __init__(self, prior=0.6, decay=0.8):\n        self.accepted = {}\n"
              "        # ... existing code ...\n        return self.accepted[kind] / self.drafted[kind]\n\n"
              "    def record(self, kind, ok):\n        self.accepted[kind] = self.accepted[kind] * self.decay + ok\n\n"
              "    # ... existing code ...\n")
    want = document.replace("prior=0.6)", "prior=0.6, decay=0.8)").replace(
        "self.accepted[kind] += ok", "self.accepted[kind] = self.accepted[kind] * self.decay + ok")
    assert merge_update(document, update, "python").merged == want


def test_new_lines_ending_the_update_rewrite_the_rest_of_their_block_when_keeping_it_breaks_the_file():
    """A ``finally:`` rewritten at the update's end, after a shown line: the file's own ``finally:`` kept after
    it would not parse, so the rest of the block is what the new lines rewrite, and the merge names the line
    they drop as removed unseen (not ``finally:`` and ``await client.stop()``, which the update shows again,
    nested deeper)."""
    document = ("async def test_edit(client):\n    try:\n        result = await client.edit(1, 2)\n"
                "        assert result.applied\n        await client.shutdown()\n    finally:\n        await client.stop()\n")
    update = ("# ... existing code ...\n        assert result.applied\n    finally:  # shut down even when it failed\n"
              "        try:\n            await asyncio.wait_for(client.shutdown(), 30)\n        finally:\n"
              "            await client.stop()\n")
    merge = merge_update(document, update, "python")
    assert merge.merged == document.split("    finally:")[0].replace("        await client.shutdown()\n", "") + \
        update.split("assert result.applied\n")[1]
    assert merge.unseen == ((5, 5),)


def test_a_line_next_to_a_marker_is_context_not_a_second_copy():
    """``def default_device():`` shown just above a marker, after a rewritten function and a new constant: the
    file's own line, not new text written beside it (the file would hold the function's line twice and the
    rewritten function's old tail under it)."""
    document = ('def half(dtype):\n    """The half-precision name,\n    or None for full precision.\n    """\n'
                '    if dtype not in (1, 2):\n        return None\n'
                '    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported") if dtype == 1 else \\\n'
                '        ("_is_amx_fp16_supported",)\n    if any(getattr(torch.cpu, check)() for check in checks):\n'
                '        return None\n'
                '    name = "bf16" if dtype == 1 else "fp16"\n    return name\n\n\ndef default_device():\n'
                '    return "cpu"\n')
    update = ('# ... existing code ...\n    or None for full precision.\n    """\n    if dtype not in NAMES:\n'
              '        return None\n    return NAMES[dtype]\n\n\nNAMES = {1: "bf16", 2: "fp16"}\n\n\n'
              'def default_device():\n    # ... existing code ...\n')
    want = document.replace('(1, 2)', 'NAMES').replace(document[document.index('    checks'):document.index('\n\n\n')],
                                                        '    return NAMES[dtype]\n\n\nNAMES = {1: "bf16", 2: "fp16"}')
    assert merge_update(document, update, "python").merged == want


def test_a_closing_line_before_a_marker_is_the_files_not_a_second_one():
    """New entries after a shown one, then the list's ``]`` and a marker: the file's own ``]``, in a file no
    grammar reads (TOML), where no parse would tell a second ``]``."""
    document = ('[project]\nname = "demo"\ndependencies = [\n    "pygls>=2",\n    "uvicorn>=0.30",\n]\n\n'
                '[project.scripts]\ndemo = "demo.cli:main"\n')
    added = '    "tree-sitter>=0.25",\n    "tree-sitter-python>=0.23",\n    "tree-sitter-go>=0.23",\n' \
        '    "tree-sitter-rust>=0.23",\n'
    update = '# ... existing code ...\n    "uvicorn>=0.30",\n' + added + ']\n# ... existing code ...\n'
    want = document.replace('    "uvicorn>=0.30",\n', '    "uvicorn>=0.30",\n' + added)
    assert merge_update(document, update, "pyproject.toml").merged == want


def test_a_new_function_like_an_old_one_goes_after_the_context_shown_next_to_the_marker():
    """A new function that repeats most lines of the one before it, shown after that one's last line: the
    repeated lines pull a plain alignment back onto the old function, writing its context line twice; the
    reading that trusts the line next to the marker inserts the new function after it."""
    old = ("async function applyUpdate(): Promise<void> {\n  if (!client?.isRunning()) {\n    void showError('not running');\n"
           "    return;\n  }\n  const running = client;\n  const text = await readClipboard();\n"
           "  const problem = validateUpdate(text);\n  if (problem !== undefined) {\n    void showWarning(problem);\n"
           "    return;\n  }\n  await runCommand(running, APPLY_COMMAND, buildApplyArgs(text));\n}\n")
    new = old.replace("applyUpdate", "applyAnswer").replace("validateUpdate", "validateAnswer").replace(
        "APPLY_COMMAND, buildApplyArgs", "ANSWER_COMMAND, buildAnswerArgs")
    document = "import { run } from './run';\n\n" + old + "\nfunction activate(): void {\n  run(applyUpdate);\n}\n"
    update = ("// ... existing code ...\n  await runCommand(running, APPLY_COMMAND, buildApplyArgs(text));\n}\n\n" + new +
              "\n// ... existing code ...\n")
    want = document.replace(old, old + "\n" + new)
    assert merge_update(document, update, "extension.ts").merged == want


def test_a_rewritten_line_pairs_with_the_file_line_most_like_it():
    """A route added at the end of a method chain shown after a marker: the old last route (which loses its
    semicolon) is the line rewritten, not the route before it, which the marker keeps."""
    document = ("pub fn router() -> Router {\n    let api = Router::new()\n        .route(\"/products\", get(products::list))\n"
                "        .route(\"/orders\", post(orders::create))\n        .route(\"/orders/:id\", get(orders::show));\n\n"
                "    Router::new().nest(\"/api\", api)\n}\n")
    update = ("pub fn router() -> Router {\n    let api = Router::new()\n        // ...\n"
              "        .route(\"/orders/:id\", get(orders::show))\n        .route(\"/orders/:id/cancel\", post(orders::cancel));\n"
              "\n    Router::new().nest(\"/api\", api)\n}\n")
    want = document.replace("get(orders::show));\n", "get(orders::show))\n        .route(\"/orders/:id/cancel\", "
                            "post(orders::cancel));\n")
    assert align_update(document, update).replaced == frozenset({5})
    assert merge_update(document, update, "router.rs").merged == want


KOTLIN_MODELS = """package shop

@Serializable
data class Book(
    val id: Long,
)

@Serializable
data class NewBook(
    val title: String,
)
"""


def test_new_code_after_a_marker_placed_only_by_lines_the_file_repeats_goes_at_the_end():
    update = "// ... existing models ...\n\n@Serializable\ndata class Page<T>(\n    val items: List<T>,\n)\n"
    merged = merge_update(KOTLIN_MODELS, update, "Models.kt").merged
    assert merged == KOTLIN_MODELS + "\n@Serializable\ndata class Page<T>(\n    val items: List<T>,\n)\n"



RUBY = """module M
  class A
    def a
      1
    end

    def b
      2
    end
  end
end
"""


def test_a_new_method_s_end_after_a_marker_is_its_own_not_the_last_kept_method_s():
    update = "module M\n  class A\n    # ... a and b unchanged ...\n    def c\n      3\n    end\n  end\nend\n"
    merged = merge_update(RUBY, update, "a.rb")
    assert "    def b\n      2\n    end\n" in merged.merged and merged.merged.count("end") == RUBY.count("end") + 1
    assert merged.merged.index("def b") < merged.merged.index("def c") and not merged.unseen


def test_a_return_rewritten_at_the_update_s_end_replaces_the_old_ending_of_its_block():
    """New lines that end the update (no marker after them) with a ``return`` leave no room for the file's old
    ending of that block: kept after it, the old ``return`` would be dead code beside its rewrite."""
    document = ("def is_balanced(parens):\n    depth = 0\n    for paren in parens:\n        depth += 1 if paren == '(' else -1\n"
                "        if depth < 0:\n            return False\n\n    return True\n\n\ndef main():\n    print(is_balanced('()'))\n")
    update = "# ...\n        if depth < 0:\n            return False\n\n    return depth == 0\n"
    assert merged(update, document) == document.replace("    return True\n", "    return depth == 0\n")
    # a return inside a new ``if`` adds a check: what follows the block it leaves stays
    guard = "# ...\n    depth = 0\n    if not parens:\n        return True\n"
    assert merged(guard, document) == document.replace("    depth = 0\n", "    depth = 0\n    if not parens:\n"
                                                                        "        return True\n")


def test_a_file_without_a_final_newline_keeps_it_so_when_a_block_rewrites_it_whole():
    """A fenced block always ends its last line: the file's missing final newline is the file's, and stays."""
    document = "[server]\nhost = \"localhost\"\nport = 8080\nworkers = 4"
    update = "[server]\nhost = \"0.0.0.0\"\nport = 8080\nworkers = 4\n"
    merge = merge_update(document, update, "toml")
    assert merge.whole_file and merge.merged == update.rstrip("\n")


def test_an_update_that_starts_with_the_file_s_first_line_then_a_marker_starts_where_the_file_does():
    """A JSON file's ``{`` is too short to be placed in the first pass: shown first and followed by a marker, it
    is the file's own opening, not a second one."""
    document = '{\n  "name": "api",\n  "private": true,\n  "scripts": {\n    "dev": "node src/server.js"\n  }\n}\n'
    update = '{\n  // ...existing code...\n  "scripts": {\n    "dev": "node --watch src/server.js"\n  }\n}\n'
    assert merge_update(document, update, "json").merged == document.replace("node src", "node --watch src")


def test_a_line_rewritten_over_two_lines_replaces_the_old_one():
    """``RUN pip wheel .`` given a cache mount and a continuation: the new lines hold all of the old line's words
    and start as it did, so they rewrite it rather than follow it."""
    document = "FROM python:3.12-slim\nCOPY app ./app\nRUN pip wheel --wheel-dir /wheels .\n\nFROM base AS runtime\n"
    update = ("COPY app ./app\nRUN --mount=type=cache,target=/root/.cache/pip \\\n    pip wheel --wheel-dir /wheels .\n\n"
              "# ... existing code ...\n")
    assert merge_update(document, update, "Dockerfile").merged == document.replace(
        "RUN pip wheel --wheel-dir /wheels .\n", update.split("COPY app ./app\n")[1].split("\n\n")[0] + "\n")


def test_a_new_method_s_decorator_after_a_marker_is_its_own_not_the_file_s():
    """``@property`` over a new method, after a marker, is the new method's: the reading that takes it for the
    file's (keeping the file's property below the new code, cut from its decorator) is not the one kept."""
    document = ('class Project(models.Model):\n    name = models.CharField(max_length=120)\n'
                '    due_date = models.DateField(null=True)\n\n    def __str__(self):\n        return self.name\n\n'
                '    @property\n    def is_overdue(self):\n        return self.due_date < timezone.localdate()\n')
    update = ('class Project(models.Model):\n    # ... existing fields ...\n    due_date = models.DateField(null=True)\n'
              '    archived_at = models.DateTimeField(null=True)\n\n    # ... __str__ and is_overdue unchanged ...\n\n'
              '    @property\n    def is_archived(self):\n        return self.archived_at is not None\n')
    assert merge_update(document, update, "models.py").merged == document.replace(
        "null=True)\n\n", "null=True)\n    archived_at = models.DateTimeField(null=True)\n\n") + \
        "\n    @property\n    def is_archived(self):\n        return self.archived_at is not None\n"


RUBY_CLI = """module Tally
  class CLI
    def run_start
      @store.start(@argv.first)
      0
    end

    def run_report
      totals.each do |project, secs|
        @out.puts format("%-20s %s", project, secs)
      end
      0
    end
  end
end
"""


def test_a_new_method_whose_last_lines_repeat_another_s_is_new_code_whole():
    """A method the file does not define (Ruby, no grammar here) ends as the one before it does (``end``,
    ``0``, ``end``): its lines are no place in the file, so it goes after what the marker keeps, set apart by
    a blank line as the file sets its methods apart."""
    update = ("module Tally\n  class CLI\n    # ... the existing run_* methods stay as they are ...\n    def run_export\n"
              "      @out.print Entry.to_csv(@store.all)\n      0\n    end\n  end\nend\n")
    new = "\n    def run_export\n      @out.print Entry.to_csv(@store.all)\n      0\n    end\n"
    assert merge_update(RUBY_CLI, update, "cli.rb").merged == RUBY_CLI.replace("      0\n    end\n  end\nend\n",
                                                                             "      0\n    end\n" + new + "  end\nend\n")


def test_a_renamed_definition_is_the_file_s_rewritten_not_new_code():
    document = ("def _patched(f):\n    \"\"\"Patches a function.\"\"\"\n\n    def wrapped(*args):\n"
                "        return f(*args, send=False)\n\n    return wrapped\n\n\nget = _patched(api.get)\n")
    update = "def patched(f):\n    \"\"\"Patches a function.\"\"\"\n\n    # ... existing code ...\n    return wrapped\n"
    assert merge_update(document, update, "x.py").merged == document.replace("def _patched", "def patched")


def test_a_definition_renamed_with_its_body_shown_again_replaces_the_file_s():
    document = ("def test_requests(per_corpus):\n    requests = []\n    for corpus, items in corpus_pairs().items():\n"
                "        requests += chosen(items, per_corpus)\n    return requests\n\n\ndef run(args):\n"
                "    return test_requests(4)\n")
    update = ("# ...\ndef held_out_requests(per_corpus):\n    requests = []\n    for corpus, items in corpus_pairs().items():\n"
              "        requests += chosen(items, per_corpus)\n    return requests\n# ...\n")
    assert merge_update(document, update, "bench.py").merged == document.replace("def test_requests",
                                                                                "def held_out_requests")


def test_a_changed_control_line_or_call_is_not_a_new_definition():
    """Only a line that declares a name the file does not define opens new code: a rewritten ``app.get(...)``
    route or ``if`` line keeps the lines under it anchored in the file (read by lines: no grammar here)."""
    document = ("app.get('/items', (req, res) => {\n  const items = store.list();\n  res.json(items);\n});\n\n"
                "app.get('/health', (req, res) => {\n  res.send('ok');\n});\n")
    update = ("app.get('/items', requireAuth, (req, res) => {\n  const items = store.list();\n  res.json(items);\n});\n\n"
              "// ... existing code ...\n")
    assert merge_update(document, update, "routes.groovy").merged == document.replace(
        "app.get('/items', (req, res)", "app.get('/items', requireAuth, (req, res)")


def test_a_marker_may_list_what_it_elides():
    assert is_marker("    // ... (index, show, create and update remain the same)\n")


def test_new_members_between_a_marker_and_the_class_s_closing_brace_go_inside_the_class():
    """Members the file does not have, after a marker, ending with the class's ``}`` (Allman braces): they go
    before the file's closing brace, not after it, and the last method's ``}`` is not taken for theirs."""
    document = ("public class OrdersController : ControllerBase\n{\n    public IActionResult Delete(int id)\n    {\n"
                "        return NoContent();\n    }\n}\n")
    update = ("// ...existing code...\n\n    public IActionResult Cancel(int id)\n    {\n        return NoContent();\n"
              "    }\n}\n")
    assert merge_update(document, update, "OrdersController.razor").merged == document.replace(
        "    }\n}\n", "    }\n\n    public IActionResult Cancel(int id)\n    {\n        return NoContent();\n    }\n}\n")


def test_new_css_rules_after_a_marker_are_new_code_not_a_rewrite_of_a_rule_they_share_a_line_with():
    document = (".list__error {\n  color: #b91c1c;\n}\n.list__footer {\n  display: flex;\n}\n")
    update = "/* ... existing styles ... */\n.list__clear {\n  border: none;\n  color: #b91c1c;\n}\n"
    assert merge_update(document, update, "list.css").merged == document + update.split("*/\n")[1]


def test_a_doc_comment_line_that_mentions_what_remains_is_prose_not_a_marker():
    assert not is_marker("     * the remaining rows are still processed.\n")
    assert is_marker("    /* ... existing code ... */\n")


def test_a_new_block_assigned_to_a_name_is_new_code_not_a_rewrite_of_the_one_before():
    """``val MIGRATION_3_4 = object ... {`` after a marker: its ``override fun migrate`` is not the previous
    migration's (which it would cut in two), and its braces are no place in the file either."""
    document = ("    companion object {\n        val MIGRATION_1_2 = object : Migration(1, 2) {\n"
                "            override fun migrate(db: SupportSQLiteDatabase) {\n                db.execSQL(\"A\")\n"
                "            }\n        }\n\n        val MIGRATION_2_3 = object : Migration(2, 3) {\n"
                "            override fun migrate(db: SupportSQLiteDatabase) {\n                db.execSQL(\"B\")\n"
                "            }\n        }\n\n        fun get(): AppDatabase = INSTANCE\n    }\n")
    update = ("    // ... existing code ...\n\n        val MIGRATION_3_4 = object : Migration(3, 4) {\n"
              "            override fun migrate(db: SupportSQLiteDatabase) {\n                db.execSQL(\"C\")\n"
              "            }\n        }\n\n        fun get(): AppDatabase = INSTANCE\n    }\n")
    new = update.split("...\n\n")[1].split("\n\n")[0] + "\n\n"
    assert merge_update(document, update, "AppDatabase.kts.txt").merged == document.replace(
        "        fun get()", new + "        fun get()")


SCRIPT = ("#!/usr/bin/env bash\nset -euo pipefail\n. .venv/bin/activate\nsay \"building $VERSION\"\n"
          "python -m build -q --outdir \"$WORK/dist\" . >\"$WORK/build.log\" 2>&1 || fail \"build failed\"\n"
          "deactivate\nWHEEL=$(ls \"$WORK\"/dist/*.whl)\nSDIST=$(ls \"$WORK\"/dist/*.tar.gz)\n"
          "python3 -m venv \"$WORK/venv\"\n. \"$WORK/venv/bin/activate\"\npip install \"$WHEEL\"\ndeactivate\n"
          "say \"passed\"\n")
NEW_BUILD = ("mkdir \"$WORK/src\"\ngit archive HEAD | tar -x -C \"$WORK/src\"\n"
             "python -m build -q --outdir \"$WORK/dist\" \"$WORK/src\" >\"$WORK/build.log\" 2>&1 || fail \"build failed\"\n")


def test_a_line_shown_before_a_marker_that_the_file_has_twice_is_still_the_one_after_the_rewritten_line():
    """``deactivate`` after a rewritten command, then a marker: the file has ``deactivate`` twice, so it places
    nothing alone; written as new, the old command would stay beside its rewrite.  The line next to the marker
    is context, found near the change."""
    why = "# From a copy of the tracked files: files the checkout\n# holds but git does not would go in.\n"
    update = "# ... existing code ...\nsay \"building $VERSION\"\n" + why + NEW_BUILD + "deactivate\n" \
        "# ... existing code ...\nsay \"passed\"\n"
    want = SCRIPT.replace(SCRIPT.split("\n")[4] + "\n", why + NEW_BUILD)
    assert merge_update(SCRIPT, update, "package.sh").merged == want
    assert merge_update(SCRIPT, update).merged == want  # line by line too


def test_a_run_of_new_lines_between_markers_ending_with_a_rewritten_line_goes_in_its_place():
    """New lines between two markers whose last line rewrites a file line (the build command gains a source
    folder, the lines before it prepare that folder): they go where that line was, not after the stretch the
    first marker keeps."""
    update = "# ... keep existing code ...\n" + NEW_BUILD + "# ... keep existing code ...\nSDIST=$(ls \"$WORK\"/dist/*.tar.gz)\n" \
        "# ... keep existing code ...\n"
    want = SCRIPT.replace(SCRIPT.split("\n")[4] + "\n", NEW_BUILD)
    assert merge_update(SCRIPT, update, "package.sh").merged == want
    assert merge_update(SCRIPT, update).merged == want


def test_new_code_appended_after_a_marker_below_the_file_s_last_line_shown_as_context_does_not_repeat_it():
    """A new test after a marker, below the last test's ``assert`` (a line the file has in several tests, so it
    places nothing): that line is the file's last one, shown as context, and is not written twice."""
    document = ("def test_one():\n    got = run(1)\n    assert got == want\n\n\n"
                "def test_two():\n    got = run(2)\n    assert got == want\n")
    update = ("# ... existing code ...\n    assert got == want\n\n\ndef test_three():\n    got = run(3)\n"
              "    assert got.ok\n")
    assert merge_update(document, update, "test_run.py").merged == document + update.split("want\n", 1)[1]
    assert merge_update(document, update).merged == document + update.split("want\n", 1)[1]


def test_a_marker_like_line_the_file_holds_as_text_still_elides_where_the_update_shows_it_elsewhere():
    """A test file whose text holds ``# ... existing code ...`` (an update inside a string): the update's own
    markers, away from that text's neighbours, still elide; shown with its neighbours, the line is the file's."""
    document = ('UPDATE = """\n# ... existing code ...\nx = 2\n"""\nOTHER = """\n# ... existing code ...\nz = 5\n"""\n\n\n'
                'def test_update():\n    assert merge(UPDATE) == 2\n\n\nLIMIT = 3\n')
    update = "# ... existing code ...\nLIMIT = 4\n"
    assert merge_update(document, update, "test_x.py").merged == document.replace("LIMIT = 3", "LIMIT = 4")
    assert merge_update(document, update).merged == document.replace("LIMIT = 3", "LIMIT = 4")
    inside = 'UPDATE = """\n# ... existing code ...\nx = 3\n"""\n'
    assert merge_update(document, inside).merged == document.replace("x = 2", "x = 3")
    new_test = ('# ... other tests unchanged ...\n\n\ndef test_two_markers():\n    snippet = """\n'
                '# ... existing code ...\ny = 1\n"""\n    assert merge(snippet) == 1\n')
    want = document + new_test.split("unchanged ...\n", 1)[1]
    assert merge_update(document, new_test, "test_x.py").merged == want  # its snippet's marker is text
    assert merge_update(document, new_test).merged == want


def test_a_line_shown_after_a_marker_is_not_written_again_beside_the_copy_the_marker_keeps():
    """A marker inside a loop, then ``continue`` (the file has several), ``name = item.name`` (once) and a
    rewrite of the lines after it: placing ``name`` would cost the long lines the rewrite drops, so the plain
    reading writes it new, and the marker keeps the file's own ``name`` line and the old lines beside it.  A
    line written again where the marker keeps its copy, with no shown line between, is context taken for new
    code: the reading that trusts context near markers places it."""
    document = ('def collect(items, seen):\n    """The items\' names, each with its length up to the limit."""\n'
                '    out = []\n    for item in items:\n        if item in seen:\n            continue\n'
                '        name = item.name\n        if not name:\n            continue\n'
                '        depth, size, limit_reached = 0, 0, False\n'
                '        while size < len(name) and not limit_reached:\n'
                '            size, limit_reached = size + 1, size + 1 >= LIMIT_OF_NAMES\n'
                '            if limit_reached and depth < MAXIMUM_DEPTH_OF_NAMES:\n'
                '                depth, size = depth + 1, LIMIT_OF_NAMES\n'
                '        out.append((name, size))\n    return out\n')
    update = ('# ... existing code ...\n    for item in items:\n        # ... existing code ...\n            continue\n'
              '        name = item.name\n        if not name or name.startswith("_"):\n            continue\n'
              '        size = min(len(name), LIMIT_OF_NAMES)\n        out.append((name, size))\n    return out\n')
    want = document.replace('        if not name:\n', '        if not name or name.startswith("_"):\n')
    want = want[:want.index('        depth, size')] + '        size = min(len(name), LIMIT_OF_NAMES)\n' + \
        want[want.index('        out.append'):]
    assert merge_update(document, update, "collect.py").merged == want
    assert merge_update(document, update).merged == want


def test_a_line_rewritten_below_a_context_line_the_file_repeats_does_not_stay_beside_its_rewrite():
    """``return None`` (the file has it three times) shown after a marker, then an ``if`` rewritten over new
    lines above a line the file has once: the plain reading places only that line, so the marker keeps the old
    ``if`` and the new one lands below it.  A new line so like a kept one a few lines away, with no surely placed
    line between, means the marker kept what the update rewrote: the reading that trusts context near markers
    places ``return None`` and the rewrite replaces the old ``if``."""
    document = ('def pick(units, names):\n    """The units shown, unless one defines a name again."""\n'
                '    shown = [u for u in units if u.shown]\n    if not shown:\n        return None\n'
                '    if any(u.key is not None and u.key[0] == "function" and u.key[1].rsplit(".", 1)[-1] in\n'
                '           {key[1].rsplit(".", 1)[-1] for key in names if key[0] == "function"} '
                'for u in _walk(shown)):\n'
                '        return None  # it defines again functions the file has\n    return shown\n\n\n'
                'def other(units):\n    if not units:\n        return None\n    return units[0]\n')
    update = ('# rest unchanged\n        return None\n'
              '    functions = {key[1].rsplit(".", 1)[-1] for key in names if key[0] == "function"}\n'
              '    if any(u.key is not None and u.key[0] == "function" and u.key[1].rsplit(".", 1)[-1] in functions\n'
              '           for u in _walk(shown)):\n        return None  # it defines again functions the file has\n'
              '# rest unchanged\n')
    lines = document.split("\n")
    want = "\n".join(lines[:5] + update.split("\n")[2:6] + lines[8:])
    assert merge_update(document, update, "pick.py").merged == want
    assert merge_update(document, update).merged == want


def test_a_marker_at_the_left_edge_after_new_lines_inside_a_function_keeps_the_function_s_rest():
    """Windsurf puts ``{{ ... }}`` at the left edge: after an effect rewritten inside a hook, it stands for the
    hook's remaining lines, not for what follows the hook (the new lines do not close it)."""
    document = ("export function useSearch(limit) {\n  const [q, setQ] = useState('');\n  useEffect(() => {\n"
                "    search(q, { limit })\n      .finally(() => {\n        setBusy(false);\n      });\n"
                "  }, [q, limit]);\n\n  const clear = useCallback(() => {\n    setQ('');\n  }, []);\n\n"
                "  return { q, setQ, clear };\n}\n")
    update = ("export function useSearch(limit) {\n{{ ... }}\n  useEffect(() => {\n    const c = new AbortController();\n"
              "    search(q, { limit, signal: c.signal })\n      .finally(() => {\n        setBusy(false);\n      });\n\n"
              "    return () => c.abort();\n  }, [q, limit, minLength]);\n{{ ... }}\n")
    want = document.replace("  useEffect(() => {\n    search(q, { limit })\n", "  useEffect(() => {\n"
                            "    const c = new AbortController();\n    search(q, { limit, signal: c.signal })\n")
    want = want.replace("      });\n  }, [q, limit]);\n", "      });\n\n    return () => c.abort();\n  }, [q, limit, minLength]);\n")
    assert merge_update(document, update, "useSearch.ts").merged == want
    placement = align_update(document, update)  # line by line too: the last marker keeps from the blank line on
    assert placement.kept[len(placement.lines) - 1] == (9, 15) and placement.replaced == {8}


MINIMAL_API = """var todos = app.MapGroup("/api/todos");

todos.MapGet("/{id:int}", async Task<Results<Ok<TodoResponse>, NotFound>> (
    int id, ClaimsPrincipal user, ITodoService service, CancellationToken ct) =>
{
    var todo = await service.GetAsync(OwnerId(user), id, ct);
    return todo is null ? TypedResults.NotFound() : TypedResults.Ok(TodoResponse.From(todo));
})
.WithName("GetTodo");

todos.MapPut("/{id:int}", async Task<Results<Ok<TodoResponse>, NotFound>> (
    int id, UpdateTodoRequest request, ClaimsPrincipal user, ITodoService service, CancellationToken ct) =>
{
    var todo = await service.UpdateAsync(OwnerId(user), id, request, ct);
    return todo is null ? TypedResults.NotFound() : TypedResults.Ok(TodoResponse.From(todo));
})
.WithName("UpdateTodo");

todos.MapDelete("/{id:int}", async Task<Results<NoContent, NotFound>> (
    int id, ClaimsPrincipal user, ITodoService service, CancellationToken ct) =>
{
    var deleted = await service.DeleteAsync(OwnerId(user), id, ct);
    return deleted ? TypedResults.NoContent() : TypedResults.NotFound();
})
.WithName("DeleteTodo");

app.Run();
"""


def test_new_minimal_api_endpoints_after_a_shown_one_are_new_routes_not_rewrites_of_the_next():
    """Copilot's ``// ...existing code...`` then ``.WithName("UpdateTodo");`` and two new endpoints: their
    parameter lines repeat every endpoint's, so they are no place (the endpoints the update does not show
    hold them), and ``MapDelete("/{id:int}/complete", ...`` is another route than ``MapDelete("/{id:int}"``,
    not its rewrite."""
    new = ('todos.MapPost("/{id:int}/complete", async Task<Results<Ok<TodoResponse>, NotFound>> (\n'
           '    int id, ClaimsPrincipal user, ITodoService service, CancellationToken ct) =>\n{\n'
           '    var todo = await service.SetCompletedAsync(OwnerId(user), id, completed: true, ct);\n'
           '    return todo is null ? TypedResults.NotFound() : TypedResults.Ok(TodoResponse.From(todo));\n})\n'
           '.WithName("CompleteTodo");\n\n'
           'todos.MapDelete("/{id:int}/complete", async Task<Results<Ok<TodoResponse>, NotFound>> (\n'
           '    int id, ClaimsPrincipal user, ITodoService service, CancellationToken ct) =>\n{\n'
           '    var todo = await service.SetCompletedAsync(OwnerId(user), id, completed: false, ct);\n'
           '    return todo is null ? TypedResults.NotFound() : TypedResults.Ok(TodoResponse.From(todo));\n})\n'
           '.WithName("ReopenTodo");\n\n')
    update = '// ...existing code...\n.WithName("UpdateTodo");\n\n' + new + '// ...existing code...\n'
    want = MINIMAL_API.replace('.WithName("UpdateTodo");\n\n', '.WithName("UpdateTodo");\n\n' + new)
    assert merge_update(MINIMAL_API, update, "Program.cs").merged == want


def test_a_command_continued_over_lines_rewritten_takes_its_continuation_with_it():
    document = ("FROM node:20-alpine AS deps\nWORKDIR /app\nCOPY package.json package-lock.json ./\n"
                "RUN npm ci --omit=dev --ignore-scripts \\\n    && npm cache clean --force\n\n"
                "FROM node:20-alpine AS build\nCOPY package.json package-lock.json ./\nRUN npm ci --ignore-scripts\n")
    update = ("{{ ... }}\nWORKDIR /app\nCOPY package.json package-lock.json ./\nRUN --mount=type=cache,target=/root/.npm \\\n"
              "    npm ci --omit=dev --ignore-scripts\n\n{{ ... }}\n")
    want = document.replace("RUN npm ci --omit=dev --ignore-scripts \\\n    && npm cache clean --force\n",
                            "RUN --mount=type=cache,target=/root/.npm \\\n    npm ci --omit=dev --ignore-scripts\n")
    assert merge_update(document, update, "Dockerfile").merged == want


def test_windsurf_markers_at_the_left_edge_keep_the_rest_of_a_yaml_block():
    """``{{ ... }}`` at the left edge after a service's new lines: the service's other keys stay (its
    indentation says nothing of the block it ends)."""
    document = ("services:\n  api:\n    build: .\n    restart: unless-stopped\n  worker:\n    build: .\n"
                "    command: [\"node\", \"worker.js\"]\n    environment:\n      CONCURRENCY: \"4\"\n\nvolumes:\n  data:\n")
    update = ("{{ ... }}\n  worker:\n    image: ${API_IMAGE:-api:dev}\n    build: .\n    command: [\"node\", \"worker.js\"]\n"
              "    healthcheck:\n      disable: true\n{{ ... }}\n")
    want = document.replace("  worker:\n    build: .\n", "  worker:\n    image: ${API_IMAGE:-api:dev}\n    build: .\n")
    want = want.replace("worker.js\"]\n", "worker.js\"]\n    healthcheck:\n      disable: true\n")
    assert merge_update(document, update, "docker-compose.yml").merged == want


PHP_CONTROLLER = """<?php

namespace App\\Http\\Controllers;

use Illuminate\\Http\\Request;
use Illuminate\\View\\View;

class InvoiceController extends Controller
{
    public function index(Request $request): View
    {
        return view('invoices.index', ['invoices' => $this->filteredQuery($request)->paginate(25)]);
    }

    public function show(Invoice $invoice): View
    {
        return view('invoices.show', compact('invoice'));
    }
}
"""


def test_a_class_shown_down_to_a_new_method_without_its_closing_brace_keeps_the_rest_of_the_class():
    """ChatGPT shows the class, ``index`` with its body elided, the new method, and stops: the class's ``}``
    is left out. The braces the update opens and does not close end where the file's do, after the rest of
    the class (the other methods were removed, or the merge refused as breaking the file)."""
    export = ("    public function export(Request $request): StreamedResponse\n    {\n"
              "        return response()->streamDownload(fn () => $this->csv($request), 'invoices.csv');\n    }\n")
    update = ("use Illuminate\\View\\View;\nuse Symfony\\Component\\HttpFoundation\\StreamedResponse;\n\n"
              "class InvoiceController extends Controller\n{\n    // ...\n\n"
              "    public function index(Request $request): View\n    {\n        // ... unchanged\n    }\n\n" + export)
    want = PHP_CONTROLLER.replace("use Illuminate\\View\\View;\n", "use Illuminate\\View\\View;\n"
                                  "use Symfony\\Component\\HttpFoundation\\StreamedResponse;\n")
    want = want.replace("    public function show", export + "\n    public function show")
    assert merge_update(PHP_CONTROLLER, update, "InvoiceController.php").merged == want


def test_a_template_s_last_closing_tag_shown_after_new_lines_is_the_file_s_not_a_new_one():
    """The header's ``</div>`` ends the update after a new wrapper's ``</div>``: it placed nothing (the lines
    inside the wrapper are indented anew), and written as new the file's own stayed after it."""
    document = ("@section('content')\n    <div class=\"flex items-center justify-between mb-6\">\n"
                "        <h1 class=\"text-2xl font-semibold\">Invoices</h1>\n"
                "        @can('create', App\\Models\\Invoice::class)\n"
                "            <a href=\"{{ route('invoices.create') }}\" class=\"btn btn-primary\">New invoice</a>\n"
                "        @endcan\n    </div>\n\n"
                "    <form method=\"GET\" action=\"{{ route('invoices.index') }}\" class=\"grid gap-3 mb-6\">\n"
                "        <input type=\"search\" name=\"q\" value=\"{{ request('q') }}\" placeholder=\"Number or client\"\n")
    update = ("    <div class=\"flex items-center justify-between mb-6\">\n"
              "        <h1 class=\"text-2xl font-semibold\">Invoices</h1>\n        <div class=\"flex items-center gap-2\">\n"
              "            <a href=\"{{ route('invoices.export') }}\" class=\"btn btn-secondary\">\n"
              "                Export CSV\n            </a>\n            @can('create', App\\Models\\Invoice::class)\n"
              "                <a href=\"{{ route('invoices.create') }}\" class=\"btn btn-primary\">New invoice</a>\n"
              "            @endcan\n        </div>\n    </div>\n")
    lines = document.splitlines(True)
    want = "".join(lines[:1]) + update + "".join(lines[7:])
    assert merge_update(document, update, "index.blade.php").merged == want


def test_a_new_function_whose_name_extends_a_file_function_s_is_new_not_that_one_renamed():
    """``format_summary_json`` after a marker, beside the file's ``format_summary`` whose first lines it
    repeats: a sibling added, not a rename, so the old function keeps its body."""
    document = ('def format_summary(entries, top=5):\n    """The top tags, as text."""\n'
                '    totals = totals_by_tag(entries)\n    if not totals:\n        return "Nothing to summarise."\n'
                '    shown = list(totals.items())[:top]\n    return "\\n".join(f"{n}: {t}" for n, t in shown)\n')
    update = ('# ... existing code ...\n\n\ndef format_summary_json(entries, top=5):\n    """The top tags, as JSON."""\n'
              '    totals = totals_by_tag(entries)\n    shown = list(totals.items())[:top]\n'
              '    return json.dumps([{"tag": n, "minutes": t} for n, t in shown])\n')
    want = document + update.split("...\n", 1)[1]
    assert merge_update(document, update, "formatting.py").merged == want
    assert merge_update(document, update).merged == want


def test_closing_lines_of_a_rewritten_body_before_a_new_method_close_the_shown_block():
    """``syncIfEmpty`` shown with its body rewritten down to one call, its ``}`` lines, then a new method: the
    ``}`` lines are the method's own (the old body between goes), not new ones written before the file's."""
    document = ("class NotesRepository {\n    suspend fun syncIfEmpty() = withContext(io) {\n"
                "        if (dao.count() == 0) {\n            val remote = api.getNotes()\n"
                "            dao.upsertAll(remote.map { it.toEntity() })\n        }\n    }\n\n"
                "    suspend fun exportAll(): String = withContext(io) {\n        dao.getAll().joinToString(\"\\n\")\n    }\n}\n")
    update = ("// ... existing code ...\n    suspend fun syncIfEmpty() = withContext(io) {\n        if (dao.count() == 0) {\n"
              "            refresh()\n        }\n    }\n\n    suspend fun refresh() = withContext(io) {\n"
              "        dao.upsertAll(api.getNotes().map { it.toEntity() })\n    }\n\n    // ... existing code ...\n}\n")
    want = document.replace("            val remote = api.getNotes()\n            dao.upsertAll(remote.map { it.toEntity() })\n",
                            "            refresh()\n")
    want = want.replace("    }\n\n    suspend fun exportAll", "    }\n\n    suspend fun refresh() = withContext(io) {\n"
                        "        dao.upsertAll(api.getNotes().map { it.toEntity() })\n    }\n\n    suspend fun exportAll")
    assert merge_update(document, update).merged == want



def test_an_update_that_ends_inside_a_test_is_a_snippet_not_a_block_left_open():
    """A test shown from its first line to a new assertion, and no further: the file's lines after it stay as
    they are (only a class left open gets its closing lines: there the update's end is the class's)."""
    document = ("import { parse } from '../src/args';\n\nsuite('args', () => {\n  test('splits words', () => {\n"
                "    assert.deepStrictEqual(parse('a b'), ['a', 'b']);\n  });\n\n  test('keeps quotes', () => {\n"
                "    assert.deepStrictEqual(parse('\"a b\" c'), ['a b', 'c']);\n  });\n\n  test('empty', () => {\n"
                "    assert.deepStrictEqual(parse(''), []);\n  });\n});\n")
    update = ("// ... existing code ...\n  test('keeps quotes', () => {\n"
              "    assert.deepStrictEqual(parse('\"a b\" c'), ['a b', 'c']);\n"
              "    assert.deepStrictEqual(parse(\"'a b' c\"), ['a b', 'c']);\n")
    want = document.replace("['a b', 'c']);\n  });", "['a b', 'c']);\n"
                            "    assert.deepStrictEqual(parse(\"'a b' c\"), ['a b', 'c']);\n  });")
    assert merge_update(document, update, "args.test.ts").merged == want


EXPRESS_ROUTES = """export function usersRouter(service: UserService): Router {
  const router = Router();

  router.get(
    '/:id',
    wrap(async (req, res) => {
      res.json(await service.get(req.params.id));
    }),
  );

  router.post(
    '/',
    wrap(async (req, res) => {
      const body = req.body as Record<string, unknown>;
      res.status(201).json(await service.create(body));
    }),
  );

  router.patch(
    '/:id',
    wrap(async (req, res) => {
      res.json(await service.update(req.params.id, req.body));
    }),
  );

  router.delete(
    '/:id',
    wrap(async (req, res) => {
      await service.remove(req.params.id);
      res.status(204).end();
    }),
  );

  return router;
}
"""


def test_a_new_route_whose_path_is_on_the_line_below_its_opener_is_a_new_route():
    """Copilot's ``router.patch(`` with its body elided, then a new ``router.post(`` whose path is on the next
    line: the opener line is the file's (another route has it) but the route is new, so its lines (the body
    of ``router.post('/')``, the ``}),`` and ``);`` of every route) place nothing."""
    new = ("  router.post(\n    '/:id/password',\n    wrap(async (req, res) => {\n"
           "      const body = req.body as Record<string, unknown>;\n"
           "      await service.changePassword(req.params.id, body.password);\n      res.status(204).end();\n"
           "    }),\n  );\n\n")
    update = ("// ...existing code...\n\n  router.patch(\n    '/:id',\n    // ...existing code...\n  );\n\n" + new +
              "  router.delete(\n// ...existing code...\n")
    want = EXPRESS_ROUTES.replace("  router.delete(", new + "  router.delete(")
    assert merge_update(EXPRESS_ROUTES, update, "users.ts").merged == want


@pytest.mark.parametrize("new, old, other", [
    ("import { UpdateOrderStatusDto } from './dto/update-order-status.dto';",
     "import { Order } from './entities/order.entity';", True),
    ("import { Order, OrderStatus } from './entities/order.entity';",
     "import { Order } from './entities/order.entity';", False),
    ("from app.models import Task, Label", "from app.models import Task", False),
    ("import com.acme.shop.domain.Invoice;", "import com.acme.shop.domain.Order;", True),
    ("use std::io::{Read, Write};", "use std::io::Read;", False),
    ("use std::fs;", "use std::io;", True),
])
def test_an_import_of_another_module_is_another_entry_the_same_module_s_a_rewrite(new, old, other):
    from cad_lsp.program.lines.likeness import other_entries

    assert other_entries(new, old) is other


def test_an_import_added_after_a_shown_one_does_not_replace_the_next():
    document = ("import { CancelOrderDto } from './dto/cancel-order.dto';\nimport { ListOrdersQueryDto } from './dto/list.dto';\n"
                "import { Order } from './entities/order.entity';\nimport { OrdersService } from './orders.service';\n\n"
                "export class OrdersController {}\n")
    update = ("// ...existing code...\nimport { ListOrdersQueryDto } from './dto/list.dto';\n"
              "import { UpdateOrderStatusDto } from './dto/update-order-status.dto';\n// ...existing code...\n")
    want = document.replace("list.dto';\n", "list.dto';\nimport { UpdateOrderStatusDto } from './dto/update-order-status.dto';\n")
    assert merge_update(document, update, "orders.controller.ts").merged == want
    assert merge_update(document, update).merged == want


def test_new_lines_ending_with_an_inner_closing_brace_before_a_left_edge_marker_keep_the_function_s_rest():
    """Gemini's ``// ... existing code ...`` at the left edge after a new ``if`` block inside ``Load``: the new
    lines end with the ``if``'s ``}``, not the function's, so the marker stands for the rest of ``Load``."""
    document = ("func Load() (*Config, error) {\n\tcfg := &Config{}\n\tvar err error\n"
                "\tif cfg.ShutdownTimeout, err = getDuration(\"API_SHUTDOWN_TIMEOUT\", 10*time.Second); err != nil {\n"
                "\t\treturn nil, err\n\t}\n\n\tmaxBody := getEnv(\"API_MAX_BODY_BYTES\", \"1048576\")\n"
                "\tif cfg.MaxBodyBytes, err = strconv.ParseInt(maxBody, 10, 64); err != nil {\n"
                "\t\treturn nil, fmt.Errorf(\"config: API_MAX_BODY_BYTES: %w\", err)\n\t}\n\treturn cfg, nil\n}\n")
    new = "\tif cfg.LogRequests, err = getBool(\"API_LOG_REQUESTS\", true); err != nil {\n\t\treturn nil, err\n\t}\n"
    update = ("// ... existing code ...\n\n"
              "\tif cfg.ShutdownTimeout, err = getDuration(\"API_SHUTDOWN_TIMEOUT\", 10*time.Second); err != nil {\n"
              "\t\treturn nil, err\n\t}\n" + new + "\n// ... existing code ...\n")
    want = document.replace("\t\treturn nil, err\n\t}\n\n\tmaxBody", "\t\treturn nil, err\n\t}\n" + new +
                            "\n\tmaxBody")
    assert merge_update(document, update, "config.go").merged == want
    assert merge_update(document, update).merged == want



def test_a_closing_brace_the_update_shows_after_a_new_test_closes_the_module_after_it():
    """A test whose body is elided (``// ...``), a new test, the module's ``}``: the syntax read the update's
    last ``}`` as the elided test's module end and wrote the new test after the module.  Of two readings equal
    otherwise, the one that writes every line the update shows in its order wins."""
    document = 'use std::time::Duration;\n\npub fn parse(text: &str) -> Result<u32, String> {\n    text.trim().parse().map_err(|e| format!("{e}"))\n}\n\npub fn validate(n: u32) -> bool {\n    n > 0\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn parses_numbers() {\n        assert_eq!(parse(" 4 ").unwrap(), 4);\n    }\n\n    #[test]\n    fn rejects_words() {\n        let result = parse("four");\n        assert!(result.is_err());\n    }\n}\n'
    update = 'pub fn validate(n: u32) -> bool {\n    n > 0 && n < 100\n}\n\n// ...\n\n    #[test]\n    fn rejects_words() {\n        // ...\n        assert!(result.is_err());\n    }\n\n    #[test]\n    fn validates_range() {\n        assert!(!validate(100));\n    }\n}\n'
    new = "\n    #[test]\n    fn validates_range() {\n        assert!(!validate(100));\n    }\n"
    want = document.replace("n > 0\n", "n > 0 && n < 100\n").replace("is_err());\n    }\n", "is_err());\n    }\n" + new)
    assert merge_update(document, update, "config.rs").merged == want


def test_markers_among_a_decorator_s_cases_keep_the_cases_and_the_definition_is_found_by_name():
    """ChatGPT's ``# ... existing cases ...`` inside a parametrize list, one test shown whole and one with its
    body elided, below a fixture rewritten at the update's start: each is found by its name, the cases placed
    by lines inside the decorator (the marker made the whole update a fragment, placed above the file)."""
    doc = 'import pytest\n\nfrom durations import Parser, parse\n\n\n@pytest.fixture\ndef parser():\n    return Parser()\n\n\n@pytest.mark.parametrize(\n    "text, seconds",\n    [\n        ("45s", 45),\n        ("2m", 120),\n    ],\n)\ndef test_parse(text, seconds):\n    assert parse(text) == seconds\n\n\n@pytest.mark.parametrize(\n    "text",\n    [\n        "",\n        "5x",\n    ],\n)\ndef test_invalid(text):\n    with pytest.raises(ValueError):\n        parse(text)\n'
    upd = '@pytest.fixture(params=[False, True], ids=["default", "strict"])\ndef parser(request):\n    return Parser(strict=request.param)\n\n\n@pytest.mark.parametrize(\n    "text, seconds",\n    [\n        # ... existing cases ...\n        ("01:30:00 with clock notation", 5400),\n    ],\n)\ndef test_parse(text, seconds):\n    assert parse(text) == seconds\n\n\n@pytest.mark.parametrize(\n    "text",\n    [\n        # ... existing cases ...\n        "1:2:3:4 too many colons",\n    ],\n)\ndef test_invalid(text):\n    # ... unchanged ...\n'
    want = doc.replace('@pytest.fixture\ndef parser():\n    return Parser()', '@pytest.fixture(params=[False, True], ids=["default", "strict"])\ndef parser(request):\n    return Parser(strict=request.param)').replace('        ("2m", 120),\n', '        ("2m", 120),\n        ("01:30:00 with clock notation", 5400),\n').replace('        "5x",\n', '        "5x",\n        "1:2:3:4 too many colons",\n')
    assert merge_update(doc, upd, "test_parse.py").merged == want


def test_a_new_documented_field_shown_without_a_blank_line_below_it_is_set_apart_as_the_file_sets_fields():
    """DeepSeek shows a new field with a blank line above it and none below, before the next field: the file
    sets its documented fields apart, so a blank line goes after the new one too."""
    document = ("pub struct Cli {\n    /// Extensions to include\n    #[arg(short, long)]\n    pub ext: Vec<String>,\n\n"
                "    /// Include hidden files\n    #[arg(long)]\n    pub hidden: bool,\n}\n")
    new = "    /// Skip files smaller than SIZE\n    #[arg(long)]\n    pub min_size: Option<u64>,\n"
    update = ("pub struct Cli {\n    // ... existing code ...\n    pub ext: Vec<String>,\n\n" + new +
              "    /// Include hidden files\n    #[arg(long)]\n    pub hidden: bool,\n}\n")
    want = document.replace("Vec<String>,\n\n", "Vec<String>,\n\n" + new + "\n")
    assert merge_update(document, update, "cli.rs").merged == want
    # statements grouped below a blank line stay as shown
    code = "fn main() {\n    let a = 1;\n\n    let b = 2;\n    run(a, b);\n}\n"
    grouped = "fn main() {\n    let a = 1;\n\n    let c = 3;\n    let b = 2;\n    run(a, b);\n}\n"
    assert merge_update(code, grouped, "main.rs").merged == grouped


def test_a_new_entry_of_a_list_after_a_marker_is_added_though_it_looks_like_the_last_one():
    """Cursor's ``// ...existing migrations`` then a new migration object: alike as text to the last one, but
    its ``id`` names another; it is added, the last one stays."""
    entry = ('  {\n    id: "{id}",\n    description: "{what}",\n    up: async (db) => {\n'
             '      await db.schema.alterTable("users", (t) => {\n        t.string("{what}").nullable();\n      });\n'
             '    },\n  },\n')
    document = ("export const migrations: Migration[] = [\n" + entry.replace("{id}", "0001_users").replace("{what}", "name")
                + entry.replace("{id}", "0002_users_email").replace("{what}", "email") + "];\n")
    new = entry.replace("{id}", "0003_users_locale").replace("{what}", "locale")
    update = "export const migrations: Migration[] = [\n  // ...existing migrations\n" + new + "];\n"
    assert merge_update(document, update, "migrations.ts").merged == document.replace("];\n", new + "];\n")
    # the same id rewritten is a rewrite
    rewritten = entry.replace("{id}", "0002_users_email").replace("{what}", "email").replace('nullable()', 'notNullable()')
    update = "export const migrations: Migration[] = [\n  // ...existing migrations\n" + rewritten + "];\n"
    assert merge_update(document, update, "migrations.ts").merged == document.replace(
        'string("email").nullable()', 'string("email").notNullable()')


def test_a_c_sharp_class_shown_without_its_attributes_keeps_them():
    """Copilot shows ``public class ProductsController`` without ``[ApiController]`` and ``[Route(...)]`` above
    it: they stay, as a Java class shown without its annotations keeps them."""
    document = ("namespace Shop.Api.Controllers\n{\n    [ApiController]\n    [Route(\"api/[controller]\")]\n"
                "    public class ProductsController : ControllerBase\n    {\n        private readonly ShopDbContext _db;\n\n"
                "        public ProductsController(ShopDbContext db)\n        {\n            _db = db;\n        }\n\n"
                "        [HttpGet]\n        public IActionResult GetAll() => Ok(_db.Products);\n    }\n}\n")
    update = ("// ...\n\n    public class ProductsController : ControllerBase\n    {\n"
              "        private readonly ShopDbContext _db;\n        private readonly ILogger _logger;\n\n"
              "        public ProductsController(ShopDbContext db, ILogger logger)\n        {\n            _db = db;\n"
              "            _logger = logger;\n        }\n\n        // ... GetAll unchanged ...\n    }\n")
    want = document.replace("ShopDbContext _db;\n", "ShopDbContext _db;\n        private readonly ILogger _logger;\n") \
        .replace("(ShopDbContext db)", "(ShopDbContext db, ILogger logger)") \
        .replace("_db = db;\n", "_db = db;\n            _logger = logger;\n")
    assert merge_update(document, update, "ProductsController.cs").merged == want


def test_a_new_use_state_line_is_added_not_read_as_the_one_with_the_same_initial_value():
    """``const [acceptedTerms, setAcceptedTerms] = useState(false)`` shown after the state it follows is a new
    state: a destructured array is named by its first name, not by the call it reads (``submitting`` has the
    same ``useState(false)`` and was replaced)."""
    document = ("export function SignupForm() {\n  const [name, setName] = useState(\"\");\n"
                "  const [submitting, setSubmitting] = useState(false);\n"
                "  const [serverError, setServerError] = useState<string | null>(null);\n\n"
                "  return <form>{name}</form>;\n}\n")
    new = "  const [acceptedTerms, setAcceptedTerms] = useState(false);\n"
    update = ("export function SignupForm() {\n  // ...existing state\n"
              "  const [serverError, setServerError] = useState<string | null>(null);\n" + new +
              "\n  // ...rest unchanged\n}\n")
    want = document.replace("(null);\n", "(null);\n" + new)
    assert merge_update(document, update, "SignupForm.tsx").merged == want


def test_new_markup_right_after_a_marker_that_lists_what_it_elides_is_added_not_a_rewrite_of_the_last_field():
    """v0's ``{/* ...name, email, password fields and server error... */}`` then a new checkbox field, then the
    submit button rewritten: the password field (alike as markup) stays, the button is rewritten."""
    field = ('      <div className="grid gap-1.5">\n        <Label htmlFor="{f}">{F}</Label>\n'
             '        <Input id="{f}" value={{f}} onChange={(e) => set{F}(e.target.value)} />\n      </div>\n\n')
    fields = "".join(field.replace("{f}", f).replace("{F}", f.title()) for f in ("name", "email", "password"))
    document = ("export function SignupForm() {\n  return (\n    <form onSubmit={handleSubmit}>\n" + fields +
                "      <Button type=\"submit\" disabled={submitting}>\n        Sign up\n      </Button>\n"
                "    </form>\n  );\n}\n")
    terms = ('      <div className="flex items-start gap-2">\n        <Label htmlFor="terms">Terms</Label>\n'
             '        <input id="terms" type="checkbox" checked={accepted} onChange={(e) => setAccepted(e.target.checked)} />\n'
             '      </div>\n\n')
    update = ("export function SignupForm() {\n  return (\n    <form onSubmit={handleSubmit}>\n"
              "      {/* ...name, email and password fields... */}\n\n" + terms +
              "      <Button type=\"submit\" disabled={submitting || !accepted}>\n        Sign up\n      </Button>\n"
              "    </form>\n  );\n}\n")
    want = document.replace('      <Button type="submit" disabled={submitting}>',
                            terms + '      <Button type="submit" disabled={submitting || !accepted}>')
    assert merge_update(document, update, "SignupForm.tsx").merged == want


def test_a_function_left_open_at_a_marker_keeps_the_rest_of_each_block_around_it():
    """DeepSeek ends inside ``createApp`` with ``  // ... rest unchanged`` and no closing brace: the marker
    stands for the rest of the function, and the rest of the file after it; a line rewritten before it is
    placed (it was read as a second ``createApp`` at the file's end)."""
    document = ("const express = require('express');\n\nfunction createApp() {\n  const app = express();\n\n"
                "  app.disable('x-powered-by');\n  app.use(express.json());\n\n  app.use('/api/auth', authRoutes);\n"
                "  app.use('/api/users', userRoutes);\n\n  app.use(errorHandler);\n  return app;\n}\n\n"
                "module.exports = { createApp };\n")
    update = ("function createApp() {\n  const app = express();\n\n  app.disable('x-powered-by');\n"
              "  app.set('trust proxy', 1);\n\n  // ... body parsers ...\n\n"
              "  app.use('/api/auth', authLimiter, authRoutes);\n  app.use('/api/users', userRoutes);\n\n"
              "  // ... rest unchanged\n")
    want = document.replace("x-powered-by');\n", "x-powered-by');\n  app.set('trust proxy', 1);\n").replace(
        "'/api/auth', authRoutes", "'/api/auth', authLimiter, authRoutes")
    assert merge_update(document, update, "app.js").merged == want
    # a call's callback left open closes otherwise (``});``): it is not closed with a brace
    steps = ('step("opens the file", async () => {\n  await openFile("a.py");\n});\n\n'
             'step("saves the file", async () => {\n  await openFile("b.py");\n  await save("b.py");\n});\n')
    update = 'step("saves the file", async () => {\n  await clear();\n  await openFile("b.py");\n  // ...\n'
    assert merge_update(steps, update, "run.mjs").merged == steps.replace(
        'step("saves the file", async () => {\n', 'step("saves the file", async () => {\n  await clear();\n')


def test_new_imports_a_marker_then_a_method_pasted_alone_go_among_the_imports_and_after_the_named_method():
    """ChatGPT's handler for a class the prose names: new imports, ``// ...``, the method with no line of the
    file around it. The imports go where they sort among the file's (Java's are named by their last part, not
    by the packages they share), the method after the one the sentence names."""
    document = ("package com.example.web;\n\nimport org.springframework.http.ResponseEntity;\n"
                "import org.springframework.web.bind.annotation.ControllerAdvice;\n"
                "import org.springframework.web.bind.annotation.ExceptionHandler;\n\nimport java.util.Map;\n\n"
                "@ControllerAdvice\npublic class Handlers {\n\n    @ExceptionHandler(IllegalStateException.class)\n"
                "    public ResponseEntity<String> handleConflict(IllegalStateException ex) {\n"
                "        return ResponseEntity.status(409).body(ex.getMessage());\n    }\n\n"
                "    @ExceptionHandler(Exception.class)\n    public ResponseEntity<String> handleOther(Exception ex) {\n"
                "        return ResponseEntity.internalServerError().build();\n    }\n}\n")
    method = ("    @ExceptionHandler(MethodArgumentNotValidException.class)\n"
              "    public ResponseEntity<Map<String, String>> handleValidation(MethodArgumentNotValidException ex) {\n"
              "        return ResponseEntity.badRequest().body(new LinkedHashMap<>());\n    }\n")
    update = ("import org.springframework.web.bind.MethodArgumentNotValidException;\n\nimport java.util.LinkedHashMap;\n\n"
              "// ...\n\n" + method)
    want = document.replace("import org.springframework.web.bind.annotation.ControllerAdvice;\n",
                            "import org.springframework.web.bind.MethodArgumentNotValidException;\n"
                            "import org.springframework.web.bind.annotation.ControllerAdvice;\n") \
        .replace("import java.util.Map;\n", "import java.util.LinkedHashMap;\nimport java.util.Map;\n") \
        .replace("getMessage());\n    }\n", "getMessage());\n    }\n\n" + method)
    assert merge_update(document, update, "Handlers.java", after="handleConflict").merged == want


def test_a_ruby_block_shown_with_only_a_marker_inside_keeps_all_it_holds():
    """Claude's ``helpers do`` / ``# ... (store, parsed_body unchanged)`` / ``end`` inside a shown class, then a
    new route: the helpers stay (the block was refused, and lines dropped a route's first line)."""
    document = ("class NotesApp < Sinatra::Base\n  configure do\n    set :store, NoteStore.new\n  end\n\n"
                "  helpers do\n    def store\n      settings.store\n    end\n\n    def parsed_body\n"
                "      JSON.parse(request.body.read)\n    end\n  end\n\n  get '/health' do\n    json status: 'ok'\n"
                "  end\n\n  get '/notes' do\n    json notes: store.all\n  end\nend\n")
    update = ("class NotesApp < Sinatra::Base\n  configure do\n    set :store, NoteStore.new\n  end\n\n"
              "  helpers do\n    # ... (store, parsed_body unchanged)\n  end\n\n  get '/health' do\n"
              "    json status: 'ok'\n  end\n\n  get '/me' do\n    json user: current_user\n  end\n\n"
              "  # ... notes routes unchanged\nend\n")
    want = document.replace("  get '/notes' do", "  get '/me' do\n    json user: current_user\n  end\n\n  get '/notes' do")
    assert merge_update(document, update, "app.rb").merged == want


def test_a_line_next_to_a_shown_closing_line_rewrites_the_one_the_marker_would_keep_there():
    """Cursor's ``// ... existing code ...`` inside ``useFetch`` (the update a fragment of its body), new lines,
    then the ``return`` that returns one more name right above the function's ``}``: the old ``return`` is
    rewritten, not kept above the new lines."""
    document = ("export function useFetch(url) {\n  const data = ref(null)\n\n  function abort() {\n"
                "    controller?.abort()\n    controller = null\n  }\n\n  watch(url, () => execute())\n\n"
                "  return { data, loading, execute }\n}\n")
    update = ("// ... existing code ...\n\n  function abort() {\n    controller?.abort()\n    controller = null\n"
              "    loading.value = false\n  }\n\n  // ... existing code ...\n\n  onScopeDispose(abort)\n\n"
              "  return { data, loading, execute, abort }\n}\n")
    want = document.replace("    controller = null\n", "    controller = null\n    loading.value = false\n").replace(
        "  return { data, loading, execute }\n", "  onScopeDispose(abort)\n\n  return { data, loading, execute, abort }\n")
    assert merge_update(document, update, "useFetch.ts").merged == want


def test_new_imports_below_a_marker_for_the_file_s_own_go_where_they_sort_among_them():
    """Gemini's ``// ... existing imports``, two new imports, then the class with markers: each import goes
    where it sorts among the file's (lines put them after the file's last import, a group of their own)."""
    document = ("package com.acme.web;\n\nimport org.springframework.http.ResponseEntity;\n"
                "import org.springframework.web.bind.annotation.*;\n\nimport java.math.BigDecimal;\n"
                "import java.util.List;\n\n@RestController\npublic class OrderController {\n\n"
                "    @PostMapping\n    public Order place(@RequestBody Request request) {\n"
                "        return service.place(request);\n    }\n}\n")
    update = ("// ... existing imports\nimport org.springframework.web.servlet.support.ServletUriComponentsBuilder;\n\n"
              "import java.net.URI;\n\n@RestController\npublic class OrderController {\n\n    @PostMapping\n"
              "    public ResponseEntity<Order> place(@RequestBody Request request) {\n"
              "        Order order = service.place(request);\n"
              "        URI location = ServletUriComponentsBuilder.fromCurrentRequest().build().toUri();\n"
              "        return ResponseEntity.created(location).body(order);\n    }\n}\n")
    want = document.replace("annotation.*;\n", "annotation.*;\n"
                            "import org.springframework.web.servlet.support.ServletUriComponentsBuilder;\n") \
        .replace("BigDecimal;\n", "BigDecimal;\nimport java.net.URI;\n") \
        .replace("    public Order place(@RequestBody Request request) {\n        return service.place(request);\n",
                 "    public ResponseEntity<Order> place(@RequestBody Request request) {\n"
                 "        Order order = service.place(request);\n"
                 "        URI location = ServletUriComponentsBuilder.fromCurrentRequest().build().toUri();\n"
                 "        return ResponseEntity.created(location).body(order);\n")
    assert merge_update(document, update, "OrderController.java").merged == want


def test_a_function_shown_under_a_new_name_with_its_body_the_same_is_renamed_in_place():
    """ChatGPT renames ``getAll`` to ``listItems`` and shows only the function: it is renamed where it is, not
    written again at the file's end beside the old one."""
    body = ("  try {\n    const limit = parseLimit(req.query.limit);\n    const items = await store.list({ limit });\n"
            "    res.json({ items, limit });\n  } catch (err) {\n    next(err);\n  }\n}\n")
    document = ("import { store } from './store';\n\n/** GET /items */\nexport async function getAll(req, res, next) {\n" +
                body + "\nexport async function getOne(req, res, next) {\n  res.json(await store.get(req.params.id));\n}\n")
    update = "/** GET /items */\nexport async function listItems(req, res, next) {\n" + body
    assert merge_update(document, update, "items.ts").merged == document.replace("getAll", "listItems")


def test_a_file_shown_from_its_first_line_to_its_last_class_without_an_annotation_drops_it():
    """Copilot's JUnit 5 migration shows the whole test file, the class without ``@RunWith(Enclosed.class)``: the
    annotation goes (a class shown alone without its annotations keeps them; shown in the whole file, it does
    not)."""
    document = ("package com.acme;\n\nimport org.junit.Test;\nimport org.junit.runner.RunWith;\n\n"
                "@RunWith(Enclosed.class)\npublic class SkuParserTest {\n\n    @Test\n    public void parses() {\n"
                "        assertEquals(1, SkuParser.parse(\"A-1\").number());\n    }\n\n    @Test\n    public void rejects() {\n"
                "        assertThrows(IllegalArgumentException.class, () -> SkuParser.parse(null));\n    }\n}\n")
    update = ("package com.acme;\n\nimport org.junit.jupiter.api.Test;\n\nclass SkuParserTest {\n\n    @Test\n"
              "    void parses() {\n        assertEquals(1, SkuParser.parse(\"A-1\").number());\n    }\n\n    @Test\n"
              "    void rejects() {\n        assertThrows(IllegalArgumentException.class, () -> SkuParser.parse(null));\n"
              "    }\n}\n")
    assert merge_update(document, update, "SkuParserTest.java").merged == update



def test_a_new_match_arm_after_a_marker_arm_is_merged_into_the_match():
    """Gemini's ``// ... (other arms remain the same)`` among a ``match``'s arms, then a new arm: the
    match's arms are merged like any block's units (it was refused: lines found two places)."""
    document = ("fn run() -> Result<()> {\n    let cli = Cli::parse();\n    match cli.command {\n"
                "        Command::Add(args) => cmd_add(args)?,\n        Command::Done { id } => {\n"
                "            done(id)?;\n        }\n        Command::Remove { id } => {\n            remove(id)?;\n"
                "        }\n    }\n\n    Ok(())\n}\n\nfn cmd_add(args: AddArgs) -> Result<()> {\n    match args.tag {\n"
                "        Some(t) => add_tagged(t)?,\n        None => add()?,\n    }\n    Ok(())\n}\n")
    new = "        Command::Export { format } => {\n            export(format)?;\n        }\n"
    update = ("fn run() -> Result<()> {\n    // ...\n    match cli.command {\n        Command::Add(args) => cmd_add(args)?,\n"
              "        // ... (other arms remain the same)\n" + new + "    }\n\n    Ok(())\n}\n")
    want = document.replace("            remove(id)?;\n        }\n", "            remove(id)?;\n        }\n" + new)
    assert merge_update(document, update, "main.rs").merged == want


def test_a_new_enum_s_attribute_shown_after_a_marker_is_its_own_not_the_file_s_line_taken_for_context():
    """``#[derive(...)]`` above a new enum, right after a marker, is the new enum's: the file's one enum with the
    same attribute keeps it (the line counted as context moved, and lines put the new enum inside the old)."""
    document = ("use clap::ValueEnum;\n\n#[derive(Debug, Subcommand)]\npub enum Command {\n    Add,\n    List,\n}\n\n"
                "#[derive(Debug, Clone, Copy, ValueEnum)]\npub enum SortBy {\n    Created,\n    Id,\n}\n")
    new = "#[derive(Debug, Clone, Copy, ValueEnum)]\npub enum ExportFormat {\n    Csv,\n    Json,\n}\n"
    update = ("#[derive(Debug, Subcommand)]\npub enum Command {\n    Add,\n    List,\n    Export,\n}\n\n"
              "// ... (SortBy remains the same)\n\n" + new)
    want = document.replace("    List,\n}\n", "    List,\n    Export,\n}\n") + "\n" + new
    assert merge_update(document, update, "cli.rs").merged == want


def test_a_new_kotlin_property_beside_another_is_added_and_a_rewritten_one_is_found_by_its_name():
    """Copilot adds ``private val query`` after ``filter`` and rewrites ``notes`` below a marker: Kotlin's
    properties are named (they were unnamed: ``query`` replaced ``_events``, alike as text, and the new
    ``notes`` went beside the old one)."""
    document = ("class NotesViewModel(private val repository: NoteRepository) : ViewModel() {\n\n"
                "    private val filter = MutableStateFlow(NoteFilter.ACTIVE)\n\n"
                "    private val _events = MutableStateFlow<NotesEvent?>(null)\n"
                "    val events: StateFlow<NotesEvent?> = _events.asStateFlow()\n\n"
                "    private val notes = filter.flatMapLatest { f ->\n        repository.notes(f)\n    }\n\n"
                "    fun setFilter(newFilter: NoteFilter) {\n        filter.value = newFilter\n    }\n}\n")
    update = ("class NotesViewModel(private val repository: NoteRepository) : ViewModel() {\n\n"
              "    private val filter = MutableStateFlow(NoteFilter.ACTIVE)\n    private val query = MutableStateFlow(\"\")\n\n"
              "    // ...existing code...\n\n"
              "    private val notes = combine(filter, query.debounce(300)) { f, q -> f to q }\n"
              "        .flatMapLatest { (f, q) -> repository.search(f, q) }\n\n    // ...existing code...\n}\n")
    want = document.replace("NoteFilter.ACTIVE)\n\n", "NoteFilter.ACTIVE)\n    private val query = MutableStateFlow(\"\")\n\n") \
        .replace("    private val notes = filter.flatMapLatest { f ->\n        repository.notes(f)\n    }\n",
                 "    private val notes = combine(filter, query.debounce(300)) { f, q -> f to q }\n"
                 "        .flatMapLatest { (f, q) -> repository.search(f, q) }\n")
    assert merge_update(document, update, "NotesViewModel.kt").merged == want


def test_lines_inside_a_rule_the_update_opens_are_that_rule_s_not_the_same_text_in_another():
    """``/* ... existing code ... */`` then the ``footer`` rule with ``display: flex;`` and ``align-items:
    center;`` added: the file has those lines once, in ``.new-todo``; they anchored the update there and every
    rule between was removed. Inside ``footer {`` (a line the file has once) they are the footer's new lines."""
    document = (".todo-list {\n\tmax-width: 32rem;\n}\n\n.new-todo {\n\tdisplay: flex;\n\tgap: 0.5rem;\n"
                "\talign-items: center;\n}\n\nul {\n\tlist-style: none;\n\tpadding: 0;\n}\n\nfooter {\n"
                "\tmargin-top: 0.75rem;\n\tcolor: #666;\n}\n")
    update = ("/* ... existing code ... */\n\nfooter {\n\tdisplay: flex;\n\tjustify-content: space-between;\n"
              "\talign-items: center;\n\tmargin-top: 0.75rem;\n\tcolor: #666;\n}\n")
    want = document.replace("footer {\n", "footer {\n\tdisplay: flex;\n\tjustify-content: space-between;\n"
                            "\talign-items: center;\n")
    assert merge_update(document, update, "style.css").merged == want


def test_a_new_function_after_functions_pasted_alone_goes_after_the_last_of_them_in_their_namespace():
    """Methods defined out of their namespace (C++ ``ConnectionPool::reap``) pasted alone, then a new one: the
    new one goes after the last one shown, inside the namespace (the update was refused)."""
    document = ("namespace db {\n\nint ConnectionPool::size() const {\n  return total_;\n}\n\n"
                "int ConnectionPool::reap() {\n  int closed = 0;\n  return closed;\n}\n\n"
                "int ConnectionPool::idle() const {\n  return idle_;\n}\n\n}  // namespace db\n")
    new = "bool ConnectionPool::is_stale(int since) const {\n  return since > timeout_;\n}\n"
    update = ("int ConnectionPool::reap() {\n  int closed = 0;\n  // ...\n  return closed;\n}\n\n" + new)
    want = document.replace("  return closed;\n}\n\n", "  return closed;\n}\n\n" + new + "\n")
    assert merge_update(document, update, "pool.cpp").merged == want


def test_a_new_class_shown_right_after_a_class_whose_body_is_elided_goes_right_after_it():
    """Gemini's ``class TimestampMixin:`` / ``    # ... (existing columns) ...`` then a new mixin: the marker
    stands for the class's body, and the new class goes after it (the marker was read as standing for the rest
    of the file too, and the new class went to the end)."""
    document = ("from datetime import datetime\n\n\nclass TimestampMixin:\n    created_at: datetime\n    updated_at: datetime\n"
                "\n\nclass User(TimestampMixin):\n    name: str\n\n\nclass Post(TimestampMixin):\n    title: str\n")
    new = "class SoftDeleteMixin:\n    deleted_at: datetime | None = None\n"
    update = "class TimestampMixin:\n    # ... (existing columns) ...\n\n\n" + new
    want = document.replace("updated_at: datetime\n\n\n", "updated_at: datetime\n\n\n" + new + "\n\n")
    assert merge_update(document, update, "models.py").merged == want


def test_a_header_holding_a_cpp_class_is_read_as_cpp():
    """``flags.h`` holds a C++ class: read as C it does not parse, and lines put a method shown after
    ``// ... (existing code)`` before ``public:``; as C++, it goes at the class's end."""
    document = ("namespace cli {\n\nclass FlagParser {\n    std::vector<Flag> flags_;\n    std::string error_;\n\npublic:\n"
                "    bool parse(int argc, char** argv);\n    const std::string& error() const { return error_; }\n};\n\n"
                "}  // namespace cli\n")
    new = "    void printUsage(std::ostream& os) const;\n"
    update = "class FlagParser {\n    // ... (existing code)\n" + new + "};\n"
    want = document.replace("return error_; }\n};\n", "return error_; }\n" + new + "};\n")
    assert merge_update(document, update, "flags.h").merged == want


PHP_MAILER = ("<?php\n\nnamespace App\\Service;\n\nclass ReminderMailer\n{\n    public function send(Invoice $invoice): void\n"
              "    {\n        $this->mailer->send($this->build($invoice));\n    }\n\n"
              "    public function build(Invoice $invoice): Email\n    {\n        $email = (new Email())\n"
              "            ->from($this->sender)\n            ->subject('Payment reminder')\n"
              "            ->context($context);\n\n        return $email;\n    }\n}\n")


def test_a_php_method_pasted_alone_below_the_opening_tag_the_model_adds_replaces_the_method():
    """DeepSeek opens every PHP block with ``<?php``: above a method pasted alone, it is not the file's first
    line shown as context (the method was then read at the top level, and the merge did not parse)."""
    method = ("    public function send(Invoice $invoice, bool $dryRun = false): bool\n    {\n"
              "        if ($dryRun) {\n            return true;\n        }\n"
              "        $this->mailer->send($this->build($invoice));\n        return true;\n    }\n")
    want = PHP_MAILER.replace(PHP_MAILER[PHP_MAILER.index("    public function send"):PHP_MAILER.index("\n    public function build")],
                              method)
    assert merge_update(PHP_MAILER, "<?php\n\n" + method, "ReminderMailer.php").merged == want


def test_a_chained_call_rewritten_between_markers_replaces_the_call_of_the_same_name():
    """``->subject(sprintf(...))`` between ``// ... existing code ...`` markers in a chain: the chain's one
    ``->subject(`` is rewritten, alike or not, not a new line after the chain's ``;``."""
    update = ("        $email = (new Email())\n            // ... existing code ...\n"
              "            ->subject(sprintf('Reminder: invoice %s', $invoice->getNumber()))\n"
              "            // ... existing code ...\n")
    want = PHP_MAILER.replace("->subject('Payment reminder')", "->subject(sprintf('Reminder: invoice %s', $invoice->getNumber()))")
    assert merge_update(PHP_MAILER, update, "ReminderMailer.php").merged == want


def test_c_sharp_usings_are_imports_and_an_expression_bodied_method_is_a_place_to_name():
    """A new ``using`` shown between two of the file's is added (it replaced ``using Orders.Api.Models;``, alike as
    text, as C#'s usings were not read as imports); new code "after `GetVersion()`", an expression-bodied
    method (``=>``), goes after it."""
    document = ("using System.Text.Json;\nusing Orders.Api.Data;\nusing Orders.Api.Models;\nusing Orders.Api.Services;\n\n"
                "var app = builder.Build();\napp.Run();\n\nstatic string GetVersion() =>\n    Assembly.GetName().Version;\n")
    update = "using Orders.Api.Data;\nusing Orders.Api.HealthChecks;\n// ... (rest of usings) ...\n"
    want = document.replace("Data;\n", "Data;\nusing Orders.Api.HealthChecks;\n")
    assert merge_update(document, update, "Program.cs").merged == want
    writer = "static Task WriteHealth(HttpContext context)\n{\n    return context.Response.WriteAsync(\"ok\");\n}\n"
    assert merge_update(document, writer, "Program.cs", after="GetVersion").merged == document + "\n" + writer


def test_an_update_whose_tabs_became_spaces_is_indented_as_the_file():
    """Go and Makefiles indent with tabs; an answer pasted through a web page often has spaces: its lines are
    placed and written with the file's tabs (a recipe indented with spaces does not run)."""
    go = ("package main\n\nimport \"fmt\"\n\nfunc a() int {\n\treturn 1\n}\n\nfunc b() int {\n\tif true {\n"
          "\t\treturn 2\n\t}\n\treturn 0\n}\n")
    update = "func b() int {\n    if false {\n        fmt.Println(\"x\")\n        return 3\n    }\n    return 0\n}\n"
    assert merge_update(go, update, "main.go").merged == go.replace(
        "\tif true {\n\t\treturn 2", "\tif false {\n\t\tfmt.Println(\"x\")\n\t\treturn 3")
    makefile = "all: build\n\nbuild:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n"
    update = "# ... existing targets ...\n\ntest:\n    go vet ./...\n    go test -race ./...\n"
    assert merge_update(makefile, update, "Makefile").merged == makefile.replace(
        "\tgo test ./...", "\tgo vet ./...\n\tgo test -race ./...")


def test_lines_the_tab_indented_file_has_with_spaces_keep_them():
    """A Go usage text in a raw string is indented with spaces in a file indented with tabs: the answer's
    reworded text keeps its spaces (they are text, not indentation)."""
    go = ("package main\n\nconst usage = `Usage: todo <command>\n\nCommands:\n  add <title>  add a task\n"
          "  list [--all]  list open tasks\n`\n\nfunc main() {\n" + "\tprintln(usage)\n" * 20 + "}\n")
    update = ("const usage = `Usage: todo <command>\n\nCommands:\n  add <title>           add a task\n"
              "  list [--all] [--json]  list open tasks (--json prints JSON)\n`\n")
    start, end = go.index("const usage"), go.index("\nfunc main")
    assert merge_update(go, update, "main.go").merged == go[:start] + update + go[end:]


def test_an_update_indented_with_tabs_is_indented_with_the_file_s_spaces():
    document = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    update = "class A:\n\t# ... existing code ...\n\tdef g(self):\n\t\treturn 3\n"
    assert merge_update(document, update, "a.py").merged == document.replace("return 2", "return 3")
    mixed = "def f():\n\tif x:\n        return 1\n"  # a file that mixes both: the update is left as it is
    assert merge_update(mixed, "def f():\n    if y:\n        return 1\n", "a.py").merged == \
        "def f():\n    if y:\n        return 1\n"


def test_new_definitions_shown_with_nothing_around_them_go_at_the_end_of_the_module_or_of_its_one_class():
    """"Add this helper:" and a function the file does not have: no line of the file to place it by, and still
    a place a reader knows: the end of the module, before what runs it; a method, the end of the file's class."""
    assert merged("class Shape:\n    pass\n") == FILE + "\n\nclass Shape:\n    pass\n"
    script = FILE + '\n\nif __name__ == "__main__":\n    main()\n'
    volume = "import sys\n\n\ndef volume(w, h, d):\n    return w * h * d\n"
    assert merge_update(script, volume, "shapes.py").merged == script.replace(
        "import os\n", "import os\nimport sys\n").replace(
        "\n\n\nif __name__", "\n\n\ndef volume(w, h, d):\n    return w * h * d\n\n\nif __name__")
    shapes = "class Shape:\n    def area(self):\n        return 0\n\n    def name(self):\n        return 'shape'\n"
    method = "def scaled(self, k):\n    return self.area() * k\n"
    assert merge_update(shapes, method, "shapes.py").merged == shapes + "\n    def scaled(self, k):\n" \
                                                                      "        return self.area() * k\n"
    java = "public class Cart {\n    private int total;\n\n    public int total() {\n        return total;\n    }\n}\n"
    assert merge_update(java, "public void clear() {\n    total = 0;\n}\n", "Cart.java").merged == java.replace(
        "    }\n}", "    }\n\n    public void clear() {\n        total = 0;\n    }\n}")
    js = ("function a() {\n  return 1;\n}\n\nfunction twice(x) {\n  const y = x * 2;\n  return y;\n}\n\n"
          "module.exports = { a, twice };\n")
    clamp = "function clamp(x, lo, hi) {\n  return Math.min(hi, Math.max(lo, x));\n}\n"
    assert merge_update(js, clamp, "m.js").merged == js.replace("\nmodule", "\n" + clamp + "\nmodule")
    store = "export class Store {\n  private n = 0;\n\n  add(): void {\n    this.n += 1;\n  }\n}\n"
    clear = "  label(prefix: string): string {\n    return `${prefix}: ${this.n}`;\n  }\n"  # (parses only in a class)
    assert merge_update(store, clear, "store.ts").merged == store.replace("  }\n}", "  }\n\n" + clear + "}")
    with pytest.raises(UpdateError):  # a method where the file has two classes: which one is unknown
        merge_update(shapes + "\n\n" + shapes.replace("Shape", "Square"), method, "shapes.py")


def test_a_new_call_on_the_object_the_file_s_calls_are_made_on_goes_after_the_last_of_them():
    """"Add a DELETE route:" and the route alone: after the file's last route, set apart as they are."""
    routes = ('import { Router } from "express";\n\nexport const router = Router();\n\n'
              'router.get("/items", async (req, res) => {\n  res.json(await db.items.findMany());\n});\n\n'
              'router.post("/items", async (req, res) => {\n  res.status(201).json(await db.items.create(req.body));\n'
              '});\n\nexport default router;\n')
    delete = ('router.delete("/items/:id", async (req, res) => {\n  await db.items.delete(req.params.id);\n'
              '  res.status(204).end();\n});\n')
    assert merge_update(routes, delete, "routes.ts").merged == routes.replace(
        "});\n\nexport default", "});\n\n" + delete + "\nexport default")
    with pytest.raises(UpdateError):  # a call on another object has no place
        merge_update(routes, delete.replace("router.delete", "app.delete"), "routes.ts")


def test_a_block_shown_as_its_first_line_and_a_marker_keeps_all_it_holds():
    """``with open(path, encoding=encoding) as f:`` then ``# ... rest of the function unchanged``, the update's
    end: the ``with`` line rewritten, its body and the function's rest as they are."""
    document = ('import json\n\n\ndef load(path, strict=False):\n    with open(path) as f:\n        data = json.load(f)\n'
                '    if strict and "version" not in data:\n        raise ValueError("no version")\n    return data\n')
    update = ('def load(path, strict=False, encoding="utf-8"):\n    with open(path, encoding=encoding) as f:\n'
              '        # ... rest of the function unchanged\n')
    assert merge_update(document, update, "config.py").merged == document.replace(
        "def load(path, strict=False):\n    with open(path) as f:",
        'def load(path, strict=False, encoding="utf-8"):\n    with open(path, encoding=encoding) as f:')


def test_a_paragraph_rewritten_between_markers_replaces_the_old_one_whole():
    """A README paragraph whose second line is rewritten, the rest of the section elided: the old paragraph's
    lines go with it (the whole paragraph was shown), not kept below the new one; and the marker that ends the
    section keeps the section's rest (its code block and last line were deleted, and counted as shown)."""
    readme = ("# Service\n\n## Configuration\n\nThe service reads `app.toml` by default. Pass a different path as the\n"
              "first argument to use another file.\n\n```toml\nport = 8080\n```\n\nAll keys are optional.\n")
    update = ("<!-- ... -->\n\n## Configuration\n\nThe service reads `app.toml` by default. Pass a different path as "
              "the\nfirst argument, or set the `APP_CONFIG` environment variable.\n\n<!-- ... -->\n")
    assert merge_update(readme, update, "README.md").merged == readme.replace(
        "first argument to use another file.", "first argument, or set the `APP_CONFIG` environment variable.")


INTERFACE = ("namespace Shop;\n\npublic interface IProducts\n{\n    Task<IReadOnlyList<Product>> ListAsync(CancellationToken ct);\n"
             "    Task<Product?> FindAsync(int id, CancellationToken ct);\n"
             "    Task<Product> CreateAsync(CreateProduct request, CancellationToken ct);\n}\n\n"
             "public class Products : IProducts\n{\n    private readonly Db _db;\n}\n")


@pytest.mark.parametrize("marker", ["{{ ... }}", "    // ..."])
def test_a_new_member_declared_beside_others_rewrites_none_of_them(marker):
    """A new interface method after the first, then Windsurf's ``{{ ... }}`` at the left edge (it writes it there
    at any depth: here it elides the interface's members, not what follows the interface) or a marker indented
    as the members: ``ListLowStockAsync`` declares another name, so it rewrites no declaration it resembles."""
    update = ("public interface IProducts\n{\n    Task<IReadOnlyList<Product>> ListAsync(CancellationToken ct);\n"
              "    Task<IReadOnlyList<Product>> ListLowStockAsync(CancellationToken ct);\n" + marker + "\n}\n")
    assert merge_update(INTERFACE, update, "Products.cs").merged == INTERFACE.replace(
        "    Task<Product?> Find", "    Task<IReadOnlyList<Product>> ListLowStockAsync(CancellationToken ct);\n"
                                  "    Task<Product?> Find")


def test_a_new_makefile_target_beside_another_rewrites_none():
    """``.PHONY: migrate-dry-run`` and its target after ``migrate``'s: another target, not a rewrite of the
    ``.PHONY: image`` below (a ``.PHONY`` list gaining a name is that list rewritten)."""
    makefile = (".PHONY: migrate\nmigrate: ## Apply migrations\n\tscripts/migrate.sh\n\n.PHONY: image\n"
                "image: ## Build the image\n\tdocker build -t app .\n")
    update = (".PHONY: migrate\nmigrate: ## Apply migrations\n\tscripts/migrate.sh\n\n.PHONY: migrate-dry-run\n"
              "migrate-dry-run: ## Show what would be applied\n\tscripts/migrate.sh --dry-run\n")
    assert merge_update(makefile, update, "Makefile").merged == makefile.replace(
        "\n.PHONY: image", "\n" + update.split("\n\n")[1] + "\n.PHONY: image")


def test_one_line_rewritten_between_markers_in_a_function_replaces_the_line_it_extends():
    """``def total(items):``, ``# ...``, the loop's line gaining `` * item.quantity`` at its depth, ``# ...``:
    the line rewritten in place, the function's ``return`` kept (it was written over by the new line, unseen)."""
    document = ("def total(items):\n    result = 0\n    for item in items:\n        result += item.price\n"
                "    return result\n\n\ndef average(items):\n    return total(items) / len(items)\n")
    update = "def total(items):\n    # ...\n        result += item.price * item.quantity\n    # ...\n"
    assert merge_update(document, update, "cart.py").merged == document.replace(
        "result += item.price", "result += item.price * item.quantity")


def test_a_new_method_after_a_marker_and_before_the_class_s_brace_goes_inside_the_class():
    """A new import with the file's own, ``// ... existing code ...`` at the left edge, a new method and the
    class's ``}``: that ``}`` is the file's last line, and the method goes inside it (it went after the class,
    a second ``}`` below it)."""
    java = ("package shop;\n\nimport java.util.List;\n\npublic class Orders {\n    private final Repo repo;\n\n"
            "    public List<Order> all() {\n        return repo.findAll();\n    }\n}\n")
    update = ("import java.util.List;\nimport java.util.Optional;\n\n// ... existing code ...\n\n"
              "    public Optional<Order> find(long id) {\n        return repo.findById(id);\n    }\n}\n")
    assert merge_update(java, update, "Orders.java").merged == java.replace(
        "import java.util.List;\n", "import java.util.List;\nimport java.util.Optional;\n").replace(
        "        return repo.findAll();\n    }\n}", "        return repo.findAll();\n    }\n\n"
        "    public Optional<Order> find(long id) {\n        return repo.findById(id);\n    }\n}")


def test_a_new_css_rule_beside_another_rewrites_none():
    """New rules after one the update shows, then a marker: ``.list__empty {`` is another rule than the file's
    ``.list__error {`` after it, however alike their lines (the error rule was written over)."""
    vue = ("<style scoped>\n.list__filters .active {\n  font-weight: 600;\n}\n.list__error {\n  color: #b91c1c;\n}\n"
           ".list__footer {\n  margin-top: 1rem;\n}\n</style>\n")
    update = ("<style scoped>\n/* ...existing code... */\n.list__filters .active {\n  font-weight: 600;\n}\n"
              ".list__empty {\n  color: #6b7280;\n}\n/* ...existing code... */\n</style>\n")
    assert merge_update(vue, update, "List.vue").merged == vue.replace(
        "}\n.list__error", "}\n.list__empty {\n  color: #6b7280;\n}\n.list__error")


def test_a_new_block_of_a_kind_the_file_has_goes_after_the_last_of_them_in_a_file_without_a_grammar():
    """Terraform's ``output "log_bucket" {`` shown alone for an outputs file: after the file's last output; a block
    of a kind the file does not have, at the file's end; a block with no line of the file and a marker, nowhere."""
    outputs = ('output "site_url" {\n  value = aws_cloudfront_distribution.site.domain_name\n}\n\n'
               'variable "region" {\n  type = string\n}\n\noutput "bucket" {\n  value = aws_s3_bucket.site.bucket\n}\n')
    new = 'output "log_bucket" {\n  description = "Access logs."\n  value       = aws_s3_bucket.logs.bucket\n}\n'
    assert merge_update(outputs, new, "outputs.tf").merged == outputs + "\n" + new
    module = new.replace("output", "module")
    assert merge_update(outputs, module, "outputs.tf").merged == outputs + "\n" + module
    with pytest.raises(UpdateError):
        merge_update(outputs, "# ... existing blocks ...\n" + module + "# ... existing blocks ...\n", "outputs.tf")


def test_a_new_function_the_answer_puts_after_one_it_resembles_is_new_not_that_one_renamed():
    """"Add a `Touch` method after `UpdateFirmware`" and a method whose body repeats most of that one's lines:
    a new method there (read as that one renamed, it replaced its body)."""
    body = ("\tres, err := s.db.ExecContext(ctx, q, id)\n\tif err != nil {\n\t\treturn err\n\t}\n"
            "\tn, err := res.RowsAffected()\n\tif err != nil {\n\t\treturn err\n\t}\n\tif n == 0 {\n"
            "\t\treturn ErrNotFound\n\t}\n\treturn nil\n}\n")
    store = ("package store\n\nfunc (s *Store) List() error {\n\treturn nil\n}\n\n"
             "func (s *Store) UpdateFirmware(ctx context.Context, id string) error {\n" + body)
    touch = "func (s *Store) Touch(ctx context.Context, id string) error {\n" + body
    assert merge_update(store, touch, "store.go", after="UpdateFirmware").merged == store + "\n" + touch


def test_a_new_subsection_after_a_marker_for_the_rest_of_its_section_goes_right_after_that_section():
    """"Add a subsection right after the configuration table:" the section's first paragraph, a marker for the
    table, the new ``###`` subsection: at the end of that section, not after the sections that follow it."""
    readme = ("# App\n\n## Configuration\n\nAll settings live in `config.toml`:\n\n| Key | Default |\n|---|---|\n"
              "| `host` | `0.0.0.0` |\n\n## Testing\n\nRun `cargo test`.\n")
    update = ("## Configuration\n\nAll settings live in `config.toml`:\n\n<!-- ... existing table ... -->\n\n"
              "### Environment overrides\n\nEvery key can be overridden.\n")
    assert merge_update(readme, update, "README.md").merged == readme.replace(
        "## Testing", "### Environment overrides\n\nEvery key can be overridden.\n\n## Testing")


def test_a_definition_shown_whole_replaces_the_file_s_one_of_its_name_where_its_lines_fit_everywhere():
    """Elixir (no grammar here): ``list_products`` shown whole with a longer ``@doc``, between markers: its
    ``@doc \"\"\"`` and ``end`` lines fit every function's, so lines place it nowhere; by its name, the file
    defines it once: that definition, doc and all, is the one rewritten.  Shown alone, with no marker, the
    same."""
    functions = "".join(f'  @doc """\n  {name.title()}s a product.\n  """\n  def {name}_product(id) do\n'
                        f'    Repo.{name}(id)\n  end\n\n' for name in ("get", "delete", "touch"))
    document = ('defmodule Shop.Catalog do\n  alias Shop.Repo\n\n  @doc """\n  Returns the list of products.\n\n'
                '  ## Examples\n\n      iex> list_products()\n  """\n  def list_products do\n    Repo.all(Product)\n'
                '  end\n\n' + functions.rstrip("\n") + "\nend\n")
    new = ('  @doc """\n  Returns a page of products.\n\n  ## Options\n\n    * `:page` - 1-based\n  """\n'
           '  def list_products(opts \\\\ []) do\n    page = Keyword.get(opts, :page, 1)\n'
           '    Product |> offset(^((page - 1) * 20)) |> Repo.all()\n  end\n')
    start, end = document.index('  @doc """\n  Returns the list'), document.index("\n  @doc \"\"\"\n  Gets")
    want = document[:start] + new + document[end:]
    assert merge_update(document, "defmodule Shop.Catalog do\n  # ... existing code ...\n\n" + new +
                        "\n  # ... existing code ...\nend\n", "catalog.ex").merged == want
    assert merge_update(document, new, "catalog.ex").merged == want


def test_an_update_that_ends_opening_a_block_stops_there_and_a_head_split_over_lines_keeps_one_blank():
    """Scala (no grammar here): a ``case`` shown from its first line to a line that opens a ``match``, one line
    changed: the match's cases below stay (the update stops at them, it does not end the block).  A class head
    written one parameter a line above its unchanged first method replaces the one-line head, and the blank line
    between them stays one."""
    document = ("object Main {\n  def run(opts: Options): Unit = opts match {\n    case Right(o) =>\n"
                "      val client = new Client(o.url)\n      client.fetch() match {\n        case Right(f) => println(f)\n"
                "        case Left(e) => sys.exit(1)\n      }\n    case Left(e) => sys.exit(2)\n  }\n}\n")
    update = ("    case Right(o) =>\n      val client = new Client(o.url, RetryPolicy(o.retries))\n"
              "      client.fetch() match {\n")
    assert merge_update(document, update, "Main.scala").merged == document.replace(
        "new Client(o.url)", "new Client(o.url, RetryPolicy(o.retries))")
    document = ("final class Http(timeout: Duration) {\n  def get(uri: URI): String = fetch(uri)\n}\n\n"
                "class Client(baseUrl: String, transport: Transport) {\n\n  def fetch(city: String): String = {\n"
                "    transport.get(baseUrl + city)\n  }\n}\n")
    head = "class Client(\n    baseUrl: String,\n    transport: Transport,\n    retries: Int = 3\n) {\n"
    update = head + "\n  def fetch(city: String): String = {\n    // ... unchanged ...\n  }\n}\n"
    assert merge_update(document, update, "Client.scala").merged == document.replace(
        "class Client(baseUrl: String, transport: Transport) {\n", head)


def test_a_new_class_s_closing_line_after_an_access_label_is_new_not_a_place():
    """A new C++ class shown after a marker, its ``private:`` at the class's depth: its ``};`` closes the new
    class (walking back past ``private:`` finds the class's head), so it places nothing, and the struct the
    marker keeps keeps its own ``};``."""
    document = ("#pragma once\n\nnamespace csv {\n\nstruct Options {\n    char delimiter = ',';\n};\n\n"
                "Row split_line(std::string_view line);\n\nclass Reader {\npublic:\n    Row next();\n\nprivate:\n"
                "    int line_ = 0;\n};\n\n}  // namespace csv\n")
    new = ("class ParseError : public std::runtime_error {\npublic:\n    explicit ParseError(const std::string& m)\n"
           "        : std::runtime_error(m) {}\n\nprivate:\n    std::size_t line_;\n};\n\n")
    update = "namespace csv {\n\n// ...existing code...\n\n" + new + "Row split_line(std::string_view line);\n\nclass Reader {\n// ...existing code...\n"
    assert merge_update(document, update, "reader.hpp").merged == document.replace(
        "Row split_line", new + "Row split_line")


def test_new_code_with_nothing_around_it_goes_where_a_reader_adds_it():
    """No marker and no line of the file: a Swift method (no grammar here) goes before the closing line of the
    file's one type whose members start as it does; a new test goes inside the ``describe``, after the last
    test, not in place of it; new CSS rules go at the end of the stylesheet."""
    swift = ("import Foundation\n\nstruct Store {\n    var items: [String] = []\n\n    func count() -> Int {\n"
             "        items.count\n    }\n}\n")
    method = "    func isEmpty() -> Bool {\n        items.isEmpty\n    }\n"
    assert merge_update(swift, method, "Store.swift").merged == swift.replace("    }\n}\n", "    }\n\n" + method + "}\n")
    js = ("const x = require('x');\n\nfunction helper() {\n  return 1;\n}\n\ndescribe('x', () => {\n"
          "  test('a', () => {\n    expect(1).toBe(1);\n  });\n});\n")
    test = "  test('b', () => {\n    expect(2).toBe(2);\n  });\n"
    assert merge_update(js, test, "x.test.js").merged == js.replace("  });\n});\n", "  });\n\n" + test + "});\n")
    css = ".a {\n  color: red;\n}\n\n.c {\n  margin: 0;\n}\n"
    rule = ".b {\n  color: blue;\n}\n"
    assert merge_update(css, rule, "site.css").merged == css + "\n" + rule


def test_a_new_list_entry_after_a_shown_one_is_added_and_the_entries_below_stay():
    """A new ``<dependency>`` after the shown ``data-jpa`` one, no marker: its ``<dependency>``, ``<groupId>``
    and ``</dependency>`` lines are the next dependencies' too, but placed there they deleted ``h2`` (another
    entry than the new one): they are the new entry's, added after the shown one, and ``h2`` and ``test`` stay."""
    dep = "        <dependency>\n            <groupId>{}</groupId>\n            <artifactId>{}</artifactId>\n{}        </dependency>\n"
    spring = "org.springframework.boot"
    pom = ("<project>\n    <dependencies>\n" + dep.format(spring, "spring-boot-starter-web", "") +
           dep.format(spring, "spring-boot-starter-data-jpa", "") +
           dep.format("com.h2database", "h2", "            <scope>runtime</scope>\n") +
           dep.format(spring, "spring-boot-starter-test", "            <scope>test</scope>\n") +
           "    </dependencies>\n</project>\n")
    shown, new = dep.format(spring, "spring-boot-starter-data-jpa", ""), dep.format(spring, "spring-boot-starter-validation", "")
    assert merge_update(pom, shown + new, "pom.xml").merged == pom.replace(shown, shown + new)


def test_members_said_to_go_at_the_end_go_at_the_end_of_their_class_not_after_it():
    """"Add these at the end of `ArticleTest`": indented tests with nothing of the file around them go before
    the class's ``end``, not after it (where "the end" of the file would put them)."""
    document = ('require "test_helper"\n\nclass ArticleTest < ActiveSupport::TestCase\n  test "a" do\n'
                '    assert true\n  end\nend\n')
    tests = '  test "b" do\n    assert_equal 1, 1\n  end\n\n  test "c" do\n    assert_nil nil\n  end\n'
    assert merge_update(document, tests, "article_test.rb", after="").merged == document.replace(
        "  end\nend\n", "  end\n\n" + tests + "end\n")


def test_a_block_said_to_go_at_the_end_goes_inside_the_block_the_file_ends_by_closing():
    """"Add a context at the end of the describe block": indented code whose first word no member of the file
    starts with goes before the ``end`` the file ends with (inside the describe), not after it."""
    document = ('require "rails_helper"\n\nRSpec.describe Deliverer do\n  let(:conn) { double }\n\n'
                '  it "delivers" do\n    expect(conn).to be\n  end\nend\n')
    context = ('  context "with retries" do\n    it "retries a 503" do\n      expect(conn).to be\n    end\n'
               '  end\n')
    assert merge_update(document, context, "deliverer_spec.rb", after="").merged == document.replace(
        "  end\nend\n", "  end\n\n" + context + "end\n")


def test_a_method_s_body_moved_into_a_new_one_past_a_rescue_keeps_private_once():
    """``call`` becomes a retry loop and its old body, down to the ``rescue`` at the method's depth, moves into a
    new private ``attempt_delivery`` under ``private`` moved up: the old body's lines below the ``rescue`` are
    the rewritten method's too (not the file's kept beside new code), so the reading by syntax stands and
    ``private`` is written once."""
    document = ("class Deliverer\n  def call\n    response = post_payload\n    Result.new(response.code)\n"
                "  rescue Net::ReadTimeout => e\n    Result.new(e.class.name)\n  end\n\n  private\n\n"
                "  def post_payload\n    @http.post(@url)\n  end\nend\n")
    update = ("class Deliverer\n  def call\n    loop do\n      result = attempt_delivery\n"
              "      return result if result.ok?\n    end\n  end\n\n  private\n\n  def attempt_delivery\n"
              "    response = post_payload\n    Result.new(response.code)\n  rescue Net::ReadTimeout => e\n"
              "    Result.new(e.class.name)\n  end\n\n  # post_payload stays as it is\nend\n")
    merged = merge_update(document, update, "deliverer.rb").merged
    assert merged == update.replace("  # post_payload stays as it is\n", "  def post_payload\n    @http.post(@url)\n  end\n")
    assert merged.count("private") == 1


def test_a_new_test_then_the_describe_s_closing_line_goes_inside_the_describe():
    """A new ``it(...)`` and the ``});`` the file ends with, nothing else: the only line of the file is its last,
    which the new test goes before, set apart from the test above it."""
    document = ("import { render } from '@testing-library/react';\n\ndescribe('UserList', () => {\n"
                "  it('renders', () => {\n    render(<UserList />);\n  });\n});\n")
    new = "  it('debounces the query', async () => {\n    vi.useFakeTimers();\n    render(<UserList />);\n  });\n"
    assert merge_update(document, new + "});\n", "UserList.test.tsx").merged == document.replace(
        "  });\n});\n", "  });\n\n" + new + "});\n")


def test_a_new_definition_s_attribute_line_is_no_place_and_members_at_the_module_s_end_go_inside_it():
    """Elixir (no grammar here): ``@impl true`` above a new ``handle_info`` after a marker is the new callback's
    (placed on the file's last ``@impl true`` it deleted the callback below it); tests said to go "at the end of
    the module", shown with the module's ``end``, go before that ``end``."""
    document = ("defmodule KvCache do\n  @impl true\n  def init(opts) do\n    {:ok, opts}\n  end\n\n  @impl true\n"
                "  def handle_call(:size, _from, state) do\n    {:reply, map_size(state), state}\n  end\n\n  @impl true\n"
                "  def handle_cast({:delete, key}, state) do\n    {:noreply, Map.delete(state, key)}\n  end\nend\n")
    new = "  @impl true\n  def handle_info(:sweep, state) do\n    {:noreply, sweep(state)}\n  end\n"
    update = "  # ... handle_call(:size, ...) and handle_cast({:delete, ...}) stay the same ...\n\n" + new + "end\n"
    assert merge_update(document, update, "kv_cache.ex").merged == document[: -len("end\n")] + "\n" + new + "end\n"
    tests = 'defmodule KvCacheTest do\n  use ExUnit.Case\n\n  test "a" do\n    assert 1\n  end\nend\n'
    new = '  test "b" do\n    assert 2\n  end\n'
    assert merge_update(tests, new + "end\n", "kv_cache_test.exs", after="").merged == \
        tests[: -len("end\n")] + "\n" + new + "end\n"


@pytest.mark.parametrize("name", ["config.js", "config.lua"])
def test_a_guard_for_another_field_after_a_marker_is_added_beside_the_file_s_not_its_rewrite(name):
    """``// ...existing code...`` then a guard for ``retries`` before the unchanged ``return config;``: alike the
    file's guard for ``timeout`` line for line, but about another field (``timeout`` gone, ``retries`` new): it
    is added, and the ``timeout`` guard stays.  By syntax (JavaScript) and by lines (no grammar for Lua here)."""
    document = ("function validate(config) {\n  if (!config.baseUrl) {\n    throw new Error('baseUrl is required');\n  }\n"
                "  if (!Number.isInteger(config.timeout) || config.timeout <= 0) {\n"
                "    throw new Error(`timeout must be positive, got ${config.timeout}`);\n  }\n  return config;\n}\n")
    guard = ("  if (!Number.isInteger(config.retries) || config.retries < 0) {\n"
             "    throw new Error(`retries must not be negative, got ${config.retries}`);\n  }\n")
    update = "function validate(config) {\n  // ...existing code...\n" + guard + "  return config;\n}\n"
    assert merge_update(document, update, name).merged == document.replace("  return config;", guard + "  return config;")


def test_code_added_at_the_end_is_set_off_as_the_file_sets_off_its_blocks():
    """"Add these tests at the end of the file": a Python module whose functions stand two blank lines apart
    gets two before the new one; a stylesheet whose rules stand one apart, one."""
    module = ("import pytest\n\n\nasync def test_a():\n    assert 1\n\n\nasync def test_b():\n    def handler(request):\n"
              "        return 503\n\n    with pytest.raises(ValueError):\n        await call(handler)\n")
    new = ("async def test_c():\n    calls = 0\n\n    def handler(request):\n        nonlocal calls\n        calls += 1\n"
           "        return 503\n\n    assert await call(handler) == 503\n")
    assert merge_update(module, new, "test_x.py", after="").merged == module + "\n\n" + new
    css = ".a {\n  color: red;\n}\n\n.b {\n  color: blue;\n}\n"
    rule = ".c {\n  margin: 0;\n}\n"
    assert merge_update(css, rule, "site.css", after="").merged == css + "\n" + rule


def test_new_methods_longer_than_half_the_file_still_go_into_its_one_class():
    """Two new test methods pasted alone, together longer than the test class they go in, none of their names the
    class's: an addition at the class's end (refused before as maybe the class rewritten)."""
    php = ("<?php\n\nnamespace Tests\\Feature;\n\nuse Tests\\TestCase;\n\nclass PostApiTest extends TestCase\n{\n"
           "    public function test_index_lists_posts(): void\n    {\n        $this->getJson('/api/posts')->assertOk();\n"
           "    }\n}\n")
    body = "".join(f"        $this->getJson('/api/posts?status={s}')->assertOk();\n" for s in ("a", "b", "c", "d"))
    new = ("    public function test_index_filters_by_status(): void\n    {\n" + body + "    }\n\n"
           "    public function test_index_rejects_a_bad_status(): void\n    {\n" + body + "    }\n")
    assert merge_update(php, new, "PostApiTest.php").merged == php.replace("    }\n}\n", "    }\n\n" + new + "}\n")


def test_a_composable_s_return_shown_after_a_new_function_rewrites_the_file_s_return():
    """A new function, then the composable's ``return`` with its name added and the ``}`` the file ends with:
    the function goes above the ``return``, which is rewritten, not kept above the new function."""
    document = """export function useTodos() {
  const todos = ref<Todo[]>([]);

  function remove(id: number) {
    todos.value = todos.value.filter((t) => t.id !== id);
  }

  return { todos, remove };
}
"""
    update = """  function rename(id: number, title: string) {
    const todo = todos.value.find((t) => t.id === id);
    if (todo) todo.title = title.trim();
  }

  return { todos, remove, rename };
}
"""
    want = document.replace("  return { todos, remove };\n}\n", update)
    assert merge_update(document, update, "useTodos.ts").merged == want


def test_a_doc_comment_s_second_line_saying_something_stays_intact_is_not_a_marker():
    """``// The row is kept so that foreign keys ... stay intact.`` under the doc's first line and above the
    ``func``: it ends as a marker's words do, but it continues a comment on code, and it was lost."""
    document = """package store

func (s *UserStore) Delete(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, deleteUser, id)
	return err
}
"""
    update = """// Delete soft-deletes the user.
// The row is kept so that foreign keys and audit history stay intact.
func (s *UserStore) Delete(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, softDeleteUser, id)
	return err
}
"""
    assert merge_update(document, update, "users.go").merged == "package store\n\n" + update
    assert is_marker("// Everything else stays intact.")


def test_a_whole_file_that_ends_on_a_statement_the_file_has_several_times_is_the_whole_file():
    """The new queries file ends on ``RETURNING ...;``, which the file's queries end with too: the last of them
    is not where the update ends, and the query the new file leaves out goes."""
    document = ("-- name: GetUser\nSELECT id, email FROM users WHERE id = $1;\n\n"
                "-- name: CreateUser\nINSERT INTO users (email) VALUES ($1)\nRETURNING id, email;\n\n"
                "-- name: UpdateUser\nUPDATE users SET email = $2 WHERE id = $1\nRETURNING id, email;\n\n"
                "-- name: DeleteUser\nDELETE FROM users\nWHERE id = $1;\n")
    update = ("-- name: GetUser\nSELECT id, email FROM users WHERE id = $1 AND deleted_at IS NULL;\n\n"
              "-- name: CreateUser\nINSERT INTO users (email) VALUES ($1)\nRETURNING id, email;\n\n"
              "-- name: UpdateUser\nUPDATE users SET email = $2 WHERE id = $1\nRETURNING id, email;\n\n"
              "-- name: RestoreUser\nUPDATE users SET deleted_at = NULL WHERE id = $1\nRETURNING id, email;\n")
    assert merge_update(document, update, "users.sql", whole=True).merged == update


def test_a_new_elixir_function_s_doc_heredoc_is_its_own_not_a_place_in_the_file():
    """``@doc \"\"\"`` and ``\"\"\"`` above a new function are lines every documented function of the file has:
    placed on the last of them, they deleted the functions between (unseen)."""
    functions = "".join(f'''  @doc """
  {name.capitalize()}s a product.
  """
  def {name}_product(product) do
    Repo.{name}(product)
  end

''' for name in ("insert", "update", "delete"))
    document = f'''defmodule Shop.Catalog do
  def list_products do
    Product
    |> Repo.all()
  end

{functions}end
'''
    update = '''  def list_products do
    Product
    |> Repo.all()
  end

  @default_per_page 20

  @doc """
  Returns a page of products.
  """
  def paginate_products(page) do
    Product
    |> limit(@default_per_page)
    |> offset((page - 1) * @default_per_page)
    |> Repo.all()
  end
'''
    merged = merge_update(document, update, "lib/shop/catalog.ex").merged
    assert merged == document.replace("  def list_products do\n    Product\n    |> Repo.all()\n  end\n", update)


def test_a_line_the_update_moves_from_a_rewritten_method_into_a_new_one_is_not_context_taken():
    """``delete`` made a soft delete and its ``DELETE FROM`` line moved into a new ``purge``: the syntax's
    merge writes that line anew and removes the file's, as the update says, and is not weighed as one that
    took context for new code (the lines' reading, which kept the old ``get`` beside the new, won)."""
    document = '''class OrderRepository:
    def __init__(self, conn):
        self._conn = conn

    def get(self, order_id):
        row = self._conn.execute(
            "SELECT * FROM orders WHERE id = %s",
            (order_id,),
        ).fetchone()
        return Order.from_row(row) if row else None

    def delete(self, order_id):
        cur = self._conn.execute("DELETE FROM orders WHERE id = %s", (order_id,))
        return cur.rowcount == 1
'''
    update = '''class OrderRepository:
    # ... __init__ unchanged ...

    def get(self, order_id, *, include_deleted=False):
        query = "SELECT * FROM orders WHERE id = %s"
        if not include_deleted:
            query += " AND deleted_at IS NULL"
        row = self._conn.execute(query, (order_id,)).fetchone()
        return Order.from_row(row) if row else None

    def delete(self, order_id):
        cur = self._conn.execute("UPDATE orders SET deleted_at = now() WHERE id = %s", (order_id,))
        return cur.rowcount == 1

    def purge(self, order_id):
        cur = self._conn.execute("DELETE FROM orders WHERE id = %s", (order_id,))
        return cur.rowcount == 1
'''
    want = document.split("    def get")[0] + update.split("unchanged ...\n\n")[1]
    assert merge_update(document, update, "repository.py").merged == want


def test_a_new_section_title_comment_after_a_shown_section_is_new_not_the_next_title_rewritten():
    """``# --- Redis ---`` after the shown jobs section looks like the ``# --- Email ---`` title below it (the
    same frame): comments with no word in common are other titles, and the email section keeps its own."""
    document = ("# --- Background jobs ---\nWORKER_CONCURRENCY=4\nJOB_RETRY_LIMIT=5\n\n"
                "# --- Email ---\nSMTP_HOST=smtp.example.com\nSMTP_PORT=587\n")
    update = ("# --- Background jobs ---\nWORKER_CONCURRENCY=4\nJOB_RETRY_LIMIT=5\n\n"
              "# --- Redis ---\nREDIS_MAXMEMORY=256mb\n")
    want = update + "\n# --- Email ---\nSMTP_HOST=smtp.example.com\nSMTP_PORT=587\n"
    assert merge_update(document, update, ".env.example").merged == want


def test_a_template_s_block_opened_anew_after_a_marker_with_a_new_first_row_keeps_what_the_marker_stands_for():
    """``<!-- thead unchanged -->``, then ``<tbody>`` given a class and a new first row: the new row's ``</tr>``
    closes it (not the header row's, which took the ``</thead>`` away), and the old ``<tbody>`` is the line
    rewritten (it stayed beside its rewrite)."""
    document = """<template>
  <table>
    <thead>
      <tr>
        <th>Name</th>
      </tr>
    </thead>
    <tbody>
      <tr v-for="user in users" :key="user.id">
        <td>{{ user.name }}</td>
      </tr>
    </tbody>
  </table>
</template>
"""
    update = """  <table>
    <!-- thead unchanged -->
    <tbody :class="{ 'is-loading': loading }">
      <tr v-if="!loading && users.length === 0">
        <td class="empty">No users yet</td>
      </tr>
      <tr v-for="user in users" :key="user.id">
"""
    want = document.replace("    <tbody>\n", """    <tbody :class="{ 'is-loading': loading }">
      <tr v-if="!loading && users.length === 0">
        <td class="empty">No users yet</td>
      </tr>
""")
    assert merge_update(document, update, "UserTable.vue").merged == want


@pytest.mark.parametrize("update, old", [
    ('    expect(screen.getByText("42 total")).toBeInTheDocument();\n'
     '    expect(api.fetchUsers).toHaveBeenCalledWith(\n'
     '      expect.objectContaining({ page: 1, pageSize: 20 }),\n    );\n  });\n',
     "    expect(api.fetchUsers).toHaveBeenCalledWith(1, 20);\n"),
    ('    await waitFor(() =>\n'
     '      expect(api.fetchUsers).toHaveBeenLastCalledWith(expect.objectContaining({ page: 2 })),\n    );\n'
     '    expect(screen.getByText("Page 2 of 3")).toBeInTheDocument();\n',
     "    await waitFor(() => expect(api.fetchUsers).toHaveBeenLastCalledWith(2, 20));\n"),
])
def test_a_one_line_call_given_its_arguments_over_several_lines_is_rewritten_not_kept_beside(update, old):
    document = """describe("UserSearch", () => {
  it("renders the first page of users", async () => {
    render(<UserSearch />);
    expect(screen.getByText("42 total")).toBeInTheDocument();
    expect(api.fetchUsers).toHaveBeenCalledWith(1, 20);
  });

  it("goes to the next page", async () => {
    await user.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(api.fetchUsers).toHaveBeenLastCalledWith(2, 20));
    expect(screen.getByText("Page 2 of 3")).toBeInTheDocument();
  });
});
"""
    merged = merge_update(document, update, "UserSearch.test.tsx").merged
    shown = [line for line in update.splitlines(True) if line in document]
    new = "".join(line for line in update.splitlines(True) if line not in document)
    assert old not in merged and new in merged and all(line in merged for line in shown)
    assert len(merged.splitlines()) == len(document.splitlines()) - 1 + len(new.splitlines())


def test_a_message_rewritten_before_a_marker_is_a_rewrite_not_another_entry():
    """``Console.Error.WriteLine("usage: inventory [--json] <items.csv>");`` over the file's usage line: a call
    with one string reads like a Gradle dependency, but a message (it has spaces) is rewritten, not added."""
    document = """static void PrintUsage()
{
    Console.Error.WriteLine("usage: inventory <items.csv>");
    Console.Error.WriteLine();
}
"""
    update = """static void PrintUsage()
{
    Console.Error.WriteLine("usage: inventory [--json] <items.csv>");
    // ...
"""
    want = document.replace("inventory <items", "inventory [--json] <items")
    assert merge_update(document, update).merged == want


def test_a_local_declared_anew_with_its_check_below_rewrites_the_file_s_declaration():
    """``local debug, debug_err = ini.get_boolean(...)`` and the check of it, after the port check: the file's
    ``local debug = ... == "true"`` is the line rewritten (it stayed below the new code, declared twice)."""
    document = """local port = tonumber(ini.get(config, "server", "port", "8080"))
if not port then
  os.exit(1)
end
local debug = ini.get(config, "server", "debug", "false") == "true"

print(string.format("port  = %d", port))
"""
    update = """if not port then
  os.exit(1)
end
local debug, debug_err = ini.get_boolean(config, "server", "debug", false)
if debug == nil then
  io.stderr:write("error: " .. debug_err .. "\\n")
  os.exit(1)
end
"""
    want = document.replace('local debug = ini.get(config, "server", "debug", "false") == "true"\n',
                            update.split("end\n", 1)[1])
    assert merge_update(document, update, "main.lua").merged == want



def test_a_new_form_above_a_marker_for_the_file_s_form_is_added_and_the_file_s_form_stays():
    """``<form class="search-form">`` and its ``</form>`` before ``<!-- ... new-bookmark form ... unchanged -->``:
    another element than the file's ``<form class="bookmark-form">`` (not its rewrite), and its ``</form>`` no
    place for the marker to start after (the file's form went, unseen)."""
    document = """<section class="bookmarks">
  <header class="bookmarks__header">
    <h1>My bookmarks</h1>
  </header>

  <form class="bookmark-form" method="post" action="/bookmarks">
    <input type="url" name="url" required>
    <textarea name="description" rows="2"></textarea>
    <button type="submit">Save</button>
  </form>

  <ul class="bookmark-list">
    <li>one</li>
  </ul>
</section>
"""
    search = """  <form class="search-form" method="get" action="/bookmarks">
    <input type="search" name="q" value="{{ query }}">
  </form>
"""
    update = """  <header class="bookmarks__header">
    <h1>My bookmarks</h1>
  </header>

""" + search + """
  <!-- ... new-bookmark form and list unchanged ... -->
</section>
"""
    want = document.replace("  </header>\n\n", "  </header>\n\n" + search + "\n")
    assert merge_update(document, update, "bookmarks.html").merged == want


def test_a_template_s_opening_lines_shown_alone_keep_the_rest_of_its_outer_element():
    """The first lines of a Blade view, down to the header's ``</div>``, the outer ``<div>`` left open: its head,
    not the whole element (the table after it went, unseen, as the rest of a block shown whole)."""
    document = """<div class="space-y-4">
    <div class="flex items-center justify-between">
        <h2 class="text-lg font-semibold">Users</h2>
    </div>

    <table class="min-w-full">
        <tr><td>{{ $user->name }}</td></tr>
    </table>
</div>
"""
    update = """<div class="space-y-4">
    <div class="flex items-center justify-between gap-4">
        <h2 class="text-lg font-semibold">Users</h2>
        <input type="search" wire:model.live="search">
    </div>
"""
    want = document.replace("""    <div class="flex items-center justify-between">
        <h2 class="text-lg font-semibold">Users</h2>
""", """    <div class="flex items-center justify-between gap-4">
        <h2 class="text-lg font-semibold">Users</h2>
        <input type="search" wire:model.live="search">
""")
    assert merge_update(document, update, "user-table.blade.php").merged == want


def test_a_new_statement_right_under_a_marker_for_a_run_of_statements_continues_the_run():
    """``// ... the others parsed as before ...`` then a new statement, then the blank line the file has before
    ``Ok(...)``: the new statement joins the run of statements the marker keeps, with no blank line above it."""
    document = """impl Config {
    pub fn from_env() -> Result<Self> {
        let url = env::var("URL")?;
        let port = env::var("PORT")?
            .parse()?;

        Ok(Self { url, port })
    }
}
"""
    update = """impl Config {
    pub fn from_env() -> Result<Self> {
        // ... url and port parsed as before ...
        let retries = env::var("RETRIES")?
            .parse()?;

        Ok(Self { url, port, retries })
    }
}
"""
    want = document.replace("""            .parse()?;

        Ok(Self { url, port })""", """            .parse()?;
        let retries = env::var("RETRIES")?
            .parse()?;

        Ok(Self { url, port, retries })""")
    assert merge_update(document, update, "config.rs").merged == want


def test_new_methods_shown_with_the_class_s_closing_brace_alone_go_at_the_end_of_the_class():
    """Two new test methods and the ``}`` that ends the file's class, nothing else of the file: the methods go at
    the end of the class and the brace is not written again.  Read by lines, lines of the new tests that the file's
    own tests also have (``}, afterResponse: { res async throws in``, ``})``) were taken for context, the new tests
    were cut into an old one and the file no longer parsed (refused)."""
    document = ('@testable import App\n'
                'import Fluent\n'
                'import XCTVapor\n'
                '\n'
                'final class TodoTests: XCTestCase {\n'
                '    var app: Application!\n'
                '\n'
                '    override func setUp() async throws {\n'
                '        app = try await Application.make(.testing)\n'
                '        try await configure(app)\n'
                '        try await app.autoMigrate()\n'
                '    }\n'
                '\n'
                '    override func tearDown() async throws {\n'
                '        try await app.autoRevert()\n'
                '        try await app.asyncShutdown()\n'
                '        app = nil\n'
                '    }\n'
                '\n'
                '    func testCreateTodo() async throws {\n'
                '        try await app.test(.POST, "todos", beforeRequest: { req in\n'
                '            try req.content.encode(["title": "Buy milk"])\n'
                '        }, afterResponse: { res async throws in\n'
                '            XCTAssertEqual(res.status, .ok)\n'
                '            let dto = try res.content.decode(TodoDTO.self)\n'
                '            XCTAssertEqual(dto.title, "Buy milk")\n'
                '            XCTAssertFalse(dto.isDone)\n'
                '        })\n'
                '    }\n'
                '\n'
                '    func testCreateTodoRejectsEmptyTitle() async throws {\n'
                '        try await app.test(.POST, "todos", beforeRequest: { req in\n'
                '            try req.content.encode(["title": ""])\n'
                '        }, afterResponse: { res async throws in\n'
                '            XCTAssertEqual(res.status, .badRequest)\n'
                '        })\n'
                '    }\n'
                '\n'
                '    func testDeleteTodo() async throws {\n'
                '        let todo = Todo(title: "Temp")\n'
                '        try await todo.save(on: app.db)\n'
                '\n'
                '        try await app.test(.DELETE, "todos/\\(todo.requireID())") { res async in\n'
                '            XCTAssertEqual(res.status, .noContent)\n'
                '        }\n'
                '        let remaining = try await Todo.query(on: app.db).count()\n'
                '        XCTAssertEqual(remaining, 0)\n'
                '    }\n'
                '}\n')
    update = ('    func testPatchTogglesDoneWithoutTouchingTitle() async throws {\n'
              '        let todo = Todo(title: "Write tests")\n'
              '        try await todo.save(on: app.db)\n'
              '\n'
              '        try await app.test(.PATCH, "todos/\\(todo.requireID())", beforeRequest: { req in\n'
              '            try req.content.encode(["isDone": true])\n'
              '        }, afterResponse: { res async throws in\n'
              '            XCTAssertEqual(res.status, .ok)\n'
              '            let dto = try res.content.decode(TodoDTO.self)\n'
              '            XCTAssertTrue(dto.isDone)\n'
              '            XCTAssertEqual(dto.title, "Write tests")\n'
              '        })\n'
              '    }\n'
              '\n'
              '    func testPatchRejectsEmptyTitle() async throws {\n'
              '        let todo = Todo(title: "Keep me")\n'
              '        try await todo.save(on: app.db)\n'
              '\n'
              '        try await app.test(.PATCH, "todos/\\(todo.requireID())", beforeRequest: { req in\n'
              '            try req.content.encode(["title": ""])\n'
              '        }, afterResponse: { res async throws in\n'
              '            XCTAssertEqual(res.status, .badRequest)\n'
              '        })\n'
              '    }\n'
              '}\n')
    want = document[:-2] + "\n" + update  # (before the class's closing brace, set apart)
    assert merge_update(document, update, "TodoTests.swift").merged == want


def test_a_namespace_the_update_leaves_open_is_closed_by_the_file_s_own_closing_line():
    """An update that opens ``namespace stats {`` and never closes it: the file's ``}  // namespace stats`` stays
    as it is, not rewritten as a bare ``}``."""
    document = ("#include <cmath>\n\nnamespace stats {\n\ndouble mean(const std::vector<double>& v) {\n"
                "    return 0.0;\n}\n\ndouble spread(const std::vector<double>& v) {\n    return 1.0;\n}\n\n"
                "}  // namespace stats\n")
    update = ("namespace stats {\n\n// ... mean() unchanged ...\n\ndouble spread(const std::vector<double>& v) {\n"
              "    return std::sqrt(2.0);\n}\n")
    want = document.replace("    return 1.0;", "    return std::sqrt(2.0);")
    assert merge_update(document, update, "stats.cpp").merged == want


def test_a_rust_use_given_one_more_name_rewrites_the_file_s_use():
    """``use crate::models::{CreateTodo, Todo, UpdateTodo};`` over the file's ``use crate::models::{CreateTodo,
    Todo};``: the same import given a name, not a second import beside the first."""
    document = ("use serde::Deserialize;\n\nuse crate::models::{CreateTodo, Todo};\nuse crate::{ApiError, AppState};\n\n"
                "pub async fn list() -> Json<Vec<Todo>> {\n    Json(vec![])\n}\n\n"
                "pub async fn delete() -> StatusCode {\n    StatusCode::OK\n}\n")
    update = ("use crate::models::{CreateTodo, Todo, UpdateTodo};\nuse crate::{ApiError, AppState};\n\n"
              "// ... list stays the same ...\n\npub async fn update(Json(input): Json<UpdateTodo>) -> StatusCode {\n"
              "    StatusCode::OK\n}\n\n// ... delete stays the same ...\n")
    want = document.replace("{CreateTodo, Todo};", "{CreateTodo, Todo, UpdateTodo};").replace(
        "pub async fn delete", "pub async fn update(Json(input): Json<UpdateTodo>) -> StatusCode {\n"
                               "    StatusCode::OK\n}\n\npub async fn delete")
    assert merge_update(document, update, "routes.rs").merged == want


def test_a_new_test_s_last_line_above_a_trailing_marker_is_its_own_not_the_file_s():
    """New tests, then ``# ... remaining tests unchanged ...``; the last new test ends on a line the file's last
    test ends on too (``assert response.status_code == 422``).  That line is the new test's own, not context:
    the file's remaining tests stay (a reading that took it for context paired the new tests with them)."""
    document = ('def make_item(client, **overrides):\n'
                '    payload = {"name": "Widget", "price": 9.99, "quantity": 3}\n'
                '    payload.update(overrides)\n'
                '    response = client.post("/items", json=payload)\n'
                '    assert response.status_code == 201, response.text\n'
                '    return response.json()\n'
                '\n'
                '\n'
                'def test_create_and_get_item(client):\n'
                '    created = make_item(client, name="Gadget")\n'
                '    response = client.get(f"/items/{created[\'id\']}")\n'
                '    assert response.status_code == 200\n'
                '    assert response.json()["name"] == "Gadget"\n'
                '\n'
                '\n'
                'def test_list_items(client):\n'
                '    make_item(client, name="A")\n'
                '    make_item(client, name="B")\n'
                '    response = client.get("/items")\n'
                '    assert response.status_code == 200\n'
                '    assert [i["name"] for i in response.json()] == ["A", "B"]\n'
                '\n'
                '\n'
                'def test_update_item(client):\n'
                '    created = make_item(client)\n'
                '    response = client.patch(f"/items/{created[\'id\']}", json={"quantity": 10})\n'
                '    assert response.status_code == 200\n'
                '    assert response.json()["quantity"] == 10\n'
                '\n'
                '\n'
                'def test_delete_item(client):\n'
                '    created = make_item(client)\n'
                '    assert client.delete(f"/items/{created[\'id\']}").status_code == 204\n'
                '    assert client.get(f"/items/{created[\'id\']}").status_code == 404\n'
                '\n'
                '\n'
                'def test_create_item_rejects_negative_price(client):\n'
                '    response = client.post("/items", json={"name": "Bad", "price": -1})\n'
                '    assert response.status_code == 422\n')
    update = ('# ... fixture, make_item and test_create_and_get_item unchanged ...\n'
              '\n'
              '\n'
              'def test_list_items(client):\n'
              '    make_item(client, name="A")\n'
              '    make_item(client, name="B")\n'
              '    response = client.get("/items")\n'
              '    assert response.status_code == 200\n'
              '    body = response.json()\n'
              '    assert body["total"] == 2\n'
              '    assert [i["name"] for i in body["items"]] == ["A", "B"]\n'
              '\n'
              '\n'
              'def test_list_items_paginates(client):\n'
              '    for n in range(5):\n'
              '        make_item(client, name=f"Item {n}")\n'
              '\n'
              '    response = client.get("/items", params={"limit": 2, "offset": 2})\n'
              '    assert response.status_code == 200\n'
              '    body = response.json()\n'
              '    assert body["total"] == 5\n'
              '    assert body["limit"] == 2\n'
              '    assert body["offset"] == 2\n'
              '    assert [i["name"] for i in body["items"]] == ["Item 2", "Item 3"]\n'
              '\n'
              '\n'
              '@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 101}, {"offset": -1}])\n'
              'def test_list_items_rejects_bad_params(client, params):\n'
              '    response = client.get("/items", params=params)\n'
              '    assert response.status_code == 422\n'
              '\n'
              '\n'
              '# ... remaining tests unchanged ...\n')
    want = document.replace('def test_list_items(client):\n    make_item(client, name="A")\n    make_item(client, name="B")\n    response = client.get("/items")\n    assert response.status_code == 200\n    assert [i["name"] for i in response.json()] == ["A", "B"]\n\n\n', 'def test_list_items(client):\n    make_item(client, name="A")\n    make_item(client, name="B")\n    response = client.get("/items")\n    assert response.status_code == 200\n    body = response.json()\n    assert body["total"] == 2\n    assert [i["name"] for i in body["items"]] == ["A", "B"]\n\n\ndef test_list_items_paginates(client):\n    for n in range(5):\n        make_item(client, name=f"Item {n}")\n\n    response = client.get("/items", params={"limit": 2, "offset": 2})\n    assert response.status_code == 200\n    body = response.json()\n    assert body["total"] == 5\n    assert body["limit"] == 2\n    assert body["offset"] == 2\n    assert [i["name"] for i in body["items"]] == ["Item 2", "Item 3"]\n\n\n@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 101}, {"offset": -1}])\ndef test_list_items_rejects_bad_params(client, params):\n    response = client.get("/items", params=params)\n    assert response.status_code == 422\n\n\n')
    assert merge_update(document, update, "test_items.py").merged == want


def test_a_new_function_shown_with_the_namespace_s_closing_line_goes_before_it_set_off():
    """A new function and ``}  // namespace strutil``, the file's last line, nothing else of the file: the function
    goes before that line, a blank line above it as the file sets off its closing line (it was written right
    under the previous function's ``}``)."""
    document = ("namespace strutil {\n\nstd::string trim(std::string_view s) {\n    return std::string(s);\n}\n\n"
                "}  // namespace strutil\n")
    new = "std::string upper(std::string_view s) {\n    return std::string(s);\n}\n"
    update = new + "\n}  // namespace strutil\n"
    want = document.replace("\n}  // namespace", "\n" + new + "\n}  // namespace")
    assert merge_update(document, update, "strutil.cpp", after="").merged == want
    assert merge_update(document, update, "strutil.cpp").merged == want


def test_the_end_below_new_tests_closes_their_group_not_a_later_one():
    """New examples at the end of ``describe "POST /todos"``, its ``  end``, a marker for the PATCH and DELETE groups
    and a new group: the ``  end`` is the POST group's (its opener is placed), not the PATCH group's, which an
    ``end`` fits as well; read so, the PATCH and DELETE groups went."""
    document = ('# frozen_string_literal: true\n'
                '\n'
                'require_relative "spec_helper"\n'
                '\n'
                'RSpec.describe TodoApp do\n'
                '  def app\n'
                '    TodoApp\n'
                '  end\n'
                '\n'
                '  describe "POST /todos" do\n'
                '    it "creates a todo" do\n'
                '      post_json "/todos", title: "write specs"\n'
                '\n'
                '      expect(last_response.status).to eq(201)\n'
                '      expect(json).to include(title: "write specs", done: false)\n'
                '      expect(json[:id]).to be_a(String)\n'
                '    end\n'
                '  end\n'
                '\n'
                '  describe "PATCH /todos/:id" do\n'
                '    it "marks a todo as done" do\n'
                '      post_json "/todos", title: "ship it"\n'
                '      id = json[:id]\n'
                '\n'
                '      patch_json "/todos/#{id}", done: true\n'
                '\n'
                '      expect(last_response.status).to eq(200)\n'
                '      expect(json[:done]).to be(true)\n'
                '    end\n'
                '  end\n'
                '\n'
                '  describe "DELETE /todos/:id" do\n'
                '    it "removes the todo" do\n'
                '      post_json "/todos", title: "temporary"\n'
                '      id = json[:id]\n'
                '\n'
                '      delete "/todos/#{id}"\n'
                '      expect(last_response.status).to eq(204)\n'
                '\n'
                '      get "/todos/#{id}"\n'
                '      expect(last_response.status).to eq(404)\n'
                '    end\n'
                '  end\n'
                'end\n')
    update = ('  describe "POST /todos" do\n'
              '    it "creates a todo" do\n'
              '      # ... existing example ...\n'
              '    end\n'
              '\n'
              '    it "returns 400 for malformed JSON" do\n'
              '      post "/todos", "{not json", "CONTENT_TYPE" => "application/json"\n'
              '\n'
              '      expect(last_response.status).to eq(400)\n'
              '      expect(json[:error]).to eq("malformed JSON")\n'
              '    end\n'
              '\n'
              '    it "returns 422 when the title is missing" do\n'
              '      post_json "/todos", {}\n'
              '\n'
              '      expect(last_response.status).to eq(422)\n'
              '      expect(json[:error]).to eq("title is required")\n'
              '    end\n'
              '\n'
              '    it "returns 422 when the title is too long" do\n'
              '      post_json "/todos", title: "x" * 201\n'
              '\n'
              '      expect(last_response.status).to eq(422)\n'
              '      expect(json[:error]).to match(/at most 200 characters/)\n'
              '    end\n'
              '  end\n'
              '\n'
              '  # ... PATCH and DELETE groups unchanged ...\n'
              '\n'
              '  describe "unknown ids" do\n'
              '    it "returns a JSON 404 for GET" do\n'
              '      get "/todos/nope"\n'
              '\n'
              '      expect(last_response.status).to eq(404)\n'
              '      expect(json[:error]).to eq("todo nope not found")\n'
              '    end\n'
              '\n'
              '    it "returns a JSON 404 for DELETE" do\n'
              '      delete "/todos/nope"\n'
              '\n'
              '      expect(last_response.status).to eq(404)\n'
              '      expect(json[:error]).to eq("todo nope not found")\n'
              '    end\n'
              '  end\n'
              'end\n')
    examples = update[update.index('    it "returns 400'): update.index("  end\n\n  # ... PATCH")]
    group = update[update.index('  describe "unknown ids"'): update.rindex("end\n")]
    want = document.replace("to be_a(String)\n    end\n", "to be_a(String)\n    end\n\n" + examples, 1)
    want = want[:want.rindex("end\n")] + "\n" + group + "end\n"
    assert merge_update(document, update, "app_spec.rb").merged == want


def test_a_marker_inside_a_block_then_one_after_it_share_the_file_s_blank_line_once():
    """``# ... inputs unchanged ...`` inside ``workflow_dispatch:``, a blank line, ``# ...`` for the keys after ``on:``,
    a blank line, ``jobs:``: the first keeps the rest of its block, the second what follows it, and the file's one
    blank line before ``jobs:`` stays one (the first kept everything up to ``jobs:`` and the blank came twice)."""
    document = ("name: deploy\n\non:\n  push:\n    branches: [main]\n  workflow_dispatch:\n    inputs:\n"
                "      environment:\n        type: choice\n\npermissions:\n  contents: read\n\n"
                "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n")
    update = ("on:\n  push:\n    branches: [main]\n  pull_request:\n  workflow_dispatch:\n    # ... inputs unchanged ...\n\n"
              "# ...\n\njobs:\n  deploy:\n    if: x\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n")
    want = document.replace("  workflow_dispatch:", "  pull_request:\n  workflow_dispatch:").replace(
        "    runs-on", "    if: x\n    runs-on")
    assert merge_update(document, update, "deploy.yml").merged == want


def test_a_new_describe_after_a_leading_marker_goes_at_the_end_of_a_test_file():
    """"Add this at the end of the file": ``// ... existing tests ...`` then a new ``describe`` with nothing of the
    file in it: appended (read by lines, its ``test(`` and ``expect`` lines took the file's describe's)."""
    document = ("const request = require('supertest');\n\ndescribe('todos API', () => {\n"
                "  test('GET /todos returns all todos', async () => {\n    const res = await request(app).get('/todos');\n\n"
                "    expect(res.status).toBe(200);\n  });\n});\n")
    new = ("describe('GET /todos pagination', () => {\n  test('defaults to the first page', async () => {\n"
           "    const res = await request(app).get('/todos');\n\n    expect(res.status).toBe(200);\n"
           "    expect(res.body.page).toBe(1);\n  });\n});\n")
    update = "// ... existing tests ...\n\n" + new
    assert merge_update(document, update, "todos.test.js", after="").merged == document + "\n" + new


def test_csharp_test_methods_shown_alone_go_at_the_end_of_the_class_the_answer_names():
    """``[Fact]`` methods with nothing of the file, "add these tests to the `ProductServiceTests` class": C#'s parser
    reads them alone as top-level statements; read in a class, they are members, placed at the class's end."""
    document = ("using Xunit;\n\nnamespace ProductApi.Tests;\n\npublic class ProductServiceTests\n{\n    [Fact]\n"
                "    public void GetAll_ReturnsAll()\n    {\n        Assert.Equal(3, CreateService().GetAll().Count);\n"
                "    }\n}\n")
    new = ("    [Fact]\n    public void Search_Matches()\n    {\n        Assert.Single(CreateService().Search(\"usb\"));\n"
           "    }\n")
    want = document.replace("    }\n}\n", "    }\n\n" + new + "}\n")
    assert merge_update(document, new, "ProductServiceTests.cs", into="ProductServiceTests").merged == want


def test_a_new_method_below_one_shown_with_its_body_elided_does_not_take_that_body_s_lines():
    """``getTodos(...) {`` / ``// ...existing code...`` / ``}`` then a new ``search`` whose lines repeat
    ``getTodos``'s (``const params = new HttpParams()``...): the marker keeps ``getTodos``'s body, so its lines are
    no place for ``search``; read as one, they were written over it and the body went."""
    document = ("export class TodoService {\n  constructor(private http: HttpClient) {}\n\n"
                "  getTodos(page = 1): Observable<Todo[]> {\n    const params = new HttpParams()\n"
                "      .set('page', String(page));\n    return this.http\n      .get<TodoPage>(this.baseUrl, { params })\n"
                "      .pipe(map((res) => res.items));\n  }\n\n  addTodo(title: string): Observable<Todo> {\n"
                "    return this.http.post<Todo>(this.baseUrl, { title });\n  }\n}\n")
    new = ("  search(term: string): Observable<Todo[]> {\n    const params = new HttpParams()\n"
           "      .set('q', term);\n    return this.http\n      .get<TodoPage>(`${this.baseUrl}/search`, { params })\n"
           "      .pipe(map((res) => res.items));\n  }\n")
    update = ("// ...existing code...\n  getTodos(page = 1): Observable<Todo[]> {\n    // ...existing code...\n  }\n\n"
              + new + "\n  addTodo(title: string): Observable<Todo> {\n// ...existing code...\n")
    want = document.replace("  }\n\n  addTodo", "  }\n\n" + new + "\n  addTodo")
    assert merge_update(document, update, "todo.service.ts").merged == want


def test_a_python_test_shown_down_to_the_one_line_it_changes_keeps_its_other_lines():
    """"Turn retries off there:" and a test shown from its decorator to the line it changes, no further: Python has
    no closing line to say the test ends there, and the lines after the changed one stay.  A function shown with
    a new ending (``return ...`` where the file assigns) is rewritten whole, as before."""
    document = ("@pytest.mark.asyncio\nasync def test_reports_errors():\n    session = FakeSession([ConnectionError()])\n"
                "    fetcher = Fetcher(session=session)\n\n    result = await fetcher.fetch(URL)\n\n"
                "    assert not result.ok\n    assert result.error == \"refused\"\n\n\n"
                "@pytest.mark.asyncio\nasync def test_keeps_order():\n    assert True\n")
    update = ("@pytest.mark.asyncio\nasync def test_reports_errors():\n    session = FakeSession([ConnectionError()])\n"
              "    fetcher = Fetcher(session=session, retries=0)\n")
    want = document.replace("Fetcher(session=session)", "Fetcher(session=session, retries=0)")
    assert merge_update(document, update, "test_fetch.py").merged == want
    document = "def count(tup):\n    counts = {}\n    for e in tup:\n        counts[e] = counts.get(e, 0) + 1\n    return counts\n"
    update = "def count(tup):\n    return dict(Counter(tup))\n"
    assert merge_update(document, update, "count.py").merged == update


def test_a_new_route_placed_after_a_named_one_is_set_apart_as_routes_are():
    """A Ktor ``put("/{id}") { ... }`` shown alone, "add it right after `post`": after the ``post { ... }`` block, a
    blank line between them as between the file's routes (the ``post`` block has no title to say it is one)."""
    document = ("fun Route.todoRoutes(repository: TodoRepository) {\n    route(\"/todos\") {\n        get {\n"
                "            call.respond(repository.all())\n        }\n\n        post {\n"
                "            call.respond(HttpStatusCode.Created, repository.add(call.receive()))\n        }\n\n"
                "        delete(\"/{id}\") {\n            call.respond(HttpStatusCode.NoContent)\n        }\n    }\n}\n")
    update = "        put(\"/{id}\") {\n            call.respond(repository.update(call.receive()))\n        }\n"
    want = document.replace("        }\n\n        delete", "        }\n\n" + update + "\n        delete")
    assert merge_update(document, update, "TodoRoutes.kt", after="post").merged == want


def test_a_one_line_element_written_over_several_lines_rewrites_that_line():
    """"Replace the empty-state paragraph": the update is the paragraph over five lines, nothing of the file
    around it; the file has it on one line that the update opens alike and closes alike (``</p>``)."""
    document = ('<ul class="items">\n  <li *ngFor="let p of page.items">{{ p.name }}</li>\n</ul>\n\n'
                '<p *ngIf="page.items.length === 0" class="empty">No products found.</p>\n\n<nav class="pager"></nav>\n')
    update = ('<p *ngIf="page.items.length === 0 && !error" class="empty">\n'
              '  <ng-container *ngIf="query; else none">No products match “{{ query }}”.</ng-container>\n'
              '  <ng-template #none>No products found.</ng-template>\n</p>\n')
    assert merge_update(document, update, "list.component.html").merged == document.replace(
        '<p *ngIf="page.items.length === 0" class="empty">No products found.</p>\n', update)
    # two lines alike as much: no one place, refused
    twice = document + '<p *ngIf="page.items.length === 1" class="empty">No products found.</p>\n'
    with pytest.raises(UpdateError):
        merge_update(twice, update, "list.component.html")


def test_lua_definitions_and_commands_are_named_places():
    """Lua (no grammar here): "add these after `M.daily()`" finds ``function M.daily()``, though
    ``local opts = config.options`` fits the file twice; "register the command right after `NotesDir`" finds the
    call titled ``"NotesDir"``, whose block ends at its ``})`` past the callback's ``end, {``."""
    module = ('local M = {}\n\nfunction M.path_for(name)\n  local opts = config.options\n  return opts.dir .. name\nend\n\n'
              'function M.daily()\n  local opts = config.options\n  open(M.path_for(os.date(opts.date_format)))\nend\n\n'
              'function M.setup(opts)\n  config.setup(opts)\nend\n\nreturn M\n')
    new = ('---List notes, newest first.\nfunction M.list_notes(filter)\n  local opts = config.options\n'
           '  local notes = vim.fn.glob(opts.dir .. "/*", false, true)\n  table.sort(notes)\n  return notes\nend\n')
    assert merge_update(module, new, "init.lua", after="daily").merged == module.replace(
        "\nfunction M.setup", "\n" + new + "\nfunction M.setup")
    plugin = ('vim.api.nvim_create_user_command("NotesDaily", function()\n  notes().daily()\nend, {\n  nargs = 0,\n})\n\n'
              'vim.api.nvim_create_user_command("NotesDir", function()\n  vim.cmd("edit " .. dir)\nend, {\n  nargs = 0,\n})\n\n'
              'vim.keymap.set("n", "<Plug>(NotesDaily)", function()\n  notes().daily()\nend, { desc = "Daily" })\n')
    command = 'vim.api.nvim_create_user_command("NotesFind", function(args)\n  notes().find(args.args)\nend, {\n  nargs = "?",\n})\n'
    assert merge_update(plugin, command, "notes.lua", after="NotesDir").merged == plugin.replace(
        "\nvim.keymap.set", "\n" + command + "\nvim.keymap.set")


def test_a_snippet_s_last_line_is_context_that_places_it():
    """A new ``catch`` shown between the one above it and the first line of the next (``catch
    (InvalidDataException ex)``, the snippet's last line, once in the file): it goes before that line; read line
    for line alone, the new ``catch`` rewrote it (alike) and the file's came after, a file that does not parse."""
    document = ("class P\n{\n    static int Main(string path)\n    {\n        try\n        {\n            return Run(path);\n"
                "        }\n        catch (FileNotFoundException)\n        {\n            Console.Error.WriteLine(path);\n"
                "            return 1;\n        }\n        catch (InvalidDataException ex)\n        {\n"
                "            Console.Error.WriteLine(ex.Message);\n            return 2;\n        }\n    }\n}\n")
    new = ("        catch (InvoiceFormatException ex)\n        {\n            Console.Error.WriteLine(ex.Message);\n"
           "            foreach (var error in ex.Errors)\n            {\n                Console.Error.WriteLine(error);\n"
           "            }\n            return 2;\n        }\n")
    update = ("        catch (FileNotFoundException)\n        {\n            Console.Error.WriteLine(path);\n"
              "            return 1;\n        }\n" + new + "        catch (InvalidDataException ex)\n")
    assert merge_update(document, update, "Program.cs").merged == document.replace(
        "        catch (InvalidDataException ex)\n", new + "        catch (InvalidDataException ex)\n")


def test_a_condition_rewritten_with_a_variable_the_update_extracts_is_a_rewrite_not_a_new_one():
    """``query.trim()`` twice in a JSX condition becomes ``trimmed`` twice, with ``const trimmed = query.trim();``
    above: the same condition rewritten (not a guard for another thing kept beside the old one)."""
    document = ("export function Search() {\n  const [query, setQuery] = useState('');\n\n  return (\n    <div>\n"
                "      {loading && <p>Searching…</p>}\n\n      {!loading && query.trim() && results.length === 0 && (\n"
                "        <p>No users match “{query.trim()}”.</p>\n      )}\n\n      {results.length > 0 && (\n"
                "        <ul>{results.map((r) => <li key={r.id}>{r.name}</li>)}</ul>\n      )}\n    </div>\n  );\n}\n")
    update = ("export function Search() {\n  const [query, setQuery] = useState('');\n  const trimmed = query.trim();\n\n"
              "  return (\n    <div>\n      {loading && <p>Searching…</p>}\n\n"
              "      {!loading && !tooShort && trimmed && results.length === 0 && (\n"
              "        <p>No users match “{trimmed}”.</p>\n      )}\n\n      {/* ... results list unchanged ... */}\n"
              "    </div>\n  );\n}\n")
    merged = merge_update(document, update, "Search.tsx").merged
    assert "query.trim() && results" not in merged and merged.count("No users match") == 1


def test_a_new_handler_between_markers_goes_after_the_one_the_answer_names():
    """"Put `CompleteTodo` between `UpdateTodo` and `DeleteTodo`": the new handler between two markers repeats
    lines the file has in every handler (``: TypedResults.NotFound();``): they place nothing, and the handler
    goes after ``UpdateTodo``, whose head runs over two lines, set off once from ``DeleteTodo``."""
    handler = ("    private static async Task<Results<NoContent, NotFound>> {}(\n        long id, TodoRepository repo)\n"
               "    {{\n        return await repo.{}(id)\n            ? TypedResults.NoContent()\n"
               "            : TypedResults.NotFound();\n    }}\n")
    document = ("public static class TodoEndpoints\n{\n    public static RouteGroupBuilder Map(RouteGroupBuilder group)\n"
                "    {\n        group.MapPut(\"/{id:long}\", UpdateTodo);\n        return group;\n    }\n\n"
                + handler.format("UpdateTodo", "UpdateAsync") + "\n" + handler.format("DeleteTodo", "DeleteAsync") + "}\n")
    new = ("    private static async Task<Results<Ok<Todo>, NotFound>> CompleteTodo(long id, TodoRepository repo)\n"
           "    {\n        return await repo.CompleteAsync(id) is { } todo\n            ? TypedResults.Ok(todo)\n"
           "            : TypedResults.NotFound();\n    }\n")
    update = ("        group.MapPut(\"/{id:long}\", UpdateTodo);\n        group.MapPatch(\"/{id:long}/complete\", CompleteTodo);\n"
              "        return group;\n    }\n\n    // ... existing code ...\n\n" + new + "\n    // ... existing code ...\n")
    assert merge_update(document, update, "TodoEndpoints.cs", after="UpdateTodo").merged == document.replace(
        "UpdateTodo);\n", "UpdateTodo);\n        group.MapPatch(\"/{id:long}/complete\", CompleteTodo);\n").replace(
        "\n" + handler.format("DeleteTodo", "DeleteAsync"), "\n" + new + "\n" + handler.format("DeleteTodo", "DeleteAsync"))


def test_a_new_block_titled_otherwise_after_a_shown_one_rewrites_nothing():
    """Terraform (no grammar here): the versioning resource shown, a new lifecycle resource after it, then ``#
    ... encryption ... unchanged ...``: the new resource's head, alike the encryption one's, is another block
    (another title), so the encryption resource stays whole (its lines went, unseen)."""
    versioning = ('resource "aws_s3_bucket_versioning" "this" {\n  bucket = aws_s3_bucket.this.id\n\n'
                  '  versioning_configuration {\n    status = "Enabled"\n  }\n}\n')
    encryption = ('resource "aws_s3_bucket_server_side_encryption_configuration" "this" {\n'
                  '  bucket = aws_s3_bucket.this.id\n\n  rule {\n    bucket_key_enabled = true\n  }\n}\n')
    others = "".join('resource "aws_s3_bucket_%s" "this" {\n  bucket = aws_s3_bucket.this.id\n  %s = true\n}\n\n'
                     % (kind, kind) for kind in ("ownership_controls", "public_access_block", "policy"))
    document = 'resource "aws_s3_bucket" "this" {\n  bucket = var.name\n}\n\n' + others + versioning + "\n" + encryption
    lifecycle = ('resource "aws_s3_bucket_lifecycle_configuration" "this" {\n  bucket = aws_s3_bucket.this.id\n\n'
                 '  rule {\n    id     = "abort-multipart"\n    status = "Enabled"\n\n    filter {}\n\n'
                 '    abort_incomplete_multipart_upload {\n      days_after_initiation = var.abort_days\n    }\n  }\n\n'
                 '  depends_on = [aws_s3_bucket_versioning.this]\n}\n')
    update = ("# ... bucket unchanged ...\n\n" + versioning + "\n" + lifecycle + "\n# ... encryption unchanged ...\n")
    assert merge_update(document, update, "main.tf").merged == document.replace(
        versioning + "\n", versioning + "\n" + lifecycle + "\n")


def test_a_new_yaml_block_s_keys_are_its_own_not_the_next_block_s():
    """A new ``redis:`` service between ``api`` (its logging behind a marker) and a marker for the service after
    it: its ``volumes:`` is the new service's, not that service's (which placed the new one after it and took
    its line)."""
    document = ("services:\n  api:\n    image: rates\n    restart: unless-stopped\n    logging:\n      driver: json-file\n\n"
                "  stub:\n    image: mockserver\n    volumes:\n      - ./stubs:/config:ro\n")
    redis = "  redis:\n    image: redis:7.2-alpine\n    volumes:\n      - redis-data:/data\n"
    update = ("services:\n  api:\n    image: rates\n    restart: unless-stopped\n    # ... logging stays the same ...\n\n"
              + redis + "\n  # ... stub unchanged ...\n\nvolumes:\n  redis-data:\n")
    assert merge_update(document, update, "docker-compose.yml").merged == document.replace(
        "\n  stub:", "\n" + redis + "\n  stub:") + "\nvolumes:\n  redis-data:\n"


def test_a_new_test_sharing_another_s_boilerplate_is_new_not_that_test_renamed():
    """New tests after ``// ... existing tests ...`` share a file test's ``val vm = viewModel()`` and one of its
    assertions, not what makes that test itself (``vm.addNote("   ", "body")``): new tests, at the class's
    end, not the file's test renamed (which deleted it and the test after it)."""
    test = "    @Test\n    fun `{}`() = runTest {{\n        val vm = viewModel()\n        advanceUntilIdle()\n{}    }}\n"
    document = ("class NotesViewModelTest {\n    private fun viewModel() = NotesViewModel(repo)\n\n"
                + test.format("pinned come first", "        assertEquals(listOf(2L, 3L, 1L), ids(vm))\n") + "\n"
                + test.format("blank titles are ignored", "        vm.addNote(\"   \", \"body\")\n"
                              "        assertEquals(3, vm.uiState.value.notes.size)\n") + "\n"
                + test.format("delete removes the note", "        vm.delete(3)\n        assertEquals(listOf(2L, 1L), ids(vm))\n")
                + "}\n")
    new = test.format("search filters by title", "        vm.onQueryChange(\"LYON\")\n        assertEquals(listOf(3L), ids(vm))\n"
                      "        vm.onQueryChange(\"\")\n        assertEquals(3, vm.uiState.value.notes.size)\n")
    update = "    // ... existing tests ...\n\n" + new + "}\n"
    assert merge_update(document, update, "NotesViewModelTest.kt", after="").merged == \
        document[: -len("}\n")] + "\n" + new + "}\n"


def test_a_new_cmake_block_s_endif_closes_it_not_the_file_s_next_block():
    """A new ``if(...)`` block shown after the file's ``if(MSVC)`` one: its ``endif()`` closes the new block, so
    it is no place (taken for the file's next ``endif()``, the tests block between went)."""
    document = ("option(BUILD_TESTS \"Build the tests\" ON)\n\nif(MSVC)\n    add_compile_options(/W4)\nelse()\n"
                "    add_compile_options(-Wall)\nendif()\n\nif(BUILD_TESTS)\n    enable_testing()\n"
                "    add_executable(t tests/t.cpp)\nendif()\n")
    sanitize = "if(SANITIZE AND NOT MSVC)\n    add_compile_options(-fsanitize=address)\nendif()\n"
    update = "if(MSVC)\n    add_compile_options(/W4)\nelse()\n    add_compile_options(-Wall)\nendif()\n\n" + sanitize
    assert merge_update(document, update, "CMakeLists.txt").merged == document.replace(
        "endif()\n\nif(BUILD_TESTS)", "endif()\n\n" + sanitize + "\nif(BUILD_TESTS)")


def test_a_table_s_last_rows_shown_before_new_ones_are_not_written_twice():
    """A README update that starts with the table's last two rows, then new rows and a new paragraph in the
    next section: the rows shown are the file's (a reading by sections wrote them again beside the file's)."""
    document = ("# pg-backup\n\n## Configuration\n\n| Variable | Default |\n|---|---|\n| `PGHOST` | `localhost` |\n"
                "| `PGUSER` | `backup` |\n| `LOG_FILE` | `/var/log/pg-backup.log` |\n\n## Running it by hand\n\n"
                "```bash\nsudo -u backup /opt/backup/bin/backup.sh\n```\n\nCheck the log afterwards:\n\n"
                "```bash\ntail -n 20 /var/log/pg-backup.log\n```\n")
    rows = "| `KEEP_DAYS` | `14` |\n| `LOCK_FILE` | `/var/lock/pg-backup.lock` |\n"
    note = "If cron is already running a backup, a manual run exits 0.\n\n"
    update = ("| `PGUSER` | `backup` |\n| `LOG_FILE` | `/var/log/pg-backup.log` |\n" + rows + "\n## Running it by hand\n\n"
              "```bash\nsudo -u backup /opt/backup/bin/backup.sh\n```\n\n" + note + "Check the log afterwards:\n")
    assert merge_update(document, update, "README.md").merged == document.replace(
        "pg-backup.log` |\n", "pg-backup.log` |\n" + rows).replace("Check the log", note + "Check the log")


def test_a_file_named_by_a_labelled_first_line_needs_no_extension():
    from cad_lsp.program.answer import read_answer
    answer = "```\n# File: crontab\n# /etc/cron.d/pg-backup\nSHELL=/bin/bash\n30 2 * * * backup /opt/backup.sh\n```\n"
    blocks = read_answer(answer).blocks
    assert [b.path for b in blocks] == ["crontab"] and blocks[0].text.startswith("# /etc/cron.d/pg-backup\n")


def test_closing_lines_that_end_a_snippet_close_the_blocks_it_shows_in_the_file():
    """A PHP snippet from the top of a script down to the ``}`` of its ``if`` (the file goes on below): its last
    ``}`` is that block's in the file, so the one-line body it rewrites goes, not stays after the new lines."""
    document = ("<?php\n\n$message = null;\nif ($_SERVER['REQUEST_METHOD'] === 'POST') {\n    $id = (int) ($_POST['id'] ?? 0);\n\n"
                "    if ($action === 'delete' && $id > 0) {\n        $message = $users->delete($id) ? 'deleted' : 'not found';\n"
                "    }\n}\n\n$page = max(1, (int) ($_GET['page'] ?? 1));\n$rows = $users->all($page);\n?>\n"
                "<!doctype html>\n<h1>Users</h1>\n")
    body = ("    if ($action === 'delete' && $id > 0) {\n        if ($users->delete($id)) {\n            $message = 'deleted';\n"
            "            $undoId = $id;\n        } else {\n            $message = 'not found';\n        }\n"
            "    } elseif ($action === 'restore' && $id > 0) {\n        $message = $users->restore($id) ? 'restored' : 'kept';\n"
            "    }\n}\n")
    update = ("$message = null;\n$undoId = null;\nif ($_SERVER['REQUEST_METHOD'] === 'POST') {\n"
              "    $id = (int) ($_POST['id'] ?? 0);\n\n" + body)
    assert merge_update(document, update, "users.php").merged == (
        "<?php\n\n" + update + "\n$page = max(1, (int) ($_GET['page'] ?? 1));\n$rows = $users->all($page);\n?>\n"
        "<!doctype html>\n<h1>Users</h1>\n")


def test_new_table_cases_after_a_marker_keep_the_file_s_cases_and_blank_line():
    """``// ... existing cases ...`` then new cases of a Go table test, one holding an item the file's
    ``multiple items`` case has: a new case's lines are its own (taken for that case's, the cases between went);
    and the new check shown above ``// ... rest of the checks unchanged ...`` takes the file's blank line there."""
    document = ("func TestPlaceOrder(t *testing.T) {\n\ttests := []struct {\n\t\tname  string\n\t\titems []Item\n\t}{\n"
                "\t\t{\n\t\t\tname: \"multiple items\",\n\t\t\titems: []Item{\n\t\t\t\t{SKU: \"A1\", Quantity: 1},\n"
                "\t\t\t\t{SKU: \"B2\", Quantity: 3},\n\t\t\t},\n\t\t},\n\t\t{\n\t\t\tname:  \"payment declined\",\n"
                "\t\t\titems: nil,\n\t\t},\n\t}\n\n\tfor _, tt := range tests {\n\t\tgot, err := svc.PlaceOrder(tt.items)\n\n"
                "\t\tif err != nil {\n\t\t\tt.Fatal(err)\n\t\t}\n\t\t_ = got\n\t}\n}\n")
    case = ("\t\t{\n\t\t\tname: \"missing sku\",\n\t\t\titems: []Item{\n\t\t\t\t{SKU: \"A1\", Quantity: 1},\n"
            "\t\t\t\t{SKU: \"\", Quantity: 1},\n\t\t\t},\n\t\t},\n")
    check = "\t\tif tt.wantField != \"\" {\n\t\t\treturn\n\t\t}\n"
    update = ("\ttests := []struct {\n\t\tname  string\n\t\titems []Item\n\t}{\n\t\t// ... existing cases ...\n" + case +
              "\t}\n\n\tfor _, tt := range tests {\n\t\tgot, err := svc.PlaceOrder(tt.items)\n\n" + check +
              "\t\t// ... rest of the checks unchanged ...\n\t}\n}\n")
    assert merge_update(document, update, "order_test.go").merged == document.replace(
        "\t\t},\n\t}\n\n", "\t\t},\n" + case + "\t}\n\n").replace("tt.items)\n\n", "tt.items)\n\n" + check)


def test_a_new_line_between_two_markers_goes_before_what_the_second_names():
    """Read by lines (the SwiftUI body is beyond the syntax's reading): ``// ... environment and existing @State
    properties ...``, a new ``@State``, ``// ... canSave unchanged ...``: the new property goes after the file's
    properties, before ``canSave``, not after it (the first marker kept everything up to the next shown line)."""
    document = ("struct AddTaskView: View {\n    @State private var title = \"\"\n    @State private var notes = \"\"\n\n"
                "    private var canSave: Bool {\n        !title.isEmpty\n    }\n\n    var body: some View {\n"
                "        Form {\n            TextField(\"Title\", text: $title)\n        }\n    }\n}\n")
    update = ("struct AddTaskView: View {\n    // ... environment and existing @State properties ...\n"
              "    @State private var priority: Priority = .medium\n\n    // ... canSave unchanged ...\n\n"
              "    var body: some View {\n        Form {\n            // ... title unchanged ...\n\n"
              "            Picker(\"Priority\", selection: $priority) {}\n        }\n    }\n}\n")
    merged = merge_update(document, update, "AddTaskView.swift").merged
    assert merged.index("var priority") < merged.index("var canSave") and merged.count("var canSave") == 1
    assert "notes = \"\"\n    @State private var priority: Priority = .medium\n\n    private var canSave" in merged


def test_a_java_helper_whose_head_runs_onto_a_throws_line_is_a_definition():
    """``private static Call<NewsApi.ArticlesResponse> callReturning(...)`` with ``throws IOException {`` on the
    line below is a definition (a dotted type before its name, its ``{`` on the next line), and that line is
    not one: a new helper's ``return call;`` shown beside it is then no place inside it."""
    from cad_lsp.program.lines.reading import definitions_in

    lines = ["public class RepoTest {", "    @SuppressWarnings(\"unchecked\")",
             "    private static Call<NewsApi.ArticlesResponse> callReturning(Response r)", "            throws IOException {",
             "        return call;", "    }", "}"]
    assert definitions_in(lines) == {0: "public class RepoTest", 2: "callReturning"}


def test_a_definition_s_doc_comment_rewritten_above_it_replaces_the_old_one():
    """``Check`` split in two, its new doc comment shown above it: the old ``// Check performs a single GET ...``
    goes (it was kept above the new one, by the marker for ``New()`` above)."""
    document = ("// New makes a Checker.\nfunc New() *Checker {\n\treturn &Checker{}\n}\n\n"
                "// Check performs a single GET request against t.\nfunc (c *Checker) Check(t Target) Result {\n"
                "\tstart := time.Now()\n\treturn Result{Latency: time.Since(start)}\n}\n")
    update = ("// ... New() is unchanged ...\n\n// Check requests t, retrying failures.\n"
              "func (c *Checker) Check(t Target) Result {\n\tfor {\n\t\tres := c.checkOnce(t)\n\t\treturn res\n\t}\n}\n\n"
              "// checkOnce performs a single GET request against t.\nfunc (c *Checker) checkOnce(t Target) Result {\n"
              "\tstart := time.Now()\n\t// ... rest of the original Check body, unchanged ...\n}\n")
    merged = merge_update(document, update, "checker.go").merged
    assert "// Check performs" not in merged and merged.count("// Check requests") == 1


def test_a_new_method_with_one_parameter_a_line_is_new_whole():
    """Dart (no grammar here): a new ``_onRefreshed(`` after ``// ... _onRequested unchanged``, its parameters one
    a line and then ``) async {``: the whole method is new, so its ``Emitter<TodosState> emit,`` and ``) async {``
    are no places in ``_onRequested`` (which lost its body to them, unseen)."""
    requested = ("  Future<void> _onRequested(\n    TodosRequested event,\n    Emitter<TodosState> emit,\n  ) async {\n"
                 "    emit(state.copyWith(status: TodosStatus.loading));\n  }\n")
    document = ("class TodosBloc extends Bloc<TodosEvent, TodosState> {\n  final TodosRepository _repository;\n\n" + requested +
                "\n  void _onFilterChanged(TodosFilterChanged event, Emitter<TodosState> emit) {\n"
                "    emit(state.copyWith(filter: event.filter));\n  }\n}\n")
    refreshed = ("  Future<void> _onRefreshed(\n    TodosRefreshed event,\n    Emitter<TodosState> emit,\n  ) async {\n"
                 "    event.completer.complete();\n  }\n")
    update = ("class TodosBloc extends Bloc<TodosEvent, TodosState> {\n  final TodosRepository _repository;\n\n"
              "  // ... _onRequested unchanged\n\n" + refreshed + "\n  // ... _onFilterChanged unchanged\n}\n")
    assert merge_update(document, update, "todos_bloc.dart").merged == document.replace(requested, requested + "\n" + refreshed)


def test_a_guard_s_condition_rewritten_over_its_elided_body_replaces_the_old_guard():
    """``if (error && orders.length === 0) {``, ``// ... unchanged ...``, ``}``: the file's ``if (error) {``
    rewritten, its body kept, not a second guard above the old one."""
    document = ("export function Orders() {\n  const { orders, loading, error } = useOrders();\n\n  if (loading) {\n"
                "    return <Spinner />;\n  }\n\n  if (error) {\n    return (\n      <Text>{error}</Text>\n    );\n  }\n\n"
                "  return <List data={orders} />;\n}\n")
    update = ("export function Orders() {\n  const { orders, loading, error } = useOrders();\n\n  if (loading) {\n"
              "    // ... unchanged ...\n  }\n\n  if (error && orders.length === 0) {\n    // ... unchanged ...\n  }\n\n"
              "  return <List data={orders} onEndReached={loadMore} />;\n}\n")
    assert merge_update(document, update, "Orders.tsx").merged == document.replace(
        "if (error) {", "if (error && orders.length === 0) {").replace("orders} />", "orders} onEndReached={loadMore} />")


def test_a_new_function_above_a_marker_keeps_two_blank_lines_where_the_file_has_two():
    """A new Python test between a shown one and ``# ... existing code ...``: set off by two blank lines on both
    sides, as the file sets its functions off (one of the file's two was taken for the update's)."""
    document = ("import pytest\n\n\ndef test_a():\n    assert 1\n\n\n@pytest.mark.parametrize(\"x\", [1, 2])\n"
                "def test_c(x):\n    assert x\n")
    new = "def test_b():\n    assert 2\n"
    update = ("# ... existing code ...\ndef test_a():\n    assert 1\n\n\n" + new + "# ... existing code ...\n"
              "@pytest.mark.parametrize(\"x\", [1, 2])\n# ... existing code ...\n")
    assert merge_update(document, update, "test_x.py").merged == document.replace("\n\n\n@pytest", "\n\n\n" + new + "\n\n@pytest")


def test_lines_that_repeat_the_file_right_after_a_placed_line_are_those_lines():
    """Razor (no grammar): the ``@if`` branch rewritten, then ``else``, ``{``, ``@* ... existing code ... *@``,
    ``}``: ``else`` and ``{`` are the file's lines after the branch's ``}``, not rewrites of them (which left the
    marker nothing to keep, and the ``}`` was written before the table)."""
    document = ("<h1>Products</h1>\n\n@if (Model.Products.Count == 0)\n{\n    <div class=\"alert\">No products yet.</div>\n}\n"
                "else\n{\n    <table>\n        <tr><td>@Model.Name</td></tr>\n    </table>\n}\n")
    update = ("@if (Model.Products.Count == 0)\n{\n    <div class=\"alert\">\n        @(Model.HasFilters ? \"No match.\" : \"None yet.\")\n"
              "    </div>\n}\nelse\n{\n    @* ... existing code ... *@\n}\n")
    assert merge_update(document, update, "Index.cshtml").merged == document.replace(
        "    <div class=\"alert\">No products yet.</div>\n",
        "    <div class=\"alert\">\n        @(Model.HasFilters ? \"No match.\" : \"None yet.\")\n    </div>\n")


def test_a_fault_in_a_reading_s_rules_is_a_refusal_that_says_so_not_a_crash(monkeypatch):
    """Whatever a rule raises besides UpdateError comes back as an UpdateError naming it, so that the CLI, the
    editor and the endpoint report a refusal (and write nothing) instead of failing the request."""
    from cad_lsp.program import update as update_module

    def faulty(*args, **kwargs):
        raise TypeError("unsupported operand")

    monkeypatch.setattr(update_module, "merge_by_blocks", faulty)
    with pytest.raises(UpdateError, match=r"the merge failed on this update \(TypeError: unsupported operand\)"):
        merge_update("def f():\n    return 1\n", "def f():\n    return 2\n", "f.py")


def test_a_call_opened_like_the_file_s_next_one_but_naming_another_entry_is_new():
    """``parser.add_argument(`` then ``"--retries",`` shown after the file's ``--timeout`` call: the file's next
    call opens on the same line but names ``--include-drafts``; the new call goes in whole after the shown one,
    and the file's next call and the ``return`` after it stay (they were read as rewritten and removed)."""
    document = ("def parse_args(argv=None):\n    parser = argparse.ArgumentParser(prog=\"relnotes\")\n"
                "    parser.add_argument(\n        \"--timeout\", type=float, default=10.0, help=\"request timeout\"\n"
                "    )\n    parser.add_argument(\n        \"--include-drafts\", action=\"store_true\", help=\"also drafts\"\n"
                "    )\n    return parser.parse_args(argv)\n\n\ndef main():\n    return 0\n")
    update = ("    parser.add_argument(\n        \"--timeout\", type=float, default=10.0, help=\"request timeout\"\n    )\n"
              "    parser.add_argument(\n        \"--retries\",\n        type=int,\n        default=3,\n    )\n")
    merge = merge_update(document, update, "cli.py")
    assert merge.merged == document.replace(
        "    )\n    parser.add_argument(\n        \"--include",
        "    )\n    parser.add_argument(\n        \"--retries\",\n        type=int,\n        default=3,\n    )\n"
        "    parser.add_argument(\n        \"--include") and merge.unseen == ()


def test_closing_lines_between_a_marker_and_the_function_s_closing_line_are_the_file_s():
    """``match run(&path, check) {`` rewritten, ``// ... unchanged ...`` for its arms, then the match's ``}`` and
    the function's ``}``: the match's closing line is the file's, not a second one kept beside it by the marker
    (the merged file did not parse and was refused)."""
    document = ("fn main() -> ExitCode {\n    let mut dry_run = false;\n    for arg in env::args().skip(1) {\n"
                "        match arg.as_str() {\n            \"--dry-run\" => dry_run = true,\n            _ => {\n"
                "                return ExitCode::from(2);\n            }\n        }\n    }\n\n    match run(&path) {\n"
                "        Ok(()) => ExitCode::SUCCESS,\n        Err(err) => {\n            eprintln!(\"{err}\");\n"
                "            ExitCode::FAILURE\n        }\n    }\n}\n\nfn run(path: &str) -> Result<()> {\n"
                "    let text = fs::read_to_string(path)?;\n    Ok(())\n}\n")
    update = ("fn main() -> ExitCode {\n    let mut dry_run = false;\n    let mut check = false;\n"
              "    for arg in env::args().skip(1) {\n        match arg.as_str() {\n"
              "            \"--dry-run\" => dry_run = true,\n            \"--check\" => check = true,\n"
              "            // ... rest of the loop unchanged ...\n        }\n    }\n\n    match run(&path, check) {\n"
              "        // ... unchanged ...\n    }\n}\n\nfn run(path: &str, check: bool) -> Result<()> {\n"
              "    let text = fs::read_to_string(path)?;\n    // ... rest unchanged ...\n}\n")
    assert merge_update(document, update, "main.rs").merged == document.replace(
        "false;\n    for", "false;\n    let mut check = false;\n    for").replace(
        "dry_run = true,\n", "dry_run = true,\n            \"--check\" => check = true,\n").replace(
        "match run(&path)", "match run(&path, check)").replace("fn run(path: &str)", "fn run(path: &str, check: bool)")


def test_a_line_both_texts_have_once_is_not_passed_over_for_the_lines_after_it():
    """In a rewritten ``def handle(...)``: new lines, the file's ``def handle(_user, _text), do: :ignore``, then
    the old ``case`` body moved into a new ``defp dispatch`` and a marker.  Placing the body where it was passed
    over the ``def handle(_user, ...)`` line, which the marker then kept beside the update's copy: twice.  The
    line is placed, the moved body is new."""
    document = ("defmodule Bot do\n  alias Bot.Log\n\n  @envs ~w(staging production)\n\n  @spec handle(String.t(), String.t()) :: term\n  def handle(user, \"!\" <> text) do\n    case String.split(text) do\n"
                "      [\"deploy\", service] -> deploy(user, service)\n      [\"help\"] -> {:reply, help()}\n"
                "      _ -> {:reply, \"Unknown command\"}\n    end\n  end\n\n  def handle(_user, _text), do: :ignore\n\n"
                "  defp deploy(user, service) do\n    {:reply, \"#{service} by #{user}\"}\n  end\n\n"
                "  defp help do\n    \"!deploy\"\n  end\nend\n")
    update = ("  alias Bot.Log\n  alias Bot.RateLimiter\n\n  @envs ~w(staging production)\n\n  @spec handle(String.t(), String.t()) :: term\n  def handle(user, \"!\" <> text) do\n    case RateLimiter.hit(user) do\n      :ok -> dispatch(user, String.split(text))\n"
              "      {:error, ms} -> {:reply, \"Slow down\"}\n    end\n  end\n\n  def handle(_user, _text), do: :ignore\n\n"
              "  defp dispatch(user, words) do\n    case words do\n      [\"deploy\", service] -> deploy(user, service)\n"
              "      [\"help\"] -> {:reply, help()}\n      _ -> {:reply, \"Unknown command\"}\n    end\n  end\n\n"
              "  # ... deploy/2 and help/0 unchanged ...\n")
    merged = merge_update(document, update, "commands.ex").merged
    assert merged.count("def handle(_user, _text)") == 1
    assert merged == document.replace("  alias Bot.Log\n", "  alias Bot.Log\n  alias Bot.RateLimiter\n").replace(
        document[document.index("  def handle(user"):document.index("\n  defp deploy")],
        update[update.index("  def handle(user"):update.index("\n  # ...")])


@pytest.mark.parametrize("after", [None, ""])
def test_new_tests_then_the_class_s_closing_line_go_at_the_class_s_end(after):
    """New ``@Test`` methods, their bodies repeating lines of the file's tests, then the class's ``}`` (the
    file's last line), "Append to `CommitTest`:" or said nowhere: before that ``}``, set apart as the tests are
    (no distinctive line of the file placed them, and the update was refused)."""
    document = ("class CommitTest {\n\n    @Test\n    void parses() {\n        List<Commit> commits = List.of();\n"
                "        assertTrue(commits.isEmpty());\n    }\n}\n")
    update = ("    @Test\n    void bangMarksBreaking() {\n        List<Commit> commits = List.of();\n"
              "        assertFalse(commits.isEmpty());\n    }\n}\n")
    assert merge_update(document, update, "CommitTest.java", after=after).merged == \
        document[:-2] + "\n" + update


def test_an_expression_bodied_member_that_opens_its_call_on_its_line_is_a_definition():
    """Dart's ``Response _json(int status, Object body) => Response(`` is a definition (its expression goes on
    below): a marker naming ``_json`` after new methods keeps it, and the marker before them keeps only what
    comes before it (``_json`` was kept by the first marker, and the new methods went after it)."""
    document = ("class Api {\n  Router get router {\n    return Router();\n  }\n\n"
                "  Response _list(Request request) =>\n      _json(200, []);\n\n"
                "  Response _json(int status, Object body) => Response(\n        status,\n        body: jsonEncode(body),\n"
                "      );\n}\n")
    update = ("  Router get router {\n    return Router();\n  }\n\n  // ... _list unchanged ...\n\n  Response _availability(Request request, String id) {\n"
              "    return _json(200, {'roomId': id});\n  }\n\n  // ... _json unchanged\n")
    assert merge_update(document, update, "handlers.dart").merged == document.replace(
        "      _json(200, []);\n\n", "      _json(200, []);\n\n  Response _availability(Request request, String id) {\n"
        "    return _json(200, {'roomId': id});\n  }\n\n")
    from cad_lsp.program.lines.reading import definitions_in

    assert "_json" in definitions_in(document.splitlines()).values()


def test_syntax_errors_on_lines_the_update_itself_cannot_parse_do_not_refuse_its_merge():
    """``importOriginal<typeof import("../api")>()`` is TypeScript the grammar here does not read: the update
    errs on that line alone too, so the merged file's error there is not the merge's doing, and the merge is
    not refused; an error the merge makes (a placement that leaves a brace open) still is."""
    document = ("import { post } from \"../api\";\n\nvi.mock(\"../api\", () => ({\n  post: vi.fn(),\n}));\n\n"
                "describe(\"form\", () => {\n  it(\"posts\", () => {\n    expect(post).toBeDefined();\n  });\n});\n")
    update = ("import { ApiError, post } from \"../api\";\n\nvi.mock(\"../api\", async (importOriginal) => ({\n"
              "  ...(await importOriginal<typeof import(\"../api\")>()),\n  post: vi.fn(),\n}));\n")
    merged = merge_update(document, update, "form.spec.ts").merged
    assert merged == update + document[document.index("\ndescribe"):]
    from cad_lsp.program.syntax import breaks

    assert breaks(document, merged, "typescript") and not breaks(document, merged, "typescript", update)
    assert breaks(document, merged.replace("  });\n});", "  });\n"), "typescript", update)
    # a closing line that errs in the update alone is the fragment's edge: a merge that leaves one over counts
    loop = "function odds(n) {\n  let t = []\n  for (let i = n; i < n * 3; i += 2) {\n    t.push(i)\n  }\n  return t\n}\n"
    fragment = "// ...\n    t.push(i)\n  }\n  // ...\n"
    assert breaks(loop, loop.replace("  }\n", "  }\n  }\n"), "javascript", fragment)


def test_new_tests_that_start_the_update_are_set_apart_from_the_test_above_them():
    """New ``[Fact]`` tests shown down to the file's ``Dispose()`` and the class's ``}`` ("add these before
    `Dispose()`"): they go after the last test, a blank line between as between the file's tests (they were
    written right under its ``}``)."""
    document = ("public sealed class ArchiveTests : IDisposable\n{\n    [Fact]\n    public void Creates()\n    {\n"
                "        Assert.True(true);\n    }\n\n    public void Dispose() => Directory.Delete(_root, true);\n}\n")
    update = ("    [Fact]\n    public void Prunes()\n    {\n        Assert.Empty(Prune());\n    }\n\n"
              "    public void Dispose() => Directory.Delete(_root, true);\n}\n")
    assert merge_update(document, update, "ArchiveTests.cs", before="Dispose").merged == document.replace(
        "    }\n\n    public void Dispose", "    }\n\n" + update[:update.index("\n    public void Dispose") + 1] +
        "    public void Dispose")


def test_a_new_class_s_fields_do_not_anchor_in_another_class_that_has_the_same_ones():
    """A new ``AuditEntry`` model after ``User``'s ``__repr__``: its ``id = db.Column(...)``, ``created_at`` and
    ``to_dict`` lines are ``User``'s too, and placed there they took the update into ``User`` and deleted its
    fields and methods between them, unseen.  A new class's lines found only in another class's body are no
    place."""
    document = ("class Role(db.Model):\n    id = db.Column(db.Integer, primary_key=True)\n\n"
                "    def __repr__(self):\n        return f\"<Role {self.name}>\"\n\n\n"
                "class User(db.Model):\n    id = db.Column(db.Integer, primary_key=True)\n"
                "    email = db.Column(db.String(255), unique=True)\n"
                "    created_at = db.Column(db.DateTime(timezone=True), default=utcnow, nullable=False)\n\n"
                "    def set_password(self, password):\n        self.password_hash = generate_password_hash(password)\n\n"
                "    def check_password(self, password):\n        return check_password_hash(self.password_hash, password)\n\n"
                "    @property\n    def is_admin(self):\n        return self.role is not None and self.role.name == \"admin\"\n\n"
                "    def to_dict(self):\n        return {\n            \"id\": self.id,\n            \"email\": self.email,\n"
                "            \"role\": self.role.name if self.role else None,\n"
                "            \"created_at\": self.created_at.isoformat(),\n        }\n\n"
                "    def __repr__(self):\n        return f\"<User {self.email}>\"\n\n\n"
                "@login_manager.user_loader\ndef load_user(user_id):\n    return db.session.get(User, int(user_id))\n")
    new = ("class AuditEntry(db.Model):\n    id = db.Column(db.Integer, primary_key=True)\n"
           "    action = db.Column(db.String(64), nullable=False)\n"
           "    created_at = db.Column(db.DateTime(timezone=True), default=utcnow, nullable=False)\n\n"
           "    def to_dict(self):\n        return {\n            \"id\": self.id,\n            \"action\": self.action,\n"
           "            \"created_at\": self.created_at.isoformat(),\n        }\n\n\n")
    update = ("# ...existing code...\n\n    def __repr__(self):\n        return f\"<User {self.email}>\"\n\n\n" + new +
              "@login_manager.user_loader\n# ...existing code...\n")
    assert merge_update(document, update, "models.py").merged == document.replace(
        "\n@login_manager", "\n" + new + "@login_manager").replace("\n\n\n\nclass", "\n\n\nclass")


def test_a_whole_script_that_rewrites_the_file_s_last_line_replaces_the_file():
    """A script shown whole, from its first line, whose last line (an ``echo``) is rewritten after new lines:
    the whole new file (read as a snippet, the file's old ``echo`` stayed after the new one)."""
    document = ('#!/usr/bin/env bash\n' '# Build the greenhouse node firmware for the STM32L432 board.\n' '#\n'
                '# Usage: scripts/build.sh [--clean] [--debug]\n' 'set -euo pipefail\n' '\n'
                'ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"\n' 'BUILD_DIR="${ROOT}/build"\n'
                'TOOLCHAIN_PREFIX="${TOOLCHAIN_PREFIX:-arm-none-eabi-}"\n' 'BUILD_TYPE="release"\n' 'CLEAN=0\n' '\n'
                'mkdir -p "$BUILD_DIR"\n' '\n'
                'make -C "$ROOT" -j"$(nproc)" BUILD_DIR="$BUILD_DIR" BUILD_TYPE="$BUILD_TYPE" \\\n'
                '  CROSS_COMPILE="$TOOLCHAIN_PREFIX" all\n' '\n'
                '"${TOOLCHAIN_PREFIX}objcopy" -O binary "$BUILD_DIR/firmware.elf" "$BUILD_DIR/firmware.bin"\n'
                '"${TOOLCHAIN_PREFIX}size" "$BUILD_DIR/firmware.elf"\n'
                'echo "built $BUILD_DIR/firmware.bin ($BUILD_TYPE)"\n')
    update = ('#!/usr/bin/env bash\n' '# Build the greenhouse node firmware for the STM32L432 board.\n' '#\n'
                '# Usage: scripts/build.sh [--clean] [--debug]\n' '#\n'
                '# Environment: FW_VERSION (default: git describe), FLASH_BUDGET_BYTES (default: 229376)\n'
                'set -euo pipefail\n' '\n' 'ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"\n'
                'BUILD_DIR="${ROOT}/build"\n' 'TOOLCHAIN_PREFIX="${TOOLCHAIN_PREFIX:-arm-none-eabi-}"\n'
                'BUILD_TYPE="release"\n' 'CLEAN=0\n'
                'FW_VERSION="${FW_VERSION:-$(git -C "$ROOT" describe --tags --always --dirty 2>/dev/null || echo unknown)}"\n'
                '# 256 KiB of flash minus the 32 KiB bootloader leaves 224 KiB for the application.\n'
                'FLASH_BUDGET_BYTES="${FLASH_BUDGET_BYTES:-229376}"\n' '\n' 'mkdir -p "$BUILD_DIR"\n' '\n'
                'make -C "$ROOT" -j"$(nproc)" BUILD_DIR="$BUILD_DIR" BUILD_TYPE="$BUILD_TYPE" \\\n'
                '  CROSS_COMPILE="$TOOLCHAIN_PREFIX" FW_VERSION="$FW_VERSION" all\n' '\n'
                '"${TOOLCHAIN_PREFIX}objcopy" -O binary "$BUILD_DIR/firmware.elf" "$BUILD_DIR/firmware.bin"\n'
                '"${TOOLCHAIN_PREFIX}size" "$BUILD_DIR/firmware.elf"\n' '\n'
                '# text + data is what ends up in flash (.data is copied from flash to RAM at boot).\n'
                'flash_used=$("${TOOLCHAIN_PREFIX}size" "$BUILD_DIR/firmware.elf" | awk \'NR == 2 { print $1 + $2 }\')\n'
                'if (( flash_used > FLASH_BUDGET_BYTES )); then\n'
                '  echo "error: firmware uses ${flash_used} bytes of flash, budget is ${FLASH_BUDGET_BYTES}" >&2\n'
                '  exit 1\n' 'fi\n' '\n' '(cd "$BUILD_DIR" && sha256sum firmware.bin > firmware.bin.sha256)\n'
                'echo "built $BUILD_DIR/firmware.bin ($BUILD_TYPE, $FW_VERSION, ${flash_used}/${FLASH_BUDGET_BYTES} bytes)"\n')
    assert merge_update(document, update, "build.sh").merged == update


@pytest.mark.parametrize("old_doc", ['  @doc "Returns `:ok` if the device may send."\n',
                                     '  @doc """\n  Returns `:ok` if the device may send.\n  """\n'])
def test_an_elixir_doc_written_anew_above_a_function_replaces_the_file_s(old_doc):
    """``@doc \"\"\"`` ... ``\"\"\"`` and a rewritten ``@spec`` above the file's ``def check``: the file's ``@doc``
    (one line or a heredoc) goes, not kept above the new one."""
    document = ("defmodule Limiter do\n  use GenServer\n\n" + old_doc +
                "  @spec check(String.t()) :: :ok | {:error, :rate_limited}\n  def check(device_id) do\n"
                "    GenServer.call(__MODULE__, {:check, device_id})\n  end\n\n  @impl true\n  def init(opts) do\n"
                "    {:ok, opts}\n  end\nend\n")
    new_doc = ('  @doc """\n  Returns `:ok`, or `{:error, :rate_limited, retry_after_ms}`.\n  """\n'
               "  @spec check(String.t()) :: :ok | {:error, :rate_limited, non_neg_integer()}\n")
    update = new_doc + ("  def check(device_id) do\n    GenServer.call(__MODULE__, {:check, device_id})\n  end\n\n  # ...\n\n"
                        "  @impl true\n  def handle_call({:check, id}, _from, state) do\n    {:reply, :ok, state}\n  end\n")
    document = document.replace("end\nend\n", "end\n\n  @impl true\n  def handle_call({:check, id}, _from, state) do\n"
                                "    {:reply, {:error, :rate_limited}, state}\n  end\nend\n")
    start = document.index(old_doc)
    end = document.index("  def check")
    assert merge_update(document, update, "limiter.ex").merged == (document[:start] + new_doc + document[end:]).replace(
        "{:reply, {:error, :rate_limited}, state}", "{:reply, :ok, state}")
    if old_doc.count("\n") == 1:  # the reading by lines, which the syntax's does not need here
        assert document[:start].count("\n") + 1 in align_update(document, update).replaced


GO_SENDER = ("package mailer\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n"
             "// Send delivers msg.\nfunc (s *Sender) Send(ctx context.Context, msg Message) error {\n"
             "\tconn, err := s.dial(ctx)\n\tif err != nil {\n\t\treturn fmt.Errorf(\"dial: %w\", err)\n\t}\n"
             "\tdefer conn.Close()\n\n\treturn conn.Write(msg)\n}\n\n"
             "func (s *Sender) dial(ctx context.Context) (Conn, error) {\n\treturn s.dialer.Dial(ctx)\n}\n")


@pytest.mark.parametrize("marker", ["// ... existing body of Send, unchanged ...",
                                    "// ... same body as the previous `Send` ..."])
def test_a_marker_naming_another_definition_s_body_carries_that_body_into_the_new_definition(marker):
    """``Send`` rewritten to retry, its old body moved into a new ``sendOnce`` shown as one marker naming ``Send``'s
    body: the body goes into ``sendOnce`` (it was dropped, unseen, with ``Send``'s old lines)."""
    update = ("// Send delivers msg, retrying once.\nfunc (s *Sender) Send(ctx context.Context, msg Message) error {\n"
              "\tif err := s.sendOnce(ctx, msg); err == nil {\n\t\treturn nil\n\t}\n\treturn s.sendOnce(ctx, msg)\n}\n\n"
              "// sendOnce makes a single attempt.\nfunc (s *Sender) sendOnce(ctx context.Context, msg Message) error {\n"
              f"\t{marker}\n}}\n")
    old_body = GO_SENDER[GO_SENDER.index("\tconn, err"):GO_SENDER.index("}\n\nfunc (s *Sender) dial")]
    expected = GO_SENDER.replace(GO_SENDER[GO_SENDER.index("// Send delivers"):GO_SENDER.index("func (s *Sender) dial")],
                                 update.replace(f"\t{marker}\n", old_body) + "\n")
    merge = merge_update(GO_SENDER, update, "sender.go")
    assert merge.merged == expected
    assert merge.unseen_lines == 0


def test_a_moved_body_is_found_past_an_interface_s_declaration_and_a_brace_on_its_own_line():
    """C#: the interface declares ``GetAsync`` (no body), the class defines it; heads above a ``{`` alone."""
    document = ("public interface IWeather\n{\n    Task<int> GetAsync(string city);\n}\n\n"
                "public class Weather : IWeather\n{\n    public async Task<int> GetAsync(string city)\n    {\n"
                "        var url = $\"v1/{city}\";\n        return await _http.GetAsync(url);\n    }\n}\n")
    update = ("    public async Task<int> GetAsync(string city)\n    {\n"
              "        return await _cache.GetOrCreate(city, () => FetchAsync(city));\n    }\n\n"
              "    private async Task<int> FetchAsync(string city)\n    {\n"
              "        // ... same body as the previous GetAsync ...\n    }\n}\n")
    expected = document.replace(
        "        var url = $\"v1/{city}\";\n        return await _http.GetAsync(url);\n    }\n}\n",
        "        return await _cache.GetOrCreate(city, () => FetchAsync(city));\n    }\n\n"
        "    private async Task<int> FetchAsync(string city)\n    {\n"
        "        var url = $\"v1/{city}\";\n        return await _http.GetAsync(url);\n    }\n}\n")
    assert merge_update(document, update, "Weather.cs").merged == expected


def test_a_marker_for_a_definition_s_own_body_is_not_a_moved_body():
    """``// ... existing body of dial ...`` inside ``dial`` itself: the ordinary marker, which keeps the body."""
    update = ("func (s *Sender) dial(ctx context.Context) (Conn, error) {\n\t// ... existing body of dial ...\n}\n\n"
              "func (s *Sender) Close() error {\n\treturn nil\n}\n")
    assert merge_update(GO_SENDER, update, "sender.go").merged == GO_SENDER + (
        "\nfunc (s *Sender) Close() error {\n\treturn nil\n}\n")


CSPROJ = ('<Project Sdk="Microsoft.NET.Sdk.Web">\n\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n'
          '  </PropertyGroup>\n\n  <ItemGroup>\n'
          '    <PackageReference Include="Microsoft.AspNetCore.OpenApi" Version="8.0.4" />\n'
          '    <PackageReference Include="Microsoft.EntityFrameworkCore.Design" Version="8.0.4">\n'
          '      <PrivateAssets>all</PrivateAssets>\n    </PackageReference>\n'
          '    <PackageReference Include="Npgsql.EntityFrameworkCore.PostgreSQL" Version="8.0.2" />\n'
          '    <PackageReference Include="Serilog.AspNetCore" Version="8.0.1" />\n  </ItemGroup>\n\n  <ItemGroup>\n'
          '    <InternalsVisibleTo Include="Catalog.Api.Tests" />\n  </ItemGroup>\n\n  <ItemGroup>\n'
          '    <Content Update="appsettings.json">\n      <CopyToPublishDirectory>Never</CopyToPublishDirectory>\n'
          '    </Content>\n  </ItemGroup>\n\n</Project>\n')


def test_an_element_with_no_identity_pairs_with_the_one_holding_the_lines_it_shows():
    """An ``<ItemGroup>`` with a new ``<PackageReference>`` beside one the file has: into the group holding that
    one, not the shorter group that is more alike as text."""
    new = '    <PackageReference Include="FluentValidation" Version="11.9.1" />\n'
    update = ("  <ItemGroup>\n" + new + '    <PackageReference Include="Microsoft.AspNetCore.OpenApi" Version="8.0.4" />\n'
              "    <!-- ... other packages ... -->\n  </ItemGroup>\n")
    assert merge_update(CSPROJ, update, "Catalog.Api.csproj").merged == CSPROJ.replace(
        '    <PackageReference Include="Microsoft.AspNetCore.OpenApi"', new + '    <PackageReference Include="Microsoft'
        '.AspNetCore.OpenApi"', 1)


PLIST = ('<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n\t<key>CFBundleName</key>\n'
         '\t<string>RunTracker</string>\n\t<key>UILaunchScreen</key>\n\t<dict/>\n'
         '\t<key>UIRequiredDeviceCapabilities</key>\n\t<array>\n\t\t<string>armv7</string>\n\t</array>\n'
         '\t<key>UISupportedInterfaceOrientations</key>\n\t<array>\n\t\t<string>UIInterfaceOrientationPortrait</string>\n'
         '\t</array>\n</dict>\n</plist>\n')


def test_a_property_list_entry_is_its_key_and_value_and_a_new_one_does_not_replace_others():
    """``<key>UIBackgroundModes</key>`` and its ``<array>``, shown alone: a new entry. Its ``<array>`` was paired with
    the file's last one and the entries between dropped; now a rewritten entry replaces its own value only."""
    update = "<key>UIBackgroundModes</key>\n<array>\n\t<string>location</string>\n</array>\n"
    try:
        merged = merge_update(PLIST, update, "Info.plist").merged
    except UpdateError:
        merged = None
    assert merged is None or all(line in merged for line in PLIST.splitlines())
    rewrite = "\t<key>UIRequiredDeviceCapabilities</key>\n\t<array>\n\t\t<string>arm64</string>\n\t</array>\n"
    assert merge_update(PLIST, rewrite, "Info.plist").merged == PLIST.replace("armv7", "arm64")


def test_a_definition_s_head_rewritten_over_several_lines_replaces_the_one_line_head():
    """Dart (no grammar here): ``Future<List<Article>> fetchArticles({String? category}) async {`` rewritten as
    ``Future<ArticlePage> fetchArticles({`` and a parameter a line, above the body it keeps: the old head goes (it
    stayed above the new one)."""
    document = ("class ArticleRepository {\n  ArticleRepository(this._client);\n\n  final Client _client;\n\n"
                "  Future<List<Article>> fetchArticles({String? category}) async {\n"
                "    final uri = Uri.parse('$baseUrl/articles');\n    final response = await _client.get(uri);\n"
                "    return decode(response.body);\n  }\n}\n")
    update = ("  Future<ArticlePage> fetchArticles({\n    String? category,\n    int page = 1,\n  }) async {\n"
              "    final uri = Uri.parse('$baseUrl/articles');\n    final response = await _client.get(uri);\n"
              "    return ArticlePage(decode(response.body), page);\n  }\n")
    assert merge_update(document, update, "article_repository.dart").merged == document.replace(
        document[document.index("  Future<List"):document.index("  }\n}\n") + 4], update)


def test_the_file_s_imports_with_new_ones_then_a_marker_and_a_fragment_inside_a_function():
    """``import``s the file has and two new ones (in its two groups), ``// ... existing code ...``, then lines inside
    the component (a new effect): the new imports go among the file's, the effect where its context is (it went at
    the file's end)."""
    document = ('import * as SecureStore from "expo-secure-store";\nimport { useCallback, useEffect } from "react";\n\n'
                'import { api } from "../api/client";\n\nexport function AuthProvider({ children }) {\n'
                '  const [user, setUser] = useState(null);\n\n  const signIn = useCallback(async (email) => {\n'
                '    setUser(await api.login(email));\n  }, []);\n\n  const signOut = useCallback(async () => {\n'
                '    setUser(null);\n  }, []);\n\n  return children;\n}\n')
    update = ('import * as SecureStore from "expo-secure-store";\nimport { useCallback, useEffect } from "react";\n'
              'import { Platform } from "react-native";\n\nimport { api } from "../api/client";\n'
              'import { getPushToken } from "../notifications/push";\n\n// ... existing code ...\n\n'
              '  const signIn = useCallback(async (email) => {\n    setUser(await api.login(email));\n  }, []);\n\n'
              '  useEffect(() => {\n    if (user) getPushToken().then((token) => api.register(token, Platform.OS));\n'
              '  }, [user]);\n\n  // ... existing code ...\n')
    expected = document.replace('from "react";\n', 'from "react";\nimport { Platform } from "react-native";\n') \
        .replace('"../api/client";\n', '"../api/client";\nimport { getPushToken } from "../notifications/push";\n') \
        .replace("  }, []);\n\n  const signOut", "  }, []);\n\n  useEffect(() => {\n    if (user) getPushToken().then("
                 "(token) => api.register(token, Platform.OS));\n  }, [user]);\n\n  const signOut")
    assert merge_update(document, update, "AuthContext.tsx").merged == expected


def test_a_new_entry_alone_goes_at_the_end_of_the_file_s_one_collection():
    """A Laravel language file (``return [ ... ];``) and one new ``'key' => 'text',`` line with nothing of the file
    around it: after the last entry (it was refused: no line of the update is the file's)."""
    document = ("<?php\n\nreturn [\n\n    'seats_updated' => 'Your subscription now has :count seats.',\n"
                "    'tax_id_saved' => 'Your tax ID has been saved.',\n\n];\n")
    update = "    'invalid_promo_code' => 'This promo code is invalid or has expired.',\n"
    assert merge_update(document, update, "billing.php").merged == document.replace(
        "been saved.',\n", "been saved.',\n" + update)
    rewritten = "    'tax_id_saved' => 'Saved.',\n"  # (an entry of the file's: a rewrite, not a new one beside it)
    try:
        merged = merge_update(document, rewritten, "billing.php").merged
    except UpdateError:
        merged = None
    assert merged is None or merged.count("'tax_id_saved'") == 1


def test_a_blade_comment_that_elides_is_a_marker():
    assert is_marker("                        {{-- ... --}}\n") and is_marker("{{-- existing fields --}}\n")
    assert not is_marker("{{-- Seats --}}\n")


def test_new_imports_among_the_file_s_shown_above_a_fragment_lose_no_import_above_them():
    """``# ...``, the file's imports from the second on with a new one, ``# ...`` and a fragment inside a method:
    the import above the first shown stays (read alone, the new import was taken as its rewrite)."""
    document = ("import os\n\nfrom .exceptions import ClosedPoolError\nfrom .exceptions import ConnectTimeoutError\n"
                "from .exceptions import HTTPError\nfrom .exceptions import MaxRetryError\n\n\nclass Adapter:\n"
                "    def send(self, request):\n        try:\n            return self.pool.urlopen(request)\n"
                "        except MaxRetryError as e:\n            if isinstance(e.reason, ConnectTimeoutError):\n"
                "                raise ConnectTimeout(e)\n            raise\n")
    update = ("# ... other code ...\nfrom .exceptions import HTTPError\nfrom .exceptions import MaxRetryError\n"
              "from .exceptions import NewConnectionError\n# ... other code ...\n"
              "        except MaxRetryError as e:\n            if isinstance(e.reason, ConnectTimeoutError):\n"
              "                if not isinstance(e.reason, NewConnectionError):\n"
              "                    raise ConnectTimeout(e)\n            raise\n")
    assert merge_update(document, update, "adapters.py").merged == document.replace(
        "MaxRetryError\n\n", "MaxRetryError\nfrom .exceptions import NewConnectionError\n\n").replace(
        "                raise ConnectTimeout(e)\n", "                if not isinstance(e.reason, NewConnectionError):\n"
        "                    raise ConnectTimeout(e)\n")


CHECKS = ('"""Checks."""\n\nfrom __future__ import annotations\n\nfrom dataclasses import dataclass\n'
          'from pathlib import Path\nfrom typing import ClassVar\n\nfrom repolint.config import Config\n\n\n'
          '@dataclass\nclass CheckResult:\n    name: str\n    ok: bool\n')


def test_a_module_logger_below_a_new_import_and_a_marker_goes_below_the_file_s_imports():
    """``import logging``, ``# ...``, ``log = logging.getLogger(__name__)`` ("add a module logger below the
    imports"): the import before ``from dataclasses`` in the standard library's group (``import x`` before ``from
    x``, never into ``from __future__``'s), the logger below the last import (it was refused)."""
    update = "import logging\n\n# ...\n\nlog = logging.getLogger(__name__)\n"
    assert merge_update(CHECKS, update, "checks.py").merged == CHECKS.replace(
        "from dataclasses", "import logging\nfrom dataclasses").replace(
        "Config\n", "Config\n\nlog = logging.getLogger(__name__)\n")


COUNT_H = ("#ifndef LC_COUNT_H\n#define LC_COUNT_H\n\n#include <stdio.h>\n\n/* Totals. */\nstruct counts {\n"
           "    size_t lines;\n    size_t words;\n};\n\n/* Columns. */\nstruct options {\n    int lines;\n    int words;\n"
           "};\n\nint count_stream(FILE *fp, struct counts *c);\n\n#endif /* LC_COUNT_H */\n")


def test_structs_rewritten_in_a_header_are_placed_inside_its_include_guard():
    """Both structs of a header shown with a new field each: rewritten in place inside ``#ifndef`` ... ``#endif``
    (they were written again after ``#endif``, the old ones kept)."""
    update = ("/* Totals. */\nstruct counts {\n    size_t lines;\n    size_t words;\n    size_t max_line;\n};\n\n"
              "/* Columns. */\nstruct options {\n    int lines;\n    int words;\n    int max_line;\n};\n")
    assert merge_update(COUNT_H, update, "count.h").merged == COUNT_H.replace(
        "    size_t words;\n", "    size_t words;\n    size_t max_line;\n").replace(
        "    int words;\n", "    int words;\n    int max_line;\n")


def test_the_file_s_first_lines_realigned_above_a_marker_are_rewritten_not_written_twice():
    """A Makefile's ``BINARY := gitstat`` and ``GO ?= go`` shown realigned beside a new ``VERSION ?= ...``, then
    ``.PHONY`` with a new target, then ``# ...``: rewritten in place (the old lines stayed below the new ones)."""
    document = ("BINARY := gitstat\nGO     ?= go\n\n.PHONY: help build clean\n\nhelp: ## List targets\n"
                "\t@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST)\n\nbuild: ## Build\n\t$(GO) build -o bin/$(BINARY) .\n\n"
                "clean: ## Clean\n\trm -rf bin\n")
    head = ("BINARY  := gitstat\nGO      ?= go\nVERSION ?= $(shell git describe --tags)\n\n"
            ".PHONY: help build snapshot clean\n")
    update = head + "\n# ...\n\nbuild: ## Build\n\t$(GO) build -ldflags \"-X main.version=$(VERSION)\" -o bin/$(BINARY) .\n"
    assert merge_update(document, update, "Makefile").merged == head + document[document.index("\nhelp:"):].replace(
        "$(GO) build -o", "$(GO) build -ldflags \"-X main.version=$(VERSION)\" -o")


def test_a_whole_file_that_moves_a_block_into_a_new_branch_is_taken_whole():
    """The whole script shown with its last ``try`` moved, indented, into a new ``else``: the update is the file
    (the lines merge kept the old ``try`` at the end too: the moved lines were counted as removed unseen)."""
    document = ('#!/usr/bin/env node\nimport { build } from "esbuild";\n\nconst watch = process.argv.includes("--watch");\n'
                'const targets = [{ format: "esm" }, { format: "cjs" }];\n\ntry {\n'
                '  await Promise.all(targets.map((options) => build(options)));\n} catch {\n  process.exit(1);\n}\n')
    update = ('#!/usr/bin/env node\nimport { build, context } from "esbuild";\n\n'
              'const watch = process.argv.includes("--watch");\nconst targets = [{ format: "esm" }, { format: "cjs" }];\n\n'
              'if (watch) {\n  const contexts = await Promise.all(targets.map((options) => context(options)));\n'
              '  await Promise.all(contexts.map((ctx) => ctx.watch()));\n} else {\n  try {\n'
              '    await Promise.all(targets.map((options) => build(options)));\n  } catch {\n    process.exit(1);\n  }\n}\n')
    assert merge_update(document, update, "build.mjs").merged == update


def test_new_php_use_statements_alone_go_among_the_file_s():
    """``use Acme\\Translation\\CatalogueFixer;`` and ``use Symfony\\Component\\Yaml\\Yaml;`` shown alone: each
    where it sorts among the file's ``use`` lines (refused before: PHP's imports were not read as imports)."""
    document = ("<?php\n\nnamespace Acme\\Tests;\n\nuse Acme\\Command\\Check;\nuse Acme\\Translation\\Loader;\n"
                "use PHPUnit\\Framework\\TestCase;\nuse Symfony\\Component\\Console\\Tester\\CommandTester;\n\n"
                "final class CheckTest extends TestCase\n{\n}\n")
    update = "use Acme\\Translation\\CatalogueFixer;\nuse Symfony\\Component\\Yaml\\Yaml;\n"
    assert merge_update(document, update, "CheckTest.php").merged == document.replace(
        "use Acme\\Translation\\Loader;\n", "use Acme\\Translation\\CatalogueFixer;\nuse Acme\\Translation\\Loader;\n"
    ).replace("CommandTester;\n", "CommandTester;\nuse Symfony\\Component\\Yaml\\Yaml;\n")


def test_a_function_s_head_and_first_lines_shown_alone_keep_the_rest_of_its_body():
    """Python and GDScript blocks end by indentation, so a function shown down to the line a call goes after
    (``_drop_loot()`` after ``died.emit(self)``) and no further keeps the body's other lines: they were
    removed unseen before, as if the update were the whole function."""
    document = ("extends CharacterBody2D\n\n\nfunc _die() -> void:\n\tdied.emit(self)\n\tset_physics_process(false)\n"
                "\thurtbox.set_deferred(\"monitoring\", false)\n\tsprite.play(\"death\")\n"
                "\tawait sprite.animation_finished\n\tqueue_free()\n\n\nfunc _ready() -> void:\n\tpass\n")
    update = "func _die() -> void:\n\tdied.emit(self)\n\t_drop_loot()\n\tset_physics_process(false)\n"
    merge = merge_update(document, update, "enemy.gd")
    assert merge.merged == document.replace("(self)\n", "(self)\n\t_drop_loot()\n") and merge.unseen_lines == 0
    python = ("def build(invoice):\n    issued = invoice.issued_at.date()\n    due = issued + TERMS\n"
              "    lines = list(invoice.lines)\n    total = sum(lines)\n    return {'due': due, 'total': total}\n")
    update = "def build(invoice):\n    issued = timezone.localdate(invoice.issued_at)\n    due = issued + TERMS\n"
    assert merge_update(python, update, "pdf.py").merged == python.replace("invoice.issued_at.date()",
                                                                           "timezone.localdate(invoice.issued_at)")
    # a rewrite that drops one last line is a rewrite: too few lines below to read it as the top alone
    short = "def f(x):\n    y = g(x)\n    log(y)\n    return y\n\n\ndef h():\n    pass\n"
    assert merge_update(short, "def f(x):\n    y = g(x)\n    log(y)\n", "m.py").merged == \
        short.replace("    return y\n", "")


def test_new_functions_after_a_named_one_are_set_apart_as_the_file_sets_its_functions():
    """"add the two helpers after `_die()`": two blank lines after them too, where GDScript sets its functions
    apart by two (one before)."""
    document = "func _die() -> void:\n\tqueue_free()\n\n\nfunc _ready() -> void:\n\tpass\n"
    update = "func _drop_loot() -> void:\n\tpass\n\n\nfunc _spawn() -> void:\n\tpass\n"
    assert merge_update(document, update, "enemy.gd", after="_die").merged == document.replace(
        "func _ready", update + "\n\nfunc _ready")


def test_a_function_s_fragment_is_not_placed_at_the_top_level_where_the_language_allows_no_statement():
    """A struct, then "// ... in Load():" and the ``cfg := Config{...}`` it builds: the fragment rewrites the
    literal in ``Load``.  It was written after the file's last function, which Go's parser tolerates."""
    document = ("package config\n\ntype WebhookConfig struct {\n\tTimeout time.Duration\n}\n\n"
                "func Load() (*Config, error) {\n\tcfg := Config{\n\t\tQueue:   QueueConfig{Workers: 4},\n"
                "\t\tWebhook: WebhookConfig{Timeout: time.Second},\n\t}\n\treturn &cfg, nil\n}\n")
    update = ("type WebhookConfig struct {\n\tTimeout     time.Duration\n\tMaxAttempts int\n}\n\n// ... in Load():\n\n"
              "\tcfg := Config{\n\t\tQueue: QueueConfig{Workers: 4},\n\t\tWebhook: WebhookConfig{\n"
              "\t\t\tTimeout:     time.Second,\n\t\t\tMaxAttempts: 5,\n\t\t},\n\t}\n")
    merged = merge_update(document, update, "config.go").merged
    assert merged.endswith("\t\t},\n\t}\n\treturn &cfg, nil\n}\n") and "MaxAttempts int\n" in merged
    assert breaks(document, document + "\n\tcfg := Config{}\n", "go")
    assert not breaks(document, document + "\nvar defaults = Config{}\n", "go")


def test_a_makefile_s_phony_line_grown_on_top_of_shown_targets_is_rewritten_in_place():
    """``.PHONY`` with two more names, then a kept target and the two new ones: the file's ``.PHONY`` rewritten
    where it is, not written a second time above ``logs:`` (nor the lines between removed)."""
    document = (".PHONY: up down logs clean\n\nCOMPOSE := docker compose\n\nup:\n\t$(COMPOSE) up -d\n\n"
                "logs:\n\t$(COMPOSE) logs -f api\n\nclean:\n\t$(COMPOSE) down -v\n")
    update = (".PHONY: up down logs worker-logs redis-cli clean\n\nlogs:\n\t$(COMPOSE) logs -f api\n\nworker-logs:\n"
              "\t$(COMPOSE) logs -f worker\n\nredis-cli:\n\t$(COMPOSE) exec redis redis-cli\n")
    assert merge_update(document, update, "Makefile").merged == document.replace(
        "logs clean", "logs worker-logs redis-cli clean").replace(
        "api\n", "api\n\nworker-logs:\n\t$(COMPOSE) logs -f worker\n\nredis-cli:\n\t$(COMPOSE) exec redis redis-cli\n")


def test_lone_lines_rewritten_between_markers_after_a_shown_function_stay_in_place_without_blank_lines():
    """A function, then two JSX lines each between ``// ...`` markers, each a rewrite of a line deep in the
    component: in place of those lines, the blank lines that set them apart from the markers not written.  They
    were written past the file's end (the parser tolerates them there)."""
    document = ("function navClass(active) {\n  return active ? 'text-[#2f55d4]' : 'text-gray-600';\n}\n\n"
                "export default function Header() {\n  return (\n    <header>\n      <Link to=\"/\">\n"
                "        <span className=\"font-bold text-[#1b2f73]\">Parcel</span>\n      </Link>\n"
                "      <nav>\n        <NavLink\n          to=\"/about\"\n"
                "          className=\"block px-3 py-2 text-gray-700 hover:bg-[#eef3ff]\"\n        >\n"
                "          About\n        </NavLink>\n      </nav>\n    </header>\n  );\n}\n")
    update = ("function navClass(active) {\n  return active ? 'text-brand-600' : 'text-gray-600';\n}\n\n// ...\n\n"
              "        <span className=\"font-bold text-brand-900\">Parcel</span>\n\n// ...\n\n"
              "          className=\"block px-3 py-2 text-gray-700 hover:bg-brand-50\"\n")
    assert merge_update(document, update, "Header.jsx").merged == document.replace("[#2f55d4]", "brand-600").replace(
        "[#1b2f73]", "brand-900").replace("[#eef3ff]", "brand-50")


def test_an_r_function_is_a_definition_by_name_and_its_head_rewritten_below_a_new_one_is_replaced():
    """R's ``name <- function(...) {``: "after `predict_churn()`" places a new function there, set apart, and
    ``save_plot``'s head given another default below a new function replaces the old head (kept before)."""
    document = ("fit <- function(data) {\n  glm(y ~ ., data = data)\n}\n\npredict_churn <- function(model, data) {\n"
                "  predict(model, data)\n}\n\nsave_plot <- function(plot, file, dpi = 150) {\n"
                "  ggsave(file, plot, dpi = dpi)\n}\n")
    new = "cross_validate <- function(data, k = 5) {\n  lapply(seq_len(k), function(i) fit(data))\n}\n"
    assert merge_update(document, new, "model.R", after="predict_churn").merged == document.replace(
        "}\n\nsave_plot", "}\n\n" + new + "\nsave_plot")
    update = new + "\nsave_plot <- function(plot, file, dpi = 300) {\n  ggsave(file, plot, dpi = dpi)\n}\n"
    assert merge_update(document, update, "model.R", after="predict_churn").merged == document.replace(
        "}\n\nsave_plot", "}\n\n" + new + "\nsave_plot").replace("dpi = 150", "dpi = 300")


def test_c_functions_returning_pointers_nim_procs_and_ocaml_lets_are_definitions_a_sentence_can_name():
    """"Add this above `insert_new()`" (``static struct node *insert_new(...)``), "Drop it below `isHidden`" (Nim's
    ``proc isHidden(...): bool =``), "right after `prefix`" (OCaml's ``let prefix =``): each names a definition,
    and the new code goes there (refused before: no line of it is the file's)."""
    c = ("static int count;\n\nstatic struct node *find(map *m, int k)\n{\n    return m->head;\n}\n\n"
         "static struct node *insert_new(map *m, int k)\n{\n    return NULL;\n}\n")
    grow = "static bool grow(map *m)\n{\n    return true;\n}\n"
    assert merge_update(c, grow, "hashmap.c", before="insert_new").merged == c.replace(
        "static struct node *insert_new", grow + "\nstatic struct node *insert_new")
    nim = ("proc isHidden(path: string): bool =\n  path.startsWith(\".\")\n\n"
           "proc hashFile(path: string): string =\n  readFile(path)\n")
    glob = "proc globMatch*(name, pattern: string): bool =\n  name == pattern\n"
    assert merge_update(nim, glob, "scan.nim", after="isHidden").merged == nim.replace(
        "\n\nproc hashFile", "\n\n" + glob + "\nproc hashFile")
    ocaml = ("let file =\n  Arg.(required & pos 0 (some string) None & info [])\n\nlet prefix =\n"
             "  Arg.(value & opt string \"\" & info [ \"prefix\" ])\n\nlet cmd =\n  Cmd.v info Term.(const run $ file)\n")
    conv = "let date_conv =\n  Arg.conv (parse, print)\n"
    assert merge_update(ocaml, conv, "main.ml", after="prefix").merged == ocaml.replace(
        "\n\nlet cmd", "\n\n" + conv + "\nlet cmd")


def test_an_update_that_ends_on_a_line_with_more_of_its_block_below_keeps_the_rest():
    """A usage text's "Options:" and its first lines, one new option among them, ending on a kept line with three
    more below: those stay (they were the rest of a block "shown whole", removed unseen)."""
    document = ('const Usage = """\nUsage:\n  dupfind [options]\n\nOptions:\n  -s, --min-size=N  smallest size\n'
                '  -L, --follow      follow links\n  -a, --all         hidden files too\n  -h, --help        help\n'
                '  -v, --version     version\n"""\n\nproc main() =\n  discard\n')
    update = ("Options:\n  -s, --min-size=N  smallest size\n  -x, --exclude=G   skip names matching G\n"
              "  -L, --follow      follow links\n")
    assert merge_update(document, update, "dupfind.nim").merged == document.replace(
        "size\n", "size\n  -x, --exclude=G   skip names matching G\n")


def test_a_merge_never_leaves_out_new_lines_the_update_shows():
    """Two classes shown, the second with ``# ... existing fields and methods ...`` and a new method much like an
    old one: the syntax's reading took it for that one and wrote nothing of it, unseen.  Either the new method is
    written or the merge is refused, saying why."""
    document = ("import pandas as pd\nimport sqlalchemy as sa\n\n\nclass ShopDatabase:\n    url: str\n\n"
                "    def query(self, sql: str) -> pd.DataFrame:\n        engine = sa.create_engine(self.url)\n"
                "        with engine.connect() as conn:\n            return pd.read_sql(sa.text(sql), conn)\n\n\n"
                "class Warehouse:\n    url: str\n    chunksize: int = 10_000\n\n    def begin(self):\n"
                "        return self.engine.begin()\n\n    def replace_table(self, table: str, df: pd.DataFrame) -> None:\n"
                "        schema, name = table.split(\".\")\n        with self.begin() as conn:\n            df.to_sql(\n"
                "                name,\n                conn,\n                schema=schema,\n"
                "                if_exists=\"replace\",\n                chunksize=self.chunksize,\n            )\n")
    update = ("class ShopDatabase:\n    # ...\n\n    def query(self, sql: str, params: dict | None = None) -> pd.DataFrame:\n"
              "        engine = sa.create_engine(self.url)\n        with engine.connect() as conn:\n"
              "            return pd.read_sql(sa.text(sql), conn, params=params or {})\n\n\n"
              "class Warehouse:\n    # ... existing fields and methods ...\n\n"
              "    def replace_partition(self, table: str, df: pd.DataFrame, day_column: str, day: str) -> None:\n"
              "        \"\"\"Delete one day's rows and insert ``df`` in a single transaction.\"\"\"\n"
              "        schema, name = table.split(\".\")\n        with self.begin() as conn:\n            conn.execute(\n"
              "                sa.text(f\"delete from {schema}.{name} where {day_column} = :day\"),\n"
              "                {\"day\": day},\n            )\n            df.to_sql(\n                name,\n"
              "                conn,\n                schema=schema,\n                if_exists=\"append\",\n"
              "                chunksize=self.chunksize,\n            )\n")
    try:
        merged = merge_update(document, update, "resources.py").merged
    except UpdateError as refused:
        assert "leave out" in str(refused)
    else:
        assert "def replace_partition(" in merged and "def replace_table(" in merged


def test_a_jsx_tag_rewritten_over_several_lines_below_a_marker_replaces_the_one_line_tag():
    """``// ...`` then ``<time`` given a prop a line and its new child, above the kept ``</time>``: the one-line
    ``<time className=... dateTime=...>`` goes (it was kept above the new tag, or the whole was written past the
    file's end)."""
    document = ("import { formatDate } from './format';\n\nexport function Item({ c }) {\n  return (\n    <header>\n"
                "      <span>{c.author}</span>\n      <time className={styles.time} dateTime={c.createdAt}>\n"
                "        {formatDate(c.createdAt)}\n      </time>\n    </header>\n  );\n}\n")
    update = ("import { formatDate, formatRelativeTime } from './format';\n\n// ...\n\n      <time\n"
              "        className={styles.time}\n        dateTime={c.createdAt}\n        title={formatDate(c.createdAt)}\n"
              "      >\n        {formatRelativeTime(c.createdAt)}\n      </time>\n")
    assert merge_update(document, update, "Item.tsx").merged == document.replace(
        "{ formatDate }", "{ formatDate, formatRelativeTime }").replace(
        "      <time className={styles.time} dateTime={c.createdAt}>\n        {formatDate(c.createdAt)}\n",
        "      <time\n        className={styles.time}\n        dateTime={c.createdAt}\n        title={formatDate(c.createdAt)}\n"
        "      >\n        {formatRelativeTime(c.createdAt)}\n")


def test_a_new_terraform_resource_of_the_same_type_said_to_go_below_another_keeps_that_one():
    """"Add a new node group resource below the `general` node group:" and ``resource "aws_eks_node_group"
    "batch_spot"``, longer than the file: read as the whole new file, it replaced ``general`` (unseen but for one
    line).  A Terraform block is named by both its labels, so it goes after ``general``."""
    document = ('resource "aws_eks_node_group" "general" {\n  cluster_name = aws_eks_cluster.this.name\n'
                '  capacity_type = "ON_DEMAND"\n\n  scaling_config {\n    min_size = 1\n  }\n}\n')
    update = ('resource "aws_eks_node_group" "batch_spot" {\n  count = var.batch_enabled ? 1 : 0\n\n'
              '  cluster_name = aws_eks_cluster.this.name\n  capacity_type = "SPOT"\n\n  scaling_config {\n'
              '    min_size = 0\n  }\n\n  taint {\n    key = "workload-type"\n  }\n}\n')
    assert merge_update(document, update, "node_groups.tf", after="general").merged == document + "\n" + update


def test_indented_lines_after_a_left_edge_marker_below_a_class_are_not_that_class_s():
    """A dataclass given a field, ``# ... existing code ...``, then the ``CleanConfig(...)`` call of a function
    further down given an argument: the call is rewritten in the function.  Python's parser read the indented
    lines as the class's (a comment does not end a block), so they were written into the class."""
    document = ("from dataclasses import dataclass, field\n\n\n@dataclass(frozen=True)\nclass CleanConfig:\n"
                "    \"\"\"Options for cleaning.\"\"\"\n\n    rates: dict = field(default_factory=dict)\n"
                "    drop_test_orders: bool = True\n\n\n@dataclass(frozen=True)\nclass PipelineConfig:\n"
                "    clean: CleanConfig\n\n\ndef _env_bool(name: str, default: bool) -> bool:\n    return default\n\n\n"
                "def load_config() -> PipelineConfig:\n    rates = {}\n    clean = CleanConfig(\n        rates=rates,\n"
                "        drop_test_orders=_env_bool(\"ORDERS_DROP_TEST\", True),\n    )\n"
                "    return PipelineConfig(clean=clean)\n")
    update = ("# ... existing code ...\n\n@dataclass(frozen=True)\nclass CleanConfig:\n    \"\"\"Options for cleaning.\"\"\"\n\n"
              "    rates: dict = field(default_factory=dict)\n    drop_test_orders: bool = True\n    dedupe: bool = True\n\n"
              "# ... existing code ...\n\n    clean = CleanConfig(\n        rates=rates,\n"
              "        drop_test_orders=_env_bool(\"ORDERS_DROP_TEST\", True),\n"
              "        dedupe=_env_bool(\"ORDERS_DEDUPE\", True),\n    )\n# ... existing code ...\n")
    assert merge_update(document, update, "config.py").merged == document.replace(
        "True\n\n\n@dataclass(frozen=True)\nclass Pipeline", "True\n    dedupe: bool = True\n\n\n@dataclass(frozen=True)\n"
        "class Pipeline").replace("True),\n    )", "True),\n        dedupe=_env_bool(\"ORDERS_DEDUPE\", True),\n    )")


def test_a_new_story_beside_another_of_the_same_shape_does_not_rewrite_it():
    """Stories shown after ``Ghost``, between markers: ``Danger``'s ``args`` line is not ``WithIcon``'s rewritten
    (each ``export const X: Story = {`` names its own), so ``WithIcon`` stays (it was removed, its head unseen)."""
    document = ("const meta = {\n  title: 'Button',\n  argTypes: {\n    size: { control: 'radio' },\n  },\n};\n\n"
                "export default meta;\n\nexport const Ghost: Story = {\n  args: { variant: 'ghost' },\n};\n\n"
                "export const WithIcon: Story = {\n  args: { iconLeft: <PlusIcon />, children: 'New project' },\n};\n\n"
                "export const Loading: Story = {\n  args: { loading: true, children: 'Saving' },\n};\n")
    update = ("// ... existing code ...\n  argTypes: {\n    size: { control: 'inline-radio' },\n  },\n"
              "// ... existing code ...\n\nexport const Ghost: Story = {\n  args: { variant: 'ghost' },\n};\n\n"
              "export const Danger: Story = {\n  args: { variant: 'danger', children: 'Delete project' },\n};\n\n"
              "// ... existing code ...\n")
    assert merge_update(document, update, "Button.stories.tsx").merged == document.replace(
        "control: 'radio'", "control: 'inline-radio'").replace(
        "'ghost' },\n};\n\n", "'ghost' },\n};\n\nexport const Danger: Story = {\n"
        "  args: { variant: 'danger', children: 'Delete project' },\n};\n\n")


def test_a_new_method_before_a_marker_is_set_apart_from_the_class_kept_below_as_the_file_sets_methods_apart():
    """A new method after ``deleteNote``, its ``}`` right against ``// ... existing code ...``, and below it the
    file's nested ``class Factory``: a blank line between them, as the file sets its methods apart (the kept
    stretch shows no such pair, and the file's whole text was not asked)."""
    document = ("class NotesViewModel(private val noteDao: NoteDao) : ViewModel() {\n"
                "    val notes: StateFlow<List<Note>> = _query\n        .flatMapLatest { q -> noteDao.search(q) }\n"
                "        .stateIn(viewModelScope, SharingStarted.WhileSubscribed(5_000), emptyList())\n\n"
                "    fun onQueryChange(newQuery: String) {\n        _query.value = newQuery\n    }\n\n"
                "    fun deleteNote(note: Note) {\n        viewModelScope.launch {\n            noteDao.delete(note)\n"
                "        }\n    }\n\n    class Factory(private val noteDao: NoteDao) : ViewModelProvider.Factory {\n"
                "        override fun <T : ViewModel> create(modelClass: Class<T>): T =\n            NotesViewModel(noteDao) as T\n"
                "    }\n}\n")
    favorites = ("    val favorites: StateFlow<List<Note>> = noteDao.observeFavorites()\n"
                 "        .stateIn(viewModelScope, SharingStarted.WhileSubscribed(5_000), emptyList())\n\n")
    toggle = ("    fun toggleFavorite(note: Note) {\n        viewModelScope.launch {\n"
              "            noteDao.setFavorite(note.id, !note.isFavorite)\n        }\n    }\n")
    update = ("// ... existing code ...\n    val notes: StateFlow<List<Note>> = _query\n"
              "        .flatMapLatest { q -> noteDao.search(q) }\n"
              "        .stateIn(viewModelScope, SharingStarted.WhileSubscribed(5_000), emptyList())\n\n" + favorites +
              "// ... existing code ...\n\n    fun deleteNote(note: Note) {\n        viewModelScope.launch {\n"
              "            noteDao.delete(note)\n        }\n    }\n\n" + toggle + "// ... existing code ...\n")
    assert merge_update(document, update, "NotesViewModel.kt").merged == document.replace(
        "emptyList())\n\n", "emptyList())\n\n" + favorites).replace(
        "        }\n    }\n\n    class", "        }\n    }\n\n" + toggle + "\n    class")


def test_a_block_shown_whole_above_a_marker_replaces_the_file_s_block_of_the_same_head():
    """``if Input.is_action_just_pressed("jump"):`` with a new body (the old one moved to ``_jump()``), then ``#
    ... rest of _physics_process stays the same``: the file's ``if ... and _coyote_timer > 0.0:`` block is what
    it rewrites; it was kept below the new one, jumping twice."""
    document = ("func _physics_process(delta: float) -> void:\n\tif not is_on_floor():\n\t\tvelocity.y += gravity * delta\n"
                "\t\t_coyote_timer -= delta\n\telse:\n\t\t_coyote_timer = COYOTE_TIME\n\n"
                "\tif Input.is_action_just_pressed(\"jump\") and _coyote_timer > 0.0:\n\t\tvelocity.y = JUMP_VELOCITY\n"
                "\t\t_coyote_timer = 0.0\n\t\tjump_sound.play()\n\n\t# Variable jump height.\n"
                "\tif Input.is_action_just_released(\"jump\") and velocity.y < 0.0:\n\t\tvelocity.y *= 0.5\n\n"
                "\tmove_and_slide()\n")
    update = ("func _physics_process(delta: float) -> void:\n\tif not is_on_floor():\n\t\tvelocity.y += gravity * delta\n"
              "\t\t_coyote_timer -= delta\n\telse:\n\t\t_coyote_timer = COYOTE_TIME\n"
              "\t\tif _air_jumps_left != max_air_jumps:\n\t\t\t_air_jumps_left = max_air_jumps\n\n"
              "\tif Input.is_action_just_pressed(\"jump\"):\n\t\tif _coyote_timer > 0.0:\n\t\t\t_jump()\n"
              "\t\telif _air_jumps_left > 0:\n\t\t\t_air_jumps_left -= 1\n\t\t\t_jump()\n\n"
              "\t# ... rest of _physics_process stays the same\n")
    shown = update[:update.index("\n\t# ...") + 1]
    assert merge_update(document, update, "player.gd").merged == shown + document[document.index("\t# Variable"):]


def test_a_snippet_that_starts_inside_a_call_and_ends_closing_it_rewrites_the_call_s_rest():
    """``title: Text(...)`` (the one line of the file it shows), new arguments, then ``),`` and ``);``: those
    close the file's ``ListTile(``, so its old ``subtitle`` and ``trailing`` go (they were kept after the new
    ones, the call written twice)."""
    document = ("      itemBuilder: (context, index) {\n          return ListTile(\n            leading: Icon(Icons.shop),\n"
                "            title: Text(item.product.name),\n            subtitle: Text(formatPrice(item.product.price)),\n"
                "            trailing: IconButton(\n              onPressed: remove,\n            ),\n          );\n"
                "      },\n")
    update = ("            title: Text(item.product.name),\n            subtitle: Text(formatPrice(item.lineTotal)),\n"
              "            trailing: _QuantityStepper(\n              quantity: item.quantity,\n            ),\n"
              "          );\n")
    assert merge_update(document, update, "cart_screen.dart").merged == document.replace(
        "            title: Text(item.product.name),\n            subtitle: Text(formatPrice(item.product.price)),\n"
        "            trailing: IconButton(\n              onPressed: remove,\n            ),\n          );\n", update)


def test_a_function_s_end_is_not_placed_on_the_file_s_last_end():
    """Lua functions rewritten down to the last one's ``end``, where the file goes on with calls after a loop's
    ``end``: the ``end`` is the function's (it was placed on the loop's, deleting the calls between)."""
    document = ("local function onPlayerAdded(player)\n\tcreate(player)\nend\n\nlocal function onPlayerRemoving(player)\n"
                "\tprint(player.Name)\nend\n\nPlayers.PlayerAdded:Connect(onPlayerAdded)\n\n"
                "for _, player in Players:GetPlayers() do\n\ttask.spawn(onPlayerAdded, player)\nend\n")
    update = ("local function onPlayerAdded(player)\n\tlocal data = loadData(player)\n\tcreate(player, data)\nend\n\n"
              "local function onPlayerRemoving(player)\n\tsaveData(player)\nend\n")
    assert merge_update(document, update, "PlayerData.server.lua").merged == update + document[document.index("\nPlayers"):]


def test_a_new_lua_file_ending_on_an_end_the_file_has_often_is_the_whole_file_when_said_so():
    """"new version of the whole file:" and a script whose last line, ``end``, the old file has many times, the
    last of them eight lines before its end: that places no end, so the block is the whole file (it was read as a
    snippet, keeping the old code after it)."""
    document = ("local led = 1\n\nlocal function publish()\n  send()\nend\n\nlocal function connect()\n  open()\nend\n\n"
                "client:on(\"offline\", function()\n  connected = false\n  retry()\n  log()\nend)\n\n"
                "wifi.register(function(t)\n  connect()\nend)\n\ntmr.alarm(60, publish)\n")
    update = ("-- wake up, publish, sleep\nlocal led = 1\n\nlocal function sleep()\n  node.dsleep(1)\nend\n\n"
              "if wifi.ip() then\n  publish()\nelse\n  wait()\nend\n")
    assert merge_update(document, update, "app.lua", whole=True).merged == update


def test_new_lines_said_to_go_after_a_comment_headed_section_go_after_it_set_apart():
    """"Put this block after the `# Auth` section." below ``# Rate limiting`` settings for a ``.env``: after the
    ``# Auth`` lines, a blank line between, as the file's sections are (it was refused: no line of the file)."""
    document = "# HTTP\nPORT=8080\n\n# Auth\nJWT_SECRET=\nJWT_TTL=15m\n\n# Logging\nLOG_LEVEL=debug\n"
    update = "# Rate limiting (per client IP)\nRATE_LIMIT_RPS=5\n"
    assert merge_update(document, update, ".env.example", after="Auth").merged == document.replace(
        "15m\n\n", "15m\n\n" + update + "\n")


def test_a_call_titled_by_a_go_string_is_not_another_call_of_the_same_function():
    """``r.Route("/orders", ...)`` shown alone, a route added: it is the file's ``/orders`` route nested in
    ``r.Route("/api/v1", ...)``, not that one (Go's string literals did not title a call, so the syntax
    replaced ``/api/v1`` whole)."""
    document = ("func NewRouter(h Handlers) http.Handler {\n\tr := chi.NewRouter()\n\n"
                "\tr.Route(\"/api/v1\", func(r chi.Router) {\n\t\tr.Use(middleware.Timeout(15 * time.Second))\n\n"
                "\t\tr.Route(\"/orders\", func(r chi.Router) {\n\t\t\tr.Get(\"/\", h.Orders.List)\n\t\t})\n\n"
                "\t\tr.Route(\"/customers\", func(r chi.Router) {\n\t\t\tr.Get(\"/{id}\", h.Customers.Get)\n\t\t})\n"
                "\t})\n\n\treturn r\n}\n")
    update = ("\t\tr.Route(\"/orders\", func(r chi.Router) {\n\t\t\tr.Get(\"/\", h.Orders.List)\n"
              "\t\t\tr.Get(\"/export.csv\", h.Orders.ExportCSV)\n\t\t})\n")
    assert merge_update(document, update, "router.go").merged == document.replace(
        "h.Orders.List)\n", "h.Orders.List)\n\t\t\tr.Get(\"/export.csv\", h.Orders.ExportCSV)\n")


def test_a_new_commented_field_set_apart_under_a_marker_keeps_its_blank_line():
    """``// ... (existing fields)``, a blank line, then a new field with a comment of its own: the blank line
    stays, as the update shows it (the file runs its fields on, and its way won)."""
    document = ("type Server struct {\n\tstore  *store.MemoryStore\n\tmux    *http.ServeMux\n}\n\n"
                "func (s *Server) routes() {\n\ts.mux.HandleFunc(\"GET /notes\", s.list)\n}\n")
    update = ("type Server struct {\n\t// ... (existing fields)\n\n\t// startedAt is used by /healthz to report uptime.\n"
              "\tstartedAt time.Time\n}\n\nfunc (s *Server) routes() {\n\ts.mux.HandleFunc(\"GET /healthz\", s.health)\n"
              "\ts.mux.HandleFunc(\"GET /notes\", s.list)\n}\n")
    assert merge_update(document, update, "server.go").merged == document.replace(
        "ServeMux\n}", "ServeMux\n\n\t// startedAt is used by /healthz to report uptime.\n\tstartedAt time.Time\n}").replace(
        "\ts.mux.HandleFunc(\"GET /notes\"", "\ts.mux.HandleFunc(\"GET /healthz\", s.health)\n\ts.mux.HandleFunc(\"GET /notes\"")


def test_the_file_s_imports_with_new_ones_then_a_new_function_said_to_go_after_another():
    """The file's imports with three new ones, then a new view, "put the view right after `invoice_list`": the
    imports merge with the file's and the view goes after ``invoice_list`` (read as one snippet, the view went
    among the imports, above the file's own)."""
    document = ("from decimal import Decimal\n\nfrom django.shortcuts import render\n\nfrom .models import Invoice\n\n\n"
                "def invoice_list(request):\n    return render(request, \"list.html\")\n\n\n"
                "def invoice_detail(request, pk):\n    return render(request, \"detail.html\")\n")
    view = "def invoice_export_csv(request):\n    return HttpResponse(\"\", content_type=\"text/csv\")\n"
    update = ("import csv\nfrom decimal import Decimal\n\nfrom django.http import HttpResponse\n"
              "from django.shortcuts import render\n\n" + view)
    merged = merge_update(document, update, "views.py", after="invoice_list").merged
    assert merged == document.replace("from decimal", "import csv\nfrom decimal").replace(
        "from django.shortcuts", "from django.http import HttpResponse\nfrom django.shortcuts").replace(
        "\"list.html\")\n\n\n", "\"list.html\")\n\n\n" + view + "\n\n")


def test_functions_shown_one_after_another_without_their_docs_keep_them():
    """Elixir functions rewritten one after another with no ``@doc`` above them (left out for brevity), after a
    new attribute and a comment for the function kept: the file's docs stay (read as lines, the doc between two
    shown functions was deleted)."""
    document = ("defmodule Tracker.Tickets do\n  alias Tracker.Repo\n\n  @doc \"\"\"\n  Creates a ticket.\n  \"\"\"\n"
                "  def create_ticket(attrs) do\n    Repo.insert(attrs)\n  end\n\n  @doc \"\"\"\n  Updates a ticket.\n"
                "  \"\"\"\n  def update_ticket(ticket, attrs) do\n    Repo.update(ticket, attrs)\n  end\n\n  @doc \"\"\"\n"
                "  Deletes a ticket.\n  \"\"\"\n  def delete_ticket(ticket) do\n    Repo.delete(ticket)\n  end\nend\n")
    update = ("  alias Tracker.Repo\n\n  @topic \"tickets\"\n\n  # create_ticket/1 stays as it is\n\n"
              "  def update_ticket(ticket, attrs) do\n    Repo.update(ticket, attrs)\n    |> broadcast(:updated)\n  end\n\n"
              "  def delete_ticket(ticket) do\n    Repo.delete(ticket)\n    |> broadcast(:deleted)\n  end\n")
    assert merge_update(document, update, "tickets.ex").merged == document.replace(
        "Repo\n\n", "Repo\n\n  @topic \"tickets\"\n\n").replace(
        "    Repo.update(ticket, attrs)\n", "    Repo.update(ticket, attrs)\n    |> broadcast(:updated)\n").replace(
        "    Repo.delete(ticket)\n", "    Repo.delete(ticket)\n    |> broadcast(:deleted)\n")


def test_a_marker_between_imports_keeps_the_file_s_imports_between_the_shown_ones():
    """``from fastapi import ...`` rewritten, ``# ... existing code ...``, ``from app.schemas import ...``
    rewritten, then a route: the file's imports between the two stay (taken as the import section, the two
    replaced it)."""
    document = ("from fastapi import APIRouter, Depends\nfrom sqlalchemy.orm import Session\n\nfrom app import crud\n"
                "from app.schemas import ItemRead\n\nrouter = APIRouter()\n\n\n@router.get(\"/\")\ndef read_items(db: Session):\n"
                "    return crud.list_items(db)\n")
    update = ("from fastapi import APIRouter, Depends, Query\n# ... existing code ...\nfrom app.schemas import ItemPage, "
              "ItemRead\n\n# ... existing code ...\n\n\n@router.get(\"/\")\ndef read_items(db: Session, limit: int = Query(20)):\n"
              "    return crud.list_items(db, limit=limit)\n")
    assert merge_update(document, update, "items.py").merged == document.replace(
        "Depends\n", "Depends, Query\n").replace("import ItemRead", "import ItemPage, ItemRead").replace(
        "(db: Session)", "(db: Session, limit: int = Query(20))").replace("(db)\n", "(db, limit=limit)\n")


def test_the_jdk_s_own_imports_go_after_the_file_s_a_group_of_their_own_in_java():
    """New ``org.springframework`` imports and ``java.time.Instant`` (its own group in the update) into a Java
    file that imports neither: the first after ``lombok`` as they sort, ``java.time`` last after a blank line
    (IntelliJ's layout; it sorted between ``jakarta`` and ``lombok``); in Kotlin, ``java.sql`` after the file's
    last import (ktlint's)."""
    document = ("package crm;\n\nimport jakarta.persistence.Entity;\nimport lombok.Getter;\n\n@Entity\n@Getter\n"
                "public class Customer {\n    private Long id;\n}\n")
    update = ("import org.springframework.data.annotation.CreatedDate;\n\nimport java.time.Instant;\n\n// ...\n\n"
              "public class Customer {\n    private Long id;\n\n    @CreatedDate\n    private Instant createdAt;\n}\n")
    assert merge_update(document, update, "Customer.java").merged == document.replace(
        "import lombok.Getter;\n", "import lombok.Getter;\nimport org.springframework.data.annotation.CreatedDate;\n\n"
        "import java.time.Instant;\n").replace("Long id;\n", "Long id;\n\n    @CreatedDate\n    private Instant createdAt;\n")
    kotlin = "package db\n\nimport com.zaxxer.hikari.HikariConfig\nimport org.jetbrains.exposed.sql.Database\n\nclass Db\n"
    assert merge_update(kotlin, "import java.sql.SQLException\n", "Db.kt").merged == kotlin.replace(
        "sql.Database\n", "sql.Database\nimport java.sql.SQLException\n")


def test_new_settings_after_a_marker_go_above_the_return_a_lua_module_ends_with():
    """``-- ...`` then new ``Config.X = ...`` settings: above ``return Config`` (written after it, they were
    dead code the module never returned)."""
    document = "local Config = {}\n\nConfig.RESPAWN_TIME = 3\n\nreturn Config\n"
    update = "-- ...\n\n-- Data\nConfig.DATASTORE_NAME = \"PlayerCoins_v1\"\n"
    assert merge_update(document, update, "Config.lua").merged == document.replace(
        "return Config", "-- Data\nConfig.DATASTORE_NAME = \"PlayerCoins_v1\"\n\nreturn Config")


def test_a_marker_then_the_line_a_function_ends_with_places_new_lines_there_said_at_its_end():
    """"At the end of `Player:update`", ``-- ...``, the function's last statement, new lines and ``end``: they
    go at that function's end (read as new code after a marker for the whole file, they went to the file's end,
    the statement and ``end`` written twice)."""
    document = ("local Player = {}\n\nfunction Player:update(dt)\n    self.x = self.x + self.vx * dt\n"
                "    self.onGround = landed and true or false\nend\n\nfunction Player:draw()\n"
                "    love.graphics.rectangle(\"fill\", self.x, self.y, self.w, self.h)\nend\n\nreturn Player\n")
    update = "    -- ...\n    self.onGround = landed and true or false\n\n    self.anim:update(dt)\nend\n"
    assert merge_update(document, update, "player.lua", after="").merged == document.replace(
        "or false\nend", "or false\n\n    self.anim:update(dt)\nend")


def test_a_new_compose_service_said_to_go_after_another_goes_after_it():
    """"Add this service under `services:`, after the existing `db` service." and ``  db-test:`` with its keys,
    none of the file's lines in it: after ``db``'s block, set apart as the services are (refused: no line of the
    file, and only top-level keys were placed by name)."""
    compose = ("services:\n  api:\n    build: .\n    depends_on:\n      - db\n\n  db:\n    image: postgres:16-alpine\n"
               "    volumes:\n      - pgdata:/var/lib/postgresql/data\n\n  redis:\n    image: redis:7\n\nvolumes:\n  pgdata:\n")
    service = "  db-test:\n    image: postgres:16-alpine\n    profiles: [\"test\"]\n"
    assert merge_update(compose, service, "docker-compose.yml", after="db").merged == compose.replace(
        "postgresql/data\n\n", "postgresql/data\n\n" + service + "\n")


def test_one_long_line_with_its_middle_rewritten_is_that_line_rewritten():
    """``<img class="avatar" src="{{ user.avatar_url }}" ...>`` alone, the file's ``src`` a longer ``url_for``:
    both ends alike over many characters, it rewrites that line (refused before: less alike than a rewrite
    found alone must be, as the middle changed at length)."""
    document = ("<section class=\"profile\">\n  <div class=\"profile-header\">\n"
                "    <img class=\"avatar\" src=\"{{ url_for('static', filename='img/default-avatar.png') }}\" alt=\"\" "
                "width=\"96\" height=\"96\">\n    <h1>{{ user.username }}</h1>\n  </div>\n</section>\n")
    update = "    <img class=\"avatar\" src=\"{{ user.avatar_url }}\" alt=\"\" width=\"96\" height=\"96\">\n"
    assert merge_update(document, update, "profile.html").merged == document.replace(
        "{{ url_for('static', filename='img/default-avatar.png') }}", "{{ user.avatar_url }}")


def test_a_new_block_before_a_block_whose_body_a_marker_keeps_is_not_placed_on_that_body():
    """A new ``location /ws/ {`` whose lines are much like ``location /``'s, then ``location / {`` and ``# ...
    unchanged ...``: the new block's lines are new, ``location /`` keeps its body (they were placed on it, and
    the marker kept nothing: its body was lost)."""
    document = ("upstream app {\n    server app:8000;\n}\n\nserver {\n    listen 80;\n\n    location / {\n"
                "        proxy_pass http://app;\n        proxy_http_version 1.1;\n        proxy_set_header Host $host;\n"
                "        proxy_set_header X-Real-IP $remote_addr;\n        proxy_read_timeout 60s;\n    }\n}\n")
    ws = ("    location /ws/ {\n        proxy_pass http://app;\n        proxy_http_version 1.1;\n"
          "        proxy_set_header Upgrade $http_upgrade;\n        proxy_set_header Host $host;\n"
          "        proxy_set_header X-Real-IP $remote_addr;\n        proxy_read_timeout 1h;\n    }\n\n")
    update = "server {\n    # ... listen unchanged ...\n\n" + ws + "    location / {\n        # ... unchanged ...\n    }\n}\n"
    assert merge_update(document, update, "app.conf").merged == document.replace("    location / {", ws + "    location / {")


def test_a_new_import_alone_goes_among_the_file_s_alike_imports_where_no_syntax_places_it():
    """"Import the new widget at the top of the file:" and a Dart ``import '../widgets/loading_footer.dart';``
    alone: among the file's relative imports, where it sorts (it went to the file's end)."""
    document = ("import 'package:flutter/material.dart';\n\nimport '../models/post.dart';\nimport '../services/api_client.dart';\n"
                "import 'post_detail_screen.dart';\n\nclass FeedScreen extends StatefulWidget {\n  const FeedScreen();\n}\n")
    update = "import '../widgets/loading_footer.dart';\n"
    assert merge_update(document, update, "feed_screen.dart").merged == document.replace(
        "api_client.dart';\n", "api_client.dart';\n" + update)


def test_new_arguments_said_to_go_after_a_one_line_call_titled_by_a_name_go_right_after_it():
    """"add the two new options after `--out` in `parse_args()`": after the one-line
    ``parser.add_argument("--out", ...)`` (refused: only calls over several lines were found by their title)."""
    document = ("def parse_args(argv=None):\n    parser = argparse.ArgumentParser()\n"
                "    parser.add_argument(\"--top\", type=int, default=10)\n"
                "    parser.add_argument(\"--out\", type=Path, default=Path(\"out\"))\n    return parser.parse_args(argv)\n")
    update = ("    parser.add_argument(\"--by-region\", action=\"store_true\")\n"
              "    parser.add_argument(\"--excel\", type=Path)\n")
    assert merge_update(document, update, "cli.py", after="--out").merged == document.replace(
        "Path(\"out\"))\n", "Path(\"out\"))\n" + update)


def test_entries_left_out_between_a_block_s_head_and_the_first_shown_one_stay_where_a_marker_elides_its_rest():
    """``dependencies {``, one of the file's ``implementation(...)`` lines, a new one, then ``// ...``: the entries
    between the head and the shown one stay (they were deleted for being left out between two shown lines)."""
    document = ("plugins {\n    kotlin(\"jvm\") version \"2.0.0\"\n}\n\ndependencies {\n"
                "    implementation(\"io.ktor:ktor-server-core-jvm:$ktor_version\")\n"
                "    implementation(\"io.ktor:ktor-server-netty-jvm:$ktor_version\")\n"
                "    implementation(\"io.ktor:ktor-server-status-pages-jvm:$ktor_version\")\n"
                "    implementation(\"ch.qos.logback:logback-classic:$logback_version\")\n"
                "    testImplementation(kotlin(\"test\"))\n}\n")
    new = "    implementation(\"io.ktor:ktor-server-request-validation-jvm:$ktor_version\")\n"
    update = ("dependencies {\n    implementation(\"io.ktor:ktor-server-status-pages-jvm:$ktor_version\")\n" + new +
              "    // ...\n}\n")
    assert merge_update(document, update, "build.gradle.kts").merged == document.replace(
        "status-pages-jvm:$ktor_version\")\n", "status-pages-jvm:$ktor_version\")\n" + new)


def test_new_code_shown_above_a_leading_marker_goes_below_the_file_s_package_line_and_imports():
    """``var version = "dev"``, then ``// ... existing code ...`` and the changed lines: no line of the file above
    the marker places the new code, and above ``package main`` it is no Go; a reader puts it below the imports,
    set apart as the file sets its imports apart (two blank lines in Python)."""
    doc = 'package main\n\nimport (\n\t"fmt"\n)\n\nfunc main() {\n\tcfg := Config{\n\t\tAddr: ":8080",\n\t}\n' \
          '\tfmt.Println(cfg)\n}\n'
    update = '// version is set at build time.\nvar version = "dev"\n\n// ... existing code ...\n\n' \
             '\tcfg := Config{\n\t\tAddr: ":8080",\n\t\tVersion: version,\n\t}\n'
    assert merge_update(doc, update, "main.go").merged == doc.replace(
        ")\n\nfunc", ')\n\n// version is set at build time.\nvar version = "dev"\n\nfunc').replace(
        '":8080",\n', '":8080",\n\t\tVersion: version,\n')
    python = "import os\n\n\ndef main():\n    return os.getcwd()\n"
    update = 'LOG = "x"\n\n# ... existing code ...\n\ndef main():\n    return os.getcwd() + LOG\n'
    assert merge_update(python, update, "m.py").merged == \
        'import os\n\n\nLOG = "x"\n\n\ndef main():\n    return os.getcwd() + LOG\n'


def test_a_new_method_s_closing_brace_at_the_update_s_end_is_not_its_class_s():
    """Members down to the last one, then a new method: its ``    }`` is written, not read as the class's ``}``
    that the file closes next (the class then lost its closing line, and the file no longer parsed)."""
    doc = ("class Vm {\n    private val a = 1\n\n    init {\n        refresh()\n    }\n\n    fun refresh() {\n"
           "        launch {\n            try {\n                go()\n            } finally {\n                busy = false\n"
           "            }\n        }\n    }\n}\n")
    update = ("    private val a = 1\n    private val error = 2\n\n    init {\n        refresh()\n    }\n\n"
              "    fun refresh() {\n        launch {\n            try {\n                go()\n"
              "            } catch (e: Exception) {\n                error = 3\n            } finally {\n"
              "                busy = false\n            }\n        }\n    }\n\n    fun dismiss() {\n        error = 0\n"
              "    }\n")
    assert merge_update(doc, update, "Vm.kt").merged == "class Vm {\n" + update + "}\n"


def test_a_new_csharp_using_sorts_among_the_file_s_as_paths_do():
    """``using Mailroom.Worker.Options;`` shown alone: after ``using Mailroom.Worker.Data;``, where a sorted run
    puts it (``Mailroom.Worker;`` sorts before its own namespaces: its ``;`` is no part of the path)."""
    doc = ("using Mailroom.Worker;\nusing Mailroom.Worker.Data;\nusing Mailroom.Worker.Services;\n\n"
           "var builder = Host.CreateApplicationBuilder(args);\nbuilder.Build().Run();\n")
    assert merge_update(doc, "using Mailroom.Worker.Options;\n", "Program.cs").merged == doc.replace(
        "Data;\n", "Data;\nusing Mailroom.Worker.Options;\n")


def test_a_one_line_call_written_an_argument_a_line_after_a_kept_line_replaces_the_file_s():
    """``const data = await fetchUsers({`` and an argument a line (one more: ``sort``) right after ``try {``,
    before a marker for the rest: the file's one-line ``fetchUsers({ page, perPage, search })`` gives way, it is
    not kept below its rewrite (the local declared twice)."""
    doc = ("async function load() {\n  loading.value = true\n  try {\n"
           "    const data = await fetchUsers({ page: page.value, perPage, search: search.value })\n"
           "    users.value = data.items\n  } finally {\n    loading.value = false\n  }\n}\n")
    update = ("  try {\n    const data = await fetchUsers({\n      page: page.value,\n      perPage,\n"
              "      search: search.value,\n      sort: toSortParam(sort.value),\n    })\n"
              "    // ... rest of load() unchanged\n")
    assert merge_update(doc, update, "useUsers.js").merged == doc.replace(
        "    const data = await fetchUsers({ page: page.value, perPage, search: search.value })\n",
        "    const data = await fetchUsers({\n      page: page.value,\n      perPage,\n      search: search.value,\n"
        "      sort: toSortParam(sort.value),\n    })\n")


def test_a_one_line_tag_written_a_prop_a_line_between_two_markers_takes_its_place():
    """A one-line ``<UserTable ... />`` shown a prop a line (given ``:sort`` and ``@sort``) between a marker for
    what is above it and one for the pager below it: it goes in the old tag's place, not below the pager with
    the old tag kept."""
    doc = ("<template>\n  <section>\n    <h1>Users</h1>\n    <p v-if=\"error\">{{ error }}</p>\n\n"
           "    <UserTable :users=\"users\" :loading=\"loading\" @select=\"openUser\" />\n\n"
           "    <nav class=\"pager\">\n      <button @click=\"page--\">Previous</button>\n    </nav>\n"
           "  </section>\n</template>\n")
    tag = ("    <UserTable\n      :users=\"users\"\n      :loading=\"loading\"\n      :sort=\"sort\"\n"
           "      @select=\"openUser\"\n      @sort=\"setSort\"\n    />\n")
    update = ("<template>\n  <section>\n    <!-- ... header and error message unchanged ... -->\n\n" + tag +
              "\n    <!-- ... pager unchanged ... -->\n  </section>\n</template>\n")
    assert merge_update(doc, update, "UsersView.vue").merged == doc.replace(
        "    <UserTable :users=\"users\" :loading=\"loading\" @select=\"openUser\" />\n", tag)


def test_a_one_line_equation_given_a_body_of_lines_replaces_the_file_s_line():
    """A Haskell function shown alone, its signature kept and its one-line equation written over five lines: the
    file's ``listTasks tf = forM_ (taskNames tf) TIO.putStrLn`` goes, not kept below the new ``where``."""
    doc = ("usage :: Taskfile -> IO ()\nusage tf = listTasks tf >> exitFailure\n\n"
           "listTasks :: Taskfile -> IO ()\nlistTasks tf = forM_ (taskNames tf) TIO.putStrLn\n\n"
           "runTask :: Taskfile -> T.Text -> IO ()\nrunTask tf name = mapM_ run (planFor name tf)\n")
    body = ("listTasks tf = forM_ (tfTasks tf) $ \\t ->\n  TIO.putStrLn $ case taskDoc t of\n"
            "    Nothing -> taskName t\n    Just doc -> T.justifyLeft width ' ' (taskName t) <> \"  \" <> doc\n"
            "  where\n    width = maximum (0 : map (T.length . taskName) (tfTasks tf))\n")
    update = "listTasks :: Taskfile -> IO ()\n" + body
    assert merge_update(doc, update, "Main.hs").merged == doc.replace(
        "listTasks tf = forM_ (taskNames tf) TIO.putStrLn\n", body)



def test_a_function_s_new_ending_and_its_brace_replace_the_rest_of_that_function_not_of_the_file():
    """``parse`` split into a loop and ``parse_token``, shown with a marker for the token's middle, then a new
    ending and its ``}`` at the left edge: the old ending (``Ok(Duration::from_secs(value * factor))``) gives way
    and the ``mod tests`` below stays (the brace at column 0 made "the rest of the block" the rest of the file:
    the tests went, reported as unseen)."""
    tests = ("#[cfg(test)]\n"
             "mod tests {\n"
             "    use super::*;\n"
             "\n"
             "    #[test]\n"
             "    fn parses_each_unit() {\n"
             '        assert_eq!(parse("5s").unwrap(), Duration::from_secs(5));\n'
             "    }\n"
             "\n"
             "    #[test]\n"
             "    fn trims_whitespace() {\n"
             '        assert_eq!(parse("  10s ").unwrap(), Duration::from_secs(10));\n'
             "    }\n"
             "}\n")
    doc = ("pub fn parse(input: &str) -> Result<Duration, ParseError> {\n"
           "    let input = input.trim();\n"
           "    if input.is_empty() {\n"
           "        return Err(ParseError::Empty);\n"
           "    }\n"
           "\n"
           "    let split = input\n"
           "        .find(|c: char| !c.is_ascii_digit())\n"
           "        .ok_or_else(|| ParseError::MissingUnit(input.to_string()))?;\n"
           "    let (digits, unit) = input.split_at(split);\n"
           "\n"
           "    if digits.is_empty() {\n"
           "        return Err(ParseError::InvalidNumber(input.to_string()));\n"
           "    }\n"
           "    let value: u64 = digits\n"
           "        .parse()\n"
           "        .map_err(|_| ParseError::InvalidNumber(digits.to_string()))?;\n"
           "\n"
           "    let factor = UNITS\n"
           "        .iter()\n"
           "        .find(|(name, _)| *name == unit)\n"
           "        .map(|(_, secs)| *secs)\n"
           "        .ok_or_else(|| ParseError::UnknownUnit(unit.to_string()))?;\n"
           "\n"
           "    Ok(Duration::from_secs(value * factor))\n"
           "}\n"
           "\n") + tests
    update = ("pub fn parse(input: &str) -> Result<Duration, ParseError> {\n"
              "    let input = input.trim();\n"
              "    if input.is_empty() {\n"
              "        return Err(ParseError::Empty);\n"
              "    }\n"
              "\n"
              "    let mut rest = input;\n"
              "    let mut total: u64 = 0;\n"
              "    while !rest.is_empty() {\n"
              "        let token_len = token_len(rest);\n"
              "        let (token, tail) = rest.split_at(token_len);\n"
              "        let secs = parse_token(token)?;\n"
              "        total = total\n"
              "            .checked_add(secs)\n"
              "            .ok_or_else(|| ParseError::Overflow(input.to_string()))?;\n"
              "        rest = tail;\n"
              "    }\n"
              "    Ok(Duration::from_secs(total))\n"
              "}\n"
              "\n"
              "fn parse_token(input: &str) -> Result<u64, ParseError> {\n"
              "    let split = input\n"
              "        .find(|c: char| !c.is_ascii_digit())\n"
              "        .ok_or_else(|| ParseError::MissingUnit(input.to_string()))?;\n"
              "    // ... digits / unit parsing unchanged ...\n"
              "        .ok_or_else(|| ParseError::UnknownUnit(unit.to_string()))?;\n"
              "\n"
              "    value\n"
              "        .checked_mul(factor)\n"
              "        .ok_or_else(|| ParseError::Overflow(input.to_string()))\n"
              "}\n")
    merged = merge_update(doc, update, "lib.rs").merged
    assert merged.endswith("}\n\n" + tests)
    assert "from_secs(value * factor)" not in merged and merged.count(".checked_mul(factor)") == 1
    assert "    let (digits, unit) = input.split_at(split);\n" in merged


def test_new_tests_said_to_go_after_the_test_of_a_function_follow_the_test_its_title_starts_with():
    """"after the `list_users/0` test": the one test whose title starts with that function (``test "list_users/0
    returns all users" do``), not refused for want of a definition of that name."""
    doc = ('defmodule Helpdesk.AccountsTest do\n  use Helpdesk.DataCase\n\n  describe "users" do\n'
           '    test "list_users/0 returns all users" do\n      user = user_fixture()\n'
           '      assert Accounts.list_users() == [user]\n    end\n\n'
           '    test "get_user!/1 returns the user with given id" do\n      user = user_fixture()\n'
           '      assert Accounts.get_user!(user.id) == user\n    end\n  end\nend\n')
    new = ('    test "search_users/1 matches the name" do\n      alice = user_fixture(name: "Alice")\n'
           '      assert Accounts.search_users("ali") == [alice]\n    end\n')
    merged = merge_update(doc, new, "accounts_test.exs", after="list_users").merged
    assert merged == doc.replace("[user]\n    end\n\n", "[user]\n    end\n\n" + new + "\n", 1)


def test_new_dependencies_said_to_go_after_one_go_after_the_element_its_artifact_names_at_its_depth():
    """Two ``<dependency>`` elements shown at the left edge, "right after `spring-boot-starter-validation`": after
    the ``<dependency>`` whose ``<artifactId>`` that is, indented as the file's (they shared no line with it and
    were refused)."""
    dep = ("        <dependency>\n            <groupId>org.springframework.boot</groupId>\n"
           "            <artifactId>spring-boot-starter-{}</artifactId>\n        </dependency>\n")
    doc = ("<project>\n    <dependencies>\n" + dep.format("web") + dep.format("validation") + dep.format("actuator") +
           "    </dependencies>\n</project>\n")
    update = ("<dependency>\n    <groupId>org.springframework.boot</groupId>\n"
              "    <artifactId>spring-boot-starter-cache</artifactId>\n</dependency>\n")
    merged = merge_update(doc, update, "pom.xml", after="spring-boot-starter-validation").merged
    assert merged == doc.replace(dep.format("validation"), dep.format("validation") + dep.format("cache"))


def test_a_plist_entry_said_to_go_after_a_key_follows_that_key_s_value():
    """``<key>UIBackgroundModes</key>`` and its ``<array>`` "after `NSLocationWhenInUseUsageDescription`": below
    that key's value, not between the key and its value, with the file's tabs."""
    doc = ("<plist version=\"1.0\">\n<dict>\n\t<key>NSLocationWhenInUseUsageDescription</key>\n"
           "\t<string>Tracks your runs.</string>\n\t<key>UILaunchScreen</key>\n\t<dict/>\n</dict>\n</plist>\n")
    update = "<key>UIBackgroundModes</key>\n<array>\n    <string>location</string>\n</array>\n"
    merged = merge_update(doc, update, "Info.plist", after="NSLocationWhenInUseUsageDescription").merged
    assert merged == doc.replace("runs.</string>\n", "runs.</string>\n\t<key>UIBackgroundModes</key>\n\t<array>\n"
                                 "\t\t<string>location</string>\n\t</array>\n")


def test_an_import_given_more_names_then_new_code_for_the_file_s_end_rewrites_the_file_s_import():
    """``use std::fmt::{self, Write};`` (the file has ``use std::fmt;``), a marker, then a new function "at the end
    of the file": the import is widened in place and the function goes at the end (the update repeated no line
    of the file and was refused); the same for ``from app.db import get_db, Session``."""
    doc = ("use std::fmt;\n\nuse serde::Serialize;\n\npub struct Todo {\n    pub title: String,\n}\n")
    update = ("use std::fmt::{self, Write};\n\n// ...existing code...\n\npub fn to_markdown(todo: &Todo) -> String {\n"
              "    let mut out = String::new();\n    let _ = write!(out, \"- {}\", todo.title);\n    out\n}\n")
    merged = merge_update(doc, update, "todo.rs", after="").merged
    assert merged == doc.replace("use std::fmt;", "use std::fmt::{self, Write};") + "\n" + update.split("\n\n", 2)[2]
    py = "from app.db import get_db\nimport os\n\n\ndef main():\n    return get_db()\n"
    widened = merge_update(py, "from app.db import get_db, Session\n", "main.py").merged
    assert widened == py.replace("import get_db\n", "import get_db, Session\n")


def test_a_new_handler_for_another_type_is_added_not_read_as_the_next_handler_rewritten():
    """Ktor's ``exception<RequestValidationException> { call, cause ->`` shown after the file's first handler and
    before a marker for the others: a handler of its own, not a rewrite of ``exception<UserNotFoundException>``
    (which went, and the file broke)."""
    handler = "        exception<{}> {{ call, cause ->\n            call.respond(HttpStatusCode.{})\n        }}\n"
    doc = ("fun Application.configureStatusPages() {\n    install(StatusPages) {\n" +
           handler.format("BadRequestException", "BadRequest") + handler.format("UserNotFoundException", "NotFound") +
           "    }\n}\n")
    new = ("        exception<RequestValidationException> { call, cause ->\n            call.respond(\n"
           "                HttpStatusCode.UnprocessableEntity,\n            )\n        }\n")
    update = ("fun Application.configureStatusPages() {\n    install(StatusPages) {\n" +
              handler.format("BadRequestException", "BadRequest") + new +
              "        // ... other handlers unchanged ...\n    }\n}\n")
    merged = merge_update(doc, update, "StatusPages.kt").merged
    assert merged == doc.replace(handler.format("UserNotFoundException", "NotFound"),
                                 new + handler.format("UserNotFoundException", "NotFound"))


def test_a_one_line_lambda_argument_written_over_lines_replaces_the_file_s():
    """Compose's ``topBar = { TopAppBar(title = { Text("Notes") }) },`` shown as ``topBar = {`` and a search field
    over eleven lines, right after ``Scaffold(`` and before a marker for the other arguments: the one-line
    argument gives way (it was kept above the new one, and ``topBar`` was passed twice)."""
    doc = ("@Composable\nfun NotesScreen(viewModel: NotesViewModel) {\n    Scaffold(\n"
           "        topBar = { TopAppBar(title = { Text(\"Notes\") }) },\n        floatingActionButton = {\n"
           "            FloatingActionButton(onClick = onCreateNote) { Icon(Icons.Default.Add, null) }\n"
           "        },\n    ) { padding ->\n        NotesList(padding)\n    }\n}\n")
    top = ("        topBar = {\n            TopAppBar(\n                title = {\n"
           "                    OutlinedTextField(value = query, onValueChange = viewModel::onQueryChange)\n"
           "                },\n            )\n        },\n")
    update = "    Scaffold(\n" + top + "        // ... floatingActionButton unchanged\n    ) { padding ->\n"
    merged = merge_update(doc, update, "NotesScreen.kt").merged
    assert merged == doc.replace("        topBar = { TopAppBar(title = { Text(\"Notes\") }) },\n", top)


def test_a_new_clause_of_a_function_goes_after_its_clauses_and_replaces_none():
    """Elixir's ``def handle_in("typing", ...)`` shown alone (with its ``@impl true``) where the file has only
    ``def handle_in("new_message", ...)``: a clause of its own, after the other, not that clause rewritten (the
    merge dropped ``new_message`` unseen)."""
    doc = ('defmodule ChatWeb.RoomChannel do\n  use ChatWeb, :channel\n\n  @impl true\n'
           '  def join("room:" <> id, _params, socket) do\n    {:ok, assign(socket, :room_id, id)}\n  end\n\n'
           '  @impl true\n  def handle_in("new_message", %{"body" => body}, socket) do\n'
           '    broadcast!(socket, "new_message", %{body: body})\n    {:reply, :ok, socket}\n  end\n\n'
           '  defp authorized?(socket), do: socket.assigns.user_id != nil\nend\n')
    clause = ('  @impl true\n  def handle_in("typing", %{"typing" => typing}, socket) when is_boolean(typing) do\n'
              '    broadcast_from!(socket, "typing", %{typing: typing})\n\n    {:noreply, socket}\n  end\n')
    merged = merge_update(doc, clause, "room_channel.ex").merged
    assert merged == doc.replace("    {:reply, :ok, socket}\n  end\n\n", "    {:reply, :ok, socket}\n  end\n\n" +
                                 clause + "\n")


def test_markers_naming_the_tests_they_keep_leave_the_test_between_them_to_its_rewrite():
    """``# ... "with valid data" unchanged ...``, a test whose title grew, ``# ... "rejects prices" unchanged ...``:
    each marker keeps the test it names, and the file's test between them (``"requires a name and a price"``)
    gives way to the new one, not kept beside it."""
    test = '    test "{}" do\n      assert {}\n    end\n'
    doc = ('defmodule Shop.CatalogTest do\n  describe "create_product/1" do\n' + test.format("with valid data", "ok") +
           "\n" + test.format("requires a name and a price", "name") + "\n" + test.format("rejects prices", "price") +
           "  end\nend\n")
    new = test.format("requires a name, sku and price", "sku")
    update = ('  describe "create_product/1" do\n    # ... "with valid data" unchanged ...\n\n' + new +
              '\n    # ... "rejects prices" unchanged ...\n  end\n')
    placement = align_update(doc, update)  # (the line reading: each marker keeps lines 3-5 and 11-13, its test)
    kept = sorted(n for first, last in placement.kept.values() for n in range(first, last + 1))
    assert kept == [3, 4, 5, 11, 12, 13]


def test_a_blank_line_between_two_markers_is_not_written_as_a_new_one():
    """``// ... other includes unchanged ...``, a blank line, ``    // ... push, pop unchanged ...``, then the
    shown ``clear()``: the blank line between the markers sets them apart; it is not added above ``clear()``,
    where the file has its own blank line already."""
    doc = ("#pragma once\n\n#include <cstddef>\n#include <memory>\n\nclass RingBuffer {\npublic:\n"
           "    void push(int v) { data_[size_++] = v; }\n    int pop() { return data_[--size_]; }\n\n"
           "    void clear() noexcept {\n        size_ = 0;\n    }\n\nprivate:\n    int size_ = 0;\n};\n")
    update = ("#include <algorithm>\n#include <cstddef>\n// ... other includes unchanged ...\n\n"
              "    // ... push, pop unchanged ...\n\n    void clear() noexcept {\n        size_ = 0;\n    }\n\n"
              "    void shrink() { size_ = std::min(size_, 1); }\n")
    placement = align_update(doc, update)  # (the line reading, which such an update gets in a longer file)
    assert placement.lines[:6] == [NEW, 3, MARKER, SKIP, MARKER, 10]  # the blank line: neither new nor the file's
    assert merge_update(doc, update, "ring_buffer.hpp").merged.count("\n\n\n") == 0


def test_new_code_said_to_go_above_a_titled_call_goes_above_that_statement_set_apart_as_it_is():
    """"**above** the `Route::resource('invoices', ...)` line": the one call of that callee and title (a PHP
    static call, its ``->only([...])`` on the next line), the new route above it and a blank line between, as the
    file sets its routes apart (it was refused: the new route shares no line with the file)."""
    doc = ("<?php\n\nRoute::middleware(['auth'])->group(function () {\n"
           "    Route::resource('customers', CustomerController::class);\n\n"
           "    Route::resource('invoices', InvoiceController::class)\n        ->only(['index', 'show']);\n});\n")
    route = "    Route::get('/invoices/export', [InvoiceController::class, 'export'])\n        ->name('invoices.export');\n"
    merged = merge_update(doc, route, "web.php", before="Route::resource invoices").merged
    assert merged == doc.replace("    Route::resource('invoices'", route + "\n    Route::resource('invoices'")


def test_a_marker_naming_the_method_it_keeps_keeps_it_whole_and_the_rewritten_one_goes():
    """``// ... decrement() unchanged ...``, a new ``setQuantity`` (its ``_items.remove(product.id);``, ``}`` and
    ``notifyListeners();`` lines are also the ones ``decrement`` ends with), ``// ... remove() and clear()
    unchanged ...``: ``decrement`` stays whole and the old ``setQuantity`` gives way.  (The new lines were placed
    on ``decrement``'s last ones, which went unseen, and the old ``setQuantity`` stayed.)"""
    doc = ("class Cart extends ChangeNotifier {\n  final Map<String, CartItem> _items = {};\n\n"
           "  void decrement(Product product) {\n    final existing = _items[product.id];\n"
           "    if (existing == null) return;\n    if (existing.quantity > 1) {\n      existing.quantity--;\n"
           "    } else {\n      _items.remove(product.id);\n    }\n    notifyListeners();\n  }\n\n"
           "  void setQuantity(Product product, int quantity) {\n    if (quantity <= 0) {\n"
           "      _items.remove(product.id);\n    } else {\n      _items[product.id]!.quantity = quantity;\n    }\n"
           "    notifyListeners();\n  }\n\n  void remove(Product product) {\n    _items.remove(product.id);\n"
           "    notifyListeners();\n  }\n\n  void clear() {\n    _items.clear();\n    notifyListeners();\n  }\n}\n")
    new = ("  int setQuantity(Product product, int quantity) {\n    final clamped = min(quantity, product.limit);\n"
           "    if (clamped <= 0) {\n      _items.remove(product.id);\n    } else {\n"
           "      _items[product.id]!.quantity = clamped;\n    }\n    notifyListeners();\n    return clamped;\n  }\n")
    update = ("  // ... decrement() unchanged ...\n\n" + new + "\n  // ... remove() and clear() unchanged ...\n")
    old = doc[doc.index("  void setQuantity"):doc.index("  void remove")]
    assert merge_update(doc, update, "cart.dart").merged == doc.replace(old, new + "\n")


def test_a_marker_at_the_left_edge_after_a_rewritten_case_leaves_the_old_body_to_its_rewrite():
    """A Scala route ``case ... =>`` shown with a new body, then ``// ... existing code ...`` at the left edge:
    the marker stands for what follows the case (its head opens no bracket, so its body ends where the
    indentation comes back), and the old body goes (it stayed below the new one)."""
    doc = ("final class Routes(repo: Repo) {\n  val routes = HttpRoutes.of[IO] {\n"
           "    case GET -> Root / \"books\" =>\n      repo.list.flatMap(books => Ok(books.asJson))\n\n"
           "    case req @ POST -> Root / \"books\" =>\n      for {\n        input <- req.as[NewBook]\n"
           "        created <- repo.create(input)\n        response <- Created(created.asJson)\n"
           "      } yield response\n\n    case DELETE -> Root / \"books\" / LongVar(id) =>\n"
           "      repo.delete(id).flatMap(_ => NoContent())\n  }\n}\n")
    new = ("    case req @ POST -> Root / \"books\" =>\n      req.as[NewBook].flatMap { input =>\n"
           "        Isbn.normalize(input.isbn) match {\n          case Left(error) => BadRequest(error.asJson)\n"
           "          case Right(isbn) => repo.create(input.copy(isbn = isbn)).flatMap(Created(_))\n"
           "        }\n      }\n")
    update = "// ... existing code ...\n\n" + new + "\n// ... existing code ...\n"
    old = doc[doc.index("    case req @ POST"):doc.index("\n    case DELETE")]
    assert merge_update(doc, update, "Routes.scala").merged == doc.replace(old, new)


def test_a_marker_inside_a_branch_the_update_then_leaves_keeps_that_branch_whole():
    """``} else if (cmd == "GET") {``, ``// ... unchanged ...`` indented into it, then a new ``TTL`` branch:
    the marker keeps the whole ``GET`` branch, so the new branch's ``const key = ...`` and ``}`` lines are not
    placed on the ``GET`` branch's (which went, unseen)."""
    doc = ("fn handle(cmd: []const u8, it: anytype, out: anytype) !void {\n"
           "    if (eql(cmd, \"SET\")) {\n        const key = it.next() orelse return usage(out);\n"
           "        try store.put(key);\n    } else if (eql(cmd, \"GET\")) {\n"
           "        const key = it.next() orelse return usage(out);\n        if (store.get(key)) |value| {\n"
           "            try out.print(\"{s}\\n\", .{value});\n        } else {\n"
           "            try out.writeAll(\"(nil)\\n\");\n        }\n    } else if (eql(cmd, \"DEL\")) {\n"
           "        const key = it.next() orelse return usage(out);\n        store.remove(key);\n    }\n}\n")
    ttl = ("    } else if (eql(cmd, \"TTL\")) {\n        const key = it.next() orelse return usage(out);\n"
           "        if (store.ttl(key)) |ms| {\n            try out.print(\"{d}\\n\", .{ms});\n        } else {\n"
           "            try out.writeAll(\"-2\\n\");\n        }\n")
    update = ("    } else if (eql(cmd, \"GET\")) {\n        // ... unchanged ...\n" + ttl +
              "    } else if (eql(cmd, \"DEL\")) {\n        // ... unchanged ...\n")
    assert merge_update(doc, update, "main.zig").merged == doc.replace("    } else if (eql(cmd, \"DEL\"))",
                                                                         ttl + "    } else if (eql(cmd, \"DEL\"))")


def test_a_new_lisp_function_shaped_like_another_is_added_not_written_over_it():
    """Clojure's ``(defn link-stats [ds]`` defines a name the file does not have: placed after ``redirect`` as
    said, it is new code, not a rewrite of ``delete-link`` whose lines it resembles (which went)."""
    doc = ("(ns a)\n\n(defn redirect [ds]\n  (fn [x]\n    (foo x)))\n\n(defn delete-link [ds]\n  (fn [x]\n"
           "    (bar x)))\n\n(defn app [ds]\n  (baz ds))\n")
    new = "(defn link-stats [ds]\n  (fn [x]\n    (qux x)))\n"
    merged = merge_update(doc, new, "handler.clj", after="redirect").merged
    assert merged == doc.replace("(defn delete-link", new + "\n(defn delete-link")


def test_an_import_the_update_leaves_off_the_top_of_the_imports_goes_when_nothing_uses_it():
    """The update starts with the file's imports less ``import shutil``, then rewrites the one function that used
    ``shutil``: the import goes too (it stayed, unused) and is named as removed unseen.  One still used, a
    ``from __future__`` import, and a Kotlin import whose last name the file uses, stay."""
    doc = ("import shutil\nimport uuid\nfrom pathlib import Path\n\n\ndef save(src, dest: Path) -> str:\n"
           "    with dest.open(\"wb\") as out:\n        shutil.copyfileobj(src, out)\n    return uuid.uuid4().hex\n")
    update = ("import uuid\nfrom pathlib import Path\n\n\ndef save(src, dest: Path) -> str:\n"
              "    dest.write_bytes(src.read())\n    return uuid.uuid4().hex\n")
    merge = merge_update(doc, update, "uploads.py")
    assert merge.merged == update and merge.unseen == ((1, 1),)
    used = doc + "\n\ndef clean(d):\n    shutil.rmtree(d)\n"
    assert merge_update(used, update + "\n\n# ... clean() unchanged ...\n", "uploads.py").merged == \
        "import shutil\n" + update + "\n\ndef clean(d):\n    shutil.rmtree(d)\n"
    future = "from __future__ import annotations\n\n" + doc[len("import shutil\n"):]
    assert merge_update(future, update, "uploads.py").merged.startswith("from __future__ import annotations\n")
    kotlin = ("package a\n\nimport io.ktor.client.request.get\nimport io.ktor.client.request.post\n\n"
              "class T {\n    fun a() = client.get(\"/\")\n    fun b() = client.post(\"/\")\n}\n")
    merged = merge_update(kotlin, "import io.ktor.client.request.post\n\n// ...\n    fun b() = client.post(\"/x\")\n}\n",
                          "T.kt").merged
    assert "import io.ktor.client.request.get\n" in merged


def test_entries_after_a_placed_entry_rewrite_the_file_s_entries_of_their_keys():
    """``title:`` (the file's), then ``subtitle:`` and ``trailing: Row(`` over several lines, nothing after: the
    file's own ``subtitle:`` and ``trailing: Text(...)`` with its lines and its ``),`` are rewritten, not kept
    below the new ones."""
    doc = ("Widget build(BuildContext context) {\n  return Card(\n    child: ListTile(\n"
           "      leading: Icon(Icons.shopping_cart),\n      title: Text(item.name),\n"
           "      subtitle: Text('${item.quantity} x ${item.price}'),\n      trailing: Text(\n"
           "        formatMoney(item.total),\n        style: theme.textTheme.titleMedium,\n      ),\n"
           "      onTap: () => open(item),\n    ),\n  );\n}\n")
    update = ("      title: Text(item.name),\n      subtitle: Text(formatMoney(item.price)),\n      trailing: Row(\n"
              "        children: [\n          Stepper(quantity: item.quantity),\n          Text(formatMoney(item.total)),\n"
              "        ],\n      ),\n")
    old = doc[doc.index("      subtitle:"):doc.index("      onTap:")]
    assert merge_update(doc, update, "cart_item_tile.dart").merged == doc.replace(old, update[update.index("      subtitle"):])


def test_a_new_field_after_a_shown_one_is_added_not_written_over_the_next():
    """``field :name``, a new ``field :slug``, then ``# ... other fields unchanged ...``: the slug is a field added
    beside ``field :description`` (another entry, by its symbol), which stays; ``field :name`` is not an entry
    keyed ``field``."""
    doc = ("defmodule Club do\n  use Ecto.Schema\n\n  schema \"clubs\" do\n    field :name, :string\n"
           "    field :description, :string\n    field :visibility, :string\n    timestamps()\n  end\n\n"
           "  def changeset(club, attrs) do\n    cast(club, attrs, [:name])\n  end\nend\n")
    update = ("  schema \"clubs\" do\n    field :name, :string\n    field :slug, :string\n"
              "    # ... other fields and associations unchanged ...\n  end\n")
    placement = align_update(doc, update)  # (the line reading, which such an update gets in a longer file)
    assert placement.lines[:4] == [4, 5, NEW, MARKER] and not placement.replaced


def test_new_definitions_shown_one_right_below_the_other_stay_so():
    """Go's one-line ``Error()`` and ``Unwrap()`` shown one below the other, new at the file's end or after a
    marker: no blank line is put between them (each new definition was set off as the file sets off its own)."""
    doc = ("package worker\n\nimport \"errors\"\n\n// Run runs.\nfunc Run() error {\n\treturn errors.New(\"x\")\n}\n\n"
           "// Stop stops.\nfunc Stop() error {\n\treturn nil\n}\n")
    new = ("type permanentError struct{ err error }\n\nfunc (e permanentError) Error() string { return e.err.Error() }\n"
           "func (e permanentError) Unwrap() error { return e.err }\n\n// Permanent wraps err.\n"
           "func Permanent(err error) error {\n\treturn permanentError{err: err}\n}\n")
    assert merge_update(doc, new, "worker.go", after="").merged == doc + "\n" + new
    assert merge_update(doc, "// ... existing code ...\n\n" + new, "worker.go").merged == doc + "\n" + new


def test_methods_shown_whole_with_their_parameters_a_line_replace_the_file_s():
    """Two methods pasted alone, the first with black's signature over three lines (``) -> list[Entry]:`` at the
    method's depth): each replaces the file's of its name, although lines of the old bodies come again in the
    new ones (the old head and first line stayed above the new method, the old second method below)."""
    doc = ("class Store:\n    def add(self, e):\n        self.rows.append(e)\n\n"
           "    def entries(self, project: str | None = None) -> list[Entry]:\n"
           "        query = \"SELECT * FROM entries\"\n        params: list[str] = []\n        if project:\n"
           "            query += \" WHERE project = ?\"\n            params.append(project)\n"
           "        return [self._to_entry(row) for row in self.conn.execute(query, params)]\n\n"
           "    def totals(self) -> dict[str, int]:\n        rows = self.conn.execute(\"SELECT project FROM entries\")\n"
           "        return {row[\"project\"]: 1 for row in rows}\n\n    @staticmethod\n    def _to_entry(row):\n"
           "        return Entry(**row)\n")
    new = ("    def entries(\n        self, project: str | None = None, since: datetime | None = None\n"
           "    ) -> list[Entry]:\n        clauses: list[str] = []\n        params: list[str] = []\n        if project:\n"
           "            clauses.append(\"project = ?\")\n            params.append(project)\n"
           "        query = \"SELECT * FROM entries\"\n        if clauses:\n"
           "            query += \" WHERE \" + \" AND \".join(clauses)\n"
           "        return [self._to_entry(row) for row in self.conn.execute(query, params)]\n\n"
           "    def totals(self, since: datetime | None = None) -> dict[str, int]:\n"
           "        query = \"SELECT project FROM entries\"\n        params: list[str] = []\n"
           "        return {row[\"project\"]: 1 for row in self.conn.execute(query, params)}\n")
    start, end = doc.index("    def entries"), doc.index("    @staticmethod")
    assert merge_update(doc, new, "store.py").merged == doc[:start] + new + "\n" + doc[end:]


def test_a_closing_line_below_a_marker_closes_the_block_its_head_and_lone_brace_open():
    """``modelBuilder.Entity<Order>(entity =>``, its ``{`` alone below, two new lines, ``// ... HasMany(o =>
    o.Lines) unchanged ...`` and ``});``: the ``});`` is that block's (it was refused as fitting two blocks'
    ends), and the ``HasMany`` line the marker quotes is kept, not rewritten by the new lines like it."""
    doc = ("class AppDbContext : DbContext\n{\n    protected override void OnModelCreating(ModelBuilder modelBuilder)\n"
           "    {\n        modelBuilder.Entity<Order>(entity =>\n        {\n"
           "            entity.Property(o => o.Total).HasPrecision(12, 2);\n            entity.HasIndex(o => o.Email);\n"
           "            entity.HasMany(o => o.Lines)\n                .WithOne()\n                .HasForeignKey(l => l.OrderId);\n"
           "        });\n\n        modelBuilder.Entity<OrderLine>(entity =>\n        {\n"
           "            entity.Property(l => l.Sku).HasMaxLength(32);\n        });\n    }\n}\n")
    new = "            entity.HasIndex(o => o.DeletedAt);\n            entity.HasQueryFilter(o => o.DeletedAt == null);\n"
    update = ("        modelBuilder.Entity<Order>(entity =>\n        {\n"
              "            entity.Property(o => o.Total).HasPrecision(12, 2);\n            entity.HasIndex(o => o.Email);\n" +
              new + "            // ... HasMany(o => o.Lines) unchanged ...\n        });\n")
    assert merge_update(doc, update, "AppDbContext.cs").merged == doc.replace(
        "            entity.HasMany(o => o.Lines)\n", new + "            entity.HasMany(o => o.Lines)\n")


def test_jsx_closing_lines_below_a_props_marker_are_the_element_s_own():
    """``<TodoItem``, ``key={todo.id}``, ``// ... existing props ...``, then ``/>`` and ``))}`` above the file's
    ``</ul>``: they are the file's closing lines of that element and that map, not new ones written again below
    the props the marker keeps (the file would not parse)."""
    doc = ("export function TodoList({ todos }: Props) {\n  return (\n    <section>\n      <ul>\n"
           "        {todos.map((todo) => (\n          <TodoItem\n            key={todo.id}\n            todo={todo}\n"
           "            onToggle={() => onToggle(todo.id)}\n          />\n        ))}\n      </ul>\n"
           "      <TodoFooter remaining={remaining} />\n    </section>\n  );\n}\n")
    update = ("      <ul>\n        {visibleTodos.map((todo) => (\n          <TodoItem\n            key={todo.id}\n"
              "            // ... existing props ...\n          />\n        ))}\n      </ul>\n"
              "      {visibleTodos.length === 0 && <p>No todos.</p>}\n")
    assert merge_update(doc, update, "TodoList.tsx").merged == doc.replace("{todos.map", "{visibleTodos.map").replace(
        "      </ul>\n", "      </ul>\n      {visibleTodos.length === 0 && <p>No todos.</p>}\n")


def test_a_line_shown_wrapped_after_its_context_rewrites_the_file_s():
    """``# In-memory cache for stock lookups``, then ``{Inventory.Cache, Application.get_env(...)},``: the
    file's ``Inventory.Cache,`` below that comment, given its options, is rewritten (it stayed below the new
    line)."""
    doc = ("  def start(_type, _args) do\n    children = [\n      Inventory.Repo,\n"
           "      # In-memory cache for stock lookups\n      Inventory.Cache,\n      InventoryWeb.Endpoint\n    ]\n\n"
           "    Supervisor.start_link(children, strategy: :one_for_one)\n  end\n")
    wrapped = "      {Inventory.Cache, Application.get_env(:inventory, Inventory.Cache, [])},\n"
    update = "      # In-memory cache for stock lookups\n" + wrapped
    assert merge_update(doc, update, "application.ex").merged == doc.replace("      Inventory.Cache,\n", wrapped)


def test_a_callback_declared_with_another_call_and_symbol_is_rewritten_not_added():
    """``after_create :send_welcome_email`` shown as ``after_create_commit :enqueue_welcome_email`` above a marker
    and the rewritten private method: the callback line is rewritten (another symbol to the same call would be
    another entry, ``field :slug`` beside ``field :name``; another call is the line changed)."""
    doc = ("class User < ApplicationRecord\n  has_secure_password\n\n  validates :name, presence: true\n\n"
           "  after_create :send_welcome_email\n\n  def first_name\n    name.split.first\n  end\n\n  private\n\n"
           "  def send_welcome_email\n    UserMailer.welcome(self).deliver_now\n  end\nend\n")
    update = ("  after_create_commit :enqueue_welcome_email\n\n  # ...\n\n  private\n\n  def enqueue_welcome_email\n"
              "    WelcomeEmailJob.perform_later(self)\n  end\nend\n")
    assert merge_update(doc, update, "user.rb").merged == doc.replace(
        "after_create :send_welcome_email", "after_create_commit :enqueue_welcome_email").replace(
        "  def send_welcome_email\n    UserMailer.welcome(self).deliver_now\n",
        "  def enqueue_welcome_email\n    WelcomeEmailJob.perform_later(self)\n")


def test_a_go_import_group_shown_alone_rewrites_the_file_s_import():
    """"change the import to:" and ``import ( "testing" "time" )`` for a file with ``import "testing"``: the
    file's import is rewritten (the group went to the file's end and the old line stayed), and so is a group
    given one more package."""
    doc = "package cache\n\nimport \"testing\"\n\nfunc TestGet(t *testing.T) {\n\tt.Log(1)\n}\n"
    group = "import (\n\t\"testing\"\n\t\"time\"\n)\n"
    assert merge_update(doc, group, "lru_test.go").merged == doc.replace("import \"testing\"\n", group)
    grouped = doc.replace("import \"testing\"\n", "import (\n\t\"fmt\"\n\t\"testing\"\n)\n")
    assert merge_update(grouped, "import (\n\t\"fmt\"\n\t\"testing\"\n\t\"time\"\n)\n", "lru_test.go").merged == \
        grouped.replace("\t\"testing\"\n)", "\t\"testing\"\n\t\"time\"\n)")


def test_a_route_of_another_path_after_a_shown_one_is_added_not_written_over_the_next():
    """``Route::resource(...)`` shown, then a new ``Route::post('/posts/{post}/publish', ...)``: another path is
    another route, added; the file's ``/posts/{post}/comments`` route below stays (it was read as rewritten)."""
    doc = ("<?php\n\nRoute::middleware('auth')->group(function () {\n"
           "    Route::resource('posts', PostController::class)->except(['index', 'show']);\n"
           "    Route::post('/posts/{post}/comments', [CommentController::class, 'store'])->name('comments.store');\n"
           "});\n")
    new = "    Route::post('/posts/{post}/publish', [PostController::class, 'publish'])->name('posts.publish');\n"
    update = "    Route::resource('posts', PostController::class)->except(['index', 'show']);\n" + new
    assert merge_update(doc, update, "web.php").merged == doc.replace("    Route::post('/posts/{post}/comments'",
                                                                      new + "    Route::post('/posts/{post}/comments'")


def test_members_below_the_package_and_imports_merge_into_the_class_the_update_does_not_show():
    """``package``, the file's imports with new ones, ``// ...existing code...``, then the class's members (its
    declaration not shown, one body a marker) and its closing brace: the imports merge with the file's, the
    members with theirs; read whole, the members were placed on the wrong lines and the merge was refused."""
    doc = ("package com.example.book;\n\nimport java.util.List;\n\nimport org.springframework.http.ResponseEntity;\n"
           "import org.springframework.web.bind.annotation.GetMapping;\n"
           "import org.springframework.web.bind.annotation.PostMapping;\n\n@RestController\n"
           "public class BookController {\n\n    private final BookService books;\n\n"
           "    public record CreateBookRequest(String title, String isbn) {\n    }\n\n    @GetMapping\n"
           "    public List<Book> list() {\n        return books.findAll();\n    }\n\n    @GetMapping(\"/{id}\")\n"
           "    public ResponseEntity<Book> get(@PathVariable long id) {\n        Book book = books.findById(id);\n"
           "        if (book == null) {\n            return ResponseEntity.ok().build();\n        }\n"
           "        return ResponseEntity.ok(book);\n    }\n\n    @PostMapping\n"
           "    public ResponseEntity<Book> create(@RequestBody CreateBookRequest request) {\n"
           "        Book created = books.create(request.title(), request.isbn());\n"
           "        return ResponseEntity.ok(created);\n    }\n}\n")
    update = ("package com.example.book;\n\nimport java.util.List;\n\nimport jakarta.validation.Valid;\n"
              "import jakarta.validation.constraints.NotBlank;\n\n"
              "import org.springframework.http.ResponseEntity;\n// ...existing code...\n\n"
              "    public record CreateBookRequest(\n            @NotBlank String title,\n"
              "            @NotBlank String isbn) {\n    }\n\n    // ...existing code...\n\n"
              "    @GetMapping(\"/{id}\")\n    public Book get(@PathVariable long id) {\n"
              "        return books.findById(id);\n    }\n\n    @PostMapping\n"
              "    public ResponseEntity<Book> create(@Valid @RequestBody CreateBookRequest request) {\n"
              "        // ...existing code...\n    }\n}\n")
    assert merge_update(doc, update, "BookController.java").merged == doc.replace(
        "import java.util.List;\n\n", "import java.util.List;\n\nimport jakarta.validation.Valid;\n"
        "import jakarta.validation.constraints.NotBlank;\n\n").replace(
        "(String title, String isbn) {", "(\n            @NotBlank String title,\n            @NotBlank String isbn) {"
    ).replace("    public ResponseEntity<Book> get(@PathVariable long id) {\n        Book book = books.findById(id);\n"
              "        if (book == null) {\n            return ResponseEntity.ok().build();\n        }\n"
              "        return ResponseEntity.ok(book);\n",
              "    public Book get(@PathVariable long id) {\n        return books.findById(id);\n").replace(
        "create(@RequestBody", "create(@Valid @RequestBody")


def test_new_code_said_to_go_at_the_end_whose_only_file_lines_are_docstring_quotes_is_appended():
    """"Append to the end of `quantiles.jl`:" and new documented functions: their ``\"\"\"`` lines are the file's
    too, so the update was neither new code alone nor placed by its lines, and it was refused."""
    doc = ('"""\n    iqr(v)\n\nInterquartile range.\n"""\nfunction iqr(v)\n    return quantile(v, 0.75) - '
           'quantile(v, 0.25)\nend\n')
    update = ('"""\n    weighted_median(x, w)\n\nThe weighted median.\n"""\n'
              'weighted_median(x, w) = weighted_quantile(x, w, 0.5)\n')
    assert merge_update(doc, update, "quantiles.jl", after="").merged == doc + "\n" + update


def test_context_lines_above_new_lines_are_not_written_twice():
    """``in`` and ``{`` shown above a new ``imports`` list, then the file's ``options`` line: the two are the
    file's lines above it, not new ones written a second time."""
    doc = ("{ config, lib, ... }:\n\nlet\n  cfg = config.services.pastebin;\nin\n{\n"
           "  options.services.pastebin = {\n    enable = lib.mkEnableOption \"pastebin\";\n  };\n}\n")
    update = ("in\n{\n  imports = [\n    (lib.mkRemovedOptionModule [ \"services\" \"pastebin\" \"listenAddress\" ] \"gone\")\n"
              "  ];\n\n  options.services.pastebin = {\n")
    assert merge_update(doc, update, "module.nix").merged == doc.replace(
        "in\n{\n", "in\n{\n  imports = [\n    (lib.mkRemovedOptionModule [ \"services\" \"pastebin\" \"listenAddress\" ] "
        "\"gone\")\n  ];\n\n")


def test_a_line_that_only_gains_a_trailing_comma_places_the_new_field_below_it():
    """``userAgent: String = "acme-fetch/1.0",`` then a new field and the case class's ``)``: the file's line
    without the comma is the one rewritten (no line of the update was the file's, and it was refused)."""
    doc = ("final case class FetchConfig(\n    baseUrl: String,\n    userAgent: String = \"acme-fetch/1.0\"\n)\n\n"
           "object FetchConfig {\n  val default = FetchConfig(\"http://localhost\")\n}\n")
    update = "    userAgent: String = \"acme-fetch/1.0\",\n    retry: RetryPolicy = RetryPolicy.default\n)\n"
    assert merge_update(doc, update, "FetchConfig.scala").merged == doc.replace(
        "\"acme-fetch/1.0\"\n", "\"acme-fetch/1.0\",\n    retry: RetryPolicy = RetryPolicy.default\n")


def test_a_scala_companion_object_is_not_its_class_rewritten():
    """``object HttpFetcher { ... }`` "at the bottom of the file" below ``class HttpFetcher``: a companion, added;
    the class stayed whole (it was replaced by the object, silently)."""
    doc = ("package io.acme\n\nfinal class HttpFetcher(config: FetchConfig) {\n\n"
           "  def get(path: String): Future[String] =\n    client.send(path)\n}\n")
    update = ("object HttpFetcher {\n\n  def isRetryable(e: Throwable): Boolean = e match {\n"
              "    case _: java.io.IOException => true\n    case _ => false\n  }\n}\n")
    assert merge_update(doc, update, "HttpFetcher.scala", after="").merged == doc + "\n" + update


def test_a_method_said_to_go_after_a_dart_getter_goes_below_it_set_apart():
    """"add `copyWith` right after the `isOverdue` getter:" (``bool get isOverdue =>`` over two lines): below
    the getter, a blank line on each side (the getter was no definition by name, and the method was refused)."""
    doc = ("class Task {\n  Task(this.title, this.done);\n\n  final String title;\n  final bool done;\n\n"
           "  bool get isOverdue =>\n      !done && title.isNotEmpty;\n\n  Map<String, dynamic> toJson() => {\n"
           "        'title': title,\n      };\n}\n")
    update = ("  Task copyWith({String? title, bool? done}) {\n    return Task(title ?? this.title, done ?? this.done);\n"
              "  }\n")
    assert merge_update(doc, update, "task.dart", after="isOverdue").merged == doc.replace(
        "title.isNotEmpty;\n\n", "title.isNotEmpty;\n\n" + update + "\n")


def test_a_chained_call_whose_semicolon_moves_to_the_new_last_line_places_it():
    """``.option("-q, --quiet", ...)`` without its ``;`` and a new ``.option(...);`` below: the file's last
    option is the one rewritten (no line was the file's, and it was refused)."""
    doc = ('program\n  .option("-b, --bucket <name>", "target bucket")\n  .option("-q, --quiet", "only the summary");\n\n'
           "async function main(dir, options) {\n  return dir;\n}\n")
    update = '  .option("-q, --quiet", "only the summary")\n  .option("-n, --dry-run", "list only");\n'
    assert merge_update(doc, update, "sync.js").merged == doc.replace(
        '"only the summary");\n', '"only the summary")\n  .option("-n, --dry-run", "list only");\n')


def test_one_dotted_assignment_shown_alone_rewrites_the_file_s_one_line_that_sets_it():
    """"In `init`, change the decoder's date strategy:" and ``decoder.dateDecodingStrategy = .flexibleISO8601``:
    the one file line that sets it is rewritten (it was refused)."""
    doc = ("struct APIClient {\n    init() {\n        let decoder = JSONDecoder()\n"
           "        decoder.dateDecodingStrategy = .iso8601\n        encoder.dateEncodingStrategy = .iso8601\n    }\n}\n")
    update = "        decoder.dateDecodingStrategy = .flexibleISO8601\n"
    assert merge_update(doc, update, "APIClient.swift").merged == doc.replace(
        "decoder.dateDecodingStrategy = .iso8601", "decoder.dateDecodingStrategy = .flexibleISO8601")


def test_a_method_said_to_go_below_a_swift_computed_property_goes_there_set_apart():
    """"add below the `favorites` property:" (``var favorites: [Recipe] {`` with a body): below it, a blank line
    between (it was refused: the property was no definition by name)."""
    doc = ("final class RecipeStore {\n    var recipes: [Recipe] = []\n\n    var favorites: [Recipe] {\n"
           "        recipes.filter(\\.isFavorite)\n    }\n}\n")
    update = "    func count() -> Int {\n        recipes.count\n    }\n"
    assert merge_update(doc, update, "RecipeStore.swift", after="favorites").merged == doc.replace(
        "isFavorite)\n    }\n", "isFavorite)\n    }\n\n" + update)


def test_a_php_property_shown_above_the_constructor_it_rewrites_goes_above_it():
    """A new ``private readonly Closure $clock;`` (doc comment above it), then the constructor and ``verify``
    rewritten, pasted alone: the property goes above the constructor, which is replaced whole (the old head
    stayed above the new one and the merge was refused)."""
    doc = ("<?php\n\nfinal class Verifier\n{\n    public function __construct(private readonly string $secret)\n    {\n"
           "        $this->check();\n    }\n\n    public function verify(string $payload): bool\n    {\n"
           "        return $payload !== '';\n    }\n}\n")
    update = ("    /** @var Closure(): int */\n    private readonly Closure $clock;\n\n    public function __construct(\n"
              "        private readonly string $secret,\n        ?Closure $clock = null,\n    ) {\n"
              "        $this->check();\n        $this->clock = $clock ?? static fn (): int => time();\n    }\n\n"
              "    public function verify(string $payload): bool\n    {\n        return $payload !== '' && true;\n"
              "    }\n")
    assert merge_update(doc, update, "Verifier.php").merged == "<?php\n\nfinal class Verifier\n{\n" + update + "}\n"


def test_a_method_pasted_after_a_named_one_is_not_the_interface_s_declaration_of_its_name():
    """``Search(...)`` with its body "directly after `GetAll`", in a file whose interface declares ``Search(...);``:
    the class gets the method; the interface's declaration stays (it was replaced by the body)."""
    doc = ("public interface IProductService\n{\n    IReadOnlyList<Product> GetAll();\n"
           "    IReadOnlyList<Product> Search(ProductQuery query);\n}\n\n"
           "public sealed class InMemoryProductService : IProductService\n{\n"
           "    public IReadOnlyList<Product> GetAll() =>\n        _products.Values.ToList();\n\n"
           "    public Product? GetById(int id) => null;\n}\n")
    update = ("    public IReadOnlyList<Product> Search(ProductQuery query)\n    {\n"
              "        return _products.Values.Where(p => p.Name == query.Text).ToList();\n    }\n")
    assert merge_update(doc, update, "ProductService.cs", after="GetAll").merged == doc.replace(
        "ToList();\n\n", "ToList();\n\n" + update + "\n")


def test_a_route_of_another_title_said_to_go_after_a_route_is_added_set_apart():
    """``products.MapGet("/search", ...)`` "right after the existing `products.MapGet("/", ...)` line": a route
    of another path is another route, added after that one with a blank line on each side; the
    ``/{id:int}`` route below stays (it was replaced)."""
    doc = ("var products = app.MapGroup(\"/products\");\n\n"
           "products.MapGet(\"/\", (IProductService service) => Results.Ok(service.GetAll()));\n\n"
           "products.MapGet(\"/{id:int}\", (int id, IProductService service) =>\n"
           "    service.GetById(id) is { } product ? Results.Ok(product) : Results.NotFound());\n\napp.Run();\n")
    update = ("products.MapGet(\"/search\", (string? q, IProductService service) =>\n{\n"
              "    return Results.Ok(service.Search(q));\n});\n")
    assert merge_update(doc, update, "Program.cs", after="products.MapGet /").merged == doc.replace(
        "GetAll()));\n\n", "GetAll()));\n\n" + update + "\n")


CHANGELOG = ("# Changelog\n\n## [Unreleased]\n\n### Changed\n\n- Require Java 17.\n\n## [0.3.0] - 2024-03-18\n\n"
             "### Added\n\n- `CsvReader.readHeader()`.\n\n### Fixed\n\n- Trailing empty fields.\n\n"
             "## [0.2.0] - 2024-01-09\n\n### Added\n\n- `CsvWriter`.\n")


def test_a_changelog_section_said_to_go_under_a_heading_goes_there_not_over_an_older_one():
    """"Under `## [Unreleased]`, add an "Added" section" and ``### Added`` with a new entry: below that heading;
    the older releases' "Added" sections stay (the 0.3.0 one was replaced, silently)."""
    update = "### Added\n\n- Quoted fields (RFC 4180).\n"
    assert merge_update(CHANGELOG, update, "CHANGELOG.md", after="[Unreleased]").merged == CHANGELOG.replace(
        "## [Unreleased]\n\n", "## [Unreleased]\n\n" + update + "\n")


def test_a_changelog_section_the_file_has_several_of_is_not_written_over_one_by_guess():
    """The same ``### Added`` with no place said: none of the file's two "Added" sections shares a line with it,
    so neither is replaced (one was, chosen by likeness alone)."""
    update = "### Added\n\n- Quoted fields (RFC 4180).\n"
    try:
        merged = merge_update(CHANGELOG, update, "CHANGELOG.md").merged
    except UpdateError:
        return
    assert "- `CsvReader.readHeader()`.\n" in merged and "- `CsvWriter`.\n" in merged


def test_a_call_renamed_alone_between_markers_rewrites_the_one_line_like_it():
    """``// ...``, ``s.cache.SetWithTTL(ip, res, s.ttl)``, ``// ...`` inside a handler: the handler's one line
    like it, ``s.cache.Set(ip, res)``, is rewritten (it stayed, and the new line went to the body's end)."""
    doc = ("func (s *server) handle(w http.ResponseWriter, ip string) {\n\tres, ok := s.cache.Get(ip)\n\tif !ok {\n"
           "\t\tres = s.client.Lookup(ip)\n\t\ts.cache.Set(ip, res)\n\t}\n\tjson.NewEncoder(w).Encode(res)\n}\n")
    update = ("func (s *server) handle(w http.ResponseWriter, ip string) {\n\t// ...\n"
              "\t\ts.cache.SetWithTTL(ip, res, s.ttl)\n\t// ...\n}\n")
    assert merge_update(doc, update, "main.go").merged == doc.replace(
        "s.cache.Set(ip, res)", "s.cache.SetWithTTL(ip, res, s.ttl)")


def test_a_new_constant_said_to_go_below_another_goes_there_one_blank_line_between():
    """"Put the symbol table right below `DEFAULT_WIDTH`:" and ``CURRENCY_SYMBOLS = {...}``: below that constant,
    a blank line between (it went to the file's end)."""
    doc = ('from decimal import Decimal\n\nCENTS = Decimal("0.01")\nDEFAULT_WIDTH = 60\n\n\n'
           "def format_amount(value):\n    return str(value)\n")
    update = 'CURRENCY_SYMBOLS = {\n    "USD": "$",\n    "EUR": "€",\n}\n'
    assert merge_update(doc, update, "formatting.py", after="DEFAULT_WIDTH").merged == doc.replace(
        "DEFAULT_WIDTH = 60\n", "DEFAULT_WIDTH = 60\n\n" + update)


def test_new_code_said_to_go_after_a_statement_goes_after_that_line_and_its_block():
    """"placed right after the `after_create_commit` line:" and two class methods: below that line, a blank line
    between (the line defines nothing, and the update was refused)."""
    doc = ("class Notification < ApplicationRecord\n  belongs_to :recipient\n\n  after_create_commit :broadcast_badge\n\n"
           "  def read?\n    read_at.present?\n  end\nend\n")
    update = "  def self.mark_all_as_read!(user)\n    where(recipient: user).update_all(read_at: Time.current)\n  end\n"
    assert merge_update(doc, update, "notification.rb", after="after_create_commit").merged == doc.replace(
        ":broadcast_badge\n", ":broadcast_badge\n\n" + update)


def test_a_statement_said_to_go_after_a_call_follows_it_directly():
    """"register it right after `app.setGlobalPrefix('api');`:" and ``app.useGlobalPipes(...)``: the next
    statement, no blank line between (one was added, as between routes)."""
    doc = ("async function bootstrap() {\n  const app = await NestFactory.create(AppModule);\n"
           "  app.setGlobalPrefix('api');\n\n  await app.listen(3000);\n}\n")
    update = "  app.useGlobalPipes(\n    new ValidationPipe({ whitelist: true }),\n  );\n"
    assert merge_update(doc, update, "main.ts", after="app.setGlobalPrefix api").merged == doc.replace(
        "app.setGlobalPrefix('api');\n", "app.setGlobalPrefix('api');\n" + update)


def test_an_entry_said_to_go_after_one_shown_above_it_is_not_written_twice():
    """"Add `ParseIntPipe` to the import list, after `Param`:" and ``Param,`` then ``ParseIntPipe,``: the first
    is the file's line (it was written a second time)."""
    doc = "import {\n  Body,\n  Controller,\n  Param,\n  Patch,\n} from '@nestjs/common';\n"
    assert merge_update(doc, "  Param,\n  ParseIntPipe,\n", "users.controller.ts", after="Param").merged == \
        doc.replace("  Param,\n", "  Param,\n  ParseIntPipe,\n")


def test_a_field_said_to_go_below_a_typed_field_goes_there():
    """"directly below the `createdAt` field:" and a new annotated field: below ``private Instant createdAt =
    ...;`` (a type between the modifiers and the name hid it, and the field was refused)."""
    doc = ("public class Customer {\n    @Id\n    private Long id;\n\n    @Column(name = \"created_at\")\n"
           "    private Instant createdAt = Instant.now();\n\n    protected Customer() {\n    }\n}\n")
    update = "    @Column(name = \"deleted_at\")\n    private Instant deletedAt;\n"
    assert merge_update(doc, update, "Customer.java", after="createdAt").merged == doc.replace(
        "Instant.now();\n", "Instant.now();\n\n" + update)


def test_a_commented_new_dependency_after_a_shown_one_is_added_not_written_over_the_next():
    """The JPA ``<dependency>`` shown, then ``<!-- Caching -->`` and two new ones: added after it, the comment
    with them; the actuator dependency below stays (its artifact was rewritten to the new one, silently)."""
    deps = ("        <dependency>\n            <groupId>org.springframework.boot</groupId>\n"
            "            <artifactId>spring-boot-starter-{}</artifactId>\n        </dependency>\n")
    doc = ("<project>\n    <dependencies>\n" + deps.format("web") + deps.format("data-jpa") + deps.format("actuator") +
           "    </dependencies>\n</project>\n")
    new = ("        <!-- Caching -->\n" + deps.format("cache") + "        <dependency>\n"
           "            <groupId>com.github.ben-manes.caffeine</groupId>\n            <artifactId>caffeine</artifactId>\n"
           "        </dependency>\n")
    assert merge_update(doc, deps.format("data-jpa") + new, "pom.xml").merged == doc.replace(
        deps.format("data-jpa"), deps.format("data-jpa") + new)


def test_a_setting_appended_to_the_run_of_settings_the_file_ends_with_joins_it():
    """"At the end of the `# --- Shop ---` block:" and one setting, that block the file's last: the setting
    joins the run, no blank line above it (one was added, as between blocks)."""
    doc = "DEBUG = False\n\n# --- Shop ---\nCART_SESSION_KEY = \"cart_id\"\nMAX_CART_ITEMS = 50\n"
    update = "CART_TTL_DAYS = env.int(\"CART_TTL_DAYS\", default=30)\n"
    assert merge_update(doc, update, "settings.py", after="").merged == doc + update


def test_a_json_section_shown_first_in_place_of_the_file_s_first_replaces_it():
    """``{``, a new ``"Serilog"`` section, then the file's ``"AllowedHosts"`` and a marker: the section before
    it goes, ``{`` is the file's own (it was written a second time above the file, which was kept whole)."""
    doc = ('{\n  "Logging": {\n    "LogLevel": {\n      "Default": "Information"\n    }\n  },\n'
           '  "AllowedHosts": "*",\n  "Features": {\n    "EnableBackorders": false\n  }\n}\n')
    update = ('{\n  "Serilog": {\n    "MinimumLevel": {\n      "Default": "Information"\n    }\n  },\n'
              '  "AllowedHosts": "*",\n  // ... rest of the file unchanged\n}\n')
    assert merge_update(doc, update, "appsettings.json").merged == doc.replace('"Logging": {\n    "LogLevel"',
                                                                               '"Serilog": {\n    "MinimumLevel"')


def test_a_rule_said_to_go_after_another_keeps_the_file_s_rules_one_below_the_other():
    """"add these styles after the `.cart__details` rule:" in a stylesheet whose rules have no blank line between
    them: none around the new ones either (a blank line was put on each side)."""
    doc = ("  .cart__item {\n    display: flex;\n  }\n  .cart__details {\n    flex: 1;\n  }\n"
           "  .cart__summary {\n    display: flex;\n  }\n")
    update = "  .cart__qty {\n    display: inline-flex;\n  }\n"
    assert merge_update(doc, update, "cart.css", after=".cart__details").merged == doc.replace(
        "    flex: 1;\n  }\n", "    flex: 1;\n  }\n" + update)


def test_one_call_line_shown_alone_rewrites_the_file_s_line_of_that_call_and_argument():
    """"Narrow the validation:" and ``validates :current_period_end, ... if: ...``: the file's one
    ``validates :current_period_end`` line is rewritten (it stayed, and the new one went to the file's end)."""
    doc = ("class Subscription < ApplicationRecord\n  validates :status, presence: true\n"
           "  validates :current_period_end, presence: true, unless: :trialing?\n\n  def active?\n    true\n  end\nend\n")
    update = "  validates :current_period_end, presence: true, if: -> { active? || past_due? }\n"
    assert merge_update(doc, update, "subscription.rb").merged == doc.replace(
        "  validates :current_period_end, presence: true, unless: :trialing?\n", update)


def test_new_tests_calling_a_function_do_not_rewrite_the_file_s_call_of_it():
    """New tests appended, one of whose lines calls ``compute_total(cart, coupon, now=now)``: the file's
    ``compute_total(cart, coupon)`` line is not theirs to rewrite (it was, silently)."""
    doc = ("def test_minimum(cart):\n    with pytest.raises(CouponError):\n        compute_total(cart, coupon)\n")
    update = ("def test_expired(cart, now):\n    with pytest.raises(CouponError, match=\"expired\"):\n"
              "        compute_total(cart, coupon, now=now)\n")
    assert "        compute_total(cart, coupon)\n" in merge_update(doc, update, "test_pricing.py", after="").merged


def test_new_attributes_shown_one_below_the_other_stay_so_above_the_function_they_precede():
    """``@default_per_page 10`` and ``@max_per_page 50`` shown one right below the other above a rewritten
    function: no blank line between them (each was set off as definitions are)."""
    doc = ("defmodule Blog.Posts do\n  alias Blog.Repo\n\n  @doc \"\"\"\n  Returns all published posts.\n  \"\"\"\n"
           "  def list_published_posts do\n    Repo.all(Post)\n  end\nend\n")
    update = ("  @default_per_page 10\n  @max_per_page 50\n\n  @doc \"\"\"\n  Returns a page of published posts.\n"
              "  \"\"\"\n  def list_published_posts(opts \\\\ []) do\n    Repo.all(Post)\n  end\n")
    assert merge_update(doc, update, "posts.ex").merged == doc.replace(
        "  @doc \"\"\"\n  Returns all published posts.\n  \"\"\"\n  def list_published_posts do\n",
        "  @default_per_page 10\n  @max_per_page 50\n\n  @doc \"\"\"\n  Returns a page of published posts.\n  \"\"\"\n"
        "  def list_published_posts(opts \\\\ []) do\n")


def test_a_method_an_interface_only_declares_is_new_in_the_class_after_the_one_named():
    """``CancelAsync`` "right after `PayAsync`", where the interface above already declares it: a new method
    after ``PayAsync`` (it replaced ``PayAsync``, whose body it resembles, silently)."""
    pay = ("    public async Task<Order> PayAsync(int id)\n    {\n        var order = await GetAsync(id);\n"
           "        order.MarkPaid();\n        await _db.SaveChangesAsync();\n        return order;\n    }\n")
    doc = ("public interface IOrderService\n{\n    Task<Order> PayAsync(int id);\n    Task<Order> CancelAsync(int id);\n"
           "}\n\npublic class OrderService : IOrderService\n{\n" + pay + "}\n")
    update = pay.replace("PayAsync", "CancelAsync").replace("MarkPaid", "Cancel")
    assert merge_update(doc, update, "OrderService.cs", after="PayAsync").merged == doc.replace(
        pay, pay + "\n" + update)


def test_new_members_at_the_end_of_the_block_below_a_rewritten_top_level_function():
    """``// ... existing code ...``, a rewritten ``makeClient``, ``// ... existing code ...``, then new ``it``
    cases and the ``});`` the file ends with, "at the end of the `describe` block": the helper rewritten, the
    cases after the file's last one (one was merged onto a case it resembles, and ``});`` written twice)."""
    case = ("  it(\"wraps fetch failures\", async () => {\n    const client = makeClient(fetchFailing);\n"
            "    await expect(client.get(\"/users\")).rejects.toBeInstanceOf(NetworkError);\n  });\n")
    doc = ("import { it } from \"vitest\";\n\nfunction makeClient(fetchImpl) {\n  return new ApiClient({ fetchImpl });\n}\n\n"
           "describe(\"ApiClient\", () => {\n" + case + "\n  it(\"returns undefined for 204\", async () => {\n"
           "    await expect(makeClient(empty).delete(\"/users/1\")).resolves.toBeUndefined();\n  });\n});\n")
    new = ("  it(\"gives up after three attempts\", async () => {\n    const client = makeClient(fetchFailing);\n"
           "    await expect(client.get(\"/users\")).rejects.toBeInstanceOf(NetworkError);\n"
           "    expect(fetchFailing).toHaveBeenCalledTimes(3);\n  });\n")
    update = ("// ... existing code ...\n\nfunction makeClient(fetchImpl) {\n  return new ApiClient({ fetchImpl, retry: "
              "{ baseDelayMs: 0 } });\n}\n\n// ... existing code ...\n\n" + new + "});\n")
    assert merge_update(doc, update, "client.test.ts", after="").merged == doc.replace(
        "fetchImpl });", "fetchImpl, retry: { baseDelayMs: 0 } });").replace("  });\n});\n", "  });\n\n" + new + "});\n")


def test_a_new_statement_goes_after_the_one_line_naming_the_place_said():
    """"install it after `CallLogging`": right after the one line that names it, ``install(CallLogging)`` (no
    line starts with it, and the update was refused)."""
    doc = ("import io.ktor.server.plugins.callloging.CallLogging\n\nfun Application.module() {\n"
           "    install(ContentNegotiation) {\n        json()\n    }\n    install(CallLogging)\n"
           "    configureRouting()\n}\n")
    assert merge_update(doc, "    install(ConditionalHeaders)\n", "Application.kt", after="CallLogging").merged == \
        doc.replace("    install(CallLogging)\n", "    install(CallLogging)\n    install(ConditionalHeaders)\n")


def test_a_watcher_of_another_subject_is_not_a_rewrite_of_the_file_s():
    """``watch(filter, cb)`` beside the file's ``watch(todos, cb, {...})``: another watcher (the blocks took it for
    the file's, which was lost)."""
    doc = ("export function useTodos() {\n  const filter = ref(\"all\");\n\n"
           "  watch(todos, (value) => save(STORAGE_KEY, value), {\n    deep: true,\n  });\n}\n")
    update = ("export function useTodos() {\n  const filter = ref(\"all\");\n\n"
              "  watch(filter, (value) => save(FILTER_KEY, value));\n\n  // ... existing code ...\n}\n")
    merged = merge_update(doc, update, "useTodos.ts").merged
    assert "  watch(todos, (value) => save(STORAGE_KEY, value), {\n    deep: true,\n  });\n" in merged and \
        "  watch(filter, (value) => save(FILTER_KEY, value));\n" in merged


def test_new_clauses_go_after_the_clause_for_the_literal_named():
    """"Add these clauses after the `"delete"` handler:": below ``def handle_event("delete", ...)``, set off as
    the clauses are (refused: no definition is named ``delete``)."""
    delete = ('  def handle_event("delete", %{"id" => id}, socket) do\n    {:noreply, socket}\n  end\n')
    doc = ('defmodule TodoLive do\n  def handle_event("toggle", %{"id" => id}, socket) do\n    {:noreply, socket}\n'
           '  end\n\n' + delete + '\n  def render(assigns) do\n    ~H""\n  end\nend\n')
    edit = '  def handle_event("edit", %{"id" => id}, socket) do\n    {:noreply, assign(socket, editing: id)}\n  end\n'
    assert merge_update(doc, edit, "todo_live.ex", after="delete").merged == doc.replace(delete, delete + "\n" + edit)


def test_a_new_view_after_a_line_named_by_its_code_is_set_apart_as_the_file_sets_views():
    """"add the new view directly after the `return jsonify(...)` line that ends the listing": below that line,
    two blank lines on each side as between the file's views (it went to the file's end)."""
    doc = ("@bp.get(\"/\")\ndef index():\n    items = Item.query.all()\n    return jsonify(items)\n\n\n"
           "@bp.post(\"/\")\ndef create():\n    return jsonify(item), 201\n")
    view = "@bp.get(\"/low\")\ndef low():\n    return jsonify([])\n"
    assert merge_update(doc, view, "routes.py", after="return jsonify(items)").merged == doc.replace(
        "    return jsonify(items)\n", "    return jsonify(items)\n\n\n" + view)


def test_a_new_import_after_a_quoted_package_goes_in_the_import_block():
    """"Add to the import block, after `"os"`:": the new packages below ``"os"`` (they went to the file's end)."""
    doc = 'package main\n\nimport (\n\t"log"\n\t"os"\n\t"time"\n)\n\nfunc main() {\n\tlog.Println(os.Args, time.Now())\n}\n'
    assert merge_update(doc, '\t"os/signal"\n\t"syscall"\n', "main.go", after="os").merged == doc.replace(
        '\t"os"\n', '\t"os"\n\t"os/signal"\n\t"syscall"\n')


def test_a_new_function_before_a_line_named_is_set_apart_as_the_file_sets_functions():
    """"add the definition just before the `Matrix Matrix::identity(std::size_t n) {` line": the new function,
    then a blank line as between the file's functions (it ran into ``identity``)."""
    doc = ("Matrix Matrix::scale(double k) const {\n    return *this;\n}\n\nMatrix Matrix::identity(std::size_t n) {\n"
           "    return Matrix(n, n);\n}\n")
    new = "Matrix Matrix::transpose() const {\n    return Matrix(cols_, rows_);\n}\n"
    assert merge_update(doc, new, "matrix.cpp", before="Matrix Matrix::identity(std::size_t n) {").merged == \
        doc.replace("Matrix Matrix::identity", new + "\nMatrix Matrix::identity")


def test_a_call_appended_to_a_run_of_such_calls_joins_the_run():
    """Another ``map("n", ...)`` at the end of a keymaps file that ends with a run of them: no blank line above
    it (one was put there)."""
    doc = ('local map = vim.keymap.set\n\nmap("n", "]d", vim.diagnostic.goto_next)\n'
           'map("n", "<leader>e", vim.diagnostic.open_float)\n')
    new = 'map("n", "<leader>dq", vim.diagnostic.setloclist)\n'
    assert merge_update(doc, new, "keymaps.lua", after="").merged == doc + new


def test_a_column_below_the_line_named_is_not_a_rewrite_of_it():
    """"Add the column to `invoices`, just below the `issued_at    TIMESTAMPTZ,` line:" and ``deleted_at
    TIMESTAMPTZ,``: below it (it took the line's place, silently)."""
    doc = ("CREATE TABLE invoices (\n    id           BIGSERIAL PRIMARY KEY,\n    status       TEXT NOT NULL,\n"
           "    issued_at    TIMESTAMPTZ,\n    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()\n);\n")
    assert merge_update(doc, "    deleted_at   TIMESTAMPTZ,\n", "schema.sql", after="issued_at    TIMESTAMPTZ,").merged == \
        doc.replace("    issued_at    TIMESTAMPTZ,\n", "    issued_at    TIMESTAMPTZ,\n    deleted_at   TIMESTAMPTZ,\n")


def test_a_block_statement_after_a_named_line_is_set_apart_as_the_file_sets_it():
    """"add the early return after `entries.truncate(cli.top);`": an ``if`` block, with a blank line above it as
    below it (it ran into the line above)."""
    doc = ("fn main() {\n    entries.truncate(cli.top);\n\n    for e in &entries {\n        println!(\"{}\", e);\n"
           "    }\n}\n")
    new = "    if cli.json {\n        return print_json(&entries);\n    }\n"
    assert merge_update(doc, new, "main.rs", after="entries.truncate(cli.top);").merged == doc.replace(
        "    entries.truncate(cli.top);\n", "    entries.truncate(cli.top);\n\n" + new)


def test_new_members_below_a_marker_naming_associations_and_validations_go_right_after_them():
    """``# ... associations and validations ...``, new scopes and methods, ``# ... rest of the model ...``: the
    new code right after the file's ``belongs_to`` ... ``validates`` lines (it went to the class's end)."""
    doc = ("class Project < ApplicationRecord\n  belongs_to :workspace\n  has_many :tasks\n\n"
           "  validates :name, presence: true\n\n  def duplicate!\n    dup.save!\n  end\nend\n")
    update = ("class Project < ApplicationRecord\n  # ... associations and validations ...\n\n"
              "  scope :active, -> { where(archived_at: nil) }\n\n  def archive!\n    update!(archived_at: Time.current)\n"
              "  end\n\n  # ... rest of the model ...\nend\n")
    assert merge_update(doc, update, "project.rb").merged == doc.replace(
        "presence: true\n\n", "presence: true\n\n  scope :active, -> { where(archived_at: nil) }\n\n"
        "  def archive!\n    update!(archived_at: Time.current)\n  end\n\n")


def test_an_overload_that_calls_the_method_of_its_name_is_added_beside_it():
    """``slugify(String input, int maxLength)`` calling ``slugify(input)``: a new overload beside the file's
    ``slugify(String input)`` (it replaced it, silently)."""
    one = ("    public static String slugify(String input) {\n        return input.toLowerCase();\n    }\n")
    doc = "public final class Slugs {\n    private Slugs() {\n    }\n\n" + one + "}\n"
    two = ("    public static String slugify(String input, int maxLength) {\n        String slug = slugify(input);\n"
           "        return slug.substring(0, Math.min(slug.length(), maxLength));\n    }\n")
    update = "public final class Slugs {\n    // ...existing code...\n\n" + two + "}\n"
    assert merge_update(doc, update, "Slugs.java").merged == doc.replace(one, one + "\n" + two)


def test_a_member_with_a_body_of_one_expression_is_replaced_by_its_block_bodied_rewrite():
    """C#'s ``public void Dispose() => _db.Dispose();`` shown again with a block body at the class's end: the same
    method rewritten (it was read as an interface's declaration of the name, kept, and the method came twice)."""
    doc = ("public class StoreTests : IDisposable\n{\n    private readonly Db _db = new();\n\n    [Fact]\n"
           "    public void Saves()\n    {\n        Assert.True(_db.Save());\n    }\n\n"
           "    public void Dispose() => _db.Dispose();\n}\n")
    update = ("public class StoreTests : IDisposable\n{\n    // ... existing tests ...\n\n"
              "    public void Dispose()\n    {\n        _cache.Dispose();\n        _db.Dispose();\n    }\n}\n")
    assert merge_update(doc, update, "StoreTests.cs").merged == doc.replace(
        "    public void Dispose() => _db.Dispose();\n",
        "    public void Dispose()\n    {\n        _cache.Dispose();\n        _db.Dispose();\n    }\n")


def test_a_definition_skipped_between_shown_ones_that_the_code_still_uses_stays():
    """A snippet shows the struct (a marker for its fields) and the function after the next: the function between
    them, still named by a field's attribute, was elided without a marker, not removed (it went, and the file no
    longer built); one no line uses any more goes, as the snippet shows."""
    doc = ('pub struct Config {\n    pub name: String,\n    #[serde(default = "default_timeout_secs")]\n'
           '    pub timeout_secs: u64,\n}\n\nfn default_timeout_secs() -> u64 {\n    30\n}\n\n'
           'fn default_retries() -> u32 {\n    3\n}\n')
    update = ('pub struct Config {\n    // ... existing fields ...\n    pub timeout_secs: u64,\n    pub verbose: bool,\n}\n\n'
              'fn default_retries() -> u32 {\n    3\n}\n')
    assert merge_update(doc, update, "config.rs").merged == doc.replace(
        "    pub timeout_secs: u64,\n", "    pub timeout_secs: u64,\n    pub verbose: bool,\n")
    unused = doc.replace('    #[serde(default = "default_timeout_secs")]\n', "")
    assert merge_update(unused, update, "config.rs").merged == unused.replace(
        "    pub timeout_secs: u64,\n", "    pub timeout_secs: u64,\n    pub verbose: bool,\n").replace(
        "fn default_timeout_secs() -> u64 {\n    30\n}\n\n", "")


def test_a_field_said_to_go_above_another_goes_above_that_field_s_doc_comment_and_attribute():
    """"above `dry_run`": above the lines that are ``dry_run``'s (its doc comment, its attribute), not between
    them and it; set apart as the file sets its fields."""
    doc = ('struct Cli {\n    /// Path to the config.\n    config: PathBuf,\n\n'
           '    /// Print what would be built without writing files.\n    #[arg(long)]\n    dry_run: bool,\n}\n')
    flag = '    /// Read the config from standard input.\n    #[arg(long, conflicts_with = "config")]\n    stdin: bool,\n'
    assert merge_update(doc, flag, "main.rs", before="dry_run").merged == doc.replace(
        "    /// Print", flag + "\n    /// Print")


def test_a_function_shown_whole_that_ends_in_a_closing_bracket_replaces_the_file_s_whole():
    """A Python function shown whole whose last line is the ``)`` of a new ``return jsonify(``: the file's function
    replaced whole (that ``)`` matched the one closing ``stmt = (`` in the file, the update read as the function's
    top with its rest to keep, and the old ending stayed below the new one)."""
    doc = ('@bp.get("")\ndef listing():\n    stmt = (\n        select(B)\n        .order_by(B.c.desc())\n    )\n'
           '    tag = request.args.get("tag")\n    if tag:\n        stmt = stmt.where(T.name == tag)\n'
           '    rows = db.session.scalars(stmt).all()\n    return jsonify([serialize(r) for r in rows])\n\n\n'
           '@bp.post("")\ndef other():\n    return 1\n')
    update = ('@bp.get("")\ndef listing():\n    stmt = (\n        select(B)\n        .order_by(B.c.desc(), B.id.desc())\n'
              '    )\n    tag = request.args.get("tag")\n    if tag:\n        stmt = stmt.where(T.name == tag)\n'
              '    page = paginate(stmt, request.args)\n    return jsonify(\n        items=page.items,\n    )\n')
    assert merge_update(doc, update, "api.py").merged == update + doc[doc.index("\n\n@bp.post"):]


def test_a_trait_added_to_a_class_s_use_line_rewrites_that_line():
    """PHP's ``use HasFactory, SoftDeletes;`` in a class for ``use HasFactory;``: that line rewritten (read as a
    new import beside it, the old one stayed)."""
    doc = ("<?php\n\nnamespace App\\Models;\n\nuse Illuminate\\Database\\Eloquent\\Model;\n\nclass Post extends Model\n{\n"
           "    use HasFactory;\n\n    protected $fillable = ['title'];\n}\n")
    update = ("use Illuminate\\Database\\Eloquent\\Model;\nuse Illuminate\\Database\\Eloquent\\SoftDeletes;\n\n"
              "class Post extends Model\n{\n    use HasFactory, SoftDeletes;\n\n    // ... rest of the model unchanged ...\n}\n")
    assert merge_update(doc, update, "Post.php").merged == doc.replace(
        "Model;\n\nclass", "Model;\nuse Illuminate\\Database\\Eloquent\\SoftDeletes;\n\nclass").replace(
        "use HasFactory;", "use HasFactory, SoftDeletes;")


def test_a_function_shown_whole_that_ends_on_a_return_of_its_body_replaces_the_file_s_whole():
    """A Python function shown whole whose last line, ``return user``, is also a line in the middle of the file's:
    the file's function replaced whole (read as its top, with the rest to keep, the old ending stayed)."""
    doc = ("def login(name, password):\n    user = find(name)\n    if user and check(user, password):\n"
           "        session['id'] = user['id']\n        return user\n    legacy = legacy_login(name, password)\n"
           "    if legacy:\n        return legacy\n    return None\n\n\ndef logout():\n    session.clear()\n")
    update = ("def login(name, password):\n    user = find(name)\n    if user is None or not check(user, password):\n"
              "        return None\n    session['id'] = user['id']\n    return user\n")
    assert merge_update(doc, update, "auth.py").merged == update + doc[doc.index("\n\ndef logout"):]


def test_a_function_renamed_with_a_head_of_several_lines_replaces_the_file_s_in_place():
    """Rust's ``parse_args`` shown whole as ``parse_options`` with a ``where`` clause, its body nearly the same:
    the file's function rewritten in place, its doc comment kept (the new head went below the old one, and the
    merge was refused as not parsing)."""
    doc = ("use std::path::PathBuf;\n\n/// Reads the command line.\npub fn parse_args(args: &[String]) -> Result<Options, CliError> {\n"
           "    let mut lines = 10;\n    let mut path = None;\n    let mut iter = args.iter();\n"
           "    while let Some(arg) = iter.next() {\n        match arg.as_str() {\n"
           "            \"-n\" => lines = iter.next().unwrap().parse().unwrap(),\n"
           "            other => path = Some(PathBuf::from(other)),\n        }\n    }\n"
           "    Ok(Options { path: path.ok_or(CliError::MissingPath)?, lines })\n}\n\n"
           "pub fn usage() -> &'static str {\n    \"usage\"\n}\n")
    update = ("pub fn parse_options<I>(args: I) -> Result<Options, CliError>\nwhere\n    I: IntoIterator<Item = String>,\n{\n"
              "    let mut lines = 10;\n    let mut path = None;\n    let mut iter = args.into_iter();\n"
              "    while let Some(arg) = iter.next() {\n        match arg.as_str() {\n"
              "            \"-n\" => lines = iter.next().unwrap().parse().unwrap(),\n"
              "            other => path = Some(PathBuf::from(other)),\n        }\n    }\n"
              "    Ok(Options { path: path.ok_or(CliError::MissingPath)?, lines })\n}\n")
    start, end = doc.index("pub fn parse_args"), doc.index("\n\npub fn usage") + 1
    assert merge_update(doc, update, "cli.rs").merged == doc[:start] + update + doc[end:]


def test_a_doc_comment_of_a_property_is_not_put_above_a_new_function_of_its_name():
    """A Swift ``func isRetryable`` shown among rewritten methods, where the file has only an extension's
    documented ``var isRetryable``: no doc comment above the new function (the property's was copied there)."""
    doc = ("enum WeatherError: Error {\n    case httpStatus(Int)\n}\n\nextension WeatherError {\n"
           "    /// Server errors are worth retrying.\n    var isRetryable: Bool {\n        true\n    }\n}\n\n"
           "final class Client {\n    func forecast() async throws -> Data {\n        let (data, response) = try await fetch()\n"
           "        guard response.ok else {\n            throw WeatherError.httpStatus(1)\n        }\n"
           "        return try decode(data)\n    }\n}\n")
    update = ("    func forecast() async throws -> Data {\n        let data = try await retry { try await self.send() }\n"
              "        return try decode(data)\n    }\n\n    private func send() async throws -> Data {\n"
              "        let (data, response) = try await fetch()\n        guard response.ok else {\n"
              "            throw WeatherError.httpStatus(1)\n        }\n        return data\n    }\n\n"
              "    private static func isRetryable(_ error: Error) -> Bool {\n        error is URLError\n    }\n")
    merged = merge_update(doc, update, "Client.swift").merged
    assert merged.count("/// Server errors are worth retrying.") == 1
    assert "    }\n\n    private static func isRetryable" in merged


def test_a_test_renamed_with_the_same_rename_in_its_body_replaces_the_file_s_in_place():
    """A C# test ``CalcTotal_AppliesRegionalTax`` shown as ``CalculateTotal_AppliesRegionalTax``, its call renamed
    the same way and nothing else changed: the file's test rewritten in place (it was added as a new test at the
    end of the class, the old one left)."""
    doc = ("namespace Billing.Tests\n{\n    public class InvoiceServiceTests\n    {\n        [Fact]\n"
           "        public void CalcTotal_AppliesRegionalTax()\n        {\n"
           "            _taxRates.Setup(t => t.GetRate(\"DE\")).Returns(0.19m);\n\n"
           "            var total = CreateService().CalcTotal(SampleInvoice());\n\n            Assert.Equal(46.41m, total);\n"
           "        }\n\n        [Fact]\n        public void Finalize_RejectsNonDraftInvoices()\n        {\n"
           "            var invoice = SampleInvoice();\n            Assert.Throws<InvalidOperationException>(() => Finalize(invoice));\n"
           "        }\n    }\n}\n")
    update = ("        [Fact]\n        public void CalculateTotal_AppliesRegionalTax()\n        {\n"
              "            _taxRates.Setup(t => t.GetRate(\"DE\")).Returns(0.19m);\n\n"
              "            var total = CreateService().CalculateTotal(SampleInvoice());\n\n"
              "            Assert.Equal(46.41m, total);\n        }\n")
    assert merge_update(doc, update, "InvoiceServiceTests.cs").merged == doc.replace("CalcTotal", "CalculateTotal")


def test_two_tests_renamed_together_each_replace_their_own():
    """Two Java tests shown renamed together (``calcInterest...`` to ``calculateMonthlyInterest...``, the calls in
    them too): each rewrites its own in place, the test between them kept (both were written as new tests above
    the file's, the old ones left)."""
    doc = ("class AccountTest {\n\n    @Test\n    void calcInterestIsOneTwelfth() {\n        Account acc = account(\"1200.00\");\n"
           "        assertEquals(new BigDecimal(\"5.00\"), acc.calcInterest());\n    }\n\n    @Test\n    void depositAddsToBalance() {\n"
           "        Account acc = account(\"1.00\");\n        acc.deposit(new BigDecimal(\"1.00\"));\n    }\n\n"
           "    @Test\n    void calcInterestRoundsHalfEven() {\n        Account acc = account(\"100.10\");\n"
           "        assertEquals(new BigDecimal(\"0.25\"), acc.calcInterest());\n    }\n}\n")
    first = doc[doc.index("    @Test\n    void calcInterestIsOne"):doc.index("\n\n    @Test\n    void deposit") + 1]
    second = doc[doc.index("    @Test\n    void calcInterestRounds"):doc.index("}\n}\n") + 2]
    update = (first + "\n" + second).replace("calcInterest", "calculateMonthlyInterest")
    assert merge_update(doc, update, "AccountTest.java").merged == doc.replace("calcInterest", "calculateMonthlyInterest")


def test_new_resources_after_a_named_one_that_share_its_attribute_lines():
    """Terraform resources said to go after ``aws_s3_bucket_public_access_block site``, one of them a public access
    block of its own with the same four ``= true`` lines: after that resource, whole (the lines were read as the
    file's, and its resource lost them)."""
    acls = ("  block_public_acls       = true\n  block_public_policy     = true\n  ignore_public_acls      = true\n"
            "  restrict_public_buckets = true\n}\n")
    doc = ('resource "aws_s3_bucket" "site" {\n  bucket = local.bucket_name\n  tags   = local.tags\n}\n\n'
           'resource "aws_s3_bucket_public_access_block" "site" {\n  bucket                  = aws_s3_bucket.site.id\n'
           + acls + '\nresource "aws_cloudfront_origin_access_control" "site" {\n  name = "${local.bucket_name}-oac"\n}\n')
    update = ('resource "aws_s3_bucket" "logs" {\n  bucket = "${local.bucket_name}-logs"\n  tags   = local.tags\n}\n\n'
              '# CloudFront standard logging writes objects using ACLs.\nresource "aws_s3_bucket_ownership_controls" "logs" {\n'
              '  bucket = aws_s3_bucket.logs.id\n\n  rule {\n    object_ownership = "BucketOwnerPreferred"\n  }\n}\n\n'
              'resource "aws_s3_bucket_public_access_block" "logs" {\n  bucket                  = aws_s3_bucket.logs.id\n'
              + acls + '\nresource "aws_s3_bucket_lifecycle_configuration" "logs" {\n  bucket = aws_s3_bucket.logs.id\n\n'
              '  rule {\n    id     = "expire-access-logs"\n    status = "Enabled"\n  }\n}\n')
    assert merge_update(doc, update, "main.tf", after="aws_s3_bucket_public_access_block site").merged == doc.replace(
        '}\n\nresource "aws_cloudfront', '}\n\n' + update + '\nresource "aws_cloudfront')


def test_a_line_of_the_file_given_a_block_is_replaced_by_it():
    """Rails' ``resource :subscription, only: %i[show update]`` shown again with `` do``, a ``post :cancel`` and
    ``end``: that line becomes the block (the block was added at the file's end, the old line kept)."""
    doc = ('Rails.application.routes.draw do\n  resource :dashboard, only: :show\n  resource :subscription, only: %i[show update]\n'
           '  resources :invoices, only: %i[index show] do\n    member do\n      get :pdf\n    end\n  end\n\n'
           '  get "up" => "rails/health#show"\nend\n')
    update = "  resource :subscription, only: %i[show update] do\n    post :cancel\n  end\n"
    assert merge_update(doc, update, "routes.rb").merged == doc.replace("  resource :subscription, only: %i[show update]\n",
                                                                        update)
