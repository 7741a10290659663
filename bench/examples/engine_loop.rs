//! Per-node cost in process, without any transport: the benchmark graph's
//! `loop` tool (2n + 3 nodes) called through the engine a few hundred
//! times. For profiling (`perf record`), and as a figure of its own.
//!
//! cargo run --release -p mcpgraph-bench --example engine_loop [-- N CALLS]

use std::time::Instant;

use mcpgraph::{CancellationToken, Engine};

mcpgraph::mcpgraph!("graphs/bench.yaml");
// As the served graph (bench/graph): the evaluation byte budget counted.
mcpgraph::allocator!();

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let calls: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let engine = Engine::start::<Server>(Vec::new(), 1).expect("engine");
    let arguments = serde_json::json!({ "n": n }).as_object().cloned();
    let want = serde_json::json!({ "sum": n * (n + 1) / 2, "n": n });
    for _ in 0..20 {
        let got = engine
            .call("loop", arguments.clone(), CancellationToken::new())
            .await
            .expect("loop call");
        assert_eq!(got, want);
    }
    let start = Instant::now();
    for _ in 0..calls {
        let got = engine
            .call("loop", arguments.clone(), CancellationToken::new())
            .await
            .expect("loop call");
        std::hint::black_box(got);
    }
    let per_call = start.elapsed() / calls;
    let nodes = 2 * n + 3;
    println!(
        "loop n={n}: {per_call:?} per call, {:.0} ns per node ({nodes} nodes)",
        per_call.as_nanos() as f64 / nodes as f64
    );
    engine.shutdown().await;
}
