//! What a sealed `requestState` holds ([`Saved`]): the tape, the questions
//! the last round stopped at ([`Pending`]), and the version of its format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::slot::Slot;

/// The version of what [`Saved`] holds, written into every state as `v`: a
/// state of another version (one sealed before a replica was upgraded) is
/// refused, saying so, rather than misread. Version 1 (no `v`) kept one
/// question and keyed everything by node id alone.
pub(super) const FORMAT: u32 = 2;

/// What a sealed `requestState` holds: the rounds so far.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "SavedWire")]
#[doc(hidden)]
pub struct Saved {
    /// [`FORMAT`].
    pub(super) v: u32,
    /// What each call got, in the order the graph got them (the calls of
    /// a fan-out node in the order they ended).
    pub(crate) tape: Vec<(Slot, Value)>,
    /// The questions the last round stopped at: every call that asked.
    pub(crate) pending: Vec<Pending>,
    /// The questions downstream servers asked in the rounds so far (against
    /// `maxQuestions`, which counts over every round of the call).
    #[serde(default)]
    pub(crate) asked: u64,
}

impl Saved {
    /// What a task's journal replays: `tape`, no question pending.
    pub fn from_tape(tape: Vec<(Slot, Value)>) -> Self {
        Self {
            tape,
            ..Self::default()
        }
    }
}

impl Default for Saved {
    fn default() -> Self {
        Self {
            v: FORMAT,
            tape: Vec::new(),
            pending: Vec::new(),
            asked: 0,
        }
    }
}

/// A state as it reads, before its version is known.
#[derive(Deserialize)]
struct SavedWire {
    #[serde(default)]
    v: u32,
    #[serde(default)]
    tape: Value,
    #[serde(default)]
    pending: Value,
    #[serde(default)]
    asked: u64,
}

/// Why a sealed state does not read as a [`Saved`].
#[derive(Debug)]
enum Unreadable {
    /// It is of another state format than [`FORMAT`].
    OtherFormat(u32),
    /// Its part (`tape`, `questions`) does not read.
    Part(&'static str, serde_json::Error),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::OtherFormat(v) => write!(
                f,
                "it was sealed by another version of this server (state format {v}, this one reads {FORMAT}); \
                 call the tool again without it"
            ),
            Unreadable::Part(what, e) => write!(f, "its {what} does not read: {e}"),
        }
    }
}

impl TryFrom<SavedWire> for Saved {
    type Error = Unreadable;

    fn try_from(wire: SavedWire) -> Result<Self, Unreadable> {
        if wire.v != FORMAT {
            return Err(Unreadable::OtherFormat(wire.v.max(1)));
        }
        let tape = match wire.tape {
            Value::Null => Vec::new(),
            tape => serde_json::from_value(tape).map_err(|e| Unreadable::Part("tape", e))?,
        };
        let pending = match wire.pending {
            Value::Null => Vec::new(),
            pending => {
                serde_json::from_value(pending).map_err(|e| Unreadable::Part("questions", e))?
            }
        };
        Ok(Self {
            v: FORMAT,
            tape,
            pending,
            asked: wire.asked,
        })
    }
}

/// A call waiting for answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Pending {
    #[serde(flatten)]
    pub(crate) slot: Slot,
    /// The try of the call that asked (from 1): its retry resumes as that
    /// try.
    pub(crate) attempt: u32,
    /// The keys of the `inputRequests` the client was sent for it, each
    /// with the key its server asked under.
    pub(crate) keys: Vec<(String, String)>,
    /// The downstream server's own `requestState`, sent back with the
    /// answers.
    pub(crate) state: Option<String>,
}
