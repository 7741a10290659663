//! A task read back from its Redis hash and its questions.

use std::collections::{BTreeMap, HashMap};

use crate::error::StoreError;
use crate::task::{Outcome, Status, Task, TaskId};

/// The task in `fields` (its hash) and `asks` (its `:asks` hash), or
/// `None` if the hash is empty (missing or expired).
pub(super) fn task(
    id: &TaskId,
    mut fields: HashMap<String, String>,
    asks: HashMap<String, String>,
) -> Result<Option<Task>, StoreError> {
    if fields.is_empty() {
        return Ok(None);
    }
    let corrupt = |what: &str| StoreError::Corrupt(format!("task {id}: {what}"));
    let mut text = |name: &str| {
        fields
            .remove(name)
            .ok_or_else(|| corrupt(&format!("no `{name}` field")))
    };
    let owner = text("owner")?;
    let tool = text("tool")?;
    let status = text("status")?;
    let status = [
        Status::Working,
        Status::InputRequired,
        Status::Completed,
        Status::Failed,
        Status::Cancelled,
    ]
    .into_iter()
    .find(|s| s.as_str() == status)
    .ok_or_else(|| corrupt(&format!("status `{status}`")))?;
    let number = |name: &str| -> Result<u64, StoreError> {
        let value = fields
            .get(name)
            .ok_or_else(|| corrupt(&format!("no `{name}` field")))?;
        value
            .parse()
            .map_err(|_| corrupt(&format!("`{name}` is not a number")))
    };
    let created_at_ms = number("created")?;
    let updated_at_ms = number("updated")?;
    let ttl_ms = number("ttl")?;
    let poll_interval_ms = number("poll")?;
    let cancel_requested = fields.get("cancel").is_some_and(|c| c == "1");
    let outcome = match fields.get("outcome") {
        Some(json) => Some(
            serde_json::from_str::<Outcome>(json).map_err(|e| corrupt(&format!("outcome: {e}")))?,
        ),
        None => None,
    };
    let mut input_requests = BTreeMap::new();
    for (key, json) in asks {
        let request =
            serde_json::from_str(&json).map_err(|e| corrupt(&format!("question `{key}`: {e}")))?;
        input_requests.insert(key, request);
    }
    Ok(Some(Task {
        id: id.clone(),
        owner,
        tool,
        status,
        status_message: fields.remove("message"),
        created_at_ms,
        updated_at_ms,
        ttl_ms,
        poll_interval_ms,
        input_requests,
        outcome,
        cancel_requested,
    }))
}
