//! Tests of the rounds of MCP 2026-07-28 calls: answers, replay, state.

use rmcp::model::{ElicitRequest, ElicitRequestParams, InputRequest};
use serde_json::json;

use super::*;

fn part(node: &str, part: &str) -> Slot {
    Slot {
        node: node.to_owned(),
        part: Some(part.to_owned()),
    }
}

fn password(message: &str) -> InputRequests {
    let params: ElicitRequestParams = serde_json::from_value(json!({
        "message": message,
        "requestedSchema": {"type": "object", "properties": {}}
    }))
    .unwrap();
    let mut requests = InputRequests::new();
    requests.insert(
        "password".to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(params)),
    );
    requests
}

/// Two calls of one node asking under the same key: the client is sent
/// both questions under keys of their own, and each call's retry gets
/// its own answer (under its server's key) and its own server's state.
#[test]
fn each_call_takes_its_own_answers_and_state() {
    let round = Rounds::default();
    round.ask_call(part("p", "a"), 1, password("for A"), Some("A".to_owned()));
    round.ask_call(part("p", "b"), 2, password("for B"), Some("B".to_owned()));
    let (requests, saved) = round.asked().unwrap();
    let keys: Vec<&String> = requests.keys().collect();
    assert_eq!(keys, ["p[a]/password", "p[b]#2/password"]);
    let saved: Saved = serde_json::from_value(serde_json::to_value(&saved).unwrap()).unwrap();
    let mut responses = InputResponses::new();
    responses.insert("p[a]/password".to_owned(), json!("answer A"));
    responses.insert("p[b]#2/password".to_owned(), json!("answer B"));
    let next = Rounds::new(saved, responses);
    assert_eq!(next.attempt(&part("p", "b")), Some(2));
    assert!(next.resume_call(&part("p", "b"), 1).is_none());
    let (answers, state) = next.resume_call(&part("p", "b"), 2).unwrap();
    assert_eq!(state.as_deref(), Some("B"));
    assert_eq!(answers.len(), 1);
    assert_eq!(answers["password"], json!("answer B"));
    let (answers, state) = next.resume_call(&part("p", "a"), 1).unwrap();
    assert_eq!(state.as_deref(), Some("A"));
    assert_eq!(answers["password"], json!("answer A"));
    assert!(next.resume_call(&part("p", "a"), 1).is_none(), "once");
}

/// The calls of a fan-out node are replayed by their own slot, in any
/// order; a call not on the tape is made; another node is off the tape.
#[test]
fn fan_out_calls_replay_by_slot() {
    let saved = Saved {
        tape: vec![
            (Slot::node("m"), json!("m")),
            (part("p", "2"), json!("two")),
            (part("p", "0"), json!("zero")),
            (Slot::node("q"), json!("q")),
        ],
        ..Saved::default()
    };
    let round = Rounds::new(saved, InputResponses::new());
    assert!(round.replay_call(&part("p", "0")).is_err(), "m comes first");
    assert_eq!(round.replay("m").unwrap(), Some(json!("m")));
    assert_eq!(
        round.replay_call(&part("p", "0")).unwrap(),
        Some(json!("zero"))
    );
    assert_eq!(round.replay_call(&part("p", "1")).unwrap(), None);
    assert_eq!(
        round.replay_call(&part("p", "2")).unwrap(),
        Some(json!("two"))
    );
    let off = round.replay_call(&part("r", "0")).unwrap_err();
    assert_eq!((off.expected.as_str(), off.reached.as_str()), ("q", "r[0]"));
    assert_eq!(round.replay("q").unwrap(), Some(json!("q")));
}

/// A state sealed before the format had a version (one question, keyed
/// by node id) is refused, saying why, not misread.
#[test]
fn a_state_of_another_format_is_refused() {
    let old = json!({"tape": [["m", {"content": []}]], "pending": {"node": "m", "keys": ["k"], "state": null}});
    let error = serde_json::from_value::<Saved>(old)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("another version of this server (state format 1"),
        "{error}"
    );
}

/// `maxQuestions` counts over every round: the count of the earlier
/// rounds comes back with the sealed state, and goes on in it.
#[test]
fn the_question_count_carries_over_rounds() {
    let saved: Saved =
        serde_json::from_value(serde_json::json!({"v": FORMAT, "tape": [], "asked": 10})).unwrap();
    let round = Rounds::new(saved, InputResponses::new());
    assert_eq!(round.count_questions(2), 12);
    round.ask("ask", InputRequests::new(), None);
    let (_, saved) = round.asked().expect("it stopped");
    assert_eq!(saved.asked, 12);
    // A state sealed before the count was kept reads as none asked.
    let old: Saved = serde_json::from_value(serde_json::json!({"v": FORMAT, "tape": []})).unwrap();
    assert_eq!(old.asked, 0);
}
