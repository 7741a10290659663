//! A downstream server's questions reach the client of the graph call that
//! caused them: server-everything's `trigger-elicitation-request` (asks the
//! user) and `trigger-sampling-request` (asks the client's model), called
//! through `graphs/questions.yaml` by the Python and TypeScript SDK clients,
//! which answer, over stdio and streamable HTTP. A client that declared
//! nothing gets a tool error naming what the server needed, never a hang.

use std::path::PathBuf;

use mcpgraph_tests::*;
use serde_json::json;

/// The compiled `graphs/questions.yaml`.
pub(crate) fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_questions_fixture"))
}

/// A `--mcp` file pointing the graph's `everything` server at the pinned
/// server-everything over stdio.
pub(crate) fn everything_over_stdio(tag: &str) -> PathBuf {
    let js = repo_root()
        .join("peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        js.is_file(),
        "{} missing: run scripts/install-peers.sh",
        js.display()
    );
    let node = mcpgraph_tests::peers_node();
    let config = json!({"mcpServers": {
        "everything": {"command": node, "args": [js, "stdio"], "timeoutMs": 30000},
        "modern": {"command": env!("CARGO_BIN_EXE_mcpgraph-test-server")},
    }});
    let file = std::env::temp_dir().join(format!(
        "mcpgraph-questions-{tag}-{}.json",
        std::process::id()
    ));
    std::fs::write(&file, config.to_string()).expect("write --mcp file");
    file
}

/// Where a client reaches the fixture: spawned over stdio, or served over
/// HTTP (the server is kept alive by the returned guard).
pub(crate) async fn target(http: bool, tag: &str) -> (Target, Option<HttpServer>) {
    let mcp = everything_over_stdio(tag).to_string_lossy().into_owned();
    program_target(&fixture(), &["--mcp".to_owned(), mcp], http).await
}

async fn answered(sdk: Sdk, http: bool) {
    let tag = format!("{sdk:?}-{http}");
    let (target, server) = target(http, &tag).await;
    let calls = json!([
        {"name": "ask_user", "arguments": {}},
        {"name": "ask_model", "arguments": {"prompt": "What is 2+2?"}},
        {"name": "echo", "arguments": {"message": "still here"}},
    ]);
    let run = run_sdk_client_with(
        sdk,
        &target,
        &calls,
        &["--elicit", "accept", "--sample", "Four, said the model."],
    )
    .await;
    let server_log = server.as_ref().map(HttpServer::stderr).unwrap_or_default();
    assert_eq!(run.code, Some(0), "{run:?}\nserver:\n{server_log}");
    let calls = run.calls();
    let (user, user_error) = call_text(calls[0]);
    assert!(!user_error, "{user}");
    assert!(
        user.contains("User provided the requested information"),
        "{user}"
    );
    let (model, model_error) = call_text(calls[1]);
    assert!(!model_error, "{model}");
    assert!(model.contains("Four, said the model."), "{model}");
    assert!(
        call_text(calls[2]).0.contains("Echo: still here"),
        "{run:?}"
    );
    // The questions reached the client as the server asked them: the
    // elicitation with its whole form (enum shapes of SEP-1330 included),
    // the sampling request with the graph's prompt.
    let questions = run.asked();
    assert_eq!(questions.len(), 2, "{questions:?}");
    let form = &questions[0]["params"]["requestedSchema"]["properties"];
    assert_eq!(form["name"]["type"], "string", "{form}");
    assert_eq!(form["legacyTitledEnum"]["enumNames"][0], "Cats", "{form}");
    assert_eq!(
        form["titledMultipleSelectEnum"]["items"]["anyOf"][1]["title"], "Salmon",
        "{form}"
    );
    let prompt = questions[1]["params"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(prompt.contains("What is 2+2?"), "{prompt}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_client_answers_over_stdio() {
    answered(Sdk::Python, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_client_answers_over_http() {
    answered(Sdk::Python, true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_client_answers_over_stdio() {
    answered(Sdk::TypeScript, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_client_answers_over_http() {
    answered(Sdk::TypeScript, true).await;
}

/// A decline comes back to the server as a decline.
#[tokio::test(flavor = "multi_thread")]
async fn a_declined_question_is_the_servers_to_handle() {
    let (target, _server) = target(false, "decline").await;
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([{"name": "ask_user", "arguments": {}}]),
        &["--elicit", "decline"],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run:?}");
    let (text, _) = call_text(run.calls()[0]);
    assert!(text.contains("User declined"), "{text}");
}

/// A client that declared no capability: the server-everything tools that
/// ask are not even listed to a client that cannot answer, so the call
/// fails with a tool error naming the server and the tool, not a hang (the
/// client's own 20 s timeout would fail the run); the next call is served.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_without_the_capability_gets_a_clear_error() {
    for http in [false, true] {
        let (target, _server) = target(http, &format!("none-{http}")).await;
        let run = run_sdk_client(
            Sdk::TypeScript,
            &target,
            &json!([
                {"name": "ask_user", "arguments": {}},
                {"name": "echo", "arguments": {"message": "next"}},
            ]),
        )
        .await;
        assert_eq!(run.code, Some(0), "{run:?}");
        let (text, is_error) = call_text(run.calls()[0]);
        assert!(is_error, "{text}");
        assert!(
            text.contains("`everything`") && text.contains("trigger-elicitation-request"),
            "{text}"
        );
        assert!(run.asked().is_empty());
        assert!(
            call_text(run.calls()[1]).0.contains("Echo: next"),
            "{run:?}"
        );
    }
}
