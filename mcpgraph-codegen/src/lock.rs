//! The schema lock: what the downstream servers of a graph looked like when
//! `mcpgraph lock` listed them (`<graph>.lock.json`, committed beside the
//! graph file), and how a new listing differs from it ([`drift`]).
//!
//! The file is canonical JSON: keys sorted at every depth, two-space
//! indentation, a final newline. Writing the same listing twice gives the
//! same bytes, so a re-lock with nothing changed leaves no diff.

pub mod check;
pub mod drift;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The version of the lock file's format, written as `lockVersion`.
pub const LOCK_VERSION: u64 = 1;

/// A graph's lock: per downstream server, its tools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lock {
    /// By server name (the keys of the graph's `mcpServers`).
    pub servers: BTreeMap<String, ServerLock>,
}

/// One server as listed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerLock {
    /// The `serverInfo` of its `initialize` result, as sent.
    pub server_info: Value,
    /// The protocol version the handshake agreed on.
    pub protocol_version: String,
    /// Every tool `tools/list` gave (all pages), by name.
    pub tools: BTreeMap<String, ToolLock>,
}

/// One tool as listed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolLock {
    /// `title`, if the tool has one.
    pub title: Option<String>,
    /// `description`, if the tool has one.
    pub description: Option<String>,
    /// `inputSchema`.
    pub input_schema: Value,
    /// `outputSchema`, if the tool declares one.
    pub output_schema: Option<Value>,
    /// `annotations`, if any.
    pub annotations: Option<Value>,
}

/// Where the lock of `graph` is: beside it, named after its file stem
/// (`tools/graph.yaml` → `tools/graph.lock.json`).
pub fn lock_path(graph: &Path) -> PathBuf {
    let stem = graph.file_stem().unwrap_or_default().to_string_lossy();
    graph.with_file_name(format!("{stem}.lock.json"))
}

impl ToolLock {
    /// The lock entry of one tool of a `tools/list` result (a `Tool` object).
    pub fn from_listed(tool: &Value) -> Self {
        let text = |key: &str| tool.get(key).and_then(Value::as_str).map(str::to_owned);
        let value = |key: &str| tool.get(key).filter(|v| !v.is_null()).cloned();
        ToolLock {
            title: text("title"),
            description: text("description"),
            input_schema: value("inputSchema").unwrap_or_else(|| Value::Object(Map::new())),
            output_schema: value("outputSchema"),
            annotations: value("annotations"),
        }
    }

    fn to_value(&self) -> Value {
        let mut map = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                map.insert(key.to_owned(), value);
            }
        };
        put("title", self.title.clone().map(Value::String));
        put("description", self.description.clone().map(Value::String));
        put("inputSchema", Some(self.input_schema.clone()));
        put("outputSchema", self.output_schema.clone());
        put("annotations", self.annotations.clone());
        Value::Object(map)
    }

    fn from_value(name: &str, value: &Value) -> Result<Self, LockError> {
        let tool = name.to_owned();
        if !value.is_object() {
            return Err(LockError::NotAnObject { tool });
        }
        let lock = ToolLock::from_listed(value);
        if !lock.input_schema.is_object() {
            return Err(LockError::NoInputSchema { tool });
        }
        Ok(lock)
    }
}

/// Why a lock file's text does not read. The message does not name the
/// file: the caller does.
#[derive(Debug)]
#[non_exhaustive]
pub enum LockError {
    /// It is not JSON.
    Json(serde_json::Error),
    /// It has no `lockVersion`.
    NoVersion,
    /// Its `lockVersion` is another than this mcpgraph reads.
    Version(u64),
    /// It has no `servers` object.
    NoServers,
    /// A server has no `tools` object.
    NoTools {
        /// The server's name.
        server: String,
    },
    /// A tool's entry is not an object.
    NotAnObject {
        /// The tool's name.
        tool: String,
    },
    /// A tool's entry has no `inputSchema` object.
    NoInputSchema {
        /// The tool's name.
        tool: String,
    },
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Json(e) => write!(f, "not JSON: {e}"),
            Self::NoVersion => f.write_str("no `lockVersion`"),
            Self::Version(other) => write!(
                f,
                "lockVersion {other} is not known (this mcpgraph reads {LOCK_VERSION}); \
                 re-run `mcpgraph lock`"
            ),
            Self::NoServers => f.write_str("no `servers` object"),
            Self::NoTools { server } => write!(f, "server `{server}` has no `tools` object"),
            Self::NotAnObject { tool } => write!(f, "tool `{tool}` is not an object"),
            Self::NoInputSchema { tool } => write!(f, "tool `{tool}` has no `inputSchema` object"),
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Json(e) => Some(e),
            _ => None,
        }
    }
}

impl Lock {
    /// Only the servers and tools `file` calls (from `mcp` nodes, `parallel`
    /// branches and `forEach` calls): what a compiled server checks its
    /// downstream servers against.
    pub fn called_by(&self, file: &crate::model::GraphFile) -> Lock {
        let mut out = Lock::default();
        for call in drift::uses(file) {
            let Some(server) = self.servers.get(&call.server) else {
                continue;
            };
            let Some(tool) = server.tools.get(&call.tool) else {
                continue;
            };
            let entry = out
                .servers
                .entry(call.server)
                .or_insert_with(|| ServerLock {
                    server_info: server.server_info.clone(),
                    protocol_version: server.protocol_version.clone(),
                    tools: BTreeMap::new(),
                });
            entry.tools.insert(call.tool, tool.clone());
        }
        out
    }

    /// The file's text: canonical JSON (see the module docs).
    pub fn to_json(&self) -> String {
        let servers: Map<String, Value> = self
            .servers
            .iter()
            .map(|(name, server)| {
                let tools: Map<String, Value> = server
                    .tools
                    .iter()
                    .map(|(name, tool)| (name.clone(), tool.to_value()))
                    .collect();
                let mut entry = Map::new();
                entry.insert("serverInfo".into(), server.server_info.clone());
                entry.insert(
                    "protocolVersion".into(),
                    Value::String(server.protocol_version.clone()),
                );
                entry.insert("tools".into(), Value::Object(tools));
                (name.clone(), Value::Object(entry))
            })
            .collect();
        let mut root = Map::new();
        root.insert("lockVersion".into(), LOCK_VERSION.into());
        root.insert("servers".into(), Value::Object(servers));
        let mut text =
            serde_json::to_string_pretty(&canonical(Value::Object(root))).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a lock file's text. The error says what is wrong, without the
    /// file's name (the caller has it).
    pub fn from_json(text: &str) -> Result<Self, LockError> {
        let root: Value = serde_json::from_str(text).map_err(LockError::Json)?;
        match root.get("lockVersion").and_then(Value::as_u64) {
            Some(LOCK_VERSION) => {}
            Some(other) => return Err(LockError::Version(other)),
            None => return Err(LockError::NoVersion),
        }
        let Some(servers) = root.get("servers").and_then(Value::as_object) else {
            return Err(LockError::NoServers);
        };
        let mut lock = Lock::default();
        for (name, server) in servers {
            let tools = server
                .get("tools")
                .and_then(Value::as_object)
                .ok_or_else(|| LockError::NoTools {
                    server: name.clone(),
                })?;
            let tools = tools
                .iter()
                .map(|(tool, value)| Ok((tool.clone(), ToolLock::from_value(tool, value)?)))
                .collect::<Result<_, LockError>>()?;
            lock.servers.insert(
                name.clone(),
                ServerLock {
                    server_info: server.get("serverInfo").cloned().unwrap_or(Value::Null),
                    protocol_version: server
                        .get("protocolVersion")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    tools,
                },
            );
        }
        Ok(lock)
    }
}

/// `value` with every object's keys in sorted order, whatever order
/// serde_json's map keeps. Walks without recursion.
fn canonical(value: Value) -> Value {
    // Post-order: each container is rebuilt once its children are.
    enum Step {
        Visit(Value),
        Array(usize),
        Object(Vec<String>),
    }
    let mut steps = vec![Step::Visit(value)];
    let mut done: Vec<Value> = Vec::new();
    while let Some(step) = steps.pop() {
        match step {
            Step::Visit(Value::Array(items)) => {
                steps.push(Step::Array(items.len()));
                steps.extend(items.into_iter().rev().map(Step::Visit));
            }
            Step::Visit(Value::Object(map)) => {
                let mut entries: Vec<(String, Value)> = map.into_iter().collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                let (keys, values): (Vec<_>, Vec<_>) = entries.into_iter().unzip();
                steps.push(Step::Object(keys));
                steps.extend(values.into_iter().rev().map(Step::Visit));
            }
            Step::Visit(scalar) => done.push(scalar),
            Step::Array(len) => {
                let items = done.split_off(done.len() - len);
                done.push(Value::Array(items));
            }
            Step::Object(keys) => {
                let values = done.split_off(done.len() - keys.len());
                done.push(Value::Object(keys.into_iter().zip(values).collect()));
            }
        }
    }
    done.pop().unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Lock {
        let tool = ToolLock::from_listed(&json!({
            "name": "echo",
            "description": "Echoes",
            "inputSchema": {"type": "object", "required": ["text"],
                            "properties": {"text": {"type": "string"}}},
            "annotations": {"readOnlyHint": true},
        }));
        let mut lock = Lock::default();
        lock.servers.insert(
            "s".into(),
            ServerLock {
                server_info: json!({"version": "1", "name": "s"}),
                protocol_version: "2025-06-18".into(),
                tools: BTreeMap::from([("echo".into(), tool)]),
            },
        );
        lock
    }

    #[test]
    fn the_file_is_sorted_stable_and_read_back() {
        let text = sample().to_json();
        assert!(text.ends_with("}\n"));
        let positions: Vec<usize> = ["\"lockVersion\"", "\"servers\"", "\"name\"", "\"version\""]
            .iter()
            .map(|key| text.find(key).unwrap())
            .collect();
        assert!(positions.is_sorted(), "{text}");
        let back = Lock::from_json(&text).unwrap();
        assert_eq!(back, sample());
        assert_eq!(back.to_json(), text);
    }

    #[test]
    fn a_bad_file_says_what_is_wrong() {
        let err = |text: &str| Lock::from_json(text).unwrap_err().to_string();
        assert_eq!(err("{}"), "no `lockVersion`");
        assert!(err(r#"{"lockVersion": 9, "servers": {}}"#).contains("lockVersion 9 is not known"));
        let text = r#"{"lockVersion": 1, "servers": {"s": {"tools": {"t": 1}}}}"#;
        assert_eq!(err(text), "tool `t` is not an object");
    }

    #[test]
    fn the_lock_sits_beside_the_graph() {
        assert_eq!(
            lock_path(Path::new("tools/graph.yaml")),
            Path::new("tools/graph.lock.json")
        );
    }
}
