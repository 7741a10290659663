//! The switch row of the micro-benchmarks alone, repeated: the wide fan's
//! decision as `mcpgraph_bench::micro` measures it, without the JSONata
//! cases. For comparing evaluator changes quickly:
//! `cargo run --release -p mcpgraph-bench --example switch_micro [ROUNDS]`.

use std::path::Path;

fn main() -> Result<(), String> {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(Ok(5), |n| n.parse())
        .map_err(|e| format!("ROUNDS: {e}"))?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = std::env::temp_dir().join("mcpgraph-switch-micro-cases.json");
    std::fs::write(&cases, r#"{"data": {}, "expressions": []}"#).map_err(|e| e.to_string())?;
    let graph = root.join("graphs/bench.yaml");
    let mut figures = Vec::new();
    for _ in 0..rounds {
        let out = mcpgraph_bench::micro::run(&cases, &graph, false)?;
        let ns = out["switch"]["wide fan switch (20 conditions)"]
            .as_f64()
            .ok_or("no switch figure")?;
        println!("{ns:.0} ns per decision");
        figures.push(ns);
    }
    figures.sort_by(f64::total_cmp);
    if let Some(median) = figures.get(figures.len() / 2) {
        println!("median {median:.0} ns");
    }
    Ok(())
}
