//! Downstream servers and everything they started never outlive the graph
//! server, even when it is killed with SIGKILL (no code of ours runs then):
//! here the downstream "server" is a shell that ignores SIGTERM and SIGHUP,
//! runs the test server, and would then sleep on after stdin closed.

use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_takes_its_downstream_tree_along() {
    let dir = TempDir::new("orphans");
    let tag = dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let script = format!(
        "trap '' TERM HUP; '{}' --describe {tag}; sleep 600 # {tag}",
        env!("CARGO_BIN_EXE_mcpgraph-test-server")
    );
    let config = json!({ "mcpServers": { "filesystem": {
        "command": "sh", "args": ["-c", script]
    } } });
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    let mut server = RawServer::spawn_with_mcp("file_utils", &mcp, &[]);
    server.initialize().await;
    let resp = server
        .request(
            1,
            "tools/call",
            Some(json!({ "name": "count_files", "arguments": { "directory": "/data" } })),
        )
        .await;
    assert_eq!(resp["result"]["isError"], json!(false), "{resp}");
    let tree = processes_with_arg(&tag);
    assert!(
        tree.len() >= 2,
        "the shell and the test server run: {tree:?}"
    );

    let killed = Instant::now();
    send_signal(server.pid().expect("server running"), "KILL");
    let left = wait_no_process_with_arg(&tag, Duration::from_secs(1)).await;
    eprintln!("downstream tree gone {:?} after SIGKILL", killed.elapsed());
    assert!(left.is_empty(), "still running 1 s after SIGKILL: {left:?}");
    let _ = server.wait_exit(Duration::from_secs(5)).await;
}
