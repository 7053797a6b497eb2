"""What clients send and get: Morph's apply request read from an OpenAI chat completion, and the completion,
stream chunk and model list OpenAI's clients parse.

Morph's format: the last user message holds ``<code>{file}</code>`` and
``<update>{snippet}</update>``, with an optional ``<instruction>…</instruction>``;
the assistant's answer is the whole merged file.  Two body fields of our own,
which Morph's clients never send: ``language`` (the file's name or language id,
which the format lacks) and ``force`` (accept a merge that breaks a file which
parsed).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass

from .errors import bad_request

FORMAT_HINT = ("the last user message must hold the file as <code>…</code> followed by the snippet to merge as "
               "<update>…</update> (Morph's apply format), optionally with <instruction>…</instruction>")
# avante.nvim writes <instructions>: both spellings are read, each closed by its own tag.
_BOUNDARY = re.compile(r"</code>\s*(?:<(instructions?)>(.*?)</\1>\s*)?<update>", re.DOTALL)
_INSTRUCTION = re.compile(r"<(instructions?)>(.*?)</\1>", re.DOTALL)
_FENCED = re.compile(r"\A\s*```[^\r\n`]*\r?\n((?:.*?\n)?)```\s*\Z", re.DOTALL)  # the inside keeps its last newline


@dataclass(frozen=True)
class ApplyRequest:
    """One apply, as the engine takes it, and how the client wants the answer."""

    code: str
    update: str
    instruction: str | None
    model: str | None
    stream: bool = False
    include_usage: bool = False  # stream_options.include_usage: a last chunk with the usage
    max_tokens: int | None = None
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    language: str | None = None  # the file's name, extension or language id (None: the merge guesses)
    force: bool = False  # accept a merge that breaks a file which parsed


def strip_fence(text: str) -> str:
    """The inside of one markdown code fence around the whole text (Continue sometimes sends one), else the text."""
    match = _FENCED.match(text)
    return match.group(1) if match else text


def split_tags(text: str) -> tuple[str, str, str | None]:
    """(code, update, instruction) from Morph's tagged message.

    The file may itself contain ``</code>`` or ``<update>`` (HTML, docs about
    this format): the code runs from the first ``<code>`` to the last
    ``</code>`` directly followed by ``<update>``, the update to the last
    ``</update>``.
    """
    start = text.find("<code>")
    end = text.rfind("</update>")
    boundary = None
    if start >= 0:
        for match in _BOUNDARY.finditer(text, start + len("<code>")):
            if match.end() <= end:
                boundary = match
    if boundary is None:
        raise bad_request(FORMAT_HINT, param="messages", code="missing_tags")
    code, update = text[start + len("<code>"):boundary.start()], text[boundary.end():end]
    instruction = boundary.group(2)
    if instruction is None:
        around = _INSTRUCTION.search(text[:start]) or _INSTRUCTION.search(text[end + len("</update>"):])
        instruction = around.group(2) if around else None
    if instruction is not None and not instruction.strip():
        instruction = None
    return strip_fence(code), strip_fence(update), instruction


def message_text(content) -> str | None:
    """A message's text: a string, or OpenAI's list of parts (the text parts joined); None if neither."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        texts = [p.get("text") for p in content if p.get("type") == "text"]
        if texts and all(isinstance(t, str) for t in texts):
            return "".join(texts)
    return None


def _number(body: dict, name: str, kind: type, default, low: float, high: float | None = None):
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
        raise bad_request(f"{name} must be {'a number' if kind is float else 'an integer'}, got {value!r}", param=name)
    if value < low or (high is not None and value > high):
        limits = f"at least {low}" if high is None else f"from {low} to {high}"
        raise bad_request(f"{name} must be {limits}, got {value!r}", param=name)
    return kind(value)


def parse_apply_request(raw: bytes) -> ApplyRequest:
    """The request in a chat completion body; APIError 400 saying what is wrong with it."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise bad_request(f"the body is not valid JSON: {exc}", code="invalid_json") from None
    if not isinstance(body, dict):
        raise bad_request("the body must be a JSON object (an OpenAI chat completion request)", code="invalid_json")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise bad_request("messages must be a non-empty list of message objects", param="messages")
    users = [m for m in messages if m.get("role") == "user"]
    if not users:
        raise bad_request("no user message: " + FORMAT_HINT, param="messages", code="missing_tags")
    text = message_text(users[-1].get("content"))
    if text is None:
        raise bad_request("the last user message's content must be text (a string or text parts)", param="messages")
    code, update, instruction = split_tags(text)
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise bad_request(f"model must be a string, got {model!r}", param="model")
    stream = body.get("stream", False)
    if not isinstance(stream, bool) and stream is not None:
        raise bad_request(f"stream must be true or false, got {stream!r}", param="stream")
    options = body.get("stream_options") or {}
    if not isinstance(options, dict):
        raise bad_request("stream_options must be an object", param="stream_options")
    if _number(body, "n", int, 1, 1) != 1:
        raise bad_request("n must be 1", param="n")
    language, force = body.get("language"), body.get("force", False)
    if language is not None and not isinstance(language, str):
        raise bad_request(f"language must be a string (a file name or language id), got {language!r}",
                          param="language")
    if not isinstance(force, bool) and force is not None:
        raise bad_request(f"force must be true or false, got {force!r}", param="force")
    limit_name = "max_completion_tokens" if body.get("max_completion_tokens") is not None else "max_tokens"
    return ApplyRequest(
        code=code, update=update, instruction=instruction, model=model, stream=bool(stream),
        include_usage=options.get("include_usage") is True,
        max_tokens=_number(body, limit_name, int, None, 1),
        temperature=_number(body, "temperature", float, 0.0, 0.0, 2.0),
        top_p=_number(body, "top_p", float, 1.0, 1e-6, 1.0),
        seed=_number(body, "seed", int, 0, -(2**63), 2**63 - 1) % 2**63,  # the sampler's seed: a non-negative integer
        language=language or None, force=bool(force),
    )


# ---------------------------------------------------------------------------
# Answers


def completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex}"


def usage(stats) -> dict:
    """OpenAI's usage from the engine's stats: the program's own tokens are the completion (copied lines are
    spliced into the cache, not written); the prompt's tokens found in the warm cache are ``cached_tokens``."""
    completion = stats.sampled_tokens + stats.forced_tokens
    return {"prompt_tokens": stats.prompt_tokens, "completion_tokens": completion,
            "total_tokens": stats.prompt_tokens + completion,
            "prompt_tokens_details": {"cached_tokens": stats.cached_tokens}}


def completion(ident: str, model: str, content: str, finish_reason: str, stats) -> dict:
    return {"id": ident, "object": "chat.completion", "created": int(time.time()), "model": model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "logprobs": None,
                         "finish_reason": finish_reason}],
            "usage": usage(stats)}


def chunk(ident: str, model: str, delta: dict, finish_reason: str | None = None) -> dict:
    return {"id": ident, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]}


def usage_chunk(ident: str, model: str, stats) -> dict:
    """The last chunk when the client asked for ``stream_options.include_usage``: no choices, the usage."""
    return {"id": ident, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "system_fingerprint": None, "choices": [], "usage": usage(stats)}


def event(data: dict | str) -> str:
    """One server-sent event."""
    return f"data: {data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)}\n\n"


def model_card(name: str) -> dict:
    return {"id": name, "object": "model", "created": 0, "owned_by": "cad-lsp"}


def model_list(name: str) -> dict:
    return {"object": "list", "data": [model_card(name)]}
