#!/usr/bin/env bash
# The soak run: mixed calls over stdio and HTTP at once with faults
# injected (crashes, hangs, garbage, malformed replies, cancellations);
# fails if RSS or open descriptors grow or child processes pile up. CI runs
# one minute (scripts/test.sh); the full run is about 100,000 calls:
#
#   scripts/soak.sh                 # 100,000 calls, release build
#   scripts/soak.sh --release --seconds 3600   # an hour, release build
#   scripts/soak.sh --seconds 60    # what CI runs (debug build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ $# -eq 0 || "${1:-}" == --release ]]; then
    [[ $# -gt 0 ]] && shift
    args=("$@")
    [[ ${#args[@]} -gt 0 ]] || args=(--calls 100000)
    # Two commands: `--bin` would filter file_utils' own binary out of one.
    cargo build --release -q -p mcpgraph-tests --bin soak --bin mcpgraph-test-server
    cargo build --release -q -p file_utils
    exec "${CARGO_TARGET_DIR:-target}/release/soak" "${args[@]}"
fi
exec "${CARGO_TARGET_DIR:-target}/debug/soak" "$@"
