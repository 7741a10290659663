//! A person's login to a downstream server (`auth` with the authorization
//! code grant) against a real authorization server (oidc-provider with its
//! `person` client, tests/oidc/provider.mjs): `auth login` through a
//! browser and a loopback redirect keeps the tokens in a file only the user
//! can read; a served graph uses them, refreshing the access token as it
//! expires (every 3 s) without a failed call; when the refresh token is
//! refused, the call is a tool error naming the server and the command to
//! run, and a new login lets the running server go on.

use std::path::Path;
use std::time::{Duration, Instant};

use mcpgraph_tests::oidc::{Key, Protected, Provider, ProviderConfig, browser_command};
use mcpgraph_tests::rmcp::model::CallToolResult;
use mcpgraph_tests::{Client, TempDir, call_params, free_port, result_text, stdio_client};
use serde_json::json;

const SCOPE: &str = "mcp:tools";

fn client(dir: &Path, mcp: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_oauth_client_fixture"));
    cmd.arg("--mcp")
        .arg(mcp)
        .env("XDG_DATA_HOME", dir)
        .env_remove("BROWSER");
    cmd
}

/// `<client> auth ACTION protected`, logging in through the test browser.
async fn auth(dir: &Path, mcp: &Path, action: &str) -> (bool, String) {
    let out = client(dir, mcp)
        .args(["auth", action, "protected"])
        .env("BROWSER", browser_command())
        .output()
        .await
        .expect("run auth");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

async fn relay(client: &Client, text: &str) -> CallToolResult {
    client
        .call_tool(call_params("relay", json!({ "text": text })))
        .await
        .expect("the call is answered")
}

fn ok(result: &CallToolResult, text: &str) -> bool {
    result.is_error != Some(true) && result_text(result).contains(text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_is_kept_refreshed_and_asked_for_again_when_refused() {
    let dir = TempDir::new("oauth-login");
    let key = Key::generate("ES256");
    let key_file = dir.path().join("key.json");
    key.write_private(&key_file);
    let (provider, _protected, mcp) = protected_server(
        dir.path(),
        ProviderConfig {
            ttl_secs: Some(3),
            key_file: Some(key_file.clone()),
            ..ProviderConfig::default()
        },
    )
    .await;
    let data = dir.path().join("data");

    // Not logged in: status says so; a served call names the command.
    let (_, status) = auth(&data, &mcp, "status").await;
    assert!(status.contains("not logged in"), "{status}");
    let (served, _) = stdio_client(client(&data, &mcp)).await;
    let refused = relay(&served, "before").await;
    let text = result_text(&refused);
    assert_eq!(refused.is_error, Some(true), "{text}");
    assert!(
        text.contains("`protected` needs a login") && text.contains("auth login protected"),
        "{text}"
    );

    // The login, kept in a file only the user can read.
    let (logged_in, out) = auth(&data, &mcp, "login").await;
    assert!(logged_in, "{out}\nprovider:\n{}", provider.stderr());
    let kept: Vec<_> = std::fs::read_dir(data.join("mcpgraph/oauth"))
        .expect("the token directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(&kept[0]).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let (_, status) = auth(&data, &mcp, "status").await;
    assert!(status.contains("logged in (client `person`"), "{status}");

    // The running server takes the login, and refreshes the access token
    // (3 s of life) as it goes: about four refreshes, no failed call.
    for n in 0..20 {
        let text = format!("call {n}");
        let result = relay(&served, &text).await;
        assert!(ok(&result, &text), "call {n}: {}", result_text(&result));
        tokio::time::sleep(Duration::from_millis(600)).await;
    }

    // The provider forgets its refresh tokens (a restart, same key and
    // issuer): once the access token runs out, the refused refresh is a
    // tool error naming the server and the command, and the server serves on.
    let provider = provider.restart_with_key(&key_file).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let failure = loop {
        let result = relay(&served, "after").await;
        if result.is_error == Some(true) {
            break result_text(&result);
        }
        assert!(
            Instant::now() < deadline,
            "the refused refresh was never noticed"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert!(failure.contains("`protected` needs a login"), "{failure}");
    assert!(failure.contains("auth login protected"), "{failure}");

    // A new login, from another process, and the running server goes on.
    let (logged_in, out) = auth(&data, &mcp, "login").await;
    assert!(logged_in, "{out}");
    let result = relay(&served, "again").await;
    assert!(ok(&result, "again"), "{}", result_text(&result));
    let _ = served.cancel().await;
    drop(provider);
}

/// A person who takes longer to log in than rmcp's protocol probe
/// (`server/discover`, 10 s) gets one login, and the call goes through:
/// the probe waits while the token is being got, rather than giving up
/// on the server mid-login and asking for a second one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_longer_than_the_protocol_probe_is_asked_for_once() {
    let dir = TempDir::new("oauth-slow-login");
    let (_provider, _protected, mcp) =
        protected_server(dir.path(), ProviderConfig::default()).await;
    // The person reads the page for 11 s before approving.
    let slow = dir.path().join("slow-browser.sh");
    std::fs::write(
        &slow,
        format!("#!/bin/sh\nsleep 11\nexec {} \"$1\"\n", browser_command()),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = client(&dir.path().join("data"), &mcp)
        .args(["call", "relay", r#"{"text": "slowly"}"#])
        .env("BROWSER", &slow)
        .output()
        .await
        .expect("run call");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.contains("slowly"),
        "{stdout}{stderr}"
    );
    assert_eq!(
        stderr.matches("To authorize `protected`").count(),
        1,
        "{stderr}"
    );
}

/// A provider with the `person` client (`config` plus the protected
/// server's URL, `SCOPE` and `person`), the protected server it issues
/// tokens for, and a `--mcp` file in `dir` naming that server with
/// `auth: {clientId: person}`.
async fn protected_server(
    dir: &Path,
    config: ProviderConfig,
) -> (Provider, Protected, std::path::PathBuf) {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let provider = Provider::start(ProviderConfig {
        resources: vec![url.clone()],
        scopes: vec![SCOPE.into()],
        person: true,
        ..config
    })
    .await;
    let protected = Protected::start(fixture(), &provider, port, SCOPE).await;
    let mcp = dir.join("mcp.json");
    let entry = json!({"mcpServers": {"protected": {"type": "http", "url": url,
        "auth": {"clientId": "person"}}}});
    std::fs::write(&mcp, entry.to_string()).unwrap();
    (provider, protected, mcp)
}

/// The protected server's program (graphs/oauth.yaml compiled).
fn fixture() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_BIN_EXE_oauth_fixture"))
}
