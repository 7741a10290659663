//! One call of a tool on its worker: what its job takes there, and its run
//! (the execution set up, the graph run until it ends, is cancelled or the
//! server stops).

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::{ErrorKind, NodeError};
use crate::exec::intercept::CallInterceptor;
use crate::exec::{Execution, ExitContent, GraphTools, Watch};
use crate::meta::{ContentMeta, Limits};
use crate::observe::NodeRecord;
use crate::questions::Caller;
use crate::servers::Servers;

/// How a call ended on its worker: its value or error, its execution
/// record and the exit's content.
pub(super) type Finished = (
    Result<Value, NodeError>,
    Option<Vec<NodeRecord>>,
    Option<ExitContent>,
);

/// A call of tool `index`, with what it takes to its worker.
pub(super) struct CallJob {
    pub(super) tools: Arc<dyn GraphTools>,
    pub(super) index: usize,
    /// The call's arguments, checked against the tool's `inputSchema`.
    pub(super) arguments: Value,
    pub(super) limits: Limits,
    pub(super) clients: Arc<dyn Servers>,
    pub(super) watch: Watch,
    pub(super) caller: Option<Caller>,
    pub(super) content: Option<&'static ContentMeta>,
    /// The caller's cancellation.
    pub(super) cancel: CancellationToken,
    /// The server's: a drain ran out of time.
    pub(super) stop: CancellationToken,
    /// What sees the call's downstream calls (graph tests,
    /// `--record-failures`).
    pub(super) interceptor: Option<Arc<dyn CallInterceptor>>,
}

impl CallJob {
    /// Runs the call to its end: its outcome, its records and its content.
    pub(super) async fn run(self) -> Finished {
        let CallJob {
            tools,
            index,
            arguments,
            limits,
            clients,
            watch,
            caller,
            content,
            cancel,
            stop,
            interceptor,
        } = self;
        let mut exec = Execution::new(&arguments, limits, clients);
        exec.watch(watch);
        exec.with_tools(Arc::clone(&tools));
        exec.ask(caller);
        exec.keep_content(content);
        exec.intercept(interceptor);
        let run = tools.run(index, &mut exec);
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
}
