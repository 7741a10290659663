//! Running a test file's cases: each call made against the compiled graph,
//! its downstream calls recorded or replayed by the tape, its result held
//! against what the case expects.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::answers;
use crate::cases::{Case, Expect, TestFile};
use crate::cassette::{Cassette, Exchange};
use crate::coverage::Reached;
use crate::diff::{contains, diff, diff_subset, same};
use crate::error::GraphTestError;
use crate::tape::{Played, Tape};
use mcpgraph_runtime::Expr;
use mcpgraph_runtime::{CallError, Engine};

/// How the cases' downstream calls are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// From the cassette: no server is started.
    Replay,
    /// By the servers, every reply recorded.
    Record,
    /// From the cassette; a case whose requests changed (or that has no
    /// recording) is recorded again from the servers.
    Update,
}

/// How one case ended.
#[derive(Debug)]
pub(crate) struct CaseResult {
    pub(crate) name: String,
    pub(crate) tool: String,
    pub(crate) line: Option<u32>,
    pub(crate) time: Duration,
    /// `None`: it passed; else why not.
    pub(crate) failure: Option<String>,
    /// Notes that do not fail it (recorded calls it no longer makes).
    pub(crate) notes: Vec<String>,
    /// Whether this run recorded it.
    pub(crate) recorded: bool,
    /// Its execution record: one entry per node run.
    pub(crate) records: Vec<mcpgraph_runtime::NodeRecord>,
}

/// A whole run.
#[derive(Debug, Default)]
pub(crate) struct Run {
    pub(crate) cases: Vec<CaseResult>,
    pub(crate) reached: Reached,
}

/// Which cases run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Selection<'a> {
    All,
    /// Those whose name contains this.
    Containing(&'a str),
    /// The one of this name.
    Named(&'a str),
}

impl Selection<'_> {
    fn takes(self, case: &Case) -> bool {
        match self {
            Selection::All => true,
            Selection::Containing(text) => case.name.contains(text),
            Selection::Named(name) => case.name == name,
        }
    }
}

/// Runs `file`'s cases (those `selection` takes) on `engine`,
/// answering their downstream calls as `mode` says from and into
/// `cassette`. `command` is how the user runs this binary's `test`, for
/// the messages that say how to record.
pub(crate) async fn run_cases(
    engine: &Engine,
    file: &TestFile,
    selection: Selection<'_>,
    mode: Mode,
    cassette: &mut Cassette,
    command: &str,
) -> Run {
    let tape = Arc::new(Tape::default());
    let engine = &engine.clone().with_interceptor(Arc::clone(&tape) as Arc<_>);
    let asks = answers::asks_user(engine.graph());
    let mut run = Run::default();
    for case in &file.cases {
        if !selection.takes(case) {
            continue;
        }
        let recording = cassette.cases.get(&case.name).cloned();
        let mut result = match mode {
            Mode::Record => run_case(engine, &tape, case, None, asks, &mut run).await,
            Mode::Replay | Mode::Update => {
                run_case(engine, &tape, case, Some(recording.clone()), asks, &mut run).await
            }
        };
        let stale = result.1.problems.len() + result.1.unused > 0;
        if mode == Mode::Update && (stale || recording.is_none()) {
            result = run_case(engine, &tape, case, None, asks, &mut run).await;
        }
        let (mut case_result, played) = result;
        if case_result.recorded {
            cassette.cases.insert(case.name.clone(), played.made);
        } else if !played.problems.is_empty() && case_result.failure.is_none() {
            // A request went unanswered yet the case passed (an `onError`
            // route caught it): still a changed request.
            case_result.failure = Some(String::new());
        }
        if let Some(failure) = case_result.failure.as_mut()
            && !played.problems.is_empty()
        {
            *failure = replay_failure(&played.problems, recording.is_none(), failure, command);
        }
        run.cases.push(case_result);
    }
    // Cases no longer in the file leave the cassette.
    if mode != Mode::Replay && matches!(selection, Selection::All) {
        cassette
            .cases
            .retain(|name, _| file.cases.iter().any(|c| &c.name == name));
    }
    run
}

/// Runs one case; `recording`: replay it (`Some(None)`: there is none);
/// `asks`: the graph may ask the user.
async fn run_case(
    engine: &Engine,
    tape: &Tape,
    case: &Case,
    recording: Option<Option<Vec<Exchange>>>,
    asks: bool,
    run: &mut Run,
) -> (CaseResult, Played) {
    let recorded = recording.is_none();
    match recording {
        None => tape.record(),
        Some(exchanges) => tape.replay(exchanges.unwrap_or_default()),
    }
    let started = Instant::now();
    let answered = answers::call(engine, &case.tool, &case.args, &case.answers, asks).await;
    let time = started.elapsed();
    let played = tape.finish();
    let records = answered.outcome.records.unwrap_or_default();
    let elicited = answers::routes_taken(&records, &answered.given);
    run.reached.add(&case.tool, &records, &elicited);
    let mut notes = Vec::new();
    if played.unused > 0 && !recorded {
        notes.push(format!(
            "{} recorded call(s) were not made; `--update` records the case again",
            played.unused
        ));
    }
    if !answered.unused.is_empty() {
        notes.push(format!(
            "answers no question took: {}",
            answered.unused.join(", ")
        ));
    }
    let failure = answered
        .unanswered
        .or_else(|| check(&case.expect, &answered.outcome.result));
    let result = CaseResult {
        name: case.name.clone(),
        tool: case.tool.clone(),
        line: case.line,
        time,
        failure,
        notes,
        recorded,
        records,
    };
    (result, played)
}

/// Why `result` is not what `expect` says, if it is not.
fn check(expect: &Expect, result: &Result<Value, CallError>) -> Option<String> {
    let output = match (result, &expect.error) {
        (Err(e), Some(wanted)) => {
            let message = e.to_string();
            return (!message.contains(wanted.as_str())).then(|| {
                format!("the call failed, but its error does not contain {wanted:?}:\n  {message}")
            });
        }
        (Ok(output), Some(wanted)) => {
            return Some(format!(
                "expected an error containing {wanted:?}, but the call returned {output}"
            ));
        }
        (Err(e), None) => return Some(format!("the call failed: {e}")),
        (Ok(output), None) => output,
    };
    let mut problems = Vec::new();
    if let Some(wanted) = &expect.output
        && !same(wanted, output)
    {
        problems.push(format!(
            "the output is not `expect.output`:\n{}",
            diff(wanted, output).join("\n")
        ));
    }
    if let Some(wanted) = &expect.subset
        && !contains(wanted, output)
    {
        problems.push(format!(
            "the output does not hold `expect.subset`:\n{}",
            diff_subset(wanted, output).join("\n")
        ));
    }
    if let Some(predicate) = &expect.predicate {
        match holds(predicate, output) {
            Ok(true) => {}
            Ok(false) => problems.push(format!(
                "`expect.assert` is not true: {predicate}\n  the output: {output}"
            )),
            Err(e) => problems.push(format!("`expect.assert` failed: {e}")),
        }
    }
    (!problems.is_empty()).then(|| problems.join("\n"))
}

/// Whether JSONata `predicate` is `true` over `output`.
fn holds(predicate: &str, output: &Value) -> Result<bool, GraphTestError> {
    let expr =
        Expr::parse(predicate.to_owned()).map_err(|e| GraphTestError::Predicate(Box::new(e)))?;
    match mcpgraph_runtime::evaluate_on(&expr, output)
        .map_err(|e| GraphTestError::Predicate(Box::new(e)))?
    {
        Some(Value::Bool(b)) => Ok(b),
        None => Ok(false),
        Some(other) => Err(GraphTestError::NotBoolean(other)),
    }
}

/// A failure caused by requests the recording does not answer: the call's
/// error names the node and holds the first; the others are added.
fn replay_failure(problems: &[String], no_recording: bool, failure: &str, command: &str) -> String {
    let mut text = failure
        .strip_prefix("the call failed: ")
        .unwrap_or(failure)
        .replacen("replay: ", "", 1);
    for problem in problems {
        if !text.contains(problem.as_str()) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(problem);
        }
    }
    let hint = if no_recording {
        "there is no recording of this case: record it with"
    } else {
        "if the change is meant, record the case again with"
    };
    format!("{text}\n  {hint} `{command} --update`")
}
