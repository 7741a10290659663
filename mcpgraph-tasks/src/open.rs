//! A store chosen by its URL (`serve --task-store URL`).

use std::sync::Arc;
use std::time::Duration;

use crate::error::OpenError;
use crate::memory::MemoryStore;
use crate::store::TaskStore;
use crate::task::StoreLimits;

/// The longest TTL [`open`] accepts.
pub const MAX_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// The store `url` names, with these bounds:
/// - `memory`: this process only ([`MemoryStore`]);
/// - `redis://HOST:PORT/DB` or `valkey://…` (a user and password may come
///   before the host), and `rediss://` or `valkeys://` for TLS: shared by
///   every replica on it (`RedisStore`, with the `redis` feature; TLS with
///   `tls`). Nothing is connected until first use.
///
/// The error names the bad part; it never holds the URL's password.
pub fn open(url: &str, limits: StoreLimits) -> Result<Arc<dyn TaskStore>, OpenError> {
    if limits.max_live == 0 {
        return Err(OpenError::BadLimits(
            "the cap of running tasks is 0: no task could run".to_owned(),
        ));
    }
    if limits.ttl.is_zero() {
        return Err(OpenError::BadLimits(
            "the TTL is 0: every task would expire at once".to_owned(),
        ));
    }
    if limits.ttl > MAX_TTL {
        return Err(OpenError::BadLimits(format!(
            "the TTL is over {} days",
            MAX_TTL.as_secs() / 86_400
        )));
    }
    if url == "memory" {
        return Ok(Arc::new(MemoryStore::new(limits)));
    }
    let scheme = url.split_once("://").map(|(s, _)| s);
    match scheme {
        Some(scheme @ ("redis" | "rediss" | "valkey" | "valkeys")) => redis(scheme, url, limits),
        Some(scheme) => Err(OpenError::UnknownScheme {
            scheme: format!("{}://", word(scheme)),
        }),
        // A word such as `memroy` is shown, to be corrected; other text
        // (which may be a password) is not.
        None => Err(OpenError::UnknownScheme {
            scheme: word(url).to_owned(),
        }),
    }
}

/// `text` if it is a short word, else `…`.
fn word(text: &str) -> &str {
    let is_word = text.len() <= 20
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'+');
    if is_word { text } else { "…" }
}

#[cfg(feature = "redis")]
fn redis(_: &str, url: &str, limits: StoreLimits) -> Result<Arc<dyn TaskStore>, OpenError> {
    Ok(Arc::new(crate::RedisStore::new(url, limits)?))
}

#[cfg(not(feature = "redis"))]
fn redis(scheme: &str, _: &str, _: StoreLimits) -> Result<Arc<dyn TaskStore>, OpenError> {
    Err(OpenError::NotBuilt {
        scheme: scheme.to_owned(),
        feature: "redis",
    })
}
