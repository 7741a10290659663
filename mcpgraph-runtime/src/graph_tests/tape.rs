//! The tape between a test run and the downstream servers: it records
//! each request and reply of a case, or answers the requests from a
//! recording without reaching any server.
//!
//! `ClientManager::call` asks the tape first ([`Tape::before`]); a
//! recording tape lets the call go on and keeps its outcome
//! ([`Tape::after`]). Replay matches each request with the first unused
//! recorded exchange of the same server, tool and arguments, so the calls
//! of a `parallel` or `forEach` node may come in any order.

use std::sync::Mutex;

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use super::cassette::{CANCELLED, Exchange, Reply, redacted};
use super::diff::diff;
use crate::downstream::DownstreamError;
use crate::error::ErrorKind;

/// The tape of one test run; one case at a time.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    mode: Mode,
    /// Replay: the case's recording, and which of it was used.
    recorded: Vec<(Exchange, bool)>,
    /// Record: what the case's calls did, in the order they were made.
    made: Vec<Exchange>,
    /// Requests that differ from the recording, or were never recorded.
    problems: Vec<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Calls go to the servers and nothing is kept.
    #[default]
    Live,
    Record,
    Replay,
}

/// What a case's calls did on the tape.
#[derive(Debug, Default)]
pub(crate) struct Played {
    /// Record: the exchanges to keep.
    pub(crate) made: Vec<Exchange>,
    /// Replay: requests that differ from the recording or were not in it.
    pub(crate) problems: Vec<String>,
    /// Replay: recorded exchanges no request used.
    pub(crate) unused: usize,
}

/// What [`Tape::before`] decided for a call.
pub(crate) enum Before {
    /// Make the call.
    Live,
    /// Make the call and tell the tape how it ended ([`Tape::after`] with
    /// this number); a call that never ends is kept as cancelled.
    Record(usize),
    /// The recorded reply (or a replay failure).
    Replayed(Result<CallToolResult, DownstreamError>),
    /// The recorded call was cancelled: wait to be cancelled again.
    Cancelled,
}

impl Tape {
    /// The next case records its calls.
    pub(crate) fn record(&self) {
        self.start(Mode::Record, Vec::new());
    }

    /// The next case is answered from `recorded`.
    pub(crate) fn replay(&self, recorded: Vec<Exchange>) {
        self.start(Mode::Replay, recorded);
    }

    fn start(&self, mode: Mode, recorded: Vec<Exchange>) {
        let mut state = self.lock();
        *state = State {
            mode,
            recorded: recorded.into_iter().map(|e| (e, false)).collect(),
            ..State::default()
        };
    }

    /// Ends the case: what its calls did.
    pub(crate) fn finish(&self) -> Played {
        let state = std::mem::take(&mut *self.lock());
        Played {
            unused: state.recorded.iter().filter(|(_, used)| !used).count(),
            made: state.made,
            problems: state.problems,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called before a call of `tool` on `server` goes out.
    pub(crate) fn before(
        &self,
        server: &str,
        tool: &str,
        arguments: &Map<String, Value>,
    ) -> Before {
        let mut state = self.lock();
        match state.mode {
            Mode::Live => Before::Live,
            Mode::Record => {
                state.made.push(Exchange {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    arguments: redacted(arguments),
                    reply: Reply::Cancelled(CANCELLED.to_owned()),
                });
                Before::Record(state.made.len() - 1)
            }
            Mode::Replay => state.answer(server, tool, arguments),
        }
    }

    /// Called when recorded call number `index` ended.
    pub(crate) fn after(&self, index: usize, outcome: &Result<CallToolResult, DownstreamError>) {
        let reply = match outcome {
            Ok(result) => Reply::Result(serde_json::to_value(result).unwrap_or_default()),
            Err(e) => Reply::Error {
                kind: e.kind.as_str().to_owned(),
                message: e.message.clone(),
            },
        };
        if let Some(exchange) = self.lock().made.get_mut(index) {
            exchange.reply = reply;
        }
    }
}

impl State {
    fn answer(&mut self, server: &str, tool: &str, arguments: &Map<String, Value>) -> Before {
        let arguments = redacted(arguments);
        let unused = |(e, used): &&mut (Exchange, bool)| !*used && e.server == server;
        let found = self
            .recorded
            .iter_mut()
            .filter(unused)
            .find(|(e, _)| e.tool == tool && e.arguments == arguments);
        if let Some((exchange, used)) = found {
            *used = true;
            return match &exchange.reply {
                Reply::Cancelled(_) => Before::Cancelled,
                reply => Before::Replayed(replayed(reply)),
            };
        }
        let what = format!("`{server}`/`{tool}`");
        let nearest = self
            .recorded
            .iter()
            .filter(|(e, used)| !used && e.server == server && e.tool == tool)
            .map(|(e, _)| e)
            .next();
        let problem = match nearest {
            Some(recorded) => {
                let lines = diff(
                    &Value::Object(recorded.arguments.clone()),
                    &Value::Object(arguments),
                );
                format!(
                    "the request to {what} differs from the recording:\n{}",
                    lines.join("\n")
                )
            }
            None => format!(
                "the request to {what} with {} is not in the recording",
                Value::Object(arguments)
            ),
        };
        self.problems.push(problem.clone());
        Before::Replayed(Err(DownstreamError {
            kind: ErrorKind::Internal,
            message: format!("replay: {problem}"),
            retry_after: None,
        }))
    }
}

fn replayed(reply: &Reply) -> Result<CallToolResult, DownstreamError> {
    match reply {
        Reply::Result(value) => {
            serde_json::from_value(value.clone()).map_err(|e| DownstreamError {
                kind: ErrorKind::Internal,
                message: format!("replay: a recorded result does not read back: {e}"),
                retry_after: None,
            })
        }
        Reply::Error { kind, message } => Err(DownstreamError {
            kind: ErrorKind::from_name(kind).unwrap_or(ErrorKind::Internal),
            message: message.clone(),
            retry_after: None,
        }),
        Reply::Cancelled(why) => Err(DownstreamError {
            kind: ErrorKind::Internal,
            message: format!("replay: the recorded call was {why}"),
            retry_after: None,
        }),
    }
}
