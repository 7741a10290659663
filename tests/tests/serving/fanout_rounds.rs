//! Questions asked by the calls of `parallel` and `forEach` nodes reach the
//! caller, and each answer goes back to the call that asked, and to no
//! other: the downstream servers are two instances of the purpose-built
//! `questioner` (tests/src/bin/questioner.rs), which ask for a one-time
//! password under the same key and write down every request they receive
//! (its `requestState` and `inputResponses`, or the answer a session-era
//! question got). The Python SDK client answers each question with its own
//! message (`--elicit echo`), so an answer names the question it answers.

use std::path::PathBuf;

use mcpgraph_tests::*;
use serde_json::{Value, json};

/// How the downstream servers ask.
#[derive(Clone, Copy, Debug)]
enum Servers {
    /// MCP 2026-07-28: `input_required` with their own `requestState`.
    Rounds,
    /// The session era: an `elicitation/create` request while the call runs.
    Session,
}

/// The compiled `graphs/fanout_questions.yaml` with `alpha` and `beta`
/// pointed at the questioner (asking as `servers` says), both logging to
/// the returned file; served over HTTP with `http`.
async fn fixture(servers: Servers, http: bool, tag: &str) -> (Target, Option<HttpServer>, PathBuf) {
    let dir = std::env::temp_dir();
    let id = format!("{tag}-{}", std::process::id());
    let log = dir.join(format!("mcpgraph-fanout-questions-{id}.log"));
    let _ = std::fs::remove_file(&log);
    let questioner = env!("CARGO_BIN_EXE_questioner");
    let server = |name: &str| {
        let mut args = vec![json!(name), json!("--log"), json!(log)];
        if matches!(servers, Servers::Session) {
            args.push(json!("--session"));
        }
        json!({"command": questioner, "args": args, "timeoutMs": 30000})
    };
    let config = json!({"mcpServers": {"alpha": server("alpha"), "beta": server("beta")}});
    let mcp = dir.join(format!("mcpgraph-fanout-questions-{id}.json"));
    std::fs::write(&mcp, config.to_string()).expect("write --mcp file");
    let program = PathBuf::from(env!("CARGO_BIN_EXE_fanout_questions_fixture"));
    let mcp = mcp.to_string_lossy().into_owned();
    let (target, server) = program_target(&program, &["--mcp".to_owned(), mcp], http).await;
    (target, server, log)
}

/// The lines the questioners wrote.
fn received(log: &PathBuf) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The question a call of `server`'s `ask` for `slot` asks (and, answered
/// with `--elicit echo`, its answer).
fn question(server: &str, slot: &str) -> String {
    format!("one-time password for {server}/{slot}")
}

/// Every line a server wrote holds only its own state and answers: no
/// other server's name, and for the slot it was called for, that slot's
/// state and answer only.
fn only_own(lines: &[Value]) {
    for line in lines {
        let (server, slot) = (
            line["server"].as_str().unwrap(),
            line["slot"].as_str().unwrap(),
        );
        let other = if server == "alpha" { "beta" } else { "alpha" };
        let text = line.to_string();
        assert!(
            !text.contains(&format!("{other}/")),
            "`{server}` received what was meant for `{other}`: {line}"
        );
        let state = &line["requestState"];
        assert!(
            state.is_null() || *state == json!(format!("{server}/{slot}/state")),
            "`{server}`'s call for {slot} received another call's state: {line}"
        );
        let answers = [
            &line["inputResponses"]["password"]["content"]["name"],
            &line["answer"],
        ];
        for answer in answers.into_iter().filter(|a| !a.is_null()) {
            assert_eq!(
                *answer,
                json!(question(server, slot)),
                "`{server}`'s call for {slot} received another call's answer: {line}"
            );
        }
    }
}

/// How many lines of `tool` for `slot` there are (requests, and for a
/// session-era question its answer).
fn count(lines: &[Value], tool: &str, slot: &str, field: &str) -> usize {
    lines
        .iter()
        .filter(|l| l["tool"] == tool && l["slot"] == slot && !l[field].is_null())
        .count()
}

/// A `parallel` node whose branches a and b ask two different servers for
/// a password, and whose branch c asks nothing.
async fn parallel(servers: Servers, modern: bool, http: bool) {
    let tag = format!("both-{servers:?}-{modern}-{http}");
    let (target, server, log) = fixture(servers, http, &tag).await;
    let mut options = vec!["--elicit", "echo"];
    if modern {
        options.push("--modern");
    }
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([{"name": "both", "arguments": {}}]),
        &options,
    )
    .await;
    let server_log = server.as_ref().map(HttpServer::stderr).unwrap_or_default();
    let lines = received(&log);
    let context = format!("{run:?}\nreceived: {lines:#?}\nserver:\n{server_log}");
    // First: nothing reached a server that was not its own.
    only_own(&lines);
    assert_eq!(run.code, Some(0), "{context}");
    let (text, is_error) = call_text(run.calls()[0]);
    assert!(!is_error, "{text}\n{context}");
    assert_eq!(
        run.calls()[0]["result"]["structuredContent"],
        json!({
            "a": {"server": "alpha", "slot": "a", "answer": question("alpha", "a")},
            "b": {"server": "beta", "slot": "b", "answer": question("beta", "b")},
            "c": {"server": "alpha", "slot": "c"},
        }),
        "{context}"
    );
    assert_eq!(run.asked().len(), 2, "{context}");
    // Branch c was called once, though the node ran in two rounds: the
    // second replayed its result.
    assert_eq!(count(&lines, "plain", "c", "server"), 1, "{context}");
    for (server, slot) in [("alpha", "a"), ("beta", "b")] {
        let mine = |l: &&Value| l["server"] == server && l["slot"] == slot;
        let calls = lines.iter().filter(mine).filter(|l| l["answer"].is_null());
        match servers {
            // Asked, then called again with its answer (by the graph for a
            // session-era client, by the client's retry otherwise): two
            // calls.
            Servers::Rounds => {
                let states: Vec<&Value> = calls.map(|l| &l["requestState"]).collect();
                assert_eq!(
                    states,
                    [&Value::Null, &json!(format!("{server}/{slot}/state"))],
                    "{context}"
                );
            }
            // Asked in the call, which waited (parked, or live): one call,
            // and one answer.
            Servers::Session => {
                assert_eq!(calls.count(), 1, "{context}");
                let answers: Vec<&Value> = lines
                    .iter()
                    .filter(mine)
                    .filter(|l| !l["answer"].is_null())
                    .map(|l| &l["answer"])
                    .collect();
                assert_eq!(answers, [&json!(question(server, slot))], "{context}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn parallel_branches_get_their_own_answers_over_rounds() {
    parallel(Servers::Rounds, true, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn parallel_branches_get_their_own_answers_over_rounds_over_http() {
    parallel(Servers::Rounds, true, true).await;
}

/// Session-era servers asking a 2026-07-28 client: their calls wait,
/// parked, and each retry's answer reaches the parked call that asked it.
#[tokio::test(flavor = "multi_thread")]
async fn parallel_branches_parked_calls_get_their_own_answers() {
    parallel(Servers::Session, true, false).await;
}

/// A session-era client: the questions of both kinds of server are
/// forwarded in its session while the calls run.
#[tokio::test(flavor = "multi_thread")]
async fn parallel_branches_get_their_own_answers_in_a_session() {
    parallel(Servers::Session, false, false).await;
    parallel(Servers::Rounds, false, false).await;
}

/// A `forEach` of five items whose calls each ask once (two at a time):
/// one extra round answers all five, each item gets its own answer, and no
/// call is made more often than asking needs.
#[tokio::test(flavor = "multi_thread")]
async fn for_each_items_get_their_own_answers_in_one_extra_round() {
    let (target, _server, log) = fixture(Servers::Rounds, false, "each").await;
    let items = ["i0", "i1", "i2", "i3", "i4"];
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([{"name": "each", "arguments": {"items": items}}]),
        &["--modern", "--elicit", "echo"],
    )
    .await;
    let lines = received(&log);
    let context = format!("{run:?}\nreceived: {lines:#?}");
    // First: nothing reached a server that was not its own.
    only_own(&lines);
    assert_eq!(run.code, Some(0), "{context}");
    let (text, is_error) = call_text(run.calls()[0]);
    assert!(!is_error, "{text}\n{context}");
    let expected: Vec<Value> = items
        .iter()
        .map(|i| json!({"server": "alpha", "slot": i, "answer": question("alpha", i)}))
        .collect();
    // An array: the result's text (a tool without outputSchema has no
    // structuredContent but an object).
    let output: Value = serde_json::from_str(&text).expect("JSON text");
    assert_eq!(output, json!(expected), "{context}");
    // All five questions in one round.
    assert_eq!(run.asked().len(), 5, "{context}");
    // Each item's call: once asking, once with its answer; the node before
    // the forEach once.
    for item in items {
        let states: Vec<&Value> = lines
            .iter()
            .filter(|l| l["tool"] == "ask" && l["slot"] == item)
            .map(|l| &l["requestState"])
            .collect();
        assert_eq!(
            states,
            [&Value::Null, &json!(format!("alpha/{item}/state"))],
            "{context}"
        );
    }
    assert_eq!(count(&lines, "plain", "before", "server"), 1, "{context}");
    assert_eq!(lines.len(), 11, "{context}");
}

/// The same `forEach` over session-era servers, whose calls wait parked
/// (each holding one of the four connections a stdio server gets per set
/// of capabilities): the fifth item does not wait for a connection that
/// only the next round frees, it is asked in the next round; every item
/// gets its own answer, and each is called once.
#[tokio::test(flavor = "multi_thread")]
async fn for_each_parked_calls_do_not_wait_on_each_other() {
    let (target, _server, log) = fixture(Servers::Session, false, "each-parked").await;
    let items = ["i0", "i1", "i2", "i3", "i4"];
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([{"name": "each", "arguments": {"items": items}}]),
        &["--modern", "--elicit", "echo"],
    )
    .await;
    let lines = received(&log);
    let context = format!("{run:?}\nreceived: {lines:#?}");
    only_own(&lines);
    assert_eq!(run.code, Some(0), "{context}");
    let (text, is_error) = call_text(run.calls()[0]);
    assert!(!is_error, "{text}\n{context}");
    let output: Value = serde_json::from_str(&text).expect("JSON text");
    let expected: Vec<Value> = items
        .iter()
        .map(|i| json!({"server": "alpha", "slot": i, "answer": question("alpha", i)}))
        .collect();
    assert_eq!(output, json!(expected), "{context}");
    assert_eq!(run.asked().len(), 5, "{context}");
    for item in items {
        assert_eq!(count(&lines, "ask", item, "server"), 2, "{context}");
        assert_eq!(count(&lines, "ask", item, "answer"), 1, "{context}");
    }
}
