//! Questions for the calling client: what it declared it can answer
//! (elicitation, sampling, roots), and how a question reaches it.
//!
//! A downstream server may ask the client a question while it runs a tool
//! (a server-to-client request in the session era, an `input_required`
//! result in MCP 2026-07-28). The question belongs to the client of the
//! graph call that made the downstream call: [`Caller`] is that client, as
//! one call sees it. The downstream side (`downstream::asking`) declares to
//! the server what the caller declared and hands each question here.
//!
//! Time spent waiting for an answer (a person typing) is not run time:
//! [`WaitClock`] counts it, and the downstream call's `timeoutMs` and the
//! graph's `maxExecutionTimeMs` are extended by it. That time is bounded
//! all the same: a call's downstream servers may ask at most
//! `maxQuestions`, and each question waits at most `maxAnswerWaitMs` (see
//! [`Budget`]).
//!
//! A client of MCP 2026-07-28 is asked in rounds (`rounds`): each call's
//! questions keyed by its [`Slot`], what a round learned sealed as
//! [`Saved`] (`saved`).

mod budget;
mod caller;
mod declared;
mod journal;
mod owner;
mod rounds;
mod saved;
mod slot;
mod unanswered;
mod wait_clock;

pub use budget::{Budget, Stop};
pub use caller::Caller;
pub use declared::Declared;
pub use journal::JournalSink;
pub use owner::Owner;
pub use rounds::Rounds;
pub use saved::Saved;
pub use slot::Slot;
pub use unanswered::Unanswered;
pub use wait_clock::WaitClock;
