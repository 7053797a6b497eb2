"""The code-edit corpora the benchmarks and tests read (JSONL, one pair a line).

They live in a ``shared/data`` folder beside the project (or wherever
``CAD_LSP_DATA`` points); a clone without them still works, minus the
corpus benchmarks.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

CORPORA = {
    "humanevalfix-py": "humanevalpack/humanevalfix_python.jsonl",
    "humanevalfix-js": "humanevalpack/humanevalfix_js.jsonl",
    "editeval": "editeval/editeval.jsonl",
    "quixbugs": "quixbugs/quixbugs_python.jsonl",
    "commits": "commits/requests.jsonl",
}


@dataclass(frozen=True)
class EditPair:
    id: str
    corpus: str
    lang: str
    instruction: str
    before: str
    after: str
    extra: dict


def data_dir() -> Path | None:
    """The corpus folder, or None when this checkout has none."""
    candidates = [os.environ.get("CAD_LSP_DATA")]
    root = Path(__file__).resolve().parents[2]  # the checkout: cad_lsp/train/corpora.py
    candidates += [root.parent / "shared" / "data", root / "shared" / "data"]
    for candidate in candidates:
        if candidate and Path(candidate, CORPORA["humanevalfix-py"]).is_file():
            return Path(candidate)
    return None


def load(corpus: str, limit: int | None = None) -> list[EditPair]:
    if corpus not in CORPORA:
        raise ValueError(f"unknown corpus {corpus!r}; known: {', '.join(CORPORA)}")
    folder = data_dir()
    if folder is None:
        raise FileNotFoundError("no corpus folder: set CAD_LSP_DATA to the folder holding the JSONL corpora")
    pairs = []
    with open(folder / CORPORA[corpus], encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            row = json.loads(line)
            keys = ("id", "lang", "instruction", "before", "after")
            pairs.append(
                EditPair(row["id"], corpus, row["lang"], row["instruction"], row["before"], row["after"],
                         {k: v for k, v in row.items() if k not in keys})
            )
            if limit is not None and len(pairs) >= limit:
                break
    return pairs
