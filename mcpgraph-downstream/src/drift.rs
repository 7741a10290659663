//! The run-time side of the schema lock: a compiled graph carries the lock
//! entries of the tools it calls (`Graph::LOCK`), and the first call on
//! each connection compares them with what the server lists now. A tool
//! that is gone, or whose input or output schema changed in more than its
//! descriptive text, is logged as drift; under `--strict-lock` the calls
//! that use it fail instead of sending a request the server may reject,
//! and so do calls to a server whose tools cannot be listed (see
//! [`DriftCheck`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use super::listing::{ListingError, all_tools};
use rmcp::{Peer, RoleClient};

/// Per server, per tool: the locked `inputSchema` and `outputSchema`.
#[derive(Debug, Default)]
pub(crate) struct LockedTools(HashMap<String, HashMap<String, Value>>);

impl LockedTools {
    /// Reads the JSON the generator embeds (the lock file's shape).
    pub(crate) fn parse(text: &str) -> Result<Self, LockTextError> {
        let root: Value = serde_json::from_str(text).map_err(LockTextError::Json)?;
        let servers = root
            .get("servers")
            .and_then(Value::as_object)
            .ok_or(LockTextError::NoServers)?;
        let servers = servers
            .iter()
            .map(|(name, server)| {
                let tools = server
                    .get("tools")
                    .and_then(Value::as_object)
                    .map(|tools| tools.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default();
                (name.clone(), tools)
            })
            .collect();
        Ok(Self(servers))
    }

    /// The locked tools of `server`, if the lock has it.
    pub(crate) fn server(&self, server: &str) -> Option<&HashMap<String, Value>> {
        self.0.get(server)
    }
}

/// Why the lock a graph embeds does not read (a bug of the generator's).
#[derive(Debug)]
pub(crate) enum LockTextError {
    /// It is not JSON.
    Json(serde_json::Error),
    /// It has no `servers` object.
    NoServers,
}

impl std::fmt::Display for LockTextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Json(e) => e.fmt(f),
            Self::NoServers => f.write_str("no `servers` object"),
        }
    }
}

/// The locked tools a server changed, each with why.
type Changed = Arc<ChangedTools>;

/// Per changed tool, why it counts as changed.
type ChangedTools = BTreeMap<String, String>;

/// The comparison of one connection's server with the lock, made on the
/// first call that needs it and kept for the connection's life once made.
///
/// A server whose tools cannot be listed (an error, no answer within its
/// `timeoutMs`, pagination that does not end) was not compared. By default
/// that is a warning, once per connection, and calls go on. Under
/// `--strict-lock` it refuses the call, and is not kept: the calls that
/// queued behind the failed listing share its error (with N calls waiting
/// on a server whose listing hangs, each waits one `timeoutMs`, not N),
/// and the next call after them lists again, so a passing fault does not
/// refuse calls for the rest of the connection's life.
#[derive(Default)]
pub(super) struct DriftCheck {
    /// The last comparison's outcome; `None` before the first.
    state: tokio::sync::Mutex<Option<Result<Changed, ListingError>>>,
    /// Comparisons ended so far, to tell a caller that queued behind one.
    ended: AtomicU64,
}

impl DriftCheck {
    /// The tools of `locked` that changed on the server `peer` is
    /// connected to, with why; under `strict`, the error of a listing
    /// that failed.
    pub(super) async fn changed(
        &self,
        server: &str,
        peer: &Peer<RoleClient>,
        locked: &HashMap<String, Value>,
        timeout: Duration,
        strict: bool,
    ) -> Result<Changed, ListingError> {
        let arrived = self.ended.load(Ordering::SeqCst);
        let mut state = self.state.lock().await;
        match &*state {
            Some(Ok(changed)) => return Ok(Arc::clone(changed)),
            // Warned of when it failed.
            Some(Err(_)) if !strict => return Ok(Arc::default()),
            Some(Err(e)) if self.ended.load(Ordering::SeqCst) != arrived => return Err(e.clone()),
            _ => {}
        }
        let outcome = changed_tools(server, peer, locked, timeout, strict)
            .await
            .map(Arc::new);
        self.ended.fetch_add(1, Ordering::SeqCst);
        *state = Some(outcome.clone());
        match outcome {
            Err(_) if !strict => Ok(Arc::default()),
            outcome => outcome,
        }
    }
}

/// The tools of `locked` that changed on the server of `peer`, with why,
/// or why its tools could not be listed.
async fn changed_tools(
    server: &str,
    peer: &Peer<RoleClient>,
    locked: &HashMap<String, Value>,
    timeout: Duration,
    strict: bool,
) -> Result<ChangedTools, ListingError> {
    let listed = match all_tools(peer, timeout).await {
        Ok(tools) => tools,
        Err(e) => {
            if strict {
                warn_redacted!(
                    server,
                    "cannot compare the tools of `{server}` with the lock: {e}; its calls are refused under --strict-lock until a listing succeeds"
                );
            } else {
                warn_redacted!(
                    server,
                    "cannot compare the tools of `{server}` with the lock: {e}; not compared"
                );
            }
            return Err(e);
        }
    };
    let listed: HashMap<String, Value> = listed
        .iter()
        .filter_map(|tool| Some((tool.name.to_string(), serde_json::to_value(tool).ok()?)))
        .collect();
    let changed = compare(locked, &listed);
    if !changed.is_empty() {
        let list: Vec<String> = changed
            .iter()
            .map(|(tool, why)| format!("`{tool}` ({why})"))
            .collect();
        warn_redacted!(
            server,
            "downstream server `{server}` changed since the graph's lock: {}; re-run `mcpgraph lock` and rebuild",
            list.join(", ")
        );
    }
    Ok(changed)
}

/// The locked tools that `listed` lacks or describes differently.
fn compare(locked: &HashMap<String, Value>, listed: &HashMap<String, Value>) -> ChangedTools {
    let mut changed = BTreeMap::new();
    for (name, entry) in locked {
        let Some(now) = listed.get(name) else {
            changed.insert(name.clone(), "no longer listed".to_owned());
            continue;
        };
        for (key, what) in [
            ("inputSchema", "input schema"),
            ("outputSchema", "output schema"),
        ] {
            let before = entry.get(key).map(essential);
            let after = now.get(key).filter(|v| !v.is_null()).map(essential);
            if before != after {
                changed.insert(name.clone(), format!("its {what} changed"));
                break;
            }
        }
    }
    changed
}

/// `schema` without the keywords that only describe (`description`,
/// `title`, `examples`, `$comment`), at every depth: servers reword those
/// freely. The names in `properties` (and the like) are not keywords: a
/// property named `title` stays.
fn essential(schema: &Value) -> Value {
    const NAMED: [&str; 4] = ["properties", "patternProperties", "$defs", "definitions"];
    let mut out = schema.clone();
    let mut stack = vec![&mut out];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for key in ["description", "title", "examples", "$comment"] {
                    map.remove(key);
                }
                for (key, child) in map.iter_mut() {
                    if NAMED.contains(&key.as_str())
                        && let Value::Object(named) = child
                    {
                        stack.extend(named.values_mut());
                    } else {
                        stack.push(child);
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools(entries: Value) -> HashMap<String, Value> {
        entries
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    #[test]
    fn only_essential_changes_count() {
        let locked = tools(json!({
            "read": {"inputSchema": {"type": "object", "description": "old words",
                "properties": {"path": {"type": "string", "description": "where"},
                               "title": {"type": "string"}}}},
            "gone": {"inputSchema": {"type": "object"}},
            "typed": {"inputSchema": {"type": "object", "properties": {"n": {"type": "number"}}}},
        }));
        let listed = tools(json!({
            "read": {"inputSchema": {"type": "object", "description": "new words",
                "properties": {"path": {"type": "string", "description": "where to read"},
                               "title": {"type": "string"}}}},
            "typed": {"inputSchema": {"type": "object", "properties": {"n": {"type": "string"}}}},
        }));
        let changed = compare(&locked, &listed);
        assert_eq!(
            changed,
            BTreeMap::from([
                ("gone".to_owned(), "no longer listed".to_owned()),
                ("typed".to_owned(), "its input schema changed".to_owned()),
            ])
        );
        // A property named `title` is not a keyword: removing it counts.
        let mut fewer = listed.clone();
        fewer.get_mut("read").unwrap()["inputSchema"]["properties"]
            .as_object_mut()
            .unwrap()
            .remove("title");
        assert!(compare(&locked, &fewer).contains_key("read"));
    }
}
