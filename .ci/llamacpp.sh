#!/usr/bin/env bash
# CI step: the llama.cpp backend (GGUF models) with a real llama-cpp-python, built from source: its tests,
# and a real VS Code whose server runs a GGUF file.
#
# llama-cpp-python has no CPU wheel on PyPI: it compiles llama.cpp (cmake and a C compiler; Debian's
# cmake and build-essential). The wheel is built once per version and CPU (it is compiled for the CPU
# it is built on) into ~/.cache/cad-lsp-ci/wheels, and installed from there on later runs: the build
# took 7.5 minutes on 2 busy cores, installing it seconds afterwards. Run .ci/run's install first: the
# wheel goes into the main venv, and its tests run with CAD_LSP_REQUIRE_LLAMACPP=1, so that a
# missing backend fails them instead of skipping them.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
started=$SECONDS
say() { echo "llama.cpp step [$((SECONDS - started)) s]: $*"; }

VERSION=$(python -c 'import tomllib; d = tomllib.load(open("pyproject.toml", "rb")); print(d["project"]["optional-dependencies"]["llamacpp"][0].split("==")[1])')
CPU=$(grep -m1 '^flags' /proc/cpuinfo | sha256sum | cut -c1-12)
WHEELS=${XDG_CACHE_HOME:-$HOME/.cache}/cad-lsp-ci/wheels/llama-cpp-python-$VERSION-$CPU
if ! ls "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl >/dev/null 2>&1; then
    say "building llama-cpp-python $VERSION from source (once per version and CPU)"
    command -v cmake >/dev/null || { echo "cmake is missing: apt-get install cmake build-essential" >&2; exit 1; }
    mkdir -p "$WHEELS.tmp"
    # the multimodal library (LLAVA_BUILD) is half of the build and cad-lsp reads text only
    CMAKE_ARGS="-DLLAVA_BUILD=OFF" pip wheel -q --no-cache-dir --no-deps --no-binary llama-cpp-python \
        "llama-cpp-python==$VERSION" -w "$WHEELS.tmp"
    rm -rf "$WHEELS" && mv "$WHEELS.tmp" "$WHEELS"
    say "built"
fi
pip install -q "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl
say "installed"

CAD_LSP_REQUIRE_LLAMACPP=1 python -m pytest -q tests/test_llamacpp.py
CAD_LSP_REQUIRE_LLAMACPP=1 python -m pytest -q -m slow tests/test_llamacpp.py
# a real VS Code on a GGUF file (the embedded model's, named as any user's file is): edit, review, apply
GGUF=$(python -c 'from cad_lsp.backends.catalog import smollm2_path; print(smollm2_path())')
MODEL_ARGS="[\"--model\", \"gguf:$GGUF\"]" STEPS='server starts|Refactor menu|one undo|update from the clipboard|output channel' \
    bash .ci/vscode.sh
say "done"
