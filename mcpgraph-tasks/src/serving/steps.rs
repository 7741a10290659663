//! The steps of a task's journal (a downstream call begun, what a slot
//! got, a round that asked) and the sink a round sends them through (the
//! core's `JournalSink`), to the writer in `journal`.

use futures::FutureExt;
use futures::future::BoxFuture;
use mcpgraph_runtime::host::{JournalSink, Slot};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

/// One step of a task's journal.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) enum Journaled {
    /// Call `slot` of `server`'s `tool` is about to be made.
    Began {
        slot: Slot,
        server: String,
        tool: String,
    },
    /// What `slot` got (a call's result, a question's answer).
    Ended { slot: Slot, value: Value },
    /// Round `round` stopped for answers (the task's question keys start
    /// `r{round}.`).
    Asked { round: u32 },
}

/// A step on its way to the journal, and whom to tell once it is kept (or
/// why it could not be).
pub(super) struct Step {
    pub(super) entry: Journaled,
    pub(super) kept: Option<oneshot::Sender<Result<(), String>>>,
}

impl Step {
    /// A step nobody waits for.
    pub(super) fn sent(entry: Journaled) -> Self {
        Self { entry, kept: None }
    }
}

/// A round's sink: its steps go to the task's writer; a call that a
/// stopped replica had in flight, and that may not be made again, is
/// refused.
#[derive(Debug)]
pub(super) struct Sink {
    pub(super) steps: UnboundedSender<Step>,
    pub(super) interrupted: Vec<Slot>,
}

impl JournalSink for Sink {
    fn began<'a>(
        &'a self,
        slot: &'a Slot,
        server: &'a str,
        tool: &'a str,
    ) -> BoxFuture<'a, Result<(), String>> {
        async move {
            if self.interrupted.contains(slot) {
                return Err(format!(
                    "the replica running this task stopped while call {slot} was in flight, \
                     and the lock marks its tool neither read-only nor idempotent, so it is \
                     not made again"
                ));
            }
            let (kept, told) = oneshot::channel();
            let entry = Journaled::Began {
                slot: slot.clone(),
                server: server.to_owned(),
                tool: tool.to_owned(),
            };
            // A journal no longer kept (the task ended) is no reason.
            if self
                .steps
                .send(Step {
                    entry,
                    kept: Some(kept),
                })
                .is_err()
            {
                return Ok(());
            }
            match told.await {
                Ok(Err(why)) => Err(format!(
                    "call {slot} is not made: the task's journal could not record it first ({why})"
                )),
                _ => Ok(()),
            }
        }
        .boxed()
    }

    fn ended(&self, slot: &Slot, value: &Value) {
        let entry = Journaled::Ended {
            slot: slot.clone(),
            value: value.clone(),
        };
        let _ = self.steps.send(Step::sent(entry));
    }
}
