#!/usr/bin/env bash
# The library crates' docs and the facade's public API, in one rustdoc run:
#   - every library crate's docs build without a warning (missing docs and
#     broken intra-doc links among them: `-D warnings`);
#   - the public API of the `mcpgraph` facade, listed from rustdoc's JSON
#     output of the facade and of the crates it re-exports from
#     (scripts/public_api.py lists every item a user can name, with its
#     signature), matches mcpgraph/public-api.txt. A change to the API is
#     then a visible diff in review; `--bless` writes the file instead.
#
# `cargo doc` of many crates at once (features unified once, their
# dependencies checked once), with rustdoc writing JSON rather than HTML:
# the lints are rustdoc's own either way. rustdoc's JSON output is
# unstable: RUSTC_BOOTSTRAP is set for rustdoc alone (through a RUSTDOC
# wrapper), so cargo's fingerprints of the crates it compiles do not
# change. The toolchain is pinned (rust-toolchain.toml), so the JSON format
# is too.
set -euo pipefail
case "${1:-}" in
    "" | --bless) ;;
    *) echo "usage: scripts/docs.sh [--bless]" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
wrapper="$(mktemp -d)"
trap 'rm -rf "$wrapper"' EXIT
cat > "$wrapper/rustdoc" <<'WRAP'
#!/bin/sh
RUSTC_BOOTSTRAP=1 exec rustdoc "$@"
WRAP
chmod +x "$wrapper/rustdoc"
# Two runs: the crates a server links, then the build-time ones (the
# generator's `mcpgraph-format` has its `tokens` feature, which a server's
# build never sees: resolver 2 keeps a proc macro's features apart).
served=(mcpgraph mcpgraph-runtime mcpgraph-jsregex mcpgraph-expr mcpgraph-format mcpgraph-http
    mcpgraph-graph-tests mcpgraph-downstream mcpgraph-secrets mcpgraph-oauth mcpgraph-telemetry mcpgraph-tasks)
generator=(mcpgraph-codegen mcpgraph-macros)
for group in served generator; do
    declare -n crates="$group"
    packages=()
    for crate in "${crates[@]}"; do packages+=(-p "$crate"); done
    RUSTDOC="$wrapper/rustdoc" RUSTDOCFLAGS="-D warnings -Zunstable-options --output-format json" \
        cargo doc --no-deps --quiet "${packages[@]}"
done
echo "docs: $((${#served[@]} + ${#generator[@]})) crates documented without a warning"

# mcpgraph-expr as the runtime builds it (`eval`: the counting allocator is
# there), which the first run unifies to.
actual="$(python3 scripts/public_api.py "$target/doc/mcpgraph.json" "$target/doc/mcpgraph_runtime.json" "$target/doc/mcpgraph_format.json" "$target/doc/mcpgraph_expr.json")"
pinned=mcpgraph/public-api.txt
if [[ "${1:-}" == "--bless" ]]; then
    printf '%s\n' "$actual" > "$pinned"
    echo "docs: wrote $pinned ($(wc -l < "$pinned") items)"
    exit 0
fi
if ! diff -u "$pinned" <(printf '%s\n' "$actual"); then
    echo "docs: the facade's public API changed (diff above: - pinned, + now)." >&2
    echo "docs: if that is intended, run scripts/docs.sh --bless and commit the file." >&2
    exit 1
fi
echo "docs: the facade's public API matches $pinned ($(wc -l < "$pinned") items)"
