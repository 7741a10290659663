//! Connections to the downstream MCP servers a graph calls.
//!
//! Each server is connected lazily, on the first call that needs it, and
//! that one connection is shared by every concurrent call. Settings are the
//! compiled-in ones unless `--mcp FILE` replaced them; `${VAR}` references
//! are expanded at connect time. This module does not interpret results;
//! `convert` does.

use std::collections::HashMap;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::Value;
use tokio::sync::Mutex;

use crate::env_expand::expand;
use crate::error::StartupError;
use crate::graph::{ServerDef, TransportDef};

/// Default for one downstream call (FORMAT.md: `timeoutMs`).
const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// A downstream server's settings, owned, as compiled in or overridden.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSpec {
    /// Key under `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: TransportSpec,
    /// Per-call timeout.
    pub timeout_ms: Option<u64>,
}

/// How to reach a downstream server.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportSpec {
    /// Child process over stdio.
    Stdio {
        /// Program.
        command: String,
        /// Arguments.
        args: Vec<String>,
        /// Working directory.
        cwd: Option<String>,
        /// Added environment.
        env: Vec<(String, String)>,
    },
    /// Streamable HTTP.
    StreamableHttp {
        /// URL.
        url: String,
        /// Headers.
        headers: Vec<(String, String)>,
    },
    /// Legacy SSE.
    Sse {
        /// URL.
        url: String,
        /// Headers.
        headers: Vec<(String, String)>,
    },
}

impl From<&ServerDef> for ServerSpec {
    fn from(def: &ServerDef) -> Self {
        let pairs = |items: &[(&str, &str)]| {
            items
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let transport = match def.transport {
            TransportDef::Stdio {
                command,
                args,
                cwd,
                env,
            } => TransportSpec::Stdio {
                command: command.to_owned(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                cwd: cwd.map(str::to_owned),
                env: pairs(env),
            },
            TransportDef::StreamableHttp { url, headers } => TransportSpec::StreamableHttp {
                url: url.to_owned(),
                headers: pairs(headers),
            },
            TransportDef::Sse { url, headers } => TransportSpec::Sse {
                url: url.to_owned(),
                headers: pairs(headers),
            },
        };
        Self {
            name: def.name.to_owned(),
            transport,
            timeout_ms: def.timeout_ms,
        }
    }
}

/// Reads a `--mcp` file: `{"mcpServers": {name: {...}}}` in the usual
/// shape of MCP client configurations.
pub fn parse_override(text: &str) -> Result<Vec<ServerSpec>, StartupError> {
    let err = |m: String| StartupError(format!("--mcp file: {m}"));
    let doc: Value = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
    let servers = doc
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or_else(|| err("expected an object with an `mcpServers` object".into()))?;
    servers
        .iter()
        .map(|(name, entry)| {
            spec_from_json(name, entry).map_err(|m| err(format!("server `{name}`: {m}")))
        })
        .collect()
}

fn spec_from_json(name: &str, entry: &Value) -> Result<ServerSpec, String> {
    let obj = entry.as_object().ok_or("expected an object")?;
    let string = |key: &str| -> Result<Option<String>, String> {
        match obj.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let map = |key: &str| -> Result<Vec<(String, String)>, String> {
        match obj.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    _ => Err(format!("`{key}.{k}` must be a string")),
                })
                .collect(),
            Some(_) => Err(format!("`{key}` must be an object of strings")),
        }
    };
    let timeout_ms = match obj.get("timeoutMs") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|&n| n > 0)
                .ok_or("`timeoutMs` must be a positive integer")?,
        ),
    };
    let kind = string("type")?.unwrap_or_else(|| "stdio".to_owned());
    let transport = match kind.as_str() {
        "stdio" => TransportSpec::Stdio {
            command: string("command")?.ok_or("`command` is required for a stdio server")?,
            args: match obj.get("args") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|a| {
                        a.as_str()
                            .map(str::to_owned)
                            .ok_or("`args` must be strings")
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("`args` must be an array of strings".into()),
            },
            cwd: string("cwd")?,
            env: map("env")?,
        },
        "streamableHttp" | "http" | "streamable-http" => TransportSpec::StreamableHttp {
            url: string("url")?.ok_or("`url` is required")?,
            headers: map("headers")?,
        },
        "sse" => TransportSpec::Sse {
            url: string("url")?.ok_or("`url` is required")?,
            headers: map("headers")?,
        },
        other => {
            return Err(format!(
                "unknown `type` `{other}` (expected stdio, sse, streamableHttp, http or streamable-http)"
            ));
        }
    };
    Ok(ServerSpec {
        name: name.to_owned(),
        transport,
        timeout_ms,
    })
}

/// One downstream server and its connection, if one is open.
struct Downstream {
    spec: ServerSpec,
    connection: Mutex<Option<RunningService<RoleClient, ()>>>,
}

/// All downstream servers of a graph.
pub struct ClientManager {
    servers: HashMap<String, Downstream>,
    /// Connections are driven by the multi-threaded runtime, not by the
    /// worker that happened to make the first call.
    runtime: tokio::runtime::Handle,
}

impl ClientManager {
    /// A manager for `specs`; connects nothing yet.
    pub fn new(specs: Vec<ServerSpec>, runtime: tokio::runtime::Handle) -> Self {
        let servers = specs
            .into_iter()
            .map(|spec| {
                (
                    spec.name.clone(),
                    Downstream {
                        spec,
                        connection: Mutex::new(None),
                    },
                )
            })
            .collect();
        Self { servers, runtime }
    }

    /// Calls `tool` on `server`, connecting first if needed. The error
    /// names the server and tool.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<CallToolResult, String> {
        let Some(downstream) = self.servers.get(server) else {
            return Err(format!("no downstream server `{server}` is configured"));
        };
        let peer = {
            let mut connection = downstream.connection.lock().await;
            match connection.as_ref() {
                Some(service) if !service.is_closed() => service.peer().clone(),
                _ => {
                    let spec = downstream.spec.clone();
                    let service = self
                        .runtime
                        .spawn(async move { connect(&spec).await })
                        .await
                        .map_err(|e| format!("connecting to `{server}`: {e}"))?
                        .map_err(|e| format!("cannot start downstream server `{server}`: {e}"))?;
                    let peer = service.peer().clone();
                    *connection = Some(service);
                    peer
                }
            }
        };
        let timeout =
            Duration::from_millis(downstream.spec.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        match tokio::time::timeout(timeout, peer.call_tool_once(params)).await {
            Err(_) => Err(format!(
                "downstream server `{server}` tool `{tool}` did not answer within {} ms",
                timeout.as_millis()
            )),
            Ok(Err(e)) => Err(format!(
                "downstream server `{server}` tool `{tool}` failed: {e}"
            )),
            Ok(Ok(CallToolResponse::Complete(result))) => Ok(result),
            Ok(Ok(_)) => Err(format!(
                "downstream server `{server}` tool `{tool}` asked for input or started a task, which graphs do not support"
            )),
        }
    }

    /// Closes every open connection (stopping child processes).
    pub async fn shutdown(&self) {
        for downstream in self.servers.values() {
            if let Some(service) = downstream.connection.lock().await.take() {
                let _ = service.cancel().await;
            }
        }
    }
}

async fn connect(spec: &ServerSpec) -> Result<RunningService<RoleClient, ()>, String> {
    match &spec.transport {
        TransportSpec::Stdio {
            command,
            args,
            cwd,
            env,
        } => {
            let program = expand(command)?;
            let mut cmd = tokio::process::Command::new(&program);
            for arg in args {
                cmd.arg(expand(arg)?);
            }
            if let Some(cwd) = cwd {
                cmd.current_dir(expand(cwd)?);
            }
            for (key, value) in env {
                cmd.env(key, expand(value)?);
            }
            let transport =
                TokioChildProcess::new(cmd).map_err(|e| format!("cannot run `{program}`: {e}"))?;
            ().serve(transport)
                .await
                .map_err(|e| format!("`{program}` did not complete the MCP handshake: {e}"))
        }
        TransportSpec::StreamableHttp { url, .. } | TransportSpec::Sse { url, .. } => Err(format!(
            "HTTP downstream servers ({url}) are not supported by this build yet"
        )),
    }
}

impl std::fmt::Debug for ClientManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientManager")
            .field("servers", &self.servers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Builds the server list from the compiled-in definitions and an optional
/// override: each override entry replaces the server of the same name or
/// adds one.
pub fn effective_specs(defs: &[ServerDef], overrides: Vec<ServerSpec>) -> Vec<ServerSpec> {
    let mut specs: Vec<ServerSpec> = defs.iter().map(ServerSpec::from).collect();
    for spec in overrides {
        match specs.iter_mut().find(|s| s.name == spec.name) {
            Some(existing) => *existing = spec,
            None => specs.push(spec),
        }
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_replaces_and_adds() {
        let defs = [ServerDef {
            name: "fs",
            transport: TransportDef::Stdio {
                command: "npx",
                args: &["-y", "x"],
                cwd: None,
                env: &[],
            },
            timeout_ms: None,
        }];
        let over = parse_override(
            r#"{"mcpServers": {"fs": {"command": "node", "args": ["a.js"], "timeoutMs": 5},
                "web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"A": "b"}}}}"#,
        )
        .unwrap();
        let specs = effective_specs(&defs, over);
        assert_eq!(specs.len(), 2);
        assert_eq!(
            specs[0].transport,
            TransportSpec::Stdio {
                command: "node".into(),
                args: vec!["a.js".into()],
                cwd: None,
                env: vec![]
            }
        );
        assert_eq!(specs[0].timeout_ms, Some(5));
        assert!(matches!(
            specs[1].transport,
            TransportSpec::StreamableHttp { .. }
        ));
    }

    #[test]
    fn override_errors_name_the_server() {
        let err = parse_override(r#"{"mcpServers": {"x": {"type": "ftp"}}}"#).unwrap_err();
        assert!(
            err.0.contains("server `x`") && err.0.contains("ftp"),
            "{err}"
        );
        assert!(parse_override("[]").is_err());
    }
}
