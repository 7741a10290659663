//! Lowers a node's `retry`, `timeoutMs` and `onError` (the keys a node
//! type that calls a tool lists in `node::NODE_FIELDS`). Bad values are
//! reported where they are written, and left out.

use super::Cx;
use super::fields::{Fields, describe};
use crate::diag::codes;
use crate::model::{Resilience, Retry, Sp};
use crate::yaml::{self, Value};

/// The most tries a `retry` may ask for.
const MAX_ATTEMPTS: u64 = 100;

impl Cx<'_, '_> {
    /// The `retry`, `timeoutMs` and `onError` of a node (`context` names it
    /// in messages).
    pub(super) fn resilience(&mut self, f: &Fields<'_>, context: &str) -> Resilience {
        let retry = f.get("retry").and_then(|n| self.retry(n, context));
        let timeout_ms = f.get("timeoutMs").and_then(|n| {
            self.positive_int(n, "`timeoutMs`")
                .map(|ms| Sp::new(ms, n.pos))
        });
        let on_error = self.optional_string(f, "onError");
        if let Some(on_error) = &on_error
            && on_error.value.is_empty()
        {
            self.err(
                codes::EMPTY_NAME,
                on_error.pos,
                format!("`onError` must name a node{context}"),
            );
        }
        Resilience {
            retry,
            timeout_ms,
            on_error,
        }
    }

    /// `retry: { attempts, backoffMs, maxBackoffMs }`.
    fn retry(&mut self, node: &yaml::Node, context: &str) -> Option<Sp<Retry>> {
        let keys = ["attempts", "backoffMs", "maxBackoffMs"];
        let f = self.fields(node, "`retry`", &keys, context)?;
        let attempts = match f.get("attempts") {
            Some(n) => match self.positive_int(n, "`retry.attempts`") {
                Some(a) if a > MAX_ATTEMPTS => {
                    self.err(
                        codes::LIMIT_TOO_LARGE,
                        n.pos,
                        format!("`retry.attempts` is at most {MAX_ATTEMPTS}, found `{a}`"),
                    );
                    None
                }
                other => other,
            },
            None => {
                self.missing(&f, "attempts", &format!(" in `retry`{context}"));
                None
            }
        };
        let backoff = self.millis(&f, "backoffMs", Retry::DEFAULT_BACKOFF_MS);
        let max_backoff = self.millis(&f, "maxBackoffMs", Retry::DEFAULT_MAX_BACKOFF_MS);
        let (attempts, backoff_ms, max_backoff_ms) = (attempts?, backoff?, max_backoff?);
        if max_backoff_ms < backoff_ms {
            let pos = f.key_pos("maxBackoffMs").or(f.key_pos("backoffMs"));
            self.err(
                codes::INVERTED_RANGE, pos.unwrap_or(f.pos),
                format!(
                    "`retry.maxBackoffMs` ({max_backoff_ms}) is less than `retry.backoffMs` ({backoff_ms}){context}"
                ),
            )
            .help("the longest wait must be at least the first one");
            return None;
        }
        let retry = Retry {
            attempts: u32::try_from(attempts).ok()?,
            backoff_ms,
            max_backoff_ms,
        };
        Some(Sp::new(retry, node.pos))
    }

    /// A wait in milliseconds (0 or more) under `key`, or its default.
    fn millis(&mut self, f: &Fields<'_>, key: &str, default: u64) -> Option<u64> {
        let Some(n) = f.get(key) else {
            return Some(default);
        };
        match &n.value {
            Value::Number(v) if v.as_u64().is_some() => v.as_u64(),
            _ => {
                self.err(
                    codes::INVALID_NUMBER, n.pos,
                    format!(
                        "`retry.{key}` must be a whole number of milliseconds (0 or more), found {}",
                        describe(n)
                    ),
                );
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{NodeKind, Retry};
    use crate::test_support::{ENTRY, EXIT, errors, load, with_nodes};

    /// entry → `a` (an `mcp` node with `extra` lines) → exit, and a
    /// `fallback` transform → exit.
    fn graph(extra: &str) -> String {
        with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: mcp\n        server: fs\n        tool: t\n        next: exit\n{extra}      - id: fallback\n        type: transform\n        transform: {{expr: '$.a.error.kind'}}\n        next: exit\n{EXIT}"
        ))
    }

    #[test]
    fn keys_are_read_with_defaults() {
        let file = load(&graph(
            "        retry: {attempts: 3}\n        timeoutMs: 5000\n        onError: fallback\n",
        ));
        let NodeKind::Mcp { resilience, .. } = &file.tools[0].nodes[1].kind else {
            panic!("not an mcp node");
        };
        let retry = resilience.retry.as_ref().expect("retry").value;
        assert_eq!(
            retry,
            Retry {
                attempts: 3,
                backoff_ms: 100,
                max_backoff_ms: 2000
            }
        );
        assert_eq!(resilience.timeout_ms.as_ref().map(|t| t.value), Some(5000));
        assert_eq!(
            resilience.on_error.as_ref().map(|t| t.value.as_str()),
            Some("fallback")
        );
    }

    #[test]
    fn the_fallback_is_reachable_through_on_error() {
        // Without `onError`, `fallback` is unreachable.
        let unreachable = errors(&graph(""));
        assert_eq!(unreachable.len(), 1, "{unreachable:?}");
        assert!(
            unreachable[0].2.contains("not reachable"),
            "{unreachable:?}"
        );
        assert_eq!(errors(&graph("        onError: fallback\n")), []);
    }

    #[test]
    fn an_unknown_on_error_target_is_an_error_at_its_place() {
        let e = errors(&graph("        onError: fallbak\n"));
        assert_eq!(e.len(), 1, "{e:?}");
        let (line, column, message) = &e[0];
        assert_eq!((*line, *column), (21, 18), "{message}");
        assert!(message.contains("`onError` names"), "{message}");
        assert!(message.contains("fallbak"), "{message}");
    }

    #[test]
    fn bad_retry_values_are_errors_at_their_place() {
        let cases = [
            (
                "        retry: {attempts: 0}\n",
                (21, 27),
                "`retry.attempts` must be a positive integer, found `0`",
            ),
            (
                "        retry: {attempts: 1000}\n",
                (21, 27),
                "`retry.attempts` is at most 100, found `1000`",
            ),
            (
                "        retry: {backoffMs: 10}\n",
                (21, 16),
                "missing required field `attempts` in `retry` in node `a`",
            ),
            (
                "        retry: {attempts: 2, backoffMs: -5}\n",
                (21, 41),
                "`retry.backoffMs` must be a whole number of milliseconds (0 or more), found `-5`",
            ),
            (
                "        retry: {attempts: 2, backoffMs: 500, maxBackoffMs: 100}\n",
                (21, 46),
                "`retry.maxBackoffMs` (100) is less than `retry.backoffMs` (500) in node `a`",
            ),
            (
                "        retry: {attempts: 2, jitter: true}\n",
                (21, 30),
                "unknown key `jitter` in node `a`",
            ),
            (
                "        timeoutMs: 0\n",
                (21, 20),
                "`timeoutMs` must be a positive integer, found `0`",
            ),
        ];
        for (extra, at, message) in cases {
            let e = errors(&graph(&format!("{extra}        onError: fallback\n")));
            assert_eq!(e, [(at.0, at.1, message.to_owned())], "{extra}");
        }
    }

    #[test]
    fn only_nodes_that_call_take_the_keys() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: transform\n        transform: {{expr: '1'}}\n        retry: {{attempts: 2}}\n        next: exit\n{EXIT}"
        ));
        let e = errors(&src);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(
            e[0].2,
            "`retry` is not a field of a `transform` node in node `a`"
        );
    }
}
