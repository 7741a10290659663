#!/usr/bin/env python3
"""Where the generated server's bytes and resident pages go, against the
hand-written floor: the breakdown behind the binary-size and RSS rows of
docs/bench/RESULTS.md (see docs/bench/SIZE.md).

    scripts/size-breakdown.py [OURS [FLOOR]] [--calls N]

OURS and FLOOR default to target/release/bench-graph and
target/release/bench-handwritten (`scripts/bench.sh` builds both). It
prints, for each binary:

- the sections that make up the file;
- code (text symbols, from `nm`) by crate: generic code such as drop glue
  (`core::ptr::drop_in_place<T>`) is counted under the crate of its `T`;
- the dynamic relocations the loader applies at every start (each one
  reads 24 bytes of `.rela.dyn` and writes a pointer into a page that
  then stays private to the process);
- with --calls N (default 2000; 0 skips it): VmRSS after `initialize` and
  VmHWM after N calls alternating the transform-only and wide-fan
  workloads, the binary's resident pages at both points, by mapping, and
  the crates whose code lies in the text pages the calls added.

Needs binutils (`nm`, `readelf`) and Linux's /proc/PID/pagemap. It only
measures; nothing fails on a figure.
"""

import bisect
import collections
import json
import os
import re
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STD = ("core", "alloc", "std")
# Where a path starts in a demangled name: at its beginning or inside the
# generic arguments, `<`, `(`, `[`, `,`, `&`, `*` or a space before it.
PATH_START = re.compile(r"(?:^|[<(\[,&* ])([A-Za-z_][A-Za-z0-9_]*)::")

# What each crate's code is for.
PURPOSES = [
    ("JSONata evaluation and its regex engine",
     {"jsonata_core", "regex", "regex_automata", "regex_syntax", "aho_corasick",
      "mcpgraph_expr", "mcpgraph_jsregex", "stacker", "psm", "chrono"}),
    ("HTTPS client for `http`/`sse` servers",
     {"reqwest", "rustls", "ring", "webpki", "rustls_pki_types", "untrusted",
      "tokio_rustls", "hyper_rustls", "rustls_platform_verifier", "rustls_native_certs",
      "openssl_probe", "url", "idna", "idna_adapter", "icu_normalizer", "icu_properties",
      "icu_collections", "icu_provider", "icu_locale_core", "zerovec", "zerotrie",
      "utf8_iter", "form_urlencoded", "percent_encoding", "ipnet", "zeroize",
      "subtle"}),
    ("C and assembly (in ours nearly all ring's crypto)", {"?"}),
    ("serde, serde_json", {"serde", "serde_core", "serde_json", "itoa", "zmij", "ryu_js"}),
    ("rmcp", {"rmcp"}),
    ("tokio", {"tokio", "tokio_util", "mio", "signal_hook_registry", "socket2",
               "futures_util", "futures_core", "futures_channel", "futures_task",
               "pin_project_lite", "slab", "atomic_waker", "tokio_stream", "process_wrap"}),
    ("the runtime's core (mcpgraph-runtime, mcpgraph-format, mcpgraph-secrets)",
     {"mcpgraph_runtime", "mcpgraph_format", "mcpgraph_secrets"}),
    ("downstream calls and their OAuth (mcpgraph-downstream, mcpgraph-oauth)",
     {"mcpgraph_downstream", "mcpgraph_oauth"}),
    ("HTTP serving (mcpgraph-http)", {"mcpgraph_http"}),
    ("the command line and graph tests (mcpgraph, mcpgraph-graph-tests)",
     {"mcpgraph", "mcpgraph_graph_tests"}),
    ("command line (clap)", {"clap_builder", "clap_lex", "anstream", "anstyle",
                             "anstyle_parse", "anstyle_query", "colorchoice", "strsim"}),
    ("logging (tracing-subscriber)", {"tracing_subscriber", "sharded_slab", "thread_local",
                                      "nu_ansi_term", "tracing_log", "matchers"}),
    ("the graph or the tools themselves", {"bench_graph", "bench_handwritten"}),
    ("JSON Schema validator helpers", {"jsonschema", "jsonschema_value", "referencing",
                                       "fancy_regex", "fluent_uri"}),
    ("HTTP plumbing (hyper, http, h2)", {"hyper", "hyper_util", "http", "http_body",
                                         "http_body_util", "httparse", "httpdate", "h2",
                                         "bytes", "want", "sse_stream", "tower", "tower_http",
                                         "tower_layer", "tower_service"}),
    ("tracing (spans and events)", {"tracing", "tracing_core", "log"}),
]


def crate_of(name):
    """The crate a demangled symbol is counted under: its own, or for a
    standard generic (drop glue, Vec, Option...) the first other crate
    whose path appears in its generic arguments. Names without a Rust
    path (C and assembly) count as "?"."""
    paths = PATH_START.findall(name)
    if not paths:
        return "?"
    if paths[0] not in STD:
        return paths[0]
    others = [p for p in paths if p not in STD and p[0].islower()]
    return others[0] if others else paths[0]


def purpose_of(crate):
    for purpose, crates in PURPOSES:
        if crate in crates:
            return purpose
    # Legacy symbol names hash the type arguments of trait impls
    # (`<PollFn<F> as Future>::poll`), so generic code over other crates'
    # types lands here too.
    return "the rest: std, collections, formatting, generics whose names hide their types"


def text_symbols(path):
    out = subprocess.run(["nm", "-S", "-C", path], capture_output=True, text=True, check=True)
    symbols = []
    for line in out.stdout.splitlines():
        fields = line.split(" ", 3)
        # Undefined symbols have neither address nor size.
        if len(fields) == 4 and fields[0] and fields[2] in "tTwW":
            symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    symbols.sort()
    return symbols


def sections(path):
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True)
    found = []
    for line in out.stdout.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and m.group(2) != "NULL":
            found.append((m.group(1), int(m.group(3), 16), int(m.group(4), 16)))
    return found


def relocations(path):
    out = subprocess.run(["readelf", "-rW", path], capture_output=True, text=True, check=True)
    kinds = collections.Counter()
    targets = []
    for line in out.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2].startswith("R_"):
            kinds[fields[2]] += 1
            if fields[2].endswith("_RELATIVE") and len(fields) == 4:
                targets.append(int(fields[3], 16))
    return kinds, targets


def mib(n):
    return f"{n / 1048576:6.2f} MiB"


def kb(n):
    return f"{n / 1000:8.1f} KB"


def report_static(label, path, top):
    size = os.path.getsize(path)
    print(f"\n## {label}: {path}\n\nfile {mib(size)} ({size:,} bytes)\n")
    secs = sections(path)
    print("sections over 100 KB:")
    for name, _, sz in sorted(secs, key=lambda s: -s[2]):
        if sz >= 100_000:
            print(f"  {kb(sz)}  {name}")
    symbols = text_symbols(path)
    by_crate = collections.Counter()
    names = collections.Counter()
    for _, sz, name in symbols:
        by_crate[crate_of(name)] += sz
        names[name] += 1
    total = sum(by_crate.values())
    print(f"\ncode by crate (text symbols, {mib(total)} in all), top {top}:")
    for crate, sz in by_crate.most_common(top):
        print(f"  {kb(sz)}  {crate}")
    by_purpose = collections.Counter()
    for crate, sz in by_crate.items():
        by_purpose[purpose_of(crate)] += sz
    print("\ncode by what it is for:")
    for purpose, sz in by_purpose.most_common():
        print(f"  {kb(sz)}  {purpose}")
    copies = sum(n - 1 for n in names.values() if n > 1)
    print(f"\n{len(symbols):,} text symbols; {copies:,} of them repeat a name already seen "
          "(the same generic built in several codegen units, or several instances of it)")
    kinds, targets = relocations(path)
    text = [s for s in secs if s[0] == ".text"]
    rodata = [s for s in secs if s[0] == ".rodata"]

    def inside(addr, sec):
        return any(start <= addr < start + sz for _, start, sz in sec)

    to_code = sum(1 for t in targets if inside(t, text))
    to_rodata = sum(1 for t in targets if inside(t, rodata))
    print(f"\ndynamic relocations: {sum(kinds.values()):,} "
          + ", ".join(f"{k} {v:,}" for k, v in kinds.most_common()))
    print(f"  relative ones pointing into code (vtables, function tables): {to_code:,}; "
          f"into .rodata (string and table pointers): {to_rodata:,}; elsewhere: "
          f"{len(targets) - to_code - to_rodata:,}")
    return symbols


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "size-breakdown", "version": "1"}}}
WORKLOADS = [
    ("echo", {"name": "bench", "n": 21}),
    ("wide", {"a": 7, "s": "bench", "items": [1, 2, 3, 4, 5]}),
]


def resident(pid, path):
    """Resident KiB per mapping of `path` (by permissions), and the set of
    resident text pages (file offsets)."""
    per_map = collections.Counter()
    text_pages = set()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for line in maps:
            fields = line.split()
            if len(fields) < 6 or fields[5] != path:
                continue
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            offset = int(fields[2], 16)
            pagemap.seek(lo // 4096 * 8)
            entries = pagemap.read((hi - lo) // 4096 * 8)
            for i in range((hi - lo) // 4096):
                (entry,) = struct.unpack_from("<Q", entries, i * 8)
                if entry >> 63:
                    per_map[fields[1]] += 4
                    if fields[1] == "r-xp":
                        text_pages.add(offset + i * 4096)
    return per_map, text_pages


def status(pid, key):
    """A field of /proc/PID/status in KiB (VmRSS, VmHWM)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def text_delta(path):
    """Virtual address minus file offset of the executable segment."""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD" and "E" in fields[6:-1]:
            return int(fields[2], 16) - int(fields[1], 16)
    return 0


def report_resident(label, path, symbols, calls, top):
    path = os.path.realpath(path)
    proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)

    def rpc(message):
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        if "id" in message:
            proc.stdout.readline()

    rpc(INIT)
    rpc({"jsonrpc": "2.0", "method": "notifications/initialized"})
    time.sleep(0.3)
    idle_rss = status(proc.pid, "VmRSS")
    idle, idle_pages = resident(proc.pid, path)
    for k in range(calls):
        tool, args = WORKLOADS[k % 2]
        rpc({"jsonrpc": "2.0", "id": k + 1, "method": "tools/call",
             "params": {"name": tool, "arguments": args}})
    after, after_pages = resident(proc.pid, path)
    peak_rss = status(proc.pid, "VmHWM")
    proc.stdin.close()
    proc.wait()
    print(f"\n{label}: VmRSS after `initialize` {idle_rss / 1024:.2f} MiB, "
          f"VmHWM after {calls} calls {peak_rss / 1024:.2f} MiB")
    print(f"{label}: resident pages of the binary after `initialize` -> after {calls} calls")
    for perms in sorted(set(idle) | set(after)):
        print(f"  {perms}: {idle[perms]:6d} KiB -> {after[perms]:6d} KiB")
    delta = text_delta(path)
    addrs = [s[0] for s in symbols]
    by_crate = collections.Counter()
    for page in after_pages - idle_pages:
        lo = page + delta
        i = max(bisect.bisect_right(addrs, lo) - 1, 0)
        while i < len(symbols) and symbols[i][0] < lo + 4096:
            start, sz, name = symbols[i]
            overlap = min(lo + 4096, start + sz) - max(lo, start)
            if overlap > 0:
                by_crate[crate_of(name)] += overlap
            i += 1
    print(f"  code in the {len(after_pages - idle_pages) * 4} KiB of text the calls added "
          "(the kernel maps text in 64 KiB windows around each fault), top "
          f"{top}:")
    for crate, sz in by_crate.most_common(top):
        print(f"    {kb(sz)}  {crate}")


def main(argv):
    calls = 2000
    paths = []
    i = 0
    while i < len(argv):
        if argv[i] == "--calls":
            calls = int(argv[i + 1])
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    ours = paths[0] if paths else os.path.join(target, "release", "bench-graph")
    floor = paths[1] if len(paths) > 1 else os.path.join(target, "release", "bench-handwritten")
    print("# size breakdown: generated server vs hand-written floor")
    peers = [("ours", ours), ("hand-written", floor)]
    symbols = {label: report_static(label, path, 25) for label, path in peers}
    if calls:
        for label, path in peers:
            report_resident(label, path, symbols[label], calls, 12)


if __name__ == "__main__":
    main(sys.argv[1:])
