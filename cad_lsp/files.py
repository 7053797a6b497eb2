"""The files the command line reads and writes: a document (UTF-8 text, line ends as they are), an update or an
answer from a file or standard input, and a result written back atomically only if the file did not change."""

from __future__ import annotations

import sys
from pathlib import Path


def read_document(path: Path) -> tuple[str, str | None]:
    """(text, None), or ("", why the file cannot be edited); line ends are kept as they are."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        return "", "is a folder, not a file"
    except OSError as exc:
        return "", f"cannot read the file: {exc.strerror or exc}"
    if b"\0" in data:
        return "", "looks like a binary file (it contains NUL bytes); only text files can be edited"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return "", f"is not UTF-8 text (byte {exc.start}): only UTF-8 files can be edited"


def read_update(source: str) -> tuple[str, str | None]:
    """The update's text from a file or, for ``-``, standard input; (text, None) or ("", why not)."""
    if source == "-":
        data = sys.stdin.buffer.read() if not sys.stdin.isatty() else b""
        where = "the update on standard input"
    else:
        try:
            data = Path(source).read_bytes()
        except IsADirectoryError:
            return "", f"the update {source} is a folder, not a file"
        except OSError as exc:
            return "", f"cannot read the update {source}: {exc.strerror or exc}"
        where = f"the update {source}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "", f"{where} is not UTF-8 text (byte {exc.start})"
    if not text.strip():
        return "", f"{where} is empty"
    return text, None


def write_back(path: Path, read: str, new: str) -> str | None:
    """Replace the file with ``new`` if it still holds what was ``read``; None, or why nothing was written.

    The new text goes to a temporary file in the same folder, with the
    file's mode, and is renamed over it: a reader never sees half a file,
    and a crash leaves the old one.  The file is compared again just before:
    a user who saved it in an editor while the model ran keeps their text.
    """
    import os
    import tempfile

    target = Path(os.path.realpath(path))  # a link stays a link: its target gets the new text
    current, problem = read_document(target)
    if problem is not None or current != read:
        return "the file changed while the model ran" if problem is None else f"the file {problem}"
    mode = target.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".cad-lsp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(new)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        return f"cannot write it: {exc.strerror or exc}"
    return None
