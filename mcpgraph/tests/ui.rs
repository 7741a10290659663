//! The UI suite: every diagnostic of the `mcpgraph!` macro as rustc shows
//! it, one small `.rs` + `.yaml` pair per case under `tests/ui/`, with the
//! expected output committed beside it (`.stderr`); and the examples, and a
//! graph with an allowed check, as cases that must compile and run.
//!
//! trybuild compiles each case in a project of its own under
//! `target/tests/trybuild/mcpgraph/`, which is also `CARGO_MANIFEST_DIR`
//! for the macro. Links there named `ui` and `examples` point at this
//! directory's `ui/` and the workspace's `examples/`, so that the cases
//! name their graph files the way a user would (`"ui/unknown_key.yaml"`)
//! and the messages show short paths. Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p mcpgraph --test ui`, then read the diff.

use std::path::{Path, PathBuf};

fn link(target: &Path, link: &Path) {
    if std::fs::read_link(link).is_ok_and(|t| t == target) {
        return;
    }
    let _ = std::fs::remove_file(link);
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, link).expect("cannot link the UI files");
}

#[test]
fn ui() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `CARGO_TARGET_TMPDIR` is `<target dir>/tmp`.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .to_path_buf();
    let project = target.join("tests/trybuild/mcpgraph");
    std::fs::create_dir_all(&project).expect("cannot create the trybuild project directory");
    link(&manifest.join("tests/ui"), &project.join("ui"));
    link(&manifest.join("../examples"), &project.join("examples"));

    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
