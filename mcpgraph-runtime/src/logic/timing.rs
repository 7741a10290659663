//! Timing of rule evaluation alone (no JSONata): typical switch rules, and
//! the bench's wide fan (`bench/graphs/bench.yaml`, tool `wide`) as one
//! decision over its 20 rules. Run in release, by hand:
//!
//! ```text
//! cargo test --release -p mcpgraph-runtime --lib logic::timing -- --ignored --nocapture
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use jsonata_core::value::JValue;
use serde_json::json;

use super::Logic;
use mcpgraph_expr::logic::SLOT_KEY;

/// `{"var": ...}` as the generator lowers the `i`th one.
fn slot(i: usize) -> serde_json::Value {
    json!({"val": [SLOT_KEY, i.to_string()]})
}

/// Median nanoseconds per call over batches of about 10 ms.
fn ns_per_op(mut op: impl FnMut()) -> f64 {
    let mut iters: u64 = 1;
    let warm_end = Instant::now() + Duration::from_millis(200);
    while Instant::now() < warm_end {
        let t0 = Instant::now();
        for _ in 0..iters {
            op();
        }
        if t0.elapsed() < Duration::from_millis(10) {
            iters *= 2;
        }
    }
    let mut samples: Vec<f64> = (0..21)
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

/// The wide fan's rules with the values its `var`s read for the bench's
/// arguments (`a` 7, `s` "bench", `items` [1..5]); the last one holds.
fn wide_fan() -> Vec<(Logic, Vec<JValue>)> {
    let mut rules = Vec::new();
    for k in 1..=5 {
        let k = f64::from(k);
        let shout = JValue::from(format!("BENCH-{k}").as_str());
        rules.push((json!({"==": [slot(0), -1]}), vec![JValue::Number(7.0 + k)]));
        if k < 5.0 {
            rules.push((
                json!({">": [slot(0), 100000]}),
                vec![JValue::Number(15.0 + k)],
            ));
            rules.push((json!({"in": ["zzz", slot(0)]}), vec![shout]));
            rules.push((
                json!({"and": [slot(0), {"<": [slot(1), 0]}]}),
                vec![JValue::Bool(k < 2.0), JValue::Number(7.0 * k)],
            ));
        } else {
            rules.push((json!({">": [slot(0), 100000]}), vec![JValue::Number(20.0)]));
            rules.push((json!({"in": ["zzz", slot(0)]}), vec![shout]));
        }
    }
    rules.push((json!({">=": [slot(0), 0]}), vec![JValue::Number(8.0)]));
    rules
        .into_iter()
        .map(|(rule, slots)| (Logic::compile(&rule).unwrap(), slots))
        .collect()
}

#[test]
#[ignore = "a measurement: run by hand in release"]
fn rule_evaluation_timing() {
    let context = JValue::Null;
    let rules = wide_fan();
    assert_eq!(rules.len(), 20);
    let decide = || {
        rules
            .iter()
            .position(|(logic, slots)| logic.decide(black_box(slots), &context) == Ok(true))
    };
    assert_eq!(decide(), Some(19));
    let ns = ns_per_op(|| {
        black_box(decide());
    });
    println!("wide fan, 20 rules per decision: {ns:.0} ns");

    let cases = [
        (
            "== slot string",
            json!({"==": [slot(0), "abc"]}),
            vec![JValue::from("abd")],
        ),
        (
            "== slot number",
            json!({"==": [slot(0), -1]}),
            vec![JValue::Number(8.0)],
        ),
        (
            "> slot number",
            json!({">": [slot(0), 100000]}),
            vec![JValue::Number(16.0)],
        ),
        (
            "in literal slot",
            json!({"in": ["zzz", slot(0)]}),
            vec![JValue::from("BENCH-1")],
        ),
        (
            "and slot <",
            json!({"and": [slot(0), {"<": [slot(1), 0]}]}),
            vec![JValue::Bool(true), JValue::Number(7.0)],
        ),
        (
            "== slot slot",
            json!({"==": [slot(0), slot(1)]}),
            vec![JValue::from("x"), JValue::Number(1.0)],
        ),
        (
            "or of ==",
            json!({"or": [{"==": [slot(0), "a"]}, {"==": [slot(0), "b"]}, {"==": [slot(0), "c"]}]}),
            vec![JValue::from("c")],
        ),
    ];
    for (name, rule, slots) in cases {
        let logic = Logic::compile(&rule).unwrap();
        let ns = ns_per_op(|| {
            black_box(logic.decide(black_box(&slots), &context).ok());
        });
        println!("{name}: {ns:.1} ns per rule");
    }
}
