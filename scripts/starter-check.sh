#!/usr/bin/env bash
# `mcpgraph new` end to end: a new crate with the starter graph, depending
# on this checkout, builds and answers `call` and `--version`. It builds in
# the workspace's target directory with the workspace's profile settings,
# so it reuses the artifacts of the build stage (about 10 s).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$target/debug/mcpgraph" new "$work/starter_check" --mcpgraph-path "$root"
cd "$work/starter_check"
CARGO_TARGET_DIR="$target" cargo build --quiet \
    --config 'profile.dev.debug="line-tables-only"' \
    --config 'profile.dev.package."*".debug=false' \
    --config 'profile.dev.package.jsonata-core.opt-level=2' \
    --config 'profile.dev.package.datalogic-rs.opt-level=2'
got="$("$target/debug/starter_check" call greet '{"name": "Ada"}')"
want='{"greeting":"Hello, Ada!"}'
[[ "$got" == "$want" ]] || { echo "starter-check: call greet gave $got, want $want" >&2; exit 1; }
version="$("$target/debug/starter_check" --version)"
[[ "$version" == "starter_check 0.1.0 (mcpgraph "* ]] || { echo "starter-check: --version gave $version" >&2; exit 1; }
rm -f "$target/debug/starter_check" "$target/debug/starter_check.d"
echo "starter-check: the starter crate builds and answers: $got"
