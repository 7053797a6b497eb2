#!/usr/bin/env bash
# Emacs eglot, with no plugin, against the real `cad-lsp serve` with a scripted model: Debian's emacs-nox and
# elpa-eglot (installed with apt-get when missing), driven in batch mode by clients/emacs/e2e.el.
# Needs the venv (.ci/run); PYTHON=... picks another interpreter with cad_lsp installed.
#
# --model NAME runs a real model instead (e.g. smollm2): any edit is accepted, only the times mean something.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
TIMEOUT=${EMACS_E2E_TIMEOUT:-300}
t0=$SECONDS

need_apt=()
for pkg in emacs-nox elpa-eglot; do dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg"); done
if ((${#need_apt[@]})); then
  echo "emacs-e2e: apt-get install ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
echo "emacs-e2e: $(emacs --version | head -1), eglot $(ls /usr/share/emacs/site-lisp/elpa | sed -n 's/^eglot-//p')"

# The scripted model (bench/scripted.py): each edit is known in advance; an instruction that says "slowly"
# takes 0.5 s a forward, so that edit (about 30 forwards) outlasts eglot's 10 s request timeout.
SERVER=("$PYTHON" -m bench.scripted --model random:tiny --dtype fp32)
EXPECT=planned
if [[ ${1:-} == --model ]]; then SERVER=("$PYTHON" -m cad_lsp serve --model "$2"); EXPECT=any; fi
CMD=$("$PYTHON" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "${SERVER[@]}")

RUN=$(mktemp -d -t cad-lsp-emacs.XXXXXX)
trap 'rm -rf "$RUN"' EXIT
# HOME: eglot and Emacs write nothing into the real one (the model's converted weights stay where they
# are).  PYTHONPATH: the server imports bench.scripted.
export CAD_LSP_CACHE=${CAD_LSP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cad-lsp}
status=0
HOME=$RUN PYTHONPATH=$ROOT CAD_LSP_CMD=$CMD CAD_WORKDIR=$RUN CAD_EXPECT=$EXPECT \
  timeout --kill-after=10 "$TIMEOUT" emacs --batch -Q -l clients/emacs/e2e.el || status=$?
if ((status == 124 || status == 137)); then echo "emacs-e2e: FAIL timed out after $TIMEOUT s"; fi
echo "emacs-e2e: wall time $((SECONDS - t0)) s"
exit $status
