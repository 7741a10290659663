//! What `cargo build --message-format=json` says, line by line: the
//! binaries it made and the compiler's diagnostics. `mcpgraph test` and
//! `mcpgraph mcp`'s `run_tool` and `test_graph` build graph crates with it.

use std::path::PathBuf;

use serde_json::Value;

use crate::error::CliError;

/// One line of cargo's JSON output that matters here.
#[derive(Debug)]
pub(crate) enum CargoLine {
    /// A binary was built (or was fresh).
    Binary(Built),
    /// The compiler reported a problem.
    Diagnostic(BuildDiagnostic),
}

/// A binary a build made, and its package's `Cargo.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Built {
    pub binary: PathBuf,
    pub manifest: PathBuf,
}

/// A compiler diagnostic, at its primary place.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct BuildDiagnostic {
    /// `error`, `warning`...
    pub severity: String,
    /// The file, relative to the crate when it is in it.
    pub file: String,
    pub line: u64,
    pub column: u64,
    /// rustc's code (`E0308`), or `rustc` for a message without one.
    pub code: String,
    pub message: String,
    /// The compiler's help lines.
    pub help: Option<String>,
    /// The whole message as rustc prints it.
    pub rendered: String,
}

/// The meaning of one line of cargo's output, if any.
pub(crate) fn parse_line(line: &str) -> Option<CargoLine> {
    let message: Value = serde_json::from_str(line).ok()?;
    match message["reason"].as_str()? {
        "compiler-artifact" => {
            let is_bin = message["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k == "bin"));
            let path = message["executable"].as_str().filter(|_| is_bin)?;
            Some(CargoLine::Binary(Built {
                binary: PathBuf::from(path),
                manifest: PathBuf::from(message["manifest_path"].as_str().unwrap_or_default()),
            }))
        }
        "compiler-message" => {
            let m = &message["message"];
            let severity = m["level"].as_str()?.to_owned();
            let span = m["spans"]
                .as_array()
                .and_then(|spans| spans.iter().find(|s| s["is_primary"] == true));
            let help: Vec<&str> = m["children"]
                .as_array()
                .map(|children| {
                    children
                        .iter()
                        .filter(|c| c["level"] == "help")
                        .filter_map(|c| c["message"].as_str())
                        .collect()
                })
                .unwrap_or_default();
            Some(CargoLine::Diagnostic(BuildDiagnostic {
                severity,
                file: span
                    .and_then(|s| s["file_name"].as_str())
                    .unwrap_or_default()
                    .to_owned(),
                line: span.and_then(|s| s["line_start"].as_u64()).unwrap_or(0),
                column: span.and_then(|s| s["column_start"].as_u64()).unwrap_or(0),
                code: m["code"]["code"].as_str().unwrap_or("rustc").to_owned(),
                message: m["message"].as_str().unwrap_or_default().to_owned(),
                help: (!help.is_empty()).then(|| help.join("\n")),
                rendered: m["rendered"].as_str().unwrap_or_default().to_owned(),
            }))
        }
        _ => None,
    }
}

/// The one binary of a build, or why there is not one.
pub(crate) fn one_binary(binaries: &[Built]) -> Result<Built, CliError> {
    match binaries {
        [one] => Ok(one.clone()),
        [] => Err(CliError::Usage("the crate has no binary: `mcpgraph test` runs a graph crate's binary (`mcpgraph new` makes one)".to_owned())),
        several => Err(CliError::Usage(format!(
            "the build made {} binaries; choose one with `--bin NAME`: {}",
            several.len(),
            several
                .iter()
                .filter_map(|b| b.binary.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// An artifact line names the binary; a compiler message gives its
    /// primary place, code and help; other lines and libraries are skipped.
    #[test]
    fn reads_binaries_and_diagnostics() {
        let bin = r#"{"reason":"compiler-artifact","target":{"kind":["bin"]},"executable":"/t/debug/g","manifest_path":"/c/Cargo.toml"}"#;
        assert!(matches!(parse_line(bin), Some(CargoLine::Binary(b))
            if b.binary == Path::new("/t/debug/g") && b.manifest == Path::new("/c/Cargo.toml")));
        let lib = r#"{"reason":"compiler-artifact","target":{"kind":["lib"]},"executable":null}"#;
        assert!(parse_line(lib).is_none());
        let message = r#"{"reason":"compiler-message","message":{"level":"error","message":"mismatched types","code":{"code":"E0308"},"spans":[{"file_name":"src/x.rs","line_start":1,"column_start":2,"is_primary":false},{"file_name":"src/main.rs","line_start":3,"column_start":9,"is_primary":true}],"children":[{"level":"help","message":"try this"}],"rendered":"error[E0308]"}}"#;
        let Some(CargoLine::Diagnostic(d)) = parse_line(message) else {
            panic!("not a diagnostic");
        };
        assert_eq!(
            (d.file.as_str(), d.line, d.column, d.code.as_str()),
            ("src/main.rs", 3, 9, "E0308")
        );
        assert_eq!(d.help.as_deref(), Some("try this"));
        assert!(parse_line(r#"{"reason":"build-finished","success":true}"#).is_none());
        assert!(parse_line("not json").is_none());
    }
}
