//! A case's answers to the graph's `elicit` nodes, and the test harness as
//! the client that gives them.
//!
//! The harness calls the tool as a client of MCP 2026-07-28 would: when the
//! graph asks, the call ends with the questions (`input_required`, each
//! under the asking node's id), and the harness calls again with the
//! case's answers; the retry replays what the earlier rounds got (their
//! downstream replies and answers) and goes on. So the answers enter where
//! any client's answers enter ([`Rounds`]), and nothing in the engine knows
//! a test is running. A question the case does not answer fails the case,
//! naming the node and its message.
//!
//! The harness declares form elicitation only for a graph that has an
//! `elicit` node: a downstream server is told what the client declared (and
//! such a client gets connections of its own), so the calls of any other
//! graph are made exactly as by a client that declares nothing.
//!
//! A node reached more than once (a loop) takes the answers given for it
//! as a list, in order; one answer may be written without the list.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use rmcp::model::{ClientCapabilities, ElicitRequestParams, InputRequest, InputResponses};
use serde::Deserialize;
use serde_json::{Map, Value};

use mcpgraph_runtime::Answer;
use mcpgraph_runtime::ErrorKind;
use mcpgraph_runtime::GraphDef;
use mcpgraph_runtime::{CallOptions, CallOutcome, Engine};
use mcpgraph_runtime::{Caller, Rounds, Saved};
use mcpgraph_runtime::{NodeRecord, NodeType};

/// The answers of a case, by node id.
pub(crate) type Answers = BTreeMap<String, Given>;

/// What a case answers a node: one answer, or one per time it asks.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Given {
    One(Reply),
    Many(Vec<Reply>),
}

impl Given {
    fn replies(&self) -> &[Reply] {
        match self {
            Given::One(reply) => std::slice::from_ref(reply),
            Given::Many(replies) => replies,
        }
    }
}

/// One answer, as a user's client sends it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Reply {
    #[serde(deserialize_with = "action")]
    action: Answer,
    /// The form's fields, with `accept` only.
    #[serde(default)]
    content: Option<Map<String, Value>>,
}

fn action<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Answer, D::Error> {
    let text = String::deserialize(d)?;
    [Answer::Accept, Answer::Decline, Answer::Cancel]
        .into_iter()
        .find(|a| a.as_str() == text)
        .ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown action `{text}`: an answer's action is accept, decline or cancel"
            ))
        })
}

impl Reply {
    /// The client's result (an `ElicitResult`).
    fn result(&self) -> Value {
        let mut result = Map::new();
        result.insert("action".to_owned(), self.action.as_str().into());
        if let Some(content) = &self.content {
            result.insert("content".to_owned(), Value::Object(content.clone()));
        }
        Value::Object(result)
    }
}

/// How a case's call went: its outcome (the last round's), the answers
/// the harness gave (by node, in order), and why it stopped short if a
/// question went unanswered.
pub(crate) struct Answered {
    pub(crate) outcome: CallOutcome,
    pub(crate) given: BTreeMap<String, Vec<Answer>>,
    pub(crate) unanswered: Option<String>,
    /// Answers the case gives that no question took.
    pub(crate) unused: Vec<String>,
}

/// Whether `graph` has an `elicit` node: whether the harness is a client
/// that can be asked.
pub(crate) fn asks_user(graph: &GraphDef) -> bool {
    graph
        .map
        .and_then(|map| serde_json::from_str::<crate::coverage::Map>(map).ok())
        .is_some_and(|map| {
            map.tools
                .iter()
                .flat_map(|t| &t.nodes)
                .any(|n| n.node_type == "elicit")
        })
}

/// Calls `tool` with `args`, recording its execution; when the graph
/// `asks` the user, answers its questions from `answers` until the call
/// ends.
pub(crate) async fn call(
    engine: &Engine,
    tool: &str,
    args: &Map<String, Value>,
    answers: &Answers,
    asks: bool,
) -> Answered {
    if !asks {
        let options = CallOptions {
            record: true,
            ..CallOptions::default()
        };
        return Answered {
            outcome: engine.call_with(tool, Some(args.clone()), options).await,
            given: BTreeMap::new(),
            unanswered: None,
            unused: answers.keys().map(|node| format!("`{node}`")).collect(),
        };
    }
    let mut left: BTreeMap<&str, VecDeque<&Reply>> = answers
        .iter()
        .map(|(node, given)| (node.as_str(), given.replies().iter().collect()))
        .collect();
    let mut given: BTreeMap<String, Vec<Answer>> = BTreeMap::new();
    let (mut saved, mut responses) = (Saved::default(), InputResponses::new());
    loop {
        let round = Arc::new(Rounds::new(saved, responses));
        let options = CallOptions {
            record: true,
            caller: Some(Caller::rounds(Some(&capabilities()), Arc::clone(&round))),
            ..CallOptions::default()
        };
        let outcome = engine.call_with(tool, Some(args.clone()), options).await;
        let waits = matches!(&outcome.result, Err(e) if e.kind() == ErrorKind::InputRequired);
        let Some((requests, next)) = waits.then(|| round.asked()).flatten() else {
            return Answered {
                outcome,
                given,
                unanswered: None,
                unused: unused(&left),
            };
        };
        responses = InputResponses::new();
        for (node, request) in &requests {
            let Some(reply) = left.get_mut(node.as_str()).and_then(VecDeque::pop_front) else {
                let asked = given.get(node).map_or(0, Vec::len);
                return Answered {
                    outcome,
                    unanswered: Some(unanswered(node, request, asked)),
                    given,
                    unused: Vec::new(),
                };
            };
            given.entry(node.clone()).or_default().push(reply.action);
            responses.insert(node.clone(), reply.result());
        }
        saved = next;
    }
}

/// What the harness declares: form elicitation, the answers a case gives.
fn capabilities() -> ClientCapabilities {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(Default::default());
    capabilities
}

/// Why the case fails: node `node` asked `request` (after `asked` answers
/// given to it), and the case has no answer for it.
fn unanswered(node: &str, request: &InputRequest, asked: usize) -> String {
    let InputRequest::Elicitation(request) = request else {
        return format!(
            "`{node}` asked the calling client something a test case cannot answer (only an \
             `elicit` node's question is answered from `answers`)"
        );
    };
    let message = match &request.params {
        ElicitRequestParams::FormElicitationParams { message, .. }
        | ElicitRequestParams::UrlElicitationParams { message, .. } => message.as_str(),
        _ => "",
    };
    let which = match asked {
        0 => format!("the case gives no answer for `{node}`"),
        n => format!("the case gives `{node}` {n} answer(s), and it asked again"),
    };
    format!(
        "node `{node}` asked the user {message:?}, and {which}: give one in the case's \
         `answers: {{ {node}: {{ action: accept, content: {{ ... }} }} }}` (or decline, cancel; \
         a list answers a node that asks more than once, in order)"
    )
}

/// The answers no question took, as `node` (a count when several).
fn unused(left: &BTreeMap<&str, VecDeque<&Reply>>) -> Vec<String> {
    left.iter()
        .filter(|(_, replies)| !replies.is_empty())
        .map(|(node, replies)| format!("`{node}` ({})", replies.len()))
        .collect()
}

/// The routes the answers `given` took in a call whose execution record is
/// `records`: `(node, answer)` for each `elicit` node that went on (its
/// n-th run took its n-th answer).
pub(crate) fn routes_taken(
    records: &[NodeRecord],
    given: &BTreeMap<String, Vec<Answer>>,
) -> Vec<(String, &'static str)> {
    let mut runs: BTreeMap<&str, usize> = BTreeMap::new();
    let mut taken = Vec::new();
    for record in records.iter().filter(|r| r.node_type == NodeType::Elicit) {
        let run = runs.entry(&record.node).or_default();
        let answer = given.get(&record.node).and_then(|a| a.get(*run));
        *run += 1;
        if let (Some(answer), Ok(_)) = (answer, &record.outcome) {
            taken.push((record.node.clone(), answer.as_str()));
        }
    }
    taken
}
