//! The fan-out nodes as generated code builds them: [`Parallel`],
//! [`ForEach`], and the [`CallSpec`] of each of their calls.

use crate::exec::retry::Resilience;
use mcpgraph_expr::parsed::{Args, Expr};

/// Where one call of a fan-out node goes.
#[derive(Debug)]
pub(super) enum Target {
    /// A tool of a downstream server.
    Server {
        server: &'static str,
        tool: &'static str,
    },
    /// A tool of this graph: its index in `Graph::TOOLS`, and its name.
    Tool { index: usize, name: &'static str },
}

/// One call of a `parallel` branch or of a `forEach` node.
#[derive(Debug)]
pub struct CallSpec {
    pub(super) target: Target,
    pub(super) args: Args,
    pub(super) resilience: &'static Resilience,
}

impl CallSpec {
    /// A call of `tool` on the downstream `server`.
    pub fn server(server: &'static str, tool: &'static str, args: Args) -> Self {
        Self {
            target: Target::Server { server, tool },
            args,
            resilience: &Resilience::NONE,
        }
    }

    /// A call of the graph's own tool `name`, the `index`th of
    /// `Graph::TOOLS`.
    pub fn tool(index: usize, name: &'static str, args: Args) -> Self {
        Self {
            target: Target::Tool { index, name },
            args,
            resilience: &Resilience::NONE,
        }
    }

    /// The call with its own `retry` (for a call of a server) and
    /// `timeoutMs` (its limit, retries included).
    pub fn with(self, resilience: &'static Resilience) -> Self {
        Self { resilience, ..self }
    }

    pub(super) fn describe(&self) -> String {
        match self.target {
            Target::Server { server, tool } => format!("`{server}`/`{tool}`"),
            Target::Tool { name, .. } => format!("tool `{name}`"),
        }
    }
}

/// A `parallel` node: named branches, output keyed by name in file order.
#[derive(Debug)]
pub struct Parallel {
    pub(super) branches: Vec<(&'static str, CallSpec)>,
    pub(super) max_concurrency: usize,
    pub(super) timeout_ms: Option<u64>,
}

impl Parallel {
    /// The branches, at most `max_concurrency` at once (`None`: all).
    pub fn new(branches: Vec<(&'static str, CallSpec)>, max_concurrency: Option<usize>) -> Self {
        let max_concurrency = max_concurrency.unwrap_or(branches.len()).max(1);
        Self {
            branches,
            max_concurrency,
            timeout_ms: None,
        }
    }

    /// The node with a `timeoutMs`: its limit, all branches included.
    pub fn timeout_ms(self, ms: u64) -> Self {
        Self {
            timeout_ms: Some(ms),
            ..self
        }
    }
}

/// A `forEach` node: one call per item of `items`, output in item order.
#[derive(Debug)]
pub struct ForEach {
    pub(super) items: Expr,
    pub(super) call: CallSpec,
    pub(super) max_concurrency: usize,
    pub(super) timeout_ms: Option<u64>,
}

impl ForEach {
    /// `call` once per item of `items`, at most `max_concurrency` at once.
    pub fn new(items: Expr, call: CallSpec, max_concurrency: usize) -> Self {
        Self {
            items,
            call,
            max_concurrency: max_concurrency.max(1),
            timeout_ms: None,
        }
    }

    /// The node with a `timeoutMs`: its limit, all items included.
    pub fn timeout_ms(self, ms: u64) -> Self {
        Self {
            timeout_ms: Some(ms),
            ..self
        }
    }
}
