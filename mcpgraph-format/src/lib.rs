//! The graph file's settings as plain data (an internal crate of mcpgraph,
//! with no semver promise): the one definition that the generator, the
//! runtime, `--mcp` files and the `mcpgraph` command share.
//!
//! - [`Server`] and [`Transport`]: an entry of `mcpServers`, and
//!   [`parse_mcp_file`] for a `--mcp` file of them;
//! - [`Auth`]: a server's `auth` (FORMAT.md, "OAuth");
//! - [`Limits`]: `executionLimits`, with [`Limits::DEFAULT`];
//! - [`Resilience`] and [`Retry`]: a node's `retry` and `timeoutMs`;
//! - [`TaskSupport`]: a tool's `task`.
//!
//! The generator reads the YAML itself (its diagnostics point at lines and
//! columns) and wraps these values with positions where it needs them;
//! with the `tokens` feature it emits them as Rust expressions naming the
//! types through the generated code's `rt::` path. Strings are verbatim:
//! `${VAR}` is expanded at run time, never here.

mod auth;
mod limits;
mod mcp_file;
#[doc(hidden)]
pub mod owned;
mod resilience;
mod server;
mod task;
#[cfg(feature = "tokens")]
mod tokens;

pub use auth::{Algorithm, Auth, AuthError, Enterprise, Grant, TokenStore};
pub use limits::Limits;
pub use mcp_file::{McpFileError, parse_mcp_file};
pub use resilience::{Resilience, Retry};
pub use server::{Server, Transport, is_env_name};
pub use task::{TaskMode, TaskSupport};
