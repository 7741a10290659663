#!/usr/bin/env bash
# `cargo package` for every crate that is meant for crates.io: the tarball
# builds from what it lists (metadata, readme, licence files, no path
# outside the crate). Unpublished siblings resolve through cargo's local
# overlay of the workspace.
#
#   scripts/package-check.sh            # list and check the packages (fast; CI)
#   scripts/package-check.sh --verify   # also build each tarball on its own (slow)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

crates=(mcpgraph-jsregex mcpgraph-format mcpgraph-expr mcpgraph-secrets mcpgraph-telemetry mcpgraph-codegen mcpgraph-macros mcpgraph-runtime mcpgraph-tasks mcpgraph-oauth mcpgraph-downstream mcpgraph-graph-tests mcpgraph-http mcpgraph mcpgraph-cli)
args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done
verify=(--no-verify)
[[ "${1:-}" == "--verify" ]] && verify=()

# A README (the crate's own; the repository's for mcpgraph), the licences,
# and nothing from testdata/ or other crates.
for c in "${crates[@]}"; do
    files="$(cargo package --allow-dirty --list -p "$c" 2>/dev/null)"
    for want in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE; do
        grep -qx "$want" <<<"$files" || { echo "package-check: $c lacks $want" >&2; exit 1; }
    done
    if grep -q '^testdata/' <<<"$files"; then
        echo "package-check: $c would ship testdata/" >&2; exit 1
    fi
    echo "package-check: $c: $(wc -l <<<"$files") files"
done
cargo package --allow-dirty --quiet "${verify[@]}" "${args[@]}"
echo "package-check: ${#crates[@]} crates packaged${verify:+ (not verified: --verify builds them)}"
