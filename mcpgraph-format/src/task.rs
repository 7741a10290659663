//! A tool's `task:` (an extension, FORMAT.md "Tasks"): whether a call of it
//! may run as an MCP task (the `io.modelcontextprotocol/tasks` extension),
//! and whether its first questions come before the task.

/// A tool's `task:`: `allowed` (the default), `required` or `never`, or a
/// map `{mode, askFirst}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskSupport {
    /// `mode`.
    pub mode: TaskMode,
    /// `askFirst`: the call's first round (up to its first questions) runs
    /// as a plain call, its questions asked with `input_required` results;
    /// the call that brings the answers becomes the task.
    pub ask_first: bool,
}

/// Whether a call of a tool runs as an MCP task when its client declared
/// the tasks extension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskMode {
    /// `allowed` (the default): a task for a client that declared the
    /// extension, a plain call for any other.
    #[default]
    Allowed,
    /// `required`: always a task; a client that did not declare the
    /// extension gets error -32021 naming it.
    Required,
    /// `never`: always a plain call.
    Never,
}

impl TaskMode {
    /// The spellings, in the order the docs list them.
    pub const NAMES: [&'static str; 3] = ["allowed", "required", "never"];

    /// The value spelled `text`, if it is one.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "allowed" => Some(Self::Allowed),
            "required" => Some(Self::Required),
            "never" => Some(Self::Never),
            _ => None,
        }
    }
}
