//! Micro-benchmarks of our side: JSONata evaluation through
//! `mcpgraph_runtime::testing::evaluate_standalone` (pre-parsed expression) and the
//! switch decision of the wide fan through `Execution::switch`, exactly as a
//! generated server runs it. Same cases and same method as
//! `bench/js/micro.mjs`: warm up, batches of about 20 ms, median per op.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpgraph_codegen::model::NodeKind;
use mcpgraph_downstream::ClientManager;
use mcpgraph_runtime::testing::evaluate_standalone;
use mcpgraph_runtime::testing::from_json;
use mcpgraph_runtime::{Execution, Expr, Limits, NodeType, Rule, Switch};
use serde_json::Value;

/// Median nanoseconds per call of `op`.
pub fn ns_per_op(quick: bool, mut op: impl FnMut()) -> f64 {
    let batches = if quick { 5 } else { 15 };
    let batch = Duration::from_millis(20);
    let mut iters: u64 = 1;
    let warm_end = Instant::now() + Duration::from_millis(if quick { 100 } else { 300 });
    while Instant::now() < warm_end {
        let t0 = Instant::now();
        for _ in 0..iters {
            op();
        }
        let dt = t0.elapsed();
        if dt < batch {
            let scaled = (iters as f64 * batch.as_secs_f64() / dt.as_secs_f64().max(1e-9)).ceil();
            iters = (iters * 2).max(scaled as u64);
        }
    }
    let mut samples: Vec<f64> = (0..batches)
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..iters {
                op();
            }
            t0.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Our figures: `{"jsonata": {case: ns}, "switch": {case: ns}}` like the
/// JavaScript side prints.
pub fn run(cases_path: &Path, graph_path: &Path, quick: bool) -> Result<Value, String> {
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(cases_path).map_err(|e| format!("{cases_path:?}: {e}"))?,
    )
    .map_err(|e| e.to_string())?;
    let data = from_json(&cases["data"]);
    let bindings = serde_json::Map::new();
    let mut jsonata = BTreeMap::new();
    for case in cases["expressions"].as_array().ok_or("no expressions")? {
        let name = case["name"].as_str().ok_or("case without name")?;
        let source = case["expr"].as_str().ok_or("case without expr")?.to_owned();
        let expr = Expr::parse(source).map_err(|e| e.to_string())?;
        evaluate_standalone(&expr, &data, &bindings, None, None)
            .map_err(|e| format!("{name}: {e}"))?;
        let ns = ns_per_op(quick, || {
            black_box(evaluate_standalone(&expr, black_box(&data), &bindings, None, None).ok());
        });
        jsonata.insert(name.to_owned(), Value::from(ns));
    }

    // The wide fan's switch, compiled as the generator compiles it.
    let (graph, _) = mcpgraph_codegen::load_file(graph_path).map_err(|d| d.to_string())?;
    let tool = graph
        .tools
        .iter()
        .find(|t| t.name.value == "wide")
        .ok_or("no `wide` tool")?;
    let mut fan = None;
    let mut rules = Vec::new();
    for node in &tool.nodes {
        match &node.kind {
            NodeKind::Transform { expr, .. } if node.id.value == "fan" => {
                fan = Some(Expr::parse(expr.source.clone()).map_err(|e| e.to_string())?);
            }
            NodeKind::Switch { conditions, .. } => {
                for condition in conditions {
                    let rewritten = mcpgraph_codegen::rewrite_rule(&condition.rule);
                    let vars: Vec<&'static str> = rewritten.vars.into_iter().map(leak).collect();
                    rules.push(Rule {
                        json: leak(rewritten.json),
                        vars: Box::leak(vars.into_boxed_slice()),
                        needs_context: rewritten.needs_context,
                    });
                }
            }
            _ => {}
        }
    }
    let fan = fan.ok_or("no `fan` node")?;
    let switch = Switch::new(&rules).map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    let clients = Arc::new(ClientManager::new(Vec::new(), runtime.handle().clone()));
    // The format's defaults, with room for the loop's iterations.
    let limits = Limits {
        max_node_executions: 5000,
        ..Limits::DEFAULT
    };
    let mut exec = Execution::new(&crate::workloads::wide_args(), limits, clients);
    let fail = |e: mcpgraph_runtime::NodeError| e.to_string();
    runtime
        .block_on(exec.enter("entry", NodeType::Entry))
        .map_err(fail)?;
    exec.entry().map_err(fail)?;
    runtime
        .block_on(exec.enter("fan", NodeType::Transform))
        .map_err(fail)?;
    exec.transform(&fan).map_err(fail)?;
    runtime
        .block_on(exec.enter("route", NodeType::Switch))
        .map_err(fail)?;
    let chosen = exec.switch(&switch).map_err(fail)?;
    if chosen != Some(rules.len() - 1) {
        return Err(format!(
            "the switch chose {chosen:?}, expected the last condition"
        ));
    }
    let ns = ns_per_op(quick, || {
        black_box(exec.switch(black_box(&switch)).ok());
    });
    let mut switch_out = serde_json::Map::new();
    switch_out.insert(
        "wide fan switch (20 conditions)".to_owned(),
        Value::from(ns),
    );
    Ok(serde_json::json!({ "jsonata": jsonata, "switch": switch_out }))
}
