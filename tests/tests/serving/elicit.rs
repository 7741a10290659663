//! The graph itself asks the user: `graphs/elicit.yaml`'s `elicit` nodes,
//! called by the Python and TypeScript SDK clients over stdio and
//! streamable HTTP. An answer, a decline and a cancel each take their
//! route and the answer is the node's output; an answer without a route,
//! an answer outside the form, and a client that cannot be asked each give
//! a tool error naming the node, never a hang.

use std::path::PathBuf;

use mcpgraph_tests::*;
use serde_json::{Value, json};

/// The compiled `graphs/elicit.yaml`.
fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_elicit_fixture"))
}

/// Where a client reaches the fixture: spawned over stdio, or served over
/// HTTP (the server is kept alive by the returned guard).
async fn target(http: bool) -> (Target, Option<HttpServer>) {
    program_target(&fixture(), &[], http).await
}

/// A call's result as JSON (its text parsed), or its error text.
fn result_of(call: &Value) -> Result<Value, String> {
    let (text, is_error) = call_text(call);
    if is_error {
        return Err(text);
    }
    serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}"))
}

/// `greet` and `must_answer`, answered `action` by `sdk` (with `--modern`:
/// the Python SDK's client of MCP 2026-07-28, asked with input_required).
async fn answer(sdk: Sdk, target: &Target, action: &str, modern: bool) -> SdkRun {
    let calls = json!([
        {"name": "greet", "arguments": {"greeting": "Hello"}},
        {"name": "must_answer", "arguments": {}},
    ]);
    let mut options = vec!["--elicit", action];
    if modern {
        options.push("--modern");
    }
    let run = run_sdk_client_with(sdk, target, &calls, &options).await;
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.calls().len(), 2, "{run:?}");
    run
}

async fn each_answer_takes_its_route(sdk: Sdk, http: bool) {
    answered(sdk, http, false).await;
}

async fn answered(sdk: Sdk, http: bool, modern: bool) {
    let (target, _server) = target(http).await;

    let run = answer(sdk, &target, "accept", modern).await;
    let calls = run.calls();
    assert_eq!(
        result_of(calls[0]),
        Ok(json!({"greeting": "Hello, Ada Lovelace", "answer": {"name": "Ada Lovelace"}})),
        "{run:?}"
    );
    assert_eq!(result_of(calls[1]), Ok(json!({"name": "Ada Lovelace"})));
    // The question reached the client as the graph wrote it: the message
    // evaluated, the form whole.
    let questions = run.asked();
    assert_eq!(questions.len(), 2, "{questions:?}");
    let params = &questions[0]["params"];
    assert_eq!(params["message"], "Hello, what is your name?", "{params}");
    let form = &params["requestedSchema"];
    assert_eq!(form["required"], json!(["name"]), "{form}");
    assert_eq!(form["properties"]["name"]["minLength"], 1, "{form}");
    assert_eq!(
        form["properties"]["colour"]["oneOf"][1],
        json!({"const": "blue", "title": "Blue"}),
        "{form}"
    );
    assert_eq!(form["properties"]["colour"]["default"], "blue", "{form}");
    assert_eq!(questions[1]["params"]["message"], "Your name, please");

    let run = answer(sdk, &target, "decline", modern).await;
    let calls = run.calls();
    assert_eq!(
        result_of(calls[0]),
        Ok(json!({"declined": true, "answer": null}))
    );
    assert_eq!(
        result_of(calls[1]),
        Err("node `ask`: the user declined to answer, and the node has no `decline` route".into())
    );

    let run = answer(sdk, &target, "cancel", modern).await;
    let calls = run.calls();
    assert_eq!(result_of(calls[0]), Ok(json!({"cancelled": true})));
    assert_eq!(
        result_of(calls[1]),
        Err(
            "node `ask`: the user cancelled the question, and the node has no `cancel` route"
                .into()
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_modern_client_answers_over_stdio() {
    answered(Sdk::Python, false, true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_modern_client_answers_over_http() {
    answered(Sdk::Python, true, true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_client_answers_over_stdio() {
    each_answer_takes_its_route(Sdk::Python, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_client_answers_over_http() {
    each_answer_takes_its_route(Sdk::Python, true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_client_answers_over_stdio() {
    each_answer_takes_its_route(Sdk::TypeScript, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_client_answers_over_http() {
    each_answer_takes_its_route(Sdk::TypeScript, true).await;
}

/// A client that declared no elicitation capability is not asked: the call
/// fails at once with a tool error naming the node and elicitation, and the
/// next call is served.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_without_elicitation_gets_a_clear_error() {
    for http in [false, true] {
        let (target, _server) = target(http).await;
        for sdk in [Sdk::Python, Sdk::TypeScript] {
            let run = run_sdk_client(
                sdk,
                &target,
                &json!([
                    {"name": "greet", "arguments": {"greeting": "Hi"}},
                    {"name": "greet", "arguments": {"greeting": "Hi again"}},
                ]),
            )
            .await;
            assert_eq!(run.code, Some(0), "{run:?}");
            assert!(run.asked().is_empty(), "{run:?}");
            for call in run.calls() {
                assert_eq!(
                    result_of(call),
                    Err(
                        "node `user_name`: cannot ask the user: it needed the calling client's \
                         `elicitation` capability, which it did not declare"
                            .into()
                    ),
                    "{sdk:?} over {}",
                    if http { "HTTP" } else { "stdio" }
                );
            }
        }
    }
}

/// An accepted answer that does not match the node's form fails the call
/// (later expressions never see it): the Python client answers every
/// question with a name, and `ask_age` asks for an integer.
#[tokio::test(flavor = "multi_thread")]
async fn an_answer_outside_the_form_is_refused() {
    let (target, _server) = target(false).await;
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([{"name": "ask_age", "arguments": {}}]),
        &["--elicit", "accept"],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run:?}");
    let error = result_of(run.calls()[0]).unwrap_err();
    assert!(
        error.starts_with(
            "node `ask`: the user's answer does not match the node's requestedSchema: /: \"age\" is a required property"
        ),
        "{error}"
    );
}

/// `call` on the command line has no client to ask.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_outside_a_session_cannot_ask() {
    let out = tokio::process::Command::new(fixture())
        .args(["call", "greet", r#"{"greeting": "Hi"}"#])
        .output()
        .await
        .expect("run the fixture");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "node `user_name`: cannot ask the user: a call made outside an MCP session has no client to ask, and elicitation needs one"
        ),
        "{stderr}"
    );
}
