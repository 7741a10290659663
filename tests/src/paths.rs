//! Where things are: the workspace root, the examples and their data, the
//! binaries the tests drive (built through cargo on first use), and programs
//! on `PATH`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

/// The example binaries, each compiled from `examples/<name>/<name>.yaml`.
pub const EXAMPLES: [&str; 4] = [
    "file_utils",
    "loop_example",
    "switch_example",
    "test_minimal",
];

/// The binaries of other packages that the tests drive: the examples and
/// the `mcpgraph` CLI. [`bin_path`] builds these; this package's own
/// binaries are `env!("CARGO_BIN_EXE_<name>")` in the tests.
const PROGRAMS: [&str; 6] = [
    EXAMPLES[0],
    EXAMPLES[1],
    EXAMPLES[2],
    EXAMPLES[3],
    "fan_out",
    "mcpgraph",
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

/// Absolute path of the binary `name` (an example server or the `mcpgraph`
/// CLI), built by cargo for this run, so a test never drives a stale
/// build. The first call in a process runs one `cargo build` of all of them
/// (quick when they are up to date) and panics with cargo's errors if it
/// fails.
///
/// A program of this package run by a script instead of cargo test (the
/// soak run) calls [`find_programs_beside_this_executable`] first.
pub fn bin_path(name: &str) -> PathBuf {
    if BESIDE_THIS_EXECUTABLE.get().is_some() {
        return beside_this_executable(name);
    }
    let programs = programs().unwrap_or_else(|e| panic!("{e}"));
    match programs.get(name) {
        Some(path) => path.clone(),
        None => panic!(
            "`{name}` is not among the binaries the tests build ({}): add it to PROGRAMS",
            PROGRAMS.join(", ")
        ),
    }
}

/// Builds the programs now if [`bin_path`] has not yet, so that
/// a build is not counted against a test's time limit (see [`crate::timed`]).
pub fn ensure_programs_built() {
    if BESIDE_THIS_EXECUTABLE.get().is_none() {
        let _ = programs();
    }
}

static BESIDE_THIS_EXECUTABLE: OnceLock<()> = OnceLock::new();

/// Makes [`bin_path`] return the binaries in this executable's directory
/// instead of building them: for a program of this package run by a script
/// that built it in the same `cargo build` as the programs it drives
/// (scripts/soak.sh).
pub fn find_programs_beside_this_executable() {
    let _ = BESIDE_THIS_EXECUTABLE.set(());
}

fn beside_this_executable(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the path of this executable");
    let path = exe.with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "`{}` not found beside {}: build it in the same cargo command",
        path.display(),
        exe.display()
    );
    path
}

/// [`PROGRAMS`] by name, built once per process.
fn programs() -> Result<&'static HashMap<String, PathBuf>, &'static str> {
    static BUILT: OnceLock<Result<HashMap<String, PathBuf>, String>> = OnceLock::new();
    BUILT
        .get_or_init(build_programs)
        .as_ref()
        .map_err(String::as_str)
}

/// Runs `cargo build --workspace --lib --examples --bin <each of PROGRAMS>`
/// in the profile this test was built with, and reads the binaries' paths
/// from cargo's JSON messages.
///
/// The rest of the command is there so that the programs are the ones the
/// build stage (`cargo build --workspace --all-targets`) made, not a second
/// variant of them and of everything below: `--workspace` and `--examples`
/// (two small ones in bench/) make cargo resolve features over every member
/// with dev-dependencies, and `--lib` builds the proc-macro crate as a
/// member with its debug info, not as a host dependency without it. After
/// the build stage this build has nothing to do. Concurrent test processes
/// are safe: cargo locks the target directory.
fn build_programs() -> Result<HashMap<String, PathBuf>, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut cmd = std::process::Command::new(&cargo);
    cmd.current_dir(repo_root())
        .arg("build")
        .arg("--manifest-path")
        .arg(repo_root().join("Cargo.toml"))
        .args(["--workspace", "--lib", "--examples"])
        .args(PROGRAMS.iter().flat_map(|name| ["--bin", name]))
        .args(["--message-format", "json-render-diagnostics"])
        .args(profile_args())
        .stdin(Stdio::null());
    // cargo test sets these for the test process. Build scripts that watch
    // them (ring's does) would otherwise rerun for this build, and again for
    // the next cargo test, rebuilding everything above them both times.
    for (key, _) in std::env::vars_os() {
        if let Some(key) = key.to_str()
            && (key.starts_with("CARGO_PKG_") || CARGO_TEST_ENV.contains(&key))
        {
            cmd.env_remove(key);
        }
    }
    let shown = format!(
        "{} {:?}",
        cargo.to_string_lossy(),
        cmd.get_args().collect::<Vec<_>>()
    );
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building the programs the tests drive failed ({}): {shown}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut programs = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let is_bin = message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|k| k == "bin"));
        if message["reason"] == "compiler-artifact"
            && is_bin
            && let (Some(name), Some(exe)) = (
                message["target"]["name"].as_str(),
                message["executable"].as_str(),
            )
        {
            programs.insert(name.to_string(), PathBuf::from(exe));
        }
    }
    Ok(programs)
}

/// Variables cargo sets for a test process, besides `CARGO_PKG_*`.
const CARGO_TEST_ENV: [&str; 7] = [
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_TARGET_TMPDIR",
    "OUT_DIR",
];

/// The cargo profile of this executable, read from where cargo put it
/// (`<target>/<profile dir>/deps/<test>`): `debug` is the `dev` profile.
fn profile_args() -> Vec<String> {
    let exe = std::env::current_exe().ok();
    let profile_dir = exe
        .as_deref()
        .and_then(Path::parent)
        .filter(|deps| deps.file_name().is_some_and(|n| n == "deps"))
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|p| p.to_str());
    match profile_dir {
        None | Some("debug") => Vec::new(),
        Some("release") => vec!["--release".into()],
        Some(profile) => vec!["--profile".into(), profile.into()],
    }
}

pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}
