//! Runtime of the MCP servers that mcpgraph generates.
//!
//! Generated code implements [`Graph`] for a unit type and calls
//! [`cli::main`]; everything else here serves it, through the graph's
//! type-erased [`GraphDef`] (so it is compiled once, here, not again in
//! every graph's crate): [`Engine`] runs calls on single-threaded workers,
//! [`Execution`] holds one call's context and history, `client_manager`
//! connects to downstream servers, `server` speaks MCP through rmcp. Users
//! reach this crate through the `mcpgraph` facade.

#![warn(missing_docs)]

pub mod cli;
pub mod client_manager;
#[doc(hidden)]
pub mod codegen;
pub mod convert;
pub mod env_expand;
mod error;
mod exec;
mod expr;
#[doc(hidden)]
pub mod fuzzing;
mod graph;
pub mod http;
#[cfg(test)]
mod js_regex;
#[doc(hidden)]
pub mod js_text;
mod meta;
mod metrics;
mod observe;
mod pool;
pub mod reaper;
pub mod server;
pub mod stderr_writer;
mod stdio;
pub mod telemetry;
pub mod value;
mod watchdog;

pub use error::{NodeError, StartupError};
/// Transforms and switch rules evaluated as a node would, for the
/// differential runner. Not an API.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub use exec::differential;
pub use exec::{Execution, evaluate_standalone};
pub use expr::{Args, Expr, Rule, Switch};
pub use graph::{CompiledGraph, Graph, GraphDef, RunFuture};
pub use jsonata_core;
/// The switch rules' evaluator applied as the tests, the fuzz targets and
/// the differential runner need it. Not an API.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub use mcpgraph_expr::logic::{RuleOutcome, evaluate_logic, evaluate_lowered};
pub use meta::{Limits, SchemaCheck, ServerDef, ServerMeta, ToolMeta, TransportDef};
pub use observe::{NodeRecord, NodeType, Observer, ProgressEvent};
pub use pool::{CallError, CallOptions, CallOutcome, Engine, schema_violation};
pub use server::Handler;

/// Re-exported so generated code and users share one version.
pub use rmcp;
pub use serde_json;
pub use tokio;
pub use tokio_util::sync::CancellationToken;
