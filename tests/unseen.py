"""A merge that reports file lines it removes unseen, or refuses as breaking the file, wherever the code calls
``merge_update``: how each way in (the command line, the language server, HTTP, the editors) tells the user is
tested apart from which updates the merge itself flags.

``python -m tests.unseen FIRST-LAST [--scripted] SERVE-ARGS...`` is ``cad-lsp serve SERVE-ARGS...`` whose merges
report file lines FIRST-LAST removed unseen; with ``--scripted`` its applies land as the merge (``bench.scripted``),
else they are the model's own.  For the language server's tests and a real editor's.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys

# every module that calls merge_update, each through its own name for it
CALLERS = ("cad_lsp.program.update", "cad_lsp.engine.engine", "cad_lsp.lsp.requests", "cad_lsp.http.answer")
BREAKS = "the merged file does not parse (line 3: unexpected indent), though the file did"


def patch_merges(setattr=setattr, unseen: tuple[tuple[int, int], ...] = (), breaks: bool = False) -> list:
    """Make every caller's merge_update report ``unseen``, or (``breaks``) refuse without ``force`` as a merge
    that breaks the file; returns the (language, force) of each call, in order.  ``setattr``: pytest's
    monkeypatch.setattr, so that the test undoes it."""
    callers = [importlib.import_module(name) for name in CALLERS]  # each imported before any is patched
    update_module = callers[0]
    real, calls = update_module.merge_update, []

    def merge_update(document, update, language=None, *, force=False):
        calls.append((language, force))
        merge = real(document, update, language, force=force)
        if breaks and not force:
            raise update_module.UpdateError(BREAKS)
        return dataclasses.replace(merge, unseen=unseen)

    for module in callers:
        setattr(module, "merge_update", merge_update)
    return calls


def main(argv: list[str]) -> int:
    from cad_lsp.cli import main as cli

    first, _, last = argv[0].partition("-")
    patch_merges(unseen=((int(first), int(last or first)),))
    serve_args = argv[1:]
    if serve_args[:1] == ["--scripted"]:
        from bench.scripted import scripted_apply
        from cad_lsp.engine import engine

        engine.Engine.apply = scripted_apply()
        serve_args = serve_args[1:]
    return cli(["serve", *serve_args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
