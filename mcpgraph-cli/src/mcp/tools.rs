//! The tools of `mcpgraph mcp`: their arguments and structured results
//! (each result type is the tool's `outputSchema`), and their definitions
//! as `tools/list` gives them.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::eval::{JsonataResult, LogicResult};
use crate::cargo::BuildDiagnostic;

/// A graph file (or, where a crate is built, a crate directory).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct PathArgs {
    /// A graph file, relative to the directory the server was started in.
    pub path: String,
}

/// `explain_diagnostic`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ExplainArgs {
    /// A diagnostic's `code`, as `check_graph` gives it.
    pub code: String,
}

/// `lock_graph`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LockArgs {
    /// The graph file.
    pub path: String,
    /// Do not write: compare the servers with the lock and say whether a
    /// change matters.
    #[serde(default)]
    pub check: bool,
    /// A JSON file of `mcpServers` entries overriding the graph's by name
    /// (as `--mcp`), inside the working directory.
    pub mcp: Option<String>,
}

/// `list_server_tools`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ListArgs {
    /// The graph file.
    pub path: String,
    /// Only this server of the graph.
    pub server: Option<String>,
    /// Ask the servers even when the lock lists them.
    #[serde(default)]
    pub live: bool,
    /// A JSON file of `mcpServers` entries overriding the graph's by name.
    pub mcp: Option<String>,
}

/// `eval_jsonata`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct JsonataArgs {
    /// A JSONata expression, as a transform node holds it.
    pub expression: String,
    /// What `$` is: in a graph, the outputs of the nodes that ran, by node
    /// id (`{"entry": {...tool arguments}}`).
    #[serde(default)]
    pub input: Value,
}

/// `eval_json_logic`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LogicArgs {
    /// A JSON Logic rule, as a switch condition holds it (its `var`s are
    /// JSONata paths).
    pub rule: Value,
    /// The data the rule reads (in a graph: the node outputs by id).
    #[serde(default)]
    pub data: Value,
}

/// `run_tool`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RunArgs {
    /// The graph file (in its crate) or the crate's directory.
    pub path: String,
    /// The graph's tool to call.
    pub tool: String,
    /// The call's arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// Return the execution record: every node that ran.
    #[serde(default)]
    pub trace: bool,
    /// A JSON file of `mcpServers` entries overriding the graph's by name.
    pub mcp: Option<String>,
    /// How long the call may take (default 120).
    pub timeout_seconds: Option<u64>,
}

/// `test_graph`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct TestArgs {
    /// The graph file (in its crate) or the crate's directory.
    pub path: String,
    /// Run the cases against the real servers and record their replies
    /// into the cassette (else: replayed from it).
    #[serde(default)]
    pub record: bool,
    /// A JSON file of `mcpServers` entries overriding the graph's by name.
    pub mcp: Option<String>,
    /// How long the run may take (default 300).
    pub timeout_seconds: Option<u64>,
}

/// `draw_graph`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DrawArgs {
    /// The graph file.
    pub path: String,
    /// Only this tool.
    pub tool: Option<String>,
}

/// One problem of a graph file, where it is.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct GraphDiagnostic {
    /// The file, relative to the working directory.
    pub file: String,
    /// From 1; 0 for the file as a whole.
    pub line: u32,
    pub column: u32,
    /// `error`, `warning` or `note`.
    pub severity: String,
    /// What kind of check it is: `explain_diagnostic` tells more.
    pub code: String,
    pub message: String,
    /// What to do about it, when the check can tell.
    pub help: Option<String>,
    pub notes: Vec<String>,
}

/// `check_graph`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct CheckOutput {
    /// No errors (warnings do not fail a build).
    pub ok: bool,
    pub errors: usize,
    pub warnings: usize,
    /// Every problem of the graph file and of its test file, in order.
    pub diagnostics: Vec<GraphDiagnostic>,
}

/// `explain_diagnostic`'s result.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ExplainOutput {
    pub code: String,
    /// The check in a line.
    pub title: String,
    /// What the check means.
    pub meaning: String,
    /// A graph file that fails it.
    pub example: String,
    /// The lock file beside the example, when the check reads one.
    pub example_lock: Option<String>,
    /// The test file beside the example, when it is the file that fails.
    pub example_tests: Option<String>,
    /// How to fix it.
    pub fix: String,
    /// The failing file corrected, when the fix is a change to it.
    pub fixed: Option<String>,
}

/// One change between the lock and the servers.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct LockChange {
    pub server: String,
    /// The tool it is about; absent for the server itself.
    pub tool: Option<String>,
    pub what: String,
    /// Whether it can make a call fail.
    pub matters: bool,
    /// The graph's calls it breaks.
    pub breaks: Vec<String>,
}

/// `lock_graph`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct LockOutput {
    /// The graph loads and, with `check`, the lock is not stale.
    pub ok: bool,
    /// The lock file, relative to the working directory.
    pub lock: String,
    /// Whether it was written (not with `check`, nor when up to date).
    pub wrote: bool,
    pub servers: usize,
    pub tools: usize,
    /// With `check`: every change since the lock.
    pub changes: Vec<LockChange>,
    /// With `check`: a change matters, so a build against the lock would
    /// be wrong.
    pub stale: bool,
    /// The graph's errors, when it does not load (nothing was listed).
    pub diagnostics: Vec<GraphDiagnostic>,
}

/// One tool of a downstream server.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ServerTool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
}

/// One downstream server's tools.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ServerTools {
    pub name: String,
    /// `lock` (from the graph's lock file) or `live` (asked now).
    pub source: String,
    pub tools: Vec<ServerTool>,
}

/// `list_server_tools`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ListOutput {
    pub servers: Vec<ServerTools>,
}

/// One node's run in a call, from the execution record.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct TraceStep {
    /// Its place in the record, from 0.
    pub index: usize,
    pub node: String,
    /// The node's type.
    #[serde(rename = "type")]
    pub node_type: String,
    /// The branch of a `parallel` node or the item of a `forEach` node
    /// this call was made for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// When it started, from the call's start, and how long it took.
    pub start_ms: f64,
    pub duration_ms: f64,
    /// What it was given: the arguments sent to a downstream tool, the
    /// tool's arguments for `entry`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `run_tool`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct RunOutput {
    /// The crate built and the call succeeded.
    pub ok: bool,
    /// Whether the crate built (when not, `diagnostics` says why).
    pub built: bool,
    /// The graph's errors, or the compiler's.
    pub diagnostics: Vec<Problem>,
    /// The tool's result value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The tool error the caller would get.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// With `trace`: every node that ran, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<TraceStep>>,
}

/// A problem that kept a crate from building: the graph file's own (at its
/// line and column) or the compiler's.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(super) enum Problem {
    Graph(GraphDiagnostic),
    Build(BuildDiagnostic),
}

/// One test case's outcome.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct CaseOutcome {
    pub name: String,
    pub tool: String,
    /// Its line in the test file.
    pub line: Option<u32>,
    pub passed: bool,
    /// Why it failed.
    pub failure: Option<String>,
    /// What does not fail it but is worth knowing.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Whether this run recorded it.
    #[serde(default)]
    pub recorded: bool,
    pub time_ms: f64,
}

/// Something the cases never reached.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(super) struct Missed {
    /// Its line in the graph file.
    pub line: u32,
    pub what: String,
}

/// One tool's coverage.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolCoverage {
    pub tool: String,
    pub nodes: usize,
    pub nodes_reached: usize,
    pub routes: usize,
    pub routes_taken: usize,
    pub missed: Vec<Missed>,
}

/// What the cases reached.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub(super) struct Coverage {
    /// Nodes reached and routes taken, of all, from 0 to 100.
    pub percent: f64,
    pub tools: Vec<ToolCoverage>,
}

/// `test_graph`'s result.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub(super) struct TestOutput {
    /// The crate built and every case passed.
    pub ok: bool,
    pub built: bool,
    pub diagnostics: Vec<Problem>,
    pub passed: usize,
    pub failed: usize,
    pub cases: Vec<CaseOutcome>,
    pub coverage: Coverage,
    /// What the test run said besides its results (a file it could not
    /// read, a server it could not reach).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `draw_graph`'s result (the picture itself is the image content).
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct DrawOutput {
    /// The tools drawn.
    pub tools: Vec<String>,
    /// The same graph as a Mermaid flowchart.
    pub mermaid: String,
    /// The SVG's size in bytes.
    pub svg_bytes: usize,
}

/// A tool definition with schemas from its argument and result types.
fn tool<A: JsonSchema + 'static, O: JsonSchema + 'static>(
    name: &'static str,
    description: &'static str,
    read_only: bool,
) -> Tool {
    let annotations = ToolAnnotations::new()
        .read_only(read_only)
        .destructive(false);
    Tool::new(name, description, schema_for_type::<A>())
        .with_raw_output_schema(schema_for_output::<O>())
        .with_annotations(annotations)
}

/// Every tool, as `tools/list` gives them.
pub(super) fn definitions() -> Arc<[Tool]> {
    vec![
        tool::<PathArgs, CheckOutput>(
            "check_graph",
            "Check a graph file (and its test file) as `cargo build` would: every problem with its file, line, column, severity, code, message and help. Start here after each edit.",
            true,
        ),
        tool::<ExplainArgs, ExplainOutput>(
            "explain_diagnostic",
            "Explain a diagnostic code from check_graph: what the check means, a graph that fails it, and the fix.",
            true,
        ),
        tool::<LockArgs, LockOutput>(
            "lock_graph",
            "List the graph's downstream servers and write their tools to `<graph>.lock.json` (the build then checks every call against them), or with `check` say what changed since the lock and whether it matters. Starts the servers the graph names.",
            false,
        ),
        tool::<ListArgs, ListOutput>(
            "list_server_tools",
            "The tools of the graph's downstream servers with their input and output schemas: from the lock when it lists the server, else asked live (which starts the server).",
            true,
        ),
        tool::<JsonataArgs, JsonataResult>(
            "eval_jsonata",
            "Evaluate a JSONata expression on an input exactly as a transform node of the generated server would (same evaluator, limits and JavaScript number spelling); errors come with their line and column in the expression.",
            true,
        ),
        tool::<LogicArgs, LogicResult>(
            "eval_json_logic",
            "Evaluate a JSON Logic rule on data exactly as a switch condition of the generated server would: its value and whether the switch takes it.",
            true,
        ),
        tool::<RunArgs, RunOutput>(
            "run_tool",
            "Build the graph's crate (debug) and run one call of one of its tools, with the execution trace (each node's input, output or error, timing) when asked. Runs what the graph says: its downstream servers are started and called.",
            false,
        ),
        tool::<TestArgs, TestOutput>(
            "test_graph",
            "Build the graph's crate and run its test file (`<graph>.test.yaml`): each case's result and the coverage of nodes and routes. Replays recorded replies; with `record`, calls the real servers and records them.",
            false,
        ),
        tool::<DrawArgs, DrawOutput>(
            "draw_graph",
            "Draw the graph's tools: an SVG image and the same graph as a Mermaid flowchart.",
            true,
        ),
    ]
    .into()
}
