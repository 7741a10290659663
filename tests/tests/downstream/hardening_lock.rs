//! The schema lock's checks hold against a server that will not be
//! checked (issue 27): under `--strict-lock` a `tools/list` that fails
//! refuses the call, and a later call lists again; a `nextCursor` that never
//! ends fails `mcpgraph lock` and the run-time comparison in a bounded time,
//! naming the server. And a value as deep as the `maxValueDepth` ceiling
//! allows, or deeper, fails with the value-depth limit instead of
//! overflowing a stack.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use mcpgraph::{CallError, CancellationToken, Downstream, Engine, ErrorKind};
use mcpgraph_tests::{TempDir, bin_path, test_server_spec};
use serde_json::{Value, json};

mod drift {
    mcpgraph::mcpgraph!("graphs/drift.yaml");
}

const TEST_SERVER: &str = env!("CARGO_BIN_EXE_mcpgraph-test-server");

/// `tool` called through `engine`, within `limit` (the test fails if not).
async fn call_within(
    engine: &Engine,
    tool: &str,
    args: Value,
    limit: Duration,
) -> Result<Value, CallError> {
    let call = engine.call(tool, args.as_object().cloned(), CancellationToken::new());
    match tokio::time::timeout(limit, call).await {
        Ok(result) => result,
        Err(_) => panic!("`{tool}` did not return within {limit:?}"),
    }
}

/// The drift graph against the test server started with `args`
/// (`timeoutMs` 30 s, far longer than any test waits).
fn drift_engine(args: &[&str], strict: bool) -> Engine {
    Engine::start::<drift::Server>(test_server_spec(TEST_SERVER, 30_000, args), 1)
        .expect("engine starts")
        .with_strict_lock(strict)
}

/// A `tools/list` that fails refuses the call under `--strict-lock`, with
/// an error naming the server and why; the failure is not kept, so the
/// next call lists again and goes through. Without `--strict-lock` the call
/// goes through at once (the failure is a warning in the log).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_lock_refuses_a_server_it_cannot_list_and_lists_again() {
    let limit = Duration::from_secs(5);
    let engine = drift_engine(&["--list-error", "1"], true);
    let refused = call_within(&engine, "echo", json!({}), limit)
        .await
        .expect_err("the first call is refused");
    assert_eq!(
        refused.kind(),
        ErrorKind::Downstream(Downstream::Protocol),
        "{refused}"
    );
    let message = refused.to_string();
    for part in [
        "downstream server `test` tool `json_text` could not be compared with the graph's lock",
        "tools/list fails on purpose (--list-error)",
        "refused under --strict-lock",
    ] {
        assert!(message.contains(part), "{part:?} not in: {message}");
    }
    let again = call_within(&engine, "echo", json!({}), limit).await;
    assert_eq!(again.map_err(|e| e.to_string()), Ok(json!(7)));
    engine.shutdown().await;

    let lenient = drift_engine(&["--list-error", "1"], false);
    let echoed = call_within(&lenient, "echo", json!({}), limit).await;
    assert_eq!(echoed.map_err(|e| e.to_string()), Ok(json!(7)));
    lenient.shutdown().await;
}

/// A server whose `tools/list` always fails is refused on every call
/// under `--strict-lock`, each call listing again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_lock_keeps_refusing_a_server_that_never_lists() {
    let engine = drift_engine(&["--list-error", "1000"], true);
    for _ in 0..3 {
        let refused = call_within(&engine, "say", json!({}), Duration::from_secs(5))
            .await
            .expect_err("refused");
        assert_eq!(refused.kind(), ErrorKind::Downstream(Downstream::Protocol));
        assert!(
            refused.to_string().contains("fails on purpose"),
            "{refused}"
        );
    }
    engine.shutdown().await;
}

/// A `tools/list` that never answers refuses the call under
/// `--strict-lock` once the server's `timeoutMs` has passed, as a timeout;
/// calls that queued behind that listing share its error instead of each
/// waiting a `timeoutMs` of their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_lock_refuses_a_server_whose_listing_hangs_once_per_wait() {
    let timeout_ms = 1500;
    let engine = Engine::start::<drift::Server>(
        test_server_spec(TEST_SERVER, timeout_ms, &["--list-hang"]),
        1,
    )
    .expect("engine starts")
    .with_strict_lock(true);
    let started = Instant::now();
    let calls = (0..3).map(|_| call_within(&engine, "echo", json!({}), Duration::from_secs(10)));
    for refused in futures::future::join_all(calls).await {
        let refused = refused.expect_err("refused");
        assert_eq!(
            refused.kind(),
            ErrorKind::Downstream(Downstream::TimedOut),
            "{refused}"
        );
        assert!(
            refused
                .to_string()
                .contains("got no complete answer within 1500 ms"),
            "{refused}"
        );
    }
    // One listing's wait for the three calls, not three in a row.
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_millis(2 * timeout_ms),
        "{elapsed:?}"
    );
    engine.shutdown().await;
}

/// Pagination that does not end (the same cursor again and again, or a new
/// one each page) fails the run-time comparison at once instead of
/// listing until `timeoutMs`: under `--strict-lock` the call is refused,
/// naming the server and why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_pagination_fails_the_runtime_check_quickly() {
    for (mode, why) in [
        ("again", "sent the cursor `again` a second time"),
        ("fresh", "still had a `nextCursor` after 100 pages"),
    ] {
        let engine = drift_engine(&["--endless-cursor", mode], true);
        let started = Instant::now();
        let refused = call_within(&engine, "echo", json!({}), Duration::from_secs(5))
            .await
            .expect_err("refused");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            refused.kind(),
            ErrorKind::Downstream(Downstream::Protocol),
            "{refused}"
        );
        let message = refused.to_string();
        assert!(
            message.contains("downstream server `test`") && message.contains(why),
            "{mode}: {message}"
        );
        engine.shutdown().await;
    }
}

/// Runs `mcpgraph lock` in `dir` with `args`; kills it and fails the test
/// if it has not ended within `limit`.
fn lock_within(dir: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(bin_path("mcpgraph"))
        .arg("lock")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mcpgraph");
    let started = Instant::now();
    while child.try_wait().expect("wait for mcpgraph").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("reap mcpgraph");
            panic!(
                "`mcpgraph lock {args:?}` still ran after {limit:?}; stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("reap mcpgraph")
}

/// `mcpgraph lock` against a server whose pagination never ends fails
/// within 5 s (not after the 60 s default `timeoutMs`), names the server
/// and says why, and writes no lock.
#[test]
fn endless_pagination_fails_mcpgraph_lock_within_five_seconds() {
    // Built before the clock starts.
    bin_path("mcpgraph");
    for (mode, why) in [
        (
            "again",
            "sent the cursor `again` a second time: its pagination loops",
        ),
        ("fresh", "still had a `nextCursor` after 100 pages"),
    ] {
        let dir = TempDir::new("lock-endless-cursor");
        let graph = format!(
            r#"version: "1.0"
server: {{ name: "endless", version: "0.0.1" }}
mcpServers:
  test: {{ command: {TEST_SERVER:?}, args: ["--endless-cursor", "{mode}"] }}
tools:
  - name: "t"
    description: "Calls the test server"
    inputSchema: {{ type: object }}
    nodes:
      - {{ id: entry, type: entry, next: n0 }}
      - {{ id: n0, type: mcp, server: test, tool: text, args: {{ text: hi }}, next: exit }}
      - {{ id: exit, type: exit }}
"#
        );
        std::fs::write(dir.path().join("graph.yaml"), graph).expect("write the graph");
        let out = lock_within(dir.path(), &["graph.yaml"], Duration::from_secs(5));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{mode}: {stderr}");
        assert!(
            stderr.contains("error: server `test`: ") && stderr.contains(why),
            "{mode}: {stderr}"
        );
        assert!(!dir.path().join("graph.lock.json").exists());
    }
}

mod deep {
    mcpgraph::mcpgraph!("graphs/deep_values.yaml");
}

/// How deeply `value`'s arrays and objects nest, counted without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        let children: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            Value::Object(map) => map.values().collect(),
            _ => continue,
        };
        deepest = deepest.max(depth + 1);
        stack.extend(children.into_iter().map(|child| (child, depth + 1)));
    }
    deepest
}

/// With `maxValueDepth` at its ceiling, a value nested exactly that deep is
/// converted and returned on a worker thread's stack, and one level more,
/// or 200,000 levels, fails with the value-depth limit (`limit.value_depth`)
/// and leaves the server answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_at_the_depth_ceiling_fit_the_stack_and_deeper_ones_fail() {
    // mcpgraph_expr::MAX_VALUE_DEPTH_CEILING, which graphs/deep_values.yaml sets.
    const CEILING: usize = 256;
    let engine = Engine::start::<deep::Server>(vec![], 1).expect("engine starts");
    let limit = Duration::from_secs(30);
    for n in [CEILING + 1, 200_000] {
        let error = call_within(&engine, "nest", json!({ "n": n }), limit)
            .await
            .expect_err("too deep");
        assert_eq!(
            error.kind(),
            ErrorKind::Limit(mcpgraph::Limit::ValueDepth),
            "{n}: {error}"
        );
        assert!(
            error
                .to_string()
                .contains(&format!("deeper than maxValueDepth ({CEILING})")),
            "{error}"
        );
    }
    let value = call_within(&engine, "nest", json!({ "n": CEILING }), limit)
        .await
        .expect("a value at the ceiling is returned");
    assert_eq!(depth(&value), CEILING);
    // The same depth through a recursive outputSchema: `{}` wrapped
    // CEILING - 1 times.
    let checked = call_within(&engine, "nest_checked", json!({ "n": CEILING - 1 }), limit)
        .await
        .expect("a value at the ceiling passes its schema");
    assert_eq!(depth(&checked), CEILING);
    // Dropping it recursively here is fine: the test's thread is not a
    // worker's, and this is far below what its stack carries.
    engine.shutdown().await;
}
