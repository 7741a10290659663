//! Who hears about a call's node executions (observer, execution record,
//! progress, tracing spans), and the bookkeeping of the node that is
//! running.

use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonata_core::value::JValue;
use serde_json::Value;

use super::Execution;
use crate::error::NodeError;
use crate::observe::{NodeRecord, NodeType, Observer, ProgressEvent};
use crate::value::to_json;

/// The node that is running, until it completes or fails.
pub(super) struct Pending {
    pub(super) index: usize,
    pub(super) node: &'static str,
    pub(super) node_type: NodeType,
    pub(super) start: Instant,
    pub(super) span: tracing::Span,
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
}

impl Execution {
    pub(crate) fn watch(&mut self, watch: Watch) {
        self.watch = watch;
    }

    /// The execution record, if recording was asked for.
    pub(crate) fn take_records(&mut self) -> Option<Vec<NodeRecord>> {
        self.watch.records.take()
    }

    /// Completes the running node with `output` (observers, record, span).
    pub(super) fn complete(&mut self, output: &JValue) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        // Nobody listening (span off, no observer or record): no clock read.
        if pending.span.is_disabled() && !self.watch.wants_outputs() {
            return;
        }
        let duration = pending.start.elapsed();
        pending
            .span
            .record("duration_ms", duration.as_secs_f64() * 1000.0);
        if self.watch.wants_outputs() {
            let record = self.record_of(&pending, duration, Ok(to_json(output)));
            if let Some(observer) = &self.watch.observer {
                observer.on_node_complete(self.watch.tool, &record);
            }
            if let Some(records) = &mut self.watch.records {
                records.push(record);
            }
        }
    }

    /// Records the failure of the running node (or, when a limit stopped
    /// the call before the node started, of the node that was next).
    pub(crate) fn fail(&mut self, error: &NodeError) {
        let pending = self.pending.take().unwrap_or_else(|| Pending {
            index: self.history.borrow().outputs.len(),
            node: self.current,
            node_type: NodeType::Transform,
            start: Instant::now(),
            span: tracing::Span::none(),
        });
        let duration = pending.start.elapsed();
        pending
            .span
            .record("duration_ms", duration.as_secs_f64() * 1000.0);
        pending.span.record("error", error.message.as_str());
        if self.watch.wants_outputs() {
            let record = self.record_of(&pending, duration, Err(error.message.clone()));
            if let Some(observer) = &self.watch.observer {
                observer.on_node_error(self.watch.tool, &record);
            }
            if let Some(records) = &mut self.watch.records {
                records.push(record);
            }
        }
    }

    fn record_of(
        &self,
        pending: &Pending,
        duration: Duration,
        outcome: Result<Option<Value>, String>,
    ) -> NodeRecord {
        NodeRecord {
            index: pending.index,
            node: pending.node.to_owned(),
            node_type: pending.node_type,
            start: pending.start.duration_since(self.started),
            duration,
            outcome,
        }
    }
}
