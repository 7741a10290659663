//! The micro-benchmark rows: JSONata evaluation and a switch decision,
//! ours (`mcpgraph_bench::micro`) against node's (`bench/js/micro.mjs`),
//! rounds interleaved.

use std::process::{Command, Stdio};

use mcpgraph_bench::median;
use mcpgraph_bench::report::{Better, Cell, Row};
use serde_json::Value;

use crate::{Config, log};

pub(crate) fn micro_rows(config: &Config) -> Result<Vec<Row>, String> {
    let cases = config.root.join("bench/js/cases.json");
    let graph = config.root.join("bench/graphs/bench.yaml");
    let script = config.root.join("bench/js/micro.mjs");
    let rounds = if config.quick { 1 } else { 3 };
    let mut ours: Vec<Value> = Vec::new();
    let mut js: Vec<Value> = Vec::new();
    for round in 0..rounds {
        log(&format!("micro-benchmarks, round {}", round + 1));
        let mut run_js = || -> Result<(), String> {
            let mut cmd = Command::new("node");
            cmd.arg(&script).arg(&cases).stderr(Stdio::null());
            if config.quick {
                cmd.arg("--quick");
            }
            let output = cmd.output().map_err(|e| format!("node: {e}"))?;
            if !output.status.success() {
                return Err(format!("{} failed", script.display()));
            }
            js.push(serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?);
            Ok(())
        };
        if round % 2 == 0 {
            ours.push(mcpgraph_bench::micro::run(&cases, &graph, config.quick)?);
            run_js()?;
        } else {
            run_js()?;
            ours.push(mcpgraph_bench::micro::run(&cases, &graph, config.quick)?);
        }
    }
    let pick = |runs: &[Value], group: &str, name: &str| {
        let v: Vec<f64> = runs
            .iter()
            .filter_map(|r| r[group][name].as_f64())
            .collect();
        if v.is_empty() {
            Cell::na()
        } else {
            Cell::Value(median(&v))
        }
    };
    let mut rows = Vec::new();
    let names: Vec<String> = ours[0]["jsonata"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    // Keep the file's order.
    let cases_json: Value =
        serde_json::from_str(&std::fs::read_to_string(&cases).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let ordered: Vec<String> = cases_json["expressions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_owned))
                .filter(|n| names.contains(n))
                .collect()
        })
        .unwrap_or_default();
    // One row per case and JavaScript figure: ours against `js_group`.
    let row = |section, workload: &str, figure: &str, group: &str, js_group: &str| Row {
        section,
        workload: workload.to_owned(),
        figure: figure.to_owned(),
        unit: "ns",
        better: Better::Lower,
        ours: pick(&ours, group, workload),
        hand: Cell::na(),
        mcpgraph: pick(&js, js_group, workload),
        other: None,
        baseline: None,
    };
    for name in &ordered {
        let figure = "per evaluation, vs jsonata-js 2.2.2 compiled once";
        rows.push(row("micro: JSONata", name, figure, "jsonata", "jsonata"));
        let figure = "per evaluation, vs mcpGraph's evaluateJsonata";
        rows.push(row(
            "micro: JSONata",
            name,
            figure,
            "jsonata",
            "mcpgraph_path",
        ));
    }
    let switch = "wide fan switch (20 conditions)";
    let figure = "per decision (19 false, 20th true)";
    rows.push(row("micro: switch", switch, figure, "switch", "switch"));
    Ok(rows)
}
