//! The command lines: a compiled server's CLI, `mcpgraph lock`,
//! observability (`call --trace`, observer hooks, progress), and the graph
//! pictures (`mcpgraph graph --html`, opened in Chromium).
//!
//! One binary, one module per former test binary: `cargo test --test cli
//! lock::` runs one. The OTLP export is tested in `otlp.rs`, a binary of
//! its own that needs the `otel` feature (on by default).

mod check_expressions;
mod check_types;
mod cli;
mod code_map;
mod doc_examples;
mod graph_cases;
mod graph_elicit;
mod graph_failures;
mod lock;
mod observe;
mod picture;
mod state_keys;
