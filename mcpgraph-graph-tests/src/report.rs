//! A run's results as a person reads them (a list and a coverage table),
//! as JUnit XML, as GitHub annotations, and as JSON.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;

use crate::coverage::{ToolCoverage, total};
use crate::run::Run;

/// `path` as the user gave it or relative to the current directory.
pub(crate) fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|dir| path.strip_prefix(dir).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The results for people.
pub(crate) fn human(
    run: &Run,
    coverage: &[ToolCoverage],
    test_file: &str,
    graph_file: &str,
) -> String {
    let mut out = String::new();
    for case in &run.cases {
        let time = case.time.as_secs_f64() * 1000.0;
        let state = match (&case.failure, case.recorded) {
            (None, true) => "ok (recorded)",
            (None, false) => "ok",
            (Some(_), _) => "FAIL",
        };
        let _ = writeln!(out, "{state:<5} {} ({time:.1} ms)", case.name);
        if let Some(failure) = &case.failure {
            let at = case
                .line
                .map(|l| format!("{test_file}:{l}: "))
                .unwrap_or_default();
            let _ = writeln!(out, "      {at}case `{}` (tool `{}`)", case.name, case.tool);
            for line in failure.lines() {
                let _ = writeln!(out, "      {line}");
            }
        }
        for note in &case.notes {
            let _ = writeln!(out, "      note: {note}");
        }
    }
    if !coverage.is_empty() {
        let width = coverage
            .iter()
            .map(|c| c.tool.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let _ = writeln!(
            out,
            "\ncoverage\n{:<width$}  nodes    routes   covered",
            "tool"
        );
        for tool in coverage {
            let _ = writeln!(
                out,
                "{:<width$}  {:<7}  {:<7}  {:>6.1}%",
                tool.tool,
                format!("{}/{}", tool.nodes_reached, tool.nodes),
                format!("{}/{}", tool.routes_taken, tool.routes),
                tool.percent(),
            );
            for missed in &tool.missed {
                let _ = writeln!(out, "  {graph_file}:{}: {}", missed.line, missed.what);
            }
        }
    }
    let failed = run.cases.iter().filter(|c| c.failure.is_some()).count();
    let _ = write!(
        out,
        "\n{} passed, {failed} failed",
        run.cases.len() - failed
    );
    if !coverage.is_empty() {
        let _ = write!(out, "; coverage {:.1}%", total(coverage));
    }
    out.push('\n');
    out
}

/// The results as JSON; `graph`: the graph file (the map's), if known.
/// Each case's `trace` is its execution record, redacted as
/// `call --trace` redacts it.
pub(crate) fn to_json(
    run: &Run,
    coverage: &[ToolCoverage],
    graph: Option<&str>,
) -> serde_json::Value {
    let cases: Vec<_> = run
        .cases
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "tool": c.tool,
                "line": c.line,
                "passed": c.failure.is_none(),
                "failure": c.failure,
                "notes": c.notes,
                "recorded": c.recorded,
                "timeMs": c.time.as_secs_f64() * 1000.0,
                "trace": c.records.iter().map(|r| redacted(r.to_json())).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "graph": graph,
        "passed": run.cases.iter().filter(|c| c.failure.is_none()).count(),
        "failed": run.cases.iter().filter(|c| c.failure.is_some()).count(),
        "cases": cases,
        "coverage": { "percent": total(coverage), "tools": coverage },
    })
}

/// `value` with the secrets in its text replaced (`${NAME}`, which keeps
/// JSON text JSON).
fn redacted(value: serde_json::Value) -> serde_json::Value {
    let text = value.to_string();
    match mcpgraph_runtime::host::redact(&text) {
        std::borrow::Cow::Borrowed(_) => value,
        std::borrow::Cow::Owned(text) => {
            serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text))
        }
    }
}

/// GitHub Actions workflow commands: an error at each failed case, a
/// warning at each line never reached.
pub(crate) fn github(
    run: &Run,
    coverage: &[ToolCoverage],
    test_file: &str,
    graph_file: &str,
) -> String {
    let mut out = String::new();
    for case in &run.cases {
        if let Some(failure) = &case.failure {
            let line = case.line.map(|l| format!(",line={l}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "::error file={test_file}{line},title=case failed::{}",
                escape_command(&format!("case `{}`: {failure}", case.name))
            );
        }
    }
    for tool in coverage {
        for missed in &tool.missed {
            let _ = writeln!(
                out,
                "::warning file={graph_file},line={},title=not covered::{}",
                missed.line,
                escape_command(&format!("tool `{}`: {}", tool.tool, missed.what))
            );
        }
    }
    out
}

fn escape_command(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// JUnit XML: one test suite, a test case per case.
pub(crate) fn junit(run: &Run, suite: &str) -> String {
    let failed = run.cases.iter().filter(|c| c.failure.is_some()).count();
    let time: f64 = run.cases.iter().map(|c| c.time.as_secs_f64()).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites tests=\"{}\" failures=\"{failed}\" time=\"{time:.3}\">",
        run.cases.len()
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" time=\"{time:.3}\">",
        xml(suite),
        run.cases.len()
    );
    for case in &run.cases {
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            xml(&case.tool),
            xml(&case.name),
            case.time.as_secs_f64()
        );
        match &case.failure {
            None => out.push_str("/>\n"),
            Some(failure) => {
                let first = failure.lines().next().unwrap_or_default();
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                    xml(first),
                    xml(failure)
                );
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 has no way to write these.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
