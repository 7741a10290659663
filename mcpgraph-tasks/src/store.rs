//! The one trait every task store implements.

use std::time::Duration;

use futures::future::BoxFuture;

use crate::error::StoreError;
use crate::task::{Outcome, Status, Task, TaskId};

/// Where tasks live: one process's memory, or a store every replica
/// shares. Values (requests, answers, results, journal entries) are
/// opaque JSON to the store, which never logs them; sealing secrets in
/// them is the caller's job.
///
/// Client-side methods take the `owner` and treat another owner's task as
/// missing; runner-side methods trust the id.
pub trait TaskStore: Send + Sync + 'static {
    /// Creates a `Working` task for `owner` running `tool`. Durable when it
    /// returns: a `get` on any replica sees it. [`StoreError::Full`] when
    /// `max_live` tasks are running.
    fn create(&self, owner: &str, tool: &str) -> BoxFuture<'_, Result<Task, StoreError>>;

    /// The task, if it exists, has not expired and belongs to `owner`
    /// (another owner's task is indistinguishable from a missing one).
    fn get(&self, id: &TaskId, owner: &str) -> BoxFuture<'_, Result<Option<Task>, StoreError>>;

    /// Runner side: the status message (for example the running node) of
    /// a running task; nothing for a missing or ended one.
    fn set_message(&self, id: &TaskId, message: String) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Runner side: adds question `key` and sets the status to
    /// `InputRequired`. A key is unique for the task's lifetime: asking
    /// it again is [`StoreError::AlreadyAsked`]; a missing or ended task
    /// is [`StoreError::Gone`].
    fn ask(
        &self,
        id: &TaskId,
        key: String,
        request: serde_json::Value,
    ) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Client side (`tasks/update`): answers to outstanding questions are
    /// taken (they leave `input_requests`), others ignored; the status
    /// goes back to `Working` when no question remains. `Ok(false)` if
    /// `owner` has no such task.
    fn answer(
        &self,
        id: &TaskId,
        owner: &str,
        answers: serde_json::Map<String, serde_json::Value>,
    ) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Runner side: waits up to `timeout` for the answer to `key`, which
    /// any replica may have received, and returns it once. `None` on
    /// timeout or when cancellation was requested; [`StoreError::Gone`]
    /// when the task expired.
    fn wait_answer(
        &self,
        id: &TaskId,
        key: &str,
        timeout: Duration,
    ) -> BoxFuture<'_, Result<Option<serde_json::Value>, StoreError>>;

    /// Runner side: ends the task: `Completed` with [`Outcome::Result`],
    /// `Failed` with [`Outcome::Error`], `Cancelled` with `None` (anything
    /// else is [`StoreError::Invalid`]). A task already ended, or gone,
    /// stays as it was.
    fn finish(
        &self,
        id: &TaskId,
        status: Status,
        outcome: Option<Outcome>,
    ) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Client side (`tasks/cancel`): marks a running task's cancellation
    /// as requested; an ended one is left alone. `Ok(false)` if `owner`
    /// has no such task.
    fn cancel(&self, id: &TaskId, owner: &str) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Runner side: resolves once cancellation was requested (on any
    /// replica) or the task expired; otherwise never.
    fn cancelled(&self, id: &TaskId) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Appends an entry to the task's journal, which a replica taking the
    /// task over replays. Bounded by [`JOURNAL_MAX_ENTRIES`] and
    /// [`JOURNAL_MAX_BYTES`] ([`StoreError::JournalFull`]);
    /// [`StoreError::Gone`] for a missing task.
    ///
    /// [`JOURNAL_MAX_ENTRIES`]: crate::JOURNAL_MAX_ENTRIES
    /// [`JOURNAL_MAX_BYTES`]: crate::JOURNAL_MAX_BYTES
    fn append_journal(
        &self,
        id: &TaskId,
        entry: serde_json::Value,
    ) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The task's journal, in the order it was written (empty for a
    /// missing task).
    fn journal(&self, id: &TaskId) -> BoxFuture<'_, Result<Vec<serde_json::Value>, StoreError>>;

    /// Takes the task's lease for `replica` for `lease`, if it is free,
    /// expired or held by `replica` already; `true` if taken. A missing or
    /// ended task cannot be claimed.
    fn claim(
        &self,
        id: &TaskId,
        replica: &str,
        lease: Duration,
    ) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Extends the lease `replica` holds by `lease` from now; `false` if
    /// it holds it no more (it expired, another replica took it).
    fn renew(
        &self,
        id: &TaskId,
        replica: &str,
        lease: Duration,
    ) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// The running tasks nobody holds a lease on, created more than
    /// `grace` ago: never claimed (the replica starting it died before it
    /// could; a younger one is still being started), or whose lease
    /// expired (their replica died or hung).
    fn orphans(&self, grace: Duration) -> BoxFuture<'_, Result<Vec<TaskId>, StoreError>>;
}
