//! Issue 27, the downstream side: what a stdio child gets and what it can
//! cost us, through the real `file_utils` binary with a `--mcp` file that
//! points it at the purpose-built test server:
//! - its environment is an allow-list plus `inheritEnv` and `env`, never a
//!   credential of ours;
//! - a child that stops reading its stdin while flooding us with pings is
//!   retired within its write timeout, with our memory bounded, and the
//!   next call gets a fresh child;
//! - SIGTERM while a call waits on a silent child's handshake exits within
//!   the drain plus a few seconds, leaving no child behind;
//! - what a child sends and what was expanded from `${VAR}` reaches our log
//!   redacted.

use std::time::{Duration, Instant};

use mcpgraph_tests::rmcp::model::CallToolResult;
use mcpgraph_tests::*;
use serde_json::{Value, json};

const TEST_SERVER: &str = env!("CARGO_BIN_EXE_mcpgraph-test-server");

/// `file_utils --mcp <dir>/mcp.json` (with `config` written there) as an
/// MCP client over stdio, with `vars` added to its environment; its log.
async fn file_utils(
    dir: &TempDir,
    config: &Value,
    vars: &[(&str, &str)],
) -> (Client, impl Fn() -> String + use<>) {
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    let mut cmd = command_with_mcp("file_utils", &mcp);
    cmd.envs(vars.iter().copied());
    let (client, stderr) = stdio_client(cmd).await;
    let log = move || String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
    (client, log)
}

async fn count(client: &Client, directory: &str) -> CallToolResult {
    timed(
        "count_files",
        client.peer().call_tool(call_params(
            "count_files",
            json!({ "directory": directory }),
        )),
    )
    .await
    .expect("a tool result")
}

/// A tag unique to this test run, for finding a child in /proc.
fn tag(label: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("child-{label}-{}-{nanos}", std::process::id())
}

fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
}

/// `field` (e.g. `VmRSS`, `VmHWM`) of `/proc/<pid>/status`, in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_child_gets_the_allow_list_inherit_env_and_env_and_none_of_our_secrets() {
    let dir = TempDir::new("child-env");
    let env_file = dir.path().join("child-env.txt");
    let config = json!({"mcpServers": {"filesystem": {
        "command": TEST_SERVER,
        "args": ["--env-file", env_file],
        "env": {"MCPGRAPH_TEST_SET_BY_ENV": "from-env"},
        "inheritEnv": ["MCPGRAPH_TEST_PASSED", "MCPGRAPH_TEST_UNSET"],
    }}});
    let secret = "planted-aws-secret-0123456789";
    let (client, log) = file_utils(
        &dir,
        &config,
        &[
            ("AWS_SECRET_ACCESS_KEY", secret),
            ("MCPGRAPH_TEST_PASSED", "passed-through"),
            ("MCPGRAPH_TEST_NOT_PASSED", "kept-here"),
        ],
    )
    .await;
    let r = count(&client, "/data").await;
    assert_ne!(r.is_error, Some(true), "{}\n{}", result_text(&r), log());
    let text = std::fs::read_to_string(&env_file).expect("the child wrote its environment");
    let vars: Vec<(&str, &str)> = text.lines().filter_map(|l| l.split_once('=')).collect();
    let get = |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    assert!(
        !text.contains("AWS_SECRET_ACCESS_KEY") && !text.contains(secret),
        "the planted credential reached the child:\n{text}"
    );
    assert_eq!(get("MCPGRAPH_TEST_NOT_PASSED"), None, "{text}");
    assert_eq!(get("MCPGRAPH_TEST_UNSET"), None, "{text}");
    assert_eq!(
        get("MCPGRAPH_TEST_PASSED"),
        Some("passed-through"),
        "{text}"
    );
    assert_eq!(get("MCPGRAPH_TEST_SET_BY_ENV"), Some("from-env"), "{text}");
    for name in ["PATH", "HOME"] {
        let ours = std::env::var(name).expect("the test runs with {name} set");
        assert_eq!(get(name), Some(ours.as_str()), "{name}:\n{text}");
    }
    // Nothing beyond the allow-list, inheritEnv and env.
    let allowed = [
        "HOME",
        "LOGNAME",
        "PATH",
        "SHELL",
        "TERM",
        "USER",
        "MCPGRAPH_TEST_PASSED",
        "MCPGRAPH_TEST_SET_BY_ENV",
    ];
    let extra: Vec<&str> = vars
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !allowed.contains(n))
        .collect();
    assert!(extra.is_empty(), "not allowed: {extra:?}\n{text}");
    let _ = timed("close", client.cancel()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_child_that_stops_reading_and_floods_pings_is_retired_and_replaced() {
    const TIMEOUT_MS: u64 = 3000;
    let dir = TempDir::new("child-flood");
    let child_tag = tag("flood");
    let config = json!({"mcpServers": {"filesystem": {
        "command": TEST_SERVER,
        "args": ["--describe", child_tag, "--stop-reading-and-ping-flood"],
        "timeoutMs": TIMEOUT_MS,
    }}});
    let (client, log) = file_utils(&dir, &config, &[]).await;
    let ours = processes_with_arg(&dir.path().join("mcp.json").to_string_lossy());
    assert_eq!(ours.len(), 1, "{ours:?}");
    let ours = ours[0].0;
    // The first call is answered; 200 ms later the child stops reading
    // and floods.
    let r = count(&client, "/data").await;
    assert_ne!(r.is_error, Some(true), "{}\n{}", result_text(&r), log());
    let children = processes_with_arg(&child_tag);
    assert_eq!(children.len(), 1, "{children:?}");
    let child = children[0].0;
    let rss_before = status_kib(ours, "VmRSS");
    let flooding = Instant::now();
    // Retired within its write timeout (the server's timeoutMs), counted
    // from when the flood filled the pipe; generous for a loaded machine.
    let bound = Duration::from_millis(TIMEOUT_MS) + Duration::from_secs(7);
    while running(child) {
        assert!(
            flooding.elapsed() < bound,
            "the flooding child still runs after {:?}; our RSS {} KiB -> {} KiB\n{}",
            flooding.elapsed(),
            rss_before,
            status_kib(ours, "VmRSS"),
            log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let retired_after = flooding.elapsed();
    let peak = status_kib(ours, "VmHWM");
    eprintln!(
        "child retired {retired_after:?} after the flood began; our RSS {rss_before} KiB before, peak {peak} KiB"
    );
    assert!(
        peak.saturating_sub(rss_before) < 64 * 1024,
        "our memory grew from {rss_before} KiB to a peak of {peak} KiB"
    );
    // The next call gets a fresh child.
    let r = count(&client, "/data").await;
    assert_ne!(r.is_error, Some(true), "{}\n{}", result_text(&r), log());
    let fresh = processes_with_arg(&child_tag);
    assert!(
        fresh.len() == 1 && fresh[0].0 != child,
        "{fresh:?} (old {child})"
    );
    let log = log();
    assert!(log.contains("stopped reading its stdin"), "{log}");
    let _ = timed("close", client.cancel()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_while_a_silent_child_connects_exits_within_the_drain_and_leaves_no_child() {
    let dir = TempDir::new("child-silent");
    let child_tag = tag("silent");
    let config = json!({"mcpServers": {"filesystem": {
        "command": TEST_SERVER,
        "args": ["--describe", child_tag, "--silent"],
        "timeoutMs": 60000,
    }}});
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    let mut server = RawServer::spawn_with_mcp("file_utils", &mcp, &["serve", "--drain-secs", "2"]);
    server.initialize().await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "count_files", "arguments": {"directory": "/data"}}}))
        .await;
    // The call is in flight, connecting to the silent child.
    let started = Instant::now();
    while processes_with_arg(&child_tag).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no child started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let signalled = Instant::now();
    send_signal(server.pid().expect("running"), "TERM");
    let exit = server.wait_exit(Duration::from_secs(8)).await;
    let took = signalled.elapsed();
    eprintln!("exited {took:?} after SIGTERM: {exit:?}");
    assert!(exit.is_some(), "still running 8 s after SIGTERM");
    let left = wait_no_process_with_arg(&child_tag, Duration::from_millis(500)).await;
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn what_a_child_sends_reaches_the_log_redacted() {
    let dir = TempDir::new("child-redact");
    let secret = "sekrit-in-a-stdout-line-4242";
    let config = json!({"mcpServers": {"filesystem": {
        "command": "${MCPGRAPH_TEST_SERVER}",
        "args": ["--stdout-line", "leaked=${MCPGRAPH_TEST_TAG}"],
    }}});
    let (client, log) = file_utils(
        &dir,
        &config,
        &[
            ("MCPGRAPH_TEST_SERVER", TEST_SERVER),
            ("MCPGRAPH_TEST_TAG", secret),
        ],
    )
    .await;
    // A non-JSON line (logged), then a crash: the next call restarts the
    // child (logged with its command).
    let r = count(&client, "@crash").await;
    assert_eq!(r.is_error, Some(true), "{}", result_text(&r));
    let r = count(&client, "/data").await;
    assert_ne!(r.is_error, Some(true), "{}\n{}", result_text(&r), log());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !log().contains("restarting it") && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = log();
    assert!(
        log.contains("leaked=${MCPGRAPH_TEST_TAG}") && log.contains("restarting it"),
        "{log}"
    );
    for never in [secret, TEST_SERVER] {
        assert!(!log.contains(never), "{never:?} reached the log:\n{log}");
    }
    let _ = timed("close", client.cancel()).await;
}
