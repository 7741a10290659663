#!/usr/bin/env bash
# The differential runner (docs/DIFFERENTIAL.md): every JSONata expression
# and JSON Logic rule of the graph files and the official suites, plus
# seeded random ones, through our node evaluation path and through the
# reference engines (jsonata-js 2.2.2; json-logic-js 2.0.5 as mcpGraph
# 0.1.23 drives it, pinned in bench/package.json). Fails on a disagreement
# not listed in tests/differential/known-differences.json, and on a listed
# one that no longer occurs.
#
#   scripts/differential.sh                      # the blessed seed and count (CI)
#   scripts/differential.sh --seed 7 --count 50000
#   scripts/differential.sh --bless              # rewrite the known-differences file
#
# Needs node on the PATH and bench/node_modules (scripts/install-peers.sh,
# which scripts/test.sh runs first).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
for module in jsonata json-logic-js mcpgraph; do
    [[ -f "bench/node_modules/$module/package.json" ]] || {
        echo "differential: bench/node_modules/$module missing: run scripts/install-peers.sh" >&2
        exit 1
    }
done
# The build stage's variant of the runner and everything below it (the
# same flags as mcpgraph_tests::bin_path's build): `-p mcpgraph-tests`
# alone resolves features for that package only, and rebuilt the stack.
# Skipped when the caller built it already (MCPGRAPH_BUILT=1: scripts/test.sh).
[[ -n "${MCPGRAPH_BUILT:-}" ]] || cargo build --quiet --workspace --lib --examples --bin differential
exec "${CARGO_TARGET_DIR:-$root/target}/debug/differential" "$@"
