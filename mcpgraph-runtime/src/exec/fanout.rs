//! The fan-out nodes: `parallel` (named branches, at once) and `forEach`
//! (one call per item, in item order). Their calls run concurrently on the
//! call's own worker task, at most `maxConcurrency` at a time: the
//! arguments of each are evaluated when it starts (so a `forEach` over many
//! items holds at most that many argument objects), each call counts as a
//! node execution, and each result is held to the value budgets as it
//! arrives. Each call has its own `retry` and `timeoutMs` (see
//! `call_retry`), the node a `timeoutMs` for all of them. The first failure
//! (or the node's time limit) fails the node: the calls still running are
//! dropped, which cancels them downstream (`notifications/cancelled`), and
//! no partial output is kept.
//!
//! The nodes as generated code builds them are in `nodes`; the bookkeeping
//! of each call as it ends, in `parts`.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use jsonata_core::value::JValue;
use serde_json::Value;
use tracing::Instrument;

use super::call_retry::{FanOutCall, within};
use super::{Execution, from_json_opt, kind_of};
use crate::error::{Downstream, ErrorKind, NodeError};
use crate::servers::convert::output_of_result;

mod nodes;
mod parts;

use nodes::Target;
pub use nodes::{CallSpec, ForEach, Parallel};

/// A call started, with its position among the node's calls.
type Started = Pin<Box<dyn Future<Output = (usize, Result<JValue, NodeError>)>>>;

impl Execution {
    /// Runs a `parallel` node: its output is `{branch: output}`.
    pub async fn parallel(&mut self, node: &Parallel) -> Result<(), NodeError> {
        let results = self
            .fan_out(
                node.branches.len(),
                node.max_concurrency,
                node.timeout_ms,
                |i| node.branches[i].0.to_owned(),
                |exec, i| {
                    let (name, call) = &node.branches[i];
                    let span = tracing::debug_span!("branch", node = exec.current, branch = *name);
                    let args = exec.call_args(call)?;
                    exec.start(call, args, (i, (*name).to_owned()), span)
                },
            )
            .await?;
        let object = node
            .branches
            .iter()
            .zip(results)
            .map(|((name, _), value)| ((*name).to_owned(), value))
            .collect();
        self.record(JValue::object(object))
    }

    /// Runs a `forEach` node: its output is the array of the calls'
    /// outputs, in item order.
    pub async fn for_each(&mut self, node: &ForEach) -> Result<(), NodeError> {
        let items = match self.eval(&node.items)? {
            JValue::Undefined => Vec::new(),
            JValue::Array(items) => items.iter().cloned().collect(),
            other => {
                let kind = super::to_json(&other).map_or("nothing", |v| kind_of(&v));
                return Err(self.error(
                    ErrorKind::Expression,
                    format!("`items` must evaluate to an array, not {kind}"),
                ));
            }
        };
        let results = self
            .fan_out(
                items.len(),
                node.max_concurrency,
                node.timeout_ms,
                |i| i.to_string(),
                |exec, i| {
                    let span = tracing::debug_span!("item", node = exec.current, index = i);
                    let args = exec.item_args(&node.call, &items[i], i)?;
                    exec.start(&node.call, args, (i, i.to_string()), span)
                },
            )
            .await?;
        self.record(JValue::array(results))
    }

    /// Runs `count` calls, `start(self, i)` starting the `i`th, at most
    /// `max` at once, all within `timeout_ms` (the node's) if given;
    /// returns their outputs in order, or the first error. With an
    /// execution record, each call that ends gets a record of its own,
    /// named by `part(i)`.
    ///
    /// For a caller of MCP 2026-07-28, a call whose server asks ends the
    /// round, but not at once: the other calls run on (and start) until
    /// each has ended or asked too, so that one retry answers every
    /// question and no call that ended is made again (see
    /// `FanOutCall::run`). If the node fails instead, the questions its
    /// calls asked are taken back.
    async fn fan_out(
        &mut self,
        count: usize,
        max: usize,
        timeout_ms: Option<u64>,
        part: impl Fn(usize) -> String,
        start: impl FnMut(&mut Self, usize) -> Result<Started, NodeError>,
    ) -> Result<Vec<JValue>, NodeError> {
        let outcome = self
            .fan_out_calls(count, max, timeout_ms, part, start)
            .await;
        if let Err(e) = &outcome
            && e.kind() != ErrorKind::InputRequired
            && let Some(round) = self
                .caller
                .as_ref()
                .and_then(crate::questions::Caller::round)
        {
            let states = round.withdraw(self.current);
            self.clients.forget_parked(&states);
        }
        outcome
    }

    /// [`Execution::fan_out`]'s calls.
    async fn fan_out_calls(
        &mut self,
        count: usize,
        max: usize,
        timeout_ms: Option<u64>,
        part: impl Fn(usize) -> String,
        mut start: impl FnMut(&mut Self, usize) -> Result<Started, NodeError>,
    ) -> Result<Vec<JValue>, NodeError> {
        let mut began: Vec<Option<Instant>> = if self.watch.keeps_records() {
            vec![None; count]
        } else {
            Vec::new()
        };
        let node_deadline = timeout_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
        let mut results: Vec<JValue> = vec![JValue::Null; count];
        let mut running = FuturesUnordered::new();
        // The calls running, named by progress (kept if it is heard).
        let watched = self.watch.progress.is_some();
        let mut live = std::collections::BTreeSet::new();
        let (mut next, mut ended, mut done, mut bytes) = (0, 0, 0, 0u64);
        let mut asked = None;
        // A call ended: told once the calls after it have started.
        let mut news = false;
        while ended < count {
            while running.len() < max && next < count {
                self.count_execution()?;
                running.push(start(self, next)?);
                if watched {
                    live.insert(next);
                }
                if let Some(at) = began.get_mut(next) {
                    *at = Some(Instant::now());
                }
                next += 1;
            }
            if std::mem::take(&mut news) {
                self.part_done(done, count, &live, &part);
            }
            let limit = node_deadline.map_or(self.deadline, |node| node.min(self.deadline));
            let Ok(finished) = tokio::time::timeout_at(limit.into(), running.next()).await else {
                if node_deadline.is_some_and(|node| node < self.deadline) {
                    let ms = timeout_ms.unwrap_or_default();
                    return Err(self.error(
                        ErrorKind::Downstream(Downstream::TimedOut),
                        format!(
                            "the node's timeoutMs ({ms} ms) ran out with {done} of {count} calls done; the others were cancelled"
                        ),
                    ));
                }
                return Err(self.time_limit());
            };
            let Some((i, outcome)) = finished else { break };
            live.remove(&i);
            if let Some(Some(at)) = began.get(i).copied() {
                self.record_part(part(i), at, &outcome);
            }
            ended += 1;
            let value = match outcome {
                Err(e) if e.kind() == ErrorKind::InputRequired => {
                    asked.get_or_insert(e);
                    continue;
                }
                outcome => outcome?,
            };
            bytes += self.measure_part(&value, i, bytes)?;
            results[i] = if value.is_undefined() {
                JValue::Null
            } else {
                value
            };
            done += 1;
            news = true;
            self.pace().await;
        }
        if news {
            self.part_done(done, count, &live, &part);
        }
        match asked {
            Some(asked) => Err(asked),
            None => Ok(results),
        }
    }

    /// The arguments of `call`: an object.
    fn call_args(&mut self, call: &CallSpec) -> Result<serde_json::Map<String, Value>, NodeError> {
        match self.eval_args(&call.args)? {
            Some(Value::Object(map)) => Ok(map),
            other => Err(self.error(
                ErrorKind::Expression,
                format!(
                    "the arguments for {} are not an object but {}",
                    call.describe(),
                    other.as_ref().map_or("nothing", kind_of)
                ),
            )),
        }
    }

    /// [`Execution::call_args`] with `$.item` and `$.index` in the context
    /// (shadowing nodes with those ids, which are put back after).
    fn item_args(
        &mut self,
        call: &CallSpec,
        item: &JValue,
        index: usize,
    ) -> Result<serde_json::Map<String, Value>, NodeError> {
        let ctx = self.context.as_object_mut().expect("context is an object");
        let saved = [
            ctx.insert("item".to_owned(), item.clone()),
            ctx.insert("index".to_owned(), JValue::from(index as f64)),
        ];
        let args = self.call_args(call);
        let ctx = self.context.as_object_mut().expect("context is an object");
        for (key, value) in ["item", "index"].into_iter().zip(saved) {
            match value {
                Some(value) => {
                    ctx.insert(key.to_owned(), value);
                }
                None => {
                    ctx.shift_remove(key);
                }
            }
        }
        args
    }

    /// Starts the `i`th call, `part` of the node (its branch name or item
    /// index): `call` with `arguments`, inside `span`.
    fn start(
        &self,
        call: &CallSpec,
        arguments: serde_json::Map<String, Value>,
        (i, part): (usize, String),
        span: tracing::Span,
    ) -> Result<Started, NodeError> {
        let resilience = call.resilience;
        let node = self.current;
        match call.target {
            Target::Tool { index, name } => {
                let run = self.graph_call(index, name, Value::Object(arguments))?;
                let deadline = resilience
                    .timeout_ms
                    .map(|ms| Instant::now() + Duration::from_millis(ms));
                Ok(Box::pin(
                    async move {
                        let outcome = within(deadline, run).await.unwrap_or_else(|| {
                            let ms = resilience.timeout_ms.unwrap_or_default();
                            Err(NodeError::new(
                                ErrorKind::Downstream(Downstream::TimedOut),
                                Some(node),
                                format!("tool `{name}`: the call's timeoutMs ({ms} ms) ran out"),
                            ))
                        });
                        (i, outcome)
                    }
                    .instrument(span),
                ))
            }
            Target::Server { server, tool } => {
                let call = FanOutCall {
                    clients: std::sync::Arc::clone(&self.clients),
                    interceptor: self.interceptor.clone(),
                    server,
                    tool,
                    caller: self.caller.as_ref().map(|c| c.at(node, None).in_part(part)),
                    node,
                    graph_deadline: self.deadline,
                };
                Ok(Box::pin(
                    async move {
                        let result = call.run(arguments, resilience).await.and_then(|result| {
                            output_of_result(result).map_err(|text| {
                                NodeError::new(
                                    ErrorKind::Downstream(Downstream::ToolError),
                                    Some(node),
                                    format!("`{server}`/`{tool}` returned an error: {text}"),
                                )
                            })
                        });
                        (i, result.map(from_json_opt))
                    }
                    .instrument(span),
                ))
            }
        }
    }
}
