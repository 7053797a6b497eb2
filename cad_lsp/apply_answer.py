"""``cad-lsp apply --answer``: a whole chat answer applied to every file it touches, in one review, all or nothing.

The answer's merges are the merge's own (an apply takes no forward of the model), so nothing loads a model
here: the plan (``program.answer_plan``) is printed as one diff per file and a summary, or as one JSON object.
``--write`` writes only a complete answer, and only if none of its files changed on disk since it was read;
``--partial`` writes what merged and says what did not.  A write that fails half-way says which files it wrote.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import tempfile
from pathlib import Path

from .files import read_update, write_back
from .program.answer import AN_EXAMPLE
from .program.answer_plan import AnswerPlan, FileChange, plan_answer, read_text


def cmd_apply_answer(args: argparse.Namespace) -> int:
    answer, problem = read_update(args.answer)
    if problem is not None:
        print(f"cad-lsp: {problem.replace('the update', 'the answer')}", file=sys.stderr)
        return 2
    root = Path(args.root) if args.root else Path.cwd()
    if not root.is_dir():
        print(f"cad-lsp: --root {root} is not a folder", file=sys.stderr)
        return 2
    default = Path(os.path.abspath(args.file)) if args.file else None
    plan = plan_answer(answer, root, default, force=args.force)
    if not plan.files and not plan.problems:
        print("cad-lsp: the answer has no code block that changes a file"
              + (f" ({len(plan.skipped)} block(s) of commands, output or examples)" if plan.skipped else ""),
              file=sys.stderr)
        return 2
    written, why_not = write_plan(plan, args.partial) if args.write else ([], None)
    if args.json:
        print(json.dumps(as_json(plan, written, why_not, args.write), ensure_ascii=False))
    else:
        _print_review(plan)
        if args.write:
            print(f"written: {', '.join(written)}" if written else "written: nothing")
    if why_not:
        print(f"cad-lsp: {why_not}", file=sys.stderr)
    if not plan.complete:
        return 2
    return 1 if why_not else 0


def diff(change: FileChange) -> str:
    """The file's unified diff; a new file's starts from /dev/null."""
    before = change.before.splitlines(True) if change.exists else []
    old = f"a/{change.path}" if change.exists else "/dev/null"
    return "".join(difflib.unified_diff(before, (change.after or "").splitlines(True), old, f"b/{change.path}"))


def summary(plan: AnswerPlan) -> dict:
    changed = [f for f in plan.changed if f.exists]
    created = [f for f in plan.changed if not f.exists]
    return {"changed": len(changed), "created": len(created), "refused": len(plan.refused),
            "unchanged": len([f for f in plan.files if f.after is not None and not f.changed]),
            "unplaced": len(plan.problems), "skipped": len(plan.skipped),
            "removed_unseen": sum(f.unseen_lines for f in plan.files if f.after is not None)}


def summary_line(plan: AnswerPlan) -> str:
    s = summary(plan)
    parts = [f"{s['changed']} changed", f"{s['created']} created", f"{s['refused']} refused"]
    if s["unchanged"]:
        parts.append(f"{s['unchanged']} unchanged")
    line = "files: " + ", ".join(parts)
    if s["unplaced"]:
        line += f"; {s['unplaced']} block{'s' if s['unplaced'] != 1 else ''} placed in no file"
    if s["skipped"]:
        line += f"; {s['skipped']} block{'s' if s['skipped'] != 1 else ''} of commands, output or examples left out"
        examples = [str(skip.line) for skip in plan.skipped if skip.reason == AN_EXAMPLE]
        if examples:
            lines = f"line{'s' if len(examples) > 1 else ''} {', '.join(examples)}"
            line += f" (naming no file, unlike the others: {lines})"
    if s["removed_unseen"]:
        line += f"; {s['removed_unseen']} line{'s' if s['removed_unseen'] != 1 else ''} removed unseen"
    return line


def _print_review(plan: AnswerPlan) -> None:
    for change in plan.files:
        if change.after is None:
            continue
        sys.stdout.write(diff(change) or f"(no change: {change.path})\n")
        if change.found_note():
            print(f"cad-lsp: {change.found_note()}", file=sys.stderr)
        for note in change.unseen_notes():
            print(f"cad-lsp: {change.path}: {note}", file=sys.stderr)
    for line in plan.refusals():
        print(f"cad-lsp: not applied: {line}", file=sys.stderr)
    print(summary_line(plan))


def as_json(plan: AnswerPlan, written: list[str], why_not: str | None, write: bool) -> dict:
    files = []
    for change in plan.files:
        status = ("refused" if change.after is None else "unchanged" if not change.changed
                  else "changed" if change.exists else "created")
        files.append({"path": change.path, "named_as": change.named_as, "status": status, "reason": change.refusal,
                      "blocks": [block.line for block in change.blocks],
                      "diff": diff(change) if change.after is not None else "", "text": change.after,
                      "removed_unseen": [list(span) for span in change.unseen],
                      "removed_as_said": list(change.removed),
                      "unseen_notes": change.unseen_notes()})
    answer = {"files": files,
              "unplaced": [{"line": p.block.line, "reason": p.reason} for p in plan.problems],
              "skipped": [{"line": s.line, "language": s.language, "reason": s.reason} for s in plan.skipped],
              "summary": summary(plan), "complete": plan.complete}
    if write:
        answer["written"] = written
        answer["not_written"] = why_not
    return answer


def write_plan(plan: AnswerPlan, partial: bool) -> tuple[list[str], str | None]:
    """Write the plan's files; (the paths written, why something was not written or None).

    All or nothing unless ``partial``: an incomplete answer, or a file that changed on disk since the plan read
    it (read again here, just before writing), writes nothing.  With ``partial`` the files that merged and did
    not change are written, and the rest are named."""
    if not plan.complete and not partial:
        return [], (f"nothing written: {_count(len(plan.refusals()), 'block')} of the answer could not be applied "
                    "(see above); --partial writes the files that merged")
    wanted = [f for f in plan.changed]
    moved = [f for f in wanted if not still_as_read(f)]
    if moved and not partial:
        names = ", ".join(f.path for f in moved)
        return [], f"nothing written: {names} changed on disk since the answer was read; apply the answer again"
    written, problems = [], []
    for change in wanted:
        if change in moved:
            problems.append(f"{change.path} changed on disk since the answer was read")
            continue
        problem = write_change(change)
        if problem is None:
            written.append(change.path)
        else:
            problems.append(f"{change.path}: {problem}")
            if not partial:
                break
    if not plan.complete:
        problems[:0] = [f"{_count(len(plan.refusals()), 'block')} of the answer not applied (see above)"]
    if not problems:
        return written, None
    done = f"wrote {', '.join(written)}" if written else "nothing written"
    return written, f"{done}; not written: " + "; ".join(problems)


def still_as_read(change: FileChange) -> bool:
    text, problem = read_text(change.target)
    return (text, problem) == (None, None) if not change.exists else text == change.before


def write_change(change: FileChange) -> str | None:
    """Write one file atomically (a new file with its folders, never over one that appeared meanwhile)."""
    if change.exists:
        return write_back(change.target, change.before, change.after)
    return create_file(change.target, change.after)


def create_file(target: Path, text: str) -> str | None:
    """A new file with ``text``, whole or not at all: written aside and linked into place, which fails rather
    than replace a file someone created meanwhile."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".cad-lsp", dir=target.parent)
    except OSError as exc:
        return f"cannot create it: {exc.strerror or exc}"
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.link(tmp, target)
    except FileExistsError:
        return "a file of that name appeared on disk since the answer was read"
    except OSError as exc:
        return f"cannot create it: {exc.strerror or exc}"
    finally:
        Path(tmp).unlink(missing_ok=True)
    return None


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"
