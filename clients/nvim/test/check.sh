#!/usr/bin/env bash
# Runs test/edit.lua against test/fake_server.py (no model needed) and checks
# the edited file. Needs `nvim` on PATH (or NVIM=/path/to/nvim).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nvim=${NVIM:-nvim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The last line has no newline and characters outside the BMP, so the range's
# end must be counted in the negotiated position encoding.
printf 'def f(x):\n    return x\n\ny = "héllo 😀 ok"' >"$tmp/in.py"
printf 'def f(x):\n    RETURN X\n\nY = "HÉLLO 😀 OK"' >"$tmp/want.py"

CAD_LSP_CMD="[\"${PYTHON:-python3}\", \"$here/fake_server.py\"]" \
CAD_INPUT="$tmp/in.py" CAD_LINES=2-4 CAD_INSTRUCTION="upper-case it" \
CAD_OUTPUT="$tmp/out.py" \
  "$nvim" --headless --clean -l "$here/edit.lua"

if cmp -s "$tmp/want.py" "$tmp/out.py"; then
  echo "nvim client: 1 passed, 0 failed"
else
  diff -u "$tmp/want.py" "$tmp/out.py" || true
  echo "nvim client: 0 passed, 1 failed"
  exit 1
fi
