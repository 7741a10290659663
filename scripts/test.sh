#!/usr/bin/env bash
# The full test run, the README's second command and what CI runs
# (.ci/run runs it in a clone of HEAD with nothing beside it):
# pinned peers, the whole build, every test, the package check. Each stage
# prints its time.
# The test crate (tests/) builds the binaries it drives through cargo
# (mcpgraph_tests::bin_path), with the features this build uses: after the
# build stage that is a no-op.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

start=$SECONDS
times=()
stage() {
    local name="$1"
    shift
    local t0=$SECONDS
    echo "==> $name: $*"
    "$@"
    local line
    line="$(printf '%-28s %5d s' "$name" $((SECONDS - t0)))"
    times+=("$line")
    echo "==> $line"
}

stage peers scripts/install-peers.sh
stage build cargo build --workspace --all-targets
stage test cargo test --workspace
# Our JSONata and JSON Logic evaluation against jsonata-js and json-logic-js
# (the fixed seed; every disagreement listed with its reason).
stage differential scripts/differential.sh
# The official MCP conformance suite, server and client mode.
stage conformance scripts/conformance.sh
# One minute of mixed calls with faults; memory, descriptors and children stay flat.
stage soak scripts/soak.sh --seconds 60
# `mcpgraph new`'s starter crate builds against this checkout and answers,
# with default features and stdio only (`--all` adds http-client alone).
stage starter scripts/starter-check.sh
# The library crates' docs build without a warning (missing docs included),
# and the facade's public API matches its pinned list
# (mcpgraph/public-api.txt): one rustdoc run.
stage docs scripts/docs.sh
stage package scripts/package-check.sh

echo "==> stage times"
printf '    %s\n' "${times[@]}"
printf '    %-28s %5d s\n' total $((SECONDS - start))
echo "==> target/ holds $(du -sh "${CARGO_TARGET_DIR:-target}" 2>/dev/null | cut -f1)"
