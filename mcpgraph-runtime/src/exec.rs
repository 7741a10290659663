//! One tool call in progress: the context every expression sees, the
//! execution history, the limits, and the operations generated code calls
//! for each node type.
//!
//! The context is a single JSONata object `{node id: latest output}` kept
//! for the whole call and updated in place (O(1) per node); history holds
//! every output in order, for the history functions. An `Execution` is not
//! `Send` and lives on one single-threaded worker for its whole life.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonata_core::value::JValue;
use serde_json::Value;

use crate::error::{ErrorKind, Limit, NodeError};
use crate::meta::Limits;
use crate::observe::{NodeRecord, NodeType, ProgressEvent};
use crate::servers::Servers;
use mcpgraph_expr::json::{from_json, to_json};
use mcpgraph_expr::parsed::{Args, Expr};
use mcpgraph_expr::value::{Oversize, measure};

mod call_retry;
mod content;
pub(crate) mod elicit;
mod failure;
pub(crate) mod fanout;
mod graph_call;
pub(crate) mod intercept;
mod mcp;
pub(crate) mod retry;
#[cfg(feature = "standalone")]
pub mod standalone;
mod switch;
mod watch;

pub(crate) use watch::Watch;

pub(crate) use content::ExitContent;
use content::KeptContent;

pub(crate) use graph_call::GraphTools;
use intercept::CallInterceptor;
use mcpgraph_expr::evaluator::CallEvaluator;
use mcpgraph_expr::history::History;
use watch::Pending;

/// How long a call runs nodes on its worker before it lets the worker's
/// other tasks run: often enough that a cancellation or a second call waits
/// at most this plus one node, rarely enough to cost nothing per node.
const YIELD_EVERY: Duration = Duration::from_millis(5);

/// A tool call being executed.
pub struct Execution {
    context: JValue,
    /// The call's arguments, until the entry node records them.
    arguments: JValue,
    /// The evaluator's history (its history functions read it).
    history: Rc<RefCell<History>>,
    /// Always `Some` but in `drop`, which gives it back to the thread.
    jsonata: Option<CallEvaluator>,
    limits: Limits,
    deadline: Instant,
    /// Bytes of the outputs kept so far (against `maxHistoryBytes`).
    history_bytes: u64,
    /// When this call last let other tasks on its worker run.
    yielded: Instant,
    /// When the current node started: its expressions' time limits count
    /// from here (one clock read per node).
    node_started: Instant,
    /// Nodes executed so far, shared with the calls of the graph's own
    /// tools this call makes (they count toward its `maxNodeExecutions`).
    executed: Rc<Cell<u64>>,
    /// How deep this execution is in calls of the graph's own tools (0:
    /// the call a client made).
    depth: u64,
    /// The graph's tools, for the calls of them `parallel` and `forEach`
    /// nodes make (`None` outside an engine).
    tools: Option<Arc<dyn GraphTools>>,
    current: &'static str,
    clients: Arc<dyn Servers>,
    /// What sees this call's downstream calls (graph tests, failure
    /// recording); `None` in production.
    interceptor: Option<Arc<dyn CallInterceptor>>,
    result: Option<JValue>,
    started: Instant,
    pending: Option<Pending>,
    watch: Watch,
    /// Reused buffer for a rule's slot values.
    slot_values: Vec<JValue>,
    /// The client of the call, asked what downstream servers ask.
    caller: Option<crate::questions::Caller>,
    /// The blocks the exit's `content:` returns, when it has one: only
    /// the nodes it names keep theirs.
    kept: Option<KeptContent>,
}

impl Execution {
    /// Starts a call with the given (already validated) arguments.
    pub fn new(arguments: &Value, limits: Limits, clients: Arc<dyn Servers>) -> Self {
        let jsonata = CallEvaluator::take(limits);
        Self {
            context: JValue::object(Default::default()),
            arguments: from_json(arguments),
            history: Rc::clone(jsonata.history()),
            jsonata: Some(jsonata),
            limits,
            deadline: Instant::now() + Duration::from_millis(limits.max_execution_time_ms),
            yielded: Instant::now(),
            node_started: Instant::now(),
            history_bytes: 0,
            executed: Rc::default(),
            depth: 0,
            tools: None,
            current: "",
            clients,
            interceptor: None,
            result: None,
            started: Instant::now(),
            pending: None,
            watch: Watch::default(),
            slot_values: Vec::new(),
            caller: None,
            kept: None,
        }
    }

    /// Makes `caller` the client that downstream servers' questions go to.
    pub(crate) fn ask(&mut self, caller: Option<crate::questions::Caller>) {
        if let Some(caller) = &caller {
            caller.budget().bound(&self.limits);
        }
        self.caller = caller;
    }

    /// Puts this call's downstream calls through `interceptor`.
    pub(crate) fn intercept(&mut self, interceptor: Option<Arc<dyn CallInterceptor>>) {
        self.interceptor = interceptor;
    }

    /// Keeps the content blocks the exit's `content:` (`spec`) returns.
    pub(crate) fn keep_content(&mut self, spec: Option<&'static crate::meta::ContentMeta>) {
        self.kept = spec.map(KeptContent::new);
    }

    /// The blocks the exit returns, when it has a `content:`.
    pub(crate) fn take_content(&mut self) -> Option<ExitContent> {
        self.kept.take().map(KeptContent::finish)
    }

    pub(crate) fn watch(&mut self, watch: Watch) {
        self.watch = watch;
    }

    /// The execution record, if recording was asked for.
    pub(crate) fn take_records(&mut self) -> Option<Vec<NodeRecord>> {
        self.watch.records.take()
    }

    /// Checks the limits before node `node` runs and makes it the current
    /// node (the one errors name). Every `YIELD_EVERY` (5 ms) of running, it
    /// first lets the other tasks of its worker run (other calls, their
    /// timers, cancellation and shutdown), so a long loop of transforms
    /// and switches does not freeze them.
    pub async fn enter(
        &mut self,
        node: &'static str,
        node_type: NodeType,
    ) -> Result<(), NodeError> {
        self.current = node;
        self.pending = None;
        self.count_execution()?;
        // One clock read per node: the yield, the deadline check and the
        // start time.
        let mut now = Instant::now();
        if now.duration_since(self.yielded) >= YIELD_EVERY {
            tokio::task::yield_now().await;
            now = Instant::now();
            self.yielded = now;
        }
        if now >= self.deadline {
            return Err(self.time_limit());
        }
        self.node_started = now;
        let index = self.history.borrow().outputs.len();
        let span = tracing::debug_span!(
            "node",
            id = node,
            r#type = node_type.as_str(),
            index,
            duration_ms = tracing::field::Empty,
            error = tracing::field::Empty,
        );
        if let Some(observer) = &self.watch.observer {
            observer.on_node_start(self.watch.tool, index, node, node_type);
        }
        if let Some(progress) = &self.watch.progress {
            let _ = progress.send(ProgressEvent {
                progress: self.executed.get() as f64,
                node,
                message: None,
            });
        }
        self.pending = Some(Pending {
            index,
            node,
            node_type,
            start: now,
            span,
            input: None,
        });
        Ok(())
    }

    /// Counts one node execution (a node, or a call of a `parallel` or
    /// `forEach` node) against `maxNodeExecutions`.
    fn count_execution(&mut self) -> Result<(), NodeError> {
        let executed = self.executed.get();
        if executed >= self.limits.max_node_executions {
            return Err(self.error(
                ErrorKind::Limit(Limit::NodeExecutions),
                format!(
                    "Execution limit exceeded: maximum node executions ({}) reached",
                    self.limits.max_node_executions
                ),
            ));
        }
        self.executed.set(executed + 1);
        Ok(())
    }

    /// Completes the running node with `output` (observers, record, span).
    fn complete(&mut self, output: &JValue) {
        if let Some(pending) = self.pending.take() {
            self.watch.complete(pending, self.started, output);
        }
    }

    /// Records the failure of the running node (or, when a limit stopped
    /// the call before the node started, of the node that was next).
    pub(crate) fn fail(&mut self, error: &NodeError) {
        let pending = self.pending.take().unwrap_or_else(|| Pending {
            index: self.history.borrow().outputs.len(),
            node: self.current,
            node_type: NodeType::Transform,
            start: Instant::now(),
            span: tracing::Span::none(),
            input: None,
        });
        self.watch.fail(pending, self.started, error);
    }

    /// Runs the entry node: its output is the call's arguments.
    pub fn entry(&mut self) -> Result<(), NodeError> {
        let args = std::mem::replace(&mut self.arguments, JValue::Undefined);
        self.record(args)
    }

    /// Runs a transform node.
    pub fn transform(&mut self, expr: &Expr) -> Result<(), NodeError> {
        let output = self.eval(expr)?;
        self.record(output)
    }

    /// Records a switch node's output: the id of the node it routes to.
    pub fn switched(&mut self, target: &'static str) -> Result<(), NodeError> {
        self.record(JValue::from(target))
    }

    /// Runs the exit node: the result is the output of the node that ran
    /// just before it (`{}` when that was nothing or `null`).
    pub fn exit(&mut self) {
        self.complete(&JValue::Undefined);
        let last = self.history.borrow().outputs.last().cloned();
        self.result = Some(match last {
            None | Some(JValue::Undefined) | Some(JValue::Null) => {
                JValue::object(Default::default())
            }
            Some(value) => value,
        });
    }

    /// The call's result, once the exit node has run.
    pub fn finish(&mut self) -> Option<Value> {
        self.result
            .take()
            .map(|v| to_json(&v).unwrap_or(Value::Null))
    }

    fn eval(&mut self, expr: &Expr) -> Result<JValue, NodeError> {
        self.jsonata
            .as_mut()
            .expect("the evaluator is given back only on drop")
            .eval(expr, &self.context, self.node_started)
            .map_err(|e| self.error(e.kind.into(), e.message))
    }

    fn eval_args(&mut self, args: &Args) -> Result<Option<Value>, NodeError> {
        Ok(match args {
            Args::Literal(value) => Some(value.clone()),
            Args::Expr(expr) => {
                let value = self.eval(expr)?;
                // Checked before the conversion, which recurses.
                let limits = &self.limits;
                if let Err(over) = measure(&value, limits.max_value_depth, limits.max_value_bytes) {
                    return Err(self.oversize("an argument", &over));
                }
                to_json(&value)
            }
            Args::Object(fields) => {
                let mut map = serde_json::Map::with_capacity(fields.len());
                for (key, arg) in fields {
                    if let Some(value) = self.eval_args(arg)? {
                        map.insert((*key).to_owned(), value);
                    }
                }
                Some(Value::Object(map))
            }
            Args::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.eval_args(item)?.unwrap_or(Value::Null));
                }
                Some(Value::Array(out))
            }
        })
    }

    /// Keeps `output` as the current node's, within the call's value
    /// budgets: an output over `maxValueDepth` or `maxValueBytes`, or one
    /// that takes the call's kept outputs past `maxHistoryBytes`, fails the
    /// node before anything converts it (conversions recurse).
    fn record(&mut self, output: JValue) -> Result<(), NodeError> {
        let (max_depth, max_bytes) = (self.limits.max_value_depth, self.limits.max_value_bytes);
        let left = self
            .limits
            .max_history_bytes
            .saturating_sub(self.history_bytes);
        match measure(&output, max_depth, max_bytes.min(left)) {
            Ok(bytes) => self.history_bytes += bytes,
            Err(Oversize::Bytes(_)) if left < max_bytes => {
                return Err(self.error(
                    ErrorKind::Limit(Limit::HistoryBytes),
                    format!(
                        "Value limit exceeded: the outputs of this call take more than maxHistoryBytes ({} bytes)",
                        self.limits.max_history_bytes
                    ),
                ));
            }
            Err(over) => return Err(self.oversize("the output", &over)),
        }
        self.complete(&output);
        let node = self.current;
        let ctx = self.context.as_object_mut().expect("context is an object");
        if output.is_undefined() {
            ctx.shift_remove(node);
        } else if let Some(slot) = mcpgraph_expr::value::field_index(ctx, node)
            .and_then(|i| ctx.get_index_mut(i).map(|(_, v)| v))
        {
            // A loop re-running a node: no new key to allocate.
            *slot = output.clone();
        } else {
            ctx.insert(node.to_owned(), output.clone());
        }
        self.history.borrow_mut().push(node, output);
        Ok(())
    }
}

impl Drop for Execution {
    fn drop(&mut self) {
        if let Some(jsonata) = self.jsonata.take() {
            jsonata.give_back();
        }
    }
}

fn from_json_opt(value: Option<Value>) -> JValue {
    value.as_ref().map_or(JValue::Undefined, from_json)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
