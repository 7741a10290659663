//! A graph's own tests, continued: a failed call recorded by a running
//! server (`serve --record-failures`) replays offline to the same error;
//! only real failures are recorded, privately, within a budget, the
//! oldest files rotating out; a value from `${VAR}` never reaches a
//! cassette; coverage and its minimum.

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

/// A `--mcp` file for the questions fixture: server-everything and the
/// test server.
fn questions_servers(dir: &std::path::Path) -> PathBuf {
    let everything = repo_root()
        .join("peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let path = dir.join("questions.mcp.json");
    write_json(
        &path,
        &json!({ "mcpServers": {
            "everything": { "command": peers_node(), "args": [everything, "stdio"], "timeoutMs": 30000 },
            "modern": { "command": env!("CARGO_BIN_EXE_mcpgraph-test-server") },
        } }),
    );
    path
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Served over stdio: a 2026-07-28 round that stops for answers and a call
/// its caller cancels are not recorded; a real failure is, into a file
/// only its owner reads, in a directory only its owner enters, its 3 MB
/// of arguments cut at the record's budget (the call itself unaffected),
/// and the oldest of 100 files already there removed for it. A directory
/// open to others is refused at start-up.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn only_real_failures_are_recorded_privately_within_a_budget_the_oldest_rotating_out() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("records");
    let mcp = questions_servers(&dir);
    let failures = dir.join("failures");
    std::fs::create_dir(&failures).unwrap();
    std::fs::set_permissions(&failures, std::fs::Permissions::from_mode(0o700)).unwrap();
    for i in 0..100 {
        std::fs::write(failures.join(format!("1000-old-{i:03}.failure.json")), "{}").unwrap();
    }
    let fixture = PathBuf::from(env!("CARGO_BIN_EXE_questions_fixture"));
    let args = [
        "--mcp",
        mcp.to_str().unwrap(),
        "serve",
        "--record-failures",
        failures.to_str().unwrap(),
    ];

    // A client of MCP 2026-07-28: the round stops for the user's answer.
    let mut modern = RawServer::spawn_program("questions_fixture", &fixture, &args);
    let reply = modern
        .request(
            1,
            "tools/call",
            Some(json!({ "name": "ask_twice", "arguments": {}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}},
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
            } })),
        )
        .await;
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    modern
        .close_and_wait(std::time::Duration::from_secs(20))
        .await;

    // A session-era client that can be asked, and cancels while asked.
    let mut legacy = RawServer::spawn_program("questions_fixture", &fixture, &args);
    let init = legacy
        .request(
            0,
            "initialize",
            Some(json!({
                "protocolVersion": "2025-06-18",
                "capabilities": { "elicitation": {} },
                "clientInfo": { "name": "mcpgraph-tests-raw", "version": "0.0.0" }
            })),
        )
        .await;
    assert!(init.get("result").is_some(), "{init}");
    legacy
        .send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .await;
    legacy
        .send(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": "ask_user", "arguments": {} } }))
        .await;
    loop {
        let message = legacy.recv().await.expect("the question");
        if message["method"] == "elicitation/create" {
            break;
        }
        assert_ne!(message["id"], json!(2), "answered before asking: {message}");
    }
    legacy
        .send(
            &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": 2, "reason": "the user gave up" } }),
        )
        .await;
    // A real failure: the model cannot be asked (no `sampling`), with
    // 3 MB of arguments, more than the record's budget.
    let prompt = "p".repeat(3 << 20);
    let reply = legacy
        .request(
            3,
            "tools/call",
            Some(json!({ "name": "ask_model", "arguments": { "prompt": prompt } })),
        )
        .await;
    assert_eq!(reply["result"]["isError"], json!(true), "{reply}");
    legacy
        .close_and_wait(std::time::Duration::from_secs(20))
        .await;

    let mut names: Vec<String> = std::fs::read_dir(&failures)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let new: Vec<&String> = names.iter().filter(|n| !n.contains("-old-")).collect();
    assert_eq!(
        new.len(),
        1,
        "only the real failure is recorded (not the round, not the cancelled call): {new:?}"
    );
    assert!(new[0].contains("ask_model"), "{new:?}");
    assert_eq!(names.len(), 100, "the directory holds 100 files: {names:?}");
    assert!(
        !names.contains(&"1000-old-000.failure.json".to_owned()),
        "the oldest file made room: {names:?}"
    );
    assert!(names.contains(&"1000-old-001.failure.json".to_owned()));
    let file = failures.join(new[0]);
    assert_eq!(mode(&failures), 0o700);
    assert_eq!(mode(&file), 0o600, "{}", file.display());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.len() < 64 << 10, "{} bytes", text.len());
    let recorded: Value = serde_json::from_str(&text).unwrap();
    let cut = recorded["failure"]["cut"].as_str().unwrap_or_default();
    assert!(
        cut.contains("budget of 2097152 bytes") && cut.contains("the call's arguments"),
        "{recorded}"
    );
    assert_eq!(recorded["failure"]["arguments"], json!({}), "{recorded}");
    let exchanges = recorded["cases"]["failure"].as_array().unwrap();
    assert_eq!(
        exchanges[0]["tool"], "trigger-sampling-request",
        "{recorded}"
    );
    assert!(exchanges[0]["cut"].is_string(), "{recorded}");

    // A directory others may enter is refused, naming it and its mode.
    let open = dir.join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = tokio::process::Command::new(&fixture)
        .args(["--mcp", mcp.to_str().unwrap(), "serve", "--record-failures"])
        .arg(&open)
        .stdin(std::process::Stdio::null())
        .output();
    let out = timed("serve --record-failures", out).await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("--record-failures {}", open.display()))
            && stderr.contains("mode 0755"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
