//! One tool call in progress: the context every expression sees, the
//! execution history, the limits, and the operations generated code calls
//! for each node type.
//!
//! The context is a single JSONata object `{node id: latest output}` kept
//! for the whole call and updated in place (O(1) per node); history holds
//! every output in order, for the history functions. An `Execution` is not
//! `Send` and lives on one single-threaded worker for its whole life.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonata_core::evaluator::{CancelToken, Context, Evaluator, EvaluatorError, EvaluatorOptions};
use jsonata_core::value::JValue;
use serde_json::Value;

use crate::client_manager::ClientManager;
use crate::convert::output_of_result;
use crate::error::NodeError;
use crate::expr::{Args, Expr, SLOT_KEY, Switch, logic_engine};
use crate::meta::Limits;
use crate::observe::{NodeRecord, NodeType, Observer, ProgressEvent};
use crate::value::{Oversize, from_json, measure, to_data, to_json};
use crate::watchdog::{ExpressionTimer, timeout_error};

/// Every node output of one call, in execution order.
#[derive(Default)]
struct History {
    outputs: Vec<JValue>,
    by_node: HashMap<&'static str, Vec<usize>>,
}

impl History {
    fn push(&mut self, node: &'static str, output: JValue) {
        self.by_node
            .entry(node)
            .or_default()
            .push(self.outputs.len());
        self.outputs.push(output);
    }

    fn runs(&self, node: &str) -> &[usize] {
        self.by_node.get(node).map_or(&[], Vec::as_slice)
    }

    /// A recorded output as a JSONata value: a run that yielded nothing
    /// reads as `null` (FORMAT.md).
    fn output(&self, index: usize) -> JValue {
        match &self.outputs[index] {
            JValue::Undefined => JValue::Null,
            other => other.clone(),
        }
    }
}

/// How long a call runs nodes on its worker before it lets the worker's
/// other tasks run: often enough that a cancellation or a second call waits
/// at most this plus one node, rarely enough to cost nothing per node.
const YIELD_EVERY: Duration = Duration::from_millis(5);

/// A tool call being executed.
pub struct Execution {
    context: JValue,
    /// The call's arguments, until the entry node records them.
    arguments: JValue,
    history: Rc<RefCell<History>>,
    evaluator: Evaluator,
    /// `maxExpressionTimeMs` for `evaluator`, whose cancel token it holds.
    timer: ExpressionTimer,
    limits: Limits,
    deadline: Instant,
    /// Bytes of the outputs kept so far (against `maxHistoryBytes`).
    history_bytes: u64,
    /// When this call last let other tasks on its worker run.
    yielded: Instant,
    executed: u64,
    current: &'static str,
    clients: Arc<ClientManager>,
    result: Option<JValue>,
    started: Instant,
    pending: Option<Pending>,
    watch: Watch,
    /// Reused by every switch rule of the call: its data and result.
    arena: datalogic_rs::bumpalo::Bump,
    /// Reused buffer for a rule's slot values.
    slot_values: Vec<JValue>,
}

/// The key of slot `i` in a rule's data (`"0"`, `"1"`, ...).
fn slot_name(i: usize, arena: &datalogic_rs::bumpalo::Bump) -> &str {
    const NAMES: [&str; 16] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
    ];
    match NAMES.get(i) {
        Some(name) => name,
        None => arena.alloc_str(&i.to_string()),
    }
}

/// The node that is running, until it completes or fails.
struct Pending {
    index: usize,
    node: &'static str,
    node_type: NodeType,
    start: Instant,
    span: tracing::Span,
}

/// Who wants to hear about node executions.
#[derive(Clone, Default)]
pub(crate) struct Watch {
    pub(crate) tool: &'static str,
    pub(crate) observer: Option<Arc<dyn Observer>>,
    pub(crate) records: Option<Vec<NodeRecord>>,
    pub(crate) progress: Option<tokio::sync::mpsc::UnboundedSender<ProgressEvent>>,
}

impl Watch {
    fn wants_outputs(&self) -> bool {
        self.observer.is_some() || self.records.is_some()
    }
}

impl Execution {
    /// Starts a call with the given (already validated) arguments.
    pub fn new(arguments: &Value, limits: Limits, clients: Arc<ClientManager>) -> Self {
        let history = Rc::new(RefCell::new(History::default()));
        let timer = ExpressionTimer::new(Some(limits.max_expression_time_ms));
        let evaluator = new_evaluator(
            Context::new(),
            timer.token(),
            Some(limits.max_expression_depth),
            Some(limits.max_value_bytes),
            &history,
        );
        Self {
            context: JValue::object(Default::default()),
            arguments: from_json(arguments),
            history,
            evaluator,
            timer,
            limits,
            deadline: Instant::now() + Duration::from_millis(limits.max_execution_time_ms),
            yielded: Instant::now(),
            history_bytes: 0,
            executed: 0,
            current: "",
            clients,
            result: None,
            started: Instant::now(),
            pending: None,
            watch: Watch::default(),
            arena: datalogic_rs::bumpalo::Bump::new(),
            slot_values: Vec::new(),
        }
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
        if self.executed >= self.limits.max_node_executions {
            return Err(self.error(format!(
                "Execution limit exceeded: maximum node executions ({}) reached",
                self.limits.max_node_executions
            )));
        }
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
        self.executed += 1;
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
            let _ = progress.send((self.executed, node));
        }
        self.pending = Some(Pending {
            index,
            node,
            node_type,
            start: now,
            span,
        });
        Ok(())
    }

    /// Completes the running node with `output` (observers, record, span).
    fn complete(&mut self, output: &JValue) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        // Nobody listening (span off, no observer or record): no clock read.
        if pending.span.is_disabled() && !self.watch.wants_outputs() {
            return;
        }
        let duration = pending.start.elapsed();
        pending
            .span
            .record("duration_ms", duration.as_secs_f64() * 1000.0);
        if self.watch.wants_outputs() {
            let record = self.record_of(&pending, duration, Ok(to_json(output)));
            if let Some(observer) = &self.watch.observer {
                observer.on_node_complete(self.watch.tool, &record);
            }
            if let Some(records) = &mut self.watch.records {
                records.push(record);
            }
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
        });
        let duration = pending.start.elapsed();
        pending
            .span
            .record("duration_ms", duration.as_secs_f64() * 1000.0);
        pending.span.record("error", error.message.as_str());
        if self.watch.wants_outputs() {
            let record = self.record_of(&pending, duration, Err(error.message.clone()));
            if let Some(observer) = &self.watch.observer {
                observer.on_node_error(self.watch.tool, &record);
            }
            if let Some(records) = &mut self.watch.records {
                records.push(record);
            }
        }
    }

    fn record_of(
        &self,
        pending: &Pending,
        duration: Duration,
        outcome: Result<Option<Value>, String>,
    ) -> NodeRecord {
        NodeRecord {
            index: pending.index,
            node: pending.node.to_owned(),
            node_type: pending.node_type,
            start: pending.start.duration_since(self.started),
            duration,
            outcome,
        }
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

    /// Runs a switch node's rules; `Some(i)` is the first condition whose
    /// rule is truthy, `None` means the default `next`. The caller records
    /// the chosen target with [`Execution::switched`].
    pub fn switch(&mut self, switch: &Switch) -> Result<Option<usize>, NodeError> {
        use datalogic_rs::DataValue;
        use datalogic_rs::bumpalo::collections::Vec as BumpVec;
        let engine = logic_engine();
        let mut values = std::mem::take(&mut self.slot_values);
        for (index, rule) in switch.conditions.iter().enumerate() {
            values.clear();
            for var in &rule.vars {
                let value = self.eval(var)?;
                // Checked before the conversion into the rule's data, which
                // recurses.
                let limits = &self.limits;
                if let Err(over) = measure(&value, limits.max_value_depth, limits.max_value_bytes) {
                    return Err(self.oversize("a `var` value", &over));
                }
                values.push(value);
            }
            // The rule's data, built straight into the arena: its slots
            // (`{SLOT_KEY: {"0": .., "1": ..}}`), and, only for rules that
            // read the data by path (`missing`), the context's fields.
            self.arena.reset();
            let arena = &self.arena;
            let mut slots = BumpVec::with_capacity_in(values.len(), arena);
            for (slot, value) in values.iter().enumerate() {
                if let Some(value) = to_data(value, arena) {
                    slots.push((slot_name(slot, arena), value));
                }
            }
            let slots = DataValue::Object(slots.into_bump_slice());
            let context = match rule.needs_context.then(|| to_data(&self.context, arena)) {
                Some(Some(DataValue::Object(fields))) => fields,
                _ => &[],
            };
            let mut fields = BumpVec::with_capacity_in(context.len() + 1, arena);
            fields.extend(context.iter().filter(|(k, _)| *k != SLOT_KEY).cloned());
            fields.push((SLOT_KEY, slots));
            let data = DataValue::Object(fields.into_bump_slice());
            let value = engine
                .evaluate(&rule.logic, data, arena)
                .map_err(|e| self.error(format!("JSON Logic rule {index} failed: {e}")));
            let truthy = value.map(js_truthy);
            match truthy {
                Ok(true) => {
                    self.slot_values = values;
                    return Ok(Some(index));
                }
                Ok(false) => {}
                Err(e) => return Err(e),
            }
        }
        self.slot_values = values;
        Ok(None)
    }

    /// Records a switch node's output: the id of the node it routes to.
    pub fn switched(&mut self, target: &'static str) -> Result<(), NodeError> {
        self.record(JValue::from(target))
    }

    /// Runs an `mcp` node: evaluates its arguments, calls `tool` on
    /// `server`, and records the converted result.
    pub async fn mcp(
        &mut self,
        server: &'static str,
        tool: &'static str,
        args: &Args,
    ) -> Result<(), NodeError> {
        let arguments = match self.eval_args(args)? {
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(self.error(format!(
                    "the arguments for `{server}`/`{tool}` are not an object but {}",
                    kind_of(&other)
                )));
            }
            None => {
                return Err(self.error(format!(
                    "the arguments for `{server}`/`{tool}` yielded no value, not an object"
                )));
            }
        };
        let call = self.clients.call(server, tool, arguments);
        let result = match tokio::time::timeout_at(self.deadline.into(), call).await {
            Ok(result) => result.map_err(|e| self.error(e))?,
            Err(_) => return Err(self.time_limit()),
        };
        let output = output_of_result(result)
            .map_err(|text| self.error(format!("`{server}`/`{tool}` returned an error: {text}")))?;
        self.record(from_json_opt(output))?;
        Ok(())
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
        if let Some(value) = expr.lookup(&self.context) {
            return Ok(value);
        }
        self.timer.arm();
        let mut result = self.evaluator.evaluate(&expr.ast, &self.context);
        if let Some(limit) = self.timer.disarm() {
            // The watchdog fired: its token is spent for this evaluator.
            self.timer = ExpressionTimer::new(Some(limit));
            self.evaluator = new_evaluator(
                Context::new(),
                self.timer.token(),
                Some(self.limits.max_expression_depth),
                Some(self.limits.max_value_bytes),
                &self.history,
            );
            // Past its limit, an evaluation fails even if it then returned
            // a value: a built-in that does not look at the token (a huge
            // `$sort`, `$join`) must not escape the limit.
            result = Err(timeout_error(limit));
        }
        result.map_err(|e| self.error(describe_jsonata_error(&e)))
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
                return Err(self.error(format!(
                    "Value limit exceeded: the outputs of this call take more than maxHistoryBytes ({} bytes)",
                    self.limits.max_history_bytes
                )));
            }
            Err(over) => return Err(self.oversize("the output", &over)),
        }
        self.complete(&output);
        let node = self.current;
        let ctx = self.context.as_object_mut().expect("context is an object");
        if output.is_undefined() {
            ctx.shift_remove(node);
        } else if let Some(slot) = ctx.get_mut(node) {
            // A loop re-running a node: no new key to allocate.
            *slot = output.clone();
        } else {
            ctx.insert(node.to_owned(), output.clone());
        }
        self.history.borrow_mut().push(node, output);
        Ok(())
    }

    fn oversize(&self, what: &str, over: &Oversize) -> NodeError {
        self.error(match over {
            Oversize::Depth(depth) => format!(
                "Value limit exceeded: {what} nests arrays and objects deeper than maxValueDepth ({depth})"
            ),
            Oversize::Bytes(bytes) => format!(
                "Value limit exceeded: {what} is larger than maxValueBytes ({bytes} bytes)"
            ),
        })
    }

    /// An error of the current node, with secrets expanded from `${VAR}`
    /// redacted here, before spans, records and observers see it.
    fn error(&self, message: impl Into<String>) -> NodeError {
        NodeError::at(self.current, crate::env_expand::redact(&message.into()))
    }

    fn time_limit(&self) -> NodeError {
        self.error(format!(
            "Execution limit exceeded: maximum execution time ({} ms) reached",
            self.limits.max_execution_time_ms
        ))
    }
}

/// JavaScript truthiness, which FORMAT.md prescribes for a rule's value:
/// everything but `false`, `0`, `""`, `null` and `NaN` is true, so `[]` and
/// `{}` are (JSON Logic's own `truthy` says otherwise for `[]`).
fn js_truthy(value: &datalogic_rs::DataValue<'_>) -> bool {
    if value.is_null() {
        false
    } else if let Some(b) = value.as_bool() {
        b
    } else if let Some(n) = value.as_f64() {
        n != 0.0 && !n.is_nan()
    } else if let Some(s) = value.as_str() {
        !s.is_empty()
    } else {
        true
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

/// JSONata errors carry their code in the message (`D1012: ...`); limits
/// get a sentence of their own so the caller knows which one was hit.
fn describe_jsonata_error(e: &EvaluatorError) -> String {
    let text = e.to_string();
    match e.code() {
        Some("D1012") => format!("JSONata evaluation exceeded maxExpressionTimeMs ({text})"),
        Some("D1011") | Some("U1001") => {
            format!("JSONata evaluation exceeded maxExpressionDepth ({text})")
        }
        Some(crate::bounded::CODE) => e.message()[crate::bounded::CODE.len() + 2..].to_owned(),
        _ => format!("JSONata error: {text}"),
    }
}

/// The evaluator every expression of a call runs in: the limits as
/// evaluator options and the history functions registered. The conformance
/// runner builds its evaluator here too, so it tests this exact setup.
fn new_evaluator(
    context: Context,
    cancel: CancelToken,
    depth: Option<u64>,
    value_bytes: Option<u64>,
    history: &Rc<RefCell<History>>,
) -> Evaluator {
    // The time limit is the watchdog's (`cancel`), not jsonata's
    // `timeout_ms`, which reads the clock at every node evaluated.
    let options = EvaluatorOptions {
        max_stack_depth: depth.map(|d| usize::try_from(d).unwrap_or(usize::MAX)),
        cancel: Some(cancel),
        ..Default::default()
    };
    let mut evaluator = Evaluator::with_options(context, options);
    register_history_functions(&mut evaluator, history);
    crate::bounded::register(&mut evaluator, value_bytes);
    evaluator
}

/// Evaluates `expr` against `data` in the evaluator a transform node uses
/// (history functions registered, with an empty history), with `bindings`
/// as variables and optional time and depth limits. For the conformance
/// runner; not part of the generated-code interface.
#[doc(hidden)]
pub fn evaluate_standalone(
    expr: &Expr,
    data: &JValue,
    bindings: &serde_json::Map<String, Value>,
    timeout_ms: Option<u64>,
    depth: Option<u64>,
) -> Result<JValue, EvaluatorError> {
    let mut context = Context::new();
    for (name, value) in bindings {
        context.bind(name.clone(), from_json(value));
    }
    if bindings.is_empty()
        && let Some(value) = expr.lookup(data)
    {
        return Ok(value);
    }
    let history = Rc::new(RefCell::new(History::default()));
    let mut timer = ExpressionTimer::new(timeout_ms);
    let mut evaluator = new_evaluator(context, timer.token(), depth, None, &history);
    timer.arm();
    let result = evaluator.evaluate(&expr.ast, data);
    match timer.disarm() {
        Some(limit) => Err(timeout_error(limit)),
        None => result,
    }
}

fn register_history_functions(evaluator: &mut Evaluator, history: &Rc<RefCell<History>>) {
    let h = Rc::clone(history);
    let previous = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let n = match args.first() {
            None | Some(JValue::Undefined) => 1.0,
            Some(JValue::Number(n)) => *n,
            Some(_) => return Err(arg_error("$previousNode", "n must be a number")),
        };
        let h = h.borrow();
        let len = h.outputs.len() as f64;
        Ok(if n >= 1.0 && n <= len && n.fract() == 0.0 {
            h.output(h.outputs.len() - n as usize)
        } else {
            JValue::Null
        })
    };
    let h = Rc::clone(history);
    let count = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let id = node_id_arg("$executionCount", args)?;
        Ok(JValue::from(h.borrow().runs(id).len() as f64))
    };
    let h = Rc::clone(history);
    let nth = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let id = node_id_arg("$nodeExecution", args)?;
        let Some(JValue::Number(i)) = args.get(1) else {
            return Err(arg_error("$nodeExecution", "the index must be a number"));
        };
        let h = h.borrow();
        let runs = h.runs(id);
        let len = runs.len() as f64;
        let i = if *i < 0.0 { len + i } else { *i };
        Ok(if i >= 0.0 && i < len && i.fract() == 0.0 {
            h.output(runs[i as usize])
        } else {
            JValue::Null
        })
    };
    let h = Rc::clone(history);
    let all = move |args: &[JValue]| -> Result<JValue, EvaluatorError> {
        let id = node_id_arg("$nodeExecutions", args)?;
        let h = h.borrow();
        let outputs = h.runs(id).iter().map(|&i| h.output(i)).collect();
        let mut array = JValue::array(outputs);
        array.mark_keep_singleton();
        Ok(array)
    };
    for (name, result) in [
        (
            "previousNode",
            evaluator.register_fn("previousNode", previous),
        ),
        (
            "executionCount",
            evaluator.register_fn("executionCount", count),
        ),
        ("nodeExecution", evaluator.register_fn("nodeExecution", nth)),
        (
            "nodeExecutions",
            evaluator.register_fn("nodeExecutions", all),
        ),
    ] {
        if let Err(e) = result {
            // Only a clash with a JSONata built-in can fail, which a new
            // jsonata-core release could bring; the history tests catch it.
            tracing::error!("cannot register ${name}: {e}");
        }
    }
}

fn node_id_arg<'a>(function: &str, args: &'a [JValue]) -> Result<&'a str, EvaluatorError> {
    args.first()
        .and_then(JValue::as_str)
        .ok_or_else(|| arg_error(function, "the node id must be a string"))
}

fn arg_error(function: &str, message: &str) -> EvaluatorError {
    EvaluatorError::TypeError(format!("T0410: {function}: {message}"))
}
