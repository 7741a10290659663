use crate::{ExpandOptions, generate_str};

/// Each HTTP server gets one build-time TLS check with its URL, naming
/// it and its line (the runtime's `require_tls` decides whether the URL
/// needs TLS); stdio servers get none.
#[test]
fn https_servers_require_tls() {
    let source = r#"
version: "1.0"
server: { name: s, version: "1" }
mcpServers:
  secure: { type: http, url: "https://a.example/mcp" }
  plain: { type: http, url: "http://127.0.0.1:9/mcp" }
  events:
    type: sse
    url: "HTTPS://b.example/sse"
  fromEnv: { type: http, url: "${URL}" }
  local: { command: "true" }
"#;
    let code = expand_with_tool(source);
    let checks = calls(&code, "require_tls");
    assert_eq!(checks.len(), 4, "{checks:?}");
    for (check, (url, at)) in checks.iter().zip([
        ("https://a.example/mcp", "5:3: server `secure`"),
        ("http://127.0.0.1:9/mcp", "6:3: server `plain`"),
        ("HTTPS://b.example/sse", "7:3: server `events`"),
        ("${URL}", "10:3: server `fromEnv`"),
    ]) {
        assert!(
            check.starts_with(&format!("\"{url}\" , \"dir/g.yaml:{at} calls {url}")),
            "{check}"
        );
    }
}

/// Each HTTP or SSE server gets one build-time check that the runtime can
/// call HTTP servers at all (its `http-client` feature), naming the server,
/// its transport, its line and column, and the feature; stdio servers get
/// none. The runtime's `require_http_client` fails the build with it
/// (scripts/starter-check.sh builds such a graph without the feature).
#[test]
fn http_servers_require_http_client() {
    let source = r#"
version: "1.0"
server: { name: s, version: "1" }
mcpServers:
  local: { command: "true" }
  remote: { type: http, url: "http://127.0.0.1:9/mcp" }
  events:
    type: sse
    url: "${URL}"
"#;
    let code = expand_with_tool(source);
    let checks = calls(&code, "require_http_client");
    assert_eq!(checks.len(), 2, "{checks:?}");
    for (check, (at, kind)) in checks.iter().zip([
        ("6:3: server `remote`", "http"),
        ("7:3: server `events`", "sse"),
    ]) {
        // A raw string literal: the message holds quotes.
        let want = format!(
            "r#\"dir/g.yaml:{at} is a `type: {kind}` server, and calling HTTP servers needs \
             mcpgraph's `http-client` feature"
        );
        assert!(check.starts_with(&want), "{check}");
    }
}

/// Expands a graph whose `mcpServers` end `head`, with one trivial tool.
fn expand_with_tool(head: &str) -> String {
    let source = format!(
        "{head}tools:\n  - name: t\n    description: d\n    inputSchema: {{ type: object }}\n    nodes:\n      - {{ id: entry, type: entry, next: exit }}\n      - {{ id: exit, type: exit }}\n"
    );
    let out = generate_str(&source, "dir/g.yaml", &ExpandOptions::default());
    assert_eq!(out.diagnostics.error_count(), 0, "{}", out.diagnostics);
    out.tokens.to_string()
}

/// The arguments of each call of `rt::{function}` in the expanded code.
fn calls<'a>(code: &'a str, function: &str) -> Vec<&'a str> {
    code.split(&format!("rt :: {function} ("))
        .skip(1)
        .map(|rest| &rest[..rest.find(')').unwrap()])
        .collect()
}
