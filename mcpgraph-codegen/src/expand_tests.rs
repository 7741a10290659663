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
tools:
  - name: t
    description: d
    inputSchema: { type: object }
    nodes:
      - { id: entry, type: entry, next: exit }
      - { id: exit, type: exit }
"#;
    let out = generate_str(source, "dir/g.yaml", &ExpandOptions::default());
    assert_eq!(out.diagnostics.error_count(), 0, "{}", out.diagnostics);
    let code = out.tokens.to_string();
    let checks: Vec<&str> = code
        .split("rt :: require_tls (")
        .skip(1)
        .map(|rest| &rest[..rest.find(')').unwrap()])
        .collect();
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
