//! The bookkeeping of a fan-out node's calls as each ends: its record in
//! the execution record, its output held to the value budgets, a progress
//! event, and a yield now and then.

use std::time::Instant;

use jsonata_core::value::JValue;

use crate::error::{ErrorKind, Limit, NodeError};
use crate::exec::Execution;
use crate::observe::{NodeRecord, NodeType, ProgressEvent};
use mcpgraph_expr::value::measure;

impl Execution {
    /// The execution record's entry for one call of the running node,
    /// started at `began`.
    pub(super) fn record_part(
        &mut self,
        part: String,
        began: Instant,
        outcome: &Result<JValue, NodeError>,
    ) {
        let (index, node_type) = self
            .pending
            .as_ref()
            .map_or((0, NodeType::Parallel), |p| (p.index, p.node_type));
        let record = NodeRecord {
            index,
            node: self.current.to_owned(),
            node_type,
            start: began.duration_since(self.started),
            duration: began.elapsed(),
            input: None,
            outcome: match outcome {
                Ok(value) => Ok(crate::exec::to_json(value)),
                Err(e) => Err(e.clone()),
            },
            part: Some(part),
        };
        self.watch.part(record);
    }

    /// Holds the `i`th call's output to `maxValueDepth`, and the outputs
    /// so far (`before` bytes, then this one) to `maxValueBytes`.
    pub(super) fn measure_part(
        &self,
        value: &JValue,
        i: usize,
        before: u64,
    ) -> Result<u64, NodeError> {
        let (depth, max) = (self.limits.max_value_depth, self.limits.max_value_bytes);
        measure(value, depth, max.saturating_sub(before)).map_err(|over| {
            let what = format!("the output of call {i} and those before it");
            match over {
                mcpgraph_expr::value::Oversize::Bytes(_) => self.error(
                    ErrorKind::Limit(Limit::ValueBytes),
                    format!(
                        "Value limit exceeded: {what} are larger than maxValueBytes ({max} bytes)"
                    ),
                ),
                over => self.oversize(&what, &over),
            }
        })
    }

    /// A progress event for each call done (`done` of `count`), naming
    /// the first three calls still running (`live`, named by `part`).
    pub(super) fn part_done(
        &self,
        done: usize,
        count: usize,
        live: &std::collections::BTreeSet<usize>,
        part: &impl Fn(usize) -> String,
    ) {
        let Some(progress) = &self.watch.progress else {
            return;
        };
        let branches = (self.pending.as_ref()).is_none_or(|p| p.node_type == NodeType::Parallel);
        let mut message = format!("{done} of {count} calls done");
        if !live.is_empty() {
            let kind = match (branches, live.len()) {
                (true, 1) => "branch",
                (true, _) => "branches",
                (false, 1) => "item",
                (false, _) => "items",
            };
            let name = |&i: &usize| {
                if branches {
                    format!("`{}`", part(i))
                } else {
                    part(i)
                }
            };
            let names: Vec<String> = live.iter().take(3).map(name).collect();
            message += &format!("; running {kind} {}", names.join(", "));
            if live.len() > 3 {
                message += &format!(" and {} more", live.len() - 3);
            }
        }
        let _ = progress.send(ProgressEvent {
            progress: self.executed.get() as f64,
            node: self.current,
            message: Some(message),
        });
    }

    /// Every `YIELD_EVERY` of running, lets the worker's other tasks run
    /// (calls that finish at once would otherwise never give way).
    pub(super) async fn pace(&mut self) {
        let now = Instant::now();
        if now.duration_since(self.yielded) >= crate::exec::YIELD_EVERY {
            tokio::task::yield_now().await;
            self.yielded = Instant::now();
        }
    }
}
