//! Lowers the fields of the fan-out nodes: a `parallel` node's `branches`
//! and a `forEach` node's `items` and `call`, each call a `server` (or
//! none: a tool of this graph), a `tool`, `args`, and its own `retry` and
//! `timeoutMs`.

use super::Cx;
use super::fields::Fields;
use crate::model::{Arg, Call, NodeKind, Sp};
use crate::yaml::{self, Value};

/// The default `maxConcurrency` of a `forEach` node.
pub(crate) const FOR_EACH_CONCURRENCY: u64 = 4;

/// The fields of a branch or of a `call`.
const CALL_FIELDS: &[&str] = &["server", "tool", "args", "retry", "timeoutMs"];

impl Cx<'_, '_> {
    /// The fields of a `parallel` node.
    pub(super) fn parallel(
        &mut self,
        f: &Fields<'_>,
        context: &str,
        next: Option<Sp<String>>,
    ) -> Option<NodeKind> {
        let max_concurrency = self.max_concurrency(f);
        let branches = match f.get("branches") {
            Some(b) => self.branches(b, context),
            None => {
                self.missing(f, "branches", context);
                None
            }
        };
        let resilience = self.resilience(f, context);
        Some(NodeKind::Parallel {
            branches: branches?,
            max_concurrency,
            next: next?,
            resilience,
        })
    }

    /// The fields of a `forEach` node.
    pub(super) fn for_each(
        &mut self,
        f: &Fields<'_>,
        context: &str,
        next: Option<Sp<String>>,
    ) -> Option<NodeKind> {
        let max_concurrency = self.max_concurrency(f);
        let items = match f.get("items") {
            Some(t) => self
                .fields(t, "`items`", &["expr"], context)
                .and_then(|tf| match tf.get("expr") {
                    Some(e) => self.expr(e, "`items.expr`"),
                    None => {
                        self.missing(&tf, "expr", &format!(" in `items`{context}"));
                        None
                    }
                }),
            None => {
                self.missing(f, "items", context);
                None
            }
        };
        let call = match f.get("call") {
            Some(c) => self.call(c, &format!(" in `call`{context}")),
            None => {
                self.missing(f, "call", context);
                None
            }
        };
        let resilience = self.resilience(f, context);
        Some(NodeKind::ForEach {
            items: items?,
            call: call?,
            max_concurrency: max_concurrency.unwrap_or(FOR_EACH_CONCURRENCY),
            next: next?,
            resilience,
        })
    }

    /// `maxConcurrency`, if given: a positive integer.
    fn max_concurrency(&mut self, f: &Fields<'_>) -> Option<u64> {
        f.get("maxConcurrency")
            .and_then(|n| self.positive_int(n, "`maxConcurrency`"))
    }

    /// A `parallel` node's `branches`: a mapping of branch names to calls,
    /// at least one.
    fn branches(&mut self, node: &yaml::Node, context: &str) -> Option<Vec<(Sp<String>, Call)>> {
        let Value::Map(entries) = &node.value else {
            self.wrong_type(node, "`branches`", "a mapping");
            return None;
        };
        if entries.is_empty() {
            self.err(
                node.pos,
                format!("`branches` must name at least one branch{context}"),
            );
            return None;
        }
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            let name = key.key_text();
            if out
                .iter()
                .any(|(n, _): &(Sp<String>, Call)| n.value == name)
            {
                self.err(key.pos, format!("duplicate branch `{name}`{context}"));
                ok = false;
                continue;
            }
            match self.call(value, &format!(" in branch `{name}`{context}")) {
                Some(call) => out.push((Sp::new(name, key.pos), call)),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// One call: `{ server?, tool, args?, retry?, timeoutMs? }`. A `retry`
    /// needs a `server`: a tool of this graph is retried by its own nodes.
    fn call(&mut self, node: &yaml::Node, context: &str) -> Option<Call> {
        let f = self.fields(node, "a call", CALL_FIELDS, context)?;
        let server = self.optional_string(&f, "server");
        let tool = self.required_string(&f, "tool", context);
        let args = match f.get("args") {
            Some(n) => self.top_args(n),
            None => Arg::Object(Vec::new()),
        };
        let resilience = self.resilience(&f, context);
        if let (None, Some(retry), Some(tool)) = (&server, &resilience.retry, &tool) {
            self.err(
                retry.pos,
                format!(
                    "`retry` on a call of `{}`, a tool of this graph{context}",
                    tool.value
                ),
            )
            .help("a graph's tool is not retried whole: put `retry` on its `mcp` nodes");
            return None;
        }
        Some(Call {
            server,
            tool: tool?,
            args,
            args_pos: f.key_pos("args").unwrap_or(f.pos),
            resilience,
        })
    }
}
