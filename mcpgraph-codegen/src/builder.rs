//! The build.rs front door: generates a graph's code into `OUT_DIR` as a
//! formatted file with an `@generated` header, written only when its text
//! changed, and tells cargo about the file and every problem in it.
//!
//! The checks, the code and the lint levels are the macro's (`generate`,
//! `lints`); only the reporting differs: warnings are `cargo::warning=`
//! lines, and errors (denied warnings among them) `cargo::error=` lines,
//! which fail the build without a panic.

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostics, Severity};
use crate::expand::ExpandOptions;
use crate::generate::{display_path, generate_file, pretty};
use crate::lints::{Level, LintLevels, WARNINGS};

/// Generates a graph file's server from a build script.
///
/// ```no_run
/// // In build.rs's `fn main`:
/// mcpgraph_codegen::Builder::new().compile("graph.yaml");
/// ```
///
/// ```ignore
/// // src/main.rs
/// include!(concat!(env!("OUT_DIR"), "/graph.rs"));
///
/// fn main() -> std::process::ExitCode {
///     Server::main()
/// }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Builder {
    krate: Option<String>,
    out_dir: Option<PathBuf>,
    file_name: Option<String>,
    require_lock: bool,
    levels: Vec<(String, Level)>,
}

impl Builder {
    /// A builder with the defaults: code reaches the runtime through
    /// `::mcpgraph`, and is written to `$OUT_DIR/<graph file stem>.rs`.
    pub fn new() -> Self {
        Self::default()
    }

    /// The path of the `mcpgraph` crate in the generated code, when the
    /// dependency is renamed (e.g. `"::my_mcpgraph"`).
    pub fn crate_path(mut self, path: impl Into<String>) -> Self {
        self.krate = Some(path.into());
        self
    }

    /// Fail the build when the graph's lock (`<graph>.lock.json`, written
    /// by `mcpgraph lock`) is missing, so that CI never builds a graph
    /// unchecked against its servers. A lock that exists is always used.
    pub fn require_lock(mut self, require: bool) -> Self {
        self.require_lock = require;
        self
    }

    /// Drops the warnings of lint `lint` (e.g. `"unknown_input_field"`;
    /// `"warnings"` for all), as `allow(...)` does in `mcpgraph!`. The
    /// last setting of a lint wins, and a lint's own setting wins over
    /// `"warnings"`.
    pub fn allow(mut self, lint: impl Into<String>) -> Self {
        self.levels.push((lint.into(), Level::Allow));
        self
    }

    /// Makes the warnings of lint `lint` (`"warnings"` for all) errors,
    /// which fail the build, as `deny(...)` does in `mcpgraph!`.
    pub fn deny(mut self, lint: impl Into<String>) -> Self {
        self.levels.push((lint.into(), Level::Deny));
        self
    }

    /// Where to write the file instead of `OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The name of the written file instead of `<graph file stem>.rs`.
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = Some(name.into());
        self
    }

    /// Checks and generates the graph file at `path` (relative to the
    /// crate's `Cargo.toml`, i.e. the build script's directory), writes the
    /// code, and prints cargo directives: `rerun-if-changed` for the graph
    /// file, a `warning` per warning and an `error` per error (which fails
    /// the build). Returns where the code was written, or `None` on error
    /// (already reported; there is nothing more to do).
    ///
    /// On error the file still gets a skeleton of the public items, so the
    /// crate's own code does not add errors of its own.
    pub fn compile(&self, path: impl AsRef<Path>) -> Option<PathBuf> {
        let mut stdout = std::io::stdout().lock();
        match self.run(path.as_ref(), &mut stdout) {
            Ok(written) => written,
            Err(e) => {
                let _ = std::io::Write::write_fmt(
                    &mut stdout,
                    format_args!("cargo::error=mcpgraph: {e}\n"),
                );
                None
            }
        }
    }

    /// `compile`, printing the cargo directives to `out`.
    fn run(&self, path: &Path, out: &mut impl std::io::Write) -> std::io::Result<Option<PathBuf>> {
        writeln!(out, "cargo::rerun-if-changed={}", path.display())?;
        let krate = match self.krate.as_deref().map(syn::parse_str::<syn::Path>) {
            None => syn::parse_quote!(::mcpgraph),
            Some(Ok(krate)) => krate,
            Some(Err(e)) => {
                writeln!(
                    out,
                    "cargo::error=mcpgraph: `crate_path` is not a Rust path: {e}"
                )?;
                return Ok(None);
            }
        };
        let mut levels = LintLevels::default();
        for (name, level) in &self.levels {
            if let Err(e) = levels.set(name, *level) {
                writeln!(out, "cargo::error=mcpgraph: {e}")?;
                return Ok(None);
            }
        }
        let Some(dir) = self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
        else {
            writeln!(
                out,
                "cargo::error=mcpgraph: OUT_DIR is not set: run from a build script, or call `out_dir`"
            )?;
            return Ok(None);
        };
        let name = self.file_name.clone().unwrap_or_else(|| {
            let stem = path
                .file_stem()
                .map_or("graph".into(), |s| s.to_string_lossy());
            format!("{stem}.rs")
        });
        let mut output = generate_file(
            path,
            &display_path(path),
            &ExpandOptions {
                krate,
                require_lock: self.require_lock,
                ..ExpandOptions::default()
            },
        );
        let lock = crate::lock::lock_path(path);
        if lock.is_file() {
            writeln!(out, "cargo::rerun-if-changed={}", lock.display())?;
        }
        let tests = crate::cases::test_path(path);
        if tests.is_file() {
            writeln!(out, "cargo::rerun-if-changed={}", tests.display())?;
        }
        for diagnostics in
            std::iter::once(&mut output.diagnostics).chain(&mut output.test_diagnostics)
        {
            levels.apply(diagnostics, |name| {
                format!("denied by `.deny({name:?})` on the `Builder` in build.rs")
            });
            report(diagnostics, out)?;
        }
        let code = match pretty(&output.tokens) {
            Ok(code) => code,
            Err(e) => {
                writeln!(
                    out,
                    "cargo::error=mcpgraph: internal error: the generated code does not parse: {e}"
                )?;
                return Ok(None);
            }
        };
        let text = format!(
            "// @generated by mcpgraph-codegen from `{}`. Do not edit: edit the\n// graph file; this file is written by the build script.\n\n{code}",
            path.display()
        );
        let target = dir.join(name);
        // Written only when changed, so that its timestamp does not make
        // cargo rebuild the crate for nothing.
        if std::fs::read_to_string(&target).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&target, text)?;
        }
        Ok(output.is_ok().then_some(target))
    }
}

/// Prints every diagnostic as cargo directives, one per line of its
/// rendering (cargo messages are single lines); a warning ends with a note
/// naming its lint.
fn report(diagnostics: &Diagnostics, out: &mut impl std::io::Write) -> std::io::Result<()> {
    for d in &diagnostics.items {
        let mut d = d.clone();
        let directive = match d.severity {
            Severity::Error => "error",
            Severity::Warning => {
                let lint = d.lint.unwrap_or(WARNINGS);
                d.notes.push(format!(
                    "`{lint}` is an mcpgraph lint: `.allow({lint:?})` on the `Builder` drops this warning, `.deny({lint:?})` makes it an error"
                ));
                "warning"
            }
            // Cargo has no directive for notes; `mcpgraph check` shows them.
            Severity::Note => continue,
        };
        for line in diagnostics.render_body(&d).lines() {
            writeln!(out, "cargo::{directive}={line}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mcpgraph-builder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn writes_formatted_code_once() {
        let dir = temp_dir("ok");
        let graph = dir.join("g.yaml");
        std::fs::write(
            &graph,
            "version: '1'\nserver: {name: s, version: '1'}\ntools:\n  - name: t\n    description: d\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: a}\n      - {id: a, type: transform, transform: {expr: '$.b'}, next: b}\n      - {id: b, type: transform, transform: {expr: '1'}, next: exit}\n      - {id: exit, type: exit}\n",
        )
        .unwrap();
        let builder = Builder::new().out_dir(&dir);
        let mut out = Vec::new();
        let written = builder.run(&graph, &mut out).unwrap().unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with(&format!("cargo::rerun-if-changed={}\n", graph.display())),
            "{out}"
        );
        assert!(
            out.contains("cargo::warning=node `a` reads `b`, which cannot have run before it"),
            "{out}"
        );
        assert!(out.contains("cargo::warning= --> "), "{out}");
        assert!(!out.contains("cargo::error"), "{out}");
        assert_eq!(written, dir.join("g.rs"));
        let code = std::fs::read_to_string(&written).unwrap();
        assert!(code.starts_with("// @generated by mcpgraph-codegen"));
        assert!(code.contains("pub struct Server;\n"), "{code}");
        let modified = std::fs::metadata(&written).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        builder.run(&graph, &mut Vec::new()).unwrap();
        assert_eq!(
            std::fs::metadata(&written).unwrap().modified().unwrap(),
            modified
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn allow_and_deny_decide_what_fails() {
        let dir = temp_dir("levels");
        let graph = dir.join("g.yaml");
        std::fs::write(
            &graph,
            "version: '1'\nserver: {name: s, version: '1'}\ntools:\n  - name: t\n    description: d\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: a}\n      - {id: a, type: transform, transform: {expr: '$.b'}, next: b}\n      - {id: b, type: transform, transform: {expr: '1'}, next: exit}\n      - {id: exit, type: exit}\n",
        )
        .unwrap();
        let run = |builder: Builder| {
            let mut out = Vec::new();
            let written = builder.out_dir(&dir).run(&graph, &mut out).unwrap();
            (written, String::from_utf8(out).unwrap())
        };
        let (written, out) = run(Builder::new());
        assert!(written.is_some(), "{out}");
        assert!(
            out.contains("cargo::warning=  = note: `reference_before_run` is an mcpgraph lint: `.allow(\"reference_before_run\")` on the `Builder` drops this warning"),
            "{out}"
        );
        let (written, out) = run(Builder::new().allow("reference_before_run"));
        assert!(written.is_some(), "{out}");
        assert!(!out.contains("cargo::warning"), "{out}");
        for builder in [
            Builder::new().deny("reference_before_run"),
            Builder::new().deny("warnings"),
        ] {
            let (written, out) = run(builder);
            assert_eq!(written, None, "{out}");
            assert!(
                out.contains("cargo::error=node `a` reads `b`, which cannot have run before it"),
                "{out}"
            );
            assert!(out.contains("on the `Builder` in build.rs"), "{out}");
            assert!(!out.contains("cargo::warning"), "{out}");
        }
        let (written, out) = run(Builder::new().deny("reference_before_rn"));
        assert_eq!(written, None);
        assert!(
            out.contains("cargo::error=mcpgraph: unknown lint `reference_before_rn`"),
            "{out}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn errors_are_cargo_errors() {
        let dir = temp_dir("err");
        let graph = dir.join("g.yaml");
        std::fs::write(
            &graph,
            "version: '1'\nserver: {name: s, version: '1'}\ntoolz: []\n",
        )
        .unwrap();
        let mut out = Vec::new();
        let written = Builder::new()
            .out_dir(&dir)
            .file_name("x.rs")
            .run(&graph, &mut out)
            .unwrap();
        assert_eq!(written, None);
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().skip(1).collect();
        assert_eq!(
            lines[0],
            "cargo::error=unknown key `toolz` at the top level"
        );
        assert!(lines[1].starts_with("cargo::error= --> "), "{out}");
        assert!(lines[1].ends_with("g.yaml:3:1"), "{out}");
        assert_eq!(lines[3], "cargo::error=3 | toolz: []");
        // The skeleton is written, so `include!` still finds a file.
        let code = std::fs::read_to_string(dir.join("x.rs")).unwrap();
        assert!(code.contains("Placeholder"), "{code}");
        let mut out = Vec::new();
        Builder::new()
            .crate_path("not a path")
            .run(&graph, &mut out)
            .unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains("is not a Rust path")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
