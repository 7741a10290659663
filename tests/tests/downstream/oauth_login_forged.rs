//! A login's loopback callback beaten by a forger: a request to
//! `/callback` with a code and a state of its own (any local process, or a
//! page the user has open, can send one) is answered with an error page and
//! ignored, and the login goes on to the browser's real callback.

use std::path::Path;

use mcpgraph_tests::oidc::{Key, Protected, Provider, ProviderConfig, pinned_node};
use mcpgraph_tests::{TempDir, free_port, repo_root};
use serde_json::json;

const SCOPE: &str = "mcp:tools";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_callback_does_not_end_the_login() {
    let dir = TempDir::new("oauth-login-forged");
    let key = Key::generate("ES256");
    let key_file = dir.path().join("key.json");
    key.write_private(&key_file);
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let provider = Provider::start(ProviderConfig {
        resources: vec![url.clone()],
        scopes: vec![SCOPE.into()],
        key_file: Some(key_file),
        person: true,
        ..ProviderConfig::default()
    })
    .await;
    let fixture = Path::new(env!("CARGO_BIN_EXE_oauth_fixture"));
    let _protected = Protected::start(fixture, &provider, port, SCOPE).await;
    let mcp = dir.path().join("mcp.json");
    let entry = json!({"mcpServers": {"protected": {"type": "http", "url": url,
        "auth": {"clientId": "person"}}}});
    std::fs::write(&mcp, entry.to_string()).unwrap();
    let browser = format!(
        "{} {}",
        pinned_node().display(),
        repo_root().join("tests/oidc/forging_browser.mjs").display()
    );

    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_oauth_client_fixture"))
        .arg("--mcp")
        .arg(&mcp)
        .args(["auth", "login", "protected"])
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("BROWSER", browser)
        .output()
        .await
        .expect("run auth login");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("forged callback: HTTP 400"),
        "the forged callback was not refused: {text}"
    );
    assert!(
        out.status.success(),
        "the login failed: {text}\nprovider:\n{}",
        provider.stderr()
    );
    let kept = std::fs::read_dir(dir.path().join("data/mcpgraph/oauth"))
        .expect("the token directory")
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert_eq!(kept, 1, "{text}");
}
