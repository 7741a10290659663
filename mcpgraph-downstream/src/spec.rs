//! Downstream server settings as the client manager uses them: the graph
//! file's servers (`mcpgraph-format`'s [`Server`](ServerSpec), compiled in
//! by the generator), and those of a `--mcp` file, whose entries replace or
//! add servers.

use serde_json::Value;

use mcpgraph_runtime::StartupError;

pub use mcpgraph_runtime::{ServerSpec, TransportSpec, host::effective_specs};

/// Reads a `--mcp` file: `{"mcpServers": {name: {...}}}` in the usual
/// shape of MCP client configurations. Without the `http-client` feature,
/// an `http` or `sse` server is refused, naming the feature.
pub fn parse_override(text: &str) -> Result<Vec<ServerSpec>, StartupError> {
    let err = |m: String| StartupError(format!("--mcp file: {m}"));
    if !crate::features::HTTP_CLIENT
        && let Ok(doc) = serde_json::from_str::<Value>(text)
        && let Some(servers) = doc.get("mcpServers").and_then(Value::as_object)
    {
        for (name, entry) in servers {
            if let Some(kind) = entry.get("type").and_then(Value::as_str)
                && TransportSpec::is_http(kind)
            {
                let why = crate::features::missing_http_client(kind);
                return Err(err(format!("server `{name}`: {why}")));
            }
        }
    }
    let specs = mcpgraph_format::parse_mcp_file(text).map_err(|e| err(e.to_string()))?;
    for spec in &specs {
        if let Some(auth) = &spec.auth {
            super::oauth::check_issuer(auth)
                .map_err(|e| err(format!("server `{}`: {e}", spec.name)))?;
        }
    }
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "http-client")]
    fn override_replaces_and_adds() {
        let compiled = vec![ServerSpec {
            name: "fs".into(),
            transport: TransportSpec::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "x".into()],
                cwd: None,
                env: vec![],
                inherit_env: vec![],
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
        let specs = effective_specs(compiled, over);
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
                crate::features::HTTP_CLIENT,
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
