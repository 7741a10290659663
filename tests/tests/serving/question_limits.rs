//! A downstream server cannot keep a call alive forever, nor flood its
//! caller (issue 42, items 4 and 5): `graphs/question_limits.yaml` served over HTTP
//! with its `hostile` server (the test server's `questioner` tools, in the
//! session era), called by the Python SDK client, which answers what it is
//! asked by itself.

use std::path::PathBuf;
use std::time::Instant;

use mcpgraph_tests::*;
use serde_json::json;

/// A `--mcp` file pointing `hostile` at the test server.
fn config(tag: &str) -> PathBuf {
    let config = json!({"mcpServers": {
        "hostile": {
            "command": env!("CARGO_BIN_EXE_mcpgraph-test-server"),
            "args": ["--legacy"],
            "timeoutMs": 30000,
        },
    }});
    let file = std::env::temp_dir().join(format!(
        "mcpgraph-question-limits-{tag}-{}.json",
        std::process::id()
    ));
    std::fs::write(&file, config.to_string()).expect("write --mcp file");
    file
}

async fn served(tag: &str) -> (Target, HttpServer) {
    let fixture = PathBuf::from(env!("CARGO_BIN_EXE_question_limits_fixture"));
    let mcp = config(tag).to_string_lossy().into_owned();
    let (target, server) = program_target(&fixture, &["--mcp".to_owned(), mcp], true).await;
    (target, server.expect("served over HTTP"))
}

async fn metrics(server: &HttpServer) -> String {
    let r = http_request(server.addr, "GET", "/metrics", &[], None).await;
    assert_eq!(r.status, 200, "{r:?}");
    r.body
}

/// `roots/list` and `elicitation/create` in turn, each answered by the SDK
/// client at once: the call fails once the 17th question comes (kind
/// `limit.questions`), no more than 16 reached the client, and the server
/// goes on serving (the next call asks once and gets its answer).
#[tokio::test(flavor = "multi_thread")]
async fn a_server_asking_question_after_question_stops_at_max_questions() {
    let (target, server) = served("forever").await;
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([
            {"name": "ask_forever", "arguments": {}},
            {"name": "ask_once", "arguments": {}},
        ]),
        &["--elicit", "accept", "--roots"],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run:?}\nserver:\n{}", server.stderr());
    let calls = run.calls();
    let (text, is_error) = call_text(calls[0]);
    assert!(is_error, "{text}");
    assert!(
        text.contains("maxQuestions (16)")
            && text.contains("node `ask`")
            && text.contains("`hostile`"),
        "{text}"
    );
    let asked = run.asked();
    let methods = |m: &str| asked.iter().filter(|q| q["method"] == m).count();
    // 16 of `ask_forever` (in turn; the 17th is refused before it reaches
    // the client), then the one of `ask_once`. Sometimes one or two more:
    // the server, cancelled, goes on asking (in turn) until it sees the
    // cancellation; what it asks after the failed call's end goes to the
    // call then on the connection (`ask_once`'s; see the report of issue
    // 42). In the runs seen, at most one of each kind came after the
    // 16th; CI once saw (9, 9).
    let counts = (methods("roots/list"), methods("elicitation/create"));
    assert!(
        (8..=9).contains(&counts.0) && (9..=10).contains(&counts.1),
        "{counts:?}: {asked:?}"
    );
    let (next, next_error) = call_text(calls[1]);
    assert!(!next_error && next.contains("answered: Accept"), "{next}");
    let metrics = metrics(&server).await;
    assert!(
        metrics.contains("mcpgraph_node_errors_total{kind=\"limit.questions\"} 1"),
        "{metrics}"
    );
}

/// An `isError` text of almost 16 MiB reaches the caller cut to 8 KiB, on
/// a char boundary, with the number of bytes left out; the warn log line
/// is as short.
#[tokio::test(flavor = "multi_thread")]
async fn a_16_mib_error_text_arrives_cut_to_8_kib() {
    let (target, server) = served("big").await;
    let run = run_sdk_client(
        Sdk::Python,
        &target,
        &json!([{"name": "big_error", "arguments": {}}]),
    )
    .await;
    assert_eq!(run.code, Some(0), "{run:?}");
    let (text, is_error) = call_text(run.calls()[0]);
    assert!(is_error);
    // "boom " then "é" up to (16 MiB - 1 KiB) bytes: see `questioner`.
    let sent = 5 + 2 * (((16 << 20) - 1024 - 5) / 2);
    let kept = &text[text.find("boom ").expect("the text")..];
    let (kept, rest) = kept.split_once("… [").expect("cut");
    let left_out: usize = rest
        .strip_suffix(" bytes left out]")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{rest}"));
    assert!(kept.len() <= 8192 && kept.len() > 8180, "{}", kept.len());
    assert_eq!(kept.len() + left_out, sent);
    assert!(text.len() < 8192 + 200, "{}", text.len());
    let log = server.stderr();
    assert!(log.contains("bytes left out"), "{}", log.len());
    let longest = log.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 16 << 10, "a log line of {longest} bytes");
}

/// A client that takes longer than `maxAnswerWaitMs` (1500 ms in the graph)
/// to answer: the call fails then, naming the node, the server and the
/// limit, rather than waiting for the answer.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_does_not_answer_is_cut_off_at_max_answer_wait() {
    let (target, server) = served("late").await;
    let started = Instant::now();
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([{"name": "ask_once", "arguments": {}}]),
        &["--elicit", "late"],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run:?}");
    let (text, is_error) = call_text(run.calls()[0]);
    assert!(is_error, "{text}");
    assert!(
        text.contains("maxAnswerWaitMs (1500 ms)")
            && text.contains("node `ask`")
            && text.contains("`hostile`"),
        "{text}"
    );
    // Cut off by the limit, not by the answer that came 8 s later.
    eprintln!("the call took {:?} in all", started.elapsed());
    let metrics = metrics(&server).await;
    assert!(
        metrics.contains("mcpgraph_node_errors_total{kind=\"limit.answer_wait\"} 1"),
        "{metrics}"
    );
}
