//! Questions for a client of MCP 2026-07-28: a graph call waiting for
//! answers ends with `input_required` and a sealed `requestState`; the
//! client's retry resumes it (replaying what earlier rounds got, so no
//! downstream call is made twice). The Python SDK's high-level client
//! drives the rounds; the downstream server is the test server's `ask`,
//! which asks the 2026-07-28 way too.

use mcpgraph_tests::*;
use serde_json::json;

use super::questions::{asked, target, text_of};

async fn two_rounds(http: bool) {
    let (target, server) = target(http, &format!("rounds-{http}")).await;
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([
            {"name": "ask_twice", "arguments": {}},
            {"name": "downstream_calls", "arguments": {}},
        ]),
        &["--modern", "--elicit", "accept", "--sample", "A fine mind."],
    )
    .await;
    let log = server.as_ref().map(HttpServer::stderr).unwrap_or_default();
    assert_eq!(run.code, Some(0), "{run:?}\nserver:\n{log}");
    assert_eq!(run.lines[0]["protocolVersion"], "2026-07-28", "{run:?}");
    let calls = run.calls();
    let (text, is_error) = text_of(calls[0]);
    assert!(!is_error, "{text}\n{log}");
    assert_eq!(
        calls[0]["result"]["structuredContent"],
        json!({"user": "Ada Lovelace", "opinion": "A fine mind.", "before": "before"}),
        "{run:?}"
    );
    let questions = asked(&run);
    assert_eq!(questions.len(), 2, "{questions:?}");
    assert_eq!(questions[0]["method"], "elicitation/create");
    assert_eq!(questions[1]["method"], "sampling/createMessage");
    // `before` ran once, `ask` three times (two rounds asked), then `stats`:
    // the retries replayed `before` instead of calling it again.
    assert_eq!(
        calls[1]["result"]["structuredContent"]["calls"],
        json!(5),
        "{run:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_modern_client_answers_over_stdio() {
    two_rounds(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_modern_client_answers_over_http() {
    two_rounds(true).await;
}
