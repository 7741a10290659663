//! What each tool of `mcpgraph mcp` does, once its arguments are read:
//! the graph checked, explained, locked, listed, run, tested or drawn.

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use super::Authoring;
use super::crates::{self, Build, GraphCrate};
use super::error::ToolError;
use super::tools::{
    CheckOutput, DrawArgs, DrawOutput, ExplainOutput, GraphDiagnostic, ListArgs, ListOutput,
    LockArgs, LockChange, LockOutput, PathArgs, Problem, RunArgs, RunOutput, ServerTool,
    ServerTools, TestArgs, TestOutput, TraceStep,
};

/// How long a `run_tool` call may take unless told.
const RUN_TIME: Duration = Duration::from_secs(120);

/// How long a `test_graph` run may take unless told.
const TEST_TIME: Duration = Duration::from_secs(300);

/// Runs `work` on a blocking thread (the evaluators and the lock's own
/// runtime must not hold the server's).
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::Usage(format!("the evaluation failed: {e}")))
}

/// `explain_diagnostic`.
pub(super) fn explain(code: &str) -> Result<ExplainOutput, ToolError> {
    use mcpgraph_codegen::diag::explain::Beside;
    let Some(e) = mcpgraph_codegen::diag::explain::explain(code) else {
        let close = mcpgraph_codegen::diag::explain::closest(code)
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        return Err(ToolError::Usage(format!(
            "no diagnostic has the code `{code}`{close} (check_graph gives each diagnostic's code)"
        )));
    };
    let (lock, tests) = match e.beside {
        Beside::Lock(text) => (Some(text.to_owned()), None),
        Beside::Tests(text) => (None, Some(text.to_owned())),
        _ => (None, None),
    };
    Ok(ExplainOutput {
        code: e.code.to_string(),
        title: e.title.to_owned(),
        meaning: e.meaning.to_owned(),
        example: e.example.to_owned(),
        example_lock: lock,
        example_tests: tests,
        fix: e.fix.to_owned(),
        fixed: e.fixed.map(str::to_owned),
    })
}

impl Authoring {
    /// A graph file's diagnostics (and its test file's), with the file
    /// named relative to the working directory.
    fn diagnose(&self, graph: &Path) -> CheckOutput {
        let shown = self.0.work.show(graph);
        let options = mcpgraph_codegen::ExpandOptions {
            relative_to: "the working directory".into(),
            ..mcpgraph_codegen::ExpandOptions::default()
        };
        let output = mcpgraph_codegen::generate_file(graph, &shown, &options);
        let all: Vec<_> = std::iter::once(output.diagnostics)
            .chain(output.test_diagnostics)
            .collect();
        let diagnostics: Vec<GraphDiagnostic> = all
            .iter()
            .flat_map(|d| {
                d.items.iter().map(|item| GraphDiagnostic {
                    file: d.path.clone(),
                    line: item.pos.line,
                    column: item.pos.column,
                    severity: item.severity.as_str().to_owned(),
                    code: item.code.to_string(),
                    message: item.message.clone(),
                    help: item.help.clone(),
                    notes: item.notes.clone(),
                })
            })
            .collect();
        let errors = all.iter().map(|d| d.error_count()).sum();
        let warnings = all.iter().map(|d| d.warning_count()).sum();
        CheckOutput {
            ok: errors == 0,
            errors,
            warnings,
            diagnostics,
        }
    }

    /// `check_graph`.
    pub(super) fn check(&self, a: PathArgs) -> Result<CheckOutput, ToolError> {
        let graph = self.0.work.existing(&a.path)?;
        Ok(self.diagnose(&graph))
    }

    /// The `--mcp` file of a tool's arguments, inside the working
    /// directory.
    fn mcp_file(&self, mcp: Option<&str>) -> Result<Vec<PathBuf>, ToolError> {
        mcp.map(|m| self.0.work.existing(m)).into_iter().collect()
    }

    /// `lock_graph`.
    pub(super) async fn lock(&self, a: LockArgs) -> Result<LockOutput, ToolError> {
        let graph = self.0.work.existing(&a.path)?;
        let checked = self.diagnose(&graph);
        let mut output = LockOutput {
            ok: false,
            lock: String::new(),
            wrote: false,
            servers: 0,
            tools: 0,
            changes: Vec::new(),
            stale: false,
            diagnostics: Vec::new(),
        };
        if !checked.ok {
            output.diagnostics = checked.diagnostics;
            return Ok(output);
        }
        let args = crate::lock::LockArgs {
            graph,
            mcp: self.mcp_file(a.mcp.as_deref())?,
            server: None,
            check: a.check,
            strict: false,
        };
        let report = blocking(move || crate::lock::lock(&args)).await??;
        output.ok = !report.stale;
        output.lock = self.0.work.show(&report.path);
        output.wrote = report.wrote;
        output.servers = report.servers;
        output.tools = report.tools;
        output.stale = report.stale;
        output.changes = report
            .changes
            .into_iter()
            .map(|(server, c)| LockChange {
                server,
                tool: c.tool,
                what: c.what,
                matters: c.matters,
                breaks: c.breaks,
            })
            .collect();
        Ok(output)
    }

    /// `list_server_tools`.
    pub(super) async fn list(&self, a: ListArgs) -> Result<ListOutput, ToolError> {
        use mcpgraph_codegen::lock::{Lock, ServerLock, lock_path};
        let graph = self.0.work.existing(&a.path)?;
        let (file, _) = mcpgraph_codegen::load_file(&graph).map_err(|d| {
            ToolError::Usage(format!(
                "`{}` has {} error(s); check_graph shows them",
                a.path,
                d.error_count()
            ))
        })?;
        let overrides = self.mcp_file(a.mcp.as_deref())?;
        let specs = crate::lock::specs(&file, &overrides, a.server.as_deref())?;
        let locked = std::fs::read_to_string(lock_path(&graph))
            .ok()
            .and_then(|text| Lock::from_json(&text).ok())
            .unwrap_or_default();
        let to_tools = |server: &ServerLock| -> Vec<ServerTool> {
            server
                .tools
                .iter()
                .map(|(name, t)| ServerTool {
                    name: name.clone(),
                    title: t.title.clone(),
                    description: t.description.clone(),
                    input_schema: t.input_schema.clone(),
                    output_schema: t.output_schema.clone(),
                })
                .collect()
        };
        let mut servers = Vec::new();
        let mut ask = Vec::new();
        for spec in specs {
            match locked.servers.get(&spec.name).filter(|_| !a.live) {
                Some(server) => servers.push(ServerTools {
                    name: spec.name.clone(),
                    source: "lock".to_owned(),
                    tools: to_tools(server),
                }),
                None => ask.push(spec),
            }
        }
        if !ask.is_empty() {
            let listed = blocking(move || crate::lock::list_all(ask)).await??;
            servers.extend(listed.iter().map(|(name, server)| ServerTools {
                name: name.clone(),
                source: "live".to_owned(),
                tools: to_tools(server),
            }));
        }
        servers.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(ListOutput { servers })
    }

    /// Checks the graph of `krate`, then builds it: its binary, or the
    /// problems that kept it from building.
    async fn build(&self, krate: &GraphCrate) -> Result<Result<PathBuf, Vec<Problem>>, ToolError> {
        let checked = self.diagnose(&krate.graph);
        if !checked.ok {
            let problems = checked
                .diagnostics
                .into_iter()
                .filter(|d| d.severity == "error")
                .map(Problem::Graph)
                .collect();
            return Ok(Err(problems));
        }
        match crates::build(krate).await? {
            Build::Binary(binary) => Ok(Ok(binary)),
            Build::Failed(diagnostics) => {
                Ok(Err(diagnostics.into_iter().map(Problem::Build).collect()))
            }
        }
    }

    /// The global options of a graph binary's command line.
    fn binary_options(&self, mcp: Option<&str>) -> Result<Vec<String>, ToolError> {
        Ok(self
            .mcp_file(mcp)?
            .into_iter()
            .flat_map(|f| ["--mcp".to_owned(), f.display().to_string()])
            .collect())
    }

    /// `run_tool`.
    pub(super) async fn run_tool(&self, a: RunArgs) -> Result<RunOutput, ToolError> {
        let krate = GraphCrate::locate(&self.0.work, &a.path)?;
        let binary = match self.build(&krate).await? {
            Ok(binary) => binary,
            Err(problems) => {
                return Ok(RunOutput {
                    ok: false,
                    built: false,
                    diagnostics: problems,
                    result: None,
                    error: None,
                    trace: None,
                });
            }
        };
        let mut argv = self.binary_options(a.mcp.as_deref())?;
        // The arguments on stdin (`-`): a command line has a length limit.
        argv.extend([
            "call".to_owned(),
            a.tool.clone(),
            "-".to_owned(),
            "--json".to_owned(),
        ]);
        if a.trace {
            argv.push("--trace".to_owned());
        }
        let limit = a.timeout_seconds.map_or(RUN_TIME, Duration::from_secs);
        let input = Value::Object(a.arguments).to_string();
        let ran = crates::run(&binary, &argv, input.as_bytes(), self.0.work.root(), limit).await?;
        let reply: Value = serde_json::from_slice(&ran.stdout).map_err(|_| {
            ToolError::Usage(format!(
                "the graph's binary did not answer the call (exit status {}): {}",
                ran.code
                    .map_or_else(|| "a signal".to_owned(), |c| c.to_string()),
                ran.stderr.trim()
            ))
        })?;
        let trace = match reply.get("trace") {
            Some(steps) => Some(
                serde_json::from_value::<Vec<TraceStep>>(steps.clone())
                    .map_err(|e| ToolError::Usage(format!("the trace is malformed: {e}")))?,
            ),
            None => None,
        };
        let error = reply
            .get("error")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(RunOutput {
            ok: error.is_none(),
            built: true,
            diagnostics: Vec::new(),
            result: reply.get("result").cloned(),
            error,
            trace,
        })
    }

    /// `test_graph`.
    pub(super) async fn test_graph(&self, a: TestArgs) -> Result<TestOutput, ToolError> {
        let krate = GraphCrate::locate(&self.0.work, &a.path)?;
        let binary = match self.build(&krate).await? {
            Ok(binary) => binary,
            Err(problems) => {
                return Ok(TestOutput {
                    diagnostics: problems,
                    ..TestOutput::default()
                });
            }
        };
        let mut argv = self.binary_options(a.mcp.as_deref())?;
        argv.extend(["test".to_owned(), "--json".to_owned()]);
        if a.record {
            argv.push("--record".to_owned());
        }
        let limit = a.timeout_seconds.map_or(TEST_TIME, Duration::from_secs);
        // In the crate, as `mcpgraph test` runs there: the test file's and
        // the cassette's paths are the crate's.
        let ran = crates::run(&binary, &argv, b"", &krate.dir, limit).await?;
        let Ok(report) = serde_json::from_slice::<Value>(&ran.stdout) else {
            // The run stopped before any case (a test file that does not
            // load, a cassette missing): its own words.
            return Ok(TestOutput {
                built: true,
                message: Some(ran.stderr.trim().to_owned()),
                ..TestOutput::default()
            });
        };
        let field = |key: &str| report.get(key).cloned().unwrap_or(Value::Null);
        let malformed =
            |e: serde_json::Error| ToolError::Usage(format!("the test report is malformed: {e}"));
        let cases: Vec<super::tools::CaseOutcome> =
            serde_json::from_value(field("cases")).map_err(malformed)?;
        let coverage: super::tools::Coverage =
            serde_json::from_value(field("coverage")).map_err(malformed)?;
        let failed = cases.iter().filter(|c| !c.passed).count();
        Ok(TestOutput {
            ok: failed == 0 && ran.code == Some(0),
            built: true,
            diagnostics: Vec::new(),
            passed: cases.len() - failed,
            failed,
            cases,
            coverage,
            message: (ran.code != Some(0) && failed == 0).then(|| ran.stderr.trim().to_owned()),
        })
    }

    /// `draw_graph`: the SVG as an image, the Mermaid text, and both
    /// described in the structured result.
    pub(super) fn draw(&self, a: DrawArgs) -> Result<CallToolResult, ToolError> {
        let graph = self.0.work.existing(&a.path)?;
        let source = std::fs::read_to_string(&graph).map_err(|source| ToolError::Missing {
            path: a.path.clone(),
            source,
        })?;
        let model =
            mcpgraph_codegen::load_str(&source, &self.0.work.show(&graph)).map_err(|d| {
                ToolError::Usage(format!(
                    "`{}` has {} error(s); check_graph shows them",
                    a.path,
                    d.error_count()
                ))
            })?;
        let tool = a.tool.as_deref();
        let svg = crate::picture::svg(&model, tool, &crate::picture::Overlay::default())?;
        let mermaid = mcpgraph_codegen::mermaid::flowchart(&model, tool).unwrap_or_default();
        let tools: Vec<String> = model
            .tools
            .iter()
            .map(|t| t.name.value.clone())
            .filter(|name| tool.is_none_or(|only| only == name))
            .collect();
        let output = DrawOutput {
            tools,
            mermaid: mermaid.clone(),
            svg_bytes: svg.len(),
        };
        let encoded = base64::engine::general_purpose::STANDARD.encode(svg.as_bytes());
        let mut result = CallToolResult::success(vec![
            ContentBlock::image(encoded, "image/svg+xml"),
            ContentBlock::text(mermaid),
        ]);
        result.structured_content =
            Some(serde_json::to_value(output).map_err(|e| ToolError::Usage(e.to_string()))?);
        Ok(result)
    }
}
