"""A hostile crowd against `cad-lsp http`: seeded bursts of concurrent requests, valid, malformed, oversized,
unauthorised, aimed at another Host, and abandoned halfway, on a server with a short queue.

Invariants: every request that is not abandoned gets a well-formed answer
with the status its fault calls for (a completion or an event stream ending
in [DONE] for a valid one, or 429 when the queue is full; an OpenAI error
object otherwise); nothing is logged as an unexpected failure; no request
keeps its place in the queue once its client has left; and afterwards the
server still answers a good request with what the engine itself gives.
"""

from __future__ import annotations

import json
import logging
import random
import socket
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.conftest import SUMMARY

from .http_server import running
from .test_http import CODE, SMALL, SMALL_UPDATE, UPDATE, engine_answer, morph, wait_for

SEED = 20261207
ROUNDS = 6
BURST = 30  # requests sent at once in a round
KEY = "hostile-key"
LIMIT = 16 << 10  # --max-body-bytes
PAIRS = [(CODE, UPDATE), (SMALL, SMALL_UPDATE), (CODE.replace("\n", "\r\n"), UPDATE.replace("\n", "\r\n"))]
WRONG = [None, -1, 2**70, 1.5, "x", "", [], {}, [1, "a"], {"a": None}, True, "\ud800"]
KINDS = {  # kind: (weight, statuses a well-formed answer may have)
    "valid": (6, {200, 429}), "stream": (4, {200, 429}), "truncated": (2, {400}), "bytes": (1, {400}),
    "mutated": (3, {200, 400, 422, 429}), "unplaceable": (2, {422}), "oversized": (2, {413}),
    "chunked_oversized": (1, {413}), "no_key": (1, {401}), "foreign_host": (1, {403}), "not_http": (1, {400}),
    "abandon_body": (1, None), "abandon_queued": (2, None), "abandon_stream": (2, None),
}


def valid_body(rnd: random.Random, stream: bool = False) -> dict:
    code, update = rnd.choice(PAIRS)
    if rnd.random() < 0.3:
        code, update = f"```python\n{code}```", f"```\n{update}```"
    content = morph(code, update, rnd.choice([None, "Make y non-negative", "é😀"]))
    if rnd.random() < 0.3:
        content = [{"type": "text", "text": content[:50]}, {"type": "text", "text": content[50:]}]
    body = {"model": rnd.choice(["morph-v3-fast", "random:tiny", "x"]), "max_tokens": rnd.randint(1, 8),
            "messages": [{"role": "user", "content": content}], "stream": stream}
    if rnd.random() < 0.3:
        body.update(temperature=0.8, top_p=0.9, seed=rnd.randint(-5, 2**40))
    return body


def mutated_body(rnd: random.Random) -> dict:
    body = valid_body(rnd)
    field = rnd.choice(["messages", "model", "max_tokens", "temperature", "top_p", "seed", "stream", "n",
                        "stream_options", "content", "role"])
    if field == "content":
        body["messages"][0]["content"] = rnd.choice(WRONG)
    elif field == "role":
        body["messages"][0]["role"] = rnd.choice(WRONG)
    else:
        body[field] = rnd.choice(WRONG)
    return body


def encode(body: dict) -> bytes:
    return json.dumps(body).encode("utf-8", "surrogatepass")


def raw_request(port: int, body: bytes, length: int | None = None, host: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
                 b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                 % (host.encode(), KEY.encode(), len(body) if length is None else length) + body)
    return sock


def check_answer(kind: str, response: httpx.Response) -> str:
    """The status, after checking the answer is well formed for it."""
    status = response.status_code
    allowed = KINDS[kind][1]
    assert status in allowed, (kind, status, response.text[:300])
    if status == 200 and response.headers["content-type"].startswith("text/event-stream"):
        events = [line for line in response.text.split("\n\n") if line]
        assert all(e.startswith("data: ") for e in events), events[:3]
        assert events[-1] == "data: [DONE]", events[-2:]
        chunks = [json.loads(e[6:]) for e in events[:-1]]
        assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
        assert chunks[-1]["choices"][0]["finish_reason"] in ("stop", "length")
        assert isinstance("".join(c["choices"][0]["delta"].get("content", "") for c in chunks), str)
    elif status == 200:
        answer = response.json()
        assert answer["object"] == "chat.completion" and isinstance(answer["choices"][0]["message"]["content"], str)
        assert answer["choices"][0]["finish_reason"] in ("stop", "length")
        usage = answer["usage"]
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    elif kind == "not_http":
        pass  # refused by the HTTP parser, before any route: plain text is all HTTP allows here
    else:
        error = response.json()["error"]
        assert set(error) == {"message", "type", "param", "code"} and isinstance(error["message"], str), error
        assert "Traceback" not in response.text
    return str(status)


def send(kind: str, rnd: random.Random, served) -> str:
    """One request of ``kind``; returns what came back."""
    url, port = f"{served.url}/chat/completions", served.port
    auth = {"Authorization": f"Bearer {KEY}"}
    if kind in ("abandon_body", "abandon_queued", "abandon_stream"):
        body = encode(valid_body(rnd, stream=kind == "abandon_stream") | {"max_tokens": 40})
        sock = raw_request(port, body[:len(body) // 2] if kind == "abandon_body" else body, len(body))
        try:
            if kind == "abandon_stream":
                sock.recv(rnd.randint(1, 400))
            else:
                time.sleep(rnd.random() * 0.2)
        except OSError:
            pass
        sock.close()
        return "abandoned"
    if kind == "not_http":
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 200))) + b"\r\n\r\n")
            data = sock.recv(65536)
        if not data:
            return "closed"
        return check_answer(kind, httpx.Response(int(data.split(b" ", 2)[1]), content=b""))
    if kind == "chunked_oversized":
        big = encode(valid_body(rnd)) + b" " * LIMIT

        def pieces():
            for i in range(0, len(big), 4096):
                yield big[i:i + 4096]

        return check_answer(kind, httpx.post(url, content=pieces(), headers=auth, timeout=30))
    if kind == "valid" or kind == "stream":
        raw = encode(valid_body(rnd, stream=kind == "stream"))
    elif kind == "truncated":
        whole = encode(valid_body(rnd))
        raw = whole[:rnd.randrange(len(whole))]
    elif kind == "bytes":
        raw = bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 300)))
    elif kind == "mutated":
        raw = encode(mutated_body(rnd))
    elif kind == "unplaceable":
        body = valid_body(rnd)
        body["messages"][0]["content"] = morph(CODE, rnd.choice(["", "nothing.run()\nnothing.stop()\n", "# ...\n"]))
        raw = encode(body)
    elif kind == "oversized":
        raw = encode(valid_body(rnd)) + b" " * LIMIT
    else:
        raw = encode(valid_body(rnd))
    headers = {"Content-Type": "application/json"}
    if kind != "no_key":
        headers.update(auth)
    if kind == "foreign_host":
        headers["Host"] = rnd.choice(["evil.example", f"attacker.test:{port}", "127.0.0.1.nip.example"])
    return check_answer(kind, httpx.post(url, content=raw, headers=headers, timeout=60))


class Failures(logging.Handler):
    """Records the server's ERROR lines: an unexpected failure anywhere in a request."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


def test_a_hostile_crowd_is_answered_and_the_server_serves_on(tiny_engine):
    rnd = random.Random(SEED)
    failures = Failures()
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "cad_lsp.http")]
    names = list(KINDS)
    weights = [KINDS[k][0] for k in names]
    kinds, outcomes = Counter(), Counter()
    with running(tiny_engine, api_key=KEY, queue=3, max_body_bytes=LIMIT) as served:
        for logger in loggers:
            logger.addHandler(failures)
        try:
            for _ in range(ROUNDS):
                burst = rnd.choices(names, weights, k=BURST)
                seeds = [rnd.randrange(2**32) for _ in burst]
                kinds.update(burst)
                with ThreadPoolExecutor(max_workers=12) as pool:
                    for outcome in pool.map(lambda ks: send(ks[0], random.Random(ks[1]), served), zip(burst, seeds)):
                        outcomes[outcome] += 1
            assert wait_for(lambda: served.holder.admitted == 0, 30), "requests whose clients left kept their places"
            text, finish, _ = engine_answer(tiny_engine, SMALL, SMALL_UPDATE, max_tokens=6)
            good = {"messages": [{"role": "user", "content": morph(SMALL, SMALL_UPDATE)}], "max_tokens": 6}
            answer = httpx.post(f"{served.url}/chat/completions", json=good, timeout=30,
                                headers={"Authorization": f"Bearer {KEY}"}).json()
            assert (answer["choices"][0]["message"]["content"], answer["choices"][0]["finish_reason"]) == (text, finish)
        finally:
            for logger in loggers:
                logger.removeHandler(failures)
    assert not failures.records, [r.getMessage() for r in failures.records]
    assert outcomes["200"] and outcomes["429"] and outcomes["abandoned"]  # the burst filled the queue
    SUMMARY.append(f"hostile http crowd: {sum(kinds.values())} requests ({dict(sorted(kinds.items()))}); answers "
                   f"{dict(sorted(outcomes.items()))}; then a good request answered as the engine does")
