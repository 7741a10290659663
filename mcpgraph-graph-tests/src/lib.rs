//! Graph tests of the servers mcpgraph generates. **No semver promise**:
//! an internal crate of [`mcpgraph`](https://docs.rs/mcpgraph), which
//! reaches it through its `graph-tests` feature.
//!
//! `test`: a graph's own test cases (`<graph>.test.yaml`), run against the
//! compiled graph with the downstream servers' replies recorded into a
//! cassette or replayed from it, with each tool's coverage; `run_case`:
//! one case under `cargo test` (what `graph_tests!` generates calls);
//! [`FailureRecorder`]: `serve --record-failures`. All of it stands
//! between the engine and the servers through the runtime's call
//! interceptor (`Engine::with_interceptor`).
//!
//! `cases` reads the test file, `answers` answers the graph's questions
//! from it, `cassette` the recordings, `tape` stands
//! between the calls and the servers, `run` runs the cases, `diff` says
//! how two values differ, `coverage` what the cases reached, `report`
//! prints it all.

mod answers;
mod cases;
mod cassette;
mod coverage;
mod diff;
mod error;
mod failures;
mod replay;
mod report;
mod run;
mod tape;

use std::path::PathBuf;
use std::process::ExitCode;

pub use error::{CaseProblem, DirProblem, GraphTestError};
pub use failures::FailureRecorder;

use cases::TestFile;
use cassette::Cassette;
use mcpgraph_runtime::Engine;
use mcpgraph_runtime::GraphDef;
use run::{Mode, Selection};

/// What `test` was asked.
#[derive(Debug, Default)]
pub struct TestOptions {
    /// The test file; default: the one compiled in.
    pub file: Option<PathBuf>,
    /// Record every case from the servers (into this cassette, if given).
    pub record: Option<Option<PathBuf>>,
    /// Record again only the cases whose requests changed.
    pub update: bool,
    /// The cassette; default: beside the test file.
    pub cassette: Option<PathBuf>,
    /// Only the cases whose name contains this.
    pub filter: Option<String>,
    /// Print the results as JSON.
    pub json: bool,
    /// Also print GitHub annotations.
    pub github: bool,
    /// Also write JUnit XML here.
    pub junit: Option<PathBuf>,
    /// Also write the JSON results (as `json` prints them) here.
    pub report: Option<PathBuf>,
    /// Fail below this coverage (percent).
    pub min_coverage: Option<f64>,
    /// Replay this recorded failure instead.
    pub replay: Option<PathBuf>,
    /// With `replay`: stop before each node.
    pub step: bool,
}

impl TestOptions {
    /// Whether the cases reach the downstream servers (`--record`,
    /// `--update`): their own output (stderr) would bury the results.
    pub fn reaches_servers(&self) -> bool {
        self.replay.is_none() && (self.record.is_some() || self.update)
    }
}

/// Runs `test`; the exit status is success only when every case passed
/// (and the coverage is at least `--min-coverage`).
pub async fn test_command(engine: &Engine, graph: &GraphDef, options: TestOptions) -> ExitCode {
    match run_tests(engine, graph, &options).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run_tests(
    engine: &Engine,
    graph: &GraphDef,
    options: &TestOptions,
) -> Result<bool, GraphTestError> {
    if let Some(path) = &options.replay {
        return replay::replay(engine, path, options.step).await;
    }
    let file = match (&options.file, graph.tests) {
        (Some(path), _) => TestFile::read(path)?,
        (None, Some(tests)) => TestFile::compiled(tests)?,
        (None, None) => {
            return Err(GraphTestError::NoTestFile {
                graph: graph.server.name.to_owned(),
                command: command(None),
            });
        }
    };
    let mode = match (&options.record, options.update) {
        (Some(_), _) => Mode::Record,
        (None, true) => Mode::Update,
        (None, false) => Mode::Replay,
    };
    let cassette_path = options
        .record
        .clone()
        .flatten()
        .or_else(|| options.cassette.clone())
        .unwrap_or_else(|| file.default_cassette());
    let mut cassette = match mode {
        Mode::Record => Cassette::default(),
        Mode::Replay | Mode::Update => Cassette::load(&cassette_path)?.unwrap_or_default(),
    };
    let command = command(options.file.as_deref());
    let run = run::run_cases(
        engine,
        &file,
        options
            .filter
            .as_deref()
            .map_or(Selection::All, Selection::Containing),
        mode,
        &mut cassette,
        &command,
    )
    .await;
    if mode != Mode::Replay {
        cassette.save(&cassette_path)?;
    }
    let map = graph
        .map
        .map(serde_json::from_str::<coverage::Map>)
        .transpose()
        .map_err(|source| GraphTestError::CompiledIn {
            what: "map of the graph",
            source,
        })?;
    let tools = map
        .as_ref()
        .map(|map| coverage::coverage(map, &run.reached))
        .unwrap_or_default();
    let test_file = report::shown(&file.path);
    let graph_file = map
        .as_ref()
        .map(|m| report::shown(std::path::Path::new(&m.file)))
        .unwrap_or_default();
    let json = (options.json || options.report.is_some())
        .then(|| report::to_json(&run, &tools, map.as_ref().map(|m| m.file.as_str())));
    if let Some(json) = json.as_ref().filter(|_| options.json) {
        println!("{json}");
    } else {
        print!("{}", report::human(&run, &tools, &test_file, &graph_file));
        if mode != Mode::Replay {
            println!("cassette: {}", report::shown(&cassette_path));
        }
    }
    if options.github {
        print!("{}", report::github(&run, &tools, &test_file, &graph_file));
    }
    if let Some(path) = &options.junit {
        std::fs::write(path, report::junit(&run, graph.server.name))
            .map_err(GraphTestError::file("write", "", path))?;
    }
    if let (Some(path), Some(json)) = (&options.report, &json) {
        std::fs::write(path, format!("{json}\n"))
            .map_err(GraphTestError::file("write", "", path))?;
    }
    let passed = run.cases.iter().all(|c| c.failure.is_none());
    let covered = coverage::total(&tools);
    let enough = match options.min_coverage {
        Some(min) if covered < min => {
            eprintln!("coverage {covered:.1}% is below --min-coverage {min}%");
            false
        }
        _ => true,
    };
    Ok(passed && enough)
}

/// Runs the case named `name` of `graph`'s compiled-in test file against
/// its cassette, as `graph_tests!` generates a `#[test]` for each; panics
/// with what failed.
pub fn run_case(graph: GraphDef, name: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("cannot start the tokio runtime: {e}"));
    let local = tokio::task::LocalSet::new();
    let failure = local.block_on(&runtime, async {
        let engine =
            Engine::start_local_def(graph, Vec::new(), Some(1)).map_err(|e| e.to_string())?;
        let file = TestFile::compiled(graph.tests.unwrap_or("{}")).map_err(|e| e.to_string())?;
        let cassette_path = file.default_cassette();
        let mut cassette = Cassette::load(&cassette_path)
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        let command = format!("cargo run -- test --filter {name:?}");
        let run = run::run_cases(
            &engine,
            &file,
            Selection::Named(name),
            Mode::Replay,
            &mut cassette,
            &command,
        )
        .await;
        engine.shutdown().await;
        match run.cases.into_iter().next() {
            None => Err(format!("{}: no case named `{name}`", file.path.display())),
            Some(case) => case.failure.map_or(Ok(()), |failure| {
                let at = case.line.map(|l| format!(":{l}")).unwrap_or_default();
                Err(format!(
                    "{}{at}: case `{name}`\n{failure}",
                    file.path.display()
                ))
            }),
        }
    });
    if let Err(failure) = failure {
        panic!("{failure}");
    }
}

/// How the user runs `test` on this binary (with `file`).
fn command(file: Option<&std::path::Path>) -> String {
    let exe = std::env::args_os()
        .next()
        .map(PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "server".to_owned());
    match file {
        Some(file) => format!("{exe} test {}", file.display()),
        None => format!("{exe} test"),
    }
}
