//! MCP tasks of an mcpgraph server: the task store and the calls run as
//! tasks (an internal crate of mcpgraph, with no semver promise: use it
//! through `mcpgraph`).
//!
//! A graph call run as an MCP task (the `io.modelcontextprotocol/tasks`
//! extension) lives here, so that any replica can report it, answer its
//! questions, cancel it, or take it over from the journal when the replica
//! running it dies:
//!
//! - [`Task`], [`TaskId`], [`Status`] and [`Outcome`]: what a task is;
//! - [`TaskStore`]: the one trait, with client-side methods (scoped to the
//!   task's owner) and runner-side ones (questions, cancellation, the
//!   journal, leases);
//! - [`MemoryStore`] (`memory`) and `RedisStore` (`redis://`, with the
//!   `redis` feature), chosen by URL with [`open`];
//! - [`StoreLimits`]: the cap of running tasks, the TTL, the poll interval;
//! - [`Tasks`]: the graph calls a replica runs as tasks (the core's
//!   `TaskHost`), its lease on each, the sealed journal another replica
//!   takes one over from.
//!
//! Values are opaque JSON to the store, which never logs them; [`Tasks`]
//! seals the journal with the server's state keys.

mod error;
mod memory;
mod open;
#[cfg(feature = "redis")]
mod redis_store;
mod serving;
mod store;
mod task;

pub use error::{OpenError, StoreError};
pub use memory::MemoryStore;
pub use open::{MAX_TTL, open};
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use serving::Tasks;
pub use store::TaskStore;
pub use task::{
    JOURNAL_MAX_BYTES, JOURNAL_MAX_ENTRIES, Outcome, Status, StoreLimits, Task, TaskId,
};
