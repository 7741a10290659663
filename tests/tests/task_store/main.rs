//! The task stores (`mcpgraph-tasks`) against one contract (contract.rs): the
//! memory store, and the Redis store on a real redis-server started here,
//! with two `RedisStore`s on one database playing two replicas. Then what
//! only Redis can do: go away and come back.

mod contract;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use contract::{Pair, limits};
use mcpgraph_tasks::{
    MemoryStore, OpenError, RedisStore, StoreError, StoreLimits, TaskStore, open,
};
use mcpgraph_tests::RedisServer;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_store_keeps_the_contract() {
    contract::run_all(&|limits| {
        let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new(limits));
        (store.clone(), store)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_keeps_the_contract() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    // Each case on a database of its own (the server has 64).
    let next_db = AtomicUsize::new(1);
    let make = |limits: StoreLimits| -> Pair {
        let url = server.url(next_db.fetch_add(1, Ordering::Relaxed));
        let a = RedisStore::new(&url, limits).expect("a Redis URL");
        let b = open(&url, limits).expect("a Redis URL");
        (Arc::new(a), b)
    };
    contract::run_all(&make).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_outage_is_unavailable_at_once_then_recovers() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let store = open(&server.url(0), limits()).unwrap();
    let task = store.create("alice", "slow").await.unwrap();
    server.kill();
    // Every call fails quickly with a cause, none hangs: the first on the
    // dropped connection, the next ones while reconnecting.
    for round in 0..3 {
        let started = Instant::now();
        let got = store.get(&task.id, "alice").await;
        let took = started.elapsed();
        assert!(
            matches!(&got, Err(StoreError::Unavailable(why)) if !why.is_empty()),
            "round {round}: {got:?}"
        );
        assert!(took < Duration::from_secs(2), "round {round} took {took:?}");
        let created = store.create("alice", "slow").await;
        assert!(
            matches!(created, Err(StoreError::Unavailable(_))),
            "{created:?}"
        );
    }
    // Redis is back (empty: the tests run it without persistence).
    server.restart();
    let deadline = Instant::now() + Duration::from_secs(5);
    let task = loop {
        match store.create("alice", "slow").await {
            Ok(task) => break task,
            Err(e) => assert!(Instant::now() < deadline, "no recovery within 5 s: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(store.get(&task.id, "alice").await.unwrap().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_keys_are_prefixed_and_expire_with_their_task() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let ttl = Duration::from_secs(30);
    let store = open(&server.url(0), StoreLimits { ttl, ..limits() }).unwrap();
    let task = store.create("alice", "slow").await.unwrap();
    let id = &task.id;
    store.ask(id, "q".into(), json!({})).await.unwrap();
    store.ask(id, "r".into(), json!({})).await.unwrap();
    let answered = store.answer(id, "alice", json!({"q": 1}).as_object().unwrap().clone());
    assert!(answered.await.unwrap());
    store.append_journal(id, json!("entry")).await.unwrap();
    // A lease longer than the task has left ends with the task.
    assert!(
        store
            .claim(id, "A", Duration::from_secs(3600))
            .await
            .unwrap()
    );
    let mut redis = redis::Client::open(server.url(0).as_str())
        .and_then(|c| c.get_connection())
        .expect("a plain connection to the test's Redis");
    let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut redis).unwrap();
    keys.sort();
    let task_key = format!("mcpgraph:task:{{{id}}}");
    let mut expected: Vec<String> = ["", ":answers", ":asked", ":asks", ":journal", ":lease"]
        .iter()
        .map(|suffix| format!("{task_key}{suffix}"))
        .chain(["mcpgraph:task:live".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(keys, expected);
    for key in keys.iter().filter(|k| k.starts_with(&task_key)) {
        let left: i64 = redis::cmd("PTTL").arg(key).query(&mut redis).unwrap();
        assert!(
            left > 25_000 && left <= 30_000,
            "{key} expires in {left} ms"
        );
    }
}

#[tokio::test]
async fn a_store_nobody_listens_on_is_unavailable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let store = open(&format!("redis://127.0.0.1:{port}/0"), limits()).unwrap();
    let started = Instant::now();
    let created = store.create("alice", "slow").await;
    assert!(
        matches!(created, Err(StoreError::Unavailable(_))),
        "{created:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn urls_name_the_bad_part_and_never_the_password() {
    assert!(open("memory", limits()).is_ok());
    assert!(open("redis://127.0.0.1:6379/2", limits()).is_ok());
    assert!(open("valkey://user:pw@127.0.0.1/0", limits()).is_ok());
    assert!(open("rediss://:pw@127.0.0.1:6380/0", limits()).is_ok());
    let error = |url: &str| open(url, limits()).err().expect("an error");
    assert_eq!(
        error("memroy"),
        OpenError::UnknownScheme {
            scheme: "memroy".into()
        }
    );
    assert_eq!(
        error("mysql://root:hunter2@db/x"),
        OpenError::UnknownScheme {
            scheme: "mysql://".into()
        }
    );
    let bad = error("redis://:hunter2@127.0.0.1:6379/notadb");
    assert!(matches!(bad, OpenError::BadUrl { .. }), "{bad:?}");
    let text = bad.to_string();
    assert!(
        text.contains(":***@127.0.0.1") && !text.contains("hunter2"),
        "{text}"
    );
    for junk in ["hunter2-is-my-long-password!", ":hunter2@host"] {
        assert!(!error(junk).to_string().contains("hunter2"));
    }
    let zero = StoreLimits {
        max_live: 0,
        ..limits()
    };
    assert!(matches!(open("memory", zero), Err(OpenError::BadLimits(_))));
    let forever = StoreLimits {
        ttl: Duration::MAX,
        ..limits()
    };
    assert!(matches!(
        open("memory", forever),
        Err(OpenError::BadLimits(_))
    ));
}
