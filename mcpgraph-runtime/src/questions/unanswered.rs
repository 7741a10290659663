//! Why a question got no answer ([`Unanswered`]).

use super::budget::Stop;

/// Why a question got no answer.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub enum Unanswered {
    /// The caller did not declare the capability, or cannot be asked.
    NotDeclared {
        capability: &'static str,
        why: String,
    },
    /// The caller answered with an error, or the request failed.
    Failed(String),
    /// The call is stopped: a limit on its questions (see
    /// [`Budget`](super::Budget)).
    Stopped(Stop),
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotDeclared { capability, why } => write!(
                f,
                "it needed the calling client's `{capability}` capability, which {why}"
            ),
            Self::Failed(why) => write!(f, "the calling client did not answer: {why}"),
            Self::Stopped(stop) => f.write_str(&stop.why),
        }
    }
}
