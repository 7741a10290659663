#!/usr/bin/env bash
# The benchmark harness, one command: generated server vs mcpGraph (the
# TypeScript interpreter, npm `mcpgraph` pinned in bench/package.json) vs a
# hand-written rmcp server. Prints the results table and writes it with a
# chart, the machine description and the date under docs/bench/.
#
#   scripts/bench.sh            # full run (about 17 minutes on 2 cores, with the
#                               # starter crate's first builds; the graph-size rows
#                               # add about 14, most of it their dependencies' build)
#   scripts/bench.sh --quick    # a few minutes, no rebuild timing; writes target/release/bench-quick/
#   scripts/bench.sh --quick --rebuild   # ... with the rebuild timing
#
# Before/after in one run: MCPGRAPH_BENCH_BASELINE=/other/target/release/bench-graph
# (built from an earlier commit, in its own target directory, with
# `cargo build --release -p mcpgraph-bench-graph` and
# `cargo build --release -p mcpgraph-bench --example engine_loop`; in
# checkouts older than the bench/graph package, bench-graph is a binary of
# mcpgraph-bench, where the harness's dependencies leak into it)
# adds a "baseline" peer (in the fan-out rows too when a `bench-fanout`,
# the fan-out graph, is beside it); MCPGRAPH_BENCH_BASELINE_SRC=/that/commit's/tree adds
# its rebuild times.
#
# It only measures; nothing fails on a slow figure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Pinned peers: the filesystem server (peers/) and mcpGraph (bench/).
scripts/install-peers.sh
want="$(cat bench/package.json bench/package-lock.json | sha256sum | cut -d' ' -f1)"
stamp="bench/node_modules/.mcpgraph-bench-stamp"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "bench: npm peers up to date"
elif [[ -L bench/node_modules ]]; then
    # A shared install linked in (a worktree): `npm ci` would empty the
    # directory it points to. Use it as it is.
    [[ -f bench/node_modules/mcpgraph/dist/main.js ]] ||
        { echo "bench: bench/node_modules is a link to an incomplete install" >&2; exit 1; }
    echo "bench: npm peers linked in, left as they are"
else
    echo "bench: npm ci --prefix bench"
    npm ci --prefix bench --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
fi

cargo build --release -p mcpgraph-bench --bins --example engine_loop
# The generated server alone, as a user's crate builds: built with the
# harness, its dependencies would get the harness's features (hyper-util's
# HTTP/2 server) and grow.
cargo build --release -p mcpgraph-bench-graph
# The "first build" rows (full runs only) make the starter crate with it.
# The tasks rows' Redis store (full runs only) needs the graph server built
# with it, in a target directory of its own (so that the measured
# bench-graph stays the default build).
if [[ " $* " != *" --quick "* ]]; then
    cargo build --release -p mcpgraph-cli
    redis_target="${CARGO_TARGET_DIR:-$root/target}/bench-redis"
    CARGO_TARGET_DIR="$redis_target" cargo build --release -p mcpgraph-bench-graph --features task-store-redis
    export MCPGRAPH_BENCH_REDIS_GRAPH="$redis_target/release/bench-graph"
    # The size row of the stdio-only build (default-features = false).
    stdio_target="${CARGO_TARGET_DIR:-$root/target}/bench-stdio"
    CARGO_TARGET_DIR="$stdio_target" cargo build --release -p mcpgraph-bench-graph --no-default-features --bin bench-graph
    # The mcp-proxy rows' peer, built once (its build directory is removed
    # after the install; only the binary stays).
    proxy_root="${CARGO_TARGET_DIR:-$root/target}/mcp-proxy"
    if [[ ! -x "$proxy_root/bin/mcp-proxy" ]]; then
        cargo install mcp-proxy --version 0.6.0 --locked --root "$proxy_root"
    fi
fi
exec "${CARGO_TARGET_DIR:-$root/target}/release/bench" "$@"
