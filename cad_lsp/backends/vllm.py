"""A vLLM server as the engine: each copy is a prefix-cached continuation request.

vLLM samples on the server, so this replaces the decode loop rather than the
in-process model.  One request decodes the program up to the next copy tag:
its structured-output grammar admits "optionally one ``<gen>`` op, then a copy
tag or the end", and the stop string ``"/>`` ends it as the tag closes.  The
next request's prompt is every token id so far plus the copied lines' ids;
automatic prefix caching serves all of it but the new tokens, so a copy costs
one prefill of its own tokens, and a program costs one request per copy plus
one.  Prompts are token ids from the model's own tokenizer, never text, so
the server re-tokenizes nothing (``check_tokenizer`` proves the two agree).

The prompt, the copied tokens, the resolver and the result types are the
local engine's; what the server sends back is parsed and checked again here.
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..engine.engine import EditResult, Engine, EngineError, Stats, check_cancel, copy_tokens, plan_apply
from ..engine.grammar import number_range_regex
from ..engine.prompt import build_prompt, document_prefix_ids
from ..program import Copy, Gen, Op, ProgramError, format_program, parse_program, resolve
from .catalog import QWEN_TOKENIZER, ModelLoadError, load_tokenizer, smollm2_path

STOP = '"/>'  # the close of a copy tag: the request ends there and the copy is spliced
TIMEOUT_S = 60.0  # longest wait for any byte from the server (first token included)
RETRIES = 2  # extra tries of a request that failed in transit (never of one the server refused)
TOKENIZER_PROBE = (
    "<|im_start|>user\ndef f(xs: list[int]) -> int:\r\n\treturn sum(x * 2 for x in xs)  # 😀 ünïcode, 12-30\n\n\n"
    '<copy lines="12-30"/>\n<gen>  if not xs:\n        return 0\n</gen>\n<|im_end|>\n'
)


# ---------------------------------------------------------------------------
# Grammars for the rest of the program


def copy_range_regex(lo: int, hi: int) -> str:
    """``i-j`` with lo <= i <= j <= hi: one alternative per start line, so the server enforces i <= j.

    Its size grows with hi - lo (llguidance builds it in ~0.1 ms a line), which
    the remaining selection bounds.
    """
    return "|".join(f"(?:{i}-(?:{number_range_regex(i, hi)}))" for i in range(lo, hi + 1))


def _open_body_regex(body: str) -> str:
    """The rest of a gen body already written up to ``body``: up to the first ``</gen>``.

    When ``body`` ends with the start of ``</gen>``, the rest of the tag alone also closes it.
    """
    close = "</gen>"
    options = [r"(?s:.*)<\/gen>"]
    options += [re.escape(close[k:]).replace("/", r"\/") for k in range(1, len(close)) if body.endswith(close[:k])]
    return "|".join(options)


def rest_grammar(lo: int, hi: int, allow_gen: bool, open_body: str | None = None) -> str:
    """Lark grammar for one request: the end of an open gen, or a gen op, then a copy tag or the end.

    ``lo..hi`` are the lines a copy may still use; ``open_body`` is the text of
    a gen op that a previous request left open (its stop string was gen text).
    """
    head = []
    if open_body is not None:
        head.append('rest "\\n"')
    elif allow_gen:
        head.append("gen?")
    if lo <= hi:
        head.append("copy?")
    rules = [f"start: {' '.join(head)}" if head else 'start: ""']
    if open_body is not None:
        rules.append(f"rest[lazy]: /{_open_body_regex(open_body)}/")
    elif allow_gen:
        rules += ['gen: "<gen>" body "\\n"', r"body[lazy]: /(?s:.*)<\/gen>/"]
    if lo <= hi:
        rules += ['copy: "<copy lines=\\"" RANGE "\\"/>\\n"', f"RANGE: /{copy_range_regex(lo, hi)}/"]
    return "\n".join(rules) + "\n"


def literal_grammar(text: str) -> str:
    """Exactly ``text``: teacher forcing through the server's own sampler."""
    return f"start: {json.dumps(text)}\n"


# ---------------------------------------------------------------------------
# Reading back what the server wrote

_COPY_TAG = re.compile(r'<copy lines="(0|[1-9][0-9]*)-(0|[1-9][0-9]*)"/>\n')


def split_program(text: str) -> tuple[list[Op], str]:
    """(complete ops, the unfinished rest) of program text, which must be canonical.

    Raises EngineError when the text is not a prefix of a canonical program:
    the server did not keep to the grammar, and nothing of it is used.
    """
    pos = 0
    while pos < len(text):
        if text.startswith("<gen>", pos):
            close = text.find("</gen>", pos)
            if close < 0 or text[close + 6 : close + 7] != "\n":
                break
            pos = close + 7
        elif match := _COPY_TAG.match(text, pos):
            pos = match.end()
        else:
            break
    done, rest = text[:pos], text[pos:]
    try:
        ops = parse_program(done)
    except ProgramError as exc:
        raise EngineError(f"the vLLM server broke the program grammar: {exc}") from None
    if format_program(ops) != done or not _could_continue(rest):
        raise EngineError(f"the vLLM server broke the program grammar near {rest[:40]!r}")
    return ops, rest


def _could_continue(rest: str) -> bool:
    """Whether ``rest`` can still become one op: an open gen body, or the start of a tag."""
    if rest.startswith("<gen>"):
        return rest.find("</gen>", 5) in (-1, len(rest) - 6)  # open, or closed but for its newline
    return '<copy lines="N-N"/>'.startswith(re.sub("[0-9]+", "N", rest)) or "<gen>".startswith(rest)


def tag_needs_newline(rest: str) -> bool:
    """Whether the unfinished rest is a tag that closed without its newline (not gen text that holds ``"/>``)."""
    if rest.startswith("<gen>"):
        return rest.find("</gen>", 5) == len(rest) - 6
    return _COPY_TAG.fullmatch(rest + "\n") is not None


def check_ops(ops: Sequence[Op], first: int, last: int) -> int:
    """Copies in order inside first..last, no gen after a gen; returns the next line a copy may use."""
    next_line, previous = first, None
    for op in ops:
        if isinstance(op, Copy):
            if not next_line <= op.start <= op.end <= last:
                raise EngineError(f"the vLLM server wrote {op} outside lines {next_line}-{last}")
            next_line = op.end + 1
        elif not isinstance(op, Gen) or isinstance(previous, Gen):
            raise EngineError(f"the vLLM server wrote an op the grammar forbids: {op}")
        previous = op
    return next_line


# ---------------------------------------------------------------------------
# HTTP


@dataclass
class Reply:
    """One completion request's outcome."""

    ids: list[int]
    text: str  # the server's own detokenization (cut at the stop string)
    finish: str | None  # "stop", "length", or "abort" when the server gave up
    stop: str | int | None  # the matched stop string; None when the model ended (EOS)
    usage: dict | None
    first_token_s: float
    total_s: float
    tries: int = 1


class VLLMClient:
    """The few calls cad-lsp makes, with timeouts and retries of requests that failed in transit.

    Every request here is safe to repeat: it changes nothing but the server's
    cache, and a completion is only used once it has fully arrived.
    """

    def __init__(self, url: str, timeout_s: float = TIMEOUT_S, retries: int = RETRIES, api_key: str | None = None):
        self.url = url.rstrip("/")
        self.timeout_s, self.retries = timeout_s, retries
        self.headers = {"Content-Type": "application/json"}
        api_key = api_key or os.environ.get("CAD_LSP_VLLM_API_KEY")  # vLLM's --api-key
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"

    def get(self, path: str) -> str:
        return self._retrying(lambda: self._read(path, None).decode("utf-8"))

    def post(self, path: str, body: dict) -> dict:
        return _json(self._retrying(lambda: self._read(path, body)))

    def _read(self, path: str, body: dict | None) -> bytes:
        with self._open(path, body) as response:
            return response.read()

    def complete(self, body: dict, cancel=None, on_ids: Callable[[int], None] | None = None) -> Reply:
        """A streamed /v1/completions request; ``cancel`` closes it (the server then aborts it)."""
        tries = 0

        def attempt() -> Reply:
            nonlocal tries
            tries += 1
            return self._stream(body, cancel, on_ids)

        reply = self._retrying(attempt)
        reply.tries = tries
        return reply

    def _stream(self, body: dict, cancel, on_ids) -> Reply:
        body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        ids: list[int] = []
        text, finish, stop, usage, first_s = [], None, None, None, None
        t0 = time.perf_counter()
        with self._open("/v1/completions", body) as response:
            for event in _events(response):
                check_cancel(cancel)
                usage = event.get("usage") or usage
                for choice in event.get("choices") or []:
                    new = choice.get("token_ids") or []
                    if new and first_s is None:
                        first_s = time.perf_counter() - t0
                    ids += new
                    text.append(choice.get("text") or "")
                    finish = choice.get("finish_reason") or finish
                    stop = choice.get("stop_reason", stop) if choice.get("finish_reason") else stop
                    if new and on_ids is not None:
                        on_ids(len(ids))
        total = time.perf_counter() - t0
        if finish is None:
            raise ConnectionError("the stream ended before the completion did")
        return Reply(ids, "".join(text), finish, stop, usage, total if first_s is None else first_s, total)

    def _open(self, path: str, body: dict | None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, headers=self.headers)
        return urllib.request.urlopen(request, timeout=self.timeout_s)

    def _retrying(self, attempt):
        """Run ``attempt``; repeat it after a transient failure, raise EngineError with the reason otherwise."""
        for tries in range(self.retries + 1):
            try:
                return attempt()
            except urllib.error.HTTPError as exc:
                detail = _error_detail(exc)
                if exc.code < 500 and exc.code != 429:
                    raise EngineError(f"the vLLM server at {self.url} refused the request "
                                      f"({exc.code}): {detail}") from None
                reason = f"HTTP {exc.code}: {detail}"
            except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError) as exc:
                reason = _transport_reason(exc, self.timeout_s)
            if tries < self.retries:
                time.sleep(0.5 * 2**tries)
        raise EngineError(f"no answer from the vLLM server at {self.url} ({reason}) after {self.retries + 1} tries; "
                          "is it running? (docs/vllm.md)")


def _events(response) -> Iterator[dict]:
    """The JSON events of a server-sent event stream."""
    for raw in response:
        line = raw.decode("utf-8").strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        event = _json(data)
        if "error" in event:
            message = event["error"].get("message") if isinstance(event["error"], dict) else event["error"]
            raise EngineError(f"the vLLM server failed the request: {message}")
        yield event


def _json(data: str | bytes) -> dict:
    try:
        return json.loads(data)
    except ValueError:
        raise EngineError(f"the vLLM server answered something that is not JSON: {data[:80]!r}") from None


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(exc.read())
        error = body.get("error", body)
        return str(error.get("message", error) if isinstance(error, dict) else error)[:500]
    except (ValueError, OSError, AttributeError):
        return exc.reason or "no detail"


def _transport_reason(exc: Exception, timeout_s: float) -> str:
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return f"nothing received for {timeout_s:g} s"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    return str(reason) or type(reason).__name__


# ---------------------------------------------------------------------------
# The engine


@dataclass
class VLLMStats(Stats):
    requests: int = 0
    retries: int = 0
    rounds: list = field(default_factory=list)  # per request: prompt, cached, new and generated tokens, seconds


def load_client_tokenizer(model: str):
    """The tokenizer of a model named as ``--model`` names it; only the tokenizer, never the weights."""
    try:
        if model in ("smollm2", "smollm2:base"):
            gguf = smollm2_path()
            return load_tokenizer(gguf.parent, gguf_file=gguf.name)
        if model.startswith("random:"):
            return load_tokenizer(QWEN_TOKENIZER)
        path = Path(model).expanduser()
        return load_tokenizer(path if path.exists() else model)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"cannot load the tokenizer of {model!r}: {exc}") from exc


class VLLMEngine:
    """The ``Engine`` interface over a vLLM server; requests may run concurrently (vLLM batches them).

    The server is first asked at the first request, not at start: an editor
    started while the server is down works as soon as the server is up.
    """

    _check_request = Engine._check_request  # the same checks and messages as the local engine
    _prepare = Engine._prepare

    def __init__(self, url: str, tokenizer, *, served_model: str | None = None, timeout_s: float = TIMEOUT_S,
                 retries: int = RETRIES, check: bool = True):
        self.client = VLLMClient(url, timeout_s, retries)
        self.name = served_model or url  # the served model's name once known (``served_model``)
        self.tokenizer = tokenizer
        self.lock = threading.RLock()  # kept for the interface; edits do not need it
        self.newline = tokenizer.encode("\n", add_special_tokens=False)
        self.eos = tokenizer.eos_token_id
        self._served, self._check = served_model, check and served_model is None
        self._connecting = threading.Lock()

    @classmethod
    def connect(cls, url: str | None, model: str = "smollm2", **kwargs) -> "VLLMEngine":
        """An engine for the server at ``url`` with ``model``'s tokenizer (loaded here, never the weights)."""
        if not url:
            raise EngineError("the vllm backend needs the server's URL "
                              "(--vllm-url, or vllmUrl in initializationOptions)")
        return cls(url, load_client_tokenizer(model), **kwargs)

    @property
    def served_model(self) -> str:
        """The model the server serves; finding it the first time also checks the tokenizers agree."""
        with self._connecting:
            if self._served is None:
                models = [m["id"] for m in _json(self.client.get("/v1/models")).get("data", [])]
                if len(models) != 1:
                    raise EngineError(f"the vLLM server at {self.client.url} serves {len(models)} models "
                                      f"({models}); cad-lsp needs exactly one")
                if self._check:
                    self.check_tokenizer(served=models[0])
                self._served = models[0]
        return self._served

    def check_tokenizer(self, text: str = TOKENIZER_PROBE, served: str | None = None) -> list[int]:
        """Tokenize and detokenize on both sides; raise EngineError unless the ids and text agree."""
        served = served or self.served_model
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        theirs = self.client.post("/tokenize", {"model": served, "prompt": text,
                                                "add_special_tokens": False}).get("tokens")
        back = self.client.post("/detokenize", {"model": served, "tokens": ids}).get("prompt")
        if theirs != ids or back != self.tokenizer.decode(ids):
            raise EngineError(f"the vLLM server's tokenizer ({served}) differs from cad-lsp's: "
                              "give cad-lsp the served model's name or folder with --model")
        return ids

    # -- the Engine interface
    def warm(self, key: str, document: str, name: str = "document", line: int | None = None, cancel=None) -> int:
        """Prefill the document's prompt prefix into the server's prefix cache; returns tokens computed.

        ``line`` and ``cancel`` are the local engine's (a window's place, a stop between chunks); one request
        here prefills the whole prefix."""
        ids = document_prefix_ids(self.tokenizer, document, name)
        reply = self.client.complete({"model": self.served_model, "prompt": ids, "max_tokens": 1,
                                      "temperature": 0.0, "return_token_ids": True})
        cached = _cached(reply.usage)
        return len(ids) - (cached or 0)

    def forget(self, key: str) -> None:
        """Nothing to do: the server's prefix cache evicts by itself."""

    def cached_documents(self) -> list[str]:
        return []

    def edit(self, document: str, first_line: int, last_line: int | None, instruction: str, *, key: str | None = None,
             name: str = "document", max_tokens: int | None = None, temperature: float = 0.0, top_p: float = 1.0,
             seed: int = 0, cancel=None, progress=None, program: Sequence[Op] | None = None,
             speculate: bool = True) -> EditResult:
        """Decode an edit program for lines first..last on the server and resolve it.

        ``speculate`` is the local engine's drafting; vLLM decodes on its own server (its own speculative
        decoding is the server's setting), so it changes nothing here.

        With ``program`` the server is teacher-forced through that program's
        text (a literal grammar), so it decodes and splices what a real run would.
        """
        doc, last_line, max_tokens, _ = self._prepare(document, first_line, last_line, instruction, program, max_tokens)
        prompt = build_prompt(self.tokenizer, document, first_line, last_line, instruction, name)
        stats = VLLMStats(prompt_tokens=len(prompt.ids))
        t0 = time.perf_counter()
        sampling = {"temperature": temperature, "top_p": top_p}
        script = None if program is None else format_program(program)
        ops, complete = self._run(prompt.ids, doc, first_line, last_line, stats, max_tokens, sampling, seed,
                                  script, cancel, progress)
        stats.total_s = time.perf_counter() - t0
        text = resolve(ops, document, first_line, last_line)
        return EditResult(ops, format_program(ops), text, complete, first_line, last_line, stats)

    def apply(self, document: str, update: str, instruction: str | None = None, *, key: str | None = None,
              name: str = "document", max_tokens: int | None = None, temperature: float = 0.0, top_p: float = 1.0,
              seed: int = 0, cancel=None, progress=None, program: Sequence[Op] | None = None,
              speculate: bool = True, on_text: Callable[[str], None] | None = None, language: str | None = None,
              force: bool = False) -> EditResult:
        """Merge an update snippet on the server: the region, prompt and placement of the local engine's apply
        (``on_text``, ``language`` and ``force`` as there)."""
        job = plan_apply(document, update, instruction, language, force)
        first, last = job.merge.first, job.merge.last
        doc, _, default_tokens, _ = self._prepare(document, first, last, job.instruction, program, max_tokens)
        if max_tokens is None:
            max_tokens = max(default_tokens, job.max_tokens(self.tokenizer))
        prompt = build_prompt(self.tokenizer, document, first, last, job.instruction, name, update=job.hints)
        stats = VLLMStats(prompt_tokens=len(prompt.ids))
        t0 = time.perf_counter()
        script = None if program is None else format_program(program)
        start, end = doc.line_range_offsets(first, last)
        if on_text is not None:
            on_text(document[:start])
        on_op = None if on_text is None else lambda op: on_text(resolve([op], document, first, last))
        ops, complete = self._run(prompt.ids, doc, first, last, stats, max_tokens,
                                  {"temperature": temperature, "top_p": top_p}, seed, script, cancel, progress, on_op)
        if on_text is not None and complete:
            on_text(document[end:])
        stats.total_s = time.perf_counter() - t0
        result = EditResult(ops, format_program(ops), resolve(ops, document, first, last), complete, first, last, stats)
        result.merge = job.merge
        return result

    # -- the loop: one request per copy, plus one
    def _run(self, prompt_ids, doc, first, last, stats, max_tokens, sampling, seed, script, cancel, progress,
             on_op=None):
        """Send requests until the program ends; returns (ops, complete).  ``on_op`` gets each op once complete."""
        sequence = list(prompt_ids)  # every id the server has seen: prompt, program, copied lines
        written: list[int] = []  # the program's own tokens (copied lines are spliced, not written)
        spliced = 0  # ops whose copied lines are in ``sequence``
        emitted = 0  # ops given to on_op
        added = len(sequence)  # ids appended here since the last request
        while True:
            check_cancel(cancel)
            text = self.tokenizer.decode(written)
            budget = max_tokens - stats.sampled_tokens - stats.forced_tokens
            if budget <= 0:
                return split_program(text)[0], False
            body = {"model": self.served_model, "prompt": sequence, "max_tokens": budget, "stop": [STOP],
                    "include_stop_str_in_output": True, "return_token_ids": True, "seed": seed + stats.requests,
                    "structured_outputs": {"grammar": self._grammar(text, first, last, script)}, **sampling}
            ids = self._request(body, stats, added, cancel, progress)
            written += ids
            sequence += ids
            ops, rest = split_program(self.tokenizer.decode(written))
            check_ops(ops, first, last)
            if on_op is not None:
                for op in ops[emitted:]:
                    on_op(op)
                emitted = len(ops)
            finish = stats.rounds[-1]["finish"]
            if finish == "length":
                return ops, False
            if finish == "end":
                if rest:
                    raise EngineError(f"the vLLM server ended the program inside an op: {rest[:40]!r}")
                return ops, True
            if finish != "stop":
                raise EngineError(f"the vLLM server ended a request early ({finish})")
            # Stopped at "/>: a copy tag closed (or gen text holds "/>, and the next request goes on with it).
            forced = self.newline if tag_needs_newline(rest) else []  # the grammar forces it: append it
            written += forced
            sequence += forced
            stats.forced_tokens += len(forced)
            added = len(forced)
            ops = split_program(self.tokenizer.decode(written))[0]
            for op in ops[spliced:]:
                if isinstance(op, Copy):
                    content = copy_tokens(self.tokenizer, doc, op)
                    sequence += content
                    added += len(content)
                    stats.spliced_tokens += len(content)
            spliced = len(ops)

    def _grammar(self, text: str, first: int, last: int, script: str | None) -> str:
        """The grammar for the rest of the program after ``text`` (or of the teacher program)."""
        ops, rest = split_program(text)
        if rest and not rest.startswith("<gen>"):
            raise EngineError(f"the vLLM server stopped inside a tag: {rest!r}")
        if script is not None:
            if not script.startswith(text):
                raise EngineError("the vLLM server left the teacher program")
            return literal_grammar(script[len(text) :])
        open_body = rest[len("<gen>") :] if rest else None
        return rest_grammar(check_ops(ops, first, last), last, not (ops and isinstance(ops[-1], Gen)), open_body)

    def _request(self, body: dict, stats: VLLMStats, added: int, cancel, progress) -> list[int]:
        """One completion; returns the ids the model wrote (its end-of-sequence token dropped)."""
        sampled = stats.sampled_tokens

        def on_ids(n: int) -> None:
            stats.sampled_tokens = sampled + n
            if progress is not None:
                progress(stats)

        try:
            reply = self.client.complete(body, cancel, on_ids)
        finally:
            stats.sampled_tokens = sampled
        self._account(stats, reply, len(body["prompt"]), added)
        ids = [t for t in reply.ids if t != self.eos]
        if not self.tokenizer.decode(ids).startswith(reply.text.rstrip("\ufffd")):
            raise EngineError("the vLLM server's text differs from its token ids: the tokenizers disagree")
        return ids

    @staticmethod
    def _account(stats: VLLMStats, reply: Reply, prompt_len: int, added: int) -> None:
        """Fold one request into the stats: its first token is its prefill (or splice), the rest decode steps."""
        cached = _cached(reply.usage)
        first = stats.requests == 0
        stats.requests += 1
        stats.retries += reply.tries - 1
        stats.sampled_tokens += len(reply.ids)
        stats.forwards += len(reply.ids)
        stats.decode_steps += max(0, len(reply.ids) - 1)
        if first:
            stats.cached_tokens = cached or 0
            stats.prefill_tokens = prompt_len - (cached or 0)
            stats.prefill_s = reply.first_token_s
        else:
            stats.splice_forwards += 1
            stats.splice_s += reply.first_token_s
        stats.decode_s += reply.total_s - reply.first_token_s
        stats.rounds.append({"prompt": prompt_len, "cached": cached, "new": added, "generated": len(reply.ids),
                             "finish": _finish(reply),
                             "first_token_s": round(reply.first_token_s, 4), "s": round(reply.total_s, 4)})


def _finish(reply: Reply) -> str:
    """How a request ended: "length" (max_tokens), "end" (the model ended the program) or "stop" (at "/>)."""
    if reply.finish != "stop":
        return reply.finish  # "length", or "abort" when the server gave up on it
    return "end" if reply.stop is None else "stop"


def _cached(usage: dict | None) -> int | None:
    """Prompt tokens the server found in its prefix cache (needs --enable-prompt-tokens-details)."""
    details = (usage or {}).get("prompt_tokens_details") or {}
    return details.get("cached_tokens")


# ---------------------------------------------------------------------------
# A model for the server


def export_model(name: str, out: str | Path) -> Path:
    """Write a model named as ``--model`` names it to a folder vLLM loads (safetensors, config, tokenizer).

    vLLM cannot read the embedded SmolLM2 GGUF; transformers dequantizes it,
    and a fresh model of the same class saves the weights without the GGUF
    quantization config.  The tokenizer is saved beside it, so the server
    tokenizes exactly as the client does.
    """
    import torch

    from .pytorch.loading import load_model

    loaded = load_model(name, "cpu", "fp32")
    config = loaded.model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = type(loaded.model)(config)
    model.load_state_dict(loaded.model.state_dict())
    out = Path(out)
    model.to(torch.bfloat16).save_pretrained(out)
    loaded.tokenizer.save_pretrained(out)
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m cad_lsp.backends.vllm")
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="write a model as a folder vLLM can serve")
    export.add_argument("model", help="smollm2, random:tiny, a local path or a hub id")
    export.add_argument("out")
    args = parser.parse_args(argv)
    print(export_model(args.model, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["VLLMEngine", "VLLMClient", "VLLMStats", "rest_grammar", "literal_grammar", "split_program", "check_ops",
           "copy_range_regex", "export_model", "load_client_tokenizer"]
