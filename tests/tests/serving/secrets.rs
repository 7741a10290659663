//! Secrets stay where they belong: the bearer token the HTTP front door
//! reads from `--auth-token-env` is not passed on to downstream servers,
//! even when their `inheritEnv` names it, while another variable that
//! `inheritEnv` names is (the format's rule).

use mcpgraph_tests::*;
use serde_json::json;

/// The test server's `--describe` writes `$MCPGRAPH_TEST_GREETING` on its
/// stderr, which the graph server forwards to its own, prefixed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_auth_token_variable_is_not_inherited_by_downstream_servers() {
    let token = "s3cret-bearer-token";
    let config = json!({ "mcpServers": { "filesystem": {
        "command": env!("CARGO_BIN_EXE_mcpgraph-test-server"),
        "args": ["--describe", "secrets"],
        "inheritEnv": ["MCPGRAPH_TEST_GREETING"],
    } } });
    let dir = TempDir::new("secrets");
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    for (token_var, shown) in [
        ("MCPGRAPH_TEST_GREETING", "greeting=<unset>".to_owned()),
        // The greeting reaches the child; its value, the bearer token's
        // too, is a secret in our log.
        (
            "MCPGRAPH_TEST_OTHER_TOKEN",
            "greeting=${MCPGRAPH_TEST_OTHER_TOKEN}".to_owned(),
        ),
    ] {
        let server = HttpServer::start_with_mcp_env(
            "file_utils",
            &mcp,
            &["--stateless", "--auth-token-env", token_var],
            &[(token_var, token), ("MCPGRAPH_TEST_GREETING", token)],
        )
        .await;
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": "count_files", "arguments": { "directory": "/any" } }
        })
        .to_string();
        let bearer = format!("Bearer {token}");
        let headers = mcp_post_headers(&[("Authorization", bearer.as_str())]);
        let r = http_request(server.addr, "POST", "/mcp", &headers, Some(&body)).await;
        assert!(r.body.contains(r#""isError":false"#), "{r:?}");
        // The child's stderr reaches ours asynchronously.
        let mut stderr = server.stderr();
        for _ in 0..100 {
            if stderr.contains("tag=secrets") {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            stderr = server.stderr();
        }
        let described = stderr
            .lines()
            .find(|l| l.contains("tag=secrets"))
            .unwrap_or_else(|| panic!("no describe line: {stderr}"));
        assert!(
            described.ends_with(&shown),
            "with --auth-token-env {token_var}: {described}"
        );
        server.stop().await;
    }
}
