#!/usr/bin/env bash
# The GPU tables in one command, on a machine with a CUDA GPU and this checkout (about 8 minutes):
#   1. the mechanism's equivalences on CUDA (bench/gpu_check.py): splice vs one-by-one decoding, speculation
#      on vs off (the same greedy program);
#   2. bench kernel and bench e2e in bf16 on random:qwen2.5-1.5b.
# Everything goes to OUT (default bench/results/gpu); `cad-lsp bench report` then adds a GPU section to RESULTS.md.
# Needs torch with CUDA, transformers and the project's other packages; wheels of any the machine lacks (say
# llguidance) can sit in .whl/ and are installed into a temporary folder, with no network. The corpora for
# e2e: CAD_LSP_DATA, or a copy of ../shared/data in ./data (the folder beside the checkout may not be there).
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
OUT=${1:-bench/results/gpu}
MODEL=${CAD_LSP_GPU_MODEL:-random:qwen2.5-1.5b}
mkdir -p "$OUT"
if compgen -G ".whl/*.whl" >/dev/null; then
  SITE=$(mktemp -d)
  "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --target "$SITE" .whl/*.whl || exit 1
  export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
[[ -z ${CAD_LSP_DATA:-} && -d data ]] && export CAD_LSP_DATA=$PWD/data
"$PYTHON" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else "bench/gpu.sh: no CUDA device")' || exit 1
t0=$SECONDS
status=0
step() {  # seconds, then the command: a step that fails or runs out of time is reported, the next still runs
  local limit=$1; shift
  echo "bench/gpu.sh: $*"
  timeout "$limit" "$@" || { echo "bench/gpu.sh: FAILED ($?): $*"; status=1; }
}
step 180 "$PYTHON" -m bench.gpu_check "$MODEL" bf16 "$OUT/gpu_check.json"
step 90 "$PYTHON" -m cad_lsp bench kernel --device cuda --dtype bf16 --model "$MODEL" --out "$OUT"
step 210 "$PYTHON" -m cad_lsp bench e2e --device cuda --dtype bf16 --model "$MODEL" --limit 3 --repeats 2 --out "$OUT"
echo "bench/gpu.sh: $((SECONDS - t0)) s, results in $OUT"
exit $status
