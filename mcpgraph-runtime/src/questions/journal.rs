//! What a round tells a task's journal as it goes (`mcpgraph-tasks` keeps
//! it, behind [`JournalSink`]): a downstream call about to be made, made
//! only once the journal holds it, so that a replica taking the task over
//! cannot miss it; and each result the round records (a call's result, an
//! answer), which that replica replays.

use futures::future::BoxFuture;
use serde_json::Value;

use super::slot::Slot;

/// Where a task's round journals what it learns.
pub trait JournalSink: Send + Sync + std::fmt::Debug {
    /// Call `slot` of `server`'s `tool` is about to be made: resolves once
    /// the journal holds it; or why the call may not be made (it was in
    /// flight when the task's last replica stopped, and may not be made
    /// twice; or the journal could not record it).
    fn began<'a>(
        &'a self,
        slot: &'a Slot,
        server: &'a str,
        tool: &'a str,
    ) -> BoxFuture<'a, Result<(), String>>;

    /// What `slot` got.
    fn ended(&self, slot: &Slot, value: &Value);
}
