//! The engine room: a compiled graph, its downstream connections and the
//! single-threaded workers that run calls.
//!
//! JSONata values are `Rc`-based, so a call's state machine cannot move
//! between threads. Each worker is an OS thread with a current-thread tokio
//! runtime and a `LocalSet`; a call is handed to the worker with the fewest
//! calls running (so a long call does not hold up the ones that could run
//! elsewhere), runs there to the end, and its result comes back over a
//! oneshot channel, so the MCP-facing futures stay `Send`.
//!
//! Calls made through the MCP handler never run where requests are read
//! (`worker` says why, and what it costs). Here: the [`Engine`] and its
//! calls; `worker` holds the threads, `tool` the tools with their schemas
//! parsed (validating against them is the generated code's).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Map, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::downstream::{ServerSpec, effective_specs};
pub use crate::error::CallError;
use crate::error::{ErrorKind, NodeError, SchemaSide, StartupError};
use crate::exec::{Execution, GraphTools, Watch};
use crate::graph::{CompiledGraph, Graph, GraphDef};
use crate::observe::Observer;
use crate::servers::Servers;

mod in_flight;
mod options;
mod tool;
mod worker;

use in_flight::{InFlight, InFlightGuard};
pub use options::{CallOptions, CallOutcome};
pub(crate) use tool::ToolRuntime;
use tool::compile_tools;
pub use tool::schema_violation;
use worker::{Job, LoadGuard, Workers};

struct Shared {
    graph: GraphDef,
    compiled: Box<dyn CompiledGraph>,
    clients: Arc<dyn Servers>,
    tools: Vec<ToolRuntime>,
}

impl GraphTools for Shared {
    fn run<'a>(&'a self, tool: usize, exec: &'a mut Execution) -> crate::graph::RunFuture<'a> {
        self.compiled.run(tool, exec)
    }

    fn meta(&self, tool: usize) -> Option<&'static crate::meta::ToolMeta> {
        self.tools.get(tool).map(|t| t.meta)
    }

    fn apply_defaults(&self, tool: usize, arguments: &mut Value) {
        tool::apply_defaults(&self.tools, tool, arguments);
    }
}

/// A ready-to-call graph: compiled expressions, schemas, downstream
/// connections and workers. Cheap to clone.
///
/// Not generic: it serves any graph through its [`GraphDef`], so it is
/// compiled once, in this crate, whatever graph a binary holds.
pub struct Engine {
    shared: Arc<Shared>,
    workers: Arc<Workers>,
    in_flight: Arc<InFlight>,
    observer: Option<Arc<dyn Observer>>,
    /// `serve --record-failures`: where failed calls are written.
    failures: Option<Arc<crate::graph_tests::FailureRecorder>>,
    /// Cancelled when a drain runs out of time: the calls still running
    /// end with an error their callers receive.
    stop: CancellationToken,
    /// Whether a lone call may run on the calling thread (the local worker
    /// of [`Engine::start_local`]); see [`Engine::off_serving_thread`].
    here: bool,
}

impl Clone for Engine {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            workers: Arc::clone(&self.workers),
            in_flight: Arc::clone(&self.in_flight),
            observer: self.observer.clone(),
            failures: self.failures.clone(),
            stop: self.stop.clone(),
            here: self.here,
        }
    }
}

impl Engine {
    /// Compiles graph `G`; calls will run on `workers` worker threads,
    /// started on the first call. Must be called inside a tokio runtime,
    /// which then drives the downstream connections.
    #[inline]
    pub fn start<G: Graph>(
        overrides: Vec<ServerSpec>,
        workers: usize,
    ) -> Result<Self, StartupError> {
        Self::start_def(GraphDef::of::<G>(), overrides, workers)
    }

    /// [`Engine::start`] for a graph given by its [`GraphDef`].
    #[doc(hidden)]
    pub fn start_def(
        graph: GraphDef,
        overrides: Vec<ServerSpec>,
        workers: usize,
    ) -> Result<Self, StartupError> {
        Self::start_with(graph, overrides, Workers::threads(Some(workers)))
    }

    /// [`Engine::start`] on a current-thread runtime inside a `LocalSet`
    /// (stdio, a one-shot call): a call made with [`Engine::call`] runs
    /// right here, on the calling thread, whenever no other call does;
    /// calls made while one runs go to `workers` threads (`None`: one per
    /// core, at least two) started when first needed, so they still run
    /// beside it. Served over MCP, every call goes to those threads: the
    /// serving thread keeps to the protocol. Panics outside a `LocalSet`.
    #[inline]
    pub fn start_local<G: Graph>(
        overrides: Vec<ServerSpec>,
        workers: Option<usize>,
    ) -> Result<Self, StartupError> {
        Self::start_local_def(GraphDef::of::<G>(), overrides, workers)
    }

    /// [`Engine::start_local`] for a graph given by its [`GraphDef`].
    #[doc(hidden)]
    pub fn start_local_def(
        graph: GraphDef,
        overrides: Vec<ServerSpec>,
        workers: Option<usize>,
    ) -> Result<Self, StartupError> {
        Self::start_with(graph, overrides, Workers::threads(workers).with_local())
    }

    fn start_with(
        graph: GraphDef,
        overrides: Vec<ServerSpec>,
        workers: Workers,
    ) -> Result<Self, StartupError> {
        let compiled = (graph.compile)()?;
        let tools = compile_tools(graph.tools)?;
        let specs = effective_specs(graph.servers, overrides);
        let clients = (graph.connect)(specs, graph.lock)?;
        Ok(Self {
            shared: Arc::new(Shared {
                graph,
                compiled,
                clients,
                tools,
            }),
            workers: Arc::new(workers),
            in_flight: Arc::default(),
            observer: None,
            failures: None,
            stop: CancellationToken::new(),
            here: true,
        })
    }

    /// `--strict-lock`: a call to a downstream tool that changed since the
    /// graph's lock fails instead of reaching the server.
    pub fn with_strict_lock(self, strict: bool) -> Self {
        self.shared.clients.set_strict_lock(strict);
        self
    }

    /// Puts every downstream call through `tape` (`test`).
    pub(crate) fn set_tape(&self, tape: Arc<crate::graph_tests::Tape>) {
        self.shared.clients.set_tape(tape);
    }

    /// Writes every failed call into `recorder`'s directory
    /// (`serve --record-failures`).
    #[doc(hidden)]
    pub fn with_failure_recorder(mut self, recorder: crate::graph_tests::FailureRecorder) -> Self {
        self.failures = Some(Arc::new(recorder));
        self
    }

    /// Calls `observer`'s hooks for every node of every call.
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    pub(crate) fn tools(&self) -> &[ToolRuntime] {
        &self.shared.tools
    }

    /// The same engine for a thread that serves a protocol: its calls
    /// always run on worker threads, so that thread keeps reading requests
    /// and answering pings while one evaluates.
    pub(crate) fn off_serving_thread(mut self) -> Self {
        self.here = false;
        self
    }

    /// The graph this engine runs.
    pub(crate) fn graph(&self) -> &GraphDef {
        &self.shared.graph
    }

    /// Runs one call of tool `name`. Arguments are validated against its
    /// `inputSchema` first and the result against its `outputSchema`.
    /// Cancelling `cancel` abandons the call.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        cancel: CancellationToken,
    ) -> Result<Value, CallError> {
        let options = CallOptions {
            cancel,
            ..CallOptions::default()
        };
        self.call_with(name, arguments, options).await.result
    }

    /// [`Engine::call`] with progress events and an execution record.
    pub async fn call_with(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        options: CallOptions,
    ) -> CallOutcome {
        let _in_flight = InFlightGuard::new(&self.in_flight);
        let Some(index) = self.shared.tools.iter().position(|t| t.meta.name == name) else {
            return CallOutcome::failed(CallError::UnknownTool(name.to_owned()));
        };
        let mut arguments = Value::Object(arguments.unwrap_or_default());
        let tool = &self.shared.tools[index];
        tool.apply_defaults(&mut arguments);
        if let Some(message) = (tool.meta.input_check)(&arguments) {
            return CallOutcome::failed(CallError::Failed(NodeError::outside(
                ErrorKind::Schema(SchemaSide::Input),
                format!("invalid arguments: {message}"),
            )));
        }
        let watch = Watch {
            tool: tool.meta.name,
            observer: self.observer.clone(),
            records: options.record.then(Vec::new),
            progress: options.progress,
        };
        let cancel = options.cancel;
        let caller = options.caller;
        let content = tool.meta.content.as_ref();
        let stop = self.stop.clone();
        let (reply, result) = oneshot::channel();
        let shared = Arc::clone(&self.shared);
        let span = tracing::info_span!("tool_call", tool = tool.meta.name);
        if let Some(trace) = caller.as_ref().and_then(|c| c.trace()) {
            trace.adopt(&span);
        }
        let here = self.here && self.in_flight.count.load(Ordering::SeqCst) == 1;
        let worker = match self.workers.pick(here) {
            Ok(worker) => worker,
            Err(e) => {
                return CallOutcome::failed(CallError::Failed(NodeError::outside(
                    ErrorKind::Internal,
                    format!("cannot start a worker: {e}"),
                )));
            }
        };
        let load = LoadGuard::new(&worker.load);
        // `--record-failures`: the call's downstream exchanges, kept until
        // it is known whether it failed.
        let failure_record = self.failures.as_ref().map(|_| {
            let empty = Map::new();
            let arguments = match &arguments {
                Value::Object(map) => map,
                _ => &empty,
            };
            let budget = self.shared.graph.limits.max_value_bytes;
            crate::graph_tests::FailureRecorder::start(arguments, budget)
        });
        let call_tape = failure_record.as_ref().map(|record| record.tape());
        // Whether the caller cancelled: such a call is no failure to record.
        let caller_cancel = cancel.clone();
        let job: Job = Box::new(move || {
            Box::pin(async move {
                // The `tool_call` span closes (and reaches exporters) before
                // the caller hears the result: a CLI that exits right after
                // the reply must not lose it.
                let (outcome, records, content) = async move {
                    let mut exec = Execution::new(
                        &arguments,
                        shared.graph.limits,
                        Arc::clone(&shared.clients),
                    );
                    exec.watch(watch);
                    exec.with_tools(Arc::clone(&shared) as Arc<dyn GraphTools>);
                    exec.ask(caller);
                    exec.keep_content(content);
                    let run = shared.compiled.run(index, &mut exec);
                    let run = async move {
                        match call_tape {
                            Some(tape) => crate::graph_tests::CALL_TAPE.scope(tape, run).await,
                            None => run.await,
                        }
                    };
                    let outcome = tokio::select! {
                        outcome = run => outcome,
                        () = cancel.cancelled() => Err(NodeError::outside(
                            ErrorKind::Cancelled,
                            "the call was cancelled",
                        )),
                        () = stop.cancelled() => Err(NodeError::outside(
                            ErrorKind::Shutdown,
                            "the server is shutting down and the call did not finish in time",
                        )),
                    };
                    let outcome = outcome.and_then(|()| {
                        exec.finish().ok_or_else(|| {
                            NodeError::outside(
                                ErrorKind::Internal,
                                "the graph ended without reaching its exit node",
                            )
                        })
                    });
                    if let Err(error) = &outcome {
                        exec.fail(error);
                        tracing::debug!(error = %error, "call failed");
                    }
                    (outcome, exec.take_records(), exec.take_content())
                }
                .instrument(span)
                .await;
                // Not counted once the caller can hear: its next call must
                // see this worker as free again.
                drop(load);
                let _ = reply.send((outcome, records, content));
            })
        });
        if worker.jobs.send(job).is_err() {
            return CallOutcome::failed(CallError::Failed(NodeError::outside(
                ErrorKind::Shutdown,
                "the server is shutting down",
            )));
        }
        let Ok((outcome, records, content)) = result.await else {
            return CallOutcome::failed(CallError::Failed(NodeError::outside(
                ErrorKind::Internal,
                "the worker running the call stopped",
            )));
        };
        // Secrets expanded into server settings stay out of what the
        // caller sees (a URL in a connection error, a stderr tail).
        let outcome =
            outcome.map_err(|error| error.map_message(|m| crate::secrets::redact(m).into_owned()));
        let result = outcome.map_err(CallError::Failed).and_then(|value| {
            match tool.meta.output_check.and_then(|check| check(&value)) {
                Some(message) => Err(CallError::Failed(NodeError::outside(
                    ErrorKind::Schema(SchemaSide::Output),
                    format!("the result does not match the tool's outputSchema: {message}"),
                ))),
                None => Ok(value),
            }
        });
        if let (Err(CallError::Failed(error)), Some(recorder), Some(record)) =
            (&result, &self.failures, &failure_record)
            && crate::graph_tests::FailureRecorder::records(error, caller_cancel.is_cancelled())
        {
            recorder.write(tool.meta.name, record, error);
        }
        CallOutcome {
            result,
            records,
            content,
        }
    }
}
