"""The README stays a guide a newcomer reads in five minutes: short prose, short sentences, its links alive.

What counts as prose (``readme_prose``): every line of README.md outside fenced code blocks, except
headings (``#``), table rows (``|``), image lines (``![``), blank lines and link-only lines (nothing
left but punctuation once the links are removed). HTML tags are dropped and a link counts as its text.
Consecutive prose lines form a paragraph; a list item (``- ``) starts a new one.

Sentences (``sentences``): a paragraph split after ``.``, ``!`` or ``?`` followed by a space (not after
``e.g.`` or ``i.e.``); the paragraph's end also ends a sentence. Words: whitespace-separated pieces
holding a letter or a digit (inline code counts, as a reader reads it).

Limits (issue 46): at most 1,500 words of prose, no sentence over 40 words, a median sentence of at most
20 words; the VS Code picture within the first 30 lines.
"""

import re
import statistics
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
ABBREVIATIONS = ("e.g.", "i.e.")


def readme_prose(text: str) -> list[str]:
    paragraphs: list[str] = []
    current: list[str] = []
    fenced = False

    def close():
        if current:
            paragraphs.append(" ".join(current))
            current.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            fenced = not fenced
            close()
            continue
        if fenced or not line or line.startswith(("#", "|", "![")):
            close()
            continue
        line = re.sub(r"</?[a-zA-Z][^>]*>", "", line)
        if not re.search(r"[A-Za-z0-9]", LINK.sub("", line)):  # links only
            close()
            continue
        line = LINK.sub(r"\1", line)
        if line.startswith(("- ", "* ")):
            close()
            line = line[2:]
        current.append(line)
    close()
    return paragraphs


def sentences(paragraph: str) -> list[str]:
    pieces = re.split(r"(?<=[.!?])\s+", paragraph)
    out: list[str] = []
    for piece in pieces:
        if out and out[-1].endswith(ABBREVIATIONS):
            out[-1] += " " + piece
        else:
            out.append(piece)
    return [s for s in out if words(s)]


def words(text: str) -> list[str]:
    return [w for w in text.split() if re.search(r"[A-Za-z0-9]", w)]


def counts(text: str) -> tuple[int, list[int]]:
    paragraphs = readme_prose(text)
    lengths = [len(words(s)) for p in paragraphs for s in sentences(p)]
    return sum(len(words(p)) for p in paragraphs), lengths


def test_the_counting_rules_on_a_small_document():
    text = ("# Title\n\nOne two three. Four, e.g. five six!\n\n```\nnot prose at all\n```\n"
            "| a | table |\n![a picture](x.png)\n[a link](y.md)\n- An item [with a link](z.md) here\n"
            "<sub>A caption</sub>\n")
    assert readme_prose(text) == ["One two three. Four, e.g. five six!", "An item with a link here A caption"]
    total, lengths = counts(text)
    assert total == 15 and lengths == [3, 4, 8]


def test_the_readme_is_short_and_its_sentences_are_short():
    total, lengths = counts(README.read_text())
    long_ones = [s for p in readme_prose(README.read_text()) for s in sentences(p) if len(words(s)) > 40]
    assert total <= 1500, f"{total} words of prose (at most 1,500)"
    assert not long_ones, f"sentences over 40 words: {long_ones}"
    assert statistics.median(lengths) <= 20, f"median sentence {statistics.median(lengths)} words (at most 20)"


def test_the_readme_starts_with_the_two_commands_and_shows_the_review_early():
    lines = README.read_text().splitlines()
    fence = lines.index("```bash")
    assert lines[fence + 1].startswith("pip install ") and "cad-lsp apply examples/inventory.py" in lines[fence + 1]
    assert lines[fence + 2] == "python -m pytest"
    picture = next(i for i, line in enumerate(lines) if line.startswith("![") and "vscode" in line)
    assert picture < 30


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


GUIDES = [README, ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", GUIDES, ids=lambda page: page.name)
def test_links_reach_files_and_sections_that_exist(page):
    """The README and the docs it leads to: every relative link names a file, and a #section a heading in it."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path) if path else page
        assert file.exists(), f"{page.name}: {target}"
        if anchor and file.suffix == ".md":
            headings = [line.lstrip("#") for line in file.read_text().splitlines() if line.startswith("#")]
            assert anchor in {_anchor(h) for h in headings}, f"{page.name}: {target}"
