//! The servers a graph calls: failures and healing of stdio and HTTP
//! downstream servers, redirects, real Python SDK servers, `${VAR}`
//! expansion in a server's definition, and no orphaned processes.
//!
//! One binary, one module per former test binary: `cargo test --test
//! downstream healing::` runs one. `https://` servers are tested in
//! `downstream_tls.rs`, a binary of its own because it sets `SSL_CERT_FILE`
//! for its whole process.

mod children;
// Holds a graph module named like the file, as when it was a test binary.
#[allow(clippy::module_inception)]
mod downstream;
mod downstream_example;
mod downstream_http;
mod env_expansion;
mod eras;
mod fanout;
mod fanout_resilience;
mod hardening_lock;
mod healing;
mod oauth_boundaries;
mod oauth_client;
mod oauth_login;
mod oauth_login_forged;
mod orphans;
mod python_servers;
mod redirects;
mod resilience;
mod tasks;
