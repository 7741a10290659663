//! An `elicit` node: the graph asks the calling client's user a question
//! (a message and a flat form) and routes on the answer.
//!
//! Two seams are kept apart from the way the question travels, so that
//! another way of asking (MCP 2026-07-28's `input_required`) reuses them:
//! [`form_request`] makes the request of a message and a form, and
//! [`read_answer`] turns the client's result into the answer and the
//! node's output. Today the question is a server-to-client request on the
//! caller's session ([`Caller::ask`]).

use std::time::Instant;

use rmcp::model::{
    ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequests, ServerRequest,
};
use serde_json::Value;

use super::Execution;
use crate::error::{ErrorKind, NodeError, StartupError};
use crate::questions::{Caller, Rounds};
use mcpgraph_expr::json::from_json;
use mcpgraph_expr::parsed::Args;

/// The longest message about an answer that does not match the form (an
/// error can quote the answer, which the client chose).
const MAX_MISMATCH_CHARS: usize = 300;

/// The user's answer to an `elicit` node, which chooses its route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    /// The user filled in the form.
    Accept,
    /// The user declined to answer.
    Decline,
    /// The user dismissed the question.
    Cancel,
}

impl Answer {
    /// The answer's name in the graph file (the key of its route).
    pub const fn as_str(self) -> &'static str {
        match self {
            Answer::Accept => "accept",
            Answer::Decline => "decline",
            Answer::Cancel => "cancel",
        }
    }
}

/// An `elicit` node, built once at start-up: its message, its form, the
/// check of an accepted answer against the form, and the answers that have
/// a route.
pub struct Elicit {
    message: Args,
    form: ElicitationSchema,
    check: jsonschema::Validator,
    routed: Vec<Answer>,
}

impl std::fmt::Debug for Elicit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Elicit")
            .field("message", &self.message)
            .field("form", &self.form)
            .field("routed", &self.routed)
            .finish_non_exhaustive()
    }
}

impl Elicit {
    /// A node asking `message` (a literal string or an expression) with
    /// the form `schema` (JSON text, checked by the generator), whose
    /// answers `routed` have a route.
    pub fn new(message: Args, schema: &str, routed: &[Answer]) -> Result<Self, StartupError> {
        let refused = |e: &dyn std::fmt::Display| {
            StartupError(format!("an `elicit` node's requestedSchema {schema}: {e}"))
        };
        let json: Value = serde_json::from_str(schema).map_err(|e| refused(&e))?;
        let form = serde_json::from_value(json.clone()).map_err(|e| refused(&e))?;
        let check = jsonschema::validator_for(&json).map_err(|e| refused(&e))?;
        Ok(Self {
            message,
            form,
            check,
            routed: routed.to_vec(),
        })
    }
}

/// The request that asks `message` with `form`.
pub(crate) fn form_request(message: String, form: &ElicitationSchema) -> ServerRequest {
    ServerRequest::ElicitRequest(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: form.clone(),
        },
    ))
}

/// The answer in the client's `result`, and the node's output: on accept
/// the answer's `content` (`{}` when it has none), which must match the
/// form `check`; on decline and cancel `null`. `Err` says what is wrong.
pub(crate) fn read_answer(
    result: ClientResult,
    check: &jsonschema::Validator,
) -> Result<(Answer, Value), BadAnswer> {
    let result: ElicitResult = match result {
        ClientResult::ElicitResult(result) => result,
        // rmcp reads an untagged union: read the other shapes again.
        other => serde_json::to_value(&other)
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
            .ok_or(BadAnswer::NotAnElicitation)?,
    };
    match result.action {
        ElicitationAction::Accept => {
            let content = result
                .content
                .unwrap_or_else(|| Value::Object(Default::default()));
            if let Some(e) = check.iter_errors(&content).next() {
                let path = e.instance_path().to_string();
                let mut why = format!(
                    "the user's answer does not match the node's requestedSchema: {}: {e}",
                    if path.is_empty() { "/" } else { &path }
                );
                if let Some((cut, _)) = why.char_indices().nth(MAX_MISMATCH_CHARS) {
                    why.truncate(cut);
                    why.push('…');
                }
                return Err(BadAnswer::Mismatch(why));
            }
            Ok((Answer::Accept, content))
        }
        ElicitationAction::Decline => Ok((Answer::Decline, Value::Null)),
        ElicitationAction::Cancel => Ok((Answer::Cancel, Value::Null)),
        other => Err(BadAnswer::UnknownAction(format!("{other:?}"))),
    }
}

/// What is wrong with a client's answer to an elicitation.
#[derive(Debug, PartialEq)]
pub(crate) enum BadAnswer {
    /// The reply is not an elicitation result.
    NotAnElicitation,
    /// The answer does not match the form: how (cut to
    /// `MAX_MISMATCH_CHARS`).
    Mismatch(String),
    /// An action this runtime does not know (as rmcp spells it).
    UnknownAction(String),
}

impl std::fmt::Display for BadAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadAnswer::NotAnElicitation => {
                f.write_str("the client's reply is not an elicitation result")
            }
            BadAnswer::Mismatch(why) => f.write_str(why),
            BadAnswer::UnknownAction(action) => {
                write!(f, "the client answered with an unknown action {action}")
            }
        }
    }
}

impl Execution {
    /// Runs an `elicit` node: evaluates its message, asks the calling
    /// client's user, and records the output (the answer on accept, `null` else). Returns the
    /// answer, which has a route; an answer without one fails the call.
    /// Time spent waiting for the user is not run time
    /// (`maxExecutionTimeMs` is extended by it).
    pub async fn elicit(&mut self, node: &Elicit) -> Result<Answer, NodeError> {
        let message = match self.eval_args(&node.message)? {
            Some(Value::String(message)) => message,
            Some(other) => {
                return Err(self.error(
                    ErrorKind::Expression,
                    format!("the message is not a string but {}", super::kind_of(&other)),
                ));
            }
            None => {
                return Err(self.error(
                    ErrorKind::Expression,
                    "the message yielded no value, not a string",
                ));
            }
        };
        let Some(caller) = self.caller.clone() else {
            return Err(self.error(
                ErrorKind::Elicitation,
                "cannot ask the user: a call made outside an MCP session has no client to \
                 ask, and elicitation needs one",
            ));
        };
        let result = self
            .ask_user(&caller, form_request(message, &node.form))
            .await?;
        let (answer, output) = read_answer(result, &node.check)
            .map_err(|why| self.error(ErrorKind::Elicitation, why.to_string()))?;
        if !node.routed.contains(&answer) {
            let what = match answer {
                Answer::Decline => "declined to answer",
                _ => "cancelled the question",
            };
            return Err(self.error(
                ErrorKind::Elicitation,
                format!(
                    "the user {what}, and the node has no `{}` route",
                    answer.as_str()
                ),
            ));
        }
        self.record(from_json(&output))?;
        Ok(answer)
    }

    /// Asks `caller` `request` within the call's time limit, which the
    /// wait for the answer does not use up.
    async fn ask_user(
        &mut self,
        caller: &Caller,
        request: ServerRequest,
    ) -> Result<ClientResult, NodeError> {
        if let Some(round) = caller.round() {
            return self.ask_in_rounds(caller, round, request);
        }
        let left = self.deadline.saturating_duration_since(Instant::now());
        let clock = caller.clock();
        let waited = clock.waited();
        let asked = clock.timeout(left, caller.ask(request)).await;
        self.deadline += clock.waited() - waited;
        match asked {
            None => Err(self.time_limit()),
            Some(Err(crate::questions::Unanswered::Stopped(stop))) => {
                Err(self.error(stop.kind, stop.why))
            }
            Some(Err(why)) => Err(self.error(
                ErrorKind::Elicitation,
                format!("cannot ask the user: {why}"),
            )),
            Some(Ok(result)) => Ok(result),
        }
    }
}

impl Execution {
    /// For a client of MCP 2026-07-28: the answer an earlier round got (the
    /// tape) or this retry carries (under the node's id), or the end of this
    /// round with the question as its `input_required` (the answer of a
    /// retry that lacks it is asked for again).
    fn ask_in_rounds(
        &self,
        caller: &Caller,
        round: &Rounds,
        request: ServerRequest,
    ) -> Result<ClientResult, NodeError> {
        let node = self.current;
        let read = |value: Value| {
            serde_json::from_value(value)
                .map(ClientResult::ElicitResult)
                .map_err(|e| {
                    self.error(
                        ErrorKind::Elicitation,
                        format!("the client's answer is not an elicitation result: {e}"),
                    )
                })
        };
        let replayed = round
            .replay(node)
            .map_err(|off| self.error(ErrorKind::Internal, off.to_string()))?;
        if let Some(answer) = replayed {
            return read(answer);
        }
        caller.may_ask(&request).map_err(|why| {
            self.error(
                ErrorKind::Elicitation,
                format!("cannot ask the user: {why}"),
            )
        })?;
        let answer = match round.resume(node) {
            Some((answers, _)) => answers.get(node).cloned(),
            // An answer nobody asked for is taken only if it is one: what
            // is not an elicitation result is ignored, and asked for.
            None => round
                .unasked(node)
                .filter(|v| serde_json::from_value::<ElicitResult>(v.clone()).is_ok()),
        };
        if let Some(answer) = answer {
            round.record(node, answer.clone());
            return read(answer);
        }
        let ServerRequest::ElicitRequest(request) = request else {
            return Err(self.error(ErrorKind::Internal, "an elicit node asks an elicitation"));
        };
        let mut requests = InputRequests::new();
        requests.insert(node.to_owned(), InputRequest::Elicitation(request));
        round.ask(node, requests, None);
        Err(self.error(ErrorKind::InputRequired, "waits for the user's answer"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn elicit(schema: &Value) -> Elicit {
        let message = Args::Literal(json!("?"));
        Elicit::new(message, &schema.to_string(), &[Answer::Accept]).unwrap()
    }

    /// Every shape the generator accepts is read by rmcp and sent as
    /// written: the five enum shapes of SEP-1330, the formats, bounds and
    /// defaults (SEP-1034). (A `number` field's numbers go out as floats:
    /// `3` as `3.0`.)
    #[test]
    fn every_form_shape_is_sent_as_written() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "title": "Sign-up",
            "description": "Who are you?",
            "properties": {
                "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 50, "default": "Ada"},
                "email": {"type": "string", "format": "email", "description": "Mail"},
                "site": {"type": "string", "format": "uri"},
                "born": {"type": "string", "format": "date"},
                "seen": {"type": "string", "format": "date-time"},
                "height": {"type": "number", "minimum": 0.5, "maximum": 3.0, "default": 1.7},
                "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 36},
                "subscribe": {"type": "boolean", "default": true},
                "pet": {"type": "string", "enum": ["cat", "dog"], "default": "dog"},
                "fish": {"type": "string", "oneOf": [{"const": "s", "title": "Salmon"}, {"const": "t", "title": "Tuna"}], "default": "t"},
                "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"], "default": "a"},
                "colours": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["red", "blue"]}, "default": ["red"]},
                "sizes": {"type": "array", "items": {"anyOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]}, "default": ["l"]}
            },
            "required": ["name", "email"]
        });
        let node = elicit(&schema);
        let ServerRequest::ElicitRequest(request) = form_request("Hello?".into(), &node.form)
        else {
            panic!("not an elicitation");
        };
        let sent = serde_json::to_value(&request.params).unwrap();
        assert_eq!(sent["mode"], "form");
        assert_eq!(sent["message"], "Hello?");
        assert_eq!(sent["requestedSchema"], schema);
    }

    #[test]
    fn answers_and_outputs() {
        let node = elicit(&json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name"]
        }));
        let answer = |result: Value| {
            let result: ElicitResult = serde_json::from_value(result).unwrap();
            read_answer(ClientResult::ElicitResult(result), &node.check)
        };
        assert_eq!(
            answer(json!({"action": "accept", "content": {"name": "Ada"}})),
            Ok((Answer::Accept, json!({"name": "Ada"})))
        );
        assert_eq!(
            answer(json!({"action": "decline"})),
            Ok((Answer::Decline, Value::Null))
        );
        assert_eq!(
            answer(json!({"action": "cancel", "content": {"x": 1}})),
            Ok((Answer::Cancel, Value::Null))
        );
        let wrong = answer(json!({"action": "accept", "content": {"name": 5}}))
            .unwrap_err()
            .to_string();
        assert!(
            wrong.starts_with(
                "the user's answer does not match the node's requestedSchema: /name: "
            ),
            "{wrong}"
        );
        let missing = answer(json!({"action": "accept"})).unwrap_err().to_string();
        assert!(
            missing.contains("\"name\" is a required property"),
            "{missing}"
        );
        let long = answer(json!({"action": "accept", "content": {"name": "x".repeat(10_000), "age": "y".repeat(10_000)}}))
            .unwrap_err()
            .to_string();
        assert!(long.chars().count() <= MAX_MISMATCH_CHARS + 1, "{long}");
    }
}
