"""Edit families: deterministic edit cases built from Python's standard library.

Each family is an edit that editor users ask for and whose right answer is
unambiguous, so exact match is a fair score:

- ``delete-prints``: two ``print("DEBUG", x)`` lines were added to a function; delete them;
- ``delete-comments``: delete the full-line comments of a function;
- ``rename``: rename a parameter everywhere in the function (``Rename `x` to `y```);
- ``add-docstring``: add a given one-line docstring (the function's own, removed).

Cases come from top-level functions of 4-12 lines of the running
interpreter's standard library, from three disjoint sets of modules: TEST_MODULES
(held out: ``cad-lsp bench families``), EXAMPLE_MODULES (few-shot examples) and
TRAIN_MODULES (``cad-lsp train --families``).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import sysconfig
import tokenize
from pathlib import Path

TEST_MODULES = ["textwrap", "shlex", "fnmatch", "colorsys", "calendar", "bisect", "heapq", "statistics", "glob",
                "posixpath", "string", "difflib", "base64", "quopri", "tokenize", "pprint", "inspect", "shutil",
                "argparse", "gettext", "urllib.parse", "http.cookiejar", "os", "tarfile", "dis", "_pydecimal"]
TRAIN_MODULES = ["ftplib", "imaplib", "smtplib", "mailbox", "pydoc", "pdb", "cmd", "code", "codeop", "sched",
                 "secrets", "uuid", "webbrowser", "zipapp", "wave", "netrc", "mimetypes", "optparse", "getopt",
                 "filecmp", "fileinput", "tempfile", "platform", "sysconfig", "pickletools", "tabnanny", "trace",
                 "timeit", "pathlib", "functools", "enum", "typing", "dataclasses", "logging.__init__",
                 "unittest.case", "xml.dom.minidom", "http.client", "socket", "threading", "csv", "zipfile",
                 "gzip", "sre_parse", "pyclbr", "site", "shelve", "hmac", "ipaddress", "contextlib", "weakref",
                 "collections.__init__", "codecs", "pkgutil", "runpy", "doctest", "email.header",
                 "email._parseaddr", "email.message", "xml.sax.saxutils", "urllib.request", "turtle"]
EXAMPLE_MODULES = ["ntpath", "genericpath", "keyword", "stat", "locale", "traceback", "warnings", "email.utils",
                   "reprlib", "ast"]
FAMILIES = ["delete-prints", "delete-comments", "rename", "add-docstring"]
NEW_NAMES = ["value", "item", "count", "total", "result", "text", "data", "index", "entry", "amount"]
MIN_LINES, MAX_LINES, MAX_CHARS = 4, 12, 480



# ---------------------------------------------------------------------------
# Cases


@functools.lru_cache(maxsize=None)
def functions(module: str) -> tuple[tuple[str, str], ...]:
    """(name, source) of the module's short top-level functions, in file order."""
    path = Path(sysconfig.get_paths()["stdlib"], module.replace(".", "/") + ".py")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ()
    lines = text.splitlines(keepends=True)
    out = []
    for node in ast.parse(text).body:
        if not isinstance(node, ast.FunctionDef) or node.decorator_list:
            continue
        source = "".join(lines[node.lineno - 1 : node.end_lineno])
        n = node.end_lineno - node.lineno + 1
        if MIN_LINES <= n <= MAX_LINES and len(source) <= MAX_CHARS and source.isascii() and "\t" not in source \
                and max(map(len, source.splitlines())) <= 100:
            out.append((f"{module}.{node.name}", source))
    return tuple(out)


def _node(source: str) -> ast.FunctionDef:
    return ast.parse(source).body[0]


def _body_start(node: ast.FunctionDef) -> int:
    """Index of the first statement after the docstring."""
    first = node.body[0]
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    return 1 if is_doc and len(node.body) > 1 else 0


def delete_prints(source: str):
    node = _node(source)
    params = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
    if not params:
        return None
    lines = source.splitlines(keepends=True)
    first = node.body[_body_start(node)]
    last = node.body[-1]
    indent = " " * first.col_offset
    inserts = {first.lineno - 1: f'{indent}print("DEBUG", {params[0]})\n'}
    if last is not first and isinstance(last, ast.Return) and last.lineno == last.end_lineno:
        inserts[last.lineno - 1] = f'{indent}print("DEBUG", {params[-1]})\n'
    document = "".join(inserts.get(i, "") + line for i, line in enumerate(lines))
    return document, source, "Delete the debug print statements"


def delete_comments(source: str):
    lines = source.splitlines(keepends=True)
    comment_rows = {tok.start[0] - 1 for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                    if tok.type == tokenize.COMMENT and lines[tok.start[0] - 1].lstrip().startswith("#")}
    if not comment_rows:
        return None
    target = "".join(line for i, line in enumerate(lines) if i not in comment_rows)
    if ast.dump(ast.parse(target)) != ast.dump(ast.parse(source)):
        return None
    return source, target, "Delete the comment lines"


def rename(source: str):
    node = _node(source)
    if any(isinstance(n, ast.JoinedStr) for n in ast.walk(node)):
        return None  # names inside f-strings: left out, so that a token-level check can verify every case
    for arg in node.args.args:
        old = arg.arg
        if old in ("self", "cls"):
            continue
        spots = [(a.lineno, a.col_offset) for a in ast.walk(node) if isinstance(a, ast.arg) and a.arg == old]
        spots += [(n.lineno, n.col_offset) for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == old]
        if len(spots) < 3 or len(re.findall(rf"\b{re.escape(old)}\b", source)) != len(spots):
            continue  # too few uses, or the name also appears in strings or comments: ambiguous
        new = next((n for n in NEW_NAMES if not re.search(rf"\b{n}\b", source)), None)
        if new is None:
            continue
        lines = source.splitlines(keepends=True)
        for row, col in sorted(spots, reverse=True):
            line = lines[row - 1]
            lines[row - 1] = line[:col] + new + line[col + len(old):]
        return source, "".join(lines), f"Rename `{old}` to `{new}`"
    return None


def add_docstring(source: str):
    node = _node(source)
    if _body_start(node) != 1:
        return None
    doc = node.body[0]
    text = (ast.get_docstring(node) or "").split("\n")[0].strip()
    if not text.endswith(".") or len(text) > 72 or '"' in text or "\\" in text:
        return None
    lines = source.splitlines(keepends=True)
    indent = " " * doc.col_offset
    document = "".join(lines[: doc.lineno - 1] + lines[doc.end_lineno :])
    target = "".join(lines[: doc.lineno - 1] + [f'{indent}"""{text}"""\n'] + lines[doc.end_lineno :])
    return document, target, f'Add the docstring "{text}"'


BUILDERS = {"delete-prints": delete_prints, "delete-comments": delete_comments, "rename": rename,
            "add-docstring": add_docstring}


def cases(family: str, modules: list[str], limit: int | None) -> list[dict]:
    """Up to ``limit`` cases, one module after the other in turn (round robin), deterministic."""
    per_module = []
    for module in modules:
        built = []
        for name, source in functions(module):
            made = BUILDERS[family](source)
            if made is not None and made[0] != made[1]:
                document, target, instruction = made
                built.append({"id": f"{family}/{name}", "document": document, "target": target,
                              "instruction": instruction})
        per_module.append(built)
    out = []
    for i in range(max(map(len, per_module), default=0)):
        out += [built[i] for built in per_module if i < len(built)]
    return out[:limit] if limit is not None else out


def request(case: dict):
    from ..program import split_lines
    from .split import Request

    n = len(split_lines(case["document"]))
    return Request(case["document"], 1, n, case["instruction"], case["target"], case["target"])
