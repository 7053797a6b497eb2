"""A GGUF file's tokenizer without transformers in the process: what keeps a llama.cpp process small.

The engine asks a tokenizer for ``encode``, a batch call, ``decode``, a chat
template and the end token (``engine.prompt``, ``engine.drafter``), and the
grammar for its Rust tokenizer (``grammar.ll_tokenizer``).  transformers
reads a GGUF file's vocabulary into exactly the tokenizer the model was
trained with, but importing it imports PyTorch (~220 MB); llama.cpp's own
tokenizer splits some text otherwise (a space before a line break followed
by text: ``"3| \\n4|"``, every blank line of the prompt's numbered document),
so the model would read prompts unlike its training's.

So transformers reads the file once, in a child process, and its tokenizer
is kept in the cache folder (``tokenizer.json``, the special tokens and the
chat template); a load reads that with the ``tokenizers`` library alone.
Chat templates are rendered as transformers renders them (a sandboxed Jinja
environment that trims blocks, with ``raise_exception``, ``strftime_now`` and
a ``tojson`` that leaves non-ASCII text as it is), so a prompt is the same
tokens on every backend.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from ..catalog import ModelLoadError, cache_dir, cached_folder

CONVERT = """
import sys
from pathlib import Path
from cad_lsp.backends.llamacpp.tokenizer import save_transformers_tokenizer
save_transformers_tokenizer(Path(sys.argv[1]), Path(sys.argv[2]))
"""


class GGUFTokenizer:
    """Encode, decode and chat templates over a ``tokenizers.Tokenizer`` saved from transformers' reading."""

    def __init__(self, folder: Path):
        from tokenizers import Tokenizer

        self.backend_tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        special = json.loads((folder / "special.json").read_text(encoding="utf-8"))
        self.eos_token, self.eos_token_id = special["eos_token"], special["eos_token_id"]
        self.bos_token, self.unk_token_id = special["bos_token"], special["unk_token_id"]
        self.chat_template = special["chat_template"]
        self.vocab_size = self.backend_tokenizer.get_vocab_size(with_added_tokens=False)

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return self.backend_tokenizer.encode(text, add_special_tokens=add_special_tokens).ids

    def __call__(self, texts: list[str], add_special_tokens: bool = False) -> dict:
        encoded = self.backend_tokenizer.encode_batch(texts, add_special_tokens=add_special_tokens)
        return {"input_ids": [e.ids for e in encoded]}

    def decode(self, ids) -> str:
        return self.backend_tokenizer.decode([int(token) for token in ids], skip_special_tokens=False)

    def convert_tokens_to_ids(self, token: str) -> int | None:
        found = self.backend_tokenizer.token_to_id(token)
        return self.unk_token_id if found is None else found

    def apply_chat_template(self, messages: list[dict], tokenize: bool = False, add_generation_prompt: bool = False,
                            chat_template: str | None = None) -> str:
        template = chat_template or self.chat_template
        if template is None:
            raise ValueError("this model's GGUF file has no chat template")
        if tokenize:
            raise ValueError("render the text, then encode it")
        return _compiled(template).render(messages=messages, add_generation_prompt=add_generation_prompt,
                                          bos_token=self.bos_token or "", eos_token=self.eos_token or "")


def load_gguf_tokenizer(path: Path) -> GGUFTokenizer:
    """The tokenizer of the GGUF file at ``path``: read by transformers the first time (in a child process,
    unless this one holds transformers already), then from the cache folder."""
    stat = path.stat()
    key = hashlib.sha256(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]

    def build(out: Path) -> None:
        if "transformers" in sys.modules:
            try:
                save_transformers_tokenizer(path, out)
            except Exception as exc:  # noqa: BLE001 - transformers raises many kinds for a GGUF it cannot read
                raise ModelLoadError(f"cannot read the tokenizer of {path}: {exc}") from None
            return
        run = subprocess.run([sys.executable, "-c", CONVERT, str(path), str(out)], capture_output=True, text=True,
                             timeout=900)
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["no reason given"])[-1]
            raise ModelLoadError(f"cannot read the tokenizer of {path}: {last}")

    try:
        return GGUFTokenizer(cached_folder(cache_dir() / "tokenizers", key, build))
    except OSError as exc:
        raise ModelLoadError(f"cannot keep the tokenizer of {path} in {cache_dir()}: {exc}") from None


def save_transformers_tokenizer(path: Path, out: Path) -> None:
    """transformers' tokenizer for a GGUF file, saved as ``tokenizers`` reads it and with its special tokens."""
    from ..catalog import load_tokenizer

    tokenizer = load_tokenizer(path.parent, gguf_file=path.name)
    backend = tokenizer.backend_tokenizer
    backend.no_padding()
    backend.no_truncation()
    backend.save(str(out / "tokenizer.json"))
    special = {"eos_token": tokenizer.eos_token, "eos_token_id": tokenizer.eos_token_id,
               "bos_token": tokenizer.bos_token, "unk_token_id": tokenizer.unk_token_id,
               "chat_template": getattr(tokenizer, "chat_template", None)}
    (out / "special.json").write_text(json.dumps(special, ensure_ascii=False), encoding="utf-8")


@lru_cache(maxsize=8)
def _compiled(template: str):
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env.from_string(template)


__all__ = ["GGUFTokenizer", "load_gguf_tokenizer", "save_transformers_tokenizer"]
