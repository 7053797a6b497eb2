"""gpu_check: the mechanism's equivalences on a CUDA device, as one JSON file.

- a splice (N tokens in one forward) against the same tokens decoded one by
  one: the logits after the last token agree (``allclose`` at the dtype's
  tolerance);
- speculation on vs off: the same greedy program, token for token, on random
  requests (random weights, free-running) and on teacher-forced programs,
  with the forwards each took.

``python -m bench.gpu_check MODEL DTYPE OUT.json [DEVICE [CASES]]`` (``bench/gpu.sh`` runs it).
"""

from __future__ import annotations

import json
import sys
import time


def splice_equivalence(loaded, tolerance: float) -> dict:
    import torch

    from cad_lsp.backends.pytorch import LocalModel

    from .kernel import code_ids

    model = LocalModel(loaded)
    ids = code_ids(loaded.tokenizer, 1024 + 256)
    rows = []
    for n in (8, 64, 256):
        one, step = model.new_state(), model.new_state()
        model.extend(one, ids[:1024])
        model.extend(step, ids[:1024])
        spliced = model.extend(one, ids[1024:1024 + n])
        for token in ids[1024:1024 + n]:
            stepped = model.extend(step, [token])
        diff = float((spliced - stepped).abs().max())
        rows.append({"n": n, "max_abs_diff": diff, "allclose": bool(torch.allclose(spliced, stepped, atol=tolerance,
                                                                                  rtol=tolerance)),
                     "same_argmax": int(spliced.argmax()) == int(stepped.argmax())})
    return {"tolerance": tolerance, "rows": rows}


def speculation_equivalence(loaded, cases: int) -> dict:
    from cad_lsp.backends.pytorch import LocalModel
    from cad_lsp.engine import Engine
    from cad_lsp.program import Copy, Gen
    from tests.greedy import assert_same_greedy, engine_runner, random_cases

    started = time.perf_counter()
    failures = None
    try:
        pairs = assert_same_greedy(engine_runner(Engine(LocalModel(loaded)), 24, speculate=True),
                                   engine_runner(Engine(LocalModel(loaded)), 24, speculate=False),
                                   random_cases(seed=29, count=cases), 24)
    except AssertionError as exc:
        failures, pairs = str(exc)[:2000], []
    doc = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(40))
    program = [Copy(1, 10), Gen("def f3(x):\n    return x - 3\n"), Copy(13, 60)]
    teacher = {}
    for speculate in (False, True):
        engine = Engine(LocalModel(loaded))
        result = engine.edit(doc, 1, 60, "fix", program=program, speculate=speculate)
        teacher[str(speculate)] = {"same_program": result.ops == program, "forwards": result.stats.forwards,
                                   "accepted": result.stats.accepted_tokens, "drafted": result.stats.drafted_tokens}
    return {"random_cases": cases, "identical": failures is None, "failures": failures,
            "forwards_on": sum(a.forwards for a, _ in pairs), "forwards_off": sum(b.forwards for _, b in pairs),
            "teacher_forced": teacher, "seconds": time.perf_counter() - started}


def main(argv: list[str]) -> int:
    import torch

    from cad_lsp.backends.pytorch.loading import load_model

    model, dtype, out, *rest = argv  # then optionally: device (cuda), random cases (60)
    device, cases = (rest + ["cuda", "60"][len(rest):])[:2]
    loaded = load_model(model, device, dtype)
    tolerance = 5e-2 if dtype in ("bf16", "fp16") else 1e-4
    data = {"model": model, "dtype": dtype,
            "device": torch.cuda.get_device_name(0) if device.startswith("cuda") else device,
            "splice": splice_equivalence(loaded, tolerance), "speculation": speculation_equivalence(loaded, int(cases))}
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1)
    ok = data["speculation"]["identical"] and all(r["same_argmax"] for r in data["splice"]["rows"])
    print(json.dumps(data, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
