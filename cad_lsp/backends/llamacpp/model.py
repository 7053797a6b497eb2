"""The llama.cpp backend: a GGUF model in this process, through llama-cpp-python's low-level API.

llama.cpp's quantized CPU kernels are what people run coder models with on
their own machines; this puts the same files behind the engine's seam
(``engine.backend``): a forward appends a batch of tokens to the KV cache and
returns logits at the positions the decode loop asks for.

- **One sequence, a saved state per document.**  The engine keeps a cache per
  document (and per window); llama.cpp keeps one KV memory per context.  The
  active state lives in sequence 0; switching to another state saves the
  active one out (``llama_state_seq_get_data``, the cells it holds) and
  restores the other.  Memory follows what each state holds, and attention
  never looks at another document's cells.
- **No one-row products** (``batch_invariant``).  llama.cpp multiplies a
  single row with other kernels than several (matrix-vector products), so
  the same position gets logits that differ in the last bits (up to 0.04 on
  SmolLM2), and greedy choices at near-ties flip: speculation on and off
  would write different programs.  So a one-token extend decodes the
  previous token again with it (crop one, extend two), a forward asks for at
  least two rows of logits (the last layer runs on those rows only), and no
  forward is cut into a one-token piece.  With that, a position's logits are
  bitwise the same in a forward of 2 tokens or of 41 (tested).  The other
  kernels are llamafile's matrix products, which llama.cpp builds by default;
  built without them (``-DGGML_LLAMAFILE=OFF``) it multiplies one row as it
  multiplies several, bitwise (measured on SmolLM2: Q4_1, q8_0, with and
  without the adapter), so the load checks (``_one_row_is_exact``) and a
  decode step is then one token: 18 ms against 25 on a 2-core CPU, though
  its batches, the copies, are slower (a 64-token forward: 28%), and a
  warm edit as a whole is not faster (with a dearer row the drafts grow
  shorter and the edit takes more forwards).
- **The tokenizer is the GGUF file's own**, as transformers reads it (what the
  model was trained with), kept in the cache folder and read without
  transformers (``tokenizer``): no PyTorch in the process (``decode`` samples
  with numpy).  The load checks it against ``llama_tokenize`` on a probe text
  and says so in ``advice`` where they split text differently.
- **The context grows** with the longest state (``_room_for``): llama.cpp
  allocates and clears a context's keys and values when it is made, so a
  context as long as the model's (8,192 positions for SmolLM2: 180 MB) would
  hold that memory for a 50-line file.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from ...engine import backend as seam
from ...engine.backend import KVState
from ..catalog import ModelLoadError
from .tokenizer import load_gguf_tokenizer

LLAMACPP_INSTALL = "pip install 'cad-lsp[llamacpp]' (builds llama-cpp-python: needs cmake and a C compiler)"
TOKENIZER_PROBE = ("def f(xs: list[int]) -> int:\r\n\treturn sum(x * 2 for x in xs)  # 😀 ünïcode, 12-30\n"
                   '    <copy lines="12-30"/>\n<gen>  if not xs:\n        return 0\n</gen>\n')
MICRO_BATCH = 512  # tokens per llama.cpp forward: its compute buffer holds their attention over the context
MAX_CONTEXT = 16384  # positions allocated at most: a 32k-context 7B model's f16 cache alone would take 1.8 GB
FIRST_CONTEXT = 1024  # positions allocated at first: the context grows with the longest state (SmolLM2: 23 KB each)


def import_llama_cpp():
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelLoadError(f"the llama.cpp backend is not installed ({exc}): {LLAMACPP_INSTALL}") from None
    return llama_cpp


_LOG_LINES: list[str] = []  # llama.cpp's log, kept for error messages instead of printed over the user's output


def _quiet_log(llama_cpp) -> None:
    @llama_cpp.llama_log_callback
    def log(level, text, user_data):
        _LOG_LINES.append(text.decode("utf-8", "replace"))
        del _LOG_LINES[:-50]

    _quiet_log.callback = log  # kept alive: llama.cpp holds only the pointer
    llama_cpp.llama_log_set(log, ctypes.c_void_p())


class LlamaCppModel:
    """A GGUF model behind the seam: ``extend``, ``extend_scored`` and ``crop`` over llama.cpp's KV memory."""

    def __init__(self, name: str, path: str | Path, adapter: str | Path | None = None,
                 n_threads: int | None = None, max_context: int = MAX_CONTEXT, batch_invariant: bool = True):
        llama_cpp = self.lib = import_llama_cpp()
        _quiet_log(llama_cpp)
        llama_cpp.llama_backend_init()
        self.name, self.path, self.batch_invariant = name, Path(path), batch_invariant
        self.adapted, self.advice, self.forwards = adapter is not None, None, 0
        params = llama_cpp.llama_model_default_params()
        params.n_gpu_layers = 0
        self.model = llama_cpp.llama_model_load_from_file(str(self.path).encode(), params)
        if not self.model:
            raise ModelLoadError(f"llama.cpp cannot load {self.path}: {_last_log()}")
        self.vocab = llama_cpp.llama_model_get_vocab(self.model)
        self.vocab_size = llama_cpp.llama_vocab_n_tokens(self.vocab)
        self.context_length = min(llama_cpp.llama_model_n_ctx_train(self.model), max_context)
        embed = llama_cpp.llama_model_n_embd(self.model)
        body = max(1, llama_cpp.llama_model_n_params(self.model) - self.vocab_size * embed)
        self.head_ratio = self.vocab_size * embed / body
        self._threads = n_threads or len(os.sched_getaffinity(0))
        self.micro_batch, self.ctx, self.positions = MICRO_BATCH, None, 0
        try:
            self._make_context(min(FIRST_CONTEXT, self.context_length))
        except seam.EngineError as exc:
            raise ModelLoadError(str(exc)) from None
        self._adapter = None
        if adapter is not None:
            self._adapter = llama_cpp.llama_adapter_lora_init(self.model, str(adapter).encode())
            if not self._adapter:
                raise ModelLoadError(f"llama.cpp cannot load the adapter {adapter}: {_last_log()}")
            self._set_adapter()
        self.tokenizer = self._read_tokenizer()
        self._batch = llama_cpp.llama_batch_init(MICRO_BATCH, 0, 1)
        self._active: KVState | None = None  # the state whose cells are in sequence 0
        self.pad_one_row = False
        self.pad_one_row = batch_invariant and not self._one_row_is_exact()  # see the module's docstring

    # -- the tokenizer -----------------------------------------------------------------------------

    def _read_tokenizer(self):
        tokenizer = load_gguf_tokenizer(self.path)
        ours = tokenizer.encode(TOKENIZER_PROBE, add_special_tokens=False)
        theirs = self.tokenize(TOKENIZER_PROBE)
        if ours != theirs:
            self.advice = (f"the tokenizer read from {self.path.name} splits text differently from llama.cpp's "
                           f"({len(ours)} and {len(theirs)} tokens for a probe text): edits work, but the model "
                           f"sees text split in ways it was not trained on")
        return tokenizer

    def tokenize(self, text: str) -> list[int]:
        """llama.cpp's own tokenization (no special tokens added, none parsed)."""
        data = text.encode("utf-8")
        room = len(data) + 16
        out = (self.lib.llama_token * room)()
        count = self.lib.llama_tokenize(self.vocab, data, len(data), out, room, False, False)
        return list(out[:count])

    # -- the seam --------------------------------------------------------------------------------------

    def new_state(self) -> KVState:
        return KVState([], None)

    def extend(self, state: KVState, ids: Sequence[int]) -> np.ndarray:
        if not ids:
            raise ValueError("extend needs at least one token")
        return self.extend_scored(state, ids, [len(ids) - 1])[0]

    def extend_scored(self, state: KVState, ids: Sequence[int], positions: Sequence[int]) -> np.ndarray:
        ids, positions = list(ids), list(positions)
        self._activate(state)
        self._room_for(len(state.ids) + len(ids))
        if self.pad_one_row and len(ids) == 1 and state.ids:
            # decode the previous token again beside this one: see the module's docstring
            ids, positions = [state.ids.pop()] + ids, [p + 1 for p in positions]
            self._crop_cells(len(state.ids))
        rows = []
        for at, end in self._pieces(len(ids)):
            chunk = ids[at:end]
            wanted = [p - at for p in positions if at <= p < end]
            rows += self._decode(chunk, len(state.ids), wanted)
            state.ids.extend(chunk)
        return np.stack(rows) if rows else np.empty((0, self.vocab_size), np.float32)

    def _pieces(self, n: int) -> list[tuple[int, int]]:
        """Forwards of at most one micro-batch each (the context takes no more), none of
        a single token where the whole has more: each forward is then computed by the batch kernels."""
        size = self.micro_batch
        bounds = list(range(0, n, size)) + [n]
        if self.pad_one_row and len(bounds) > 2 and bounds[-1] - bounds[-2] == 1:
            bounds[-2] -= 1
        return list(zip(bounds, bounds[1:]))

    def crop(self, state: KVState, length: int) -> None:
        if len(state.ids) > length:
            self._activate(state)
            self._crop_cells(length)
            del state.ids[length:]

    def nbytes(self, state: KVState) -> int:
        if isinstance(state.cache, (bytes, bytearray)):
            return len(state.cache)
        return len(state.ids) * self._bytes_per_token()

    # -- llama.cpp ----------------------------------------------------------------------------------------

    def _decode(self, chunk: list[int], first_pos: int, wanted: list[int]) -> list[np.ndarray]:
        batch, n = self._batch, len(chunk)
        flags = set(wanted)
        if self.pad_one_row and len(flags) == 1 and n > 1:
            flags.add(wanted[0] - 1 if wanted[0] > 0 else 1)  # the last layer runs on output rows only: two, not one
        for i, token in enumerate(chunk):
            batch.token[i] = token
            batch.pos[i] = first_pos + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = i in flags
        batch.n_tokens = n
        code = self.lib.llama_decode(self.ctx, batch)
        self.forwards += 1
        if code != 0:
            self._crop_cells(first_pos)  # a failed batch may leave some of its cells
            raise seam.EngineError(f"llama.cpp could not run a forward of {n} tokens at position {first_pos} "
                                   f"(code {code}): {_last_log()}")
        rows = []
        for i in wanted:
            pointer = self.lib.llama_get_logits_ith(self.ctx, i)
            rows.append(np.ctypeslib.as_array(pointer, shape=(self.vocab_size,)).astype(np.float32, copy=True))
        return rows

    def _one_row_is_exact(self) -> bool:
        """Whether a one-token forward gives the logits a two-token forward gives the same position, bitwise.

        A build with llamafile's products never does: they take a batch's
        attention over a long context (not a few tokens' one), so no short
        check sees it.  Otherwise three forwards of a few tokens, before any
        state is active, check the weights' products (llama.cpp's repacked
        types have a one-row kernel of their own)."""
        if b"LLAMAFILE = 1" in self.lib.llama_print_system_info():
            return False
        ids = self.tokenize(TOKENIZER_PROBE)[:8]
        self._decode(ids[:7], 0, [6])
        alone = self._decode(ids[7:8], 7, [0])[0]
        self._crop_cells(6)
        paired = self._decode(ids[6:8], 6, [0, 1])[1]
        self.lib.llama_memory_clear(self.memory, True)
        return bool(np.array_equal(alone, paired))

    def _make_context(self, positions: int) -> None:
        """A llama.cpp context of ``positions`` cells.  Its keys and values are allocated, and cleared, when it
        is made, so it starts small and grows with the longest document state (``_room_for``)."""
        lib = self.lib
        cparams = lib.llama_context_default_params()
        cparams.n_ctx = positions
        cparams.n_batch = cparams.n_ubatch = self.micro_batch  # the backend cuts forwards itself
        cparams.n_seq_max = 1
        cparams.n_threads = cparams.n_threads_batch = self._threads
        cparams.no_perf = True
        if self.batch_invariant:
            # Its CPU kernel takes batches of 64 tokens or more down a tiled path that sums in another order:
            # on SmolLM2 at 3,000 cached tokens a position's logits then move by up to 0.77 (measured), and
            # its 8-64-token forwards were 22-30% slower than without it.
            cparams.flash_attn_type = lib.LLAMA_FLASH_ATTN_TYPE_DISABLED
        ctx = lib.llama_init_from_model(self.model, cparams)
        if not ctx:
            raise seam.EngineError(f"llama.cpp cannot make a context of {positions} positions for "
                                   f"{self.path}: {_last_log()}")
        if self.ctx:
            lib.llama_free(self.ctx)
        self.ctx, self.positions = ctx, positions
        self.memory = lib.llama_get_memory(ctx)

    def _set_adapter(self) -> None:
        adapters = (self.lib.llama_adapter_lora_p_ctypes * 1)(self._adapter)
        if self.lib.llama_set_adapters_lora(self.ctx, adapters, 1, (ctypes.c_float * 1)(1.0)) != 0:
            raise ModelLoadError(f"llama.cpp cannot apply the adapter to {self.path}")

    def _room_for(self, positions: int) -> None:
        """Grow the context to hold ``positions`` cells (doubling, up to the model's length); the active
        state's cells move over."""
        if positions <= self.positions or self.positions >= self.context_length:
            return
        size = self.positions
        while size < positions:
            size *= 2
        saved = self._save() if self._active is not None and self._active.ids else None
        self._make_context(min(size, self.context_length))
        if self._adapter is not None:
            self._set_adapter()
        if saved is not None:
            try:
                self._restore(saved)
            except seam.EngineError:
                self._active.ids.clear()  # read again by the next request, not trusted half restored
                raise

    def _crop_cells(self, length: int) -> None:
        self.lib.llama_memory_seq_rm(self.memory, 0, length, -1)

    def _activate(self, state: KVState) -> None:
        """Put ``state``'s cells in sequence 0, saving the active state's out first."""
        if state is self._active:
            return
        if self._active is not None and self._active.ids:
            self._active.cache = self._save()
        self._active = None  # sequence 0 holds no state's cells until this one's are in
        self.lib.llama_memory_clear(self.memory, True)
        saved, state.cache = state.cache, None
        if state.ids:
            if not isinstance(saved, (bytes, bytearray)):
                raise seam.EngineError("a cache state was lost; the request will read its document again")
            self._room_for(len(state.ids))
            self._restore(saved)
        self._active = state

    def _restore(self, saved: bytes) -> None:
        buffer = (ctypes.c_uint8 * len(saved)).from_buffer_copy(saved)
        if self.lib.llama_state_seq_set_data(self.ctx, buffer, len(saved), 0) == 0:
            raise seam.EngineError("llama.cpp could not restore a cache state")

    def _save(self) -> bytes:
        size = self.lib.llama_state_seq_get_size(self.ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = self.lib.llama_state_seq_get_data(self.ctx, buffer, size, 0)
        return bytes(memoryview(buffer)[:written])  # not buffer[:written]: a list of ints, 1.6 s for 70 MB

    def _bytes_per_token(self) -> int:
        lib, model = self.lib, self.model
        layers, embd = lib.llama_model_n_layer(model), lib.llama_model_n_embd(model)
        heads, kv_heads = lib.llama_model_n_head(model), lib.llama_model_n_head_kv(model)
        return 2 * layers * (embd // max(1, heads)) * kv_heads * 2  # keys and values, f16

    def close(self) -> None:
        if getattr(self, "ctx", None):
            self.lib.llama_batch_free(self._batch)
            self.lib.llama_free(self.ctx)
            self.ctx = None
        if getattr(self, "model", None):
            self.lib.llama_model_free(self.model)
            self.model = None


def _last_log() -> str:
    lines = [line.strip() for line in _LOG_LINES[-6:] if line.strip()]
    return "; ".join(lines) or "no reason given"


__all__ = ["LlamaCppModel", "LLAMACPP_INSTALL", "import_llama_cpp"]
