#!/usr/bin/env bash
# The public API of the `mcpgraph` facade, pinned in mcpgraph/public-api.txt:
# rustdoc's JSON output of the facade and of the crates it re-exports from
# (scripts/public_api.py lists every item a user can name, with its
# signature), compared with the file. A change to the API is then a visible
# diff in review. `--bless` writes the file instead of comparing.
#
# rustdoc's JSON output is unstable: RUSTC_BOOTSTRAP is set for rustdoc
# alone (through a RUSTDOC wrapper), so cargo's fingerprints of the crates
# it compiles do not change. The toolchain is pinned (rust-toolchain.toml),
# so the JSON format is too.
set -euo pipefail
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
# mcpgraph-expr with `eval`, as the runtime builds it (the counting
# allocator is there).
for crate in mcpgraph mcpgraph-runtime mcpgraph-format "mcpgraph-expr --features eval"; do
    # shellcheck disable=SC2086 # the crate's name and its features
    RUSTDOC="$wrapper/rustdoc" cargo rustdoc -q -p $crate --lib -- \
        -Zunstable-options --output-format json
done
actual="$(python3 scripts/public_api.py "$target/doc/mcpgraph.json" "$target/doc/mcpgraph_runtime.json" "$target/doc/mcpgraph_format.json" "$target/doc/mcpgraph_expr.json")"
pinned=mcpgraph/public-api.txt
if [[ "${1:-}" == "--bless" ]]; then
    printf '%s\n' "$actual" > "$pinned"
    echo "public-api: wrote $pinned ($(wc -l < "$pinned") items)"
    exit 0
fi
if ! diff -u "$pinned" <(printf '%s\n' "$actual"); then
    echo "public-api: the facade's public API changed (diff above: - pinned, + now)." >&2
    echo "public-api: if that is intended, run scripts/public-api.sh --bless and commit the file." >&2
    exit 1
fi
echo "public-api: the facade's public API matches $pinned ($(wc -l < "$pinned") items)"
