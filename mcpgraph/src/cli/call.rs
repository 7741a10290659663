//! `call TOOL [ARGUMENTS]`: one tool call from the command line, its
//! result's text on stdout. The arguments are a JSON object given inline,
//! read from a file (`@args.json`) or from stdin (`-`); a tool name the
//! graph lacks is refused before anything runs, with the closest name.
//! With `--json`, stdout is one object instead: `{"tool", "result"}` or
//! `{"tool", "error"}`, and with `--trace` its `"trace"`, the execution
//! record (what `mcpgraph graph --trace` draws).

use std::process::ExitCode;

use serde_json::{Map, Value};

use mcpgraph_runtime::ToolMeta;
use mcpgraph_runtime::{CallOptions, CallOutcome, Engine};

use super::error::{CliError, Origin};
use super::fail;

/// What `call` prints besides the result: the execution record
/// (`trace`), and whether as one JSON object (`json`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Report {
    pub(super) trace: bool,
    pub(super) json: bool,
}

/// Runs `tool` of `tools` on `engine` with `arguments` (see the module
/// docs), printing as `report` says.
pub(super) async fn call(
    engine: &Engine,
    tools: &[ToolMeta],
    tool: &str,
    arguments: Option<&str>,
    report: Report,
) -> ExitCode {
    if !tools.iter().any(|t| t.name == tool) {
        return fail(unknown_tool(tool, tools));
    }
    let arguments = match read_arguments(arguments).await {
        Ok(arguments) => arguments,
        Err(e) => return fail(e),
    };
    let options = CallOptions {
        record: report.trace,
        ..CallOptions::default()
    };
    let outcome = engine.call_with(tool, Some(arguments), options).await;
    if report.json {
        let failed = outcome.result.is_err();
        if failed {
            mcpgraph_downstream::stderr::release();
        }
        println!("{}", json_report(tool, &outcome));
        return if failed {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    for record in outcome.records.iter().flatten() {
        // A log on stderr: redacted as the held-back stderr is.
        eprintln!("{}", mcpgraph_runtime::host::redact(&record.trace_line()));
    }
    match outcome.result {
        Ok(value) => {
            println!("{}", result_text(&value));
            ExitCode::SUCCESS
        }
        Err(e) => {
            mcpgraph_downstream::stderr::release();
            fail(e)
        }
    }
}

/// `call --json`'s object: the tool, its `result` or `error`, and its
/// `trace` when recorded, each record redacted as `--trace`'s lines are.
fn json_report(tool: &str, outcome: &CallOutcome) -> Value {
    let mut report = Map::new();
    report.insert("tool".to_owned(), Value::String(tool.to_owned()));
    match &outcome.result {
        Ok(value) => report.insert("result".to_owned(), value.clone()),
        Err(e) => report.insert("error".to_owned(), Value::String(e.to_string())),
    };
    if let Some(records) = &outcome.records {
        let trace = records.iter().map(|r| redacted(r.to_json())).collect();
        report.insert("trace".to_owned(), Value::Array(trace));
    }
    Value::Object(report)
}

/// `value` with the secrets in its text replaced (`${NAME}`, which keeps
/// JSON text JSON).
fn redacted(value: Value) -> Value {
    let text = value.to_string();
    match mcpgraph_runtime::host::redact(&text) {
        std::borrow::Cow::Borrowed(_) => value,
        std::borrow::Cow::Owned(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

/// The error for a tool the graph lacks: its tools, and the closest name
/// when one is a likely typo.
fn unknown_tool(tool: &str, tools: &[ToolMeta]) -> String {
    let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
    let mut text = format!(
        "unknown tool `{tool}` (the server's tools: {}",
        names.join(", ")
    );
    if let Some(close) = closest(tool, &names) {
        text.push_str(&format!("; did you mean `{close}`?"));
    }
    text.push(')');
    text
}

/// The candidate closest to `word` by edit distance (adjacent
/// transpositions counting one), if within a third of the longer name's
/// length: the generator's rule for its did-you-mean hints.
fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let (distance, best) = candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), *c))
        .min_by_key(|(d, _)| *d)?;
    let limit = (word.chars().count().max(best.chars().count()) / 3).max(1);
    (distance <= limit).then_some(best)
}

/// The call's arguments: `{}` without any, the JSON object of a file for
/// `@PATH`, of stdin for `-`, else the text itself.
async fn read_arguments(arguments: Option<&str>) -> Result<Map<String, Value>, CliError> {
    let (text, origin) = match arguments {
        None => return Ok(Map::new()),
        Some("-") => {
            let mut text = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut tokio::io::stdin(), &mut text)
                .await
                .map_err(|source| CliError::ReadArguments {
                    origin: Origin::Stdin,
                    source,
                })?;
            (text, Origin::Stdin)
        }
        Some(file) if file.starts_with('@') => {
            let origin = Origin::File(file[1..].to_owned());
            let text = tokio::fs::read_to_string(&file[1..])
                .await
                .map_err(|source| CliError::ReadArguments {
                    origin: origin.clone(),
                    source,
                })?;
            (text, origin)
        }
        Some(text) => (text.to_owned(), Origin::Inline),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(CliError::Arguments {
            origin,
            source: None,
        }),
        Err(e) => Err(CliError::Arguments {
            origin,
            source: Some(e),
        }),
    }
}

/// What `call` prints for a result (and `--trace` for a node's output):
/// the text of the tool result an MCP client gets
/// ([`success_result`](mcpgraph_runtime::host::success_result)), with JavaScript's
/// number spelling (`0.000001`, not serde_json's `1e-6`).
fn result_text(value: &Value) -> String {
    mcpgraph_runtime::host::to_js_string(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `call` prints the text of the MCP tool result, numbers included.
    #[test]
    fn call_prints_the_text_of_the_tool_result() {
        let values = [
            json!(0.000001),
            json!(1e16),
            json!({ "small": 1e-6, "big": 1e16, "tiny": 1e-7, "huge": 1e21, "n": [0.5, -0.0] }),
        ];
        for value in values {
            let result = mcpgraph_runtime::host::success_result(value.clone());
            let text = result.content[0].as_text().map(|t| t.text.as_str());
            assert_eq!(Some(result_text(&value).as_str()), text);
        }
        assert_eq!(
            result_text(&json!([1e-6, 1e16])),
            "[0.000001,10000000000000000]"
        );
    }

    #[test]
    fn the_closest_tool_name() {
        let tools = ["head_file", "read_file", "list_directory"];
        assert_eq!(closest("head_fil", &tools), Some("head_file"));
        assert_eq!(closest("Read_File", &tools), Some("read_file"));
        assert_eq!(closest("list_dierctory", &tools), Some("list_directory"));
        assert_eq!(closest("write", &tools), None);
        assert_eq!(closest("x", &[]), None);
    }
}
