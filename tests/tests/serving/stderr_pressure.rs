//! Writing to stderr never blocks request handling: a host that stops
//! reading our stderr while the server logs a lot (here every node's span
//! at `--log-level debug`) still gets its calls answered; the lines that did
//! not fit are dropped and counted.

use std::process::Stdio;
use std::time::Duration;

use mcpgraph_tests::*;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::json;
use std::io::Read as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unread_stderr_does_not_stall_calls() {
    let mut cmd = command("loop_example");
    cmd.args(["--log-level", "debug"]);
    // A blocking pipe, as most hosts pass (tokio's own would be
    // non-blocking on our side, where a full pipe fails writes instead).
    let (mut stderr, writer) = std::io::pipe().expect("pipe");
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::from(writer))
        .spawn()
        .expect("spawn loop_example");
    let client = timed("initialize", ().serve(transport))
        .await
        .expect("initialize");
    // Each call logs ~600 node spans (~100 KB), the pipe holds 64 KiB.
    for i in 0..10 {
        let call = client.call_tool(call_params("sum_to_n", json!({ "n": 300 })));
        let result = tokio::time::timeout(Duration::from_secs(20), call)
            .await
            .unwrap_or_else(|_| panic!("call {i} stalled behind an unread stderr"))
            .expect("call");
        assert_eq!(
            result.structured_content,
            Some(json!({ "sum": 45150 })),
            "call {i}"
        );
    }
    // Reading again lets the backlog out, with the count of what was
    // dropped meanwhile.
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _ = client.cancel().await;
    let text = reader.join().expect("reader");
    let text = String::from_utf8_lossy(&text);
    assert!(
        text.contains("line(s) of stderr dropped"),
        "the drops are reported: {} bytes: {}",
        text.len(),
        &text[text.len().saturating_sub(400)..]
    );
}
