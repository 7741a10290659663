//! One call never stalls the others: a long loop of transforms and
//! switches lets the other tasks of its worker run (a second call, the
//! cancellation of the loop itself), and new calls go to the least-loaded
//! worker.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpgraph::{CallOptions, CancellationToken, Engine, NodeType, Observer};
use serde_json::{Value, json};

mod spin {
    mcpgraph::mcpgraph!("graphs/spin.yaml");
}

async fn call(
    engine: &Engine,
    tool: &str,
    args: Value,
    cancel: CancellationToken,
) -> Result<Value, String> {
    let options = CallOptions {
        cancel,
        ..CallOptions::default()
    };
    engine
        .call_with(tool, args.as_object().cloned(), options)
        .await
        .result
        .map_err(|e| e.to_string())
}

/// How long one `work` node takes here (the loop's unit of work).
async fn one_round(engine: &Engine) -> Duration {
    let started = Instant::now();
    call(
        engine,
        "spin",
        json!({"rounds": 1}),
        CancellationToken::new(),
    )
    .await
    .expect("one round");
    started.elapsed()
}

/// `--workers 1`: a call spinning through thousands of transforms leaves
/// room for a quick call, and a cancellation frees the worker promptly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spinning_call_does_not_freeze_its_worker() {
    let engine = Engine::start::<spin::Server>(Vec::new(), 1).expect("engine starts");
    let round = one_round(&engine).await;
    eprintln!("one round of work: {round:?}");
    assert!(
        round >= Duration::from_millis(1),
        "each node must take 1 ms or more: {round:?}"
    );

    let cancel = CancellationToken::new();
    let spinning = tokio::spawn({
        let (engine, cancel) = (engine.clone(), cancel.clone());
        async move {
            let result = call(&engine, "spin", json!({"rounds": 100_000}), cancel).await;
            (result, Instant::now())
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    for _ in 0..3 {
        let started = Instant::now();
        let quick = tokio::time::timeout(
            Duration::from_secs(5),
            call(&engine, "quick", json!({"x": 1}), CancellationToken::new()),
        )
        .await
        .expect("the quick call was answered while the spinning one ran");
        let took = started.elapsed();
        eprintln!("quick call beside the spinning one: {took:?}");
        assert_eq!(quick, Ok(json!({"x": 1})));
        assert!(took < Duration::from_millis(250), "{took:?}");
    }
    assert!(
        !spinning.is_finished(),
        "the spinning call is still running"
    );
    let cancelled = Instant::now();
    cancel.cancel();
    let (result, ended) = tokio::time::timeout(Duration::from_secs(5), spinning)
        .await
        .expect("the cancellation stopped the spinning call")
        .expect("the spinning task");
    let freed = ended.duration_since(cancelled);
    eprintln!("cancel to a free worker: {freed:?} (one node: {round:?})");
    let err = result.expect_err("cancelled");
    assert!(err.contains("cancelled"), "{err}");
    assert!(freed < Duration::from_millis(50) + round * 2, "{freed:?}");
    engine.shutdown().await;
}

/// The worker thread each node ran on, per tool.
#[derive(Default)]
struct Threads(Mutex<Vec<(String, String)>>);

impl Observer for Threads {
    fn on_node_start(&self, tool: &str, _index: usize, _node: &str, _t: NodeType) {
        let thread = std::thread::current().name().unwrap_or_default().to_owned();
        self.0.lock().unwrap().push((tool.to_owned(), thread));
    }
}

/// With two workers, quick calls made while a long one runs all go to the
/// other worker (round robin would send every second one behind it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_calls_go_to_the_least_loaded_worker() {
    let threads = Arc::new(Threads::default());
    let engine = Engine::start::<spin::Server>(Vec::new(), 2)
        .expect("engine starts")
        .with_observer(threads.clone());
    let cancel = CancellationToken::new();
    let spinning = tokio::spawn({
        let (engine, cancel) = (engine.clone(), cancel.clone());
        async move { call(&engine, "spin", json!({"rounds": 100_000}), cancel).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    for i in 0..6 {
        let quick = call(&engine, "quick", json!({"i": i}), CancellationToken::new()).await;
        assert_eq!(quick, Ok(json!({"i": i})));
    }
    cancel.cancel();
    let _ = spinning.await;
    let seen = threads.0.lock().unwrap().clone();
    let spin_thread = &seen.iter().find(|(t, _)| *t == "spin").expect("spin ran").1;
    let quick: Vec<&String> = seen
        .iter()
        .filter(|(t, _)| *t == "quick")
        .map(|(_, th)| th)
        .collect();
    assert_eq!(quick.len(), 12, "entry and exit of six calls: {seen:?}");
    assert!(
        quick.iter().all(|th| *th != spin_thread),
        "a quick call ran on the busy worker {spin_thread}: {quick:?}"
    );
    engine.shutdown().await;
}

/// The stdio shape (`Engine::start_local`, one thread, a `LocalSet`): a
/// call runs on the serving thread itself, but quick calls made while it
/// spins still answer promptly, on a worker thread, and the spinning call
/// can be cancelled.
#[test]
fn a_spinning_call_on_the_serving_thread_leaves_room_for_quick_calls() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let threads = Arc::new(Threads::default());
        let engine = Engine::start_local::<spin::Server>(Vec::new(), Some(1))
            .expect("engine starts")
            .with_observer(threads.clone());
        let cancel = CancellationToken::new();
        let spinning = tokio::spawn({
            let (engine, cancel) = (engine.clone(), cancel.clone());
            async move { call(&engine, "spin", json!({"rounds": 100_000}), cancel).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        for i in 0..3 {
            let started = Instant::now();
            let quick = call(&engine, "quick", json!({"i": i}), CancellationToken::new()).await;
            let took = started.elapsed();
            eprintln!("quick call beside the spinning one: {took:?}");
            assert_eq!(quick, Ok(json!({"i": i})));
            assert!(took < Duration::from_millis(250), "{took:?}");
        }
        assert!(
            !spinning.is_finished(),
            "the spinning call is still running"
        );
        cancel.cancel();
        let err = tokio::time::timeout(Duration::from_secs(5), spinning)
            .await
            .expect("the cancellation stopped the spinning call")
            .expect("the spinning task")
            .expect_err("cancelled");
        assert!(err.contains("cancelled"), "{err}");
        // Alone again, a call runs on the serving thread.
        call(&engine, "quick", json!({"i": 9}), CancellationToken::new())
            .await
            .expect("a quick call alone");
        let here = std::thread::current().name().unwrap_or_default().to_owned();
        let seen = threads.0.lock().unwrap().clone();
        let on = |tool: &str| -> Vec<String> {
            seen.iter()
                .filter(|(t, _)| t == tool)
                .map(|(_, th)| th.clone())
                .collect()
        };
        assert!(on("spin").iter().all(|th| *th == here), "{seen:?}");
        let quick = on("quick");
        assert_eq!(quick.len(), 8, "entry and exit of four calls: {seen:?}");
        assert!(quick[..6].iter().all(|th| *th != here), "{seen:?}");
        assert!(quick[6..].iter().all(|th| *th == here), "{seen:?}");
        engine.shutdown().await;
    });
}
