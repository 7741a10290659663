//! Questions for a client of MCP 2026-07-28: a graph call waiting for
//! answers ends with `input_required` and a sealed `requestState`; the
//! client's retry resumes it (replaying what earlier rounds got, so no
//! downstream call is made twice). The Python SDK's high-level client
//! drives the rounds; the downstream server is the test server's `ask`,
//! which asks the 2026-07-28 way too.

use mcpgraph_tests::*;
use serde_json::json;

use super::questions::target;

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
    let (text, is_error) = call_text(calls[0]);
    assert!(!is_error, "{text}\n{log}");
    assert_eq!(
        calls[0]["result"]["structuredContent"],
        json!({"user": "Ada Lovelace", "opinion": "A fine mind.", "before": "before"}),
        "{run:?}"
    );
    let questions = run.asked();
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

/// A session-era downstream server (server-everything) asks while its call
/// runs; a 2026-07-28 client hears the question as `input_required`, the
/// downstream call waits parked, and the retry's answer reaches it.
async fn session_era_questions(http: bool) {
    let (target, server) = target(http, &format!("parked-{http}")).await;
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([
            {"name": "ask_user", "arguments": {}},
            {"name": "ask_model", "arguments": {"prompt": "Why?"}},
        ]),
        &["--modern", "--elicit", "accept", "--sample", "Because."],
    )
    .await;
    let log = server.as_ref().map(HttpServer::stderr).unwrap_or_default();
    assert_eq!(run.code, Some(0), "{run:?}\nserver:\n{log}");
    let calls = run.calls();
    let (user, is_error) = call_text(calls[0]);
    assert!(!is_error, "{user}");
    assert!(
        user.contains("User provided the requested information"),
        "{user}"
    );
    let (model, is_error) = call_text(calls[1]);
    assert!(!is_error, "{model}");
    assert!(model.contains("Because."), "{model}");
    let questions = run.asked();
    assert_eq!(questions.len(), 2, "{questions:?}");
    assert_eq!(
        questions[0]["params"]["requestedSchema"]["properties"]["legacyTitledEnum"]["enumNames"][1],
        "Dogs"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_era_servers_question_reaches_a_modern_client_over_stdio() {
    session_era_questions(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_era_servers_question_reaches_a_modern_client_over_http() {
    session_era_questions(true).await;
}
