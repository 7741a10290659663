//! Evaluations bounded in bytes and time (issue 27), against a compiled
//! server (`graphs/eval_bounds.yaml`, `maxExpressionTimeMs` 200) over
//! stdio: a built-in that would build past `maxValueBytes` fails before
//! it does, and one built-in call or one JSON Logic rule running long
//! stops at the deadline; each time the next call is answered.

use std::time::{Duration, Instant};

use mcpgraph_tests::{Client, call_params, result_text};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

async fn start() -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgraph-eval-bounds"));
    cmd.stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(cmd).expect("spawn the server");
    ().serve(transport).await.expect("initialize")
}

/// The call's structured result, or its error text (a tool error or a
/// protocol one); and how long it took. A call must end within 20 s.
async fn call(client: &Client, tool: &str, args: Value) -> (Result<Value, String>, Duration) {
    let started = Instant::now();
    let call = client.call_tool(call_params(tool, args));
    let result = tokio::time::timeout(Duration::from_secs(20), call)
        .await
        .unwrap_or_else(|_| panic!("`{tool}` did not return within 20 s"));
    let outcome = match result {
        Ok(r) if r.is_error == Some(true) => Err(result_text(&r)),
        Ok(r) => Ok(r.structured_content.unwrap_or(Value::Null)),
        Err(e) => Err(e.to_string()),
    };
    (outcome, started.elapsed())
}

/// The call: 200,000 replacements of 200,000 bytes (40 GB) fail
/// with the byte limit at once, and the server answers the next call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_amplifying_replace_fails_before_it_allocates() {
    let client = start().await;
    let args = json!({
        "text": "a".repeat(200_000),
        "find": "a",
        "with": "b".repeat(200_000),
    });
    let (outcome, took) = call(&client, "replace", args).await;
    let err = outcome.expect_err("40 GB of result");
    assert!(
        err.contains("Value limit exceeded") && err.contains("maxValueBytes"),
        "{err}"
    );
    assert!(err.contains("swap"), "the error names the node: {err}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    let small = json!({ "text": "banana", "find": "an", "with": "AN" });
    let (outcome, _) = call(&client, "replace", small).await;
    assert_eq!(outcome, Ok(json!({ "n": 6 })));
    client.cancel().await.ok();
}

/// `$distinct` of 200,000 distinct items (quadratic in jsonata-core's
/// built-in: minutes in one step) stops at `maxExpressionTimeMs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_distinct_stops_at_the_time_limit() {
    let client = start().await;
    let items: Vec<Value> = (0..200_000)
        .map(|i| json!([format!("item-{i}"), i, "some text to hash", [i, i]]))
        .collect();
    // The same 9 MB of arguments to a quick tool: what reading them costs
    // (seconds in a debug build), which the call below pays too.
    let quick = json!({ "items": items, "text": "a", "find": "a", "with": "b" });
    let (outcome, baseline) = call(&client, "replace", quick).await;
    assert_eq!(outcome, Ok(json!({ "n": 1 })));
    let (outcome, took) = call(&client, "distinct", json!({ "items": items })).await;
    let err = outcome.expect_err("past the time limit");
    assert!(
        err.contains("maxExpressionTimeMs") && err.contains("dedup"),
        "{err}"
    );
    // Unbounded, this call takes minutes. Bounded, it costs the arguments'
    // reading and conversion (seconds in a debug build on a loaded 2-core
    // machine, hence the wide margin) and the limit (200 ms).
    assert!(
        took < baseline * 2 + Duration::from_secs(10),
        "{took:?}, {baseline:?} to read the arguments"
    );
    let (outcome, _) = call(&client, "distinct", json!({ "items": [1, 2, 1] })).await;
    assert_eq!(outcome, Ok(json!({ "n": 2 })));
    client.cancel().await.ok();
}

/// A switch rule of 400 million steps stops at `maxExpressionTimeMs` with
/// a limit error naming the node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_json_logic_rule_stops_at_the_time_limit() {
    let client = start().await;
    let items: Vec<u32> = (0..20_000).collect();
    let (outcome, took) = call(&client, "rule", json!({ "items": items })).await;
    let err = outcome.expect_err("past the time limit");
    assert!(
        err.contains("decide")
            && err.contains("JSON Logic rule 0 exceeded maxExpressionTimeMs (200 ms)"),
        "{err}"
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (outcome, _) = call(&client, "rule", json!({ "items": [1, 2] })).await;
    assert_eq!(outcome, Ok(json!({ "held": true })));
    client.cancel().await.ok();
}

/// The memory server (`graphs/eval_memory.yaml`: `maxValueBytes` 8 MiB,
/// `maxExpressionTimeMs` 500, the counting allocator declared) and its
/// process id.
async fn start_memory() -> (Client, u32) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgraph-eval-memory"));
    cmd.stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(cmd).expect("spawn the server");
    let pid = transport.id().expect("the server's pid");
    (().serve(transport).await.expect("initialize"), pid)
}

/// The peak resident memory of process `pid` so far (`VmHWM`), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .expect("VmHWM");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmHWM in kB");
    kib * 1024
}

const BUDGET: u64 = 8 << 20;

/// `tool` called with `small` answers `want` (which also brings the
/// server's peak memory to its working level), then with `big` fails with
/// the value limit naming `node` in well under a second, its peak memory
/// within four budgets of the first call's; and the next call answers.
async fn stopped_by_the_budget(tool: &str, node: &str, small: Value, want: Value, big: Value) {
    let (client, pid) = start_memory().await;
    let (outcome, _) = call(&client, tool, small.clone()).await;
    assert_eq!(outcome, Ok(want.clone()));
    let baseline = peak_rss(pid);
    let (outcome, took) = call(&client, tool, big).await;
    let peak = peak_rss(pid);
    let err = outcome.expect_err("past the byte budget");
    assert!(
        err.contains("Value limit exceeded") && err.contains("maxValueBytes") && err.contains(node),
        "{err}"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
    let grown = peak.saturating_sub(baseline);
    eprintln!(
        "{tool}: {took:?}, peak +{} KiB over {} MiB",
        grown >> 10,
        baseline >> 20
    );
    assert!(
        grown < 4 * BUDGET,
        "peak memory grew by {} MiB (from {} MiB)",
        grown >> 20,
        baseline >> 20
    );
    let (outcome, _) = call(&client, tool, small).await;
    assert_eq!(outcome, Ok(want));
    client.cancel().await.ok();
}

/// The path: a 400 KB string built for each of 20,000 items (8 GB,
/// built in well under the time limit) stops at the byte budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_that_multiplies_a_value_stops_at_the_byte_budget() {
    let big = "x".repeat(200_000);
    let items: Vec<u32> = (0..20_000).collect();
    stopped_by_the_budget(
        "paths",
        "multiply",
        json!({ "items": [1, 2], "big": "ab" }),
        json!({ "n": 2 }),
        json!({ "items": items, "big": big }),
    )
    .await;
}

/// A string doubled by `&` in a `$reduce` (each step within every
/// built-in's bound) stops at the byte budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_string_doubled_step_by_step_stops_at_the_byte_budget() {
    stopped_by_the_budget(
        "concat",
        "double",
        json!({ "steps": 3, "seed": "ab" }),
        json!({ "n": 16 }),
        json!({ "steps": 40, "seed": "x".repeat(1024) }),
    )
    .await;
}

/// A list doubled by `$append` in a `$reduce` stops at the byte budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_doubled_step_by_step_stops_at_the_byte_budget() {
    stopped_by_the_budget(
        "append",
        "grow",
        json!({ "steps": 3, "seed": [1, 2] }),
        json!({ "n": 16 }),
        json!({ "steps": 40, "seed": [1, 2, 3, 4, 5, 6, 7, 8] }),
    )
    .await;
}
