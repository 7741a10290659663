//! `test` and `serve --record-failures`: the graph tests' crate
//! (`mcpgraph-graph-tests`), with the `graph-tests` feature; without it,
//! both exit with an error naming the feature, and none of it is linked.

use std::path::Path;
use std::process::ExitCode;

use mcpgraph_runtime::{Engine, GraphDef};

use super::args::TestArgs;
use super::error::CliError;

/// Runs `test`; success only when every case passed.
pub(super) async fn test(engine: &Engine, graph: &GraphDef, args: TestArgs) -> ExitCode {
    #[cfg(feature = "graph-tests")]
    {
        let options = args.options();
        if options.reaches_servers() {
            // The servers' own output would bury the results.
            mcpgraph_downstream::stderr::hold();
        }
        mcpgraph_graph_tests::test_command(engine, graph, options).await
    }
    #[cfg(not(feature = "graph-tests"))]
    {
        let _ = (engine, graph, args);
        let missing = crate::features::MissingFeature {
            what: "`test`",
            feature: "graph-tests",
        };
        eprintln!("error: {missing}");
        ExitCode::FAILURE
    }
}

/// `engine`, writing each failed call into `dir`
/// (`serve --record-failures`).
pub(super) fn recording_failures(engine: &Engine, dir: &Path) -> Result<Engine, CliError> {
    #[cfg(feature = "graph-tests")]
    {
        let recorder = mcpgraph_graph_tests::FailureRecorder::new(dir.to_owned())
            .map_err(|e| CliError::Recording(Box::new(e)))?;
        Ok(engine
            .clone()
            .with_interceptor(std::sync::Arc::new(recorder)))
    }
    #[cfg(not(feature = "graph-tests"))]
    {
        let _ = (engine, dir);
        Err(CliError::Recording(Box::new(
            crate::features::MissingFeature {
                what: "`serve --record-failures`",
                feature: "graph-tests",
            },
        )))
    }
}
