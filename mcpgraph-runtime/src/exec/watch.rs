//! Who hears about a call's node executions (observer, execution record,
//! progress, tracing spans), and the bookkeeping of the node that is
//! running.

use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonata_core::value::JValue;
use serde_json::Value;

use crate::error::NodeError;
use crate::observe::{NodeRecord, NodeType, Observer, ProgressEvent};
use mcpgraph_expr::json::to_json;

/// The node that is running, until it completes or fails.
pub(super) struct Pending {
    pub(super) index: usize,
    pub(super) node: &'static str,
    pub(super) node_type: NodeType,
    pub(super) start: Instant,
    pub(super) span: tracing::Span,
    /// What an `mcp` node sent, when the execution record is kept.
    pub(super) input: Option<Value>,
}

/// Who wants to hear about node executions.
#[derive(Clone, Default)]
pub(crate) struct Watch {
    pub(crate) tool: &'static str,
    pub(crate) observer: Option<Arc<dyn Observer>>,
    pub(crate) records: Option<Vec<NodeRecord>>,
    pub(crate) progress: Option<tokio::sync::mpsc::UnboundedSender<ProgressEvent>>,
}

impl Watch {
    fn wants_outputs(&self) -> bool {
        self.observer.is_some() || self.records.is_some()
    }

    /// Node `pending` completed with `output` (observers, record, span);
    /// `started` is when the call started.
    pub(super) fn complete(&mut self, pending: Pending, started: Instant, output: &JValue) {
        // Nobody listening (span off, no observer or record): no clock read.
        if pending.span.is_disabled() && !self.wants_outputs() {
            return;
        }
        let duration = pending.start.elapsed();
        pending
            .span
            .record("duration_ms", duration.as_secs_f64() * 1000.0);
        if self.wants_outputs() {
            let record = record_of(&pending, started, duration, Ok(to_json(output)));
            if let Some(observer) = &self.observer {
                observer.on_node_complete(self.tool, &record);
            }
            if let Some(records) = &mut self.records {
                records.push(record);
            }
        }
    }

    /// Whether the execution record is kept (`call --trace`, `test`).
    pub(super) fn keeps_records(&self) -> bool {
        self.records.is_some()
    }

    /// Adds the record of one call of a `parallel` or `forEach` node: the
    /// record only (observers hear of nodes).
    pub(super) fn part(&mut self, record: NodeRecord) {
        if let Some(records) = &mut self.records {
            records.push(record);
        }
    }

    /// Node `pending` failed with `error`.
    pub(super) fn fail(&mut self, pending: Pending, started: Instant, error: &NodeError) {
        let duration = pending.start.elapsed();
        pending
            .span
            .record("duration_ms", duration.as_secs_f64() * 1000.0);
        pending.span.record("error", error.message());
        if self.wants_outputs() {
            let record = record_of(&pending, started, duration, Err(error.clone()));
            if let Some(observer) = &self.observer {
                observer.on_node_error(self.tool, &record);
            }
            if let Some(records) = &mut self.records {
                records.push(record);
            }
        }
    }
}

fn record_of(
    pending: &Pending,
    started: Instant,
    duration: Duration,
    outcome: Result<Option<Value>, NodeError>,
) -> NodeRecord {
    NodeRecord {
        index: pending.index,
        node: pending.node.to_owned(),
        node_type: pending.node_type,
        start: pending.start.duration_since(started),
        duration,
        input: pending.input.clone(),
        outcome,
        part: None,
    }
}
