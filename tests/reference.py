"""Independent references for tests: what a program's text must be, by plain string slicing.

Written without ``cad_lsp.program`` so that a check against these is not the
code under test checking itself.
"""

from cad_lsp.program import Copy, Gen


def plain_lines(text: str) -> list[str]:
    """Lines with their terminators, ended by \\r\\n, \\n or \\r only (as LSP counts them)."""
    lines, start, i = [], 0, 0
    while i < len(text):
        if text[i] in "\r\n":
            i += 2 if text[i : i + 2] == "\r\n" else 1
            lines.append(text[start:i])
            start = i
        else:
            i += 1
    if start < len(text):
        lines.append(text[start:])
    return lines


def plain_text(ops, document: str, first: int, last: int) -> str:
    """The text a program writes for lines first..last: gen text, and copied lines sliced from the document."""
    lines = plain_lines(document)
    previous = first - 1
    out = []
    for op in ops:
        if isinstance(op, Gen):
            out.append(op.text)
        else:
            assert isinstance(op, Copy) and previous < op.start <= op.end <= last, (op, first, last)
            out.append("".join(lines[op.start - 1 : op.end]))
            previous = op.end
    return "".join(out)


def plain_apply(ops, document: str, first: int, last: int) -> str:
    """The whole document after the program replaced lines first..last."""
    lines = plain_lines(document)
    return "".join(lines[: first - 1]) + plain_text(ops, document, first, last) + "".join(lines[last:])
