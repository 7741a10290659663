//! The catalogue of codes: for each [`Code`], what its check means, a file
//! that fails it and the fix, for `mcpgraph explain CODE`, an authoring
//! agent and docs/DIAGNOSTICS.md (generated from it).
//!
//! It holds text only; the checks are the sites that push the codes. Its
//! tests check every example through [`generate_file`](crate::generate_file)
//! as `mcpgraph check` does, so an example that stops failing is caught.

mod catalogue;

use std::fmt;

use super::Code;

/// What a check means, a graph that fails it, and the fix.
#[derive(Debug)]
pub struct Explanation {
    /// The code.
    pub code: Code,
    /// What the check finds, in a line.
    pub title: &'static str,
    /// What the check means and why it is made.
    pub meaning: &'static str,
    /// A graph file that fails with the code (with [`Beside::Tests`], the
    /// graph whose test file fails).
    pub example: &'static str,
    /// What is checked with the example.
    pub beside: Beside,
    /// What to do, in a sentence.
    pub fix: &'static str,
    /// The failing file corrected (the graph, or with [`Beside::Tests`] the
    /// test file), when the fix is a change to it.
    pub fixed: Option<&'static str>,
}

/// What the check of an example reads besides the graph file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beside {
    /// The graph file alone.
    Nothing,
    /// The graph's lock (`<graph>.lock.json`), this JSON text.
    Lock(&'static str),
    /// The graph's test file (`<graph>.test.yaml`), this text: it is the
    /// file that fails.
    Tests(&'static str),
    /// No lock, where the build requires one (`require_lock`).
    NoRequiredLock,
    /// No graph file at all at the path checked.
    NoFile,
    /// The example saved as Latin-1, not UTF-8.
    Latin1,
}

/// The explanation of `code` (as written, e.g. `"unknown_node"`).
///
/// ```
/// let e = mcpgraph_codegen::diag::explain::explain("unknown_node").unwrap();
/// assert_eq!(e.code, mcpgraph_codegen::diag::codes::UNKNOWN_NODE);
/// ```
pub fn explain(code: &str) -> Option<&'static Explanation> {
    catalogue::ALL.iter().find(|e| e.code.as_str() == code)
}

/// The code closest to `code`, when it is likely a misspelling of one (for
/// a "did you mean").
///
/// ```
/// use mcpgraph_codegen::diag::{codes, explain::closest};
/// assert_eq!(closest("unknwon_node"), Some(codes::UNKNOWN_NODE));
/// assert_eq!(closest("wholly_different"), None);
/// ```
pub fn closest(code: &str) -> Option<Code> {
    let names: Vec<&str> = super::codes::ALL.iter().map(|c| c.as_str()).collect();
    let near = crate::suggest::suggest(code, &names)?;
    super::codes::ALL
        .iter()
        .copied()
        .find(|c| c.as_str() == near)
}

/// Every explanation, in the order of [`super::codes::ALL`].
pub fn explanations() -> &'static [Explanation] {
    catalogue::ALL
}

impl fmt::Display for Explanation {
    /// The explanation as a Markdown section: `## code: title`, the
    /// meaning, the failing example, the fix.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "## `{}`: {}\n\n{}\n",
            self.code, self.title, self.meaning
        )?;
        let yaml = |f: &mut fmt::Formatter<'_>, name: &str, text: &str| {
            writeln!(f, "`{name}`:\n\n```yaml\n{text}```\n")
        };
        match self.beside {
            Beside::NoFile => {
                writeln!(
                    f,
                    "Fails: `mcpgraph check graph.yaml` where there is no `graph.yaml`.\n"
                )?;
            }
            Beside::Latin1 => {
                writeln!(f, "Fails, saved as Latin-1 rather than UTF-8:\n")?;
                yaml(f, "graph.yaml", self.example)?;
            }
            Beside::NoRequiredLock => {
                writeln!(
                    f,
                    "Fails, built with `require_lock` and no `graph.lock.json` beside it:\n"
                )?;
                yaml(f, "graph.yaml", self.example)?;
            }
            Beside::Nothing => {
                writeln!(f, "Fails:\n")?;
                yaml(f, "graph.yaml", self.example)?;
            }
            Beside::Lock(lock) => {
                writeln!(f, "Fails, with its lock:\n")?;
                yaml(f, "graph.yaml", self.example)?;
                writeln!(f, "`graph.lock.json`:\n\n```json\n{lock}```\n")?;
            }
            Beside::Tests(tests) => {
                writeln!(f, "Fails: the test file of this graph.\n")?;
                yaml(f, "graph.yaml", self.example)?;
                yaml(f, "graph.test.yaml", tests)?;
            }
        }
        write!(f, "Fix: {}", self.fix)?;
        if let Some(fixed) = self.fixed {
            let name = match self.beside {
                Beside::Tests(_) => "graph.test.yaml",
                _ => "graph.yaml",
            };
            write!(f, "\n\n`{name}`, fixed:\n\n```yaml\n{fixed}```")?;
        }
        writeln!(f)
    }
}

#[cfg(test)]
mod tests;
