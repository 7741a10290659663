//! One task's call, run to its end on this replica: round after round, its
//! questions put in the task and their answers awaited, its journal kept,
//! its lease renewed; and the loop that takes over the tasks of replicas
//! that stopped.

use std::sync::Arc;
use std::time::Duration;

use mcpgraph_runtime::host::{Owner, RoundEnd, Slot, TaskEngine};
use mcpgraph_runtime::{Caller, ProgressEvent, Rounds, Saved};
use rmcp::model::{CallToolResult, ContentBlock, InputResponses};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::journal::{self, KeptToken, LEASE, Start, may_repeat};
use super::sealer::{JournalError, Sealer};
use super::steps::{Journaled, Sink, Step};
use crate::{Outcome, Status, StoreError, TaskId, TaskStore};

/// How often a task's status message may change in the store at most: a
/// loop of fast nodes costs no store write per node.
const MESSAGE_EVERY: Duration = Duration::from_millis(200);

/// One task's call, run to its end.
pub(super) struct Runner {
    pub(super) engine: TaskEngine,
    pub(super) store: Arc<dyn TaskStore>,
    /// This replica's name in the store's leases.
    pub(super) replica: Arc<str>,
    pub(super) id: TaskId,
    pub(super) start: Start,
    /// The caller as the request made it (token, owner, trace); its channel
    /// is replaced by each round's.
    pub(super) caller: Caller,
    /// The first round: the request's own (a call of an `askFirst` tool
    /// brings the answers to the questions asked before the task), or the
    /// journal's replay.
    pub(super) first: Arc<Rounds>,
    /// The first round's number less one (a task taken over while it
    /// waited for answers asks under the same keys again).
    pub(super) rounds_before: u32,
    /// The calls a stopped replica had in flight that may not be made
    /// again.
    pub(super) interrupted: Vec<Slot>,
    pub(super) sealer: Arc<Sealer>,
}

/// How a task ended.
enum End {
    Done(CallToolResult),
    Failed { code: i64, message: String },
    Cancelled,
}

impl Runner {
    /// Runs the call under this replica's lease; stores how it ended,
    /// unless the lease was lost (another replica runs it now).
    pub(super) async fn run(self) {
        let lost = CancellationToken::new();
        let lease = tokio::spawn(hold_lease(
            Arc::clone(&self.store),
            self.id.clone(),
            Arc::clone(&self.replica),
            lost.clone(),
        ));
        let end = tokio::select! {
            end = self.rounds() => end,
            () = lost.cancelled() => {
                tracing::warn!(task = %self.id, "this replica lost the task's lease: another runs it");
                return;
            }
        };
        lease.abort();
        let (status, outcome) = match end {
            End::Done(result) => (
                Status::Completed,
                Some(Outcome::Result(
                    serde_json::to_value(result).unwrap_or(Value::Null),
                )),
            ),
            End::Failed { code, message } => {
                (Status::Failed, Some(Outcome::Error { code, message }))
            }
            End::Cancelled => {
                tracing::info!(task = %self.id, "task {} was cancelled", self.id);
                (Status::Cancelled, None)
            }
        };
        if let Err(e) = self.store.finish(&self.id, status, outcome).await {
            tracing::warn!(task = %self.id, error = %e, "a task's end could not be stored");
        }
    }

    /// Runs the call round after round until it ends.
    async fn rounds(&self) -> End {
        let (sink, steps) = tokio::sync::mpsc::unbounded_channel();
        let journaling = tokio::spawn(journal::keep(
            Arc::clone(&self.store),
            self.id.clone(),
            Arc::clone(&self.sealer),
            steps,
        ));
        let journal = |interrupted: Vec<Slot>| {
            Arc::new(Sink {
                steps: sink.clone(),
                interrupted,
            })
        };
        self.first.journal_to(journal(self.interrupted.clone()));
        let mut next = Some(Arc::clone(&self.first));
        let (mut saved, mut responses) = (Saved::default(), InputResponses::new());
        let mut round = self.rounds_before;
        let end = loop {
            round += 1;
            let rounds = match next.take() {
                Some(first) => first,
                None => {
                    let rounds = Arc::new(Rounds::new(saved, responses));
                    rounds.journal_to(journal(Vec::new()));
                    rounds
                }
            };
            let cancel = CancellationToken::new();
            let (progress, events) = tokio::sync::mpsc::unbounded_channel();
            let reporting = tokio::spawn(report_nodes(
                Arc::clone(&self.store),
                self.id.clone(),
                events,
            ));
            let call = self.engine.round(
                &self.start.tool,
                self.start.arguments.clone(),
                self.caller.clone(),
                rounds,
                progress,
                cancel.clone(),
            );
            let ended = tokio::select! {
                ended = call => ended,
                _ = self.store.cancelled(&self.id) => {
                    cancel.cancel();
                    reporting.abort();
                    self.engine.count_call(&self.start.tool, "cancelled");
                    break End::Cancelled;
                }
            };
            // The call's sender is gone: the last node's message is stored.
            let _ = reporting.await;
            let (requests, next_saved) = match ended {
                RoundEnd::Done(result) => break End::Done(result),
                RoundEnd::Failed { code, message } => break End::Failed { code, message },
                RoundEnd::Asked { requests, saved } => (requests, saved),
            };
            let _ = sink.send(Step::sent(Journaled::Asked { round }));
            match self.ask(round, requests).await {
                Ok(Some(answers)) => (saved, responses) = (next_saved, answers),
                Ok(None) => break End::Cancelled,
                Err(message) => {
                    break End::Done(CallToolResult::error(vec![ContentBlock::text(message)]));
                }
            }
        };
        // The journal's last entries go on being kept (until the rounds,
        // which hold its sender, are dropped); a finished task is not taken
        // over, so its end need not wait for them.
        drop(journaling);
        end
    }

    /// Puts a round's questions in the task and waits for every answer,
    /// each for at most `maxAnswerWaitMs`. The task's keys are the round's
    /// own, prefixed with the round number, so that no key is used twice in
    /// the task's life (a key asked already, by the replica this task was
    /// taken over from, is waited for). `None`: cancelled while waiting.
    async fn ask(
        &self,
        round: u32,
        requests: rmcp::model::InputRequests,
    ) -> Result<Option<InputResponses>, String> {
        let failed = |e: StoreError| format!("the task store failed: {e}");
        let mut keys = Vec::with_capacity(requests.len());
        for (key, request) in requests {
            let task_key = format!("r{round}.{key}");
            let request = serde_json::to_value(&request).map_err(|e| e.to_string())?;
            match self.store.ask(&self.id, task_key.clone(), request).await {
                Ok(()) | Err(StoreError::AlreadyAsked { .. }) => {}
                Err(e) => return Err(failed(e)),
            }
            keys.push((key, task_key));
        }
        let wait = Duration::from_millis(self.engine.graph().limits.max_answer_wait_ms);
        let mut answers = InputResponses::new();
        for (key, task_key) in keys {
            let answer = tokio::select! {
                answer = self.store.wait_answer(&self.id, &task_key, wait) => answer.map_err(failed)?,
                _ = self.store.cancelled(&self.id) => return Ok(None),
            };
            match answer {
                Some(answer) => {
                    let answer = self.sealer.open_answer(answer).map_err(|e| match e {
                        JournalError::Sealed(_) => format!(
                            "the answer to question `{task_key}` was sealed by a replica with \
                             other state keys: replicas on one task store need the same \
                             `--state-key-file`"
                        ),
                        e => format!("the answer to question `{task_key}` does not open: {e}"),
                    })?;
                    answers.insert(key, answer);
                }
                None => {
                    return Err(format!(
                        "question `{task_key}` was not answered within {} ms (maxAnswerWaitMs)",
                        wait.as_millis()
                    ));
                }
            }
        }
        Ok(Some(answers))
    }
}

/// Renews this replica's lease on task `id` three times a lease; cancels
/// `lost` when another replica holds it.
async fn hold_lease(
    store: Arc<dyn TaskStore>,
    id: TaskId,
    replica: Arc<str>,
    lost: CancellationToken,
) {
    loop {
        tokio::time::sleep(LEASE / 3).await;
        match store.renew(&id, &replica, LEASE).await {
            Ok(true) => {}
            Ok(false) => {
                lost.cancel();
                return;
            }
            // The store away: try again; the call runs on meanwhile.
            Err(e) => tracing::warn!(task = %id, error = %e, "a task's lease could not be renewed"),
        }
    }
}

/// Keeps the task's status message on the node running (`running node
/// `x``, with the node's own news: for a `parallel` or `forEach` node, the
/// calls done and the branches or items running), written when it
/// changes, at most every [`MESSAGE_EVERY`], and the last one when the
/// call ends.
async fn report_nodes(
    store: Arc<dyn TaskStore>,
    id: TaskId,
    mut events: tokio::sync::mpsc::UnboundedReceiver<ProgressEvent>,
) {
    // The node and its news: formatted only when written.
    let status = |(node, message): &(&str, Option<String>)| match message {
        Some(message) => format!("running node `{node}`: {message}"),
        None => format!("running node `{node}`"),
    };
    let (mut written, mut latest) = (None, None);
    let mut next_write = tokio::time::Instant::now();
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            () = tokio::time::sleep_until(next_write), if latest != written => {
                if let Some(shown) = &latest {
                    let _ = store.set_message(&id, status(shown)).await;
                }
                written.clone_from(&latest);
                next_write = tokio::time::Instant::now() + MESSAGE_EVERY;
                continue;
            }
        };
        match event {
            Some(event) => latest = Some((event.node, event.message)),
            None => break,
        }
    }
    if let Some(shown) = latest.filter(|shown| Some(shown) != written.as_ref()) {
        let _ = store.set_message(&id, status(&shown)).await;
    }
}

/// How often a replica looks for tasks to take over: a task whose replica
/// died runs again at most a lease and this long after its last renewal.
const ADOPT_EVERY: Duration = Duration::from_secs(1);

/// Takes over, every [`ADOPT_EVERY`], the tasks whose replica stopped: each
/// one's journal is replayed (no downstream call made again for a result
/// it holds; a call that was in flight made again only if the lock marks
/// its tool read-only or idempotent) and the call runs on here.
pub(super) async fn adopt_orphans(
    engine: TaskEngine,
    store: Arc<dyn TaskStore>,
    replica: Arc<str>,
) {
    loop {
        tokio::time::sleep(ADOPT_EVERY).await;
        let orphans = match store.orphans(LEASE).await {
            Ok(orphans) => orphans,
            Err(e) => {
                tracing::warn!(error = %e, "the task store cannot list tasks to take over");
                continue;
            }
        };
        for id in orphans {
            if store.claim(&id, &replica, LEASE).await == Ok(true) {
                let (engine, store, replica) =
                    (engine.clone(), Arc::clone(&store), Arc::clone(&replica));
                tokio::spawn(take_over(engine, store, replica, id));
            }
        }
    }
}

/// Runs task `id`, claimed by this replica, from its journal.
async fn take_over(engine: TaskEngine, store: Arc<dyn TaskStore>, replica: Arc<str>, id: TaskId) {
    let sealer = Arc::new(Sealer::for_task(&engine, &id));
    let journal = match store.journal(&id).await {
        Ok(journal) => journal,
        Err(e) => {
            tracing::warn!(task = %id, error = %e, "a task's journal cannot be read");
            return;
        }
    };
    let replay = match journal::replay(&sealer, journal) {
        Ok(replay) => replay,
        Err(why) => {
            let text = format!(
                "task.interrupted: the replica running this task stopped, and its journal \
                 cannot be replayed: {why}"
            );
            let result = CallToolResult::error(vec![ContentBlock::text(text)]);
            let outcome = Outcome::Result(serde_json::to_value(result).unwrap_or(Value::Null));
            let _ = store.finish(&id, Status::Completed, Some(outcome)).await;
            return;
        }
    };
    tracing::info!(task = %id, tool = %replay.start.tool, "taking over a task whose replica stopped");
    let lock = engine.graph().lock;
    let interrupted = replay
        .in_flight
        .into_values()
        .filter(|(_, server, tool)| !may_repeat(lock, server, tool))
        .map(|(slot, ..)| slot)
        .collect();
    let mut caller = Caller::rounds(replay.start.capabilities.as_ref(), Arc::default());
    if let Some(owner) = &replay.start.owner {
        caller = caller.with_owner(Owner::new(owner));
    }
    caller = caller.with_token(replay.start.token.as_ref().map(KeptToken::token));
    let first = Arc::new(Rounds::new(
        Saved::from_tape(replay.tape),
        InputResponses::new(),
    ));
    Runner {
        engine,
        store,
        replica,
        id,
        start: replay.start,
        caller,
        first,
        rounds_before: replay.rounds_before,
        interrupted,
        sealer,
    }
    .run()
    .await;
}
