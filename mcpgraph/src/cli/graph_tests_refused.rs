//! `test` and `serve --record-failures` in a build without the
//! `graph-tests` feature: both exit with an error naming the feature, and
//! none of the graph tests' crate is linked.

use std::path::Path;
use std::process::ExitCode;

use mcpgraph_runtime::{Engine, GraphDef};

use super::args::TestArgs;
use super::error::CliError;
use crate::features::MissingFeature;

/// `test` refused.
pub(super) async fn test(_: &Engine, _: &GraphDef, _: TestArgs) -> ExitCode {
    let missing = MissingFeature {
        what: "`test`",
        feature: "graph-tests",
    };
    eprintln!("error: {missing}");
    ExitCode::FAILURE
}

/// `serve --record-failures` refused.
pub(super) fn recording_failures(_: &Engine, _: &Path) -> Result<Engine, CliError> {
    Err(CliError::Recording(Box::new(MissingFeature {
        what: "`serve --record-failures`",
        feature: "graph-tests",
    })))
}
