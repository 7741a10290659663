//! What can go wrong: a store that refuses or cannot answer, a URL that
//! names no store.

use std::fmt;

/// Why a store operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// `max_live` tasks are running already.
    Full {
        /// The cap.
        max_live: usize,
    },
    /// The store did not answer (a Redis outage, a timeout). The text names
    /// the cause; it holds no value and no password.
    Unavailable(String),
    /// The store holds something this crate cannot read.
    Corrupt(String),
    /// The task does not exist any more (it expired), or has ended, so a
    /// runner cannot ask, journal or wait on it.
    Gone,
    /// The runner asked question `key` a second time (keys are unique for
    /// a task's lifetime).
    AlreadyAsked {
        /// The key.
        key: String,
    },
    /// The task's journal is full.
    JournalFull {
        /// The limit reached, in words (entries or bytes).
        limit: String,
    },
    /// The caller broke the contract (for example `finish` with a status
    /// that is not terminal).
    Invalid(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Full { max_live } => {
                write!(f, "the task store is full: {max_live} tasks are running")
            }
            StoreError::Unavailable(why) => write!(f, "the task store is unavailable: {why}"),
            StoreError::Corrupt(why) => write!(f, "the task store holds an unreadable task: {why}"),
            StoreError::Gone => f.write_str("the task has expired or ended"),
            StoreError::AlreadyAsked { key } => {
                write!(f, "question `{key}` was already asked in this task")
            }
            StoreError::JournalFull { limit } => {
                write!(f, "the task's journal is full ({limit})")
            }
            StoreError::Invalid(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for StoreError {}

/// Why [`open`](crate::open) refused a store URL. No variant holds the
/// URL's password.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// The URL names no store this crate knows.
    UnknownScheme {
        /// What came before `://`, or the text if it is a short word
        /// (`…` otherwise).
        scheme: String,
    },
    /// The store is known but left out of this build.
    NotBuilt {
        /// The scheme.
        scheme: String,
        /// The cargo feature that adds it.
        feature: &'static str,
    },
    /// The URL does not parse.
    BadUrl {
        /// The URL with its password replaced by `***`.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The limits cannot work (a zero TTL or cap).
    BadLimits(String),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::UnknownScheme { scheme } => write!(
                f,
                "unknown task store `{scheme}` (expected `memory`, `redis://`, `rediss://`, \
                 `valkey://` or `valkeys://`)"
            ),
            OpenError::NotBuilt { scheme, feature } => write!(
                f,
                "task store `{scheme}://` is not in this build (it needs the `{feature}` feature)"
            ),
            OpenError::BadUrl { url, reason } => {
                write!(f, "task store URL `{url}` does not parse: {reason}")
            }
            OpenError::BadLimits(why) => write!(f, "task store limits: {why}"),
        }
    }
}

impl std::error::Error for OpenError {}
