//! A graph's own tests, continued: a failed call recorded by a running
//! server (`serve --record-failures`) replays offline to the same error; a
//! value from `${VAR}` never reaches a cassette; coverage and its minimum.

use std::path::PathBuf;

use mcpgraph_tests::*;
use serde_json::{Value, json};

use super::graph_cases::{run, scratch, unavailable, write_json};

#[tokio::test]
async fn a_failed_call_recorded_by_a_running_server_replays_to_the_same_error() {
    let dir = scratch("failures");
    let failures = dir.join("failures");
    let mut server = RawServer::spawn(
        "file_utils",
        &["serve", "--record-failures", failures.to_str().unwrap()],
    );
    server.initialize().await;
    let reply = server
        .request(
            2,
            "tools/call",
            Some(json!({ "name": "count_files", "arguments": { "directory": "/etc" } })),
        )
        .await;
    assert_eq!(reply["result"]["isError"], json!(true), "{reply}");
    let reply = server
        .request(
            3,
            "tools/call",
            Some(json!({ "name": "count_files", "arguments": { "directory": "." } })),
        )
        .await;
    assert_ne!(reply["result"]["isError"], json!(true), "{reply}");
    server
        .close_and_wait(std::time::Duration::from_secs(10))
        .await;
    let files: Vec<PathBuf> = std::fs::read_dir(&failures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one failure, one file: {files:?}");
    let gone = unavailable(&dir, &["filesystem"]);
    let out = run(
        "file_utils",
        &gone,
        &["test", "--replay", files[0].to_str().unwrap()],
    )
    .await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.contains("the call failed again the same way"),
        "{out:?}"
    );
    assert!(
        out.stderr.contains("list_directory_node      mcp"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("!! `filesystem`/`list_directory` returned an error: Access denied"),
        "{out:?}"
    );
    // `--step`: before each node, what the graph has so far; Enter runs it.
    let mut cmd = command_with_mcp("file_utils", &gone);
    cmd.args(["test", "--replay", files[0].to_str().unwrap(), "--step"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"\n\n\n\n").await.unwrap();
    }
    let out = timed("--step", child.wait_with_output()).await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for wanted in [
        "next: #0 `entry` (entry)",
        "next: #1 `list_directory_node` (mcp)",
        "the graph so far ($):\n{\n  \"entry\": {\n    \"directory\": \"/etc\"",
        "[Enter] run it, c: run to the end > ",
    ] {
        assert!(stderr.contains(wanted), "{wanted}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The filesystem server's allowed directory comes from `${VAR}`: its
/// error message, which names the directory, is recorded with the
/// variable's name in its place.
#[tokio::test]
async fn a_value_from_a_variable_never_reaches_a_cassette() {
    let dir = scratch("secret");
    let mcp = dir.join("secret.mcp.json");
    let node = which("node").expect("node on PATH");
    write_json(
        &mcp,
        &json!({ "mcpServers": { "filesystem": {
            "command": node, "args": [filesystem_server_js(), "${MCPGRAPH_TEST_ALLOWED}"] } } }),
    );
    let secret = counting_dir().to_str().unwrap().to_owned();
    let cassette = dir.join("c.json");
    let mut cmd = command_with_mcp("file_utils", &mcp);
    cmd.env("MCPGRAPH_TEST_ALLOWED", &secret)
        .args(["test", "--record", cassette.to_str().unwrap()])
        .stdin(std::process::Stdio::null());
    let out = timed("record", cmd.output()).await.unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&cassette).unwrap();
    assert!(
        !text.contains(&secret),
        "the value is in the cassette:\n{text}"
    );
    assert!(text.contains("${MCPGRAPH_TEST_ALLOWED}"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn min_coverage_fails_below_its_figure_and_names_the_lines_never_reached() {
    let dir = scratch("coverage");
    let gone = unavailable(&dir, &["filesystem"]);
    let out = run(
        "file_utils",
        &gone,
        &[
            "test",
            "--filter",
            "counts",
            "--min-coverage",
            "90",
            "--github",
        ],
    )
    .await;
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("coverage 50.0% is below --min-coverage 90%"),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("file_utils.yaml:106: transform node `sum_sizes_node` never ran"),
        "{out:?}"
    );
    assert!(out.stdout.contains("::warning file="), "{out:?}");
    let out = run("file_utils", &gone, &["test", "--json"]).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    let report: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(report["passed"], json!(3));
    assert_eq!(report["coverage"]["percent"], json!(100.0));
    std::fs::remove_dir_all(&dir).unwrap();
}
