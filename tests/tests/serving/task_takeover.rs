//! A task outlives its replica: two replicas on one real Redis (and one
//! state key file, which seals the task's journal), a task of twenty slow
//! calls started on A, A killed (SIGKILL) half-way; B takes the task over
//! once A's lease runs out, replays the journal (no call made again for a
//! recorded result) and finishes it. The call in flight when A died is
//! made again only for a tool the lock marks read-only; for any other the
//! task ends with a `task.interrupted` tool error naming the call.

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::{Value, json};

use super::tasks::{Client, fixture};

/// Each call of the test server's slow tools takes this long.
const CALL_MS: u64 = 250;

/// The items the log holds, one a line, in order.
fn logged(log: &std::path::Path) -> Vec<u64> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Starts `tool` on replica A of two sharing `redis`, kills A after about
/// eight items, and returns what B reports at the end, with the log.
async fn kill_half_way(redis: &RedisServer, tool: &str) -> (Value, Vec<u64>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let keys = dir.path().join("state.keys");
    std::fs::write(&keys, "k1=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\n").unwrap();
    std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o600)).unwrap();
    let log = dir.path().join("calls.log");
    let store = redis.url(1);
    let extra = [
        "--task-store",
        store.as_str(),
        "--state-key-file",
        keys.to_str().unwrap(),
    ];
    let a = fixture(&format!("takeover-a-{tool}"), &extra, Some("takeover")).await;
    let b = fixture(&format!("takeover-b-{tool}"), &extra, Some("takeover")).await;
    let mut on_a = Client::new(&a, true, Some("takeover"));
    let mut on_b = Client::new(&b, true, Some("takeover"));
    let id = on_a
        .start(tool, json!({ "log": log.to_str().unwrap(), "ms": CALL_MS }))
        .await;
    let end = Instant::now() + Duration::from_secs(20);
    while logged(&log).len() < 8 {
        assert!(Instant::now() < end, "{tool}: the calls did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(a); // SIGKILL (kill_on_drop)
    let killed = Instant::now();
    let task = on_b
        .wait_for(&id, "completed", Duration::from_secs(30))
        .await;
    eprintln!(
        "{tool}: completed on B {:?} after A was killed",
        killed.elapsed()
    );
    (task, logged(&log))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_goes_on_when_its_replica_dies() {
    let Some(redis) = RedisServer::start() else {
        return;
    };

    // Read-only calls: all twenty items, each called once but the one in
    // flight when A died (at most twice).
    let (task, log) = kill_half_way(&redis, "read_items").await;
    let result = &task["result"];
    assert_ne!(result["isError"], json!(true), "{task}");
    let text = result["content"][0]["text"].as_str().unwrap_or("null");
    let items: Vec<u64> = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .map(|a| a.iter().filter_map(|v| v["item"].as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(items, (1..=20).collect::<Vec<u64>>(), "{task}");
    for item in 1..=20u64 {
        let calls = log.iter().filter(|&&i| i == item).count();
        assert!(
            (1..=2).contains(&calls),
            "item {item} called {calls} times: {log:?}"
        );
    }
    assert!(log.len() <= 21, "at most the call in flight twice: {log:?}");

    // Writes: the call in flight is not made again; the task says so.
    let (task, log) = kill_half_way(&redis, "write_items").await;
    assert_eq!(task["result"]["isError"], json!(true), "{task}");
    let text = task["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(
        text.contains("in flight") && text.contains("each"),
        "{task}"
    );
    let mut seen = log.clone();
    seen.dedup();
    assert_eq!(seen.len(), log.len(), "no item written twice: {log:?}");
}
