#!/usr/bin/env bash
# Installs the pinned test peers:
#   - peers/node_modules from peers/package-lock.json (npm ci), e.g.
#     @modelcontextprotocol/server-filesystem 2026.8.31
#   - bench/node_modules from bench/package-lock.json (npm ci): mcpGraph
#     and the engines it uses (jsonata, json-logic-js), which the benchmark
#     and the differential runner (scripts/differential.sh) run
#   - peers/.venv with the Python packages of peers/requirements.txt, every
#     dependency pinned by peers/constraints.txt
#   - nginx and openssl (Debian packages, via apt-get when missing; needs
#     root) for the replicas and TLS tests (tests/tests/serving/replicas.rs,
#     tests/tests/downstream_tls.rs)
#   - redis-server (Debian package, via apt-get when missing; needs root)
#     for the task store's tests (mcpgraph-tasks/tests/)
#   - chromium (Debian package, via apt-get when missing; needs root), in
#     which tests/tests/cli/picture.rs opens the graph pictures
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
elif [[ -L "$peers/node_modules" ]]; then
    # A shared install linked in (a worktree): `npm ci` would empty the
    # directory it points to. Use it as it is.
    echo "install-peers: npm peers linked in, left as they are"
else
    echo "install-peers: npm ci --prefix peers"
    npm ci --prefix "$peers" --no-audit --no-fund --loglevel=error
    echo "$npm_want" > "$npm_stamp"
fi
fs_js="$peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
[[ -f "$fs_js" ]] || { echo "install-peers: missing $fs_js after install" >&2; exit 1; }

# The bench peers (same stamp as scripts/bench.sh, which also installs them).
bench_want="$(stamp_of "$root/bench/package.json" "$root/bench/package-lock.json")"
bench_stamp="$root/bench/node_modules/.mcpgraph-bench-stamp"
if [[ -f "$bench_stamp" && "$(cat "$bench_stamp")" == "$bench_want" ]]; then
    echo "install-peers: bench npm peers up to date"
elif [[ -L "$root/bench/node_modules" ]]; then
    echo "install-peers: bench npm peers linked in, left as they are"
else
    echo "install-peers: npm ci --prefix bench"
    npm ci --prefix "$root/bench" --no-audit --no-fund --loglevel=error
    echo "$bench_want" > "$bench_stamp"
fi

# --- Python peers -----------------------------------------------------------
py="${PYTHON:-python3}"
venv="$peers/.venv"
py_want="$(stamp_of "$peers/requirements.txt" "$peers/constraints.txt")"
py_stamp="$venv/.mcpgraph-peers-stamp"
if [[ -f "$py_stamp" && "$(cat "$py_stamp")" == "$py_want" && -x "$venv/bin/python" ]]; then
    echo "install-peers: python peers up to date"
else
    echo "install-peers: creating $venv from peers/requirements.txt"
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-input -r "$peers/requirements.txt" -c "$peers/constraints.txt"
    echo "$py_want" > "$py_stamp"
fi

# --- nginx and openssl (Debian packages) ------------------------------------
# tests/tests/serving/replicas.rs puts two --stateless replicas behind nginx, and
# tests/tests/downstream_tls.rs terminates TLS with it (certificates made
# with the openssl command); both start nginx on loopback themselves (never
# as a system service).
if ! command -v openssl >/dev/null && command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
    echo "install-peers: apt-get install -y openssl"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openssl >/dev/null 2>&1 || {
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openssl >/dev/null
    }
fi
if command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]]; then
    echo "install-peers: nginx present"
elif command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
    echo "install-peers: apt-get install -y nginx"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends nginx >/dev/null 2>&1 || {
        apt-get update -qq >/dev/null
        apt-get install -y --no-install-recommends nginx >/dev/null
    }
    # Debian's postinst may start the system service; the tests run their own.
    if command -v service >/dev/null; then service nginx stop >/dev/null 2>&1 || true; fi
    command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || {
        echo "install-peers: nginx still missing after apt-get install" >&2; exit 1; }
else
    if [[ "${CI:-}" == "true" ]]; then
        echo "install-peers: nginx missing and apt-get unavailable (or not root): cannot install it" >&2
        exit 1
    fi
    echo "install-peers: WARNING: nginx missing and cannot be installed here (no apt-get or not root);" \
         "tests/tests/serving/replicas.rs will fail until nginx is installed (apt-get install nginx)" >&2
fi

# --- redis-server (Debian package) ------------------------------------------
# mcpgraph-tasks/tests/ run the Redis task store against a real Redis; each
# test starts its own redis-server on a loopback port in a temporary
# directory (never the system service).
if command -v redis-server >/dev/null || [[ -x /usr/bin/redis-server ]]; then
    echo "install-peers: redis-server present"
elif command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
    echo "install-peers: apt-get install -y redis-server"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends redis-server >/dev/null 2>&1 || {
        apt-get update -qq >/dev/null
        apt-get install -y --no-install-recommends redis-server >/dev/null
    }
    # Debian's postinst may start the system service; the tests run their own.
    if command -v service >/dev/null; then service redis-server stop >/dev/null 2>&1 || true; fi
    command -v redis-server >/dev/null || [[ -x /usr/bin/redis-server ]] || {
        echo "install-peers: redis-server still missing after apt-get install" >&2; exit 1; }
else
    if [[ "${CI:-}" == "true" ]]; then
        echo "install-peers: redis-server missing and apt-get unavailable (or not root): cannot install it" >&2
        exit 1
    fi
    echo "install-peers: WARNING: redis-server missing and cannot be installed here (no apt-get or not root);" \
         "mcpgraph-tasks' Redis tests will skip until it is installed (apt-get install redis-server)" >&2
fi

# --- chromium (Debian package) ----------------------------------------------
# tests/tests/cli/picture.rs opens the pages of `mcpgraph graph --html` and
# `mcpgraph test --coverage-html` in headless Chromium (driven over the
# DevTools protocol by tests/browser/page.mjs) and keeps its screenshots.
if command -v chromium >/dev/null; then
    echo "install-peers: chromium present"
elif command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
    echo "install-peers: apt-get install -y chromium"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 || {
        apt-get update -qq >/dev/null
        apt-get install -y --no-install-recommends chromium >/dev/null
    }
    command -v chromium >/dev/null || {
        echo "install-peers: chromium still missing after apt-get install" >&2; exit 1; }
else
    if [[ "${CI:-}" == "true" ]]; then
        echo "install-peers: chromium missing and apt-get unavailable (or not root): cannot install it" >&2
        exit 1
    fi
    echo "install-peers: WARNING: chromium missing and cannot be installed here (no apt-get or not root);" \
         "tests/tests/cli/picture.rs will fail until it is installed (apt-get install chromium)" >&2
fi
