//! `test` and `serve --record-failures` with the `graph-tests` feature:
//! the graph tests' crate (`mcpgraph-graph-tests`). Without the feature,
//! `graph_tests_refused.rs` stands in.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use mcpgraph_graph_tests::{FailureRecorder, TestOptions};
use mcpgraph_runtime::{Engine, GraphDef};

use super::args::TestArgs;
use super::error::CliError;

/// Runs `test`; success only when every case passed.
pub(super) async fn test(engine: &Engine, graph: &GraphDef, args: TestArgs) -> ExitCode {
    let options = options(args);
    if options.reaches_servers() {
        // The servers' own output would bury the results.
        mcpgraph_downstream::stderr::hold();
    }
    mcpgraph_graph_tests::test_command(engine, graph, options).await
}

/// `engine`, writing each failed call into `dir`
/// (`serve --record-failures`).
pub(super) fn recording_failures(engine: &Engine, dir: &Path) -> Result<Engine, CliError> {
    let recorder =
        FailureRecorder::new(dir.to_owned()).map_err(|e| CliError::Recording(Box::new(e)))?;
    Ok(engine.clone().with_interceptor(Arc::new(recorder)))
}

/// `test`'s flags as the graph tests' options.
fn options(args: TestArgs) -> TestOptions {
    TestOptions {
        file: args.file,
        record: args.record,
        update: args.update,
        cassette: args.cassette,
        filter: args.filter,
        json: args.json,
        github: args.github,
        junit: args.junit,
        report: args.report,
        min_coverage: args.min_coverage,
        replay: args.replay,
        step: args.step,
    }
}
