//! Lowers the fields of the fan-out nodes: a `parallel` node's `branches`
//! and a `forEach` node's `items` and `call`, each call a `server` (or
//! none: a tool of this graph), a `tool`, `args`, and its own `retry` and
//! `timeoutMs`.

use super::Cx;
use super::fields::Fields;
use crate::diag::codes;
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
                codes::NO_BRANCHES,
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
                self.err(
                    codes::DUPLICATE_BRANCH,
                    key.pos,
                    format!("duplicate branch `{name}`{context}"),
                );
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
                codes::RETRY_ON_GRAPH_TOOL,
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

#[cfg(test)]
mod tests {
    use crate::model::{Call, GraphFile, NodeKind, Resilience, Retry, Sp};
    use crate::test_support::{ENTRY, EXIT, errors, load, with_nodes};

    /// entry → `a` (a `parallel` node: a branch `b` with `branch` lines,
    /// then the node's `extra` lines) → exit, and a `fallback` transform →
    /// exit.
    fn graph(branch: &str, extra: &str) -> String {
        with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: parallel\n        branches:\n          b:\n            server: fs\n            tool: t\n{branch}        next: exit\n{extra}      - id: fallback\n        type: transform\n        transform: {{expr: '$.a.error.kind'}}\n        next: exit\n{EXIT}"
        ))
    }

    /// The branches and the resilience of the graph's node `a`, a
    /// `parallel` node.
    fn parallel(file: &GraphFile) -> (&[(Sp<String>, Call)], &Resilience) {
        let NodeKind::Parallel {
            branches,
            resilience,
            ..
        } = &file.tools[0].nodes[1].kind
        else {
            panic!("not a parallel node");
        };
        (branches, resilience)
    }

    #[test]
    fn node_and_call_keys_are_read() {
        let file = load(&graph(
            "            timeoutMs: 300\n",
            "        retry: {attempts: 3}\n        timeoutMs: 5000\n        onError: fallback\n",
        ));
        let (branches, resilience) = parallel(&file);
        assert_eq!(resilience.timeout_ms.as_ref().map(|t| t.value), Some(5000));
        assert_eq!(
            resilience.on_error.as_ref().map(|t| t.value.as_str()),
            Some("fallback")
        );
        let call = &branches[0].1;
        assert_eq!(
            call.resilience.timeout_ms.as_ref().map(|t| t.value),
            Some(300)
        );
        assert!(call.resilience.retry.is_none());
        // The node's retry is the branch's.
        let retry = call.retry(resilience).map(|r| r.value);
        assert_eq!(
            retry,
            Some(Retry {
                attempts: 3,
                backoff_ms: 100,
                max_backoff_ms: 2000
            })
        );
    }

    #[test]
    fn a_calls_own_retry_wins_and_a_graph_tool_takes_none_of_the_nodes() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: forEach\n        items: {{expr: '[1]'}}\n        call: {{tool: t}}\n        retry: {{attempts: 3}}\n        next: exit\n{EXIT}"
        ));
        let file = load(&src);
        let NodeKind::ForEach {
            call, resilience, ..
        } = &file.tools[0].nodes[1].kind
        else {
            panic!("not a forEach node");
        };
        assert!(
            call.retry(resilience).is_none(),
            "a call of the graph's tool"
        );
        let file = load(&graph(
            "            retry: {attempts: 5}\n",
            "        retry: {attempts: 2}\n        onError: fallback\n",
        ));
        let (branches, resilience) = parallel(&file);
        let attempts = branches[0].1.retry(resilience).map(|r| r.value.attempts);
        assert_eq!(attempts, Some(5));
    }

    #[test]
    fn the_fallback_is_reachable_through_on_error() {
        let unreachable = errors(&graph("", ""));
        assert_eq!(unreachable.len(), 2, "{unreachable:?}");
        assert!(
            unreachable[0].2.contains("not reachable"),
            "{unreachable:?}"
        );
        // Without `onError`, the node's output has its branches only.
        assert_eq!(
            unreachable[1].2,
            "`a.error`: `a` cannot have a field `error`"
        );
        assert_eq!(errors(&graph("", "        onError: fallback\n")), []);
    }

    #[test]
    fn bad_values_and_misplaced_keys_are_errors_at_their_place() {
        let cases = [
            (
                "            retry: {attempts: 0}\n",
                "        onError: fallback\n",
                (22, 31),
                "`retry.attempts` must be a positive integer, found `0`",
            ),
            (
                "",
                "        timeoutMs: 0\n        onError: fallback\n",
                (23, 20),
                "`timeoutMs` must be a positive integer, found `0`",
            ),
            (
                "            onError: fallback\n",
                "        onError: fallback\n",
                (22, 13),
                "unknown key `onError` in branch `b` in node `a`",
            ),
            (
                "",
                "        onError: fallbak\n",
                (23, 18),
                "`onError` names",
            ),
        ];
        for (branch, extra, at, message) in cases {
            let e = errors(&graph(branch, extra));
            assert_eq!(e.len(), 1, "{e:?}");
            assert_eq!((e[0].0, e[0].1), at, "{e:?}");
            assert!(e[0].2.starts_with(message), "{e:?}");
        }
    }

    #[test]
    fn a_retry_on_a_call_of_the_graphs_tool_is_an_error() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: forEach\n        items: {{expr: '[1]'}}\n        call: {{tool: t, retry: {{attempts: 2}}}}\n        next: exit\n{EXIT}"
        ));
        let e = errors(&src);
        assert_eq!(
            e,
            [(
                19,
                32,
                "`retry` on a call of `t`, a tool of this graph in `call` in node `a`".to_owned()
            )]
        );
    }
}
