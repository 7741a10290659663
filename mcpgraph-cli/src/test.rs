//! `mcpgraph test`: builds the user's graph crate and runs its binary's
//! `test` command, which holds the compiled graph and its test cases; with
//! `--coverage-html`, draws the run's coverage (`picture`) from the report
//! the binary writes (`--report`).

use std::ffi::OsString;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use crate::cargo::{Built, CargoLine, one_binary, parse_line};
use crate::error::CliError;

/// `mcpgraph test`'s arguments.
#[derive(clap::Args)]
pub(crate) struct TestArgs {
    /// The graph crate's `Cargo.toml` (default: the one cargo finds from
    /// the current directory).
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// The binary to run, when the crate has several.
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,
    /// Build in release mode.
    #[arg(long)]
    release: bool,
    /// Also write the coverage picture, an HTML page of the graph with the
    /// nodes never run and routes never taken marked, to FILE (default:
    /// beside the JUnit file when `--junit PATH` follows `--`, as
    /// `<junit stem>.coverage.html`; else `<graph stem>.coverage.html`
    /// beside the graph file).
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true)]
    coverage_html: Option<Option<PathBuf>>,
    /// What the binary's `test` takes: a test file, `--record`,
    /// `--update`, `--json`, `--min-coverage N`... (after `--`).
    #[arg(last = true)]
    args: Vec<OsString>,
}

/// Builds the crate, then runs `<binary> test ARGS`; its exit status.
pub(crate) fn run(args: TestArgs) -> Result<ExitCode, CliError> {
    let built = build(&args)?;
    let report = args.coverage_html.as_ref().map(|_| {
        std::env::temp_dir().join(format!("mcpgraph-test-report-{}.json", std::process::id()))
    });
    let mut command = Command::new(&built.binary);
    command.arg("test").args(&args.args);
    if let Some(report) = &report {
        command.arg("--report").arg(report);
    }
    let status = command
        .status()
        .map_err(CliError::run(built.binary.display().to_string()))?;
    if let (Some(report), Some(out)) = (&report, &args.coverage_html) {
        let written = coverage_html(report, out.as_deref(), &args.args, &built.manifest);
        let _ = std::fs::remove_file(report);
        let path = written?;
        eprintln!("coverage picture: {}", path.display());
    }
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

/// Writes the coverage picture of the test report at `report` to `out`,
/// or where [`TestArgs::coverage_html`] says; where it went.
fn coverage_html(
    report: &Path,
    out: Option<&Path>,
    binary_args: &[OsString],
    manifest: &Path,
) -> Result<PathBuf, CliError> {
    if !report.exists() {
        return Err(CliError::Usage(
            "no coverage picture: the binary's `test` wrote no report (its error is above)"
                .to_owned(),
        ));
    }
    let text = std::fs::read_to_string(report).map_err(CliError::file("read", report))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(CliError::malformed(report))?;
    let graph = json["graph"]
        .as_str()
        .ok_or_else(|| CliError::Usage("the test report names no graph file".to_owned()))?;
    let graph = graph_file(Path::new(graph), manifest)?;
    let out = match out {
        Some(out) => out.to_owned(),
        None => beside(&graph, junit(binary_args).as_deref()),
    };
    let model = crate::load_checked(&graph)?;
    let overlay = crate::picture::Overlay::default().coverage(&json)?;
    let html = crate::picture::html(&model, None, &overlay)?;
    std::fs::write(&out, html).map_err(CliError::file("write", &out))?;
    Ok(out)
}

/// The graph file the report names (relative to where rustc ran: the
/// current directory, the crate's or its workspace's root).
fn graph_file(named: &Path, manifest: &Path) -> Result<PathBuf, CliError> {
    if named.is_absolute() || named.is_file() {
        return Ok(named.to_owned());
    }
    manifest
        .ancestors()
        .skip(1)
        .map(|dir| dir.join(named))
        .find(|path| path.is_file())
        .ok_or_else(|| {
            CliError::Usage(format!(
                "the test report names the graph file `{}`, found neither here nor above `{}`",
                named.display(),
                manifest.display()
            ))
        })
}

/// The `--junit PATH` (or `--junit=PATH`) of the binary's arguments.
fn junit(args: &[OsString]) -> Option<PathBuf> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--junit" {
            return args.next().map(PathBuf::from);
        }
        if let Some(path) = arg.to_str().and_then(|a| a.strip_prefix("--junit=")) {
            return Some(PathBuf::from(path));
        }
    }
    None
}

/// The coverage picture's default place: `<stem>.coverage.html` beside
/// the JUnit file, else beside the graph file.
fn beside(graph: &Path, junit: Option<&Path>) -> PathBuf {
    let near = junit.unwrap_or(graph);
    let name = near
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = [".yaml", ".yml", ".json", ".xml"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(&name);
    near.with_file_name(format!("{stem}.coverage.html"))
}

/// `cargo build`s the crate and returns its binary.
fn build(args: &TestArgs) -> Result<Built, CliError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(["build", "--message-format=json-render-diagnostics"]);
    if let Some(path) = &args.manifest_path {
        command.arg("--manifest-path").arg(path);
    }
    if let Some(bin) = &args.bin {
        command.args(["--bin", bin]);
    } else {
        command.arg("--bins");
    }
    if args.release {
        command.arg("--release");
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(CliError::run("cargo"))?;
    let mut binaries = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(CargoLine::Binary(built)) = parse_line(&line) {
                binaries.push(built);
            }
        }
    }
    let status = child.wait().map_err(CliError::run("cargo"))?;
    if !status.success() {
        return Err(CliError::Usage(
            "the graph crate does not build (cargo's messages are above)".to_owned(),
        ));
    }
    one_binary(&binaries)
}
