//! Diagnostics: what went wrong in a graph file, where, and what to do.
//!
//! lowering and `validate` push every problem they find into one
//! [`Diagnostics`]; nothing stops at the first error. Each names its check
//! by a [`Code`] of [`codes`], which [`explain`] explains. This module only
//! collects and renders (rustc style, or as JSON); it decides nothing about
//! the graph format.

pub mod codes;
pub mod explain;

use std::fmt;

pub use codes::Code;

use crate::model::Pos;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The file is rejected.
    Error,
    /// The file is accepted; the user should still look.
    Warning,
    /// A fact worth knowing (what could not be checked, say). The macro
    /// and the builder do not show notes; `mcpgraph check` does.
    Note,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem in a graph file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Which check it is (see [`codes`]; `mcpgraph explain CODE`).
    pub code: Code,
    /// Where it is. A `line` of 0 means the file as a whole (no snippet is
    /// shown), e.g. when it cannot be read.
    pub pos: Pos,
    /// What is wrong.
    pub message: String,
    /// What to do about it, if we can tell.
    pub help: Option<String>,
    /// Further facts, shown as `= note: …` lines.
    pub notes: Vec<String>,
    /// The name of the check that may be allowed (its code, e.g.
    /// `reference_before_run`); `None` for problems that are always errors.
    pub lint: Option<&'static str>,
}

/// The lint of [`codes::REFERENCE_BEFORE_RUN`].
pub const REFERENCE_BEFORE_RUN: &str = codes::REFERENCE_BEFORE_RUN.as_str();
/// The lint of [`codes::UNKNOWN_FUNCTION`].
pub const UNKNOWN_FUNCTION: &str = codes::UNKNOWN_FUNCTION.as_str();
/// The lint of [`codes::FUNCTION_SIGNATURE`].
pub const FUNCTION_SIGNATURE: &str = codes::FUNCTION_SIGNATURE.as_str();
/// The lint of [`codes::OPERAND_TYPE`].
pub const OPERAND_TYPE: &str = codes::OPERAND_TYPE.as_str();
/// The lint of [`codes::LITERAL_LOOKS_LIKE_EXPRESSION`].
pub const LITERAL_LOOKS_LIKE_EXPRESSION: &str = codes::LITERAL_LOOKS_LIKE_EXPRESSION.as_str();
/// The lint of [`codes::UNKNOWN_INPUT_FIELD`].
pub const UNKNOWN_INPUT_FIELD: &str = codes::UNKNOWN_INPUT_FIELD.as_str();
/// The lint of [`codes::UNUSED_SERVER`].
pub const UNUSED_SERVER: &str = codes::UNUSED_SERVER.as_str();

/// The lints of the checks of the graph file itself (the lock's are
/// `lock::check::LINTS`).
pub const LINTS: [&str; 7] = [
    REFERENCE_BEFORE_RUN,
    UNKNOWN_FUNCTION,
    FUNCTION_SIGNATURE,
    OPERAND_TYPE,
    LITERAL_LOOKS_LIKE_EXPRESSION,
    UNKNOWN_INPUT_FIELD,
    UNUSED_SERVER,
];

impl Diagnostic {
    /// Sets the help line.
    pub fn help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a note line.
    pub fn note(&mut self, note: impl Into<String>) -> &mut Self {
        self.notes.push(note.into());
        self
    }

    /// Makes the check a lint named by its code: `allow(...)` drops the
    /// warning, `deny(...)` makes it an error.
    pub(crate) fn as_lint(&mut self) -> &mut Self {
        self.lint = Some(self.code.as_str());
        self
    }
}

/// Every diagnostic for one file, with the file's text so that they can be
/// rendered with the offending line.
///
/// ```
/// let src = "version: \"1.0\"\nserver: {name: s, version: \"1\"}\ntoolz: []\n";
/// let diags = mcpgraph_codegen::load_str(src, "graph.yaml").unwrap_err();
/// assert_eq!(diags.error_count(), 1);
/// assert_eq!(
///     diags.to_string(),
///     "error[unknown_key]: unknown key `toolz` at the top level
///  --> graph.yaml:3:1
///   |
/// 3 | toolz: []
///   | ^
///   = help: did you mean `tools`?
/// "
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics {
    /// The file as it should appear in messages.
    pub path: String,
    /// The file's text.
    pub source: String,
    /// The diagnostics, in file order once loading is done.
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// An empty set for the file `path` with text `source`.
    pub fn new(path: &str, source: &str) -> Self {
        Self {
            path: path.to_owned(),
            source: source.to_owned(),
            items: Vec::new(),
        }
    }

    /// A single error about the file as a whole (e.g. it cannot be read).
    pub fn io_error(path: &str, code: Code, message: &str) -> Self {
        let mut d = Self::new(path, "");
        d.push(Severity::Error, code, Pos::default(), message);
        d
    }

    /// Adds a diagnostic and returns it, to add help or notes.
    pub fn push(
        &mut self,
        severity: Severity,
        code: Code,
        pos: Pos,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        self.items.push(Diagnostic {
            severity,
            code,
            pos,
            message: message.into(),
            help: None,
            notes: Vec::new(),
            lint: None,
        });
        let last = self.items.len() - 1;
        &mut self.items[last]
    }

    /// Adds an error.
    pub fn error(&mut self, code: Code, pos: Pos, message: impl Into<String>) -> &mut Diagnostic {
        self.push(Severity::Error, code, pos, message)
    }

    /// Adds a warning.
    pub fn warning(&mut self, code: Code, pos: Pos, message: impl Into<String>) -> &mut Diagnostic {
        self.push(Severity::Warning, code, pos, message)
    }

    /// Adds a note.
    pub fn note(&mut self, code: Code, pos: Pos, message: impl Into<String>) -> &mut Diagnostic {
        self.push(Severity::Note, code, pos, message)
    }

    /// How many errors there are.
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// How many warnings there are.
    pub fn warning_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count()
    }

    /// Whether there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Puts the items in file order (stable: equal positions keep the order
    /// they were found in) and drops exact repeats.
    pub fn sort(&mut self) {
        self.items
            .sort_by_key(|d| (d.pos.line, d.pos.column, d.pos.offset));
        self.items.dedup();
    }

    /// The items as a JSON array of objects with `severity`, `code`, `file`,
    /// `line`, `column`, `message`, `help` (null when there is none), `notes`
    /// and `lint` (null for problems that cannot be allowed), for tools.
    pub fn to_json(&self) -> serde_json::Value {
        self.items
            .iter()
            .map(|d| {
                serde_json::json!({
                    "severity": d.severity.as_str(),
                    "code": d.code.as_str(),
                    "file": self.path,
                    "line": d.pos.line,
                    "column": d.pos.column,
                    "message": d.message,
                    "help": d.help,
                    "notes": d.notes,
                    "lint": d.lint,
                })
            })
            .collect()
    }

    /// Renders one item rustc style.
    pub fn render(&self, d: &Diagnostic) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_item(&mut out, d);
        out
    }

    /// Renders one item without its `error: ` / `warning: ` prefix, for a
    /// front door that prints the severity itself: rustc does for a
    /// `compile_error!`, whose first line is then the message and the rest
    /// the `--> file:line:column`, the source line and the caret.
    pub fn render_body(&self, d: &Diagnostic) -> String {
        let mut out = d.message.clone();
        out.push('\n');
        let _ = self.write_location(&mut out, d);
        out.truncate(out.trim_end().len());
        out
    }

    fn write_item(&self, f: &mut impl fmt::Write, d: &Diagnostic) -> fmt::Result {
        writeln!(f, "{}[{}]: {}", d.severity, d.code, d.message)?;
        self.write_location(f, d)
    }

    fn write_location(&self, f: &mut impl fmt::Write, d: &Diagnostic) -> fmt::Result {
        if d.pos.line == 0 {
            writeln!(f, "  --> {}", self.path)?;
            let pad = "  ";
            for note in &d.notes {
                writeln!(f, "{pad} = note: {note}")?;
            }
            if let Some(help) = &d.help {
                writeln!(f, "{pad} = help: {help}")?;
            }
            return Ok(());
        }
        let line_no = d.pos.line.to_string();
        let pad = " ".repeat(line_no.len());
        writeln!(f, "{pad}--> {}:{}:{}", self.path, d.pos.line, d.pos.column)?;
        let line = self
            .source
            .split('\n')
            .nth(d.pos.line as usize - 1)
            .map(|l| l.strip_suffix('\r').unwrap_or(l));
        if let Some(line) = line {
            writeln!(f, "{pad} |")?;
            writeln!(f, "{line_no} | {line}")?;
            // Tabs are kept in the caret line so that it lines up with the
            // line above in any terminal.
            let lead: String = line
                .chars()
                .take(d.pos.column.saturating_sub(1) as usize)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            writeln!(f, "{pad} | {lead}^")?;
        }
        for note in &d.notes {
            writeln!(f, "{pad} = note: {note}")?;
        }
        if let Some(help) = &d.help {
            writeln!(f, "{pad} = help: {help}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Diagnostics {
    /// All items, in the order they are held (file order after loading),
    /// separated by blank lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.items.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            self.write_item(f, d)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, column: u32) -> Pos {
        Pos {
            line,
            column,
            offset: 0,
        }
    }

    #[test]
    fn renders_rustc_style() {
        let src = "a: 1\n".repeat(11) + "        type: \"tranform\"\n";
        let mut d = Diagnostics::new("path/to/graph.yaml", &src);
        d.error(
            codes::UNKNOWN_NODE_TYPE,
            pos(12, 15),
            "unknown node type `tranform` (expected one of entry, exit, mcp, transform, switch)",
        )
        .help("did you mean `transform`?");
        assert_eq!(
            d.to_string(),
            "error[unknown_node_type]: unknown node type `tranform` (expected one of entry, exit, mcp, transform, switch)
  --> path/to/graph.yaml:12:15
   |
12 |         type: \"tranform\"
   |               ^
   = help: did you mean `transform`?
"
        );
        assert_eq!(d.error_count(), 1);
    }

    #[test]
    fn sorts_counts_and_json() {
        let mut d = Diagnostics::new("g.yaml", "x\ny\n");
        d.warning(codes::UNUSED_SERVER, pos(2, 1), "second");
        d.error(codes::UNKNOWN_NODE, pos(1, 1), "first")
            .note("a note");
        d.sort();
        assert_eq!(d.items[0].message, "first");
        assert_eq!(d.error_count(), 1);
        assert_eq!(d.warning_count(), 1);
        let text = d.to_string();
        assert!(text.starts_with(
            "error[unknown_node]: first\n --> g.yaml:1:1\n  |\n1 | x\n  | ^\n  = note: a note\n\nwarning[unused_server]: second"
        ));
        let json = d.to_json();
        assert_eq!(json[1]["severity"], "warning");
        assert_eq!(json[0]["line"], 1);
        assert_eq!(json[0]["help"], serde_json::Value::Null);
        assert_eq!(json[0]["code"], "unknown_node");
        assert_eq!(json[1]["code"], "unused_server");
    }

    #[test]
    fn whole_file_errors_have_no_snippet() {
        let d = Diagnostics::io_error(
            "g.yaml",
            codes::FILE_UNREADABLE,
            "cannot read `/abs/g.yaml`: not found",
        );
        assert_eq!(
            d.to_string(),
            "error[file_unreadable]: cannot read `/abs/g.yaml`: not found\n  --> g.yaml\n"
        );
    }
}
