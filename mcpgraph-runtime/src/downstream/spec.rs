//! Downstream server settings as the client manager uses them
//! ([`ServerSpec`]): built from the compiled-in definitions, or read from a
//! `--mcp` file, whose entries replace or add servers.
//!
//! This is the third description of a transport, beside the codegen's model
//! and the runtime's `TransportDef`: the layering keeps them apart, and the
//! `definitions` test of the tests crate pins that they agree.

use std::time::Duration;

use serde_json::Value;

use super::ServerAuth;
use crate::error::StartupError;
use crate::meta::{ServerDef, TransportDef};

/// Default for one downstream call (FORMAT.md: `timeoutMs`).
const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// Default for the ping that probes a suspect connection (FORMAT.md:
/// `pingTimeoutMs`).
const DEFAULT_PING_TIMEOUT_MS: u64 = 1_000;

/// A downstream server's settings, owned, as compiled in or overridden.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSpec {
    /// Key under `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: TransportSpec,
    /// Per-call timeout.
    pub timeout_ms: Option<u64>,
    /// Deadline of the ping that probes a suspect connection.
    pub ping_timeout_ms: Option<u64>,
    /// `auth`: OAuth for an `http` or `sse` server.
    pub auth: Option<ServerAuth>,
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
        /// `inheritEnv`: names of our environment variables passed through
        /// beside the default allow-list (see `child_env`).
        inherit_env: Vec<String>,
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

impl ServerSpec {
    /// The bound on connecting and on each call (`timeoutMs`).
    pub(crate) fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    /// The deadline of the ping that probes a suspect connection
    /// (`pingTimeoutMs`).
    pub(crate) fn ping_timeout(&self) -> Duration {
        Duration::from_millis(self.ping_timeout_ms.unwrap_or(DEFAULT_PING_TIMEOUT_MS))
    }
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
                inherit_env,
            } => TransportSpec::Stdio {
                command: command.to_owned(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                cwd: cwd.map(str::to_owned),
                env: pairs(env),
                inherit_env: inherit_env.iter().map(|n| (*n).to_owned()).collect(),
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
            ping_timeout_ms: def.ping_timeout_ms,
            auth: def.auth.map(ServerAuth::compiled),
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
    let positive = |key: &str| -> Result<Option<u64>, String> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|&n| n > 0)
                .map(Some)
                .ok_or_else(|| format!("`{key}` must be a positive integer")),
        }
    };
    let timeout_ms = positive("timeoutMs")?;
    let ping_timeout_ms = positive("pingTimeoutMs")?;
    let kind = string("type")?.unwrap_or_else(|| "stdio".to_owned());
    let http = matches!(
        kind.as_str(),
        "streamableHttp" | "http" | "streamable-http" | "sse"
    );
    if http && !crate::downstream::features::HTTP_CLIENT {
        return Err(crate::downstream::features::missing_http_client(&kind));
    }
    let auth = match obj.get("auth") {
        None => None,
        Some(_) if kind == "stdio" => return Err("`auth` is for `http` and `sse` servers".into()),
        Some(json) => Some(ServerAuth::from_json(json.clone())?),
    };
    if let Some(auth) = &auth {
        auth.check_transport(kind == "sse")?;
    }
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
            inherit_env: inherit_env(obj.get("inheritEnv"))?,
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
        ping_timeout_ms,
        auth,
    })
}

/// `inheritEnv` of a `--mcp` entry: variable names, as the codegen
/// accepts them (letters, digits and `_`, not starting with a digit).
fn inherit_env(value: Option<&Value>) -> Result<Vec<String>, String> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let items = value
        .as_array()
        .ok_or("`inheritEnv` must be an array of variable names")?;
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(name) if super::child_env::is_env_name(name) => Ok(name.to_owned()),
            Some(name) => Err(format!(
                "`inheritEnv`: `{name}` is not an environment variable name \
                 (letters, digits and `_`, not starting with a digit)"
            )),
            None => Err("`inheritEnv` must be an array of variable names".to_owned()),
        })
        .collect()
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
    #[cfg(feature = "http-client")]
    fn override_replaces_and_adds() {
        let defs = [ServerDef {
            name: "fs",
            transport: TransportDef::Stdio {
                command: "npx",
                args: &["-y", "x"],
                cwd: None,
                env: &[],
                inherit_env: &[],
            },
            timeout_ms: None,
            ping_timeout_ms: None,
            auth: None,
        }];
        let over = parse_override(
            r#"{"mcpServers": {"fs": {"command": "node", "args": ["a.js"], "timeoutMs": 5, "pingTimeoutMs": 7,
                       "inheritEnv": ["AWS_PROFILE"]},
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
                env: vec![],
                inherit_env: vec!["AWS_PROFILE".into()],
            }
        );
        assert_eq!(specs[0].timeout_ms, Some(5));
        assert_eq!(specs[0].ping_timeout_ms, Some(7));
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
        for bad in [r#""HOME""#, "[1]", r#"["A=B"]"#, r#"["9X"]"#, r#"[""]"#] {
            let text =
                format!(r#"{{"mcpServers": {{"x": {{"command": "c", "inheritEnv": {bad}}}}}}}"#);
            let err = parse_override(&text).unwrap_err();
            assert!(err.0.contains("`inheritEnv`"), "{bad}: {err}");
        }
    }

    /// An `http`/`sse` server in a `--mcp` file is read with the
    /// `http-client` feature, and refused naming it without
    /// (`cargo test -p mcpgraph-runtime --no-default-features` runs that
    /// half; scripts/starter-check.sh runs it end to end).
    #[test]
    fn http_servers_need_http_client() {
        for kind in ["http", "streamableHttp", "streamable-http", "sse"] {
            let text = format!(
                r#"{{"mcpServers": {{"web": {{"type": "{kind}", "url": "http://127.0.0.1:1/mcp"}}}}}}"#
            );
            let parsed = parse_override(&text);
            assert_eq!(
                parsed.is_ok(),
                crate::downstream::features::HTTP_CLIENT,
                "{kind}: {parsed:?}"
            );
            if let Err(e) = parsed {
                assert!(
                    e.0.contains(&format!(
                        "server `web`: a `type: {kind}` server needs mcpgraph's `http-client` feature"
                    )),
                    "{e}"
                );
            }
        }
        assert!(
            parse_override(r#"{"mcpServers": {"x": {"type": "ftp"}}}"#)
                .unwrap_err()
                .0
                .contains("unknown `type` `ftp`")
        );
    }
}
