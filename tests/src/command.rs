//! The command line of an example binary: its global options (the `--mcp`
//! override that points file_utils at the pinned filesystem peer), the
//! command that runs it, and one CLI run with its output.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::{bin_path, counting_dir, example_dir, filesystem_server_js, timed, which};

/// The `--mcp` override JSON for file_utils: the compiled-in `filesystem`
/// server replaced by the pinned local one, allowed on [`counting_dir`].
pub fn mcp_override_json() -> Value {
    let node = which("node").expect("`node` not found on PATH (needed by the filesystem peer)");
    json!({
        "mcpServers": {
            "filesystem": {
                "command": node,
                "args": [filesystem_server_js(), counting_dir()],
            }
        }
    })
}

/// Path of a file holding [`mcp_override_json`]: `mcpgraph-tests/mcp-override.json`
/// beside the example binaries (written once per process, atomically; every
/// process writes the same content).
pub fn mcp_override_file() -> &'static Path {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let bin = bin_path("file_utils");
        let dir = bin
            .parent()
            .expect("binary has a parent dir")
            .join("mcpgraph-tests");
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let path = dir.join("mcp-override.json");
        let tmp = dir.join(format!("mcp-override.json.{}.tmp", std::process::id()));
        let text = serde_json::to_string_pretty(&mcp_override_json()).unwrap();
        std::fs::write(&tmp, text).expect("write --mcp override file");
        std::fs::rename(&tmp, &path).expect("rename --mcp override file");
        path
    })
}

/// Global options to pass to the example `name` before any subcommand:
/// `--mcp FILE` for file_utils, nothing for the others.
pub fn global_args(name: &str) -> Vec<OsString> {
    if name == "file_utils" {
        vec!["--mcp".into(), mcp_override_file().as_os_str().to_owned()]
    } else {
        Vec::new()
    }
}

/// A command running the example `name` with its global options; the caller
/// appends a subcommand (or none for the stdio server). The working
/// directory is the example's folder.
pub fn command(name: &str) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(bin_path(name));
    cmd.args(global_args(name));
    cmd.current_dir(example_dir(name));
    cmd.kill_on_drop(true);
    cmd
}

/// A command running the example `name` with `--mcp mcp_file` as its only
/// global option (instead of the harness's), in the example's folder; the
/// caller appends the rest.
pub fn command_with_mcp(name: &str, mcp_file: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(bin_path(name));
    cmd.arg("--mcp").arg(mcp_file);
    cmd.current_dir(example_dir(name));
    cmd.kill_on_drop(true);
    cmd
}

/// Outcome of one CLI run.
#[derive(Debug)]
pub struct CliOutput {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `<bin> [global options] <args...>` with stdin closed, under [`TIMEOUT`].
pub async fn run_cli(name: &str, args: &[&str]) -> CliOutput {
    run_cli_with_env(name, args, &[]).await
}

/// [`run_cli`] with environment changes: `(name, Some(value))` sets a
/// variable, `(name, None)` removes it.
pub async fn run_cli_with_env(
    name: &str,
    args: &[&str],
    env: &[(&str, Option<&str>)],
) -> CliOutput {
    let mut cmd = command(name);
    for (var, value) in env {
        match value {
            Some(value) => cmd.env(var, value),
            None => cmd.env_remove(var),
        };
    }
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = timed(&format!("{name} {args:?}"), cmd.output())
        .await
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin_path(name).display()));
    CliOutput {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
