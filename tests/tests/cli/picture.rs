//! The graph pictures (issue 47) as a person sees them: a real failed call
//! of the fan_out example (`call --trace --json`, its filesystem server
//! unavailable) drawn by `mcpgraph graph --html --trace`, and a test run's
//! coverage drawn by `mcpgraph test --coverage-html`, both opened in
//! headless Chromium (tests/browser/page.mjs, over the DevTools protocol):
//! every node is in the page, the failed node is marked, the nodes the
//! cases never ran are marked, and neither page asks for anything. The
//! screenshots stay in target/artifacts/graph-picture/.

use std::path::Path;
use std::time::{Duration, Instant};

use mcpgraph_tests::*;
use serde_json::Value;

use crate::graph_cases::{run, scratch, unavailable};

/// `mcpgraph ARGS` in `dir`, within `limit`.
async fn mcpgraph(dir: &Path, args: &[&str], limit: Duration) -> CliOutput {
    ensure_programs_built();
    let mut cmd = tokio::process::Command::new(bin_path("mcpgraph"));
    cmd.args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(limit, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("mcpgraph {args:?}: no end after {limit:?}"))
        .unwrap();
    CliOutput {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What page.mjs saw of each page: its `data-node` elements as (tool,
/// node, classes), the requests it made, its screenshot.
fn open_in_chromium(pages: &[&Path], shots: &Path) -> Vec<Value> {
    let script = repo_root().join("tests/browser/page.mjs");
    let out = std::process::Command::new(which("node").expect("node on PATH"))
        .arg(script)
        .arg(chromium_exe())
        .arg(shots)
        .args(pages)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "page.mjs failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Every node of fan_out.yaml, as (tool, node).
fn every_node() -> Vec<(String, String)> {
    let path = example_yaml("fan_out");
    let source = std::fs::read_to_string(&path).unwrap();
    let graph = mcpgraph_codegen::load_str(&source, "fan_out.yaml").unwrap();
    graph
        .tools
        .iter()
        .flat_map(|t| {
            t.nodes
                .iter()
                .map(|n| (t.name.value.clone(), n.id.value.clone()))
        })
        .collect()
}

/// The classes of node `node` of tool `tool` in what page.mjs saw.
fn classes<'a>(page: &'a Value, tool: &str, node: &str) -> &'a str {
    page["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["tool"] == tool && n["node"] == node)
        .and_then(|n| n["classes"].as_str())
        .unwrap_or_else(|| panic!("no node {tool}/{node} in {}", page["page"]))
}

#[tokio::test]
async fn a_failed_call_and_a_test_runs_coverage_open_in_chromium() {
    let started = Instant::now();
    let dir = scratch("picture");
    let shots = artifacts_dir("graph-picture");

    // A real failed call: the filesystem server cannot start.
    let mcp = unavailable(&dir, &["filesystem", "everything"]);
    let call = run(
        "fan_out",
        &mcp,
        &[
            "call",
            "--trace",
            "--json",
            "read_directory",
            r#"{"directory":"."}"#,
        ],
    )
    .await;
    assert_eq!(call.code, Some(1), "{call:?}");
    let report: Value = serde_json::from_str(&call.stdout).unwrap();
    assert_eq!(report["tool"], "read_directory");
    assert!(report.get("result").is_none(), "{report}");
    let trace = report["trace"].as_array().unwrap();
    assert_eq!(trace.len(), 2, "{report}");
    assert_eq!(trace[1]["node"], "list");
    assert!(
        trace[1]["error"]
            .as_str()
            .unwrap()
            .contains("cannot start downstream server `filesystem`"),
        "{report}"
    );
    let call_json = dir.join("failed-call.json");
    std::fs::write(&call_json, &call.stdout).unwrap();
    let page = shots.join("failed-call.html");
    let graph = example_yaml("fan_out");
    let drawn = mcpgraph(
        &dir,
        &[
            "graph",
            "--html",
            page.to_str().unwrap(),
            "--trace",
            call_json.to_str().unwrap(),
            graph.to_str().unwrap(),
        ],
        TIMEOUT,
    )
    .await;
    assert_eq!(drawn.code, Some(0), "{drawn:?}");

    // A test run of one case: read_directory and the error route untaken.
    let junit = dir.join("fan_out-junit.xml");
    let manifest = example_dir("fan_out").join("Cargo.toml");
    let tested = mcpgraph(
        &dir,
        &[
            "test",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--coverage-html",
            "--",
            "--filter",
            "asks three",
            "--junit",
            junit.to_str().unwrap(),
        ],
        // It builds the example alone, with its own features: in a fresh
        // target directory, the runtime once more.
        Duration::from_secs(900),
    )
    .await;
    assert_eq!(tested.code, Some(0), "{tested:?}");
    let coverage = dir.join("fan_out-junit.coverage.html");
    assert!(
        tested
            .stderr
            .contains(&format!("coverage picture: {}", coverage.display())),
        "{tested:?}"
    );
    let coverage_page = shots.join("coverage.html");
    std::fs::copy(&coverage, &coverage_page).unwrap();

    let seen = open_in_chromium(&[&page, &coverage_page], &shots);
    assert_eq!(seen.len(), 2);
    for page in &seen {
        for (tool, node) in every_node() {
            classes(page, &tool, &node);
        }
        assert_eq!(page["requests"], serde_json::json!([]), "{}", page["page"]);
        let shot = Path::new(page["screenshot"].as_str().unwrap());
        assert!(std::fs::metadata(shot).unwrap().len() > 10_000, "{shot:?}");
    }
    let traced = &seen[0];
    assert!(classes(traced, "read_directory", "list").contains("failed"));
    assert!(classes(traced, "read_directory", "entry").contains("ran"));
    assert!(classes(traced, "read_directory", "each").contains("not-run"));
    let covered = &seen[1];
    assert!(classes(covered, "overview", "unavailable").contains("missed"));
    assert!(classes(covered, "read_directory", "list").contains("missed"));
    assert!(!classes(covered, "overview", "lookup").contains("missed"));
    eprintln!(
        "graph pictures: {:?}, screenshots in {}",
        started.elapsed(),
        shots.display()
    );
}
