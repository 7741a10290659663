//! What an mcpgraph server keeps secret (an internal crate of mcpgraph,
//! with no semver promise: use it through `mcpgraph`).
//!
//! - [`redact`]: every form of every secret this process holds (a
//!   `${VAR}` value, a client secret, a state key: [`remember`]; a token
//!   while in use: [`remember_token`]) replaced by its name in text bound
//!   for a caller, a log line or an exported span;
//! - [`expand_env`]: `${VAR}` in a downstream server's settings, the
//!   values remembered as secrets;
//! - [`withhold_from_children`]: the variables downstream servers never
//!   inherit;
//! - [`CallerToken`]: a caller's access token, kept with its call and
//!   never printed;
//! - [`StateKeys`]: the sealing of the state a client keeps between rounds
//!   (MCP 2026-07-28's `requestState`), bound to a [`Binding`], with its
//!   keys read from a file or a variable.

mod caller_token;
mod env;
mod redact;
mod seal;
mod withheld;

pub use caller_token::CallerToken;
pub use env::{ExpandError, expand_env, expand_with};
pub use redact::{Remembered, redact, redact_bytes, remember, remember_token};
pub use seal::{Binding, KeysError, MAX_TOKEN_BYTES, StateError, StateKeys};
pub use withheld::{withheld_from_children, withhold_from_children};
