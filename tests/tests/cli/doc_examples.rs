//! A crate whose manifest says `doctest = false` (CONTRIBUTING.md, "Doc
//! examples") has no doc example rustdoc would run: a fenced block in its
//! doc comments is marked `ignore` or names a language other than Rust.
//! Without this, an example added to such a crate would never be run.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace directory")
        .to_path_buf()
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether rustdoc runs a block opened with this fence's info string:
/// no language, or Rust (with or without its attributes), unless `ignore`.
fn runs(info: &str) -> bool {
    let words: Vec<&str> = info
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    if words.contains(&"ignore") {
        return false;
    }
    words.iter().all(|w| {
        matches!(
            *w,
            "rust" | "no_run" | "should_panic" | "compile_fail" | "edition2021" | "edition2024"
        )
    })
}

/// The doc examples rustdoc would run in `file`: (line, info string).
fn runnable(file: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(file).expect("a source file");
    let mut open = false;
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let doc = line.trim_start();
        let Some(body) = doc.strip_prefix("///").or_else(|| doc.strip_prefix("//!")) else {
            continue;
        };
        let Some(info) = body.trim_start().strip_prefix("```") else {
            continue;
        };
        if open {
            open = false;
            continue;
        }
        open = true;
        if runs(info.trim()) {
            found.push((n + 1, info.trim().to_owned()));
        }
    }
    found
}

#[test]
fn crates_without_doctests_have_no_example_to_run() {
    let root = root();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(&root).expect("the workspace directory") {
        let dir = entry.expect("a directory entry").path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        if !manifest.lines().any(|l| l.trim() == "doctest = false") || !dir.join("src").is_dir() {
            continue;
        }
        checked += 1;
        let mut files = Vec::new();
        sources(&dir.join("src"), &mut files);
        for file in files {
            for (line, info) in runnable(&file) {
                wrong.push(format!("{}:{line}: ```{info}", file.display()));
            }
        }
    }
    assert!(checked >= 10, "only {checked} crates say doctest = false");
    assert!(
        wrong.is_empty(),
        "doc examples rustdoc would run, in crates with `doctest = false` (mark them \
         `ignore`, or let the crate's doctests run):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_rust_fence_runs_and_an_ignored_or_text_one_does_not() {
    assert!(runs(""));
    assert!(runs("rust"));
    assert!(runs("no_run"));
    assert!(!runs("ignore"));
    assert!(!runs("rust,ignore"));
    assert!(!runs("text"));
    assert!(!runs("yaml"));
    assert!(!runs("sh"));
}
