//! The graph server as a client sees it: the MCP protocol over stdio and
//! HTTP, the HTTP front door with its caps and auth, the official SDK
//! clients, concurrency, fairness, cancellation, load, stateless replicas,
//! shutdown and stderr.
//!
//! One binary, one module per former test binary: `cargo test --test
//! serving load::` runs one.

mod busy_thread;
mod cancel;
mod concurrency;
mod content;
mod drain;
mod elicit;
mod fairness;
mod fanout_rounds;
mod front_door_bounds;
mod front_door_caps;
mod hardening;
mod http_auth;
mod http_front_door;
mod keep_alive;
mod load;
mod modern_era;
mod oauth;
mod oidc_provider;
mod peer_limits;
mod protocol;
mod question_limits;
mod questions;
mod replicas;
mod resume;
mod rounds;
mod sdk_clients;
mod secrets;
mod session_owner;
mod session_tasks;
mod shutdown;
mod stderr_pressure;
mod task_exchange;
mod task_takeover;
mod tasks;
mod tools_list;
