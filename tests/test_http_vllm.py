"""`cad-lsp http --backend vllm`: the endpoint over a real vLLM server, as tests/test_vllm.py runs the engine.

Runs when ``CAD_LSP_VLLM_URL`` names a running server of the embedded
SmolLM2 (``.ci/vllm.sh`` starts one); skipped without it.  Without a server,
tests/test_http.py checks that a vLLM server that is down is a 502 saying so.
"""

from __future__ import annotations

import json
import os
import socket

import openai
import pytest

from cad_lsp.backends.vllm import VLLMEngine
from cad_lsp.program.update import merge_update

from .http_server import TeacherEngine, running
from .test_http import CODE, SMALL, SMALL_UPDATE, UPDATE, morph, wait_for

URL = os.environ.get("CAD_LSP_VLLM_URL")
pytestmark = pytest.mark.skipif(not URL, reason="no vLLM server: set CAD_LSP_VLLM_URL (.ci/vllm.sh does)")


@pytest.fixture(scope="module")
def engine():
    return VLLMEngine.connect(URL, "smollm2")


def api(served) -> openai.OpenAI:
    return openai.OpenAI(base_url=served.url, api_key="unused", max_retries=0, timeout=120)


def test_a_forced_program_on_vllm_answers_the_merged_file(engine):
    """Teacher-forced on the server: the answer, whole and streamed, is the deterministic merge."""
    with running(TeacherEngine(engine), model="smollm2", backend="vllm", vllm_url=URL) as served:
        for code, update in ((CODE, UPDATE), (SMALL, SMALL_UPDATE)):
            merged = merge_update(code, update).merged
            messages = [{"role": "user", "content": morph(code, update)}]
            answer = api(served).chat.completions.create(model="morph-v3-fast", messages=messages)
            assert (answer.choices[0].message.content, answer.choices[0].finish_reason) == (merged, "stop")
            assert answer.usage.prompt_tokens > 0 and answer.usage.prompt_tokens_details is not None
            chunks = list(api(served).chat.completions.create(model="m", messages=messages, stream=True))
            assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == merged


def test_the_models_own_program_on_vllm_is_well_formed(engine):
    """Greedy on the server: a whole merged file (the region rewritten, the rest kept) or, cut short, a prefix."""
    with running(engine, model="smollm2", backend="vllm", vllm_url=URL) as served:
        answer = api(served).chat.completions.create(
            model="morph-v3-fast", messages=[{"role": "user", "content": morph(CODE, UPDATE)}], max_tokens=64)
        text, finish = answer.choices[0].message.content, answer.choices[0].finish_reason
        head = CODE[:CODE.index("    y = x * 12\n")]
        assert text.startswith(head) and finish in ("stop", "length")
        if finish == "stop":
            assert text.endswith(CODE[CODE.index("def f13(x):\n"):])
        assert [m.id for m in api(served).models.list().data] == ["smollm2"]


def test_a_client_that_leaves_frees_its_place_on_vllm(engine):
    with running(engine, model="smollm2", backend="vllm", vllm_url=URL) as served:
        body = json.dumps({"model": "m", "stream": True, "max_tokens": 400,
                           "messages": [{"role": "user", "content": morph(CODE, UPDATE)}]}).encode()
        sock = socket.create_connection(("127.0.0.1", served.port), timeout=60)
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        sock.close()
        assert wait_for(lambda: served.holder.admitted == 0, 60)
        answer = api(served).chat.completions.create(
            model="m", messages=[{"role": "user", "content": morph(SMALL, SMALL_UPDATE)}], max_tokens=8)
        assert answer.choices[0].finish_reason in ("stop", "length")
