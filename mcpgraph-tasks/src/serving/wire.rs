//! A stored task as the wire's `Task` and `DetailedTask` (MCP 2026-07-28),
//! its times in ISO 8601.

use rmcp::model::{DetailedTask, TaskPayload, TaskStatus};
use serde_json::Value;

use crate::{Outcome, Status, Task};

/// A stored task as the wire's `Task`.
pub(super) fn task(task: &Task) -> rmcp::model::Task {
    let status = match task.status {
        Status::Working => TaskStatus::Working,
        Status::InputRequired => TaskStatus::InputRequired,
        Status::Completed => TaskStatus::Completed,
        Status::Failed => TaskStatus::Failed,
        Status::Cancelled => TaskStatus::Cancelled,
    };
    let mut wire = rmcp::model::Task::new(
        task.id.to_string(),
        status,
        iso(task.created_at_ms),
        iso(task.updated_at_ms),
    )
    .with_ttl_ms(task.ttl_ms)
    .with_poll_interval_ms(task.poll_interval_ms);
    if let Some(message) = &task.status_message {
        wire = wire.with_status_message(message.clone());
    }
    wire
}

/// A stored task with what its status carries.
pub(super) fn detailed(task: Task) -> DetailedTask {
    let payload = match (&task.status, &task.outcome) {
        (Status::InputRequired, _) => TaskPayload::InputRequired {
            input_requests: task
                .input_requests
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), serde_json::from_value(v.clone()).ok()?)))
                .collect(),
        },
        (Status::Completed, Some(Outcome::Result(Value::Object(result)))) => {
            TaskPayload::Completed {
                result: result.clone(),
            }
        }
        (Status::Failed, Some(Outcome::Error { code, message })) => TaskPayload::Failed {
            error: serde_json::json!({ "code": code, "message": message })
                .as_object()
                .cloned()
                .unwrap_or_default(),
        },
        (Status::Cancelled, _) => TaskPayload::Cancelled,
        _ => TaskPayload::Working,
    };
    DetailedTask::new(self::task(&task), payload)
}

/// Unix milliseconds as ISO 8601 (UTC, milliseconds).
fn iso(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
