#!/usr/bin/env bash
# `mcpgraph new` end to end: a new crate with the starter graph, depending
# on this checkout, builds and answers `call` and `--version`; then again
# without default features (no TLS). It builds in
# the workspace's target directory with the workspace's profile settings,
# so it reuses the artifacts of the build stage (about 10 s; the build
# without TLS compiles reqwest, rmcp and the runtime once more).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$target/debug/mcpgraph" new "$work/starter_check" --mcpgraph-path "$root" --own-target
cd "$work/starter_check"
# The workspace's profile settings, in the crate's own cargo config so that
# the build `mcpgraph test` makes (below) is this one again.
mkdir -p .cargo
cat > .cargo/config.toml <<'TOML'
[profile.dev]
debug = "line-tables-only"
[profile.dev.package."*"]
debug = false
[profile.dev.package.jsonata-core]
opt-level = 2
[profile.dev.package.datalogic-rs]
opt-level = 2
TOML
build() {
    CARGO_TARGET_DIR="$target" cargo build --quiet
}
build
# Its test cases: `mcpgraph test` builds the crate (nothing left to do) and
# runs them; `cargo test` runs them through graph_tests!.
report="$(CARGO_TARGET_DIR="$target" "$target/debug/mcpgraph" test -- --json)"
[[ "$report" == *'"passed":1,"failed":0'* ]] \
    || { echo "starter-check: mcpgraph test gave $report" >&2; exit 1; }
CARGO_TARGET_DIR="$target" cargo test --quiet 2>&1 | grep -q "graph_tests::greets_by_name ... ok\|1 passed" \
    || { echo "starter-check: cargo test did not run the starter's case" >&2; exit 1; }
echo "starter-check: mcpgraph test and cargo test pass the starter's case"
got="$("$target/debug/starter_check" call greet '{"name": "Ada"}')"
want='{"greeting":"Hello, Ada!"}'
[[ "$got" == "$want" ]] || { echo "starter-check: call greet gave $got, want $want" >&2; exit 1; }
version="$("$target/debug/starter_check" --version)"
[[ "$version" == "starter_check 0.1.0 (mcpgraph "* ]] || { echo "starter-check: --version gave $version" >&2; exit 1; }
echo "starter-check: the starter crate builds and answers: $got"

# The test entry points (the runtime's `testing` feature: the differential
# runner's harness, the fuzz targets' entry points, the standalone
# evaluator) are not in a user's binary. The differential runner, built
# with them, shows that the symbols are there to be found.
hooks='mcpgraph_runtime::exec::differential::|mcpgraph_runtime::fuzzing::|evaluate_standalone'
# (grep reads all of nm's output: under pipefail, `grep -q` quitting early
# would fail the pipeline with nm's SIGPIPE.)
found="$(nm -C "$target/debug/differential" | grep -Ec "$hooks" || true)"
[[ "$found" -gt 0 ]] \
    || { echo "starter-check: no test entry point in the differential runner either: the check proves nothing" >&2; exit 1; }
leaked="$(nm -C "$target/debug/starter_check" | grep -E "$hooks" || true)"
if [[ -n "$leaked" ]]; then
    echo "starter-check: test entry points in the starter's binary:" >&2
    echo "$leaked" | head -3 >&2
    exit 1
fi
echo "starter-check: no test entry point in the starter's binary"

# The same crate without mcpgraph's default features: no TLS in the tree,
# the starter tool still answers, an https:// URL given at run time fails
# its call with the reason, and one written in the graph fails the build.
sed -i 's|^mcpgraph = { path = "\(.*\)" }$|mcpgraph = { path = "\1", default-features = false }|' Cargo.toml
grep -q 'default-features = false' Cargo.toml || { echo "starter-check: Cargo.toml not as expected" >&2; exit 1; }
cat >> graph.yaml <<'YAML'
  - name: "remote_echo"
    description: "Calls the remote server's echo"
    inputSchema: { type: object }
    nodes:
      - { id: entry, type: entry, next: call }
      - { id: call, type: mcp, server: remote, tool: echo, args: {}, next: exit }
      - { id: exit, type: exit }

mcpServers:
  remote:
    type: http
    url: "${STARTER_REMOTE_URL}"
YAML
# `cargo tree -i` fails with this message when no package of the tree is
# rustls; any other outcome (rustls found, another error) fails the check.
tree="$(cargo tree --quiet -e normal -i rustls 2>&1 || true)"
[[ "$tree" == *"did not match any packages"* ]] ||
    { echo "starter-check: rustls is in the tree without the tls feature: $tree" >&2; exit 1; }
build
got="$("$target/debug/starter_check" call greet '{"name": "Ada"}')"
[[ "$got" == "$want" ]] || { echo "starter-check: without tls, call greet gave $got" >&2; exit 1; }
call_remote() {
    STARTER_REMOTE_URL="$1" "$target/debug/starter_check" call remote_echo '{}' 2>&1 && {
        echo "starter-check: remote_echo succeeded against $1" >&2
        exit 1
    }
}
https_error="$(call_remote https://127.0.0.1:9/mcp || true)"
[[ "$https_error" == *"node \`call\`"*"built without mcpgraph's \`tls\` feature"* ]] ||
    { echo "starter-check: without tls, an https:// call gave: $https_error" >&2; exit 1; }
http_error="$(call_remote http://127.0.0.1:9/mcp || true)"
[[ "$http_error" == *"Connection refused"* && "$http_error" != *"tls"* ]] ||
    { echo "starter-check: without tls, an http:// call gave: $http_error" >&2; exit 1; }
sed -i 's|url: "${STARTER_REMOTE_URL}"|url: "https://mcp.example.com/mcp"|' graph.yaml
if build_log="$(build 2>&1)"; then
    echo "starter-check: a graph with an https:// server built without tls" >&2
    exit 1
fi
[[ "$build_log" == *"graph.yaml:"*": server \`remote\` calls https://mcp.example.com/mcp, and https:// needs mcpgraph's \`tls\` feature"* ]] ||
    { echo "starter-check: the https:// build failed otherwise:" >&2; echo "$build_log" >&2; exit 1; }
rm -f "$target/debug/starter_check" "$target/debug/starter_check.d"
echo "starter-check: without default features: no rustls, the tool answers, https:// refused at run time and at build time"
