"""The train/test split, the selection each row asks about, and few-shot examples.

One task in five is held out for testing, decided by the *task*, not the
row: HumanEvalFix Python and JavaScript share their 164 problems (and
HumanEval's solutions are their fixed code), so task n lands on the same side
in every corpus that derives from it.  HumanEval task n is a test task when
n % 5 == 0 (33 of 164, the size of the paper's held-out set); every other
row is a test row when the SHA-256 of its key is 0 modulo 5.  Nothing here
is random, so the split is the same on every machine and every run.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass

from ..program import Copy, Gen, oracle_for_selection, split_lines

TEST_EVERY = 5
COMMIT_CONTEXT = 3  # unchanged lines kept around a commit's change in its selection

_HUMANEVAL_RE = re.compile(r"(?:humanevalfix/[A-Za-z]+|HumanEval)/(\d+)$")


def task_key(pair_id: str) -> str:
    """The task a row belongs to: 'humaneval/12' for HumanEval(Fix) task 12, else the id itself."""
    m = _HUMANEVAL_RE.search(pair_id)
    return f"humaneval/{int(m.group(1))}" if m else pair_id


def is_test(pair_id: str) -> bool:
    key = task_key(pair_id)
    if key.startswith("humaneval/"):
        return int(key.split("/")[1]) % TEST_EVERY == 0
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % TEST_EVERY == 0


def split(pairs: list) -> tuple[list, list]:
    """(train, test), each in the input order."""
    train = [p for p in pairs if not is_test(p.id)]
    test = [p for p in pairs if is_test(p.id)]
    return train, test


@dataclass(frozen=True)
class Request:
    """What one row asks the model: lines first..last of ``document`` must become ``target``."""

    document: str
    first: int
    last: int
    instruction: str
    target: str  # the gold text of the selected lines after the edit
    after: str  # the gold whole document after the edit


def changed_lines(before: str, after: str) -> tuple[int, int] | None:
    """1-based (first, last) before-lines touched by the edit; an insertion touches the line after it."""
    old, new = split_lines(before), split_lines(after)
    ops = [op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops:
        return None
    first = ops[0][1] + 1
    last = max(ops[-1][2], first)
    return min(first, len(old)), min(last, len(old))


def request_for(pair, context: int = COMMIT_CONTEXT) -> Request:
    """The selection an editor user would make.

    Functions (HumanEvalFix, QuixBugs) are selected whole.  A commit touches a
    few lines of a long file, so its selection is the changed lines plus
    ``context`` unchanged lines on each side.
    """
    old = split_lines(pair.before)
    if pair.corpus != "commits" or not old:
        return Request(pair.before, 1, max(len(old), 1), pair.instruction, pair.after, pair.after)
    first, last = changed_lines(pair.before, pair.after) or (1, len(old))
    first, last = max(1, first - context), min(len(old), last + context)
    new = split_lines(pair.after)
    target = "".join(new[first - 1 : len(new) - (len(old) - last)])
    return Request(pair.before, first, last, pair.instruction, target, pair.after)


def oracle_for(request: Request) -> list:
    """The line oracle for a request, with copies numbered as document lines."""
    return oracle_for_selection(request.document, request.first, request.last, request.target)


def window(request: Request, margin: int) -> Request:
    """The same request on a document cut to the selection and ``margin`` lines each side, renumbered.

    Long files make long prompts; a window keeps what the edit needs to see.
    """
    old = split_lines(request.document)
    lo, hi = max(1, request.first - margin), min(len(old), request.last + margin)
    new = split_lines(request.after)
    head, tail = old[: lo - 1], old[hi:]
    after = "".join(new[len(head) : len(new) - len(tail)])
    return Request("".join(old[lo - 1 : hi]), request.first - lo + 1, request.last - lo + 1,
                   request.instruction, request.target, after)


def few_shot_requests(train: list, k: int = 2, max_lines: int = 16, margin: int = 2) -> list[Request]:
    """k short train requests whose oracle both copies and generates, shortest first (deterministic).

    Shortest by document plus answer, so that no example teaches a long generation.

    Short, because a 135M model's context is precious (documents are cut to
    the selection and ``margin`` lines); both op kinds, because an example
    that only copies teaches nothing about edits.
    """
    candidates = []
    for pair in train:
        request = window(request_for(pair), margin)
        if len(split_lines(request.document)) > max_lines:
            continue
        ops = oracle_for(request)
        if any(isinstance(op, Copy) for op in ops) and any(isinstance(op, Gen) for op in ops):
            candidates.append((len(request.document) + len(request.target), pair.id, request))
    return [request for _, _, request in sorted(candidates)[:k]]
