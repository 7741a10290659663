#!/usr/bin/env bash
# Installs the pinned test peers:
#   - peers/node_modules from peers/package-lock.json (npm ci), e.g.
#     @modelcontextprotocol/server-filesystem 2026.8.31
#   - peers/.venv with the Python packages of peers/requirements.txt
# Idempotent: each part is skipped when a stamp shows it already matches its
# pinned inputs, so a second run takes well under a second.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
peers="$root/peers"

stamp_of() {
    cat "$@" | sha256sum | cut -d' ' -f1
}

# --- npm peers --------------------------------------------------------------
command -v node >/dev/null || { echo "install-peers: node not found on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "install-peers: npm not found on PATH" >&2; exit 1; }
npm_want="$(stamp_of "$peers/package.json" "$peers/package-lock.json")"
npm_stamp="$peers/node_modules/.mcpgraph-peers-stamp"
if [[ -f "$npm_stamp" && "$(cat "$npm_stamp")" == "$npm_want" ]]; then
    echo "install-peers: npm peers up to date"
else
    echo "install-peers: npm ci --prefix peers"
    npm ci --prefix "$peers" --no-audit --no-fund --loglevel=error
    echo "$npm_want" > "$npm_stamp"
fi
fs_js="$peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
[[ -f "$fs_js" ]] || { echo "install-peers: missing $fs_js after install" >&2; exit 1; }

# --- Python peers -----------------------------------------------------------
py="${PYTHON:-python3}"
venv="$peers/.venv"
py_want="$(stamp_of "$peers/requirements.txt")"
py_stamp="$venv/.mcpgraph-peers-stamp"
if [[ -f "$py_stamp" && "$(cat "$py_stamp")" == "$py_want" && -x "$venv/bin/python" ]]; then
    echo "install-peers: python peers up to date"
else
    echo "install-peers: creating $venv from peers/requirements.txt"
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-input -r "$peers/requirements.txt"
    echo "$py_want" > "$py_stamp"
fi
