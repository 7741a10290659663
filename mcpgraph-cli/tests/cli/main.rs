//! The `mcpgraph` command as a person or a CI job runs it: `check` and
//! its report formats, the other commands, and `new`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgraph"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("cannot run mcpgraph")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const FIVE_ERRORS: &str = "mcpgraph-macros/tests/ui/five_errors.yaml";
const LOOP: &str = "examples/loop_example/loop_example.yaml";

/// A fresh directory under the system's temporary one.
fn scratch(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpgraph-cli-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

mod check;
mod commands;
mod formats;
mod new;
