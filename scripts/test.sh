#!/usr/bin/env bash
# The full test run, the README's second command and what CI runs
# (.ci/run runs it in a clone of HEAD with nothing beside it):
# pinned peers, the whole build, every test, the package check. Each stage
# prints its time.
# The test crate (tests/) builds the binaries it drives through cargo
# (mcpgraph_tests::bin_path), with the features this build uses: after the
# build stage that is a no-op.
#
# Stages that wait more than they compute run beside ones that compute (a
# "step" of lanes): on CI's 2 cores the run is shorter than one stage
# after another (CONTRIBUTING.md, "How long it takes", has the figures).
# Each lane's output goes to a log printed when the step ends, so lanes
# never interleave; a failed lane fails the run after the others have
# finished.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

start=$SECONDS
times=()
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# stage NAME CMD...: runs CMD and records its time under NAME.
stage() {
    local name="$1"
    shift
    local t0=$SECONDS
    echo "==> $name: $*"
    "$@"
    local line
    line="$(printf '%-44s %5d s' "$name" $((SECONDS - t0)))"
    times+=("$line")
    echo "==> $line"
}

# step LANE...: runs each lane (a shell function whose stages run one
# after another) in the background and waits for all of them. The lanes'
# stages call `stage`; their times are written beside the lane's log and
# collected here.
step() {
    local t0=$SECONDS lane pids=() failed=()
    for lane in "$@"; do
        ( times=(); "$lane"; printf '%s\n' "${times[@]}" > "$logs/$lane.times" ) \
            > "$logs/$lane.log" 2>&1 &
        pids+=($!)
    done
    local i
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || failed+=("${@:$((i + 1)):1}")
    done
    for lane in "$@"; do
        echo "==> lane $lane"
        cat "$logs/$lane.log"
        [[ -f "$logs/$lane.times" ]] && mapfile -t -O "${#times[@]}" times < "$logs/$lane.times"
    done
    times+=("$(printf '%-44s %5d s' "(step: $*)" $((SECONDS - t0)))")
    if [[ ${#failed[@]} -gt 0 ]]; then
        echo "==> failed: ${failed[*]}" >&2
        printf '    %s\n' "${times[@]}"
        exit 1
    fi
}

# The tests whose binaries mostly wait (on children, peers and timeouts)
# or compile apart (trybuild's own project): a lane of their own beside
# the rest. Every other test target, the unit tests and the doc tests run
# in the other lane; the list comes from `cargo metadata`, so a new test
# target cannot be left out.
waiting_tests=(ui ui_text downstream downstream_tls)
# Run after the starter check instead (its lane, step 3): its crate shares
# the starter's dependencies in target/.
after_starter_tests=(authoring)
other_tests() {
    cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
skip = set(sys.argv[1:])
names = sorted({t["name"] for p in json.load(sys.stdin)["packages"]
                for t in p["targets"] if t["kind"] == ["test"] and t["name"] not in skip})
print(" ".join("--test " + n for n in names))' "${waiting_tests[@]}" "${after_starter_tests[@]}"
}

peers() { stage peers scripts/install-peers.sh; }
build() { stage build cargo build --workspace --all-targets; }
tests_waiting() {
    local args=()
    for t in "${waiting_tests[@]}"; do args+=(--test "$t"); done
    stage "test (${waiting_tests[*]})" cargo test --workspace "${args[@]}"
}
tests_other() {
    # shellcheck disable=SC2046 # one word per flag and name
    stage "test (the rest)" cargo test --workspace --lib --bins $(other_tests)
    stage "test (doc)" cargo test --workspace --doc
}
# Our JSONata and JSON Logic evaluation against jsonata-js and
# json-logic-js (the fixed seed; every disagreement listed with its
# reason), the official MCP conformance suite (server and client mode) and
# one minute of mixed calls with faults (memory, descriptors and children
# stay flat).
checks() {
    # The build stage built the runner: no `cargo build`, which would wait
    # for the starter lane's lock on the target directory.
    MCPGRAPH_BUILT=1 stage differential scripts/differential.sh
    stage conformance scripts/conformance.sh
    stage soak scripts/soak.sh --seconds 60
}
# `mcpgraph new`'s starter crate builds against this checkout and answers,
# with default features and stdio only (`--all` adds http-client alone).
# Then `mcpgraph mcp` through a whole authoring session on a crate made the
# same way: its builds find the starter's dependencies built.
starter() {
    stage starter scripts/starter-check.sh
    local args=()
    for t in "${after_starter_tests[@]}"; do args+=(--test "$t"); done
    # `--workspace`, as the other test stages: `-p mcpgraph-tests` alone
    # resolves features for that package only and rebuilds the stack.
    stage "test (${after_starter_tests[*]})" cargo test --workspace "${args[@]}"
}
# The library crates' docs build without a warning (missing docs included),
# and the facade's public API matches its pinned list
# (mcpgraph/public-api.txt): one rustdoc run. Then the package check.
docs_package() {
    # In a target directory of their own: rustdoc checks the dependency
    # tree anew anyway (nothing of the build stage but build scripts and
    # proc macros is of use to it), and so neither this lane nor the
    # starter's builds wait for the other's lock on target/.
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}/docs-lane"
    stage docs scripts/docs.sh
    stage package scripts/package-check.sh
}

step peers build
step tests_waiting tests_other
step checks starter docs_package

echo "==> stage times"
printf '    %s\n' "${times[@]}"
printf '    %-44s %5d s\n' total $((SECONDS - start))
echo "==> target/ holds $(du -sh "${CARGO_TARGET_DIR:-target}" 2>/dev/null | cut -f1)"
