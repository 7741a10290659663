//! What the facade's command line (`mcpgraph::cli`), the crate serving
//! other transports (`mcpgraph-http`) and the one running calls as MCP
//! tasks (`mcpgraph-tasks`) reach in the core: the entry points of serving
//! (the MCP handler with its caps, its seams for who sent a request and
//! for tasks, its sealing keys, the counters `/metrics` shows), a task's
//! rounds and journal, telemetry and the process's streams. Not an API: it
//! changes with the facade, without notice.

pub use crate::one_copy::{OneCopy, one_copy};
pub use crate::questions::{
    Budget, Declared, JournalSink, Owner, Slot, Stop, Unanswered, WaitClock,
};
pub use crate::servers::convert;
pub use crate::servers::{
    CALL_SHUTDOWN_LIMIT, CALL_STDIN_GRACE, DownstreamError, SHUTDOWN_LIMIT, effective_specs,
};
pub use crate::serving::FLUSH_GRACE;
pub use crate::serving::caps::{
    CallCaps, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_SESSION,
};
pub use crate::serving::handler::Handler;
pub use crate::serving::identity::RequestIdentity;
pub use crate::serving::result::success_result;
pub use crate::serving::session::serve;
pub use crate::serving::stdio::halves as stdio_halves;
pub use crate::serving::tasks::{RoundEnd, TaskCall, TaskEngine, TaskHost};
pub use mcpgraph_expr::js_text::to_js_string;
pub use mcpgraph_secrets::CallerToken;
pub use mcpgraph_secrets::StateKeys;
pub use mcpgraph_secrets::{
    Remembered, redact, redact_bytes, remember, remember_token, withheld_from_children,
    withhold_from_children,
};
pub use mcpgraph_telemetry::counters::{Counters, circuit_open, counters, refused, restart};
pub use mcpgraph_telemetry::stderr::{flush as flush_stderr, write as write_stderr};
pub use mcpgraph_telemetry::{Telemetry, TraceContext, init as init_telemetry};
