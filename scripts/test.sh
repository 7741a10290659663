#!/usr/bin/env bash
# Full local/CI test run: pinned peers, build everything, run all tests.
# The test crate (tests/) drives the example binaries built here
# (target/<profile>/<name>), so the build step must come first.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/install-peers.sh

cargo build --workspace --all-targets
# The OTLP exporter is behind a feature; keep it compiling.
cargo check -p mcpgraph-runtime --features otel
cargo test --workspace
