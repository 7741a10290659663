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

use crate::servers::{ServerSpec, effective_specs};
pub use crate::error::CallError;
use crate::error::{ErrorKind, NodeError, SchemaSide, StartupError};
use crate::exec::intercept::CallInterceptor;
use crate::exec::{Execution, GraphTools, Watch};
use crate::graph::{CompiledGraph, Graph, GraphDef};
use crate::observe::Observer;
use crate::servers::Servers;

mod call;
mod in_flight;
mod options;
mod tool;
mod worker;

use call::CallJob;
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
    /// What sees each call's downstream calls (graph tests, `serve
    /// --record-failures`); `None` in production.
    interceptor: Option<Arc<dyn CallInterceptor>>,
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
            interceptor: self.interceptor.clone(),
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
        let specs = effective_specs((graph.servers)(), overrides);
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
            interceptor: None,
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

    /// The same engine with every call's downstream calls put through
    /// `interceptor` (graph tests, `serve --record-failures`). Not an API
    /// for users.
    #[doc(hidden)]
    pub fn with_interceptor(mut self, interceptor: Arc<dyn CallInterceptor>) -> Self {
        self.interceptor = Some(interceptor);
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
    #[doc(hidden)]
    pub fn graph(&self) -> &GraphDef {
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
        let (index, arguments) = match self.checked_arguments(name, arguments) {
            Ok(checked) => checked,
            Err(error) => return CallOutcome::failed(error),
        };
        let tool = &self.shared.tools[index];
        // What sees this call's downstream calls, told at the end how it
        // ended.
        let intercept = self.interceptor.clone().and_then(|interceptor| {
            let empty = Map::new();
            let arguments = match &arguments {
                Value::Object(map) => map,
                _ => &empty,
            };
            interceptor.begin(tool.meta.name, arguments, &self.shared.graph.limits)
        });
        // Whether the caller cancelled (a failure recorder leaves such a
        // call out).
        let caller_cancel = options.cancel.clone();
        let span = tracing::info_span!("tool_call", tool = tool.meta.name);
        if let Some(trace) = options.caller.as_ref().and_then(|c| c.trace()) {
            trace.adopt(&span);
        }
        let job = CallJob {
            tools: Arc::clone(&self.shared) as Arc<dyn GraphTools>,
            index,
            arguments,
            limits: self.shared.graph.limits,
            clients: Arc::clone(&self.shared.clients),
            watch: Watch {
                tool: tool.meta.name,
                observer: self.observer.clone(),
                records: options.record.then(Vec::new),
                progress: options.progress,
            },
            caller: options.caller,
            content: tool.meta.content.as_ref(),
            cancel: options.cancel,
            stop: self.stop.clone(),
            interceptor: intercept.clone(),
        };
        let (outcome, records, content) = match self.run_on_worker(job, span).await {
            Ok(finished) => finished,
            Err(error) => return CallOutcome::failed(error),
        };
        let result = checked_result(tool, outcome);
        if let Some(intercept) = &intercept {
            intercept.end(&result, caller_cancel.is_cancelled());
        }
        CallOutcome {
            result,
            records,
            content,
        }
    }

    /// The index of tool `name` and its `arguments` with their defaults,
    /// checked against its `inputSchema`.
    fn checked_arguments(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<(usize, Value), CallError> {
        let Some(index) = self.shared.tools.iter().position(|t| t.meta.name == name) else {
            return Err(CallError::UnknownTool(name.to_owned()));
        };
        let mut arguments = Value::Object(arguments.unwrap_or_default());
        let tool = &self.shared.tools[index];
        tool.apply_defaults(&mut arguments);
        if let Some(message) = (tool.meta.input_check)(&arguments) {
            return Err(CallError::Failed(NodeError::outside(
                ErrorKind::Schema(SchemaSide::Input),
                format!("invalid arguments: {message}"),
            )));
        }
        Ok((index, arguments))
    }

    /// Runs `job` on a worker (this thread's when it may), in `span`, and
    /// waits for its end.
    async fn run_on_worker(
        &self,
        job: CallJob,
        span: tracing::Span,
    ) -> Result<call::Finished, CallError> {
        let here = self.here && self.in_flight.count.load(Ordering::SeqCst) == 1;
        let worker = self.workers.pick(here).map_err(|e| {
            CallError::Failed(NodeError::outside(
                ErrorKind::Internal,
                format!("cannot start a worker: {e}"),
            ))
        })?;
        let load = LoadGuard::new(&worker.load);
        let (reply, result) = oneshot::channel();
        let job: Job = Box::new(move || {
            Box::pin(async move {
                // The `tool_call` span closes (and reaches exporters) before
                // the caller hears the result: a CLI that exits right after
                // the reply must not lose it.
                let finished = job.run().instrument(span).await;
                // Not counted once the caller can hear: its next call must
                // see this worker as free again.
                drop(load);
                let _ = reply.send(finished);
            })
        });
        if worker.jobs.send(job).is_err() {
            return Err(CallError::Failed(NodeError::outside(
                ErrorKind::Shutdown,
                "the server is shutting down",
            )));
        }
        result.await.map_err(|_| {
            CallError::Failed(NodeError::outside(
                ErrorKind::Internal,
                "the worker running the call stopped",
            ))
        })
    }
}

/// The result of a call of `tool` that ended with `outcome`: its error
/// with the secrets taken out, or its value checked against the tool's
/// `outputSchema`.
fn checked_result(
    tool: &ToolRuntime,
    outcome: Result<Value, NodeError>,
) -> Result<Value, CallError> {
    // Secrets expanded into server settings stay out of what the
    // caller sees (a URL in a connection error, a stderr tail).
    let outcome =
        outcome.map_err(|error| error.map_message(|m| crate::secrets::redact(m).into_owned()));
    outcome.map_err(CallError::Failed).and_then(|value| {
        match tool.meta.output_check.and_then(|check| check(&value)) {
            Some(message) => Err(CallError::Failed(NodeError::outside(
                ErrorKind::Schema(SchemaSide::Output),
                format!("the result does not match the tool's outputSchema: {message}"),
            ))),
            None => Ok(value),
        }
    })
}
