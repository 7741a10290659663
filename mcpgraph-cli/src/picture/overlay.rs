//! What is drawn over the pictures, read from the JSON a graph's binary
//! writes: a call's execution record (`call --trace --json`, or a case of
//! `test --json` / `--report`) and a test run's coverage (`test --json` /
//! `--report`).
//!
//! Only reading lives here; how it looks is `draw`'s.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::error::CliError;

/// A call's trace and a test run's coverage to draw over the pictures;
/// the default draws neither.
#[derive(Debug, Default)]
pub(crate) struct Overlay {
    pub(super) trace: Option<Trace>,
    pub(super) coverage: Option<Coverage>,
}

/// One call's execution record.
#[derive(Debug)]
pub(super) struct Trace {
    /// The tool called.
    pub(super) tool: String,
    /// What made the call: `call`, or the test case's name.
    pub(super) source: String,
    /// Why the call failed, if it did.
    pub(super) error: Option<String>,
    pub(super) records: Vec<Record>,
}

/// One node execution (`NodeRecord::to_json`).
#[derive(Debug)]
pub(super) struct Record {
    pub(super) index: u64,
    pub(super) node: String,
    pub(super) start_ms: f64,
    pub(super) duration_ms: f64,
    /// A `parallel` branch's name or a `forEach` item's index: one call of
    /// the node, recorded before the node itself.
    pub(super) part: Option<String>,
    pub(super) output: Option<Value>,
    pub(super) error: Option<String>,
}

/// A test run's coverage, by tool.
#[derive(Debug)]
pub(super) struct Coverage {
    pub(super) tools: BTreeMap<String, ToolCoverage>,
}

/// One tool's coverage: what the cases never reached.
#[derive(Debug, Default)]
pub(super) struct ToolCoverage {
    pub(super) percent: f64,
    pub(super) nodes: BTreeSet<String>,
    /// Routes as (from, to, label in the map).
    pub(super) routes: BTreeSet<(String, String, String)>,
}

impl Overlay {
    /// The trace in `json`: `call --trace --json`'s object, or a case of a
    /// test report (`test --json`, `--report`): the case named `case`, by
    /// default the first that failed, else the first.
    pub(crate) fn trace(json: &Value, case: Option<&str>) -> Result<Self, CliError> {
        let trace = if let Some(cases) = json.get("cases").and_then(Value::as_array) {
            let chosen = match case {
                Some(name) => cases.iter().find(|c| c["name"] == name).ok_or_else(|| {
                    let names: Vec<&str> =
                        cases.iter().filter_map(|c| c["name"].as_str()).collect();
                    bad(
                        "trace",
                        format!(
                            "the report has no case `{name}`; its cases: {}",
                            names.join(", ")
                        ),
                    )
                })?,
                None => cases
                    .iter()
                    .find(|c| c["passed"] == false)
                    .or_else(|| cases.first())
                    .ok_or_else(|| bad("trace", "the report has no case".to_owned()))?,
            };
            Trace {
                tool: text(chosen, "tool", "trace")?,
                source: format!("case `{}`", text(chosen, "name", "trace")?),
                error: chosen["failure"].as_str().map(str::to_owned),
                records: records(chosen)?,
            }
        } else {
            if case.is_some() {
                return Err(bad(
                    "trace",
                    "a case is chosen in a test report (`test --json` or `--report`), and this is one call's (`call --json`)".to_owned(),
                ));
            }
            Trace {
                tool: text(json, "tool", "trace")?,
                source: "call".to_owned(),
                error: json["error"].as_str().map(str::to_owned),
                records: records(json)?,
            }
        };
        Ok(Self {
            trace: Some(trace),
            coverage: None,
        })
    }

    /// This overlay with the coverage of the test report `json` (`test
    /// --json`, `--report`).
    pub(crate) fn coverage(self, json: &Value) -> Result<Self, CliError> {
        let tools = json["coverage"]["tools"].as_array().ok_or_else(|| {
            bad(
                "coverage",
                "no `coverage.tools`: not a test report (`<binary> test --json` or `--report FILE`), or the graph has no map".to_owned(),
            )
        })?;
        let mut coverage = Coverage {
            tools: BTreeMap::new(),
        };
        for tool in tools {
            let name = text(tool, "tool", "coverage")?;
            let count = |key: &str| tool[key].as_f64().unwrap_or(0.0);
            let whole = count("nodes") + count("routes");
            let mut entry = ToolCoverage {
                percent: if whole == 0.0 {
                    100.0
                } else {
                    (count("nodesReached") + count("routesTaken")) * 100.0 / whole
                },
                ..ToolCoverage::default()
            };
            for missed in tool["missed"].as_array().into_iter().flatten() {
                if let Some(node) = missed["node"].as_str() {
                    entry.nodes.insert(node.to_owned());
                } else if let (Some(from), Some(to), Some(label)) = (
                    missed["from"].as_str(),
                    missed["to"].as_str(),
                    missed["label"].as_str(),
                ) {
                    entry
                        .routes
                        .insert((from.to_owned(), to.to_owned(), label.to_owned()));
                } else {
                    return Err(bad(
                        "coverage",
                        format!(
                            "tool `{name}`: a missed entry names no node or route ({missed}): the report is from an older mcpgraph; build the graph crate again"
                        ),
                    ));
                }
            }
            coverage.tools.insert(name, entry);
        }
        Ok(Self {
            coverage: Some(coverage),
            ..self
        })
    }
}

impl Trace {
    /// The records of `node` itself (not of its parts), in order.
    pub(super) fn runs<'a>(&'a self, node: &'a str) -> impl Iterator<Item = &'a Record> {
        self.records
            .iter()
            .filter(move |r| r.node == node && r.part.is_none())
    }

    /// The records of the calls of `node` whose part is `part` (a branch's
    /// name), or every call of it (`None`: a `forEach` node's items).
    pub(super) fn parts<'a>(
        &'a self,
        node: &'a str,
        part: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Record> {
        self.records.iter().filter(move |r| {
            r.node == node && r.part.is_some() && part.is_none_or(|p| r.part.as_deref() == Some(p))
        })
    }

    /// Whether the call went from `from` straight to `to`.
    pub(super) fn took(&self, from: &str, to: &str) -> bool {
        let nodes: Vec<&str> = self
            .records
            .iter()
            .filter(|r| r.part.is_none())
            .map(|r| r.node.as_str())
            .collect();
        nodes.windows(2).any(|pair| pair == [from, to])
    }
}

/// The records of a call's or a case's JSON (`trace`).
fn records(json: &Value) -> Result<Vec<Record>, CliError> {
    let trace = json["trace"].as_array().ok_or_else(|| {
        bad(
            "trace",
            "no `trace`: run the call with `call --trace --json`, or take a report of `test --json` from this version".to_owned(),
        )
    })?;
    trace
        .iter()
        .map(|r| {
            Ok(Record {
                index: r["index"].as_u64().unwrap_or_default(),
                node: text(r, "node", "trace")?,
                start_ms: r["startMs"].as_f64().unwrap_or_default(),
                duration_ms: r["durationMs"].as_f64().unwrap_or_default(),
                part: r["part"].as_str().map(str::to_owned),
                output: r.get("output").cloned(),
                error: r["error"].as_str().map(str::to_owned),
            })
        })
        .collect()
}

/// The string at `key` of `json`, which must be there.
fn text(json: &Value, key: &str, what: &'static str) -> Result<String, CliError> {
    json[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| bad(what, format!("no string `{key}` in {}", shortened(json))))
}

fn bad(what: &'static str, why: String) -> CliError {
    CliError::Overlay { what, why }
}

/// A JSON value's text, cut short for a message.
fn shortened(json: &Value) -> String {
    let text = json.to_string();
    if text.chars().count() > 80 {
        text.chars().take(79).collect::<String>() + "…"
    } else {
        text
    }
}
