//! Downstream servers are spoken to in the era each one negotiates: a
//! server of MCP 2026-07-28 answers `server/discover` and gets requests that
//! carry their version in `_meta` (no `initialize`, no session); a server of
//! an earlier revision refuses `server/discover` and gets `initialize`. Over
//! stdio and streamable HTTP, with the purpose-built test server in both
//! roles (rmcp serves both eras; `--legacy` makes it refuse discovery).

use mcpgraph::Engine;
use mcpgraph_tests::{engine_call, free_port, test_server_over_http, test_server_spec};
use serde_json::json;

mod heal {
    mcpgraph::mcpgraph!("graphs/heal.yaml");
}

const BIN: &str = env!("CARGO_BIN_EXE_mcpgraph-test-server");

/// The protocol version the test server saw on a call through the graph.
async fn protocol(e: &Engine) -> serde_json::Value {
    let stats = engine_call(e, "stats", json!({})).await.expect("stats");
    stats["protocol"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_stdio_server_is_spoken_to_in_its_era() {
    for (args, era) in [(&[][..], "2026-07-28"), (&["--legacy"][..], "2025-11-25")] {
        let e = Engine::start::<heal::Server>(test_server_spec(BIN, 60_000, args), 1).unwrap();
        assert_eq!(protocol(&e).await, json!(era), "{args:?}");
        // The connection goes on serving in that era.
        assert_eq!(protocol(&e).await, json!(era), "{args:?}");
        e.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn each_http_server_is_spoken_to_in_its_era() {
    for (args, era) in [(&[][..], "2026-07-28"), (&["--legacy"][..], "2025-11-25")] {
        let port = free_port();
        let mut server = tokio::process::Command::new(BIN)
            .args(args)
            .args(["--http", &port.to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the test server starts");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(std::time::Instant::now() < deadline, "not listening");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let e = Engine::start::<heal::Server>(test_server_over_http(port, 60_000), 1).unwrap();
        assert_eq!(protocol(&e).await, json!(era), "{args:?}");
        assert_eq!(protocol(&e).await, json!(era), "{args:?}");
        e.shutdown().await;
        let _ = server.kill().await;
    }
}
