"""A hostile client: thousands of seeded messages, valid and broken, and the server must answer them all.

The server runs in this process on pipes, so its copy of each document can be
compared with the client's.  The client keeps its documents with its own
reference implementation of LSP's change rules (regex line splitting, UTF-16
code units), not the server's code.

Invariants: the server stays up; every request gets exactly one response
(results, or the JSON-RPC error its fault calls for); every broken frame gets
one parse error; the server's copy of every open document equals the
client's; an edit arrives only for the version its command named.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import threading
import time
from collections import Counter

from cad_lsp.lsp.requests import APPLY_COMMAND, EDIT_COMMAND, Options
from cad_lsp.lsp.server import create_server
from tests.conftest import SUMMARY

SEED = 20261130
MESSAGES = 3000
EDIT_SHARE = 0.02  # executeCommand runs the model: a few percent keeps the suite fast
APPLY_SHARE = 0.01  # cad.applyUpdate, its argument mutated (or not: then it may run the model)
PIECES = ["x", "def f(a, b):\n", "    return a + b\n", "\r\n", "😀", "é", "\n\n", "# AI: fix it\n", "\t", "\u2028",
          "\x00", "🐍🐍", "\r", "pass"]
WRONG = [None, -1, 2**70, -(2**70), 1.5, "x", "", "\x00", "\ud800", [], {}, [1, "a"], {"a": None}, True, False]
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


# ---------------------------------------------------------------------------
# The client's own model of LSP documents


def lines_of(text: str) -> list[str]:
    return _LINE.findall(text) or [""]


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def offset(text: str, line: int, character: int) -> int:
    """LSP position -> index, clamped as LSP asks of a document change."""
    lines = lines_of(text)
    if line >= len(lines):
        return len(text)
    start = sum(len(x) for x in lines[:line])
    body = lines[line].rstrip("\r\n")
    units = 0
    for i, ch in enumerate(body):
        if units >= character:
            return start + i
        units += utf16_len(ch)
    return start + len(body)


def position(text: str, index: int) -> dict:
    """Index -> LSP position, never inside a surrogate pair or a CRLF."""
    line = 0
    seen = 0
    for line, body in enumerate(lines_of(text)):
        if index <= seen + len(body.rstrip("\r\n")):
            return {"line": line, "character": utf16_len(body[: max(0, index - seen)])}  # inside a CRLF: next line
        seen += len(body)
    return {"line": line, "character": utf16_len(lines_of(text)[-1].rstrip("\r\n"))}


# ---------------------------------------------------------------------------
# Transport


class Wire:
    """Frames to the server and everything it sends back, over two pipes."""

    def __init__(self):
        to_server, self._write_fd = os.pipe()
        self._read_fd, from_server = os.pipe()
        self.server = create_server(Options(model="random:tiny", max_tokens=64, needs_confirmation=False))
        self.thread = threading.Thread(target=self._serve, args=(to_server, from_server), daemon=True)
        self.exit_code = None
        self.lock = threading.Lock()
        self.inbox: queue.Queue = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        self.reader.start()

    def _serve(self, read_fd: int, write_fd: int) -> None:
        with os.fdopen(read_fd, "rb") as stdin, os.fdopen(write_fd, "wb") as stdout:
            self.exit_code = self.server.start_io(stdin, stdout)

    def _read(self) -> None:
        stream = os.fdopen(self._read_fd, "rb")
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line == b"\r\n":
                    break
            self.inbox.put(json.loads(stream.read(length)))

    def raw(self, data: bytes) -> None:
        with self.lock:
            os.write(self._write_fd, data)

    def send(self, message) -> None:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def close(self) -> None:
        os.close(self._write_fd)


class HostileClient:
    """Sends the messages, answers the server's requests, and keeps the books."""

    def __init__(self, wire: Wire):
        self.wire = wire
        self.docs: dict[str, tuple[int, str]] = {}  # uri -> (version, text)
        self.history: dict[tuple[str, int], str] = {}
        self.expected: dict = {}  # request id -> ("result" | error code, count)
        self.answers: dict = {}  # request id -> list of responses
        self.null_errors: list[dict] = []
        self.parse_errors_expected = 0
        self.edit_versions: set[tuple[str, int]] = set()
        self.edits_received: list = []
        self.labels: Counter = Counter()  # the labels of the edits received: which command made them
        self.shown: list[str] = []
        self.next_id = 100

    # -- bookkeeping

    def request(self, method: str, params, expect, msg_id=None) -> None:
        msg_id = self.new_id() if msg_id is None else msg_id
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not ...:
            message["params"] = params
        self.expected.setdefault(msg_id, []).append(expect)
        self.wire.send(message)

    def notify(self, method: str, params) -> None:
        self.wire.send({"jsonrpc": "2.0", "method": method, "params": params})

    def new_id(self):
        self.next_id += 1
        return self.next_id if self.next_id % 3 else f"s{self.next_id}"

    def pump(self, timeout: float = 0.0) -> None:
        """Handle everything the server has sent so far."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.wire.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return
            self.handle(message)

    def handle(self, message: dict) -> None:
        if "method" in message and "id" in message:  # the server asks
            result = None
            if message["method"] == "workspace/applyEdit":
                self.labels[message["params"].get("label")] += 1
                result = self.apply_edit(message["params"]["edit"])
            self.wire.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif "method" in message:
            if message["method"] == "window/showMessage":
                self.shown.append(message["params"]["message"])
        elif message.get("id") is None:
            self.null_errors.append(message)
        else:
            self.answers.setdefault(message["id"], []).append(message)

    def apply_edit(self, edit: dict) -> dict:
        (change,) = edit["documentChanges"]
        uri, version = change["textDocument"]["uri"], change["textDocument"]["version"]
        assert (uri, version) in self.edit_versions, f"an edit for {uri} v{version}, which no command named"
        self.edits_received.append((uri, version))
        current = self.docs.get(uri)
        if current is None or current[0] != version:
            return {"applied": False, "failureReason": "the document moved on"}
        text = current[1]
        for e in sorted(change["edits"], key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                        reverse=True):
            start = offset(text, e["range"]["start"]["line"], e["range"]["start"]["character"])
            end = offset(text, e["range"]["end"]["line"], e["range"]["end"]["character"])
            text = text[:start] + e["newText"] + text[end:]
        self.set_text(uri, version + 1, text, full=True)
        return {"applied": True}

    # -- documents

    def set_text(self, uri: str, version: int, text: str, full: bool = False, change: dict | None = None) -> None:
        self.docs[uri] = (version, text)
        self.history[(uri, version)] = text
        if full:
            change = {"text": text}
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [change]})

    def open(self, rnd: random.Random) -> None:
        uri = f"file:///hostile/{len(self.history)}/doc.py"
        text = "".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 30)))
        self.docs[uri] = (1, text)
        self.history[(uri, 1)] = text
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                              "text": text}})

    def change(self, rnd: random.Random, uri: str) -> None:
        version, text = self.docs[uri]
        a, b = sorted(rnd.randint(0, len(text)) for _ in range(2))
        # never split a surrogate pair or a CRLF: move the ends to whole characters the editor would report
        start, end = position(text, a), position(text, b)
        new = "".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 4)))
        s, e = offset(text, start["line"], start["character"]), offset(text, end["line"], end["character"])
        self.set_text(uri, version + 1, text[:s] + new + text[e:],
                      change={"range": {"start": start, "end": end}, "text": new})

    def selection(self, rnd: random.Random, uri: str) -> dict:
        _, text = self.docs[uri]
        n = len(lines_of(text))
        first = rnd.randrange(n)
        last = rnd.randrange(first, n)
        return {"start": {"line": first, "character": 0}, "end": position(text, sum(
            len(x) for x in lines_of(text)[: last + 1]))}


# ---------------------------------------------------------------------------
# Message generators


def mutate(rnd: random.Random, value):
    """``value`` with one place at any depth replaced by a value of a wrong JSON type."""
    if isinstance(value, dict) and value and rnd.random() < 0.7:
        key = rnd.choice(sorted(value))
        return {**value, key: mutate(rnd, value[key])}
    if isinstance(value, list) and value and rnd.random() < 0.7:
        i = rnd.randrange(len(value))
        return value[:i] + [mutate(rnd, value[i])] + value[i + 1 :]
    wrong = rnd.choice(WRONG)
    return wrong if type(wrong) is not type(value) or wrong != value else None


def valid_requests(client: HostileClient, rnd: random.Random, uri: str) -> list[tuple[str, dict]]:
    sel = client.selection(rnd, uri)
    version = client.docs[uri][0]
    data = {"uri": uri, "version": version, "range": sel, "instruction": "Simplify"}
    return [
        ("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": sel, "context": {"diagnostics": []}}),
        ("codeAction/resolve", {"title": "Simplify", "data": data}),
    ]


def update_of(rnd: random.Random, text: str) -> str:
    """An update snippet for ``text``: a stretch of its lines with a new line inside, between markers."""
    lines = [line if line.endswith(("\n", "\r")) else line + "\n" for line in lines_of(text)]
    first = rnd.randrange(len(lines))
    shown = lines[first : first + rnd.randint(1, 3)]
    at = rnd.randint(0, len(shown))
    return "".join(["# ... existing code ...\n", *shown[:at], rnd.choice(PIECES) + "\n", *shown[at:],
                    "# ... existing code ...\n"])


def hostile_round(client: HostileClient, rnd: random.Random, counts: Counter) -> None:
    uris = sorted(client.docs)
    roll = rnd.random()
    if not uris or roll < 0.05:
        client.open(rnd)
        counts["didOpen"] += 1
        return
    uri = rnd.choice(uris)
    if roll < 0.30:
        client.change(rnd, uri)
        counts["didChange"] += 1
    elif roll < 0.30 + EDIT_SHARE:
        version = client.docs[uri][0]
        data = {"uri": uri, "version": version, "range": client.selection(rnd, uri), "instruction": "Simplify"}
        client.edit_versions.add((uri, version))
        msg_id = client.new_id()
        client.request("workspace/executeCommand", {"command": EDIT_COMMAND, "arguments": [data]}, "result", msg_id)
        counts["edit"] += 1
        if rnd.random() < 0.5:  # wait for it (an edit that can land); otherwise go on changing documents meanwhile
            deadline = time.monotonic() + 60
            while msg_id not in client.answers:
                assert time.monotonic() < deadline, "an edit was not answered"
                client.pump(0.05)
    elif roll < 0.30 + EDIT_SHARE + APPLY_SHARE:
        version, text = client.docs[uri]
        data = {"uri": uri, "version": version, "update": update_of(rnd, text), "instruction": "x"}
        client.edit_versions.add((uri, version))  # the mutation may leave it valid: then it edits this version
        arguments = [data] if rnd.random() < 0.3 else mutate(rnd, [data])
        client.request("workspace/executeCommand", {"command": APPLY_COMMAND, "arguments": arguments}, "any")
        counts["apply"] += 1
    elif roll < 0.50:
        method, params = rnd.choice(valid_requests(client, rnd, uri))
        client.request(method, params, "result")
        counts["valid request"] += 1
    elif roll < 0.70:  # wrong JSON types somewhere in the params
        method, params = rnd.choice(valid_requests(client, rnd, uri))
        client.request(method, mutate(rnd, params), "any")  # may stay valid: any one answer
        counts["mutated request"] += 1
    elif roll < 0.75:
        client.request(rnd.choice(["textDocument/hover", "cad/unknown", "$/x", "workspace/symbol"]),
                       rnd.choice([None, {}, 5, ...]), -32601)
        counts["unknown method"] += 1
    elif roll < 0.79:
        client.edit_versions.add((uri, 1))  # a mutation may leave the command valid: then it edits version 1
        client.request("workspace/executeCommand", {"command": EDIT_COMMAND, "arguments": mutate(
            rnd, [{"uri": uri, "version": 1, "range": client.selection(rnd, uri), "instruction": "x"}])}, "any")
        counts["mutated command"] += 1
    elif roll < 0.83:  # bodies that are not JSON, and broken framing
        kind = rnd.choice(["garbage", "utf8", "short", "long", "empty"])
        if kind == "garbage":
            client.wire.send(rnd.choice([b"{", b"nul", b"[1,", b'{"jsonrpc": "2.0", "id": 1', b"\x00\x01"]))
        elif kind == "utf8":
            client.wire.send(b'{"jsonrpc": "2.0", "method": "\xff\xfe"}')
        elif kind == "empty":
            client.wire.send(b"")
        else:
            body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didClose",
                               "params": {"textDocument": {"uri": "file:///never-opened"}}}).encode()
            if kind == "short":  # the rest of the body is read as header lines, then a blank line ends it
                client.wire.raw(b"Content-Length: %d\r\n\r\n" % (len(body) - 5) + body + b"\r\n\r\n")
            else:  # filler completes the frame, so no later message is swallowed
                client.wire.raw(b"Content-Length: %d\r\n\r\n" % (len(body) + 7) + body + b"garbage")
        client.parse_errors_expected += 1
        counts["broken frame"] += 1
    elif roll < 0.86:  # a batch: each request in it is refused by its id
        ids = [client.new_id() for _ in range(rnd.randint(1, 3))]
        for msg_id in ids:
            client.expected.setdefault(msg_id, []).append(-32600)
        client.wire.send([{"jsonrpc": "2.0", "id": i, "method": "shutdown"} for i in ids])
        counts["batch"] += 1
    elif roll < 0.88:  # envelopes that are not messages, or whose id is unusable: answered with id null
        client.wire.send(rnd.choice([5, "x", None, {"method": "shutdown"}, {"jsonrpc": "2.0", "method": 7},
                                     {"jsonrpc": "2.0", "id": [1], "method": "shutdown"},
                                     {"jsonrpc": "2.0", "id": 1.5, "method": "shutdown"},
                                     {"jsonrpc": "2.0", "id": True, "method": "shutdown"}]))
        client.parse_errors_expected += 1
        counts["invalid envelope"] += 1
    elif roll < 0.90:  # a usable id on an invalid request: answered by that id
        msg_id = client.new_id()
        client.expected.setdefault(msg_id, []).append(-32600)
        client.wire.send(rnd.choice([{"jsonrpc": "1.0", "id": msg_id, "method": "shutdown"}, {"id": msg_id},
                                     {"jsonrpc": "2.0", "id": msg_id, "method": ""}]))
        counts["invalid request"] += 1
    elif roll < 0.94:  # notifications with bad params or for nothing: logged, never answered
        client.notify(rnd.choice(["$/cancelRequest", "textDocument/didChange", "textDocument/didClose",
                                  "window/workDoneProgress/cancel", "$/setTrace", "workspace/didChangeConfiguration"]),
                      rnd.choice([None, {"id": rnd.randint(10**6, 10**7)}, {"textDocument": 5}, "x", {}]))
        counts["bad notification"] += 1
    elif roll < 0.97:  # a request whose id is still in use, or a string id with NUL and surrogates
        msg_id = rnd.choice(["\x00", "\ud800", "dup", 2**62])
        method, params = rnd.choice(valid_requests(client, rnd, uri))
        client.request(method, params, "any", msg_id=msg_id)
        counts["odd id"] += 1
    else:
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        client.docs.pop(uri)
        counts["didClose"] += 1


def check_documents(client: HostileClient, wire: Wire) -> int:
    """The server's copy of every open document is the client's; returns how many were compared.

    The server has read every message sent before the "sync" request once it
    answers; an edit the client applies while waiting sends its didChange
    after that request, so then the client syncs again.
    """
    while True:
        before = dict(client.docs)
        client.request("textDocument/codeAction", {
            "textDocument": {"uri": "file:///sync"}, "range": {"start": {"line": 0, "character": 0},
                                                               "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []}}, "result", msg_id="sync")
        deadline = time.monotonic() + 30
        while len(client.answers.get("sync", [])) < len(client.expected["sync"]):
            assert time.monotonic() < deadline, "the server stopped answering"
            client.pump(0.05)
        if client.docs == before:
            break
    for uri, (version, text) in client.docs.items():
        snapshot = wire.server.session.documents.get(uri)
        assert snapshot is not None and snapshot.version == version and snapshot.text == text, uri
    return len(client.docs)


def test_every_request_is_answered(monkeypatch):
    from bench.scripted import comment_after_first_line, scripted_apply, scripted_edit
    from cad_lsp.engine import Engine

    monkeypatch.setattr(Engine, "edit", scripted_edit(comment_after_first_line))  # edits that finish and change
    monkeypatch.setattr(Engine, "apply", scripted_apply())  # updates that land as their merge
    rnd = random.Random(SEED)
    wire = Wire()
    client = HostileClient(wire)
    client.request("initialize", {"capabilities": {"workspace": {"applyEdit": True}}, "processId": None}, "result")
    client.notify("initialized", {})
    deadline = time.monotonic() + 120
    while not wire.server.session.model.ready.is_set():  # edits sent while the model loads would only queue behind it
        assert time.monotonic() < deadline, "the model did not load"
        client.pump(0.1)
    counts: Counter = Counter()
    compared = 0
    for i in range(MESSAGES):
        hostile_round(client, rnd, counts)
        client.pump()
        if i % 250 == 249:
            compared += check_documents(client, wire)
    compared += check_documents(client, wire)

    deadline = time.monotonic() + 120  # edits run the model
    while any(len(client.answers.get(k, [])) < len(v) for k, v in client.expected.items()):
        assert time.monotonic() < deadline, "requests left unanswered: " + repr(
            [k for k, v in client.expected.items() if len(client.answers.get(k, [])) < len(v)][:10])
        client.pump(0.1)
    client.pump(0.5)

    requests = sum(len(v) for v in client.expected.values())
    for msg_id, expects in client.expected.items():
        got = client.answers.get(msg_id, [])
        assert len(got) == len(expects), (msg_id, expects, got)
        for expect, answer in zip(expects, got):
            if expect == "result":
                assert "result" in answer, (msg_id, answer)
            elif isinstance(expect, int):
                assert answer.get("error", {}).get("code") == expect, (msg_id, answer)
            assert "error" not in answer or answer["error"]["message"], answer
    assert client.edits_received, "no edit reached the editor: the version invariant went untested"
    assert len(client.null_errors) == client.parse_errors_expected
    assert all(e["error"]["code"] in (-32700, -32600) for e in client.null_errors)
    assert not any("Error in server" in m for m in client.shown)
    assert len(client.shown) <= counts["edit"] + counts["mutated command"] + counts["apply"]  # only edits tell

    client.request("shutdown", ..., "result", msg_id="bye")
    client.pump(5)
    client.notify("exit", None)
    wire.thread.join(10)
    wire.close()
    assert not wire.thread.is_alive() and wire.exit_code == 0
    sent = sum(counts.values())
    SUMMARY.append(f"hostile client: {sent} messages sent ({dict(sorted(counts.items()))}); {requests + 1} "
                   f"requests, all answered; {len(client.null_errors)} broken frames answered with id null; "
                   f"{compared} document comparisons equal; {len(client.edits_received)} edits received "
                   f"({dict(client.labels)}), each "
                   f"for the version its command named")
