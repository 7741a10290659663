//! Runtime of the MCP servers that mcpgraph generates.
//!
//! **No semver promise:** this crate is an implementation detail of
//! [`mcpgraph`](https://docs.rs/mcpgraph) and changes with it; use it
//! through `mcpgraph`, whose public API is pinned.
//!
//! Generated code implements [`Graph`] for a unit type and reaches the
//! runtime through the hidden [`codegen`] module (the facade adds the
//! command line, which calls the hidden `host` module); everything else here
//! serves it, through the graph's type-erased [`GraphDef`] (so it is
//! compiled once, here, not again in every graph's crate): [`Engine`] runs
//! calls on single-threaded workers, [`Execution`] holds one call's context
//! and history, [`Servers`] is what it needs of the downstream servers
//! (`mcpgraph-downstream` connects them), `serving` speaks
//! MCP through rmcp.

#[doc(hidden)]
pub mod codegen;
mod engine;
mod error;
mod exec;
mod graph;
#[doc(hidden)]
pub mod host;
mod meta;
mod observe;
mod one_copy;
mod questions;
mod servers;
mod serving;

pub use engine::{CallError, CallOptions, CallOutcome, Engine, schema_violation};
pub use error::{Downstream, ErrorKind, Limit, NodeError, SchemaSide, StartupError};
pub use exec::Execution;
pub use exec::elicit::{Answer, Elicit};
pub use exec::fanout::{CallSpec, ForEach, Parallel};
pub use exec::retry::{Resilience, Retry};
#[cfg(feature = "standalone")]
pub use exec::standalone;
pub use graph::{CompiledGraph, Graph, GraphDef, RunFuture};
pub use mcpgraph_expr::memory::CountingAllocator;
pub use mcpgraph_expr::parsed::{Args, Expr, Rule, Switch};
pub use meta::{ContentMeta, Limits, SchemaCheck, ServerMeta, TaskMode, TaskSupport, ToolMeta};
pub use observe::{NodeRecord, NodeType, Observer, ProgressEvent};
pub use questions::Caller;
#[doc(hidden)]
pub use servers::{Connect, NoServers, Servers};
pub use servers::{ServerAuth, ServerSpec, TransportSpec};
pub use tokio_util::sync::CancellationToken;

// What the crates above the core (graph tests, failure recording) use;
// not an API.
#[doc(hidden)]
pub use exec::intercept::{Before, CallInterceptor};
#[doc(hidden)]
pub use mcpgraph_expr::evaluator::evaluate_on;
#[doc(hidden)]
pub use questions::{Rounds, Saved};

/// Entry points for tests, the fuzz targets, the differential runner and
/// the benchmarks, behind the non-default `testing` feature: none of them
/// is in a user's binary. Not an API.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod testing {
    pub use crate::serving::handler::Handler;
    pub use crate::serving::result::success_result;
    pub use crate::serving::session::{SessionError, serve};
    pub use jsonata_core;
    pub use mcpgraph_expr::evaluator::evaluate_standalone;
    pub use mcpgraph_expr::json::{from_json, to_json};
    pub use mcpgraph_expr::logic::{OutcomeError, RuleOutcome, evaluate_logic, evaluate_lowered};
}
