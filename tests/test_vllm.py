"""The vLLM backend: grammars and parsing here, everything else against a real vLLM server.

The server tests run when ``CAD_LSP_VLLM_URL`` names a running server of the
embedded SmolLM2 (``.ci/vllm.sh`` starts one); without it they are skipped.
With it, a server that does not answer fails them.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import urllib.request
import uuid

import llguidance
import pytest

from cad_lsp.backends.pytorch.loading import QWEN_TOKENIZER, load_tokenizer
from cad_lsp.backends.vllm import VLLMEngine, check_ops, literal_grammar, rest_grammar, split_program, tag_needs_newline
from cad_lsp.engine import Cancelled, EngineError
from cad_lsp.engine.grammar import ll_tokenizer
from cad_lsp.engine.prompt import document_prefix_ids, numbered
from cad_lsp.lsp.requests import Options, merge_options
from cad_lsp.program import Copy, Gen, format_program, oracle_program, parse_program
from cad_lsp.train import corpora

from .reference import plain_apply, plain_text

URL = os.environ.get("CAD_LSP_VLLM_URL")
BLOCK = int(os.environ.get("CAD_LSP_VLLM_BLOCK", "32"))  # the server's --block-size
BLANK_RUNS = "import os\n\n\ndef f(x):\n    return x + 1\n\n\n\nclass A:\n    pass\n"
needs_server = pytest.mark.skipif(not URL, reason="no vLLM server: set CAD_LSP_VLLM_URL (.ci/vllm.sh does)")


# ---------------------------------------------------------------------------
# Grammars and parsing (no server)


@pytest.fixture(scope="module")
def qwen():
    return load_tokenizer(QWEN_TOKENIZER)


def accepts(tokenizer, grammar: str, text: str) -> bool:
    """Whether llguidance, as the server runs it, admits ``text`` as a whole answer."""
    ll = ll_tokenizer(tokenizer)
    matcher = llguidance.LLMatcher(ll, llguidance.LLMatcher.grammar_from_lark(grammar))
    assert not matcher.is_error(), matcher.get_error()
    for token in tokenizer.encode(text, add_special_tokens=False):
        if not matcher.consume_token(token):
            return False
    return matcher.is_accepting()


@pytest.mark.parametrize("allow_gen, open_body, text, ok", [
    (True, None, "", True),  # the program may end here
    (True, None, '<copy lines="3-5"/>\n', True),
    (True, None, '<copy lines="12-12"/>\n', True),
    (True, None, '<gen>x = "<a/>"\n</gen>\n<copy lines="4-12"/>\n', True),
    (True, None, "<gen>x</gen>\n", True),
    (True, None, '<copy lines="5-4"/>\n', False),  # i <= j
    (True, None, '<copy lines="2-4"/>\n', False),  # before the previous copy's end
    (True, None, '<copy lines="3-13"/>\n', False),  # past the selection
    (True, None, '<copy lines="03-4"/>\n', False),
    (True, None, "<gen>a</gen>\n<gen>b</gen>\n", False),  # one gen op, then a copy or the end
    (True, None, '<copy lines="3-4"/>\n<copy lines="5-6"/>\n', False),  # one copy a request
    (False, None, "<gen>x</gen>\n", False),  # no gen right after a gen
    (False, None, '<copy lines="3-3"/>\n', True),
    (True, 'x = "<a/>', 'b</gen>\n<copy lines="3-3"/>\n', True),  # the rest of an open gen
    (True, "y </g", "en>\n", True),  # a close tag split across requests
    (True, "y", "en>\n", False),
])
def test_rest_grammar(qwen, allow_gen, open_body, text, ok):
    assert accepts(qwen, rest_grammar(3, 12, allow_gen, open_body), text) == ok


def test_rest_grammar_after_the_last_line(qwen):
    assert accepts(qwen, rest_grammar(13, 12, True), "<gen>tail\n</gen>\n")
    assert not accepts(qwen, rest_grammar(13, 12, True), '<copy lines="12-12"/>\n')


def test_literal_grammar(qwen):
    text = '<gen>s = "\\\\ \u00e9 \\"q\\" </gen\\>"\n</gen>\n<copy lines="1-2"/>\n'
    assert accepts(qwen, literal_grammar(text), text)
    assert not accepts(qwen, literal_grammar(text), text[:-1])


def test_split_program_returns_complete_ops_and_the_rest():
    ops = [Copy(1, 2), Gen('a "/> b\n'), Copy(4, 4)]
    text = format_program(ops)
    for cut in range(len(text) + 1):
        done, rest = split_program(text[:cut])
        assert format_program(done) + rest == text[:cut]
        assert done == ops[: len(done)]
    assert split_program(text + "<gen>x y")[1] == "<gen>x y"
    for bad in ['<copy lines="1-2"/> \n', "<gen>a</gen>\n\n", "hello", '<copy lines="1-2"/>\n<gen>a</gen>x']:
        with pytest.raises(EngineError, match="grammar"):
            split_program(bad)


def test_only_a_closed_tag_gets_its_newline():
    assert tag_needs_newline('<copy lines="3-4"/>') and tag_needs_newline("<gen>a\n</gen>")
    for rest in ("", '<gen><copy lines="3-4"/>', '<gen>x = "<br/>', "<gen>a</gen", '<copy lines="3-4"/'):
        assert not tag_needs_newline(rest)


def test_check_ops_refuses_what_the_grammar_forbids():
    assert check_ops([Copy(2, 3), Gen("x"), Copy(5, 9)], 2, 9) == 10
    for ops in ([Copy(1, 3)], [Copy(3, 4), Copy(4, 5)], [Copy(4, 3)], [Copy(2, 10)], [Gen("a"), Gen("b")]):
        with pytest.raises(EngineError):
            check_ops(ops, 2, 9)


def test_options_select_the_backend():
    merged, problems = merge_options(Options(), {"backend": "vllm", "vllmUrl": "http://127.0.0.1:8000"})
    assert (merged.backend, merged.vllm_url, problems) == ("vllm", "http://127.0.0.1:8000", [])


# ---------------------------------------------------------------------------
# Failures of the server, as the user sees them (no vLLM needed)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_server_that_is_down_is_a_clear_error(qwen):
    url = f"http://127.0.0.1:{free_port()}"
    engine = VLLMEngine(url, qwen, retries=1)  # no request yet: an editor may start before its server
    with pytest.raises(EngineError, match=r"connection refused.*2 tries.*running"):
        engine.edit("x = 1\n", 1, 1, "Fix the bug")


def test_a_silent_server_times_out_after_the_retries(qwen):
    accepted = []
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = "http://127.0.0.1:%d" % listener.getsockname()[1]

        def hold():  # accept and never answer, as a stuck server does
            while len(accepted) < 2:
                accepted.append(listener.accept()[0])

        threading.Thread(target=hold, daemon=True).start()
        with pytest.raises(EngineError, match="nothing received for 0.3 s.*2 tries"):
            VLLMEngine(url, qwen, served_model="m", check=False, timeout_s=0.3, retries=1).edit(
                "a\n", 1, 1, "x")
        assert len(accepted) == 2
        for conn in accepted:
            conn.close()


def test_cli_needs_the_url(tmp_path, capsys):
    from cad_lsp.cli import main

    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    assert main(["edit", str(path), "--lines", "1-1", "--instruction", "x", "--backend", "vllm"]) == 2
    assert "--vllm-url" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Against a real vLLM server


@pytest.fixture(scope="module")
def engine():
    if not URL:
        pytest.skip("no vLLM server: set CAD_LSP_VLLM_URL (.ci/vllm.sh does)")
    return VLLMEngine.connect(URL, "smollm2")


def metric(name: str) -> float:
    text = urllib.request.urlopen(f"{URL}/metrics", timeout=10).read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name + "{"))


def assert_copies_came_from_the_cache(stats):
    """Each continuation computed its new tokens and at most one partial block more."""
    for previous, current in zip(stats.rounds, stats.rounds[1:]):
        assert current["cached"] is not None, "start vLLM with --enable-prompt-tokens-details"
        computed = current["prompt"] - current["cached"]
        assert computed <= current["new"] + BLOCK, (previous, current)
        assert current["cached"] >= previous["prompt"] + previous["generated"] - BLOCK


@needs_server
def test_tokenizers_agree(engine):
    """The same ids and the same text on both sides, for code the prompts carry."""
    texts = [BLANK_RUNS, "a = 1\r\nb = '😀😀'\r\n\tc = 3", numbered(BLANK_RUNS)]
    if corpora.data_dir() is not None:
        texts += [numbered(p.before) for name in ("humanevalfix-py", "humanevalfix-js")
                  for p in corpora.load(name, 2)]
    for text in texts:
        assert engine.check_tokenizer(text) == engine.tokenizer.encode(text, add_special_tokens=False)
    engine.check_tokenizer()  # the chat-template probe: special tokens, digits, CRLF, emoji


def teacher_pairs():
    pairs = [
        (BLANK_RUNS, BLANK_RUNS.replace("x + 1", "x - 1")),
        ("a = 1\r\nb = '😀'\r\nc = 3", "a = 1\r\nb = '😀😀'\r\nc = 3\r\n"),
        # gen text holding the copy tag's close: its stop string fires inside a gen
        ("x = '</gen>'\ny = 2\n", "x = '</gen> and <copy lines=\"1-2\"/>'\ny = 2\n"),
        ("a = 1\nb = 2\n", 'a = 1\nh = \'<img src="a.png"/><br class="x"/>\n<p/>\'\nb = 2\n'),
    ]
    if corpora.data_dir() is not None:
        pairs += [(p.before, p.after) for name in ("humanevalfix-py", "humanevalfix-js")
                  for p in corpora.load(name, 1)]
    return pairs


@needs_server
@pytest.mark.parametrize("before, after", teacher_pairs())
def test_teacher_forced_oracle_reproduces_gold(engine, before, after):
    ops = oracle_program(before, after)
    hits = metric("vllm:prefix_cache_hits_total")
    result = engine.edit(before, 1, None, "", program=ops)
    assert result.complete and result.ops == ops and result.text == after
    copies = sum(isinstance(op, Copy) for op in ops)
    stops_in_gen = sum(op.text.count('"/>') for op in ops if isinstance(op, Gen))
    assert result.stats.requests == copies + 1 + stops_in_gen  # one per copy plus one
    assert_copies_came_from_the_cache(result.stats)
    assert metric("vllm:prefix_cache_hits_total") - hits >= sum(r["cached"] for r in result.stats.rounds)


@needs_server
def test_sampled_programs_are_valid_and_resolve_to_the_reported_text(engine):
    document = "".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(1, 8))
    for run, (first, last) in enumerate([(1, 6), (4, 12), (2, 2), (10, 21)]):
        result = engine.edit(document, first, last, "Add type hints", temperature=1.0, seed=run, max_tokens=48)
        assert parse_program(result.program) == result.ops
        check_ops(result.ops, first, last)
        assert result.text == plain_text(result.ops, document, first, last)  # plain slicing, not the resolver
        assert_copies_came_from_the_cache(result.stats)
        if result.complete:
            assert result.stats.requests == sum(isinstance(op, Copy) for op in result.ops) + 1


@needs_server
def test_warm_fills_the_prefix_cache(engine):
    document = f"# {uuid.uuid4()}\n" + "".join(f"value_{i} = {i} * 3\n" for i in range(80))  # new to the server
    prefix = document_prefix_ids(engine.tokenizer, document)
    assert engine.warm("doc", document) > len(prefix) / 2  # a new document: computed (not the system text)
    assert engine.warm("doc", document) <= BLOCK  # the second time: found in the cache
    result = engine.edit(document, 5, 6, "Add comments", max_tokens=8)
    assert result.stats.cached_tokens >= len(prefix) - BLOCK


@needs_server
def test_cancel_ends_the_request(engine):
    cancel = threading.Event()
    seen = []

    def progress(stats):
        seen.append(stats.sampled_tokens)
        if stats.sampled_tokens >= 3:
            cancel.set()

    ops = [Gen("".join(f"line {i}\n" for i in range(200)))]
    with pytest.raises(Cancelled):
        engine.edit(BLANK_RUNS, 1, 3, "", program=ops, cancel=cancel, progress=progress)
    assert max(seen) < 10
    assert engine.edit(BLANK_RUNS, 1, 2, "x", max_tokens=4).stats.requests >= 1  # the server lives on


class DroppingProxy:
    """A TCP proxy to the server that cuts the connections it is told to, as a flaky network does."""

    def __init__(self, upstream: str, drop: set[int]):
        host, port = upstream.rsplit("//", 1)[1].split(":")
        self.upstream, self.drop, self.count = (host, int(port)), drop, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = "http://127.0.0.1:%d" % self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            index, self.count = self.count, self.count + 1
            if index in self.drop:
                client.close()
                continue
            server = socket.create_connection(self.upstream)
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.listener.close()


@needs_server
def test_a_dropped_request_is_retried_and_used_once(engine):
    after = BLANK_RUNS.replace("x + 1", "x - 1")
    ops = oracle_program(BLANK_RUNS, after)  # copy, gen, copy: three requests
    proxy = DroppingProxy(URL, drop={1})  # the first continuation's connection
    try:
        flaky = VLLMEngine(proxy.url, engine.tokenizer, served_model=engine.served_model, check=False)
        result = flaky.edit(BLANK_RUNS, 1, None, "", program=ops)
    finally:
        proxy.close()
    assert result.ops == ops and result.text == after
    assert result.stats.requests == 3 and result.stats.retries == 1 and proxy.count == 4
    assert_copies_came_from_the_cache(result.stats)


@needs_server
def test_cli_edit_through_vllm(tmp_path):
    path = tmp_path / "buggy.py"
    path.write_text(BLANK_RUNS)
    out = subprocess.run([sys.executable, "-m", "cad_lsp", "edit", str(path), "--lines", "4-5", "--instruction",
                          "Fix the bug", "--backend", "vllm", "--vllm-url", URL, "--json", "--max-tokens", "40"],
                         capture_output=True, text=True, timeout=300)
    data = json.loads(out.stdout)
    assert out.returncode == (0 if data["complete"] else 1), out.stderr
    ops = parse_program(data["program"])
    assert data["text"] == plain_text(ops, BLANK_RUNS, 4, 5)
    assert data["stats"]["requests"] >= 1 and "rounds" in data["stats"]


@needs_server
async def test_lsp_edit_through_vllm(engine):
    """The same LSP flow as with the local model; the edit equals the greedy program run here."""
    from lsprotocol import types as lsp
    from pytest_lsp import ClientServerConfig, client_capabilities

    from cad_lsp.program.edits import apply_text_edits

    from .test_server import EMOJI, NAME, applied_to, edit_args, execute, line_range, make_client, open_document

    command = [sys.executable, "-m", "cad_lsp", "serve", "--no-confirm", "--max-tokens", "80"]
    client = await ClientServerConfig(server_command=command, client_factory=make_client).start()
    try:
        await client.initialize_session(lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri="file:///work",
            initialization_options={"backend": "vllm", "vllmUrl": URL}))
        uri = open_document(client, EMOJI)
        # The first of these cases whose greedy program through vLLM completes and changes the text: which one
        # does depends on the prompt's wording, and the point here is the flow, not the model's answer.
        cases = [(1, 2, "Add docstrings"), (1, 2, "Add type hints"), (4, 5, "Rename y to label"),
                 (1, 5, "Add a comment above each line"), (1, 2, "Rename f to increment")]
        for first, last, instruction in cases:
            expected = engine.edit(EMOJI, first, last, instruction, name=NAME, max_tokens=80)
            after = plain_apply(expected.ops, EMOJI, first, last)
            if expected.complete and after != EMOJI:
                break
        else:
            pytest.fail("no case made a complete edit through vLLM: " + expected.program)
        result = await execute(client, [edit_args(uri, 1, line_range(EMOJI, first, last, "utf-16"), instruction)])
        assert result["applied"] is True, result
        (edit,) = applied_to(client, uri)
        assert apply_text_edits(EMOJI, edit.document_changes[0].edits, "utf-16") == after
    finally:  # shut down even when the test failed: a server never told to shut down keeps running
        try:
            await asyncio.wait_for(client.shutdown_session(), 30)
        finally:
            await client.stop()
