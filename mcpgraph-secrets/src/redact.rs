//! The secrets this process holds, and [`redact`], which puts a secret's
//! name in its place wherever it shows up in text bound for a caller, a
//! log line or an exported span.
//!
//! A secret is a value expanded from `${VAR}` in a downstream server's
//! settings (often a token in a header, URL or argument) or the token of
//! `--auth-token-env`. Such values come back in text we did not write: a
//! connection error quoting a URL, a downstream error message, a crashed
//! server's stderr. They come back encoded as often as not (a URL parser
//! percent-encodes `a b` as `a%20b`, JSON escapes `"`), so each secret is
//! looked for in every form it can take there: as it is, JSON-escaped, and
//! percent-encoded as a URL's path, query, userinfo or form data carries
//! it, or with every byte but letters and digits encoded. Each form is
//! replaced by `${NAME}`.
//!
//! Two kinds of secret are held. A configured secret (a `${VAR}` value,
//! a client secret, a state key: [`remember`]) stays for the life of the
//! process; there are as many as the settings name. A token an
//! authorization server issued ([`remember_token`]) stays while its
//! [`Remembered`] guard lives and until it expires, then [`GRACE`](registry::GRACE) more
//! (a reply in flight may still quote it), and at most [`MAX_TOKENS`](registry::MAX_TOKENS) are
//! held: past that, the oldest token's forms leave first, never a
//! configured secret's. What has left is dropped at the registry's next
//! change (in practice, the token that replaces it).
//!
//! Redaction is one pass over the text: the last [`KEY_LEN`](registry::KEY_LEN) bytes of
//! every form of every secret are the patterns of one Aho-Corasick
//! automaton, and where one is found the few forms ending in it are
//! checked whole, so its cost grows with the text, not with the number of
//! secrets. The automaton is rebuilt by whoever changes the registry,
//! outside the lock readers take: they clone the current snapshot's `Arc`
//! and never wait on a rebuild; keyed by 32 bytes a form, it is small
//! enough that the rebuild is no stall for the call that got a token.

use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

mod forms;
mod registry;
#[cfg(test)]
mod tests;

use registry::Registry;
pub use registry::Remembered;

/// The secrets of this process.
static REGISTRY: Registry = Registry::new();

/// Remembers `value`, known as `name`, as a configured secret, for the
/// life of the process (values shorter than four bytes are not).
pub fn remember(name: &str, value: &str) {
    REGISTRY.remember(name, value, Instant::now());
}

/// Remembers the token `value`, known as `name`, until the guard returned
/// (and all its clones) is dropped or `life` has passed, each [`GRACE`](registry::GRACE)
/// later; at most [`MAX_TOKENS`](registry::MAX_TOKENS) tokens are held, the oldest leaving
/// first.
#[doc(hidden)]
pub fn remember_token(name: &str, value: &str, life: Option<Duration>) -> Remembered {
    REGISTRY.remember_token(name, value, life, Instant::now())
}

/// `text` with every form of every secret replaced by `${NAME}`; borrowed
/// when there is nothing to replace.
pub fn redact(text: &str) -> Cow<'_, str> {
    REGISTRY.redact(text)
}

/// [`redact`] for bytes (a log event, a line of a child's stderr), read as
/// UTF-8 with invalid sequences replaced.
#[doc(hidden)]
pub fn redact_bytes(bytes: Vec<u8>) -> Vec<u8> {
    if !REGISTRY.any.load(Ordering::Acquire) {
        return bytes;
    }
    match redact(&String::from_utf8_lossy(&bytes)) {
        Cow::Borrowed(_) => bytes,
        Cow::Owned(text) => text.into_bytes(),
    }
}
