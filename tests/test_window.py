"""Long documents: the prompt shows a window of whole blocks around the selection; edits stay byte-exact."""

import pytest

from cad_lsp.backends.pytorch import LocalModel
from cad_lsp.backends.pytorch.loading import load_model
from cad_lsp.engine import Engine
from cad_lsp.engine.backend import TooLongForContext
from cad_lsp.engine.decode import common_prefix
from cad_lsp.engine.prompt import document_prefix_ids
from cad_lsp.engine.window import SelectionTooLong, Window, choose_window
from cad_lsp.program import Copy, Gen, apply_program, oracle_for_selection, split_lines


def test_window_bounds_fall_on_blocks_and_hold_the_selection():
    tokens = [10] * 1000
    window = choose_window(tokens, 500, 505, budget=2000, block=64)
    assert window.start % 64 == 1 and (window.end % 64 == 0 or window.end == 1000)
    assert window.start <= 500 and 505 <= window.end
    assert sum(tokens[window.start - 1 : window.end]) <= 2000
    assert window.lines == 192  # three blocks of 64 lines fit 2,000 tokens, four do not


def test_nearby_selections_share_one_window():
    tokens = [10] * 1000
    windows = {choose_window(tokens, line, line + 2, budget=5200, block=64) for line in range(513, 759)}
    # eight blocks fit; selections across four blocks share them, and sit in the window's lower half (a change at
    # the selection leaves most of the window's prompt as it was)
    assert windows == {Window(257, 768, 1000)}
    assert choose_window(tokens, 300, 302, budget=5200, block=64) == Window(1, 512, 1000)  # none starts earlier
    shown = choose_window(tokens, 996, 1000, budget=2000, block=64)
    assert shown.end == 1000 and shown.total == 1000


def test_max_lines_caps_the_window():
    window = choose_window([1] * 1000, 10, 12, budget=10**6, max_lines=100, block=64)
    assert window == Window(1, 64, 1000)  # one block: two would pass 100 lines
    small = choose_window([1] * 1000, 10, 12, budget=10**6, max_lines=40, block=64)
    assert small.lines <= 40 and small.start <= 10 and 12 <= small.end


def test_a_selection_that_does_not_fit_says_how_many_lines_would():
    with pytest.raises(SelectionTooLong, match="the 50 selected lines do not fit.*; 20 would") as caught:
        choose_window([10] * 200, 100, 149, budget=200, block=64)
    assert caught.value.fits == 20


# ---------------------------------------------------------------------------
# Through the engine, on random weights


@pytest.fixture(scope="module")
def loaded():
    return load_model("random:tiny", "cpu", "fp32")


def long_document(lines: int) -> str:
    return "".join(f"def f_{i}(x):\n" if i % 3 == 0 else f"    return x * {i}  # 😀\n" if i % 3 == 1 else "\n"
                   for i in range(lines))


def test_a_10000_line_document_resolves_byte_exact_through_a_window(loaded, monkeypatch):
    document = long_document(10_000)
    engine = Engine(LocalModel(loaded))
    context = 4096
    monkeypatch.setattr(loaded.model.config, "max_position_embeddings", context)
    whole = document_prefix_ids(engine.tokenizer, document)
    assert len(whole) > 20 * context  # the document is far longer than the context

    first, last = 4999, 5006
    lines = split_lines(document)
    new_text = "".join(lines[first - 1 : first + 1]) + "    # checked\n" + "".join(lines[first + 1 : last])
    ops = oracle_for_selection(document, first, last, new_text)
    assert Copy(first, first + 1) in ops and Gen("    # checked\n") in ops  # copies name document lines
    result = engine.edit(document, first, last, "", program=ops, key="long")
    assert result.complete and result.text == new_text
    assert apply_program(result.ops, document, first, last) == document.replace(
        "".join(lines[first - 1 : last]), new_text, 1)
    window = result.window
    assert window is not None and window.start <= first and last <= window.end and window.total == 10_000
    assert window.start % engine.block_lines == 1
    assert result.stats.prompt_tokens + result.stats.spliced_tokens < context
    shown = engine.tokenizer.decode(engine.cache_of("long").ids)  # the window's lines, numbered from 1
    assert f"File document:\n1| {lines[window.start - 1]}" in shown
    assert shown.endswith(f"\n{window.lines}| {lines[window.end - 1]}")


def test_warming_a_window_serves_the_edit_from_cache(loaded, monkeypatch):
    document = long_document(3000)
    engine = Engine(LocalModel(loaded))
    monkeypatch.setattr(loaded.model.config, "max_position_embeddings", 2048)
    top = engine.warm("top", document)  # too long to show whole, and no line: the window at the top, where editors open
    assert 0 < top < 2048
    assert engine.edit(document, 1, 2, "x", key="top", max_tokens=4).stats.cached_tokens == top
    computed = engine.warm("doc", document, line=1500)
    assert 0 < computed < 2048
    result = engine.edit(document, 1500, 1502, "x", key="doc", max_tokens=4)
    assert result.stats.cached_tokens == computed  # warm and edit chose the same window
    near = engine.edit(document, 1510, 1511, "x", key="doc", max_tokens=4)
    assert near.window == result.window and near.stats.cached_tokens == computed


def test_context_lines_sets_a_window_on_a_document_that_fits(loaded):
    document = long_document(600)
    engine = Engine(LocalModel(loaded), context_lines=200)
    result = engine.edit(document, 300, 302, "x", max_tokens=4)
    assert result.window is not None and result.window.lines <= 200 and result.window.start <= 300
    assert Engine(LocalModel(loaded)).edit(document, 300, 302, "x", max_tokens=4).window is None


def test_a_selection_too_long_for_the_context_is_refused_with_the_lines_that_would_fit(loaded, monkeypatch):
    document = long_document(3000)
    engine = Engine(LocalModel(loaded))
    monkeypatch.setattr(loaded.model.config, "max_position_embeddings", 2048)
    too_long = r"the 1001 selected lines do not fit the model's 2048-token context"
    with pytest.raises(TooLongForContext, match=too_long) as e:
        engine.edit(document, 1000, 2000, "x")
    fits = int(str(e.value).split("about ")[1].split(" ")[0])
    assert 10 < fits < 1001
    result = engine.edit(document, 1000, 1000 + fits - 1, "x", max_tokens=2)  # and that many do
    assert result.window is not None


# ---------------------------------------------------------------------------
# Typing elsewhere in the file: the window is found again by its text


def _with_line(document: str, before: int, text: str) -> str:
    """The document with ``text`` inserted before line ``before``."""
    lines = split_lines(document)
    return "".join(lines[: before - 1] + [text] + lines[before - 1 :])


def _edit_checked(engine, document: str, first: int, key: str):
    """Teacher-force an edit of lines first..first+3 that inserts a comment; check it byte for byte."""
    lines = split_lines(document)
    new_text = "".join(lines[first - 1 : first + 1]) + "    # checked\n" + "".join(lines[first + 1 : first + 3])
    ops = oracle_for_selection(document, first, first + 3, new_text)
    result = engine.edit(document, first, first + 3, "x", program=ops, key=key)
    assert result.complete and result.ops == ops and result.text == new_text
    assert apply_program(result.ops, document, first, first + 3) == "".join(lines[: first - 1]) + new_text + \
        "".join(lines[first + 3 :])
    return result


def _edited_in_the_middle(loaded):
    """A 2,000-line document shown through 256-line windows, edited at line 1000: the engine, the document, the
    line, the edit and its window's prompt prefix (now cached)."""
    document = long_document(2000)
    engine = Engine(LocalModel(loaded), context_lines=256)
    first = 1000
    warm = _edit_checked(engine, document, first, "doc")
    return engine, document, first, warm, engine.prompt_prefix(document, first, first + 3, key="doc")


def test_a_line_typed_above_the_window_leaves_its_prompt_cached(loaded):
    engine, document, first, warm, prefix = _edited_in_the_middle(loaded)
    assert warm.window is not None and warm.window.start > 3
    typed = _with_line(document, 3, "import os\n")  # above the window: every line below it moves by one
    after = _edit_checked(engine, typed, first + 1, "doc")
    assert after.window.start == warm.window.start + 1 and after.window.lines == warm.window.lines
    assert after.stats.cached_tokens == len(prefix)  # the window's whole prompt part came from the cache
    assert after.stats.prefill_tokens == after.stats.prompt_tokens - len(prefix)  # only the request was read
    deleted = "".join(split_lines(typed)[:1] + split_lines(typed)[2:])  # a line deleted above: the same again
    again = _edit_checked(engine, deleted, first, "doc")
    assert again.stats.cached_tokens == len(prefix)


def test_edits_after_lines_inserted_inside_and_below_the_window_stay_exact(loaded):
    engine, document, first, warm, prefix = _edited_in_the_middle(loaded)
    inside = _with_line(document, first - 20, "    # typed inside the window\n")
    result = _edit_checked(engine, inside, first + 1, "doc")
    assert result.window.start == warm.window.start
    # Only what follows the typed line is read again: its tokens and the window's lines after it.
    shown = engine.prompt_prefix(inside, first + 1, first + 4, key="doc")
    assert 0 < result.stats.cached_tokens == common_prefix(prefix, shown) < len(prefix)
    below = _with_line(inside, 1900, "x = 1\n")  # below the window: the prompt does not change
    cached = engine.prompt_prefix(inside, first + 1, first + 4, key="doc")
    assert _edit_checked(engine, below, first + 1, "doc").stats.cached_tokens == len(cached)


def test_two_places_in_one_long_file_edited_in_turn_both_stay_warm(loaded):
    document = long_document(2000)
    engine = Engine(LocalModel(loaded), context_lines=256)
    near, far = 100, 1900
    _edit_checked(engine, document, near, "doc")
    _edit_checked(engine, document, far, "doc")
    for first in (near, far, near, far):
        result = _edit_checked(engine, document, first, "doc")
        assert result.stats.cached_tokens == len(engine.prompt_prefix(document, first, first + 3, key="doc"))
    assert engine.cached_documents() == ["doc"]
    engine.forget("doc")
    assert engine.cached_documents() == [] and engine.cache_of("doc") is None
