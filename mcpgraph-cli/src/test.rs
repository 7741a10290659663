//! `mcpgraph test`: builds the user's graph crate and runs its binary's
//! `test` command, which holds the compiled graph and its test cases.

use std::ffi::OsString;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use crate::cargo::{CargoLine, one_binary, parse_line};
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
    /// What the binary's `test` takes: a test file, `--record`,
    /// `--update`, `--json`, `--min-coverage N`... (after `--`).
    #[arg(last = true)]
    args: Vec<OsString>,
}

/// Builds the crate, then runs `<binary> test ARGS`; its exit status.
pub(crate) fn run(args: TestArgs) -> Result<ExitCode, CliError> {
    let binary = build(&args)?;
    let status = Command::new(&binary)
        .arg("test")
        .args(&args.args)
        .status()
        .map_err(CliError::run(binary.display().to_string()))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

/// `cargo build`s the crate and returns its binary's path.
fn build(args: &TestArgs) -> Result<PathBuf, CliError> {
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
            if let Some(CargoLine::Binary(path)) = parse_line(&line) {
                binaries.push(path);
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
