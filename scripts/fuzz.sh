#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets) for SECONDS each (default 600),
# on the nightly toolchain with cargo-fuzz 0.13.2 (installed when missing).
# Not part of CI: the nightly build of the dependencies alone would take
# much of its budget. Seeds come from the repository (examples, test
# graphs, UI cases, expressions); the corpus grows in fuzz/corpus/ (not
# committed). A crash leaves its input in fuzz/artifacts/TARGET/: turn it
# into a regression test in the normal suite.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-600}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(graph wire expr request)

if ! cargo fuzz --version 2>/dev/null | grep -q '0.13.2'; then
    cargo install cargo-fuzz --version 0.13.2 --locked
fi

seed() { # seed TARGET NAME CONTENT
    mkdir -p "fuzz/corpus/$1"
    printf '%s' "$3" > "fuzz/corpus/$1/seed-$2"
}
n=0
for f in examples/*/*.yaml tests/graphs/*.yaml mcpgraph-macros/tests/ui/*.yaml; do
    n=$((n + 1)); seed graph "$n" "$(cat "$f")"
done
seed wire 1 $'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}\n{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}\nnot json\n'
seed wire 2 $'\x05event: message\ndata: {"jsonrpc":"2.0","id":"a","result":{}}\n\n: comment\ndata: {"jsonrpc":\ndata: "2.0","id":7}\n\n'
seed wire 3 $'\x10{"id": {"nested": [1, "x"]}, "jsonrpc": "2.0", "result": "\\u0000'
n=0
grep -rhoE "expr: '[^']+'" examples tests/graphs | sed -E "s/^expr: '//; s/'$//" | sort -u | while IFS= read -r e; do
    n=$((n + 1)); seed expr "j$n" "$(printf '\x02%s' "$e")"
done
seed expr l1 $'\x01{"and": [{">": [{"var": "entry.n"}, 1]}, {"in": ["b", {"var": "entry.s"}]}]}'
seed expr l2 $'\x01{"map": [{"var": "entry.list"}, {"*": [{"var": ""}, 2]}]}'
seed request 1 '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
seed request 2 '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum_to_n","arguments":{"n":5}}}'
seed request 3 '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sum_to_n","arguments":{"n":"x"}}}'
seed request 4 '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}'
# Issue 27's hostile inputs: a long unknown tool name, a value nested past
# maxValueDepth, a duplicate id, a ping flood's shape.
seed request 5 "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"$(head -c 4096 /dev/zero | tr '\0' x)\",\"arguments\":{}}}"
seed request 6 "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"sum_to_n\",\"arguments\":{\"n\":3,\"deep\":$(printf '[%.0s' {1..300})$(printf ']%.0s' {1..300})}}}"
seed request 7 '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum_to_n","arguments":{"n":1000000}}}'
seed request 8 '{"jsonrpc":"2.0","id":8,"method":"ping"}'
# Amplifying built-ins (issue 27): sized or stopped before they allocate.
seed expr a1 $'\x02$replace($pad("", 2000, "a"), "a", $pad("", 2000, "b"))'
seed expr a2 $'\x02$distinct([1..20000].($ % 977))'
seed expr a3 $'\x02$string([1..2000].{"k": [1..5]}, true)'
seed expr a4 $'\x02$reduce([1..40], function($a){ $a & $a }, "x")'

for target in "${targets[@]}"; do
    echo "==> fuzz $target for ${seconds}s"
    (cd fuzz && cargo +nightly fuzz run "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 -print_final_stats=1) \
        2>&1 | tee "fuzz/last-$target.log" | grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==|SUMMARY)' || true
    if grep -q 'SUMMARY\|panicked' "fuzz/last-$target.log"; then
        echo "fuzz: $target found a crash (fuzz/artifacts/$target)"
        exit 1
    fi
done
echo "fuzz: no crash in ${targets[*]}"
