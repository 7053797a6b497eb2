"""`cad-lsp http`, the OpenAI-compatible apply endpoint, through the official `openai` client and raw HTTP
against a real uvicorn server in this process (and once as `python -m cad_lsp http`).

The reference for an answer is the engine itself on the same input (greedy
decoding writes the same program), or, with the program teacher-forced, the
deterministic merge, checked against plain string replacement.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import replace

import httpx
import openai
import pytest

from cad_lsp.backends.pytorch.loading import QWEN_TOKENIZER, load_tokenizer
from cad_lsp.backends.vllm import VLLMEngine
from cad_lsp.cli import build_parser, main
from cad_lsp.engine.window import DEFAULT_CONTEXT_LINES
from cad_lsp.http import server as http_server
from cad_lsp.http.schema import split_tags, strip_fence
from cad_lsp.http.settings import Settings
from cad_lsp.program import apply_program
from cad_lsp.program.update import merge_update

from .http_server import HoldingEngine, TeacherEngine, running

CODE = "".join(f"def f{i}(x):\n    y = x * {i}\n    return y + {i}\n\n\n" for i in range(30))  # 150 lines
UPDATE = ("# ... existing code ...\ndef f12(x):\n    y = x * 12\n    y = abs(y)\n    return y + 12\n"
          "# ... existing code ...\n")
MERGED = CODE.replace("    y = x * 12\n", "    y = x * 12\n    y = abs(y)\n")
BEFORE_CHANGE = CODE[:CODE.index("    y = x * 12\n")]  # the lines before the region (it keeps a line each side)
SMALL = "import os\r\n\r\ndef greet(name):\r\n    return 'héllo ' + name  # 😀\r\n\r\nprint(greet('x'))\r\n"
SMALL_UPDATE = "def greet(name):\r\n    name = name.strip()\r\n    return 'héllo ' + name  # 😀\r\n"


def morph(code: str, update: str, instruction: str | None = None) -> str:
    """The user message Morph's clients send."""
    head = f"<instruction>{instruction}</instruction>\n" if instruction else ""
    return f"{head}<code>{code}</code>\n<update>{update}</update>"


def client(served, **kwargs) -> openai.OpenAI:
    return openai.OpenAI(base_url=served.url, api_key=kwargs.pop("api_key", "unused"), max_retries=0, timeout=30,
                         **kwargs)


def ask(served, content, **kwargs):
    return client(served).chat.completions.create(model=kwargs.pop("model", "morph-v3-fast"),
                                                  messages=[{"role": "user", "content": content}], **kwargs)


def stream(served, content, **kwargs) -> list:
    return list(ask(served, content, stream=True, **kwargs))


def streamed_text(chunks) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def raw_post(served, body: bytes | str, headers: dict | None = None) -> httpx.Response:
    return httpx.post(f"{served.url}/chat/completions", content=body, timeout=30,
                      headers={"Content-Type": "application/json", **(headers or {})})


def assert_error(response: httpx.Response, status: int, code: str | None = None, says: str = "") -> dict:
    """An OpenAI error object: exactly message, type, param, code; no traceback."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["message"]
    assert "Traceback" not in response.text and says in error["message"]
    if code is not None:
        assert error["code"] == code
    return error


@pytest.fixture(scope="module")
def served(tiny_engine):
    with running(tiny_engine) as s:
        yield s


@pytest.fixture(scope="module")
def taught(tiny_engine):
    with running(TeacherEngine(tiny_engine)) as s:
        yield s


# ---------------------------------------------------------------------------
# Reading Morph's message (no server)


def test_the_tags_split_even_when_the_file_holds_them():
    html = "<p><code>x</code></p>\n<pre><update>y</update></pre>\n"
    assert split_tags(morph(html, "<p>z</p>\n", "fix it")) == (html, "<p>z</p>\n", "fix it")
    assert split_tags(f"<code>{CODE}</code><instruction>add abs</instruction>\n<update>{UPDATE}</update>") == \
        (CODE, UPDATE, "add abs")
    after = "<code>a\n</code> <update>b\n</update>\n<instruction>do b</instruction>"
    assert split_tags(after) == ("a\n", "b\n", "do b")
    assert split_tags("<code>a\n</code><update>b\n</update><instruction> </instruction>")[2] is None
    avante = "<instructions>I add abs</instructions>\n<code>a = 1</code>\n<update>a = 2</update>"  # no last newline
    assert split_tags(avante) == ("a = 1", "a = 2", "I add abs")
    assert split_tags("<instructions>x</instruction><code>a</code><update>b</update>")[2] is None  # unmatched


@pytest.mark.parametrize("text, inside", [
    ("```python\nx = 1\n```", "x = 1\n"), ("```\r\nx = 1\r\ny\r\n```\r\n", "x = 1\r\ny\r\n"), ("\n```py\n```\n", ""),
    ("```md\n```inner\n```\nz\n```", "```inner\n```\nz\n"),  # one fence only: the outer one
    ("x = 1\n", "x = 1\n"), ("```python\nx = 1", "```python\nx = 1"), ("```x = 1```", "```x = 1```"),
    ("a\n```\nb\n```\n", "a\n```\nb\n```\n"),  # not around the whole text
])
def test_one_enclosing_fence_is_stripped(text, inside):
    assert strip_fence(text) == inside


# ---------------------------------------------------------------------------
# Answers


def engine_answer(engine, code, update, instruction=None, **kwargs) -> tuple[str, str, object]:
    """(text, finish_reason, stats) as the endpoint should answer, from the engine called directly."""
    pieces = []
    result = engine.apply(code, update, instruction, on_text=pieces.append, **kwargs)
    text = apply_program(result.ops, code, result.first_line, result.last_line) if result.complete else "".join(pieces)
    return text, "stop" if result.complete else "length", result.stats


@pytest.mark.parametrize("code, update, instruction, max_tokens", [
    (CODE, UPDATE, None, 12), (CODE, UPDATE, "Never negative", 40), (SMALL, SMALL_UPDATE, None, 40),
])
def test_the_answer_is_the_engines_own_merge(served, tiny_engine, code, update, instruction, max_tokens):
    text, finish, stats = engine_answer(tiny_engine, code, update, instruction, max_tokens=max_tokens)
    limit = {} if max_tokens is None else {"max_tokens": max_tokens}
    answer = ask(served, morph(code, update, instruction), **limit)
    assert answer.choices[0].message.content == text and answer.choices[0].finish_reason == finish
    assert answer.choices[0].message.role == "assistant" and answer.model == "morph-v3-fast"
    assert answer.usage.prompt_tokens == stats.prompt_tokens
    assert answer.usage.completion_tokens == stats.sampled_tokens + stats.forced_tokens
    chunks = stream(served, morph(code, update, instruction), **limit)
    assert streamed_text(chunks) == text and chunks[-1].choices[0].finish_reason == finish
    assert chunks[0].choices[0].delta.role == "assistant"
    if finish == "length":  # cut short: what was decided, never completed with the rest of the old file
        assert not text.endswith(code[-40:])


def test_a_forced_program_answers_the_merged_file(taught):
    assert merge_update(CODE, UPDATE).merged == MERGED  # the reference, by plain string replacement
    answer = ask(taught, morph(CODE, UPDATE))
    assert (answer.choices[0].message.content, answer.choices[0].finish_reason) == (MERGED, "stop")
    chunks = stream(taught, morph(CODE, UPDATE), stream_options={"include_usage": True})
    texts = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert "".join(texts) == MERGED and texts[0] == BEFORE_CHANGE  # the unchanged head goes out first, whole
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == answer.usage.total_tokens


@pytest.mark.parametrize("content, merged", [
    (morph(f"```python\n{CODE}```", f"```python\n{UPDATE}```\n"), MERGED),  # Continue's fences
    ([{"type": "text", "text": morph(CODE, UPDATE)[:100]}, {"type": "text", "text": morph(CODE, UPDATE)[100:]}],
     MERGED),
    (morph(CODE, UPDATE, "Make y non-negative"), MERGED),
    # avante.nvim: <instructions>, and the file without its last newline
    (f"<instructions>I make y non-negative</instructions>\n<code>{CODE[:-1]}</code>\n<update>{UPDATE}</update>",
     MERGED[:-1]),
])
def test_fences_parts_and_instructions_are_read(taught, content, merged):
    assert ask(taught, content).choices[0].message.content == merged


def test_the_stream_is_server_sent_events_ending_in_done(taught):
    body = {"model": "x", "stream": True, "messages": [{"role": "user", "content": morph(SMALL, SMALL_UPDATE)}]}
    with httpx.stream("POST", f"{taught.url}/chat/completions", json=body, timeout=30) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = [line for line in response.iter_lines() if line]
    assert all(e.startswith("data: ") for e in events) and events[-1] == "data: [DONE]"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"} and len({c["id"] for c in chunks}) == 1
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text == merge_update(SMALL, SMALL_UPDATE).merged


def test_the_first_chunk_leaves_before_the_decode_ends(tiny_engine):
    """The lines before the change are sent as soon as the request starts: the first content chunk arrives
    while the engine is still held, and the time to it is measured apart from the time to the end."""
    holding = HoldingEngine(TeacherEngine(tiny_engine))
    with running(holding) as s:
        t0 = time.perf_counter()
        chunks = iter(ask(s, morph(CODE, UPDATE), stream=True))
        assert next(chunks).choices[0].delta.role == "assistant"
        first = next(chunks).choices[0].delta.content
        first_s = time.perf_counter() - t0
        assert first == BEFORE_CHANGE and not holding.release.is_set()
        holding.release.set()
        rest = list(chunks)
        assert first + streamed_text(rest) == MERGED and time.perf_counter() - t0 >= first_s


def test_models_lists_the_loaded_model_and_any_name_is_served(served):
    models = client(served).models.list()
    assert [m.id for m in models.data] == ["random:tiny"]
    assert client(served).models.retrieve("morph-v3-large").id == "morph-v3-large"
    for name in ("morph-v3-large", "gpt-4o", "random:tiny"):
        assert ask(served, morph(SMALL, SMALL_UPDATE), model=name, max_tokens=4).model == name


def test_the_next_apply_to_the_merged_file_finds_its_cache_warm(taught):
    code = f"# {uuid.uuid4()}\n" + CODE  # new to the engine's caches
    first = ask(taught, morph(code, UPDATE))
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    again = ask(taught, morph(code, UPDATE))
    assert again.usage.prompt_tokens_details.cached_tokens > first.usage.prompt_tokens * 0.8
    merged = first.choices[0].message.content
    following = ask(taught, morph(merged, "def f25(x):\n    y = x * 25\n    y = -y\n    return y + 25\n"))
    assert following.choices[0].message.content == merged.replace("    y = x * 25\n", "    y = x * 25\n    y = -y\n")
    assert following.usage.prompt_tokens_details.cached_tokens > first.usage.prompt_tokens * 0.4  # up to line 63
    other = ask(taught, morph(f"# {uuid.uuid4()}\n" + CODE, UPDATE))
    assert other.usage.prompt_tokens_details.cached_tokens == 0


def test_lines_the_merge_removes_unseen_are_named_in_a_header_and_the_log(taught, monkeypatch, caplog):
    """Morph's answer, the merged file, has no place to say it: X-Cad-Removed-Unseen does, on a streamed answer
    too, and so does the server's log; with nothing removed unseen the header is absent."""
    from tests.unseen import patch_merges

    messages = [{"role": "user", "content": morph(CODE, UPDATE)}]
    patch_merges(monkeypatch.setattr)
    plain = client(taught).chat.completions.with_raw_response.create(model="m", messages=messages)
    assert "x-cad-removed-unseen" not in plain.headers and plain.parse().choices[0].message.content == MERGED

    unseen = ((12, 22), (40, 40))
    patch_merges(monkeypatch.setattr, unseen=unseen)
    with caplog.at_level(logging.WARNING, logger="cad_lsp.http.answer"):
        whole = client(taught).chat.completions.with_raw_response.create(model="m", messages=messages)
        streamed = client(taught).chat.completions.with_raw_response.create(model="m", messages=messages,
                                                                            stream=True)
        text = streamed_text(streamed.parse())
    assert whole.headers["X-Cad-Removed-Unseen"] == streamed.headers["X-Cad-Removed-Unseen"] == "12-22,40"
    assert whole.parse().choices[0].message.content == text == MERGED
    note = replace(merge_update(CODE, UPDATE), unseen=unseen).unseen_note()
    assert [r.getMessage() for r in caplog.records if r.name == "cad_lsp.http.answer"] == [note] * 2


def test_the_body_may_name_the_language_and_force_a_merge_that_breaks_the_file(taught, monkeypatch):
    """Two fields of our own, which Morph's format lacks: ``language`` (a file name, extension or language id)
    and ``force``; through the official client's ``extra_body``."""
    from tests.unseen import patch_merges

    calls = patch_merges(monkeypatch.setattr, breaks=True)
    with pytest.raises(openai.UnprocessableEntityError, match="does not parse"):
        ask(taught, morph(CODE, UPDATE))
    answer = ask(taught, morph(CODE, UPDATE), extra_body={"language": "shapes.py", "force": True})
    assert answer.choices[0].message.content == MERGED
    assert calls[0] == (None, False) and set(calls[1:]) == {("shapes.py", True)}  # refused; then checked, applied


# ---------------------------------------------------------------------------
# Refusals: every one an OpenAI error object


@pytest.mark.parametrize("body, status, code, says", [
    (b"{", 400, "invalid_json", "not valid JSON"),
    (b"\xff\xfe", 400, "invalid_json", "not valid JSON"),
    (b"[1, 2]", 400, "invalid_json", "JSON object"),
    ({"model": "m"}, 400, None, "messages"),
    ({"messages": [{"role": "system", "content": morph(CODE, UPDATE)}]}, 400, "missing_tags", "no user message"),
    ({"messages": [{"role": "user", "content": "merge this please"}]}, 400, "missing_tags", "<update>"),
    ({"messages": [{"role": "user", "content": f"<code>{CODE}</code>"}]}, 400, "missing_tags", "<code>"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}, 400, None,
     "text"),
    ({"messages": [{"role": "user", "content": morph(CODE, UPDATE)}], "temperature": 9}, 400, None, "temperature"),
    ({"messages": [{"role": "user", "content": morph(CODE, UPDATE)}], "max_tokens": 0}, 400, None, "max_tokens"),
    ({"messages": [{"role": "user", "content": morph(CODE, UPDATE)}], "n": 2}, 400, None, "n must be 1"),
    ({"messages": [{"role": "user", "content": morph(CODE, UPDATE)}], "stream": "yes"}, 400, None, "stream"),
    ({"messages": [{"role": "user", "content": morph(CODE, UPDATE)}], "language": 3}, 400, None, "language"),
    ({"messages": [{"role": "user", "content": morph(CODE, UPDATE)}], "force": "yes"}, 400, None, "force"),
    ({"messages": [{"role": "user", "content": morph(CODE, "")}]}, 422, "update_not_applicable", "empty"),
    ({"messages": [{"role": "user", "content": morph(CODE, "nothing.run()\nnothing.stop()\n")}]}, 422,
     "update_not_applicable", "does not belong"),
    ({"messages": [{"role": "user", "content": morph(CODE, "# ... existing code ...\n")}]}, 422,
     "update_not_applicable", "only markers"),
    ({"messages": [{"role": "user", "content": morph("", "x = 1\n")}]}, 422, "update_not_applicable", "empty"),
])
def test_bad_requests_get_error_objects(served, body, status, code, says):
    raw = body if isinstance(body, bytes) else json.dumps(body)
    error = assert_error(raw_post(served, raw), status, code, says)
    assert error["type"] == "invalid_request_error"


def test_the_client_raises_the_servers_message(served):
    with pytest.raises(openai.UnprocessableEntityError, match="does not belong"):
        ask(served, morph(CODE, "nothing.run()\nnothing.stop()\n"))
    with pytest.raises(openai.UnprocessableEntityError, match="does not belong"):
        stream(served, morph(CODE, "nothing.run()\nnothing.stop()\n"))  # refused before the stream starts
    with pytest.raises(openai.NotFoundError, match="no route"):
        client(served).completions.create(model="m", prompt="x")


def test_a_refused_update_leaves_the_server_serving(served, tiny_engine):
    for _ in range(3):
        assert_error(raw_post(served, b"{"), 400)
    text, _, _ = engine_answer(tiny_engine, SMALL, SMALL_UPDATE, max_tokens=6)
    assert ask(served, morph(SMALL, SMALL_UPDATE), max_tokens=6).choices[0].message.content == text


# ---------------------------------------------------------------------------
# Security


def test_an_api_key_is_required_when_set(tiny_engine):
    with running(tiny_engine, api_key="s3cret-key") as s:
        assert_error(httpx.get(f"{s.url}/models"), 401, "invalid_api_key", "Authorization: Bearer")
        assert_error(httpx.get(f"{s.url}/models", headers={"Authorization": "Bearer wrong"}), 401)
        assert_error(raw_post(s, json.dumps({"messages": []}), {"Authorization": "Basic s3cret-key"}), 401)
        with pytest.raises(openai.AuthenticationError):
            client(s, api_key="nope").models.list()
        assert httpx.get(f"{s.url}/models", headers={"Authorization": "Bearer s3cret-key"}).status_code == 200
        answer = client(s, api_key="s3cret-key").chat.completions.create(
            model="m", messages=[{"role": "user", "content": morph(SMALL, SMALL_UPDATE)}], max_tokens=4)
        assert answer.choices[0].message.role == "assistant"


@pytest.mark.parametrize("host, allowed", [
    ("localhost:{port}", True), ("127.0.0.1:{port}", True), ("[::1]:{port}", True), ("LOCALHOST", True),
    ("evil.example", False), ("evil.example:{port}", False), ("127.0.0.1.evil.example:{port}", False),
    ("localhost.evil.example", False), ("localhost:x", False), ("[::1", False),
])
def test_a_loopback_server_refuses_foreign_host_headers(served, host, allowed):
    response = httpx.get(f"{served.url}/models", headers={"Host": host.format(port=served.port)})
    if allowed:
        assert response.status_code == 200
    else:
        assert_error(response, 403, "host_not_allowed")


def test_no_cors_headers_unless_an_origin_is_allowed(served, tiny_engine):
    origin = "http://localhost:3000"
    preflight = {"Origin": origin, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type, x-stainless-os"}
    response = httpx.get(f"{served.url}/models", headers={"Origin": origin})
    assert response.status_code == 200 and not any(h.startswith("access-control-") for h in response.headers)
    response = httpx.options(f"{served.url}/chat/completions", headers=preflight)
    assert not any(h.startswith("access-control-") for h in response.headers)
    with running(tiny_engine, allow_origin=origin, api_key="k") as s:
        response = httpx.options(f"{s.url}/chat/completions", headers=preflight)  # a preflight carries no key
        assert response.status_code == 200 and response.headers["access-control-allow-origin"] == origin
        assert "POST" in response.headers["access-control-allow-methods"]
        assert "x-stainless-os" in response.headers["access-control-allow-headers"].lower()
        denied = httpx.get(f"{s.url}/models", headers={"Origin": origin})  # no key: 401 the page can read
        assert denied.status_code == 401 and denied.headers["access-control-allow-origin"] == origin
        ok = httpx.get(f"{s.url}/models", headers={"Origin": origin, "Authorization": "Bearer k"})
        assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == origin
        assert ok.headers["access-control-expose-headers"] == "X-Cad-Removed-Unseen"  # the page may read it
        other = {**preflight, "Origin": "http://evil.example"}
        assert "access-control-allow-origin" not in httpx.options(f"{s.url}/chat/completions", headers=other).headers
        assert "access-control-allow-origin" not in httpx.get(f"{s.url}/models", headers={
            "Origin": "http://evil.example", "Authorization": "Bearer k"}).headers


def test_a_body_over_the_limit_gets_413(tiny_engine):
    with running(tiny_engine, max_body_bytes=1024) as s:
        big = json.dumps({"messages": [{"role": "user", "content": morph(CODE, UPDATE)}]}).encode()
        assert len(big) > 1024
        assert_error(raw_post(s, big), 413, "request_too_large", "1024 bytes")

        def pieces():  # no Content-Length: the body arrives in chunks and is counted as it comes
            for i in range(0, len(big), 300):
                yield big[i:i + 300]

        assert_error(httpx.post(f"{s.url}/chat/completions", content=pieces(), timeout=30), 413, "request_too_large")
        small = json.dumps({"messages": [{"role": "user", "content": morph(SMALL, SMALL_UPDATE)}], "max_tokens": 4})
        assert raw_post(s, small).status_code == 200


def test_a_public_address_needs_a_key_and_bad_flags_are_refused(capsys, monkeypatch):
    """Refused before any model loads (random:tiny would take seconds; these return at once)."""
    monkeypatch.delenv("CAD_LSP_API_KEY", raising=False)
    for argv, says in [(["--host", "0.0.0.0"], "--api-key"), (["--host", "example.com"], "--api-key"),
                       (["--queue", "-1"], "--queue"), (["--max-body-bytes", "10"], "--max-body-bytes"),
                       (["--allow-origin", "*"], "wildcard"), (["--api-key", "a key"], "API key"),
                       (["--backend", "vllm"], "--vllm-url")]:
        assert main(["http", "--model", "no-such-model", *argv]) == 2
        assert says in capsys.readouterr().err
    monkeypatch.setenv("CAD_LSP_API_KEY", "from-env")  # a key from the environment counts
    settings = Settings.from_args(build_parser().parse_args(["http", "--host", "0.0.0.0"]))
    assert settings.api_key == "from-env" and settings.problem() is None


# ---------------------------------------------------------------------------
# Load: the queue, and clients that leave


def send_raw(port: int, body: dict) -> socket.socket:
    """A request on a socket of its own, left open: the caller reads it or closes it (a client that leaves)."""
    data = json.dumps(body).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(data) + data)
    return sock


def wait_for(condition, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


REQUEST = {"model": "m", "messages": [{"role": "user", "content": morph(CODE, UPDATE)}], "max_tokens": 6}


def test_a_full_queue_answers_429(tiny_engine):
    holding = HoldingEngine(tiny_engine)
    with running(holding, queue=1) as s:
        answers = []
        threads = [threading.Thread(target=lambda: answers.append(ask(s, morph(CODE, UPDATE), max_tokens=6)))
                   for _ in range(2)]
        threads[0].start()
        assert holding.started.acquire(timeout=10)  # the first runs
        threads[1].start()
        assert wait_for(lambda: s.holder.admitted == 2)  # the second waits
        with pytest.raises(openai.RateLimitError, match="busy") as caught:
            ask(s, morph(CODE, UPDATE), max_tokens=6)
        assert caught.value.response.headers["retry-after"] == "1"
        assert_error(caught.value.response, 429, "queue_full")
        holding.release.set()
        for t in threads:
            t.join(30)
        assert len(answers) == 2 and holding.calls == 2
        assert wait_for(lambda: s.holder.admitted == 0)  # released once each run's future is done, just after its answer


@pytest.mark.parametrize("streamed", [False, True])
def test_a_client_that_leaves_cancels_its_decode(tiny_engine, streamed):
    holding = HoldingEngine(tiny_engine)
    with running(holding) as s:
        sock = send_raw(s.port, {**REQUEST, "stream": streamed})
        assert holding.started.acquire(timeout=10)
        if streamed:  # the stream has started: the head and the first chunks arrived
            assert b"HTTP/1.1 200" in sock.recv(65536)
        sock.close()
        assert holding.cancelled.wait(5), "the engine never saw the cancel"
        assert wait_for(lambda: s.holder.admitted == 0)  # its place in the queue is free again
        holding.release.set()
        assert ask(s, morph(SMALL, SMALL_UPDATE), max_tokens=4).choices


def test_a_queued_request_whose_client_left_is_dropped(tiny_engine):
    holding = HoldingEngine(tiny_engine)
    with running(holding) as s:
        running_one = send_raw(s.port, REQUEST)
        assert holding.started.acquire(timeout=10)
        queued = send_raw(s.port, REQUEST)
        assert wait_for(lambda: s.holder.admitted == 2)
        queued.close()
        assert wait_for(lambda: s.holder.admitted == 1), "the request that left still holds its place"
        holding.release.set()
        running_one.settimeout(30)
        reply = b""
        while b"chatcmpl-" not in reply:
            reply += running_one.recv(65536)
        running_one.close()
        assert reply.startswith(b"HTTP/1.1 200") and holding.calls == 1  # the dropped one never reached the engine


# ---------------------------------------------------------------------------
# Backends and the command line


def test_a_vllm_server_that_is_down_is_a_502_with_the_reason():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    engine = VLLMEngine(url, load_tokenizer(QWEN_TOKENIZER), retries=0)
    with running(engine, backend="vllm", vllm_url=url) as s:
        with pytest.raises(openai.APIStatusError, match="connection refused") as caught:
            ask(s, morph(CODE, UPDATE))
        assert_error(caught.value.response, 502, "engine_unavailable", url)


def test_every_flag_has_help(capsys):
    import argparse

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["http"]
    assert [a.dest for a in sub._actions if a.help is None] == []
    with pytest.raises(SystemExit):
        main(["http", "--help"])
    out = capsys.readouterr().out
    assert all(flag in out for flag in ("--api-key", "--allow-origin", "--queue", "--max-body-bytes", "--vllm-url"))


def test_the_command_line_reaches_the_server(tiny_engine, monkeypatch):
    """`cad-lsp http FLAGS` in this process: the flags become the settings, the engine is opened as they say,
    uvicorn serves it (the model's load is replaced by the tests' engine; the next test loads it for real)."""
    import cad_lsp.backends

    opened, servers = [], []
    monkeypatch.setattr(cad_lsp.backends, "open_engine", lambda *args, **kwargs: opened.append((args, kwargs))
                        or tiny_engine)
    build = http_server.build_server
    monkeypatch.setattr(http_server, "build_server", lambda *args: servers.append(build(*args)) or servers[-1])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    codes = []
    thread = threading.Thread(target=lambda: codes.append(main([
        "http", "--model", "random:tiny", "--device", "cpu", "--port", str(port), "--api-key", "k", "--queue", "3",
        "--max-tokens", "5", "--log-level", "warning"])))
    thread.start()
    try:
        assert wait_for(lambda: servers and servers[0].started, 30), "the server never started"
        assert opened == [(("random:tiny", "cpu", "auto", "auto", None), {"context_lines": DEFAULT_CONTEXT_LINES})]
        holder = servers[0].config.app.state.holder
        assert (holder.capacity, holder.max_tokens, holder.name) == (4, 5, "random:tiny")
        assert httpx.get(f"http://127.0.0.1:{port}/v1/models").status_code == 401
        api = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=0, timeout=30)
        answer = api.chat.completions.create(
            model="m", messages=[{"role": "user", "content": morph(SMALL, SMALL_UPDATE)}], max_tokens=50)
        text, _, stats = engine_answer(tiny_engine, SMALL, SMALL_UPDATE, max_tokens=5)  # --max-tokens caps 50
        assert answer.choices[0].message.content == text
        assert answer.usage.completion_tokens == stats.sampled_tokens + stats.forced_tokens
    finally:
        if servers:
            servers[0].should_exit = True
        thread.join(15)
    assert codes == [0]


@pytest.mark.slow
def test_the_command_serves_over_http(tmp_path):
    """`python -m cad_lsp http` end to end: it loads the model, listens, wants its key, answers, and stops on
    SIGTERM after a graceful shutdown (uvicorn then re-raises the signal, so the exit status is -SIGTERM)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "CAD_LSP_API_KEY": "k"}
    process = subprocess.Popen([sys.executable, "-m", "cad_lsp", "http", "--model", "random:tiny", "--device", "cpu",
                                "--port", str(port), "--log-level", "warning"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}/v1"
        assert wait_for(lambda: _listening(port) or process.poll() is not None, 120), "the server never listened"
        assert process.poll() is None, process.stdout.read()
        assert httpx.get(f"{base}/models").status_code == 401
        answer = openai.OpenAI(base_url=base, api_key="k", max_retries=0).chat.completions.create(
            model="morph-v3-fast", messages=[{"role": "user", "content": morph(SMALL, SMALL_UPDATE)}], max_tokens=4)
        assert answer.choices[0].finish_reason in ("stop", "length")
    finally:
        process.terminate()
        output = process.communicate(timeout=30)[0]
    assert process.returncode in (0, -signal.SIGTERM) and "serving random:tiny" in output, output
    assert "Traceback" not in output and "Finished server process" not in output  # --log-level warning


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False
