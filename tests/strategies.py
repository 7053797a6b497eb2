"""Hypothesis strategies for documents and edits with the awkward cases in them."""

from hypothesis import strategies as st

from cad_lsp.program import split_lines

ENDINGS = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", ""])
PIECES = st.sampled_from(
    ["x", "def f():", "    return 1", "\t", " ", "", "😀", "𝔘", "é", "</gen>", "<gen>", "<copy", '"/>', "</gen\\>", "\\", "日本"]
)
LINE_BODY = st.lists(PIECES, max_size=4).map("".join)


@st.composite
def documents(draw, max_lines: int = 12) -> str:
    lines = draw(st.lists(st.tuples(LINE_BODY, ENDINGS), max_size=max_lines))
    return "".join(body + (end or "\n") for body, end in lines[:-1]) + "".join(
        body + end for body, end in lines[-1:]
    )


@st.composite
def edit_pairs(draw) -> tuple[str, str]:
    """(before, after) where after reuses, drops, reorders and invents lines."""
    before = draw(documents())
    lines = before.splitlines(keepends=True) or [""]
    pieces = draw(
        st.lists(st.one_of(st.sampled_from(lines), LINE_BODY.map(lambda s: s + "\n"), documents(3)), max_size=12)
    )
    return before, "".join(pieces)


def selection(data, document: str) -> tuple[int, int] | None:
    """A random line range a..b of the document (None for an empty document)."""
    n = len(split_lines(document))
    if n == 0:
        return None
    a = data.draw(st.integers(1, n))
    return a, data.draw(st.integers(a, n))
