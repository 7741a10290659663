//! A `--mcp` file: `{"mcpServers": {name: {...}}}` in the usual shape of MCP
//! client configurations. Unlike a graph file, an entry's keys of another
//! server type are ignored (FORMAT.md): such files are shared with other
//! clients.

use std::fmt;

use serde_json::{Map, Value};

use crate::{Auth, Server, Transport, is_env_name};

/// Why a `--mcp` file is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpFileError {
    /// Not JSON: the reader's message.
    Json(String),
    /// No `mcpServers` object.
    NoServers,
    /// An entry is refused.
    Server {
        /// Its key under `mcpServers`.
        name: String,
        /// What is wrong with it.
        message: String,
    },
}

impl fmt::Display for McpFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpFileError::Json(message) => f.write_str(message),
            McpFileError::NoServers => {
                f.write_str("expected an object with an `mcpServers` object")
            }
            McpFileError::Server { name, message } => write!(f, "server `{name}`: {message}"),
        }
    }
}

impl std::error::Error for McpFileError {}

/// What is wrong with one entry.
struct Problem(String);

impl From<&str> for Problem {
    fn from(message: &str) -> Self {
        Problem(message.to_owned())
    }
}

impl From<String> for Problem {
    fn from(message: String) -> Self {
        Problem(message)
    }
}

/// Reads a `--mcp` file's text.
pub fn parse_mcp_file(text: &str) -> Result<Vec<Server>, McpFileError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| McpFileError::Json(e.to_string()))?;
    let servers = doc
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or(McpFileError::NoServers)?;
    servers
        .iter()
        .map(|(name, entry)| {
            server(name, entry).map_err(|Problem(message)| McpFileError::Server {
                name: name.clone(),
                message,
            })
        })
        .collect()
}

/// One entry.
fn server(name: &str, entry: &Value) -> Result<Server, Problem> {
    let obj = entry.as_object().ok_or("expected an object")?;
    let timeout_ms = positive(obj, "timeoutMs")?;
    let ping_timeout_ms = positive(obj, "pingTimeoutMs")?;
    let kind = string(obj, "type")?.unwrap_or_else(|| "stdio".to_owned());
    let auth = match obj.get("auth") {
        None => None,
        Some(_) if kind == "stdio" => return Err("`auth` is for `http` and `sse` servers".into()),
        Some(json) => Some(Auth::from_json(json.clone()).map_err(|e| e.to_string())?),
    };
    if let Some(auth) = &auth {
        auth.check(kind == "sse").map_err(|e| e.to_string())?;
    }
    let transport = match kind.as_str() {
        "stdio" => Transport::Stdio {
            command: string(obj, "command")?.ok_or("`command` is required for a stdio server")?,
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
            cwd: string(obj, "cwd")?,
            env: map(obj, "env")?,
            inherit_env: inherit_env(obj.get("inheritEnv"))?,
        },
        "streamableHttp" | "http" | "streamable-http" => Transport::StreamableHttp {
            url: string(obj, "url")?.ok_or("`url` is required")?,
            headers: map(obj, "headers")?,
        },
        "sse" => Transport::Sse {
            url: string(obj, "url")?.ok_or("`url` is required")?,
            headers: map(obj, "headers")?,
        },
        other => {
            return Err(format!(
                "unknown `type` `{other}` (expected stdio, sse, streamableHttp, http or streamable-http)"
            )
            .into());
        }
    };
    Ok(Server {
        name: name.to_owned(),
        transport,
        timeout_ms,
        ping_timeout_ms,
        auth,
    })
}

/// `key`, a string if given.
fn string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, Problem> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` must be a string").into()),
    }
}

/// `key`, an object of strings, in order.
fn map(obj: &Map<String, Value>, key: &str) -> Result<Vec<(String, String)>, Problem> {
    match obj.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("`{key}.{k}` must be a string").into()),
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be an object of strings").into()),
    }
}

/// `key`, a positive integer if given.
fn positive(obj: &Map<String, Value>, key: &str) -> Result<Option<u64>, Problem> {
    match obj.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&n| n > 0)
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a positive integer").into()),
    }
}

/// `inheritEnv`: variable names, as the generator accepts them (letters,
/// digits and `_`, not starting with a digit).
fn inherit_env(value: Option<&Value>) -> Result<Vec<String>, Problem> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let items = value
        .as_array()
        .ok_or("`inheritEnv` must be an array of variable names")?;
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(name) if is_env_name(name) => Ok(name.to_owned()),
            Some(name) => Err(format!(
                "`inheritEnv`: `{name}` is not an environment variable name \
                 (letters, digits and `_`, not starting with a digit)"
            )
            .into()),
            None => Err("`inheritEnv` must be an array of variable names".into()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_of_every_type() {
        let servers = parse_mcp_file(
            r#"{"mcpServers": {"fs": {"command": "node", "args": ["a.js"], "timeoutMs": 5, "pingTimeoutMs": 7,
                       "inheritEnv": ["AWS_PROFILE"]},
                "web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"A": "b"}}}}"#,
        )
        .unwrap();
        assert_eq!(
            servers[0].transport,
            Transport::Stdio {
                command: "node".into(),
                args: vec!["a.js".into()],
                cwd: None,
                env: vec![],
                inherit_env: vec!["AWS_PROFILE".into()],
            }
        );
        assert_eq!(servers[0].timeout_ms, Some(5));
        assert_eq!(servers[0].ping_timeout_ms, Some(7));
        assert!(matches!(
            servers[1].transport,
            Transport::StreamableHttp { .. }
        ));
    }

    #[test]
    fn errors_name_the_server() {
        let err = parse_mcp_file(r#"{"mcpServers": {"x": {"type": "ftp"}}}"#).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("server `x`") && text.contains("ftp"),
            "{text}"
        );
        assert_eq!(parse_mcp_file("[]"), Err(McpFileError::NoServers));
        for bad in [r#""HOME""#, "[1]", r#"["A=B"]"#, r#"["9X"]"#, r#"[""]"#] {
            let text =
                format!(r#"{{"mcpServers": {{"x": {{"command": "c", "inheritEnv": {bad}}}}}}}"#);
            let err = parse_mcp_file(&text).unwrap_err().to_string();
            assert!(err.contains("`inheritEnv`"), "{bad}: {err}");
        }
    }

    #[test]
    fn auth_is_read_as_a_value() {
        let servers = parse_mcp_file(
            r#"{"mcpServers": {"crm": {"type": "http", "url": "u", "auth": {"grant": "client_credentials",
                "issuer": "https://as", "clientId": "c", "clientSecret": "${S}", "scopes": ["a"]}}}}"#,
        )
        .unwrap();
        let auth = servers[0].auth.as_ref().unwrap();
        assert_eq!(auth.grant, crate::Grant::ClientCredentials);
        assert_eq!(auth.client_secret.as_deref(), Some("${S}"));
        assert_eq!(auth.scopes, ["a"]);
        assert_eq!(auth.token_store(), crate::TokenStore::Memory);
    }
}
