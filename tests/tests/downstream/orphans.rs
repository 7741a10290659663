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

/// `call` exits soon after printing its result, and what it started goes
/// with it: here the downstream "server" is a shell that ignores SIGTERM
/// and sleeps on once the test server in it has exited on its closed
/// stdin, so only SIGKILL ends it (after 2.5 s in the 3 s a server's
/// shutdown takes; `call`'s result is printed already).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_exits_soon_after_its_result_and_leaves_no_child() {
    use tokio::io::AsyncBufReadExt;
    let dir = TempDir::new("call-exit");
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
    ensure_programs_built();
    let started = Instant::now();
    let mut call = tokio::process::Command::new(bin_path("file_utils"))
        .arg("--mcp")
        .arg(&mcp)
        .args(["call", "count_files", r#"{"directory": "/data"}"#])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("run file_utils call");
    let mut stdout = tokio::io::BufReader::new(call.stdout.take().unwrap());
    let mut result = String::new();
    timed("call's result", stdout.read_line(&mut result))
        .await
        .expect("read call's stdout");
    let printed = Instant::now();
    assert!(result.starts_with("{\"count\":"), "{result}");
    assert!(
        !processes_with_arg(&tag).is_empty(),
        "the downstream shell runs when the result is printed"
    );
    let status = timed("call's exit", call.wait()).await.expect("call exits");
    let after = printed.elapsed();
    eprintln!(
        "call: result after {:?}, exit {after:?} later",
        printed - started
    );
    assert!(status.success(), "{status}");
    assert!(
        after < Duration::from_millis(1500),
        "call exited {after:?} after its result"
    );
    let left = processes_with_arg(&tag);
    assert!(left.is_empty(), "still running after call exited: {left:?}");
}
