"""The benchmarks run end to end in their quick form and write what the report reads.

Nothing here asserts a timing: CI machines are too noisy for that.  The
quick run happens once per session, in a subprocess so that its OpenMP
setting applies (it must be set before torch is imported).
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cad_lsp.train import corpora

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import formats, perturb, runner  # noqa: E402

HAS_CORPUS = corpora.data_dir() is not None
CORPUS_BENCHMARKS = ["ceiling", "e2e", "lossless", "perturb", "formats"]


@pytest.fixture(scope="session")
def quick_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "results"
    subprocess.run([sys.executable, "-m", "cad_lsp", "bench", "all", "--quick", "--out", str(out)],
                   cwd=ROOT, check=True, timeout=600)
    return out


def load(out: Path, name: str) -> dict:
    return json.loads((out / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_every_benchmark_writes_json_and_markdown(quick_out):
    for name in runner.BENCHMARKS:
        data = load(quick_out, name)
        assert data["benchmark"] == name and data["quick"] is True
        assert {"cpu", "cores", "torch", "torch_threads"} <= set(data["machine"])
        assert (quick_out / f"{name}.md").read_text(encoding="utf-8").startswith("## ")


@pytest.mark.slow
def test_kernel_shape(quick_out):
    data = load(quick_out, "kernel")
    assert data["model"] == "random:tiny" and set(data["curves"]) == {"fp32", "bf16"}
    for curve in data["curves"].values():
        assert [p["n"] for p in curve["points"]] == data["ns"]
        for point in curve["points"]:
            assert {"decode_s", "splice_s", "raw_splice_s", "speedup", "splice_overhead"} <= set(point)
            assert point["decode_s"] > 0 and point["splice_s"] > 0
    assert data["grammar"]["vocab"] > 150_000 and data["grammar"]["steps"] > 0
    assert (quick_out / "kernel.png").is_file()


@pytest.mark.slow
def test_serve_latency_shape(quick_out):
    (data,) = load(quick_out, "serve")["runs"]
    assert data["model"] == "random:tiny" and data["load_s"] > 0
    assert [row["lines"] for row in data["sizes"]] == [20, 200]
    for row in data["sizes"]:
        runs = row["cold"] + row["warm"]
        assert len(row["cold"]) == 1 and len(row["warm"]) == 2
        assert all(r["apply_s"] > 0 and r["answer_s"] >= r["apply_s"] and r["text_edits"] >= 1 for r in runs)
        # the warm requests found the document's prompt prefix in the server's cache
        assert row["warm_cached_tokens"] > row["cold_cached_tokens"]
        assert row["warm_cached_tokens"] < row["prompt_tokens"]
    assert data["sizes"][1]["prompt_tokens"] > data["sizes"][0]["prompt_tokens"]
    # a line inserted near the top keeps only the prompt above it cached
    long = data["sizes"][1]
    assert len(long["inserted"]) == 1 and long["inserted"][0]["text_edits"] >= 1
    assert 0 < long["inserted_cached_tokens"] < long["warm_cached_tokens"]
    # typing, with today's warming and the previous one, in two servers
    assert set(data["typing"]) == {"today", "previous"}
    for session in data["typing"].values():
        assert session["changes"] == 20 and session["session_s"] >= 4.0
        assert 0 <= session["cpu_session_s"] <= session["cpu_until_idle_s"]


@pytest.mark.slow
@pytest.mark.skipif(not HAS_CORPUS, reason="corpus folder not present in this checkout")
def test_corpus_benchmarks_shape(quick_out):
    lossless = load(quick_out, "lossless")
    for counts in [*lossless["corpora"].values(), lossless["all"]]:
        assert counts["total"] > 0
        assert counts["line"] == counts["span"] == counts["line_text"] == counts["span_text"] == counts["total"]
    ceiling = load(quick_out, "ceiling")
    assert set(ceiling["corpora"]) == set(corpora.CORPORA) | {"pooled"}
    for summary in ceiling["corpora"].values():
        for oracle in ("line", "span"):
            assert 0 <= summary[oracle]["coverage_tokens_pooled"] <= 1
            assert summary[oracle]["bound_pooled"] > 0
        assert summary["line"]["engine_bound_pooled"] > 0
    e2e = load(quick_out, "e2e")
    for run in e2e["runs"].values():
        assert set(run["corpora"]) == set(corpora.CORPORA) | {"pooled"}
        for name in corpora.CORPORA:
            assert len(run["corpora"][name]["pairs"]) == 2
            assert run["corpora"][name]["speedup_median"] > 0
    assert all(run["lookup_note"].startswith("n/a") for run in e2e["runs"].values())
    perturbed = load(quick_out, "perturb")
    assert all(s["unperturbed_exact"] == s["pairs"] for s in perturbed["corpora"].values())
    fmt = load(quick_out, "formats")
    for summary in fmt["corpora"].values():
        assert set(summary["formats"]) == set(formats.FORMATS)
        assert summary["formats"]["copy/gen"]["exact_rate"] == 1.0


@pytest.mark.slow
def test_results_md_has_a_section_per_benchmark(quick_out):
    text = (quick_out / "RESULTS.md").read_text(encoding="utf-8")
    from bench.report import TITLES

    sections = {section.split("\n", 1)[0]: section for section in text.split("\n## ")[1:]}
    for name in runner.BENCHMARKS:
        lines = sections[TITLES[name]].split("\n")
        # the run that measured it, named under its own heading: this session's `bench all --quick`
        assert lines[2].startswith("_`cad-lsp bench all --quick --out "), lines[:3]
    assert text.count("\n## ") == len(runner.BENCHMARKS) + 1  # and the summary per corpus
    if HAS_CORPUS:
        glance = text.split("\n## ")[1]
        assert glance.startswith("At a glance") and all(f"| {name} |" in glance for name in corpora.CORPORA)
    for section in text.split("\n## ")[1:]:
        if section.startswith("vLLM") and not os.environ.get("CAD_LSP_VLLM_URL"):
            continue  # needs a vLLM server; .ci/vllm.sh runs that benchmark's tests against one
        if section.startswith("llama.cpp") and importlib.util.find_spec("llama_cpp") is None:
            continue  # needs llama-cpp-python; .ci/llamacpp.sh installs it and runs this benchmark's quick run
        if "corpus folder not present" in section and corpora.data_dir() is None:
            continue  # a clone without the corpora: those benchmarks say so instead of crashing
        assert "not run" not in section, section[:80]
    assert "](kernel.png)" in text


def test_report_says_not_run_for_missing_results(tmp_path):
    assert runner.main(["report", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    assert text.count("not run") == len(runner.BENCHMARKS)


def test_without_corpus_folder_benchmarks_say_so(tmp_path, monkeypatch):
    monkeypatch.setattr(corpora, "data_dir", lambda: None)
    for name in ("lossless", "formats", "perturb"):
        assert runner.main([name, "--quick", "--out", str(tmp_path)]) == 0
        assert load(tmp_path, name)["skipped"] == runner.NO_CORPUS
        assert runner.NO_CORPUS in (tmp_path / f"{name}.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------
# The format appliers on small cases (the benchmark's fidelity numbers rest on them)


@pytest.mark.parametrize("before, after", [
    ("a\nb\nc\n", "a\nB\nc\n"),
    ("a\nb\nc", "a\nb\nC"),  # last line without a terminator
    ("a\nb\nc", "a\nb\nc\n"),
    ("x\ny\n", "w\nx\ny\nz\n"),  # insertions at both ends
    ("a\r\nb\r\n", "a\r\nc\r\nb\r\n"),
    ("", "new\n"),
    ("same\n", "same\n"),
])
def test_unified_diff_round_trip(before, after):
    for n in (0, 3):
        assert formats.apply_unified_diff(before, formats.unified_diff(before, after, n)) == after


def test_unified_diff_refuses_wrong_context():
    diff = formats.unified_diff("a\nb\nc\n", "a\nB\nc\n", 1)
    assert formats.apply_unified_diff("a\nx\nc\n", diff) is None


def test_search_replace_ambiguity_without_context():
    before, after = "x = 1\ny = 2\nx = 1\n", "x = 1\ny = 2\nx = 3\n"
    plain = formats.search_replace_blocks(before, after, unique=False)
    text, ambiguous, missing = formats.apply_search_replace(before, plain)
    assert (ambiguous, missing) == (1, 0) and text != after  # the first "x = 1" is replaced
    unique = formats.search_replace_blocks(before, after, unique=True)
    assert formats.apply_search_replace(before, unique) == (after, 0, 0)


def test_search_replace_insertion_has_an_anchor():
    blocks = formats.search_replace_blocks("a\nb\n", "a\nnew\nb\n", unique=False)
    assert all(search for search, _ in blocks)
    assert formats.apply_search_replace("a\nb\n", blocks)[0] == "a\nnew\nb\n"


def test_perturbations_move_copies_by_k():
    from cad_lsp.program import Copy, Gen

    ops = [Copy(1, 3), Gen("x\n"), Copy(5, 6)]
    moved = list(perturb.one_copy(ops, 1))
    assert [Copy(0, 2), Copy(2, 4)] == [m[0] for m in moved[:2]]
    assert len(list(perturb.one_boundary(ops, 2))) == 8


def test_teacher_forced_prompt_lookup_drafts_as_hugging_face_does_and_writes_the_output():
    """e2e's prompt-lookup peer on the gold output: Hugging Face's draft rule, then exactly the output cached."""
    import random

    import torch
    from transformers.generation.candidate_generator import PromptLookupCandidateGenerator

    from bench.e2e import LOOKUP_NGRAM, LOOKUP_TOKENS, lookup_draft, lookup_forced
    from cad_lsp.engine.backend import KVState

    rng = random.Random(3)
    reference = PromptLookupCandidateGenerator(num_output_tokens=LOOKUP_TOKENS,
                                               max_matching_ngram_size=LOOKUP_NGRAM, max_length=10_000)
    for _ in range(200):
        seq = [rng.randrange(6) for _ in range(rng.randrange(2, 40))]
        candidates, _ = reference.get_candidates(torch.tensor([seq]))
        assert lookup_draft(seq, LOOKUP_TOKENS) == candidates[0, len(seq):].tolist(), seq

    class Recorder:  # a backend that only keeps ids, to see what each forward was given
        def __init__(self):
            self.fed = []

        def extend_scored(self, state, ids, positions):
            self.fed.append(list(ids))
            state.ids.extend(ids)

        def crop(self, state, length):
            del state.ids[length:]

    prompt = [rng.randrange(50) for _ in range(60)]
    output = prompt[10:40] + [7, 7, 8] + prompt[20:35]  # mostly text of the prompt, some new
    backend, state = Recorder(), KVState(list(prompt))
    forwards, _ = lookup_forced(backend, state, output)
    assert state.ids == prompt + output  # the cache holds the output, nothing rejected left behind
    assert forwards == len(backend.fed) < len(output) / 3  # copied text went in drafts
    assert all(len(fed) <= 1 + LOOKUP_TOKENS for fed in backend.fed)


@pytest.mark.slow
def test_peer_shape(quick_out):
    """bench apply --suite peer: each case merged by the rules and by the model's program, per set."""
    data = load(quick_out, "peer")
    assert {row["suite"] for row in data["rows"]} >= {"chat (tests)", "chat (held out)"}
    for row in data["rows"]:
        assert {"lang", "class", "rules", "model"} <= set(row) and row.get("forwards", 0) == 0  # no call: no forward
    assert all("rules" in row and row["rules_s"] >= 0 for row in data["own"])


@pytest.mark.slow
def test_answer_shape(quick_out):
    """bench answer: commits of the project's history as chat answers, per path convention, beside each block
    merged alone; the time of a 1-file answer through the command line."""
    data = load(quick_out, "answer")
    if data["set_at"] is not None:
        assert data["rows"] and {row["convention"] for row in data["rows"]} <= {"info", "first line", "line before"}
    for row in data["rows"]:
        assert row["right"] == (row["complete"] and all(f["answer"] for f in row["files"]))
        assert not row["alone"] or row["right"]  # blocks right alone: the answer right
    (timed,) = data["speed"]["rows"]
    assert timed["files"] == 1 and timed["exact"] and timed["warm_s"] > 0


def test_answer_conventions_name_every_file():
    """Each path convention the answer benchmark writes is read back to its file, blocks and shell commands
    apart."""
    from bench import answer

    before = {"pkg/a.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
              "docs/b.md": "# Title\n\nSome text.\n"}
    after = {"pkg/a.py": "def f():\n    return 1\n\n\ndef g():\n    return 3\n",
             "docs/b.md": "# Title\n\nSome other text.\n", "pkg/new.js": "export const x = 1;\n"}
    updates = {"pkg/a.py": "# ... existing code ...\ndef g():\n    return 3\n", "docs/b.md": after["docs/b.md"],
               "pkg/new.js": after["pkg/new.js"]}
    for convention in answer.CONVENTIONS:
        for variant in range(4):
            text = answer.write_answer("change g", list(updates.items()), convention, variant, commands=True)
            files = [{"path": p, "style": "", "update": u, "before": before.get(p), "after": after[p]}
                     for p, u in updates.items()]
            row = answer.judge({"id": "t", "convention": convention, "text": text, "files": files})
            assert row["right"] and row["alone"] and row["skipped"] == 1, (convention, variant, text)
