//! Test harness for the mcpgraph end-to-end tests.
//!
//! The tests in `tests/tests/` (a few binaries, one per area, each former
//! test file a module) drive the compiled example servers
//! (`file_utils`, `loop_example`, `switch_example`, `test_minimal`) over
//! stdio with a real MCP client (rmcp), with the raw JSON-RPC wire, and
//! through their command line. [`bin_path`] builds them through cargo on
//! first use, in the test's profile, so a test never drives a stale binary.
//!
//! `file_utils` calls `@modelcontextprotocol/server-filesystem`; the harness
//! always passes `--mcp FILE` pointing its `filesystem` server at the pinned
//! copy in `peers/node_modules` (install with `scripts/install-peers.sh`),
//! allowed on `examples/file_utils/counting`.
//!
//! The helpers are grouped by what they drive, and all re-exported here
//! (`mcpgraph_tests::bin_path`, `mcpgraph_tests::HttpServer`, ...):
//! - [`paths`]: the workspace, the examples, the binaries built through cargo;
//! - [`compat`]: mcpGraph's example graphs and expected results;
//! - [`command`]: an example's command line, and one CLI run;
//! - [`stdio`]: a server over stdio under an rmcp client;
//! - [`raw_stdio`]: raw JSON-RPC lines over a server's stdio;
//! - [`http`]: a server on streamable HTTP;
//! - [`raw_http`]: raw HTTP/1.1 requests, read with [`http1`];
//! - [`http1`]: one HTTP/1.1 message off a byte stream (also used by the
//!   OTLP test and the benchmarks);
//! - [`sdk`]: the official Python and TypeScript SDK clients;
//! - [`secrets`]: a secret with characters URLs and JSON encode, and its forms;
//! - [`peers`]: the pinned peers and the purpose-built test server;
//! - [`nginx`]: nginx as a reverse proxy;
//! - [`engine`]: a compiled graph driven in-process;
//! - [`processes`]: signals, free ports, /proc, temp directories;
//! - [`sse_server`]: a legacy SSE MCP server;
//! - [`oidc`]: a real OAuth authorization server (oidc-provider), with
//!   its keys and tokens (not re-exported: `mcpgraph_tests::oidc::Provider`).

use std::time::Duration;

use rmcp::service::{RoleClient, RunningService};

pub use rmcp;

pub mod command;
pub mod compat;
pub mod engine;
pub mod hostile_oauth;
pub mod http;
pub mod http1;
pub mod nginx;
pub mod oidc;
pub mod paths;
pub mod peers;
pub mod processes;
pub mod raw_http;
pub mod raw_stdio;
pub mod redis;
pub mod sdk;
pub mod secrets;
pub mod sse_server;
pub mod stdio;

pub use command::*;
pub use compat::*;
pub use engine::*;
pub use http::*;
pub use nginx::*;
pub use paths::*;
pub use peers::*;
pub use processes::*;
pub use raw_http::*;
pub use raw_stdio::*;
pub use redis::*;
pub use sdk::*;
pub use secrets::*;
pub use stdio::*;

/// Upper bound for one step (spawn + initialize, one call, one list, one
/// process run). Generous for a loaded 2-core CI machine; its only job is to
/// turn a hang into a failure.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Limit for one raw JSON-RPC response.
pub const RAW_TIMEOUT: Duration = Duration::from_secs(20);

/// The MCP client type used by the tests.
pub type Client = RunningService<RoleClient, ()>;

/// Awaits `fut`, failing with `what` if it takes longer than [`TIMEOUT`].
/// The clock starts after the programs the tests drive are built
/// ([`ensure_programs_built`]): a test whose other task is building them
/// is not hanging.
pub async fn timed<F: std::future::Future>(what: &str, fut: F) -> F::Output {
    ensure_programs_built();
    match tokio::time::timeout(TIMEOUT, fut).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {TIMEOUT:?}: {what}"),
    }
}
