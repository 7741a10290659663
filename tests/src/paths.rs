//! Where things are: the workspace root, the examples and their data, the
//! compiled example binaries, and programs on `PATH`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The example binaries, each compiled from `examples/<name>/<name>.yaml`.
pub const EXAMPLES: [&str; 4] = [
    "file_utils",
    "loop_example",
    "switch_example",
    "test_minimal",
];

/// The workspace root (the parent of this crate's directory), canonicalized.
pub fn repo_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest.parent().expect("tests/ has a parent directory");
        root.canonicalize()
            .unwrap_or_else(|e| panic!("cannot canonicalize repo root {}: {e}", root.display()))
    })
}

/// `examples/<name>` in the repo.
pub fn example_dir(name: &str) -> PathBuf {
    repo_root().join("examples").join(name)
}

/// `examples/<name>/<name>.yaml`: the graph the binary `<name>` compiles.
pub fn example_yaml(name: &str) -> PathBuf {
    example_dir(name).join(format!("{name}.yaml"))
}

/// The data folder of the file_utils example (a copy of `testdata/mcpgraph/counting/`).
pub fn counting_dir() -> PathBuf {
    let dir = example_dir("file_utils").join("counting");
    dir.canonicalize()
        .unwrap_or_else(|e| panic!("missing example data folder {}: {e}", dir.display()))
}

/// Directories where cargo puts the final binaries of the profile this test
/// was built with, best first.
pub(crate) fn candidate_bin_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut profile = String::from("debug");
    if let Ok(exe) = std::env::current_exe() {
        // Integration tests live in <target>/<profile>/deps/<name>-<hash>;
        // the binaries are in <target>/<profile>/.
        if let Some(parent) = exe.parent() {
            if parent.file_name().is_some_and(|n| n == "deps")
                && let Some(profile_dir) = parent.parent()
            {
                if let Some(p) = profile_dir.file_name().and_then(|p| p.to_str()) {
                    profile = p.to_string();
                }
                dirs.push(profile_dir.to_path_buf());
            }
            dirs.push(parent.to_path_buf());
        }
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        let target = PathBuf::from(target);
        let target = if target.is_absolute() {
            target
        } else {
            repo_root().join(target)
        };
        dirs.push(target.join(&profile));
        dirs.push(target.join("debug"));
    }
    dirs.push(repo_root().join("target").join(&profile));
    dirs.push(repo_root().join("target").join("debug"));
    let mut unique: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if !unique.contains(&d) {
            unique.push(d);
        }
    }
    unique
}

/// Absolute path of the example binary `name`; panics with a clear message
/// when it has not been built.
pub fn bin_path(name: &str) -> PathBuf {
    let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let dirs = candidate_bin_dirs();
    for dir in &dirs {
        let p = dir.join(&file);
        if p.is_file() {
            return p;
        }
    }
    panic!(
        "example binary `{file}` not found (looked in: {}). \
         The tests drive the compiled example servers: run `cargo build --workspace` \
         (or scripts/test.sh) before `cargo test`.",
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
}

pub(crate) fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}
