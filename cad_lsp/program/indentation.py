"""An update's indentation written as the file's: tabs where the file indents with tabs, spaces where it uses
spaces.

A chat answer often comes back with tabs turned into spaces (a Go file, a Makefile, a tab-indented Python
module pasted through a web page) or the other way round.  Merged as it is, its new lines would sit among the
file's in the other style (a Makefile recipe indented with spaces does not run), and its unchanged lines would
not be found as the file's lines.  The update is re-indented before it is placed, only where the file is
consistent (almost all its indented lines in one style) and the update wholly in the other.
"""

from __future__ import annotations

__all__ = ["as_the_file_indents"]

CONSISTENT = 0.9  # the share of a file's indented lines that must use one style for it to be the file's
UNITS = (2, 4, 8)  # indentation steps in spaces that a tab stands for


def _indented(lines: list[str]) -> list[str]:
    """Indented lines, less block-comment continuations (`` * text``), whose one space is alignment."""
    return [line for line in lines if line[:1] in (" ", "\t") and line.strip() and not line.lstrip().startswith("*")]


def _style(lines: list[str]) -> str | None:
    """"tab" or "space" where the lines indent (almost) only that way; None where they mix or do not indent."""
    indented = _indented(lines)
    if not indented:
        return None
    tabs = sum(line.startswith("\t") for line in indented)
    if tabs >= CONSISTENT * len(indented):
        return "tab"
    if len(indented) - tabs >= CONSISTENT * len(indented):
        return "space"
    return None


def _start(line: str) -> tuple[str, str]:
    """A line's indentation and first word: how the file's lines in a string literal are known again, reworded."""
    text = line.lstrip(" \t")
    return line[: len(line) - len(text)], text.split(maxsplit=1)[0] if text.strip() else ""


def _space_unit(lines: list[str]) -> int:
    """The step of an indentation in spaces: the largest of ``UNITS`` that (almost) every indented line's width
    is a multiple of."""
    widths = [len(line) - len(line.lstrip(" ")) for line in _indented(lines) if line.startswith(" ")]
    return next((unit for unit in sorted(UNITS, reverse=True)
                 if widths and sum(w % unit == 0 for w in widths) >= CONSISTENT * len(widths)), 4)


def as_the_file_indents(doc_lines: list[str], update_lines: list[str]) -> list[str]:
    """The update's lines indented in the file's style (the lines themselves where the styles agree, or where
    either mixes them)."""
    file_style, update_style = _style(doc_lines), _style(update_lines)
    indented, ours = _indented(update_lines), {line.rstrip("\r\n") for line in _indented(doc_lines)}
    if file_style is None or update_style is None or file_style == update_style or \
            any(line.startswith("\t" if file_style == "tab" else " ") for line in indented) or \
            {_start(line) for line in indented} <= {_start(line) for line in _indented(doc_lines)} or \
            2 * sum(line.rstrip("\r\n") in ours for line in indented) >= len(indented):
        return update_lines  # (the file's own lines in the other style: a Go usage text in a raw string, some
        # of its lines new)
    out = []
    if file_style == "tab":  # spaces to tabs, a tab per step of the update's own indentation
        unit = _space_unit(update_lines)
        for line in update_lines:
            width = len(line) - len(line.lstrip(" "))
            out.append("\t" * (width // unit) + " " * (width % unit) + line[width:])
    else:  # tabs to spaces, a tab as the file's step
        unit = _space_unit(doc_lines)
        for line in update_lines:
            width = len(line) - len(line.lstrip("\t"))
            out.append(" " * (unit * width) + line[width:])
    return out
