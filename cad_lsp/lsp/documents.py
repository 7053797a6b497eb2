"""The server's copy of the open documents, kept by LSP's line rules."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from ..program import Document
from ..program.edits import offset_at, units


def document_name(uri: str) -> str:
    """The file name the model sees in the prompt."""
    return PurePosixPath(unquote(urlparse(uri).path)).name or "document"


@dataclass(frozen=True)
class Snapshot:
    uri: str
    version: int
    text: str
    language: str | None = None  # the editor's languageId


def document_language(snapshot: Snapshot) -> str | None:
    """What an update's merge reads the document's syntax by: the editor's language id, else (no id, or plain
    text: an editor that knows no better) the file's name; None: the merge guesses."""
    if snapshot.language and snapshot.language != "plaintext":
        return snapshot.language
    return PurePosixPath(unquote(urlparse(snapshot.uri).path)).name or None


def sync_offset(doc: Document, position: lsp.Position, encoding: str) -> int:
    """Offset of a position in a document change, where LSP clamps a character past its line's end.

    Edit requests do not get this leniency (``check_selection``): there a
    clamped position would edit the wrong place.
    """
    if position.line >= doc.line_count:
        return len(doc.text)
    body = doc.lines[position.line].rstrip("\r\n")
    if position.character >= units(body, encoding):
        return doc.line_starts[position.line] + len(body)
    return offset_at(doc, position, encoding)


class Documents:
    """The server's copy of open documents, changed by LSP's line rules.

    pygls's own copy splits lines with ``str.splitlines``, which also breaks
    at form feeds, U+2028 and other characters that are not LSP line ends, so
    an incremental change after one of them lands on the wrong line.  Edits
    must be computed on exactly the editor's text, so this copy uses
    ``program.split_lines`` and ``edits.offset_at`` instead.
    """

    def __init__(self) -> None:
        self._docs: dict[str, Snapshot] = {}

    def open(self, uri: str, version: int, text: str, language: str | None = None) -> None:
        self._docs[uri] = Snapshot(uri, version, text, language)

    def change(self, uri: str, version: int, changes, encoding: str) -> None:
        """Apply content changes in order; a change that does not fit drops the document (ValueError)."""
        current = self._docs.get(uri)
        if current is None:
            raise ValueError(f"{uri} changed but was never opened")
        text = current.text
        try:
            for change in changes:
                if getattr(change, "range", None) is None:
                    text = change.text
                    continue
                doc = Document(text)
                start = sync_offset(doc, change.range.start, encoding)
                end = sync_offset(doc, change.range.end, encoding)
                if end < start:
                    raise ValueError("the change's range ends before it starts")
                text = text[:start] + change.text + text[end:]
        except ValueError:
            self._docs.pop(uri, None)
            raise
        self._docs[uri] = Snapshot(uri, version, text, current.language)

    def close(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def get(self, uri: str) -> Snapshot | None:
        return self._docs.get(uri)

    def uris(self) -> list[str]:
        return list(self._docs)
