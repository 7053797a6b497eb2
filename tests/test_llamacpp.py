"""The llama.cpp backend: model names, the GGUF adapter, and the seam checked against references.

References: transformers reading the same GGUF file (logits), the same model
with the LoRA adapter merged into its weights (the GGUF adapter and its row
order), a fresh cache (states saved out and restored, crops), and the plain
decode loop (speculation on and off give the same programs).  The model is a
tiny random llama written by ``tiny_gguf`` with the embedded model's
tokenizer, so nothing is downloaded.  Without llama-cpp-python installed these
are skipped, unless ``CAD_LSP_REQUIRE_LLAMACPP=1`` (CI installs it), where
they fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from cad_lsp.backends import open_engine, resolve_backend
from cad_lsp.backends.catalog import ModelLoadError, gguf_file, ollama_blob, smollm2_path
from cad_lsp.backends.llamacpp import lora_gguf

from .tiny_gguf import SHAPE, write_tiny_gguf

CODE = ("def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total / len(xs)\n\n\n"
        "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n"
        "        self.items.append(item)\n")


def need_llamacpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        if os.environ.get("CAD_LSP_REQUIRE_LLAMACPP"):
            pytest.fail("llama-cpp-python is not installed but CAD_LSP_REQUIRE_LLAMACPP is set (.ci/llamacpp.sh)")
        pytest.skip("llama-cpp-python is not installed (pip install 'cad-lsp[llamacpp]')")


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory) -> Path:
    # seed 6: the random model's programs for test_nvim's edit and update complete and change the buffer
    return write_tiny_gguf(tmp_path_factory.mktemp("gguf") / "tiny.gguf", smollm2_path(), seed=6)


@pytest.fixture(scope="session")
def tiny_llama(tiny_gguf):
    need_llamacpp()
    from cad_lsp.backends.llamacpp.model import LlamaCppModel

    return LlamaCppModel(f"gguf:{tiny_gguf}", tiny_gguf)


@pytest.fixture(scope="session")
def tiny_reference(tiny_gguf):
    """The same file read by transformers into PyTorch (de-quantized float32 weights)."""
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(tiny_gguf.parent, gguf_file=tiny_gguf.name).eval()


# ---------------------------------------------------------------------------
# Names


def write_ollama_store(root: Path, name: str, tag: str, blob: bytes, host_path=("registry.ollama.ai", "library")):
    digest = "0" * 63 + "1"
    manifest = root.joinpath("manifests", *host_path, name, tag)
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"layers": [
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "2" * 64},
        {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}"}]}))
    (root / "blobs").mkdir(exist_ok=True)
    (root / "blobs" / f"sha256-{digest}").write_bytes(blob)
    return root / "blobs" / f"sha256-{digest}"


def test_a_model_pulled_again_gets_a_new_background_process(tmp_path, monkeypatch):
    """The background process's key follows the blob the manifest names: after ``ollama pull`` brings another
    file, a request no longer reaches a process holding the old one."""
    from cad_lsp import warm

    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path))
    write_ollama_store(tmp_path, "coder", "1.5b", b"GGUF one")
    before = warm.worker_key("ollama:coder:1.5b", None, "auto", "llamacpp")
    assert warm.worker_key("ollama:coder:1.5b", None, "auto", "llamacpp") == before
    manifest = tmp_path.joinpath("manifests", "registry.ollama.ai", "library", "coder", "1.5b")
    manifest.write_text(manifest.read_text().replace("0" * 63 + "1", "3" * 64))
    (tmp_path / "blobs" / f"sha256-{'3' * 64}").write_bytes(b"GGUF two")
    assert warm.worker_key("ollama:coder:1.5b", None, "auto", "llamacpp") != before


def test_ollama_names_lead_to_the_model_file_its_manifest_names(tmp_path, monkeypatch):
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path))
    blob = write_ollama_store(tmp_path, "qwen2.5-coder", "1.5b", b"GGUF")
    assert ollama_blob("qwen2.5-coder:1.5b") == blob
    assert gguf_file("ollama:qwen2.5-coder:1.5b") == blob
    write_ollama_store(tmp_path / "other", "tiny", "latest", b"GGUF", host_path=("registry.ollama.ai", "someone"))
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "other"))
    assert ollama_blob("someone/tiny").name.startswith("sha256-")  # a namespaced name, the default tag


@pytest.mark.parametrize("name, message", [
    ("ollama:qwen2.5-coder:7b", "ollama pull qwen2.5-coder:7b"),  # not pulled
    ("ollama:../../etc:x", "bad Ollama model name"),
    ("ollama::7b", "bad Ollama model name"),
    ("gguf:/no/such/model.gguf", "no GGUF file at /no/such/model.gguf"),
])
def test_a_missing_model_file_says_what_to_do(tmp_path, monkeypatch, name, message):
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path))
    with pytest.raises(ModelLoadError, match=message.replace(".", r"\.")):
        gguf_file(name)
    with pytest.raises(ModelLoadError, match=message.replace(".", r"\.")):
        open_engine(name)  # the same message, before any model library loads


def test_a_manifest_without_a_model_layer_or_its_blob_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path))
    blob = write_ollama_store(tmp_path, "m", "latest", b"GGUF")
    blob.unlink()
    with pytest.raises(ModelLoadError, match="is missing; run `ollama pull m` again"):
        ollama_blob("m")
    manifest = tmp_path / "manifests" / "registry.ollama.ai" / "library" / "m" / "latest"
    manifest.write_text(json.dumps({"layers": []}))
    with pytest.raises(ModelLoadError, match="names no model file"):
        ollama_blob("m")
    manifest.write_text("{not json")
    with pytest.raises(ModelLoadError, match="cannot read Ollama's manifest"):
        ollama_blob("m")


def test_auto_picks_llamacpp_for_gguf_names_only():
    assert resolve_backend("gguf:/x.gguf") == "llamacpp"
    assert resolve_backend("ollama:qwen2.5-coder:1.5b", "auto") == "llamacpp"
    assert resolve_backend("smollm2") == "torch"
    assert resolve_backend("random:tiny", "local") == "torch"  # the backend's name before llama.cpp joined
    assert resolve_backend("smollm2", "llamacpp") == "llamacpp"
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        resolve_backend("smollm2", "tpu")


def test_a_gguf_file_on_torch_or_with_a_dtype_is_refused_with_the_reason(tiny_gguf):
    with pytest.raises(ModelLoadError, match="the llama.cpp backend runs"):
        open_engine(f"gguf:{tiny_gguf}", backend="torch")
    with pytest.raises(ModelLoadError, match="leave --device and --dtype unset"):
        open_engine(f"gguf:{tiny_gguf}", dtype="bf16")


# ---------------------------------------------------------------------------
# The adapter in GGUF form


def test_rope_permute_interleaves_the_rotary_halves_of_each_head():
    heads, dim = 2, 8
    rows = np.arange(heads * dim)[:, None] * np.ones((1, 3))
    permuted = lora_gguf.rope_permute(rows, heads)[:, 0].astype(int).tolist()
    assert permuted == [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]


def test_the_shipped_gguf_adapter_is_the_shipped_adapter_converted(tmp_path):
    import gguf

    from cad_lsp.backends.catalog import SMOLLM2_ADAPTER, SMOLLM2_ADAPTER_GGUF

    fresh = tmp_path / "adapter.gguf"
    assert lora_gguf.convert(SMOLLM2_ADAPTER, smollm2_path(), fresh) == 210  # 30 layers x 7 projections
    shipped = {t.name: np.array(t.data) for t in gguf.GGUFReader(str(SMOLLM2_ADAPTER_GGUF)).tensors}
    made = {t.name: np.array(t.data) for t in gguf.GGUFReader(str(fresh)).tensors}
    assert shipped.keys() == made.keys() and len(made) == 420
    assert all(np.array_equal(shipped[name], made[name]) for name in made)


def random_adapter(folder: Path, model, rank: int = 4, seed: int = 1) -> Path:
    """A PEFT-format LoRA adapter on every projection of ``model``, large enough to move its argmax."""
    from safetensors.torch import save_file

    generator = torch.Generator().manual_seed(seed)
    state = {}
    for path, module in model.named_modules():
        if path.split(".")[-1] in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
            out_features, in_features = module.weight.shape
            key = f"base_model.model.{path}"
            state[f"{key}.lora_A.weight"] = torch.randn(rank, in_features, generator=generator) * 0.5
            state[f"{key}.lora_B.weight"] = torch.randn(out_features, rank, generator=generator) * 0.5
    folder.mkdir()
    save_file(state, str(folder / "adapter_model.safetensors"))
    (folder / "adapter_config.json").write_text(json.dumps({"r": rank, "lora_alpha": 2 * rank}))
    return folder


def test_the_gguf_adapter_computes_what_the_merged_weights_compute(tmp_path, tiny_gguf):
    """Against PyTorch with the adapter merged into the weights: the q/k row order is what makes them agree."""
    need_llamacpp()
    from transformers import AutoModelForCausalLM

    from cad_lsp.backends.llamacpp.model import LlamaCppModel
    from cad_lsp.backends.pytorch.loading import merge_lora

    merged = AutoModelForCausalLM.from_pretrained(tiny_gguf.parent, gguf_file=tiny_gguf.name).eval()
    adapter = random_adapter(tmp_path / "lora", merged)
    merge_lora(merged, adapter)
    lora_gguf.convert(adapter, tiny_gguf, tmp_path / "lora.gguf")
    import gguf

    written = gguf.GGUFReader(str(tmp_path / "lora.gguf"))  # rank 4 padded with zeros to 16, alpha / rank kept
    assert {int(t.shape[1]) for t in written.tensors if t.name.endswith("lora_a")} == {16}  # ggml order: (in, rank)
    assert written.fields["adapter.lora.alpha"].parts[-1][0] == 2 * 16
    model = LlamaCppModel("adapted", tiny_gguf, adapter=tmp_path / "lora.gguf")
    plain = LlamaCppModel("plain", tiny_gguf)
    ids = model.tokenizer.encode(CODE, add_special_tokens=False)
    positions = list(range(len(ids)))
    ours = torch.from_numpy(model.extend_scored(model.new_state(), ids, positions))
    base = torch.from_numpy(plain.extend_scored(plain.new_state(), ids, positions))
    with torch.no_grad():
        reference = merged(torch.tensor([ids])).logits[0]
    scale, gap = reference.abs().max().item(), (ours - reference).abs()
    # float16 keys and values in llama.cpp: a mean gap of ~0.0003 of the scale; ~0.2 without the row order
    assert gap.mean().item() < 0.003 * scale and gap.max().item() < 0.1 * scale
    assert (base - reference).abs().mean().item() > 0.05 * scale  # the adapter changes the model
    assert (ours.argmax(-1) == reference.argmax(-1)).float().mean() >= 0.95
    model.close()
    plain.close()


# ---------------------------------------------------------------------------
# The seam


def test_logits_are_the_models_as_transformers_computes_them(tiny_llama, tiny_reference):
    ids = tiny_llama.tokenizer.encode(CODE, add_special_tokens=False)
    state = tiny_llama.new_state()
    rows = tiny_llama.extend_scored(state, ids[:20], [0, 7, 19])
    rest = tiny_llama.extend_scored(state, ids[20:], list(range(len(ids) - 20)))
    last = tiny_llama.extend(state, ids[:1])
    with torch.no_grad():
        reference = tiny_reference(torch.tensor([ids + ids[:1]])).logits[0]
    scale = reference.abs().max().item()
    ours = torch.from_numpy(np.concatenate([rows, rest, last[None]]))
    expected = torch.cat([reference[[0, 7, 19]], reference[20:]])
    assert ours.shape == expected.shape and ours.dtype == torch.float32
    assert (ours - expected).abs().max().item() < 0.005 * scale
    assert (ours.argmax(-1) == expected.argmax(-1)).float().mean() >= 0.95
    assert state.ids == ids + ids[:1]


def test_states_switch_and_crop_as_fresh_caches_would(tiny_llama):
    """Two documents interleaved (each saved out and restored), cropped and extended again, give the
    logits a fresh cache gives for the same tokens in the same forwards."""
    ids = tiny_llama.tokenizer.encode(CODE, add_special_tokens=False)
    other = tiny_llama.tokenizer.encode("import os\nprint(os.getcwd())\n" * 3, add_special_tokens=False)

    def fresh(tokens, tail):
        state = tiny_llama.new_state()
        tiny_llama.extend(state, tokens)
        return tiny_llama.extend(state, tail)

    a, b = tiny_llama.new_state(), tiny_llama.new_state()
    tiny_llama.extend(a, ids[:30])
    tiny_llama.extend(b, other)
    tiny_llama.extend(a, [5, 6, 7])
    tiny_llama.crop(a, 30)  # a request dropped, the document kept
    tiny_llama.crop(b, 10)  # cropped while not active
    got_a = tiny_llama.extend(a, ids[30:40])
    got_b = tiny_llama.extend(b, other[10:14])
    assert np.array_equal(got_a, fresh(ids[:30], ids[30:40]))
    assert np.array_equal(got_b, fresh(other[:10], other[10:14]))
    assert len(a.ids) == 40 and len(b.ids) == 14
    assert tiny_llama.nbytes(a) > 0 and tiny_llama.nbytes(b) > 0


def test_a_one_token_forward_is_computed_as_a_batch(tiny_llama):
    """A decode step re-decodes the previous token with its own: llama.cpp's one-token kernels round
    otherwise than its batch kernels, and speculation's checks are batches."""
    ids = tiny_llama.tokenizer.encode(CODE, add_special_tokens=False)
    stepped, batched = tiny_llama.new_state(), tiny_llama.new_state()
    tiny_llama.extend(stepped, ids[:10])
    steps = np.stack([tiny_llama.extend(stepped, [token]) for token in ids[10:16]])
    tiny_llama.extend(batched, ids[:9])
    before = tiny_llama.forwards
    rows = tiny_llama.extend_scored(batched, ids[9:16], list(range(1, 7)))
    assert tiny_llama.forwards == before + 1
    assert np.array_equal(steps, rows)
    assert stepped.ids == batched.ids == ids[:16]
    long = tiny_llama.tokenizer.encode(CODE * 40, add_special_tokens=False)[:2 * 512 + 1]
    assert len(long) == 2 * 512 + 1  # two micro-batches and a one-token remainder
    whole, stepped = tiny_llama.new_state(), tiny_llama.new_state()
    tiny_llama.extend(stepped, long[:1015])
    last = [tiny_llama.extend(stepped, [token]) for token in long[1015:]][-1]
    assert np.array_equal(tiny_llama.extend(whole, long), last)


def test_the_context_grows_with_the_longest_state_and_keeps_every_states_cells(tiny_gguf, monkeypatch):
    """A context starts small (its cells are allocated and cleared when it is made) and doubles as a state
    needs: the active state's cells move over, the others stay saved, and logits are as in a context that
    was long from the start."""
    need_llamacpp()
    from cad_lsp.backends.llamacpp import model as llamacpp_model

    ids = llamacpp_model.LlamaCppModel("probe", tiny_gguf).tokenizer.encode(CODE * 2, add_special_tokens=False)
    monkeypatch.setattr(llamacpp_model, "FIRST_CONTEXT", 16)
    growing = llamacpp_model.LlamaCppModel("growing", tiny_gguf)
    monkeypatch.setattr(llamacpp_model, "FIRST_CONTEXT", SHAPE["context"])
    long = llamacpp_model.LlamaCppModel("long", tiny_gguf)
    assert growing.positions == 16 and long.positions == SHAPE["context"]
    got, expected = [], []
    for model, out in ((growing, got), (long, expected)):
        a, b = model.new_state(), model.new_state()
        model.extend(a, ids[:10])
        model.extend(b, ids[:40])  # grows to 64 while a is saved out
        out.append(model.extend(a, ids[10:30]))  # a back, then past 16 cells
        out.append(model.extend(b, ids[40:90]))  # grows to 128 with b active
        out.append(model.extend_scored(a, ids[30:35], [0, 4]))
    assert growing.positions == 128
    assert all(np.array_equal(x, y) for x, y in zip(got, expected))
    for model in (growing, long):
        model.close()


def test_the_tokenizer_is_transformers_reading_of_the_file_without_transformers(tiny_gguf, tmp_path, monkeypatch):
    """The tokenizer kept in the cache folder splits, decodes and renders chat templates as transformers'
    reading of the GGUF file does (llama.cpp's own splits a space before a line break otherwise)."""
    from cad_lsp.backends.catalog import load_tokenizer
    from cad_lsp.backends.llamacpp.tokenizer import load_gguf_tokenizer
    from cad_lsp.engine.prompt import build_prompt

    monkeypatch.setenv("CAD_LSP_CACHE", str(tmp_path))
    ours, theirs = load_gguf_tokenizer(tiny_gguf), load_tokenizer(tiny_gguf.parent, gguf_file=tiny_gguf.name)
    assert (tmp_path / "tokenizers").is_dir() and load_gguf_tokenizer(tiny_gguf).vocab_size == ours.vocab_size
    texts = [CODE, "1| def f():\n2| \n3|     return 1  # ünï 😀 <|im_end|>\r\n", "12345 + 678", "", "\t\n\n  x"]
    for text in texts:
        assert ours.encode(text) == theirs.encode(text, add_special_tokens=False), text
        assert ours.decode(ours.encode(text)) == theirs.decode(theirs.encode(text, add_special_tokens=False))
    assert ours([CODE, "x"])["input_ids"] == theirs([CODE, "x"], add_special_tokens=False)["input_ids"]
    assert ours.eos_token_id == theirs.eos_token_id and ours.convert_tokens_to_ids("<|im_start|>") == \
        theirs.convert_tokens_to_ids("<|im_start|>")
    assert build_prompt(ours, CODE, 2, 4, "Add type hints") == build_prompt(theirs, CODE, 2, 4, "Add type hints")


def test_a_llamacpp_process_loads_neither_pytorch_nor_transformers(tiny_gguf, tmp_path):
    """What keeps the background process small: the tokenizer is read by transformers in a child process
    the first time, and the decode loop samples with numpy."""
    need_llamacpp()
    import subprocess
    import sys

    script = ("import sys\nfrom cad_lsp.backends import open_engine\n"
              f"engine = open_engine('gguf:{tiny_gguf}')\n"
              f"result = engine.edit({CODE!r}, 2, 4, 'Add type hints', max_tokens=24, temperature=0.8)\n"
              "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules), result.stats.prefill_tokens > 0)\n")
    for _ in range(2):  # the tokenizer made, then read from the cache folder
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                             env={**os.environ, "CAD_LSP_CACHE": str(tmp_path)})
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.split() == ["[]", "True"]


def test_one_token_steps_are_taken_only_where_this_build_computes_them_as_batches(tiny_llama):
    """The load's check says whether a one-token forward gives a batch's logits bitwise (llama.cpp built
    without llamafile's products does, a default build does not); the backend pads steps to two tokens only
    where it does not, and the check's verdict holds on other tokens than its own."""
    ids = tiny_llama.tokenizer.encode(CODE, add_special_tokens=False)
    padded = tiny_llama.pad_one_row
    tiny_llama.pad_one_row = False  # llama.cpp's own one-token forwards
    try:
        stepped, batched = tiny_llama.new_state(), tiny_llama.new_state()
        tiny_llama.extend(stepped, ids[:10])
        steps = [tiny_llama.extend(stepped, [token]) for token in ids[10:16]]
        tiny_llama.extend(batched, ids[:9])
        rows = tiny_llama.extend_scored(batched, ids[9:16], list(range(1, 7)))
    finally:
        tiny_llama.pad_one_row = padded
    assert all(np.array_equal(step, row) for step, row in zip(steps, rows)) == (not padded)


def test_a_context_overflow_is_an_error_for_the_user_and_the_state_stays_usable(tiny_llama):
    from cad_lsp.engine.backend import EngineError

    state = tiny_llama.new_state()
    tiny_llama.extend(state, [100] * 10)
    with pytest.raises(EngineError, match="llama.cpp could not run a forward"):
        tiny_llama.extend(state, [100] * (SHAPE["context"] + 10))
    assert len(state.ids) <= SHAPE["context"]
    tiny_llama.crop(state, 10)
    assert tiny_llama.extend(state, [101]).shape == (tiny_llama.vocab_size,)


# ---------------------------------------------------------------------------
# The engine above the seam, unchanged


@pytest.fixture(scope="session")
def tiny_gguf_engine(tiny_gguf):
    need_llamacpp()
    return open_engine(f"gguf:{tiny_gguf}")


def test_speculation_on_and_off_write_the_same_programs(tiny_llama):
    """The lossless rule on llama.cpp, by the same harness as on PyTorch (test_speculation): random requests,
    drafting at every forward, token for token the plain loop's greedy program."""
    from cad_lsp.engine import Engine

    from .greedy import random_cases
    from .test_speculation import always_draft, same_as_plain

    pairs, stats = same_as_plain(always_draft(Engine(tiny_llama)), Engine(tiny_llama), random_cases(seed=29, count=40))
    assert 0 < sum(s.accepted_tokens for s in stats) < sum(s.drafted_tokens for s in stats)
    assert all(run.forwards <= plain.forwards for run, plain in pairs)


def test_an_apply_through_llamacpp_merges_what_the_program_says(tiny_gguf_engine):
    update = "    for x in xs:\n        total += x * 1\n    return total / len(xs)\n"
    result = tiny_gguf_engine.apply(CODE, update, max_tokens=80)
    plain = tiny_gguf_engine.apply(CODE, update, max_tokens=80, speculate=False)
    assert result.program == plain.program and result.text == plain.text


# ---------------------------------------------------------------------------
# The embedded model read from its own GGUF file (slow: a real model on both backends)


@pytest.mark.slow
def test_the_embedded_model_on_llamacpp_predicts_as_on_torch():
    """The GGUF adapter on the Q4_1 file against PyTorch's de-quantized weights with the adapter merged: the
    same ids in, the same next tokens out wherever PyTorch's choice is clear (quantized and float kernels
    differ in the last bits, so near-ties may go either way)."""
    need_llamacpp()
    from cad_lsp.backends.llamacpp import load
    from cad_lsp.backends.pytorch.loading import load_model
    from cad_lsp.backends.pytorch.local import LocalModel

    ours, reference = load("smollm2"), LocalModel(load_model("smollm2"))
    assert ours.adapted and ours.advice is None  # the tokenizer agrees with llama.cpp's on the probe
    source = (Path(__file__).resolve().parent.parent / "cad_lsp" / "program" / "resolver.py").read_text()
    ids = reference.tokenizer.encode(source, add_special_tokens=False)[:400]
    positions = list(range(len(ids)))
    got = ours.extend_scored(ours.new_state(), ids, positions)
    want = reference.extend_scored(reference.new_state(), ids, positions)
    top2 = want.topk(2, dim=-1).values
    clear = (top2[:, 0] - top2[:, 1]) > 0.5
    same = got.argmax(-1) == want.argmax(-1)
    assert same.float().mean() >= 0.9
    assert same[clear].float().mean() >= 0.99
    ours.close()


@pytest.mark.slow
def test_the_readme_apply_example_is_merged_on_llamacpp(tmp_path):
    need_llamacpp()
    import subprocess
    import sys

    from cad_lsp.program.update import merge_update

    examples = Path(__file__).resolve().parent.parent / "examples"
    expected = merge_update((examples / "inventory.py").read_text(),
                            (examples / "inventory-update.py").read_text()).merged
    run = subprocess.run([sys.executable, "-m", "cad_lsp", "apply", str(examples / "inventory.py"), "--update",
                          str(examples / "inventory-update.py"), "--json", "--keep-warm", "0", "--backend",
                          "llamacpp"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["text"] == expected


# ---------------------------------------------------------------------------
# A real editor on a model from Ollama's store


@pytest.fixture(scope="module")
def ollama_store(tmp_path_factory, tiny_gguf):
    """An Ollama model folder as ``ollama pull`` leaves it, holding the tiny model as ``tiny:test``."""
    root = tmp_path_factory.mktemp("ollama")
    blob = write_ollama_store(root, "tiny", "test", b"")
    blob.write_bytes(tiny_gguf.read_bytes())
    return root


def test_neovim_edits_and_applies_with_an_ollama_model(tmp_path, ollama_store, monkeypatch):
    """The plugin in a real Neovim, the server started with ``--model ollama:tiny:test``: the edit and the
    :CadApply land in the buffer as the same model computes them in this process."""
    need_llamacpp()
    from .test_nvim import check_apply, check_edit, neovim_session

    monkeypatch.setenv("OLLAMA_MODELS", str(ollama_store))
    engine = open_engine("ollama:tiny:test")
    session = neovim_session(tmp_path, "ollama:tiny:test", {"OLLAMA_MODELS": str(ollama_store)})
    check_edit(session, engine)
    check_apply(session, engine)


def bench_quick_run(name: str, tmp_path) -> dict | None:
    """``cad-lsp bench NAME --quick``'s JSON; None on a clone without the corpora (where it says so)."""
    need_llamacpp()
    import subprocess
    import sys

    from cad_lsp.train import corpora

    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "cad_lsp", "bench", name, "--quick", "--out", str(tmp_path)],
                   cwd=root, check=True, timeout=900)
    data = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
    if corpora.data_dir() is None:
        assert "corpus folder not present" in data["skipped"]
        return None
    return data


@pytest.mark.slow
def test_bench_llamacpp_quick_run(tmp_path):
    """The benchmark's smoke run: forwards, end to end, the peer, speculation on and off."""
    data = bench_quick_run("llamacpp", tmp_path)
    if data is None:
        return
    assert set(data["forwards"]) == set(data["e2e"]) == {"torch fp32", "llama.cpp q4_1"}
    assert all(row["forward_64_s"] > 0 for row in data["forwards"].values())
    assert data["speculation"]["n"] == 1
    assert data["speculation"]["differ"] == 0  # the lossless rule on llama.cpp's batch-invariant forwards
    assert (tmp_path / "llamacpp.md").read_text(encoding="utf-8").startswith("## llama.cpp")


@pytest.mark.slow
def test_bench_agreement_quick_run(tmp_path):
    """PyTorch's and llama.cpp's greedy programs on one request, compared: identical, or where they part."""
    data = bench_quick_run("agreement", tmp_path)
    if data is None:
        return
    assert data["requests"] == 1 and data["kinds"] == ["q4_1"]
    (row,) = data["variants"]["q4_1"]["rows"]
    assert row["identical"] == (data["variants"]["q4_1"]["identical"] == 1)
    if "step" in row:  # where they part, each side chose its own token over the other's
        assert row["gap_torch"] >= 0 and row["gap_llama"] >= 0
    assert "identical" in (tmp_path / "agreement.md").read_text(encoding="utf-8")
