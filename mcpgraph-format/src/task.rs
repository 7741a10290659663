//! A tool's `task:` (an extension, FORMAT.md "Tasks"): whether a call of it
//! may run as an MCP task (the `io.modelcontextprotocol/tasks` extension).

/// Whether a call of a tool runs as an MCP task when its client declared
/// the tasks extension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskSupport {
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

impl TaskSupport {
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
