"""answer: a whole chat answer applied to every file it changes (``cad-lsp apply --answer``, ``cad.applyAnswer``).

The set: commits of this project's own history that change 2-6 text files a little (each file at most
``MAX_CHANGED`` lines added plus removed, and at most ``MAX_LINES`` long), and may add files.  Each becomes the
answer a chat model would write for it: a line of prose, then one block per file, the update
``cad_lsp/train/updates.py``'s ``make_update`` writes for the file's change in a style drawn per file (markers,
whole functions, bare, the whole file; a new file is its whole text), the file named by one of the path
conventions chat models use, in turn answer by answer.  Its context around a change reaches past blank lines
to a line of code: with blank lines alone around it, a deleted block would not show in the update at all.

- **info**: the path in the fence's info string (```` ```python src/app.py ````, ```` ```ts:src/app.ts ````);
- **first line**: a comment naming the file as the block's first line (``# File: src/app.py``,
  ``// filepath: src/app.ts``);
- **line before**: the path alone on the line before the fence, bare, in backticks, in bold or in a heading.

Every other answer ends with a shell block (the tests to run), which changes no file.  The answer is planned
(``program.answer_plan.plan_answer``) on the files as they were before the commit; it is *fully right* when every
block found its file and every file equals the commit's, byte for byte.  Beside it, the single-file baseline: each
block merged alone into its file (``merge_update``, what ``cad-lsp apply`` merges), so that an answer whose blocks
each merge right alone must be fully right as an answer.

The set is drawn from the history as of ``SET_AT`` (a fixed commit, so the set does not move as the project
grows), seeded; nothing here is tuned on it and the merge was not changed to fit it.  Files a block cannot name
by a comment (JSON) are left out of their answer; a commit left with fewer than two files is left out.

Speed: an answer changing 1, 3 and 10 files of 500-2,000 lines (held-out standard-library modules,
``families.TEST_MODULES``, each with one synthetic edit shown with markers), warm (after a first run), medians:
``cad-lsp apply --answer --write`` as a user runs it, from the command to the files written, and
``cad.applyAnswer`` through a real ``cad-lsp serve`` with the files open, from the request to its
``workspace/applyEdit``.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath

from .runner import median, pct, progress, table

ROOT = Path(__file__).resolve().parent.parent
SET_AT = "29a36c866414a15ac4d1b73d5bd86d660f96f066"  # the history the set is drawn from ends here
MIN_FILES, MAX_FILES = 2, 6
MAX_CHANGED = 40  # lines added plus removed, per file
MAX_LINES = 3000  # a file's length, before or after
CONVENTIONS = ("info", "first line", "line before")
STYLES = ("markers", "function", "bare", "whole")
QUICK_ANSWERS = 3
TIMED_FILES = (1, 3, 10)
TIMED_LINES = (500, 2000)
PLAN_GOAL_S = 1.5  # the goal for a 3-file answer from the command to the merged files

# extension -> (the fence's language, the comment a block names its file by, make_update's marker language)
KINDS = {
    "py": ("python", "# {}", "python"), "sh": ("bash", "# {}", "python"), "toml": ("toml", "# {}", "python"),
    "yml": ("yaml", "# {}", "python"), "yaml": ("yaml", "# {}", "python"), "gitignore": ("gitignore", "# {}", None),
    "js": ("javascript", "// {}", "javascript"), "mjs": ("javascript", "// {}", "javascript"),
    "ts": ("typescript", "// {}", "javascript"), "lua": ("lua", "-- {}", None), "el": ("elisp", ";; {}", None),
    "md": ("markdown", "<!-- {} -->", None),
}


# ---------------------------------------------------------------------------
# The set: commits of this project's history


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def history() -> tuple[str | None, str]:
    """The commit the set is drawn up to, and what was found: SET_AT where the clone holds it, else HEAD (a
    shallow clone: the set is what its history holds), else None (no git checkout)."""
    try:
        _git("rev-parse", "--git-dir")
    except (OSError, subprocess.CalledProcessError):
        return None, "not a git checkout: no history to draw answers from"
    shallow = _git("rev-parse", "--is-shallow-repository").strip() == "true"
    try:
        _git("cat-file", "-e", f"{SET_AT}^{{commit}}")
        at = SET_AT
    except subprocess.CalledProcessError:
        at = _git("rev-parse", "HEAD").strip()
    note = "the history up to " + at[:10]
    if at != SET_AT:
        note += f" ({SET_AT[:10]} is not in this clone" + (", which is shallow" if shallow else "") + ")"
    elif shallow:
        note += " (a shallow clone: only the commits it holds)"
    return at, note


def _kind(path: str):
    name = PurePosixPath(path).name
    ext = name.lstrip(".") if name.startswith(".") and name.count(".") == 1 else name.rsplit(".", 1)[-1]
    return KINDS.get(ext) if "." in name else None


def _show(commit: str, path: str) -> str | None:
    try:
        data = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, check=True).stdout
        return data.decode("utf-8")
    except (subprocess.CalledProcessError, UnicodeDecodeError):
        return None


def commits(at: str) -> list[dict]:
    """Commits before ``at`` (no merges) that change 2-6 files a block can name, each a little, with the files'
    text before and after: {id, subject, files: [(path, before or None for a new file, after)]}."""
    log = _git("log", "--no-merges", "--format=@%H %s", "--numstat", "-M", at)
    out, current = [], None
    for line in log.splitlines() + ["@"]:
        if line.startswith("@"):
            if current is not None:
                out.append(current)
            commit, _, subject = line[1:].partition(" ")
            current = {"id": commit, "subject": subject, "stat": []} if commit else None
        elif line.strip() and current is not None:
            added, removed, path = line.split("\t", 2)
            current["stat"].append((added, removed, path))
    found = []
    for c in out:
        if any(a == "-" or "=>" in p for a, _, p in c["stat"]):  # binary files, renames
            continue
        named = [(int(a) + int(r), p) for a, r, p in c["stat"] if _kind(p) is not None]
        if not MIN_FILES <= len(named) <= MAX_FILES or any(n > MAX_CHANGED for n, _ in named):
            continue
        try:
            _git("cat-file", "-e", f"{c['id']}^{{commit}}")
        except subprocess.CalledProcessError:  # the first commit, or a shallow clone's boundary
            continue
        status = dict(reversed(line.split("\t", 1)) for line in
                      _git("diff-tree", "--no-commit-id", "--name-status", "-r", c["id"]).splitlines() if "\t" in line)
        if any(status.get(p, "M")[0] not in "AM" for _, p in named):  # a file deleted: no block says that
            continue
        files = []
        for _, path in named:
            before = None if status.get(path, "M") == "A" else _show(f"{c['id']}^", path)
            after = _show(c["id"], path)
            if after is None or (before is None and status.get(path) != "A") or before == after:
                break
            if max(before.count("\n") if before else 0, after.count("\n")) > MAX_LINES:
                break
            files.append((path, before, after))
        else:
            found.append({"id": c["id"][:10], "subject": c["subject"], "files": files})
    return found


# ---------------------------------------------------------------------------
# Answers


def _fence(text: str) -> str:
    longest = max((len(line) - len(line.lstrip("`")) for line in text.splitlines() if line.lstrip().startswith("```")),
                  default=0)
    return "`" * max(3, longest + 1)


def block_for(path: str, before: str | None, after: str, rng: random.Random) -> tuple[str, str]:
    """(style, update) for one file's change: a style drawn among those its kind allows, the next that can
    express the change if it cannot; a new file is its whole text."""
    if before is None:
        return "new file", after
    _, _, marker_language = _kind(path)
    allowed = STYLES if marker_language else ("bare", "whole")
    first = rng.choice(allowed)
    for style in (first,) + tuple(s for s in allowed if s != first):
        update = make_update_for(before, after, style, rng, marker_language or "python")
        if update is not None:
            return style, update
    return "whole", after


def make_update_for(before, after, style, rng, language):
    from cad_lsp.train.updates import make_update

    return make_update(before, after, style, rng, language)


def write_answer(subject: str, blocks: list[tuple[str, str]], convention: str, variant: int, commands: bool) -> str:
    """The answer's markdown: prose, then each (path, update) named by ``convention`` (its ``variant``-th form)."""
    parts = [f"Here is how to do it: {subject.rstrip('.')}.", ""]
    for n, (path, update) in enumerate(blocks):
        language, comment, _ = _kind(path)
        form = (variant + n) % 4
        fence = _fence(update)
        parts += [("Then the change in" if n else "First, the change in") + f" `{path}`, as it should read:", ""]
        body = update
        if convention == "info":
            opening = f"{fence}{language} {path}" if form % 2 == 0 else f"{fence}{language}:{path}"
        elif convention == "first line":
            opening = f"{fence}{language}"
            label = "filepath: " if form % 2 == 0 else "File: "
            body = comment.format(label + path) + "\n" + update
        else:
            opening = f"{fence}{language}"
            parts += [(path, f"`{path}`", f"**{path}**", f"### {path}")[form]]
        parts += [opening, body.rstrip("\n"), fence, ""]
    if commands:
        parts += ["Then run the tests:", "", "```bash", "python -m pytest -q", "```", ""]
    parts.append("That is all the change needs.")
    return "\n".join(parts) + "\n"


def build_set(found: list[dict], seed: int, limit: int | None) -> list[dict]:
    """Each commit as an answer: a convention in turn, a style per file, seeded."""
    rng = random.Random(seed)
    order = sorted(found, key=lambda c: c["id"])
    rng.shuffle(order)
    if limit:
        order = order[:limit]
    answers = []
    for n, c in enumerate(order):
        convention = CONVENTIONS[n % len(CONVENTIONS)]
        blocks = [(path, *block_for(path, before, after, rng), before, after) for path, before, after in c["files"]]
        variant = rng.randrange(4)
        text = write_answer(c["subject"], [(path, update) for path, _, update, _, _ in blocks], convention, variant,
                            commands=n % 2 == 1)
        answers.append({"id": c["id"], "convention": convention, "text": text, "subject": c["subject"],
                        "variant": variant, "commands": n % 2 == 1,
                        "files": [{"path": p, "style": s, "update": u, "before": b, "after": a}
                                  for p, s, u, b, a in blocks]})
    return answers


# ---------------------------------------------------------------------------
# Quality


def read_back(answer: dict) -> dict:
    """The same blocks written in each convention: does reading the answer give every block, its path and its
    text, and nothing else?  (Only the reading differs between conventions; the merges are the same.)"""
    from cad_lsp.program.answer import read_answer

    blocks = [(f["path"], f["update"]) for f in answer["files"]]
    wanted = [(path, update if update.endswith("\n") else update + "\n") for path, update in blocks]
    out = {}
    for convention in CONVENTIONS:
        text = write_answer(answer["subject"], blocks, convention, answer["variant"], answer["commands"])
        reading = read_answer(text)
        out[convention] = [(b.path, b.text) for b in reading.blocks] == wanted
    return out


def judge(answer: dict) -> dict:
    """The answer planned on the files before the commit: fully right, and each block merged alone."""
    from cad_lsp.program.answer_plan import plan_answer
    from cad_lsp.program.update import UpdateError, merge_update

    texts = {f["path"]: f["before"] for f in answer["files"] if f["before"] is not None}

    def read(target: Path):
        key = target.relative_to(base).as_posix()
        return (texts[key], None) if key in texts else (None, None)

    base = Path("/answer-root")
    t0 = time.perf_counter()
    plan = plan_answer(answer["text"], base, read=read, files=lambda root: list(texts))
    seconds = time.perf_counter() - t0
    got = {change.path: change for change in plan.files}
    files = []
    for f in answer["files"]:
        change = got.get(f["path"])
        row = {"path": f["path"], "style": f["style"], "lines": (f["before"] or f["after"]).count("\n"),
               "answer": change is not None and change.after == f["after"],
               "refused": change is None or change.after is None}
        if f["before"] is None:
            row["alone"] = True
        else:
            t1 = time.perf_counter()
            try:
                row["alone"] = merge_update(f["before"], f["update"], PurePosixPath(f["path"]).name).merged == f["after"]
            except UpdateError:
                row["alone"] = False
            row["alone_s"] = round(time.perf_counter() - t1, 4)
        files.append(row)
    right = plan.complete and set(got) == {f["path"] for f in answer["files"]} and all(r["answer"] for r in files)
    read = read_back(answer) if "subject" in answer else {}
    return {"id": answer["id"], "convention": answer["convention"], "files": files, "right": right, "read": read,
            "complete": plan.complete, "unplaced": len(plan.problems), "skipped": len(plan.skipped),
            "alone": all(r["alone"] for r in files), "seconds": round(seconds, 4)}


def summarize(rows: list[dict]) -> dict:
    out = {}
    for key in list(CONVENTIONS) + ["all"]:
        group = [r for r in rows if key in ("all", r["convention"])]
        if not group:
            continue
        alone = [r for r in group if r["alone"]]
        blocks = [f for r in group for f in r["files"]]
        out[key] = {"n": len(group), "right": sum(r["right"] for r in group),
                    "files": sum(len(r["files"]) for r in group),
                    "alone_n": len(alone), "alone_right": sum(r["right"] for r in alone),
                    "blocks": len(blocks), "blocks_answer": sum(f["answer"] for f in blocks),
                    "blocks_alone": sum(f["alone"] for f in blocks),
                    "unplaced": sum(r["unplaced"] for r in group), "refused": sum(f["refused"] for f in blocks),
                    "read_back": sum(r.get("read", {}).get(key, False) for r in rows) if key != "all" else
                    sum(all(r.get("read", {}).values()) and bool(r.get("read")) for r in rows),
                    "plan_s_median": median([r["seconds"] for r in group]),
                    "plan_within": sum(r["seconds"] <= PLAN_GOAL_S for r in group),
                    "plan_s_max": max(r["seconds"] for r in group)}
    styles = {}
    for f in (f for r in rows for f in r["files"]):
        cell = styles.setdefault(f["style"], {"n": 0, "answer": 0, "alone": 0})
        cell["n"] += 1
        cell["answer"] += f["answer"]
        cell["alone"] += f["alone"]
    return {"conventions": out, "styles": styles}


# ---------------------------------------------------------------------------
# Hand-written chat answers: what assistants print, beside what the project's generator writes

CHAT_SET = ROOT / "bench" / "data" / "answers-chat-heldout.jsonl"
# Sets of hand-written answers kept apart from the merge's tuning, each written apart and measured as it came:
# (file, how it was written).
CHAT_SETS = ((CHAT_SET, "24 answers as assistants print them: their own habits of naming files, eliding code and "
                        "showing diffs, written apart from the merge and kept out of its tuning"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-2.jsonl",
              "a second set of 24, 8 per convention, written later by the same brief as the tuning answers of "
              "`tests/data/answers-chat.jsonl` and never read while tuning; 8 of 24 were right with the merge of "
              "its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-3.jsonl",
              "a third set of 24, 8 per convention, by the same brief, written after the second's count had been "
              "looked at while tuning, and never read while tuning (its count was looked at once, midway); 13 of "
              "24 were right with the merge of its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-4.jsonl",
              "a fourth set of 24, 8 per convention, by the same brief, written after the third's count had been "
              "looked at, and never read while tuning; 14 of 24 were right with the merge of its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-5.jsonl",
              "a fifth set of 24, 8 per convention, by the same brief, written after the fourth's count had been "
              "looked at, and never read while tuning; 14 of 24 were right with the merge of its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-6.jsonl",
              "a sixth set of 24, 8 per convention, by the same brief, written after the fifth's count had been "
              "looked at, and never read while tuning; 19 of 24 were right with the merge of its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-7.jsonl",
              "a seventh set of 24, 8 per convention, by the same brief, written after the sixth's count had been "
              "looked at, and never read while tuning; 16 of 24 were right with the merge of its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-8.jsonl",
              "an eighth set of 24, 8 per convention, by the same brief (at least eight languages), written after the "
              "seventh's count had been looked at, and never read while tuning; 13 of 24 were right with the merge "
              "of its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-9.jsonl",
              "a ninth set of 24, 8 per convention, by the same brief (at least eight languages), written after the "
              "eighth's count had been looked at, and never read while tuning; 6 of 24 were right with the merge "
              "of its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-10.jsonl",
              "a tenth set of 24, 8 per convention, by the same brief (at least eight languages), written after the "
              "ninth's count had been looked at, and never read while tuning; 13 of 24 were right with the merge "
              "of its day when it came"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-11.jsonl",
              "an eleventh set of 24, 8 per convention, by the same brief (at least eight languages), never read "
              "while tuning; 10 of 24 were right with the merge of the day it came (info 4, first line 5, line "
              "before 1)"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-12.jsonl",
              "a twelfth set of 24, 8 per convention, by a brief of the same points (at least eight languages), "
              "never read while tuning; 17 of 24 were right with the merge of the day it came (info 6, first line "
              "6, line before 5), 16 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-13.jsonl",
              "a thirteenth set of 24, 8 per convention, by the same brief as the twelfth (at least eight languages), "
              "never read while tuning; 14 of 24 were right with the merge of the day it came (info 7, first line "
              "4, line before 3), 14 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-14.jsonl",
              "a fourteenth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 17 of 24 were right with the merge of the day it came (info 7, "
              "first line 6, line before 4), 16 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-15.jsonl",
              "a fifteenth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 16 of 24 were right with the merge of the day it came (info 6, "
              "first line 6, line before 4), 16 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-16.jsonl",
              "a sixteenth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 14 of 24 were right with the merge of the day it came (info 5, "
              "first line 5, line before 4), 12 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-17.jsonl",
              "a seventeenth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 16 of 24 were right with the merge of the day it came (info 5, "
              "first line 6, line before 5), 16 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-18.jsonl",
              "an eighteenth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 17 of 24 were right with the merge of the day it came (info 7, "
              "first line 5, line before 5), 17 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-19.jsonl",
              "a nineteenth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 19 of 24 were right with the merge of the day it came (info 7, "
              "first line 6, line before 6), 19 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-20.jsonl",
              "a twentieth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 14 of 24 were right with the merge of the day it came (info 6, "
              "first line 4, line before 4), 14 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-21.jsonl",
              "a twenty-first set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 20 of 24 were right with the merge of the day it came (info 8, "
              "first line 6, line before 6), 20 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-22.jsonl",
              "a twenty-second set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 13 of 24 were right with the merge of the day it came (info 5, "
              "first line 6, line before 2), 13 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-23.jsonl",
              "a twenty-third set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 22 of 24 were right with the merge of the day it came (info 7, "
              "first line 8, line before 7), 22 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-24.jsonl",
              "a twenty-fourth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 16 of 24 were right with the merge of the day it came (info 6, "
              "first line 5, line before 5), 16 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-25.jsonl",
              "a twenty-fifth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 21 of 24 were right with the merge of the day it came (info 7, "
              "first line 7, line before 7), 21 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-26.jsonl",
              "a twenty-sixth set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 20 of 24 were right with the merge of the day it came (info 7, "
              "first line 7, line before 6), 20 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-27.jsonl",
              "a twenty-seventh set of 24, 8 per convention, by the same brief as the twelfth (at least eight "
              "languages), never read while tuning; 17 of 24 were right with the merge of the day it came (info 6, "
              "first line 6, line before 5), 17 with that round's starting merge"),
             (ROOT / "bench" / "data" / "answers-chat-heldout-28.jsonl",
              "a twenty-eighth set of 24, all naming their files on the line before, by the brief of a tuning set of "
              "everyday answers (whole functions pasted alone, renames, splits, removals said in prose), never read "
              "while tuning; 8 of 24 were right with the merge of the day it came, 7 with that round's starting "
              "merge"))


def chat_answers(path: Path = CHAT_SET) -> list[dict]:
    import json

    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def judge_chat(case: dict) -> dict:
    """A hand-written answer planned on its files: fully right when every file it changes or creates is the
    text its author expects, byte for byte, and no other file changes."""
    from cad_lsp.program.answer_plan import plan_answer

    base = Path("/answer-root")
    texts = case["files_before"]

    def read(target: Path):
        key = target.relative_to(base).as_posix()
        return (texts[key], None) if key in texts else (None, None)

    t0 = time.perf_counter()
    plan = plan_answer(case["answer"], base, read=read, files=lambda root: list(texts))
    seconds = time.perf_counter() - t0
    got = {change.path: change.after for change in plan.files if change.changed}
    expected = {path: text for path, text in case["files_after"].items() if text != texts.get(path)}
    files = {path: got.get(path) == text for path, text in expected.items()}
    return {"id": case["id"], "convention": case["convention"], "style": case.get("model_style", ""),
            "right": plan.complete and set(got) == set(expected) and all(files.values()),
            "files": len(expected), "files_right": sum(files.values()), "refused": len(plan.refused),
            "unplaced": len(plan.problems), "extra": sorted(set(got) - set(expected)), "seconds": round(seconds, 4)}


def summarize_chat(rows: list[dict]) -> dict:
    out = {}
    for key in sorted({r["convention"] for r in rows}) + ["all"]:
        group = [r for r in rows if key in ("all", r["convention"])]
        out[key] = {"n": len(group), "right": sum(r["right"] for r in group),
                    "files": sum(r["files"] for r in group), "files_right": sum(r["files_right"] for r in group),
                    "refused": sum(r["refused"] for r in group), "unplaced": sum(r["unplaced"] for r in group)}
    return out


# ---------------------------------------------------------------------------
# Speed


def timed_files(count: int, seed: int) -> list[tuple[str, str, str, str]]:
    """(path, before, after, update): held-out standard-library modules of 500-2,000 lines, one synthetic edit
    each shown with markers, drawn again until the merge makes it exactly (these time a right merge; the set above
    measures how often it is right)."""
    from cad_lsp.program.update import UpdateError, merge_update
    from cad_lsp.train.families import TEST_MODULES
    from cad_lsp.train.updates import make_update, module_source, synthetic_edit

    rng = random.Random(seed)
    out = []
    for module in TEST_MODULES:
        text = module_source(module)
        if text is None or "\t" in text or not TIMED_LINES[0] <= text.count("\n") <= TIMED_LINES[1]:
            continue
        for _ in range(8):
            edit = synthetic_edit(text, rng)
            update = make_update(text, edit[0], "markers", rng) if edit else None
            try:
                exact = update is not None and merge_update(text, update, "python").merged == edit[0]
            except UpdateError:
                exact = False
            if exact:
                out.append((f"lib/{module.replace('.', '_')}.py", text, edit[0], update))
                break
        if len(out) == count:
            break
    return out


def timed_answer(files) -> str:
    return write_answer("apply the edits", [(path, update) for path, _, _, update in files], "info", 0, False)


def time_cli(files, repeats: int) -> dict:
    """``cad-lsp apply --answer FILE --root DIR --write --json`` as a subprocess: a first run, then the median of
    the next ones (the files put back before each run, outside the clock)."""
    import json

    folder = Path(tempfile.mkdtemp(prefix="cad-answer-"))
    try:
        answer = folder / "answer.md"
        answer.write_text(timed_answer(files), encoding="utf-8")
        root = folder / "root"
        command = [sys.executable, "-m", "cad_lsp", "apply", "--answer", str(answer), "--root", str(root), "--write",
                   "--json"]
        seconds, exact = [], True
        for _ in range(repeats + 1):
            for path, before, _, _ in files:
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(before, encoding="utf-8")
            t0 = time.perf_counter()
            out = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
            seconds.append(time.perf_counter() - t0)
            if out.returncode != 0:
                return {"error": (out.stderr or out.stdout).strip()[-300:]}
            exact = exact and json.loads(out.stdout)["complete"] and all(
                (root / path).read_text(encoding="utf-8") == after for path, _, after, _ in files)
        return {"first_s": round(seconds[0], 3), "warm_s": round(median(seconds[1:]), 3), "exact": exact}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def time_lsp(sets, repeats: int) -> list[dict]:
    """``cad.applyAnswer`` through a real ``cad-lsp serve`` (``random:tiny``: no model runs for an answer), the
    workspace folder given at initialize and every file opened first: request to workspace/applyEdit, the first
    request, then the median of the next ones (the client applies nothing, so each sees the same files)."""
    from lsprotocol import types as lsp

    from cad_lsp.lsp.answer_flow import ANSWER_COMMAND

    folder = Path(tempfile.mkdtemp(prefix="cad-answer-lsp-"))
    rows = []
    editor = AnswerEditor(folder)
    await editor.start("random:tiny", "fp32", 0, "bench.apply")
    try:
        for files in sets:
            for path, before, _, _ in files:
                target = folder / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(before, encoding="utf-8")
                if target.as_uri() not in editor.versions:
                    editor.open(target.as_uri(), before)
            await until_idle(editor)  # the server warms the model on opened files: timed after, as a user waits
            text = timed_answer(files)
            seconds, exact = [], True
            for _ in range(repeats + 1):
                editor.applied = asyncio.get_running_loop().create_future()
                t0 = time.perf_counter()
                answer = await editor.client.workspace_execute_command_async(
                    lsp.ExecuteCommandParams(command=ANSWER_COMMAND, arguments=[{"text": text}]))
                if not editor.applied.done():
                    raise RuntimeError(f"no workspace/applyEdit: {answer}; {editor.messages[-3:]}")
                at, edit = editor.applied.result()
                seconds.append(at - t0)
                made = {change.text_document.uri: apply_edits(editor.texts[change.text_document.uri], change.edits)
                        for change in edit.document_changes or []}
                exact = exact and made == {(folder / path).as_uri(): after for path, _, after, _ in files}
            rows.append({"files": len(files), "first_s": round(seconds[0], 3), "warm_s": round(median(seconds[1:]), 3),
                         "exact": exact})
    finally:
        await editor.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return rows


async def until_idle(editor, quiet_s: float = 2.0, cap_s: float = 120.0) -> None:
    """Wait until the server has used no CPU for ``quiet_s`` (at most ``cap_s``)."""
    t0, quiet, last = time.perf_counter(), 0.0, editor.server_cpu_s()
    while quiet < quiet_s and time.perf_counter() - t0 < cap_s:
        await asyncio.sleep(0.5)
        now = editor.server_cpu_s()
        quiet = quiet + 0.5 if now - last < 0.05 else 0.0
        last = now


def apply_edits(text: str, edits) -> str:
    """A document's text with an applyEdit's TextEdits made (ASCII text: characters are UTF-16 units)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position) -> int:
        return starts[min(position.line, len(lines))] + position.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def _editor_class():
    from lsprotocol import types as lsp

    from .serve import Editor

    class _AnswerEditor(Editor):
        """The bench's editor with a workspace folder, as an editor opened on a project has."""

        def __init__(self, folder: Path):
            super().__init__()
            self.folder = folder

        async def start(self, model, dtype, threads, child="bench.serve", *extra):
            await self.client.start_io(sys.executable, "-m", child, model, dtype, str(threads), *extra, cwd=str(ROOT))
            caps = lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True),
                                          workspace=lsp.WorkspaceClientCapabilities(apply_edit=True))
            t0 = time.perf_counter()
            await self.client.initialize_async(lsp.InitializeParams(
                capabilities=caps, process_id=None, root_uri=self.folder.as_uri(),
                workspace_folders=[lsp.WorkspaceFolder(uri=self.folder.as_uri(), name="bench")]))
            self.client.initialized(lsp.InitializedParams())
            await self.loaded.wait()
            return time.perf_counter() - t0

    return _AnswerEditor


def AnswerEditor(folder: Path):  # a class made on first use: bench.serve imports pygls
    return _editor_class()(folder)


def run_speed(args) -> dict:
    repeats = args.repeats or (2 if args.quick else 5)
    files = timed_files(max(TIMED_FILES), args.seed)
    counts = (1,) if args.quick else TIMED_FILES
    sets = [files[:n] for n in counts if n <= len(files)]
    rows = [{"files": len(s), "lines": [before.count("\n") for _, before, _, _ in s], **time_cli(s, repeats)}
            for s in progress(sets, "answer cli")]
    if not args.quick:
        for row, lsp_row in zip(rows, asyncio.run(time_lsp(sets, repeats))):
            row["lsp"] = lsp_row
    return {"repeats": repeats, "rows": rows}


# ---------------------------------------------------------------------------


def run(args) -> dict:
    at, note = history()
    found = commits(at) if at else []
    answers = build_set(found, args.seed, QUICK_ANSWERS if args.quick else args.limit)
    rows = [judge(a) for a in progress(answers, "answer quality")]
    chats = []
    for path, about in CHAT_SETS:
        chat = [judge_chat(case) for case in chat_answers(path)]
        if chat:
            chats.append({"set": path.relative_to(ROOT).as_posix(), "about": about, "rows": chat,
                          "summary": summarize_chat(chat)})
    return {"set_at": at, "history": note, "commits": len(found), "rows": rows, "summary": summarize(rows),
            "chats": chats, "speed": run_speed(args)}


def markdown(data: dict) -> str:
    s = data["summary"]
    conv = []
    for key in list(CONVENTIONS) + ["all"]:
        c = s["conventions"].get(key)
        if not c:
            continue
        conv.append([f"**{key}**" if key == "all" else key, c["n"], c["files"],
                     f"{c['right']} ({pct(c['right'] / c['n'])})",
                     f"{c['alone_right']}/{c['alone_n']}" + (f" ({pct(c['alone_right'] / c['alone_n'])})"
                                                             if c["alone_n"] else ""),
                     f"{c['blocks_answer']}/{c['blocks']}", f"{c['blocks_alone']}/{c['blocks']}",
                     c["refused"], c["unplaced"], f"{c['read_back']}/{len(data['rows'])}",
                     f"{c['plan_s_median']:.3f} / {c['plan_s_max']:.1f}", f"{c['plan_within']}/{c['n']}"])
    quality = table(["path convention", "answers", "files", "answers fully right",
                     "fully right, of those whose blocks each merge right alone", "files right in the answer",
                     "blocks right merged alone (cad-lsp apply)", "files refused", "blocks placed in no file",
                     "every answer's blocks read back in this convention", "answer planned in (s, median / max)",
                     f"planned in ≤ {PLAN_GOAL_S} s"], conv)
    styles = table(["block", "n", "right in the answer", "right merged alone"],
                   [[k, v["n"], f"{v['answer']} ({pct(v['answer'] / v['n'])})",
                     f"{v['alone']} ({pct(v['alone'] / v['n'])})"] for k, v in sorted(s["styles"].items())])
    wrong = [r for r in data["rows"] if not r["right"]]
    misses = "; ".join(f"{r['id']} ({r['convention']}: " + ", ".join(
        f"{f['path']} {f['style']}" + (" refused" if f["refused"] else " wrong") for f in r["files"]
        if not f["answer"]) + (f", {r['unplaced']} unplaced" if r["unplaced"] else "") + ")" for r in wrong)
    slow = sorted(((f.get("alone_s", 0), f, r["id"]) for r in data["rows"] for f in r["files"]),
                  key=lambda x: -x[0])[:5]
    slowest = "; ".join(f"{path_id} {f['path']} ({f['lines']:,} lines, {f['style']}) {s:.1f} s"
                        for s, f, path_id in slow)
    speed_rows = []
    for r in data["speed"]["rows"]:
        lsp_row = r.get("lsp") or {}
        lines = f"{min(r['lines']):,}-{max(r['lines']):,}" if len(r["lines"]) > 1 else f"{r['lines'][0]:,}"
        speed_rows.append([r["files"], lines, r.get("warm_s", r.get("error", "")), r.get("first_s", ""),
                           r.get("exact", ""), lsp_row.get("warm_s", ""), lsp_row.get("first_s", ""),
                           lsp_row.get("exact", "")])
    speed = table(["files", "lines each", "cad-lsp apply --answer --write, warm (s)", "first run (s)",
                   "files written exact", "cad.applyAnswer, warm (s)", "first request (s)", "edit exact"], speed_rows)
    return (f"The set: {data['commits']} commits of this project's history ({data['history']}) that change "
            f"{MIN_FILES}-{MAX_FILES} files a block can name by a comment, each at most {MAX_CHANGED} lines added "
            f"plus removed and at most {MAX_LINES:,} lines long; each becomes a chat answer (prose, one block per "
            f"file in a style drawn per file, a shell block in every other answer; the context around a change "
            f"reaches past blank lines to a line of code, so that a deletion shows), the path conventions in turn. "
            f"*Fully right*: every block found its file and every file equals the commit's, byte for byte. *Merged "
            f"alone*: each block given to `cad-lsp apply`'s merge with its file, the single-file baseline. Nobody "
            f"tuned the merge on this set.\n\n{quality}\n\n{styles}\n\n"
            + (f"Not fully right: {misses}.\n\n" if misses else "")
            + (f"The slowest blocks merged alone: {slowest}.\n\n" if slow else "")
            + "".join(chat_markdown(chat) for chat in data.get("chats", []))
            + f"An answer changing 1, 3 and 10 held-out standard-library modules of 500-2,000 lines (one edit in "
            f"each, shown with markers; paths in the info string), warm: the median of {data['speed']['repeats']} "
            f"runs after a first. *cad-lsp apply*: the whole command as a user runs it, from its start to the files "
            f"written; *cad.applyAnswer*: a real `cad-lsp serve` with every file open, from the request to its "
            f"`workspace/applyEdit` once the server is idle after opening them (no model runs for an answer).\n\n{speed}")


def chat_markdown(chat: dict | None) -> str:
    if not chat:
        return ""
    rows = [[f"**{key}**" if key == "all" else key, c["n"], f"{c['right']} ({pct(c['right'] / c['n'])})",
             f"{c['files_right']}/{c['files']}", c["refused"], c["unplaced"]] for key, c in chat["summary"].items()]
    wrong = "; ".join(f"{r['id']} ({r['convention']}, {r['files_right']}/{r['files']} files"
                      + (f", {r['refused']} refused" if r["refused"] else "")
                      + (f", {r['unplaced']} unplaced" if r["unplaced"] else "")
                      + (f", also changed {', '.join(r['extra'])}" if r["extra"] else "") + ")"
                      for r in chat["rows"] if not r["right"])
    return (f"Hand-written chat answers (`{chat['set']}`: {chat['about']}). *Fully right*: every file the answer "
            f"changes or creates is what its author expects, byte for byte, and no other file changes.\n\n"
            + table(["path convention", "answers", "fully right", "files right", "files refused",
                     "blocks placed in no file"], rows)
            + (f"\n\nNot fully right: {wrong}." if wrong else "") + "\n\n")
