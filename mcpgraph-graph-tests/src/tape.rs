//! The tape between a test run and the downstream servers: it records
//! each request and reply of a case, or answers the requests from a
//! recording without reaching any server.
//!
//! The execution asks the tape before each downstream call
//! ([`CallInterceptor::before`]); a recording tape lets the call go on
//! and keeps its outcome ([`CallInterceptor::after`]). Replay matches each request with the first unused
//! recorded exchange of the same server, tool and arguments, so the calls
//! of a `parallel` or `forEach` node may come in any order.

use std::sync::{Arc, Mutex};

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use crate::cassette::{CANCELLED, Exchange, Reply, redacted};
use crate::diff::diff;
use mcpgraph_runtime::ErrorKind;
use mcpgraph_runtime::Limits;
use mcpgraph_runtime::host::DownstreamError;
use mcpgraph_runtime::{Before, CallInterceptor};

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
    /// Record: the most bytes of arguments and replies kept (compact
    /// JSON); `None`: no limit.
    budget: Option<usize>,
    /// Record: the bytes kept so far.
    used: usize,
    /// Record: requests and replies left out, past the budget.
    cut: usize,
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
    /// Record: requests and replies left out, past the budget.
    pub(crate) cut: usize,
}

impl Tape {
    /// The next case records its calls.
    pub(crate) fn record(&self) {
        self.start(Mode::Record, Vec::new());
    }

    /// The next case records its calls, keeping at most `budget` bytes
    /// of arguments and replies (compact JSON), `used` of them taken
    /// already; past it, an exchange keeps its server and tool, its
    /// arguments are left out and its reply is [`Reply::Cut`]. The calls
    /// themselves go on as ever.
    pub(crate) fn record_within(&self, budget: usize, used: usize) {
        self.start(Mode::Record, Vec::new());
        let mut state = self.lock();
        state.budget = Some(budget);
        state.used = used;
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
            cut: state.cut,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Every call of the run goes on the tape, one case at a time.
impl CallInterceptor for Tape {
    fn begin(
        self: Arc<Self>,
        _tool: &'static str,
        _arguments: &Map<String, Value>,
        _limits: &Limits,
    ) -> Option<Arc<dyn CallInterceptor>> {
        Some(self)
    }

    fn before(&self, server: &str, tool: &str, arguments: &Map<String, Value>) -> Before {
        let mut state = self.lock();
        match state.mode {
            Mode::Live => Before::Call,
            Mode::Record => {
                let (arguments, reply) = if state.keeps(json_size(arguments)) {
                    (redacted(arguments), Reply::Cancelled(CANCELLED.to_owned()))
                } else {
                    (Map::new(), state.cut_reply())
                };
                state.made.push(Exchange {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    arguments,
                    reply,
                });
                Before::Watch(state.made.len() - 1)
            }
            Mode::Replay => state.answer(server, tool, arguments),
        }
    }

    /// Recorded call number `index` ended.
    fn after(&self, index: usize, outcome: &Result<CallToolResult, DownstreamError>) {
        let mut state = self.lock();
        // Cut at the request: its reply is left out too.
        if state
            .made
            .get(index)
            .is_none_or(|e| matches!(e.reply, Reply::Cut(_)))
        {
            return;
        }
        let reply = match outcome {
            Ok(result) => Reply::Result(serde_json::to_value(result).unwrap_or_default()),
            Err(e) => Reply::Error {
                kind: e.kind.as_str().to_owned(),
                message: e.message.clone(),
            },
        };
        let reply = if state.keeps(json_size(&reply)) {
            reply
        } else {
            state.cut_reply()
        };
        if let Some(exchange) = state.made.get_mut(index) {
            exchange.reply = reply;
        }
    }
}

/// The length of `value` as compact JSON, without writing it out.
pub(crate) fn json_size<T: serde::Serialize + ?Sized>(value: &T) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing JSON into a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

impl State {
    /// Whether `size` more bytes fit the budget (taking them if so).
    fn keeps(&mut self, size: usize) -> bool {
        let Some(budget) = self.budget else {
            return true;
        };
        match self.used.checked_add(size) {
            Some(used) if used <= budget => {
                self.used = used;
                true
            }
            _ => false,
        }
    }

    /// A reply left out, counted.
    fn cut_reply(&mut self) -> Reply {
        self.cut += 1;
        Reply::Cut(format!(
            "not recorded: the call's record reached its budget of {} bytes",
            self.budget.unwrap_or_default()
        ))
    }

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
                Reply::Cancelled(_) => Before::Hang,
                reply => Before::Answer(replayed(reply)),
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
        Before::Answer(Err(DownstreamError {
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
        Reply::Cut(why) => Err(DownstreamError {
            kind: ErrorKind::Internal,
            message: format!("replay: the call's reply was {why}"),
            retry_after: None,
        }),
    }
}
