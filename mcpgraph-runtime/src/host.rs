//! What the facade's command line (`mcpgraph::cli`) reaches in the core:
//! the entry points of serving, graph tests, telemetry and the process's
//! streams. Not an API: it changes with the facade, without notice.

pub use crate::downstream::{
    AuthAction, ServerSpec, allow_interactive_login, effective_specs, parse_override, reaper,
    run_auth, stderr, withhold_from_children,
};
pub use crate::expressions::js_text::to_js_string;
pub use crate::graph_tests::{FailureRecorder, Tape, TestOptions, test_command};
pub use crate::one_copy::one_copy;
pub use crate::secrets::{redact, remember};
pub use crate::serving::FLUSH_GRACE;
pub use crate::serving::handler::{
    CallCaps, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_SESSION, Handler, serve,
    success_result,
};
#[cfg(feature = "http-server")]
pub use crate::serving::http;
pub use crate::serving::state::StateKeys;
pub use crate::serving::stderr_writer::flush as flush_stderr;
pub use crate::serving::stdio::halves as stdio_halves;
pub use crate::serving::telemetry::{Telemetry, init as init_telemetry};
/// The signing algorithms `--oauth-algorithms` names.
#[cfg(feature = "http-server")]
pub use jsonwebtoken::Algorithm as JwtAlgorithm;
