//! An HTTP session belongs to the principal whose token opened it: another
//! caller presenting its id (with a valid token of its own, from the same
//! authorization server) gets 404, as for a session that does not exist,
//! and cannot read, stream or close it; its owner goes on using it.

use std::path::PathBuf;

use mcpgraph_tests::oidc::{Provider, ProviderConfig};
use mcpgraph_tests::*;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_oauth_fixture"))
}

const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_refused_to_another_principal() {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let provider = Provider::start(ProviderConfig {
        resources: vec![resource.clone()],
        scopes: vec!["mcp:tools".into(), "tools:write".into()],
        limited_scopes: vec!["mcp:tools".into()],
        ..ProviderConfig::default()
    })
    .await;
    let addr = format!("127.0.0.1:{port}");
    let flags = [
        "--oauth-issuer",
        &provider.issuer,
        "--oauth-resource",
        &resource,
    ];
    let mut cmd = tokio::process::Command::new(fixture());
    cmd.args(["serve", "--http", &addr])
        .args(flags)
        .kill_on_drop(true);
    let server = HttpServer::spawn("oauth_fixture", cmd, &flags).await;

    let owner = provider.token("full", &resource, "mcp:tools").await;
    let other = provider.token("limited", &resource, "mcp:tools").await;
    let (owner, other) = (format!("Bearer {owner}"), format!("Bearer {other}"));

    let init = post_init(server.addr, &[("Authorization", &owner)]).await;
    assert_accepted(&init, "initialize");
    let sid = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let as_owner = [("Authorization", owner.as_str()), ("Mcp-Session-Id", &sid)];
    let r = post_mcp(
        server.addr,
        &as_owner,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(r.status, 202, "{r:?}");

    // Another principal with the session's id: 404, whatever it asks.
    let as_other = [("Authorization", other.as_str()), ("Mcp-Session-Id", &sid)];
    let r = post_mcp(server.addr, &as_other, TOOLS_LIST).await;
    assert_eq!(r.status, 404, "another principal used the session: {r:?}");
    assert!(!r.body.contains("tools"), "{r:?}");
    let r = http_request(
        server.addr,
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream"), as_other[0], as_other[1]],
        None,
    )
    .await;
    assert_eq!(r.status, 404, "another principal opened its stream: {r:?}");
    let r = http_request(server.addr, "DELETE", "/mcp", &as_other, None).await;
    assert_eq!(r.status, 404, "another principal closed the session: {r:?}");

    // Its owner still has it.
    let r = post_mcp(server.addr, &as_owner, TOOLS_LIST).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains("\"tools\""), "{r:?}");
    let r = http_request(server.addr, "DELETE", "/mcp", &as_owner, None).await;
    assert!(matches!(r.status, 200 | 204), "{r:?}");
    drop(provider);
}
