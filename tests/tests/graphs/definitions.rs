//! What the generator and the runtime must agree on: the default execution
//! limits, and a downstream server read from a graph file (the codegen's
//! model, which the generator compiles in) or from a `--mcp` file (the
//! client manager's `ServerSpec`). Both are `mcpgraph-format`'s types; the
//! readers are two (the YAML with positions, the JSON of other clients).

use mcpgraph_codegen::model;
use mcpgraph_downstream::parse_override;
use mcpgraph_runtime::Limits;
use mcpgraph_runtime::{ServerSpec, TransportSpec, host::effective_specs};

/// The codegen's defaults, which it fills in for a file without
/// `executionLimits`, are the runtime's `Limits::default()`. Both types
/// are named `Limits` and derive `Debug`, so comparing their debug text
/// compares every field's name, order and value, and a field added to one
/// side only fails it.
#[test]
fn default_limits_agree() {
    assert_eq!(
        format!("{:?}", model::Limits::default()),
        format!("{:?}", Limits::default())
    );
    assert_eq!(Limits::DEFAULT, Limits::default());
    let file = load(r#"{"x": {"command": "c"}}"#).expect("a file without limits loads");
    assert_eq!(file.limits, model::Limits::default());
}

/// A graph file whose `mcpServers` is `servers` (JSON is YAML too); the
/// error messages when it does not load.
fn load(servers: &str) -> Result<model::GraphFile, String> {
    let yaml = format!(
        "version: \"1.0\"\nserver: {{ name: s, version: \"1.0.0\" }}\nmcpServers: {servers}\n"
    );
    mcpgraph_codegen::load_str(&yaml, "definitions.yaml").map_err(|d| {
        let messages: Vec<&str> = d.items.iter().map(|i| i.message.as_str()).collect();
        messages.join("\n")
    })
}

/// The `--mcp` file whose `mcpServers` is `servers`.
fn read_override(servers: &str) -> Result<Vec<ServerSpec>, String> {
    parse_override(&format!(r#"{{"mcpServers": {servers}}}"#)).map_err(|e| e.to_string())
}

/// Which transport a spec is, naming every field so a new one must be
/// looked at here.
fn kind(spec: &ServerSpec) -> &'static str {
    let ServerSpec {
        name: _,
        transport,
        timeout_ms: _,
        ping_timeout_ms: _,
        auth: _,
    } = spec;
    match transport {
        TransportSpec::Stdio {
            command: _,
            args: _,
            cwd: _,
            env: _,
            inherit_env: _,
        } => "stdio",
        TransportSpec::StreamableHttp { url: _, headers: _ } => "streamableHttp",
        TransportSpec::Sse { url: _, headers: _ } => "sse",
    }
}

/// Entries of every server type, with every key each type takes.
const ACCEPTED: &[(&str, &str)] = &[
    ("stdio", r#"{"command": "c"}"#),
    (
        "stdio",
        r#"{"type": "stdio", "command": "${CMD:-node}", "args": ["a", "${B}"], "cwd": "/w",
            "env": {"K": "v", "L": "${M}"}, "inheritEnv": ["AWS_PROFILE", "_X9"],
            "timeoutMs": 5, "pingTimeoutMs": 6}"#,
    ),
    (
        "streamableHttp",
        r#"{"type": "streamableHttp", "url": "https://h/mcp", "headers": {"A": "b ${T}"},
            "timeoutMs": 7, "pingTimeoutMs": 8}"#,
    ),
    ("streamableHttp", r#"{"type": "http", "url": "u"}"#),
    (
        "streamableHttp",
        r#"{"type": "http", "url": "u", "auth": {"grant": "authorization_code", "clientId": "c",
            "clientSecret": "${S}", "clientMetadataUrl": "https://c/m.json", "clientName": "n",
            "scopes": ["a", "b"], "tokenStore": "memory"}}"#,
    ),
    (
        "sse",
        r#"{"type": "sse", "url": "u", "auth": {"grant": "client_credentials", "issuer": "https://as", "clientId": "c",
            "privateKeyFile": "/k.pem", "signingAlgorithm": "ES256"}}"#,
    ),
    (
        "streamableHttp",
        r#"{"type": "http", "url": "u", "auth": {"grant": "enterprise", "clientId": "c",
            "clientSecretFile": "/s", "enterprise": {"idpIssuer": "https://idp",
            "idpTokenEndpoint": "https://idp/token", "idpClientId": "i", "idToken": "${ID}"}}}"#,
    ),
    (
        "streamableHttp",
        r#"{"type": "streamable-http", "url": "u"}"#,
    ),
    (
        "sse",
        r#"{"type": "sse", "url": "http://h/sse", "headers": {"A": "b"}, "timeoutMs": 9,
            "pingTimeoutMs": 10}"#,
    ),
];

/// A graph file and a `--mcp` file with the same entry give the same
/// server, whether compiled in (the model's spec) or read from the
/// override.
#[test]
fn every_server_type_and_key_reads_the_same_both_ways() {
    for (want, entry) in ACCEPTED {
        let file = load(&format!(r#"{{"x": {entry}}}"#)).unwrap_or_else(|e| panic!("{entry}: {e}"));
        let compiled = effective_specs(vec![file.mcp_servers[0].spec.clone()], Vec::new());
        let overridden = read_override(&format!(r#"{{"x": {entry}}}"#))
            .unwrap_or_else(|e| panic!("{entry}: {e}"));
        assert_eq!(compiled, overridden, "{entry}");
        assert_eq!(kind(&overridden[0]), *want, "{entry}");
    }
}

/// Entries both refuse, each with what both messages name: an unknown or
/// non-string `type`, a missing `command` or `url`, a value of the wrong
/// type, a timeout that is not a positive integer.
const REJECTED: &[(&str, &str)] = &[
    (r#"{"type": "ftp", "url": "u"}"#, "`ftp`"),
    (r#"{"type": 3, "url": "u"}"#, "`type`"),
    (r#"{"args": ["a"]}"#, "`command`"),
    (r#"{"type": "stdio", "cwd": "/"}"#, "`command`"),
    (r#"{"type": "http"}"#, "`url`"),
    (
        r#"{"type": "streamableHttp", "headers": {"A": "b"}}"#,
        "`url`",
    ),
    (r#"{"type": "sse"}"#, "`url`"),
    (r#"{"command": 1}"#, "`command`"),
    (r#"{"command": "c", "args": "a"}"#, "`args`"),
    (r#"{"command": "c", "args": [1]}"#, "`args`"),
    (r#"{"command": "c", "cwd": ["/"]}"#, "`cwd`"),
    (r#"{"command": "c", "env": ["K"]}"#, "`env`"),
    (r#"{"command": "c", "env": {"K": 1}}"#, "K"),
    (r#"{"command": "c", "inheritEnv": "HOME"}"#, "`inheritEnv`"),
    (r#"{"command": "c", "inheritEnv": [1]}"#, "`inheritEnv`"),
    (r#"{"command": "c", "inheritEnv": ["A=B"]}"#, "`inheritEnv`"),
    (r#"{"command": "c", "inheritEnv": ["9X"]}"#, "`inheritEnv`"),
    (r#"{"type": "sse", "url": ["u"]}"#, "`url`"),
    (
        r#"{"type": "http", "url": "u", "headers": {"A": false}}"#,
        "A",
    ),
    (r#"{"command": "c", "timeoutMs": 0}"#, "`timeoutMs`"),
    (r#"{"command": "c", "timeoutMs": -1}"#, "`timeoutMs`"),
    (r#"{"command": "c", "timeoutMs": 1.5}"#, "`timeoutMs`"),
    (r#"{"command": "c", "timeoutMs": "5"}"#, "`timeoutMs`"),
    (
        r#"{"type": "sse", "url": "u", "pingTimeoutMs": 0}"#,
        "`pingTimeoutMs`",
    ),
    (
        r#"{"type": "http", "url": "u", "auth": {"grant": "password"}}"#,
        "password",
    ),
    (
        r#"{"type": "http", "url": "u", "auth": {"clientSecrt": "${S}"}}"#,
        "clientSecrt",
    ),
    (r#"{"command": "c", "auth": {"clientId": "a"}}"#, "`auth`"),
    // The unattended grants name their authorization server (issue 42).
    (
        r#"{"type": "http", "url": "u", "auth": {"grant": "client_credentials",
            "clientId": "c", "clientSecret": "${S}"}}"#,
        "the `client_credentials` grant needs `issuer`",
    ),
    (
        r#"{"type": "http", "url": "u", "auth": {"grant": "jwt_bearer", "assertion": "${A}"}}"#,
        "the `jwt_bearer` grant needs `issuer`",
    ),
    (
        r#"{"type": "http", "url": "u", "auth": {"grant": "token_exchange",
            "clientId": "c", "clientSecret": "${S}"}}"#,
        "the `token_exchange` grant needs `issuer`",
    ),
    // A caller's identity cannot ride the legacy transport's one token.
    (
        r#"{"type": "sse", "url": "u", "auth": {"grant": "token_exchange", "issuer": "https://as",
            "clientId": "c", "clientSecret": "${S}"}}"#,
        "`grant: token_exchange` is not for `sse` servers",
    ),
    ("[]", "`x`"),
    (r#""c""#, "`x`"),
];

#[test]
fn both_reject_the_same_invalid_entries() {
    for (entry, named) in REJECTED {
        let servers = format!(r#"{{"x": {entry}}}"#);
        for (reader, outcome) in [
            ("the codegen", load(&servers).map(drop)),
            ("the --mcp parser", read_override(&servers).map(drop)),
        ] {
            match outcome {
                Ok(()) => panic!("{reader} accepts {entry}"),
                Err(e) => assert!(e.contains(named), "{reader} on {entry}: {e}"),
            }
        }
    }
}

/// The one documented difference (FORMAT.md): a graph file refuses a key
/// that its server type does not take, which is likely a typo; a `--mcp`
/// file, in the shape other MCP clients share, ignores it.
#[test]
fn only_a_graph_file_refuses_keys_of_another_type() {
    for entry in [
        r#"{"command": "c", "url": "u"}"#,
        r#"{"type": "http", "url": "u", "command": "c"}"#,
        r#"{"type": "sse", "url": "u", "env": {}}"#,
        r#"{"command": "c", "disabled": false}"#,
    ] {
        let servers = format!(r#"{{"x": {entry}}}"#);
        assert!(load(&servers).is_err(), "{entry}");
        assert!(read_override(&servers).is_ok(), "{entry}");
    }
}
