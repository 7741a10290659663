//! What the facade's command line (`mcpgraph::cli`) and the crates serving
//! other transports (`mcpgraph-http`) reach in the core: the entry points
//! of serving (the MCP handler with its caps, its seam for who sent a
//! request, its sealing keys, the counters `/metrics` shows), telemetry and the process's streams. Not an API: it changes with the
//! facade, without notice.

pub use crate::caller_token::CallerToken;
pub use crate::expressions::js_text::to_js_string;
pub use crate::one_copy::{OneCopy, one_copy};
pub use crate::questions::{Budget, Declared, Owner, Slot, Stop, Unanswered, WaitClock};
pub use crate::secrets::{
    Remembered, redact, redact_bytes, remember, remember_token, withhold_from_children,
    withheld_from_children,
};
pub use crate::servers::convert;
pub use crate::servers::{
    CALL_SHUTDOWN_LIMIT, CALL_STDIN_GRACE, DownstreamError, SHUTDOWN_LIMIT, effective_specs,
};
pub use crate::serving::FLUSH_GRACE;
pub use crate::serving::handler::{
    CallCaps, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_SESSION, Handler, serve,
    success_result,
};
pub use crate::serving::identity::RequestIdentity;
pub use crate::serving::metrics::{Counters, circuit_open, counters, refused, restart};
pub use crate::serving::state::StateKeys;
pub use crate::serving::stderr_writer::{flush as flush_stderr, write as write_stderr};
pub use crate::serving::stdio::halves as stdio_halves;
pub use crate::serving::telemetry::{Telemetry, init as init_telemetry};
pub use crate::trace_context::TraceContext;
