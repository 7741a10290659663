//! A task outlives its replica: two replicas on one real Redis (and one
//! state key file, which seals the task's journal) behind nginx, a task of
//! twenty slow calls started on A, A killed (SIGKILL) half-way; through
//! nginx, B is seen running the task again within the lease (and one scan
//! for orphans), having replayed the journal (no call made again for a
//! recorded result), then finishing it. The call in flight when A died is
//! made again only for a tool the lock marks read-only; for any other the
//! task ends with a `task.interrupted` tool error naming the call. The
//! journal took at most one store write per call.

use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::{Value, json};

use super::tasks::{Client, fixture, shared_state_keys};

/// Each call of the test server's slow tools takes this long.
pub(super) const CALL_MS: u64 = 250;

/// How long after A's death B runs the task at most: the lease (6 s,
/// renewed every 2 s, so it runs out at most 6 s after the kill), one scan
/// for orphans (every second), and a second for a loaded machine.
pub(super) const RUNNING_AGAIN_WITHIN: Duration = Duration::from_secs(8);

/// Polls `tasks/get` of task `id` through `client` until the replica left
/// (`killed` the other) makes a call the log did not hold yet, or ends the
/// task: `working` or `completed` all along, within
/// [`RUNNING_AGAIN_WITHIN`]; `what` names the case in failures.
pub(super) async fn running_again(
    client: &mut Client,
    id: &str,
    log: &std::path::Path,
    killed: Instant,
    what: &str,
) {
    let made = logged(log).len();
    loop {
        let reply = client.get(id).await;
        let status = reply["result"]["status"].clone();
        assert!(
            status == json!("working") || status == json!("completed"),
            "{what}: {reply}"
        );
        if logged(log).len() > made || status == json!("completed") {
            return;
        }
        assert!(
            killed.elapsed() < RUNNING_AGAIN_WITHIN,
            "{what}: not running again {RUNNING_AGAIN_WITHIN:?} after A was killed: {reply}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The items the log holds, one a line, in order.
pub(super) fn logged(log: &std::path::Path) -> Vec<u64> {
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
    let keys = shared_state_keys(dir.path());
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
    let upstreams = [a.addr, b.addr];
    let nginx = Nginx::start(&format!("takeover-{tool}"), |_, port| {
        super::replicas::nginx_servers(port, &upstreams)
    })
    .await;
    let mut on_a = Client::new(&a, true, Some("takeover"));
    let nginx_addr = std::net::SocketAddr::from(([127, 0, 0, 1], nginx.port()));
    let mut via_nginx = Client::at(nginx_addr, true, Some("takeover"));
    let id = on_a
        .start(tool, json!({ "log": log.to_str().unwrap(), "ms": CALL_MS }))
        .await;
    let end = Instant::now() + Duration::from_secs(20);
    while logged(&log).len() < 8 {
        assert!(Instant::now() < end, "{tool}: the calls did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The status names the node, its calls done and the item running.
    let end = Instant::now() + Duration::from_secs(2);
    loop {
        let reply = on_a.get(&id).await;
        let message = reply["result"]["statusMessage"].as_str().unwrap_or("");
        if message.starts_with("running node `each`: ")
            && message.contains(" of 20 calls done; running item ")
        {
            break;
        }
        assert!(Instant::now() < end, "{tool}: status {reply}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(a); // SIGKILL (kill_on_drop)
    let killed = Instant::now();
    // Running again: B makes a call A did not (or ends the task, when the
    // call in flight may not be made again); `tasks/get` through nginx
    // reaches B all along.
    running_again(&mut via_nginx, &id, &log, killed, tool).await;
    eprintln!(
        "{tool}: running on B {:?} after A was killed",
        killed.elapsed()
    );
    let task = via_nginx
        .wait_for(&id, "completed", Duration::from_secs(30))
        .await;
    eprintln!(
        "{tool}: completed on B {:?} after A was killed",
        killed.elapsed()
    );
    drop(b);
    // The journal: the call, then one write per call begun (with the
    // result before it), and the last results.
    let limits = mcpgraph_tasks::StoreLimits {
        max_live: 10,
        ttl: Duration::from_secs(60),
        poll_interval: Duration::from_millis(500),
    };
    let store = mcpgraph_tasks::open(&store, limits).expect("the task store");
    let task_id = mcpgraph_tasks::TaskId::parse(&id).expect("a task id");
    let writes = store.journal(&task_id).await.expect("the journal").len();
    let calls = logged(&log).len();
    assert!(
        writes <= calls + 2,
        "{tool}: {writes} journal writes for {calls} calls"
    );
    eprintln!("{tool}: {writes} journal writes for {calls} calls");
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
