//! The MCP face of a compiled graph: an rmcp `ServerHandler` that lists the
//! graph's tools and runs calls through the [`Engine`].
//!
//! Serving is transport-agnostic: [`serve`](super::session::serve) takes
//! any rmcp transport (stdio today; streamable HTTP plugs in the same way).

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, DiscoverResult,
    GetTaskParams, GetTaskResult, Implementation, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler};

use crate::engine::{CallError, CallOptions, Engine};
use crate::observe::ProgressEvent;
use crate::questions::{Rounds, Saved};
use crate::serving::caps::{CallCaps, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_SESSION};
use crate::serving::identity::{RequestIdentity, Stdio};
use crate::serving::metrics;
use crate::serving::tasks::{self, TaskCall, TaskEngine, TaskHost};
use mcpgraph_secrets::StateKeys;
use mcpgraph_telemetry::TraceContext;

/// How long a client or cache may keep `tools/list` and `server/discover`
/// answers (MCP 2026-07-28 caching hints, scope `public`). They are fixed
/// when the server is built; the bound is how long a client may go on
/// with an old list after a new build is deployed at the same address.
pub(crate) const LIST_TTL_MS: u64 = 300_000;

/// An rmcp server handler for an [`Engine`]'s graph. Not generic, so rmcp's
/// service loop is compiled once, in this crate, for every graph.
pub struct Handler {
    engine: Engine,
    tools: Arc<Vec<Tool>>,
    /// The caps on calls in flight, shared by every session.
    caps: Arc<CallCaps>,
    /// This session's calls in flight.
    session: Arc<AtomicUsize>,
    /// Whether a session-era client can be sent requests (not under
    /// `--stateless`).
    pub(super) sessions: bool,
    /// The keys sealing the state a waiting call hands its client.
    pub(super) state_keys: Arc<StateKeys>,
    /// Who sent a request, as its transport tells.
    pub(super) identity: Arc<dyn RequestIdentity>,
    /// What runs calls as MCP tasks; none: no call is a task.
    pub(super) tasks: Option<Arc<dyn TaskHost>>,
}

impl Clone for Handler {
    fn clone(&self) -> Self {
        Self {
            engine: self.engine.clone(),
            tools: Arc::clone(&self.tools),
            caps: Arc::clone(&self.caps),
            session: Arc::clone(&self.session),
            sessions: self.sessions,
            state_keys: Arc::clone(&self.state_keys),
            identity: Arc::clone(&self.identity),
            tasks: self.tasks.clone(),
        }
    }
}

impl Handler {
    /// A handler serving `engine`'s tools. Its calls run on the engine's
    /// worker threads, never on the thread serving the protocol, which so
    /// stays free for other requests and pings while a call evaluates.
    pub fn new(engine: Engine) -> Self {
        let engine = engine.off_serving_thread();
        let tools = crate::serving::tools::listed_tools(&engine);
        Self {
            engine,
            tools: Arc::new(tools),
            caps: Arc::new(CallCaps::new(
                DEFAULT_MAX_IN_FLIGHT,
                DEFAULT_MAX_IN_FLIGHT_PER_SESSION,
            )),
            session: Arc::default(),
            sessions: true,
            state_keys: Arc::new(StateKeys::ephemeral()),
            identity: Arc::new(Stdio),
            tasks: None,
        }
    }

    /// The same handler, serving session-era clients with (`true`, the
    /// default) or without sessions.
    pub fn with_sessions(mut self, sessions: bool) -> Self {
        self.sessions = sessions;
        self
    }

    /// The same handler with these caps on calls in flight.
    pub fn with_caps(mut self, caps: CallCaps) -> Self {
        self.caps = Arc::new(caps);
        self
    }

    /// The same handler sealing states with these keys (by default, a
    /// random key of its own).
    pub fn with_state_keys(mut self, keys: Arc<StateKeys>) -> Self {
        self.state_keys = keys;
        self
    }

    /// The same handler learning who sent a request from `identity` (by
    /// default, stdio's: one caller, no credential).
    pub fn with_identity(mut self, identity: Arc<dyn RequestIdentity>) -> Self {
        self.identity = identity;
        self
    }

    /// The same handler running the calls of clients that declared the
    /// tasks extension as MCP tasks, with `host`.
    pub fn with_tasks(mut self, host: Arc<dyn TaskHost>) -> Self {
        self.tasks = Some(host);
        self
    }

    /// The keys sealing the state a waiting call hands its client.
    pub fn state_keys(&self) -> &Arc<StateKeys> {
        &self.state_keys
    }

    /// A handler for a new session: the same engine and caps, its own
    /// count of calls in flight.
    pub fn for_session(&self) -> Self {
        Self {
            session: Arc::default(),
            ..self.clone()
        }
    }

    /// The caps on calls in flight.
    pub fn caps(&self) -> &CallCaps {
        &self.caps
    }
}

impl Handler {
    /// The engine running this handler's calls.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The label `/metrics` counts a call of `name` under.
    pub(super) fn tool_label(&self, name: &str) -> &'static str {
        metrics::tool_label(&self.engine, name)
    }

    /// What a task host runs this handler's calls with.
    fn task_engine(&self) -> TaskEngine {
        TaskEngine {
            engine: self.engine.clone(),
            state_keys: Arc::clone(&self.state_keys),
        }
    }

    /// The task host with the principal of the request `context` is of, or
    /// error -32602 (no task is known here).
    fn task_host(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<(&Arc<dyn TaskHost>, Vec<u8>), McpError> {
        let host = self.tasks.as_ref().ok_or_else(|| {
            McpError::invalid_params("Failed to retrieve task: Task not found", None)
        })?;
        Ok((host, self.task_principal(context)))
    }

    /// Whom the tasks of the request `context` is of belong to: the
    /// principal its credential names; without one, for a client of the
    /// session era served with sessions, the request's owner: its session
    /// (a task is seen by the session that started it alone), over stdio
    /// the one client; else no one (2026-07-28 or stateless requests
    /// without a credential).
    fn task_principal(&self, context: &RequestContext<RoleServer>) -> Vec<u8> {
        let principal = self.identity.principal(&context.extensions);
        if principal.is_empty() && self.sessions && tasks::session_era(context) {
            let owner = self.identity.owner(&context.extensions);
            return [b"owner\0", owner.name().as_bytes()].concat();
        }
        principal
    }

    /// Takes over, from now on, the tasks of the replicas sharing this
    /// one's store that stop (a task whose lease runs out): a server calls
    /// it once. Nothing when no call runs as a task.
    pub fn adopt_tasks(&self) {
        if let Some(host) = &self.tasks {
            host.adopt(self.task_engine());
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let meta = self.engine.graph().server;
        let capabilities = ServerCapabilities::builder().enable_tools();
        let capabilities = match self.tasks {
            Some(_) => capabilities.enable_tasks().build(),
            None => capabilities.build(),
        };
        let info = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(meta.name, meta.version).with_title(meta.title));
        match meta.instructions {
            Some(instructions) => info.with_instructions(instructions),
            None => info,
        }
    }

    /// `server/discover` (MCP 2026-07-28): rmcp's answer (versions,
    /// capabilities, server info), cacheable like the tool list.
    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        let versions = self.supported_protocol_versions().into_owned();
        Ok(DiscoverResult::from_server_info(versions, self.get_info())
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    /// The tool `name`, which rmcp's HTTP transport reads to check a
    /// request's `Mcp-Param-*` headers against its `x-mcp-header` arguments.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn on_initialized(&self, _context: NotificationContext<RoleServer>) {
        tracing::info!("client initialized");
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let (host, principal) = self.task_host(&context)?;
        host.get(principal, request).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (host, principal) = self.task_host(&context)?;
        host.update(self.task_engine(), principal, request).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (host, principal) = self.task_host(&context)?;
        host.cancel(principal, request).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // In the graph's order, the same on every call.
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone())
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let as_task = tasks::runs_as_task(&self.engine, self.tasks.is_some(), &request, &context)?;
        let (caller, round) = self.caller(&request, &context)?;
        let caller = caller
            .with_trace(TraceContext::from_meta(&context.meta))
            .with_token(self.identity.token(&context.extensions))
            .with_owner(self.identity.owner(&context.extensions));
        // A task holds no slot of the caps on calls in flight: the store's
        // cap on live tasks bounds them.
        if let Some(host) = self.tasks.as_ref().filter(|_| as_task) {
            let first = round.map_or_else(
                || Arc::new(Rounds::new(Saved::default(), Default::default())),
                |(round, _)| round,
            );
            return host
                .start(TaskCall {
                    engine: self.task_engine(),
                    tool: request.name.into_owned(),
                    arguments: request.arguments,
                    capabilities: context.client_capabilities(),
                    caller,
                    first,
                    principal: self.task_principal(&context),
                })
                .await;
        }
        let _admitted = self.caps.admit(&self.session).inspect_err(|_| {
            metrics::call(self.tool_label(&request.name), "refused");
        })?;
        let mut options = CallOptions {
            cancel: context.ct.clone(),
            caller: Some(caller),
            ..CallOptions::default()
        };
        // A client that sent a progress token hears about every node.
        let forwarder = context.meta.get_progress_token().map(|token| {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ProgressEvent>();
            options.progress = Some(tx);
            let peer = context.peer.clone();
            tokio::spawn(async move {
                // Downstream servers' notifications can be handled out of
                // order: one that would not increase the progress is stale.
                let mut last = f64::NEG_INFINITY;
                while let Some(event) = rx.recv().await {
                    if event.progress <= last {
                        continue;
                    }
                    last = event.progress;
                    let message = match event.message {
                        Some(message) => format!("node `{}`: {message}", event.node),
                        None => format!("node `{}`", event.node),
                    };
                    let param = ProgressNotificationParam::new(token.clone(), event.progress)
                        .with_message(message);
                    if peer.notify_progress(param).await.is_err() {
                        break;
                    }
                }
            })
        });
        let outcome = self
            .engine
            .call_with(&request.name, request.arguments, options)
            .await;
        if let Some(forwarder) = forwarder {
            // Every progress notification goes out before the result.
            let _ = forwarder.await;
        }
        match outcome.result {
            Ok(value) => {
                metrics::call(self.tool_label(&request.name), "ok");
                Ok(crate::serving::result::tool_result(value, outcome.content).into())
            }
            Err(e @ CallError::UnknownTool(_)) => {
                metrics::call(metrics::UNKNOWN_TOOL, "unknown_tool");
                Err(McpError::invalid_params(e.to_string(), None))
            }
            // A round of a 2026-07-28 call that stopped for the client's
            // answers, or for a capability it did not declare.
            Err(CallError::Failed(e))
                if let Some((round, binding)) = &round
                    && let Some(response) = self.round_ended(&e, round, &request.name, binding) =>
            {
                response
            }
            Err(CallError::Failed(e)) => {
                let label = self.tool_label(&request.name);
                Ok(crate::serving::result::tool_error(label, &e).into())
            }
        }
    }
}
