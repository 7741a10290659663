//! The environment variables of this process that the downstream servers
//! it starts never inherit.

use std::sync::Mutex;

/// Variables of ours that downstream servers never inherit: secrets of the
/// graph server itself, such as the bearer token `--auth-token-env` names.
static WITHHELD: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Keeps the environment variable `var` from the downstream servers
/// started from now on, even those whose `inheritEnv` names it (an
/// explicit `env` entry still sets it).
#[doc(hidden)]
pub fn withhold_from_children(var: &str) {
    let mut withheld = WITHHELD.lock().unwrap_or_else(|e| e.into_inner());
    if !withheld.iter().any(|v| v == var) {
        withheld.push(var.to_owned());
    }
}

/// The variables [`withhold_from_children`] names, locked while the guard
/// lives (the downstream client manager reads them when it starts a child).
#[doc(hidden)]
pub fn withheld_from_children() -> std::sync::MutexGuard<'static, Vec<String>> {
    WITHHELD.lock().unwrap_or_else(|e| e.into_inner())
}
