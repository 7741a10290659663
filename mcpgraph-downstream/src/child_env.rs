//! The environment a downstream stdio server starts with: not ours, but an
//! allow-list of it, as the official TypeScript and Python SDK clients do
//! (`getDefaultEnvironment`, `get_default_environment`), so that a cloud or
//! API credential in our environment does not reach every server we start.
//!
//! A child gets, in this order (a later one wins):
//! - the variables of [`DEFAULT_INHERITED`] that are set (a value starting
//!   with `()`, a shell function, is left out, as the SDKs do);
//! - the variables its `inheritEnv` names that are set;
//! - its `env` entries, `${VAR}` expanded.
//!
//! A variable withheld with [`withhold_from_children`](mcpgraph_runtime::host::withhold_from_children) (the bearer token
//! `--auth-token-env` names) is never inherited, even when `inheritEnv`
//! names it; an explicit `env` entry still sets it.

use std::ffi::OsString;

/// The SDKs' allow-list (the TypeScript SDK adds `PROGRAMFILES` on Windows).
#[cfg(not(windows))]
pub(crate) const DEFAULT_INHERITED: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// The SDKs' allow-list (the TypeScript SDK adds `PROGRAMFILES` on Windows).
#[cfg(windows)]
pub(crate) const DEFAULT_INHERITED: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "PROGRAMFILES",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
];

/// The variables of ours the server `server` inherits: the allow-list and
/// what `inherit_env` names, each when set, minus the withheld ones.
pub(super) fn inherited(server: &str, inherit_env: &[String]) -> Vec<(String, OsString)> {
    let withheld = mcpgraph_runtime::host::withheld_from_children();
    let names = (DEFAULT_INHERITED.iter().map(|n| (*n, false)))
        .chain(inherit_env.iter().map(|n| (n.as_str(), true)));
    let mut out: Vec<(String, OsString)> = Vec::new();
    for (name, named) in names {
        if out.iter().any(|(n, _)| n == name) {
            continue;
        }
        if withheld.iter().any(|w| w == name) {
            if !named {
                continue;
            }
            tracing::warn!(
                server,
                "`inheritEnv` of `{server}` names `{name}`, which --auth-token-env keeps from downstream servers: not passed"
            );
            continue;
        }
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        if value.as_encoded_bytes().starts_with(b"()") {
            // A shell function: left out, as the SDKs do.
            continue;
        }
        out.push((name.to_owned(), value));
    }
    out
}
