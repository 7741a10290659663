#!/usr/bin/env bash
# Full local/CI test run: pinned peers, build everything, run all tests.
# The test crate (tests/) drives the example binaries built here
# (target/<profile>/<name>), so the build step must come first.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/install-peers.sh

cargo build --workspace --all-targets
cargo test --workspace
# The OTLP exporter is behind a cargo feature: its test builds the facade
# and runtime once more with it (tests/otlp.rs is empty without it).
cargo test -p mcpgraph --features otel --test otlp
