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

/// The 39 sets of capabilities a client can declare that mcpgraph tells
/// apart (elicitation: form, url or both; sampling: plain, with tools,
/// with context or both; roots), `n` of them, each as `initialize`'s
/// `capabilities`.
fn capability_sets(n: usize) -> Vec<Value> {
    let elicitation = [
        None,
        Some(json!({})),
        Some(json!({"url": {}})),
        Some(json!({"form": {}, "url": {}})),
    ];
    let sampling = [
        None,
        Some(json!({})),
        Some(json!({"tools": {}})),
        Some(json!({"context": {}})),
        Some(json!({"tools": {}, "context": {}})),
    ];
    let mut sets = Vec::new();
    for e in &elicitation {
        for s in &sampling {
            for roots in [false, true] {
                let mut caps = serde_json::Map::new();
                if let Some(e) = e {
                    caps.insert("elicitation".into(), e.clone());
                }
                if let Some(s) = s {
                    caps.insert("sampling".into(), s.clone());
                }
                if roots {
                    caps.insert("roots".into(), json!({}));
                }
                if !caps.is_empty() {
                    sets.push(Value::Object(caps));
                }
            }
        }
    }
    assert_eq!(sets.len(), 39);
    sets.truncate(n);
    sets
}

/// A new session over raw HTTP whose client declared `capabilities`; its id.
async fn session_declaring(addr: std::net::SocketAddr, capabilities: &Value) -> String {
    let init = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": capabilities,
            "clientInfo": { "name": "mcpgraph-tests-capabilities", "version": "0.0.0" }
        }
    });
    let r = post_mcp(addr, &[], &init.to_string()).await;
    assert_accepted(&r, "initialize");
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let r = post_mcp(
        addr,
        &[("Mcp-Session-Id", sid.as_str())],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(r.status, 202, "notifications/initialized: {r:?}");
    sid
}

/// `count_files` of `directory` as request 2 of session `sid`; its answer.
async fn count_in(addr: std::net::SocketAddr, sid: String, directory: &str) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "count_files", "arguments": {"directory": directory}}});
    let r = post_mcp(addr, &[("Mcp-Session-Id", sid.as_str())], &call.to_string()).await;
    r.messages()
        .into_iter()
        .find(|m| m.get("id") == Some(&json!(2)))
        .unwrap_or_else(|| panic!("no answer to the call: {r:?}"))
}

/// One `count_files` call over raw HTTP from a new session whose client
/// declared `capabilities`; the call's answer.
async fn count_declaring(addr: std::net::SocketAddr, capabilities: &Value) -> Value {
    let sid = session_declaring(addr, capabilities).await;
    count_in(addr, sid, "/data").await
}

/// The most connections a stdio server gets for callers that declared
/// capabilities, across all sets (`MAX_ASKING_CONNECTIONS_PER_SERVER`).
const ASKING_CHILDREN_CAP: usize = 16;

#[tokio::test(flavor = "multi_thread")]
async fn clients_declaring_many_capability_sets_start_at_most_the_cap_of_children() {
    let dir = TempDir::new("child-cap");
    let child_tag = tag("cap");
    let config = json!({"mcpServers": {"filesystem": {
        "command": TEST_SERVER,
        "args": ["--describe", child_tag],
    }}});
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    let server = HttpServer::start_with_mcp("file_utils", &mcp, &[]).await;
    let mut most = 0;
    for (i, caps) in capability_sets(24).iter().enumerate() {
        let answer = timed("call", count_declaring(server.addr, caps)).await;
        assert_eq!(
            answer["result"]["isError"],
            json!(false),
            "call {i} declaring {caps}: {answer}\n{}",
            server.stderr()
        );
        most = most.max(processes_with_arg(&child_tag).len());
    }
    eprintln!("at most {most} children for 24 sets of capabilities");
    assert!(
        most <= ASKING_CHILDREN_CAP,
        "{most} children of one stdio server, over the cap of {ASKING_CHILDREN_CAP}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_per_capability_children_are_stopped_after_the_idle_time() {
    let dir = TempDir::new("child-idle");
    let child_tag = tag("idle");
    let config = json!({"mcpServers": {"filesystem": {
        "command": TEST_SERVER,
        "args": ["--describe", child_tag],
    }}});
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    // The idle time, shortened for the test (read only in `testing` builds).
    let server = HttpServer::start_with_mcp_env(
        "file_utils",
        &mcp,
        &[],
        &[("MCPGRAPH_TEST_IDLE_CONNECTION_MS", "300")],
    )
    .await;
    for caps in capability_sets(3) {
        let answer = timed("call", count_declaring(server.addr, &caps)).await;
        assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    }
    let started = processes_with_arg(&child_tag);
    assert_eq!(started.len(), 3, "{started:?}");
    let left = wait_no_process_with_arg(&child_tag, Duration::from_secs(10)).await;
    assert!(
        left.is_empty(),
        "idle children still run 10 s after their last call: {left:?}\n{}",
        server.stderr()
    );
    // A new call of one of those sets starts a new child and is answered.
    let answer = timed("call", count_declaring(server.addr, &capability_sets(1)[0])).await;
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    assert_eq!(processes_with_arg(&child_tag).len(), 1);
    server.stop().await;
}

/// `file_utils` over HTTP, its `filesystem` the test server with a
/// `timeoutMs` of a minute (calls wait for connections that long), its
/// children tagged by [`tag`]`(tag_name)`; the directory of the `--mcp`
/// file, the tag and the server.
async fn patient_file_utils(tag_name: &str) -> (TempDir, String, HttpServer) {
    let dir = TempDir::new(&format!("child-{tag_name}"));
    let child_tag = tag(tag_name);
    let config = json!({"mcpServers": {"filesystem": {
        "command": TEST_SERVER,
        "args": ["--describe", child_tag],
        "timeoutMs": 60000,
    }}});
    let mcp = dir.path().join("mcp.json");
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    let server = HttpServer::start_with_mcp("file_utils", &mcp, &[]).await;
    (dir, child_tag, server)
}

#[tokio::test(flavor = "multi_thread")]
async fn past_the_cap_a_call_waits_for_a_connection_to_free_up() {
    let (_dir, child_tag, server) = patient_file_utils("cap-wait").await;
    let addr = server.addr;
    let sets = capability_sets(ASKING_CHILDREN_CAP + 1);
    // As many calls as the cap, of as many sets, each holding its child.
    let mut hanging = Vec::new();
    for caps in &sets[..ASKING_CHILDREN_CAP] {
        let sid = session_declaring(addr, caps).await;
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "count_files", "arguments": {"directory": "@hang"}}});
        let headers = [("Mcp-Session-Id", sid.clone())];
        let call = tokio::spawn(async move {
            let headers = [(headers[0].0, headers[0].1.as_str())];
            post_mcp(addr, &headers, &call.to_string()).await
        });
        hanging.push((sid, call));
    }
    let started = Instant::now();
    while server.stderr().matches("hang started").count() < ASKING_CHILDREN_CAP {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the calls did not all start:\n{}",
            server.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(processes_with_arg(&child_tag).len(), ASKING_CHILDREN_CAP);
    // A call of one more set waits: every connection is busy.
    let sid = session_declaring(addr, &sets[ASKING_CHILDREN_CAP]).await;
    let mut waiting = tokio::spawn(count_in(addr, sid, "/data"));
    assert!(
        tokio::time::timeout(Duration::from_secs(1), &mut waiting)
            .await
            .is_err(),
        "the call past the cap did not wait"
    );
    assert_eq!(processes_with_arg(&child_tag).len(), ASKING_CHILDREN_CAP);
    // One hanging call cancelled by its client frees its connection: the
    // waiting call gets one (in place of the idle child) and is answered.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "test"}});
    let sid = hanging[0].0.as_str();
    let r = post_mcp(addr, &[("Mcp-Session-Id", sid)], &cancel.to_string()).await;
    assert_eq!(r.status, 202, "notifications/cancelled: {r:?}");
    let answer = timed("the waiting call", waiting)
        .await
        .expect("the call's task");
    assert_eq!(
        answer["result"]["isError"],
        json!(false),
        "{answer}\n{}",
        server.stderr()
    );
    let children = processes_with_arg(&child_tag).len();
    assert!(children <= ASKING_CHILDREN_CAP, "{children} children");
    for (_, call) in hanging {
        call.abort();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn one_caller_holds_at_most_half_the_connections_of_a_set_of_capabilities() {
    let (_dir, _, server) = patient_file_utils("share").await;
    let addr = server.addr;
    let caps = &capability_sets(1)[0];
    // One session (one caller) starts 4 calls that hang: as many as a set
    // of capabilities has connections.
    let greedy = session_declaring(addr, caps).await;
    let mut hanging = Vec::new();
    for id in 2..6 {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "count_files", "arguments": {"directory": "@hang"}}});
        let sid = greedy.clone();
        hanging.push(tokio::spawn(async move {
            post_mcp(addr, &[("Mcp-Session-Id", sid.as_str())], &call.to_string()).await
        }));
    }
    let started = Instant::now();
    while server.stderr().matches("hang started").count() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the calls did not start:\n{}",
            server.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Time for the other two to take connections too, if they could.
    tokio::time::sleep(Duration::from_secs(1)).await;
    // Another caller of the same set still gets a connection.
    let other = session_declaring(addr, caps).await;
    let answer = timed("the other caller's call", count_in(addr, other, "/data")).await;
    assert_eq!(
        answer["result"]["isError"],
        json!(false),
        "{answer}\n{}",
        server.stderr()
    );
    let hung = server.stderr().matches("hang started").count();
    assert!(hung <= 2, "one caller holds {hung} of the 4 connections");
    for call in hanging {
        call.abort();
    }
}

/// More calls than a set of capabilities has connections, from several
/// callers, each call a while on its connection: the calls past the four
/// wait for a turn and take it when one comes free, so every call ends in
/// about two turns' time. (Waiting calls once handed a freed turn round
/// among themselves for ever, never finding it free.)
#[tokio::test(flavor = "multi_thread")]
async fn calls_waiting_for_a_turn_take_it_when_it_comes_free() {
    let (_dir, _, server) = patient_file_utils("turns").await;
    let addr = server.addr;
    let caps = &capability_sets(1)[0];
    // Four callers, two calls each (a caller's share): eight calls for
    // the set's four connections.
    let mut calls = Vec::new();
    for _ in 0..4 {
        let sid = session_declaring(addr, caps).await;
        for id in 2..4 {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "count_files", "arguments": {"directory": "@slow:500"}}});
            let sid = sid.clone();
            calls.push(tokio::spawn(async move {
                post_mcp(addr, &[("Mcp-Session-Id", sid.as_str())], &call.to_string()).await
            }));
        }
    }
    let started = Instant::now();
    for call in calls {
        let r = tokio::time::timeout(Duration::from_secs(20), call)
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "a call waiting for a turn never ended:\n{}",
                    server.stderr()
                )
            })
            .expect("the call's task");
        let answer = r
            .messages()
            .into_iter()
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .unwrap_or_else(|| panic!("no answer: {r:?}"));
        assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    }
    let took = started.elapsed();
    eprintln!("eight calls of 500 ms on four connections: {took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    server.stop().await;
}
