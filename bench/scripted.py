"""``cad-lsp serve`` with a scripted model, for clients that must know the edit in advance.

Every edit is teacher-forced through a planned program by the engine's own
decode loop, so everything else is real: the prompt and its cache, the
grammar, the splices, progress, cancel, the versioned WorkspaceEdit.  Random
weights then make a known edit.  An update to apply is teacher-forced through
the program of its deterministic merge (``plan_apply``), so it lands as that
merge.  Used by ``bench serve`` and by the editor tests (``python -m
bench.scripted SERVE-ARGS...`` is ``cad-lsp serve SERVE-ARGS...`` with the
default plan below).
"""

from __future__ import annotations

import sys
import time
from typing import Callable, Sequence

COMMENT = "# checked: the bound includes the last element"
SLOW_WORD = "slowly"  # an instruction that contains it decodes slowly (SLOW_STEP_S a forward): time to cancel or type
SLOW_STEP_S = 0.5

Plan = Callable[[str, int, int, str], Sequence]  # (document, first, last, instruction) -> program ops


def comment_after_first_line(document: str, first: int, last: int, instruction: str) -> list:
    """Copy the first selected line, generate a comment line, copy the rest.

    The comment takes the indentation of the line it precedes and the first line's line ending.
    """
    from cad_lsp.program import Copy, Gen, split_lines

    lines = split_lines(document)
    line = lines[first - 1]
    body = line.rstrip("\r\n")
    ending = line[len(body):] or ("\r\n" if "\r\n" in document else "\n")
    below = lines[first] if first < last else line
    indent = below[: len(below) - len(below.lstrip(" \t"))]
    ops = [Copy(first, first), Gen(f"{indent}{COMMENT}{ending}")]
    return ops + [Copy(first + 1, last)] if first < last else ops


def slowed(instruction: str | None, kwargs: dict) -> dict:
    """An instruction that says "slowly" decodes at SLOW_STEP_S a forward: time to cancel or type."""
    if SLOW_WORD not in (instruction or "").lower():
        return kwargs
    progress = kwargs.get("progress")

    def slow(stats):
        time.sleep(SLOW_STEP_S)
        if progress is not None:
            progress(stats)

    # one forward per token, so a slow edit takes as long as it promises
    return {**kwargs, "progress": slow, "speculate": False}


def scripted_edit(plan: Plan) -> Callable:
    """An ``Engine.edit`` teacher-forced through ``plan`` (set it on the class, or monkeypatch it)."""
    from cad_lsp.engine import engine

    edit = engine.Engine.edit

    def scripted(self, document, first_line, last_line, instruction, **kwargs):
        kwargs["program"] = plan(document, first_line, last_line, instruction)
        return edit(self, document, first_line, last_line, instruction, **slowed(instruction, kwargs))

    return scripted


def scripted_apply() -> Callable:
    """An ``Engine.apply`` teacher-forced through the program of the update's deterministic merge; an update
    with no place in the document is refused as the real one is."""
    from cad_lsp.engine import engine

    apply = engine.Engine.apply

    def scripted(self, document, update, instruction=None, **kwargs):
        kwargs["program"] = engine.plan_apply(document, update, instruction, kwargs.get("language"),
                                              kwargs.get("force", False)).plan
        return apply(self, document, update, instruction, **slowed(instruction, kwargs))

    return scripted


def serve(plan: Plan, serve_args: list[str], threads: int = 0) -> int:
    """Run ``cad-lsp serve serve_args`` with Engine.edit teacher-forced through ``plan``, Engine.apply through
    the merge."""
    import torch

    from cad_lsp.cli import main
    from cad_lsp.engine import engine

    if threads:
        torch.set_num_threads(threads)
    engine.Engine.edit = scripted_edit(plan)
    engine.Engine.apply = scripted_apply()
    return main(["serve", *serve_args])


if __name__ == "__main__":
    sys.exit(serve(comment_after_first_line, sys.argv[1:]))
