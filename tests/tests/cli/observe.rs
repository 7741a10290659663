//! Observability: observer hooks and execution records (Rust API),
//! `call --trace`, progress notifications over MCP, and cancellation.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpgraph::ServerSpec;
use mcpgraph::{CallOptions, CancellationToken, Engine, NodeRecord, NodeType, Observer};
use mcpgraph_tests::{RawServer, run_cli, run_cli_with_env};
use serde_json::{Value, json};

mod semantics {
    // `args_walk` passes `"$.literal"` as a literal on purpose.
    mcpgraph::mcpgraph!(
        "graphs/semantics.yaml",
        allow(literal_looks_like_expression)
    );
}

mod limits {
    mcpgraph::mcpgraph!("graphs/limits.yaml");
}

mod loop_example {
    mcpgraph::mcpgraph!("../examples/loop_example/loop_example.yaml");
}

fn test_server() -> Vec<ServerSpec> {
    mcpgraph_tests::test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), 5000, &[])
}

#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Observer for Recorder {
    fn on_node_start(&self, tool: &str, index: usize, node: &str, node_type: NodeType) {
        self.0
            .lock()
            .unwrap()
            .push(format!("start {tool} #{index} {node} {node_type}"));
    }
    fn on_node_complete(&self, _tool: &str, record: &NodeRecord) {
        let output = record.outcome.as_ref().ok().cloned().flatten();
        self.0.lock().unwrap().push(format!(
            "done #{} {} {}",
            record.index,
            record.node,
            output.map_or("-".to_owned(), |v| v.to_string())
        ));
    }
    fn on_node_error(&self, _tool: &str, record: &NodeRecord) {
        let error = record.outcome.as_ref().err().map(|e| e.message());
        let error = error.unwrap_or_default();
        self.0
            .lock()
            .unwrap()
            .push(format!("error #{} {} {error}", record.index, record.node));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn observer_sees_every_node_in_order() {
    let recorder = Arc::new(Recorder::default());
    let engine = Engine::start::<semantics::Server>(test_server(), 1)
        .unwrap()
        .with_observer(recorder.clone());
    let out = engine
        .call(
            "history",
            json!({"n": 2}).as_object().cloned(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(out["runs"], json!([0, 1]));
    let events = recorder.0.lock().unwrap().clone();
    assert_eq!(events[0], "start history #0 entry entry");
    assert_eq!(events[1], r#"done #0 entry {"n":2}"#);
    assert_eq!(events[2], "start history #1 inc transform");
    assert_eq!(events[3], r#"done #1 inc {"i":0}"#);
    assert_eq!(events[5], r#"done #2 sw "inc""#);
    assert_eq!(events.last().unwrap(), "done #6 exit -");
    assert_eq!(events.len(), 14);

    recorder.0.lock().unwrap().clear();
    let err = engine
        .call("jsonata_error", None, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("custom failure"));
    let events = recorder.0.lock().unwrap().clone();
    assert!(
        events.last().unwrap().starts_with("error #1 bad ")
            && events.last().unwrap().contains("custom failure"),
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn execution_record_has_types_timing_and_outputs() {
    let engine = Engine::start::<semantics::Server>(test_server(), 1).unwrap();
    let options = CallOptions {
        record: true,
        ..CallOptions::default()
    };
    let outcome = engine
        .call_with(
            "after_switch",
            json!({"go": true}).as_object().cloned(),
            options,
        )
        .await;
    assert!(outcome.result.is_ok());
    let records = outcome.records.expect("records were asked for");
    let summary: Vec<(usize, &str, NodeType)> = records
        .iter()
        .map(|r| (r.index, r.node.as_str(), r.node_type))
        .collect();
    assert_eq!(
        summary,
        [
            (0, "entry", NodeType::Entry),
            (1, "sw", NodeType::Switch),
            (2, "yes", NodeType::Transform),
            (3, "exit", NodeType::Exit)
        ]
    );
    assert_eq!(records[1].outcome, Ok(Some(json!("yes"))));
    for pair in records.windows(2) {
        assert!(pair[0].start <= pair[1].start);
    }
    assert_eq!(records[3].to_json()["type"], "exit");
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_call_stops_it() {
    let engine = Engine::start::<limits::Server>(test_server(), 1).unwrap();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let err = engine.call("slow", None, cancel).await.unwrap_err();
    // Cancelled, not stopped by the graph's 400 ms time limit, and long
    // before the 3 s downstream call would have ended.
    assert!(err.to_string().contains("cancelled"), "{err}");
    assert!(
        started.elapsed() < Duration::from_millis(2000),
        "{:?}",
        started.elapsed()
    );
    // The engine serves the next call (that the downstream call itself is
    // cancelled, over the wire, is checked in cancel.rs and downstream.rs).
    let err = engine
        .call("forever", None, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("maximum node executions"));
}

#[tokio::test]
async fn call_trace_prints_the_execution_record() {
    let out = run_cli(
        "loop_example",
        &["call", "--trace", "sum_to_n", r#"{"n":2}"#],
    )
    .await;
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(out.stdout.trim()).unwrap(),
        json!({"sum": 3})
    );
    let lines: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(lines.len(), 7, "{}", out.stderr);
    assert!(lines[1].contains("increment_node") && lines[1].contains("transform"));
    assert!(lines[2].contains(r#"-> "increment_node""#));
}

/// `call --trace` of a `forEach` node: an entry per call (`each/0` ...,
/// indented, as each ends), then the node's; the record docs/FORMAT.md
/// shows.
#[tokio::test]
async fn call_trace_has_an_entry_per_call_of_a_fan_out_node() {
    let dir = mcpgraph_tests::TempDir::new("trace-parts");
    let mcp = crate::graph_cases::fan_out_servers(dir.path());
    let directory = mcpgraph_tests::counting_dir().display().to_string();
    let out = mcpgraph_tests::command_with_mcp("fan_out", &mcp)
        .args(["call", "--trace", "read_directory"])
        .arg(json!({ "directory": directory }).to_string())
        .stdin(std::process::Stdio::null())
        .output();
    let out = mcpgraph_tests::timed("fan_out call --trace", out)
        .await
        .expect("fan_out ran");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with('#')).collect();
    let nodes: Vec<&str> = lines
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    let files = std::fs::read_dir(&directory).unwrap().count();
    assert_eq!(lines.len(), 4 + files + 1, "{stderr}");
    assert_eq!(&nodes[..2], ["entry", "list"], "{stderr}");
    let mut items: Vec<&str> = nodes[2..2 + files].to_vec();
    items.sort_unstable();
    let mut want: Vec<String> = (0..files).map(|i| format!("each/{i}")).collect();
    want.sort_unstable();
    assert_eq!(items, want, "{stderr}");
    assert_eq!(&nodes[2 + files..], ["each", "texts", "exit"], "{stderr}");
    for line in &lines[2..2 + files] {
        assert!(
            line.starts_with("#2     each/")
                && line.contains(" forEach ")
                && line.contains("-> {\"content\":"),
            "{line}"
        );
    }
    assert!(lines[2 + files].starts_with("#2   each "), "{stderr}");
}

#[tokio::test]
async fn progress_is_reported_per_node_when_asked() {
    let mut server = RawServer::spawn("loop_example", &[]);
    server.initialize().await;
    let response = server
        .request(
            1,
            "tools/call",
            Some(json!({
                "name": "sum_to_n",
                "arguments": {"n": 3},
                "_meta": {"progressToken": "p-1"}
            })),
        )
        .await;
    assert_eq!(response["result"]["structuredContent"], json!({"sum": 6}));
    let progress: Vec<&Value> = server
        .received
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    // entry, 3 × (increment, check), exit_sum, exit_sum_final
    assert_eq!(progress.len(), 9, "{:?}", server.received);
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "p-1")
    );
    assert_eq!(progress[1]["params"]["message"], "node `increment_node`");
    let counts: Vec<f64> = progress
        .iter()
        .map(|p| p["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] < w[1]), "{counts:?}");

    // Without a token, no progress notifications.
    let before = server.received.len();
    server
        .request(
            2,
            "tools/call",
            Some(json!({"name": "sum_to_n", "arguments": {"n": 3}})),
        )
        .await;
    assert!(
        server.received[before..]
            .iter()
            .all(|m| m["method"] != "notifications/progress")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_arguments_name_the_path_and_the_rule_and_run_no_node() {
    let recorder = Arc::new(Recorder::default());
    let engine = Engine::start::<loop_example::Server>(Vec::new(), 1)
        .unwrap()
        .with_observer(recorder.clone());
    for (args, want) in [
        (
            json!({"n": "three"}),
            r#"invalid arguments: /n: "three" is not of type "number""#,
        ),
        (
            json!({}),
            r#"invalid arguments: /: "n" is a required property"#,
        ),
    ] {
        let err = engine
            .call(
                "sum_to_n",
                args.as_object().cloned(),
                CancellationToken::new(),
            )
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{args}: want {want:?} in {err:?}");
    }
    // The observer saw no node start: the graph never ran.
    assert!(recorder.0.lock().unwrap().is_empty(), "{:?}", recorder.0);
    // The same engine runs valid arguments.
    let ok = engine
        .call(
            "sum_to_n",
            json!({"n": 3}).as_object().cloned(),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(ok, Ok(json!({"sum": 6})));
}

/// Node spans on stderr: each closes with its id, type, index and duration,
/// a failing one with its error; `RUST_LOG` takes precedence over
/// `--log-level`, and the default level (warn) prints no spans.
#[tokio::test]
async fn node_spans_go_to_stderr_at_the_chosen_level() {
    let sum = ["call", "sum_to_n", r#"{"n": 2}"#];
    let quiet = run_cli_with_env("loop_example", &sum, &[("RUST_LOG", None)]).await;
    assert_eq!(quiet.code, Some(0), "{}", quiet.stderr);
    assert!(!quiet.stderr.contains("node{"), "{}", quiet.stderr);

    for (args, env) in [
        (["--log-level", "debug"], None),
        (["--log-level", "error"], Some("mcpgraph_runtime=debug")),
    ] {
        let args: Vec<&str> = args.iter().chain(&sum).copied().collect();
        let out = run_cli_with_env("loop_example", &args, &[("RUST_LOG", env)]).await;
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        let closes: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| l.contains("tool_call{tool=\"sum_to_n\"}:node{") && l.contains("close"))
            .collect();
        // entry, 2 × (increment, check), exit_sum, exit_sum_final
        assert_eq!(
            closes.len(),
            7,
            "{args:?} RUST_LOG={env:?}:\n{}",
            out.stderr
        );
        assert!(
            closes[1].contains("id=\"increment_node\"")
                && closes[1].contains("type=\"transform\"")
                && closes[1].contains("index=1")
                && closes[1].contains("duration_ms="),
            "{}",
            closes[1]
        );
        assert!(!out.stdout.contains("node{"), "spans never go to stdout");
    }

    // A node that fails: its span carries the error.
    let out = run_cli_with_env(
        "file_utils",
        &[
            "call",
            "count_files",
            r#"{"directory": "/nonexistent/mcpgraph"}"#,
        ],
        &[("RUST_LOG", Some("mcpgraph_runtime=debug"))],
    )
    .await;
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let failed = out
        .stderr
        .lines()
        .find(|l| l.contains("id=\"list_directory_node\"") && l.contains("error="))
        .unwrap_or_else(|| panic!("no failed node span:\n{}", out.stderr));
    assert!(failed.contains("type=\"mcp\""), "{failed}");
}
