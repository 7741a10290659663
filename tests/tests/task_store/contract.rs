//! The contract every store keeps, run against each. `make` gives two
//! handles on one fresh, empty store: the same object twice for memory,
//! two `RedisStore`s on one database (two replicas) for Redis.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpgraph_tasks::{
    JOURNAL_MAX_ENTRIES, Outcome, Status, StoreError, StoreLimits, TaskId, TaskStore,
};
use serde_json::{Value, json};

pub(crate) type Pair = (Arc<dyn TaskStore>, Arc<dyn TaskStore>);

pub(crate) fn limits() -> StoreLimits {
    StoreLimits {
        max_live: 100,
        ttl: Duration::from_secs(60),
        poll_interval: Duration::from_millis(500),
    }
}

fn answers(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().expect("an object").clone()
}

/// Every case, at once (each on its own store).
pub(crate) async fn run_all(make: &(dyn Fn(StoreLimits) -> Pair + Sync)) {
    tokio::join!(
        basics(make(limits())),
        questions(make(limits())),
        answers_across_replicas(make(limits())),
        cancellation(make(limits())),
        finishing(make(limits())),
        expiry(make(StoreLimits {
            max_live: 1,
            ttl: Duration::from_millis(500),
            ..limits()
        })),
        cap(make(StoreLimits {
            max_live: 2,
            ..limits()
        })),
        journal((make(limits()), make(limits()))),
        leases(make(limits())),
    );
}

async fn basics((a, b): Pair) {
    let task = a.create("alice", "slow").await.unwrap();
    assert_eq!(task.status, Status::Working);
    assert_eq!((task.owner.as_str(), task.tool.as_str()), ("alice", "slow"));
    assert_eq!((task.ttl_ms, task.poll_interval_ms), (60_000, 500));
    assert!(task.input_requests.is_empty() && task.outcome.is_none() && !task.cancel_requested);
    assert_eq!(task.id.as_str().len(), 32, "128 bits as hex");
    assert_eq!(TaskId::parse(task.id.as_str()), Some(task.id.clone()));
    // Durable: the other replica reads it at once.
    assert_eq!(b.get(&task.id, "alice").await.unwrap(), Some(task.clone()));
    // Another owner's task is a missing one.
    assert_eq!(b.get(&task.id, "mallory").await.unwrap(), None);
    assert!(!b.cancel(&task.id, "mallory").await.unwrap());
    let taken = b.answer(&task.id, "mallory", answers(json!({"k": 1})));
    assert!(!taken.await.unwrap());
    assert!(
        !a.get(&task.id, "alice")
            .await
            .unwrap()
            .unwrap()
            .cancel_requested
    );
    let unknown = TaskId::parse("0123456789abcdef0123456789abcdef").unwrap();
    assert_eq!(a.get(&unknown, "alice").await.unwrap(), None);
    assert!(!a.cancel(&unknown, "alice").await.unwrap());
    let other = a.create("alice", "slow").await.unwrap();
    assert_ne!(other.id, task.id);
}

async fn questions((a, b): Pair) {
    let task = a.create("alice", "form").await.unwrap();
    let id = &task.id;
    b.ask(id, "name".into(), json!({"message": "Name?"}))
        .await
        .unwrap();
    b.ask(id, "ok".into(), json!({"message": "Sure?"}))
        .await
        .unwrap();
    let again = b.ask(id, "name".into(), json!({})).await;
    assert_eq!(again, Err(StoreError::AlreadyAsked { key: "name".into() }));
    let seen = a.get(id, "alice").await.unwrap().unwrap();
    assert_eq!(seen.status, Status::InputRequired);
    let keys: Vec<_> = seen.input_requests.keys().cloned().collect();
    assert_eq!(keys, ["name", "ok"]);
    assert_eq!(seen.input_requests["name"], json!({"message": "Name?"}));
    // A partial answer, with a key nobody asked: the other question stays.
    let partial = answers(json!({"name": {"v": "Alice"}, "nobody": 1}));
    assert!(a.answer(id, "alice", partial).await.unwrap());
    let seen = a.get(id, "alice").await.unwrap().unwrap();
    assert_eq!(seen.status, Status::InputRequired);
    assert_eq!(seen.input_requests.keys().collect::<Vec<_>>(), ["ok"]);
    assert!(
        a.answer(id, "alice", answers(json!({"ok": true})))
            .await
            .unwrap()
    );
    let seen = a.get(id, "alice").await.unwrap().unwrap();
    assert_eq!(seen.status, Status::Working);
    assert!(seen.input_requests.is_empty());
    // An answer to a question already answered is ignored.
    let late = answers(json!({"name": "Bob"}));
    assert!(a.answer(id, "alice", late).await.unwrap());
    // Each answer is returned once, on either replica.
    let short = Duration::from_millis(100);
    let name = b.wait_answer(id, "name", short).await.unwrap();
    assert_eq!(name, Some(json!({"v": "Alice"})));
    assert_eq!(a.wait_answer(id, "name", short).await.unwrap(), None);
    assert_eq!(
        a.wait_answer(id, "ok", short).await.unwrap(),
        Some(json!(true))
    );
    let unknown = TaskId::parse("ffffffffffffffffffffffffffffffff").unwrap();
    let gone = b.ask(&unknown, "k".into(), json!({})).await;
    assert_eq!(gone, Err(StoreError::Gone));
}

async fn answers_across_replicas((a, b): Pair) {
    let task = a.create("alice", "form").await.unwrap();
    let id = &task.id;
    a.ask(id, "q".into(), json!({"message": "?"}))
        .await
        .unwrap();
    // Nothing yet: the wait ends at its timeout.
    let started = Instant::now();
    let none = a.wait_answer(id, "q", Duration::from_millis(200)).await;
    assert_eq!(none.unwrap(), None);
    assert!(started.elapsed() >= Duration::from_millis(200));
    // The runner waits on replica A; the answer comes through replica B.
    let started = Instant::now();
    let answer_later = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let answered = b.answer(id, "alice", answers(json!({"q": "yes"})));
        assert!(answered.await.unwrap());
    };
    let (got, ()) = tokio::join!(
        a.wait_answer(id, "q", Duration::from_secs(10)),
        answer_later
    );
    assert_eq!(got.unwrap(), Some(json!("yes")));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(3), "the answer took {took:?}");
}

async fn cancellation((a, b): Pair) {
    let task = a.create("alice", "slow").await.unwrap();
    let id = &task.id;
    a.ask(id, "q".into(), json!({})).await.unwrap();
    // Not cancelled: `cancelled` does not resolve.
    let early = tokio::time::timeout(Duration::from_millis(300), a.cancelled(id)).await;
    assert!(early.is_err(), "cancelled() resolved before any cancel");
    let cancel_later = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(b.cancel(id, "alice").await.unwrap());
    };
    let watched = tokio::time::timeout(Duration::from_secs(5), a.cancelled(id));
    let (watched, ()) = tokio::join!(watched, cancel_later);
    watched
        .expect("cancelled() resolves after a cancel")
        .unwrap();
    let seen = a.get(id, "alice").await.unwrap().unwrap();
    assert!(seen.cancel_requested);
    // A cancelled task's wait for an answer ends at once (however long
    // the wait).
    let started = Instant::now();
    let waited = a.wait_answer(id, "q", Duration::MAX).await;
    assert_eq!(waited.unwrap(), None);
    assert!(started.elapsed() < Duration::from_secs(3));
    a.finish(id, Status::Cancelled, None).await.unwrap();
    let seen = b.get(id, "alice").await.unwrap().unwrap();
    assert_eq!((seen.status, seen.outcome), (Status::Cancelled, None));
    assert!(seen.input_requests.is_empty());
    // Cancelling an ended task is accepted and changes nothing.
    let done = a.create("alice", "slow").await.unwrap();
    let result = Outcome::Result(json!({"content": []}));
    a.finish(&done.id, Status::Completed, Some(result.clone()))
        .await
        .unwrap();
    assert!(b.cancel(&done.id, "alice").await.unwrap());
    let seen = a.get(&done.id, "alice").await.unwrap().unwrap();
    assert_eq!(seen.status, Status::Completed);
    assert!(!seen.cancel_requested);
    assert_eq!(seen.outcome, Some(result));
}

async fn finishing((a, b): Pair) {
    let task = a.create("alice", "slow").await.unwrap();
    let id = &task.id;
    a.set_message(id, "node fetch, item 3".into())
        .await
        .unwrap();
    let seen = b.get(id, "alice").await.unwrap().unwrap();
    assert_eq!(seen.status_message.as_deref(), Some("node fetch, item 3"));
    assert!(seen.updated_at_ms >= seen.created_at_ms);
    a.ask(id, "q".into(), json!({})).await.unwrap();
    let bad = a.finish(id, Status::Working, None).await;
    assert!(matches!(bad, Err(StoreError::Invalid(_))), "{bad:?}");
    let bad = a.finish(id, Status::Completed, None).await;
    assert!(matches!(bad, Err(StoreError::Invalid(_))), "{bad:?}");
    let result = Outcome::Result(json!({"content": [{"type": "text", "text": "done"}]}));
    b.finish(id, Status::Completed, Some(result.clone()))
        .await
        .unwrap();
    // Finishing again, on either replica, keeps the first end.
    let error = Outcome::Error {
        code: -32603,
        message: "late".into(),
    };
    a.finish(id, Status::Failed, Some(error.clone()))
        .await
        .unwrap();
    b.finish(id, Status::Cancelled, None).await.unwrap();
    let seen = a.get(id, "alice").await.unwrap().unwrap();
    assert_eq!(
        (seen.status, seen.outcome),
        (Status::Completed, Some(result))
    );
    assert!(seen.input_requests.is_empty());
    // An ended task takes no message and no question.
    a.set_message(id, "late".into()).await.unwrap();
    let seen = a.get(id, "alice").await.unwrap().unwrap();
    assert_eq!(seen.status_message.as_deref(), Some("node fetch, item 3"));
    assert_eq!(
        a.ask(id, "r".into(), json!({})).await,
        Err(StoreError::Gone)
    );
    // A failed task carries its error.
    let failed = b.create("alice", "slow").await.unwrap();
    a.finish(&failed.id, Status::Failed, Some(error.clone()))
        .await
        .unwrap();
    let seen = b.get(&failed.id, "alice").await.unwrap().unwrap();
    assert_eq!((seen.status, seen.outcome), (Status::Failed, Some(error)));
}

async fn expiry((a, b): Pair) {
    let task = a.create("alice", "slow").await.unwrap();
    let id = &task.id;
    a.append_journal(id, json!(1)).await.unwrap();
    assert!(b.get(id, "alice").await.unwrap().is_some());
    // The one running task is the cap of 1.
    assert_eq!(
        b.create("alice", "slow").await,
        Err(StoreError::Full { max_live: 1 })
    );
    // A runner watching for cancellation stops when its task expires.
    let watched = tokio::time::timeout(Duration::from_secs(5), b.cancelled(id));
    let expired = tokio::time::sleep(Duration::from_millis(700));
    let (watched, ()) = tokio::join!(watched, expired);
    watched.expect("cancelled() resolves at expiry").unwrap();
    assert_eq!(a.get(id, "alice").await.unwrap(), None);
    assert_eq!(b.get(id, "alice").await.unwrap(), None);
    assert!(b.journal(id).await.unwrap().is_empty());
    assert!(!a.claim(id, "A", Duration::from_secs(1)).await.unwrap());
    assert!(!a.cancel(id, "alice").await.unwrap());
    let waited = a.wait_answer(id, "q", Duration::from_secs(1)).await;
    assert_eq!(waited, Err(StoreError::Gone));
    // An expired task no longer counts against the cap.
    b.create("alice", "slow").await.unwrap();
}

async fn cap((a, b): Pair) {
    let first = a.create("alice", "slow").await.unwrap();
    b.create("bob", "slow").await.unwrap();
    // The cap counts the tasks of every replica and owner.
    assert_eq!(
        a.create("carol", "slow").await,
        Err(StoreError::Full { max_live: 2 })
    );
    assert_eq!(
        b.create("carol", "slow").await,
        Err(StoreError::Full { max_live: 2 })
    );
    let result = Some(Outcome::Result(json!({})));
    b.finish(&first.id, Status::Completed, result)
        .await
        .unwrap();
    // An ended task is still readable, but not running.
    assert!(a.get(&first.id, "alice").await.unwrap().is_some());
    a.create("carol", "slow").await.unwrap();
}

async fn journal(((a, b), (full, _)): (Pair, Pair)) {
    let task = a.create("alice", "slow").await.unwrap();
    let id = &task.id;
    for i in 0..5 {
        let store = if i % 2 == 0 { &a } else { &b };
        store
            .append_journal(id, json!({"n": i, "big": u64::MAX}))
            .await
            .unwrap();
    }
    let entries = b.journal(id).await.unwrap();
    let expected: Vec<Value> = (0..5).map(|i| json!({"n": i, "big": u64::MAX})).collect();
    assert_eq!(entries, expected);
    let unknown = TaskId::parse("00000000000000000000000000000000").unwrap();
    assert!(a.journal(&unknown).await.unwrap().is_empty());
    assert_eq!(
        a.append_journal(&unknown, json!(1)).await,
        Err(StoreError::Gone)
    );
    // The entry cap.
    let task = full.create("alice", "slow").await.unwrap();
    let appends = (0..JOURNAL_MAX_ENTRIES).map(|i| full.append_journal(&task.id, json!(i)));
    for appended in futures::future::join_all(appends).await {
        appended.unwrap();
    }
    let over = full.append_journal(&task.id, json!("over")).await;
    assert!(
        matches!(&over, Err(StoreError::JournalFull { limit }) if limit.contains("entries")),
        "{over:?}"
    );
    assert_eq!(
        full.journal(&task.id).await.unwrap().len(),
        JOURNAL_MAX_ENTRIES
    );
}

async fn leases((a, b): Pair) {
    let lease = Duration::from_millis(800);
    let task = a.create("alice", "slow").await.unwrap();
    let id = &task.id;
    // Never claimed: an orphan, once older than the grace given (a younger
    // one is still being started).
    assert!(b.orphans(Duration::from_secs(60)).await.unwrap().is_empty());
    assert_eq!(
        b.orphans(Duration::ZERO).await.unwrap(),
        std::slice::from_ref(id)
    );
    assert!(a.claim(id, "A", lease).await.unwrap());
    assert!(
        a.claim(id, "A", lease).await.unwrap(),
        "a holder may claim again"
    );
    assert!(!b.claim(id, "B", lease).await.unwrap());
    assert!(b.orphans(Duration::ZERO).await.unwrap().is_empty());
    assert!(a.renew(id, "A", lease).await.unwrap());
    assert!(!b.renew(id, "B", lease).await.unwrap());
    // Replica A stops renewing (it died): the task is an orphan, B takes it.
    tokio::time::sleep(lease + Duration::from_millis(300)).await;
    assert_eq!(
        b.orphans(Duration::ZERO).await.unwrap(),
        std::slice::from_ref(id)
    );
    assert!(b.claim(id, "B", lease).await.unwrap());
    assert!(!a.renew(id, "A", lease).await.unwrap(), "A's lease is lost");
    assert!(b.renew(id, "B", lease).await.unwrap());
    assert!(a.orphans(Duration::ZERO).await.unwrap().is_empty());
    // An ended task is nobody's orphan, and cannot be claimed.
    b.finish(id, Status::Cancelled, None).await.unwrap();
    tokio::time::sleep(lease + Duration::from_millis(300)).await;
    assert!(a.orphans(Duration::ZERO).await.unwrap().is_empty());
    assert!(!a.claim(id, "A", lease).await.unwrap());
}
