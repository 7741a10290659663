//! `test [FILE]`: the graph's own test cases.

use std::path::PathBuf;

/// `test`'s arguments (read with the `graph-tests` feature only).
#[derive(clap::Args, Debug)]
#[cfg_attr(not(feature = "graph-tests"), allow(dead_code))]
pub(in crate::cli) struct TestArgs {
    /// The test file (default: the `<graph>.test.yaml` compiled in).
    pub(in crate::cli) file: Option<PathBuf>,
    /// Run the cases against the real downstream servers and record every
    /// request and reply into a cassette (default: `<graph>.cassette.json`
    /// beside the test file).
    #[arg(long, value_name = "CASSETTE", num_args = 0..=1, conflicts_with = "update")]
    pub(in crate::cli) record: Option<Option<PathBuf>>,
    /// Replay, and record again from the servers only the cases whose
    /// requests changed or that have no recording.
    #[arg(long)]
    pub(in crate::cli) update: bool,
    /// The cassette to replay (or update).
    #[arg(long, value_name = "FILE", conflicts_with = "record")]
    pub(in crate::cli) cassette: Option<PathBuf>,
    /// Only the cases whose name contains this.
    #[arg(long, value_name = "TEXT")]
    pub(in crate::cli) filter: Option<String>,
    /// Print the results (and coverage) as JSON.
    #[arg(long)]
    pub(in crate::cli) json: bool,
    /// Also print GitHub Actions annotations: failed cases, lines never
    /// reached.
    #[arg(long)]
    pub(in crate::cli) github: bool,
    /// Also write the results as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    pub(in crate::cli) junit: Option<PathBuf>,
    /// Also write the results as JSON (what `--json` prints: each case
    /// with its execution record, the coverage with what was missed) to
    /// this file, for `mcpgraph graph --coverage` and `--trace`.
    #[arg(long, value_name = "FILE")]
    pub(in crate::cli) report: Option<PathBuf>,
    /// Fail when the cases reach less than this share (percent) of the
    /// nodes and routes.
    #[arg(long, value_name = "PERCENT")]
    pub(in crate::cli) min_coverage: Option<f64>,
    /// Run again, offline, a failed call that `serve --record-failures`
    /// wrote, printing each node as it runs (`--trace`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["record", "update", "file"])]
    pub(in crate::cli) replay: Option<PathBuf>,
    /// With `--replay`: stop before each node and show what the graph has
    /// so far (Enter: next node, `c`: run to the end).
    #[arg(long, requires = "replay")]
    pub(in crate::cli) step: bool,
}
