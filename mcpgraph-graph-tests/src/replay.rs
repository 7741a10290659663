//! `test --replay FILE`: a failed call that `serve --record-failures`
//! wrote, run again offline against its recording, node by node; with
//! `--step`, stopping before each node to show what the graph has so far.

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use crate::cases::{Case, Expect, TestFile};
use crate::cassette::{Cassette, FAILURE_CASE};
use crate::error::GraphTestError;
use crate::run::{Mode, Selection, run_cases};
use mcpgraph_runtime::Engine;
use mcpgraph_runtime::{NodeRecord, NodeType, Observer};

/// Replays the failure in `path`; whether it failed the same way again.
pub(super) async fn replay(
    engine: &Engine,
    path: &Path,
    step: bool,
) -> Result<bool, GraphTestError> {
    let mut cassette = Cassette::load(path)?.ok_or_else(|| GraphTestError::NoFile {
        path: path.to_owned(),
    })?;
    let failure = cassette
        .failure
        .take()
        .ok_or_else(|| GraphTestError::NotAFailure {
            path: path.to_owned(),
        })?;
    let message = failure.error["message"].as_str().unwrap_or_default();
    let wanted = match failure.error["node"].as_str() {
        Some(node) => format!("node `{node}`: {message}"),
        None => message.to_owned(),
    };
    println!(
        "replaying a failed call of `{}` with {}",
        failure.tool,
        Value::Object(failure.arguments.clone())
    );
    println!("it failed with: {wanted}");
    let file = TestFile {
        path: path.to_owned(),
        cases: vec![Case {
            name: FAILURE_CASE.to_owned(),
            tool: failure.tool,
            args: failure.arguments,
            expect: Expect {
                error: Some(wanted),
                ..Expect::default()
            },
            answers: Default::default(),
            line: None,
        }],
    };
    let engine = if step {
        engine.clone().with_observer(Arc::new(Stepper::default()))
    } else {
        engine.clone()
    };
    let run = run_cases(
        &engine,
        &file,
        Selection::All,
        Mode::Replay,
        &mut cassette,
        "test --replay",
    )
    .await;
    let Some(case) = run.cases.first() else {
        return Err(GraphTestError::DidNotRun);
    };
    if !step {
        for record in &case.records {
            eprintln!("{}", mcpgraph_runtime::host::redact(&record.trace_line()));
        }
    }
    match &case.failure {
        None => {
            println!("the call failed again the same way");
            Ok(true)
        }
        Some(why) => {
            println!("the replay differs from the recorded failure:\n{why}");
            Ok(false)
        }
    }
}

/// `--step`: before each node, the outputs so far and a prompt.
#[derive(Default)]
struct Stepper {
    state: Mutex<StepState>,
}

#[derive(Default)]
struct StepState {
    /// What `$.<node>` reads so far.
    context: Map<String, Value>,
    /// `c`: no more stops.
    running: bool,
}

/// The longest context shown, in characters.
const SHOWN: usize = 4000;

impl Observer for Stepper {
    fn on_node_start(&self, _tool: &str, index: usize, node: &str, node_type: NodeType) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.running {
            return;
        }
        let context = serde_json::to_string_pretty(&state.context).unwrap_or_default();
        let context: String = match context.char_indices().nth(SHOWN) {
            Some((cut, _)) => format!(
                "{}\n… ({} more characters)",
                &context[..cut],
                context.len() - cut
            ),
            None => context,
        };
        eprintln!("\nnext: #{index} `{node}` ({})", node_type.as_str());
        eprintln!("the graph so far ($):\n{context}");
        eprint!("[Enter] run it, c: run to the end > ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        if line.trim() == "c" {
            state.running = true;
        }
    }

    fn on_node_complete(&self, _tool: &str, record: &NodeRecord) {
        eprintln!("{}", mcpgraph_runtime::host::redact(&record.trace_line()));
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Ok(Some(output)) = &record.outcome {
            state.context.insert(record.node.clone(), output.clone());
        }
    }
}
