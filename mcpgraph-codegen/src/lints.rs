//! Lint levels: which of a graph file's warnings a front door shows, drops
//! (`allow`) or turns into errors (`deny`). One policy for the
//! `mcpgraph!` macro, the build.rs [`Builder`](crate::Builder) and
//! `mcpgraph check`; each front door only says how its user wrote a
//! setting, for the note on a denied warning.
//!
//! It decides nothing about what is a warning: the checks do, each naming
//! its lint on the diagnostic (`Diagnostic::lint`).

use std::fmt;

use crate::diag::{Diagnostics, Severity};
use crate::suggest::{list, suggest};

/// The name that stands for every lint: `deny(warnings)`, `allow(warnings)`.
pub const WARNINGS: &str = "warnings";

/// Every lint a warning can name (not [`WARNINGS`]).
pub fn names() -> impl Iterator<Item = &'static str> {
    crate::diag::LINTS
        .iter()
        .chain(crate::lock::check::LINTS.iter())
        .copied()
}

/// What becomes of a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Dropped: not shown, does not fail.
    Allow,
    /// Shown as a warning (the default).
    Warn,
    /// Shown as an error: the build fails.
    Deny,
}

/// A name in `allow(...)` or `deny(...)` that is not a lint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLint {
    /// The name as written.
    pub name: String,
}

impl fmt::Display for UnknownLint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = names().collect();
        write!(
            f,
            "unknown lint `{}`: the lints are {}, and `{WARNINGS}` for all",
            self.name,
            list(&known)
        )?;
        match suggest(&self.name, &known) {
            Some(near) => write!(f, " (did you mean `{near}`?)"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for UnknownLint {}

/// The levels set for one graph, in the order they were written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintLevels {
    settings: Vec<(String, Level)>,
}

impl LintLevels {
    /// Sets `name` (a lint, or [`WARNINGS`]) to `level`.
    pub fn set(&mut self, name: &str, level: Level) -> Result<(), UnknownLint> {
        if name != WARNINGS && !names().any(|n| n == name) {
            return Err(UnknownLint {
                name: name.to_owned(),
            });
        }
        self.settings.push((name.to_owned(), level));
        Ok(())
    }

    /// The level of a warning with `lint` (`None` for a warning without
    /// one), and the name whose setting decided it: the last setting of
    /// the lint itself, else the last of [`WARNINGS`], else `Warn`. So
    /// `deny(warnings), allow(reference_before_run)` denies all but one.
    pub fn level(&self, lint: Option<&str>) -> (Level, Option<&str>) {
        let last = |name: &str| {
            self.settings
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(n, level)| (*level, Some(n.as_str())))
        };
        lint.and_then(last)
            .or_else(|| last(WARNINGS))
            .unwrap_or((Level::Warn, None))
    }

    /// Drops the allowed warnings of `diags` and turns the denied ones into
    /// errors, each with a note from `denied_by` (given the name that was
    /// denied) saying where.
    pub fn apply(&self, diags: &mut Diagnostics, denied_by: impl Fn(&str) -> String) {
        diags.items.retain_mut(|d| {
            if d.severity != Severity::Warning {
                return true;
            }
            match self.level(d.lint) {
                (Level::Allow, _) => false,
                (Level::Warn, _) => true,
                (Level::Deny, name) => {
                    d.severity = Severity::Error;
                    d.notes.push(denied_by(name.unwrap_or(WARNINGS)));
                    true
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{REFERENCE_BEFORE_RUN, UNKNOWN_INPUT_FIELD, codes};
    use crate::model::Pos;

    fn warnings() -> Diagnostics {
        let mut d = Diagnostics::new("g.yaml", "x\n");
        d.warning(codes::REFERENCE_BEFORE_RUN, Pos::default(), "before")
            .as_lint();
        d.warning(codes::UNKNOWN_INPUT_FIELD, Pos::default(), "field")
            .as_lint();
        d.warning(codes::UNCHECKED_PATHS, Pos::default(), "unnamed");
        d.error(codes::UNKNOWN_NODE, Pos::default(), "broken");
        d
    }

    fn levels(settings: &[(&str, Level)]) -> LintLevels {
        let mut levels = LintLevels::default();
        for (name, level) in settings {
            levels.set(name, *level).unwrap();
        }
        levels
    }

    fn outcome(levels: &LintLevels) -> Vec<(Severity, String)> {
        let mut d = warnings();
        levels.apply(&mut d, |name| format!("denied: {name}"));
        d.items
            .into_iter()
            .map(|d| (d.severity, [vec![d.message], d.notes].concat().join("; ")))
            .collect()
    }

    #[test]
    fn warnings_stay_warnings_by_default() {
        let out = outcome(&LintLevels::default());
        assert_eq!(out.len(), 4);
        assert!(out[..3].iter().all(|(s, _)| *s == Severity::Warning));
    }

    #[test]
    fn a_lint_beats_warnings_and_the_last_setting_wins() {
        let out = outcome(&levels(&[
            (WARNINGS, Level::Deny),
            (REFERENCE_BEFORE_RUN, Level::Deny),
            (REFERENCE_BEFORE_RUN, Level::Allow),
        ]));
        assert_eq!(
            out,
            [
                (Severity::Error, "field; denied: warnings".to_owned()),
                (Severity::Error, "unnamed; denied: warnings".to_owned()),
                (Severity::Error, "broken".to_owned()),
            ]
        );
        let out = outcome(&levels(&[(UNKNOWN_INPUT_FIELD, Level::Deny)]));
        assert_eq!(
            out[1],
            (
                Severity::Error,
                "field; denied: unknown_input_field".to_owned()
            )
        );
        assert_eq!(out[0].0, Severity::Warning);
        assert_eq!(outcome(&levels(&[(WARNINGS, Level::Allow)])).len(), 1);
    }

    #[test]
    fn unknown_names_are_refused_with_a_suggestion() {
        let e = LintLevels::default()
            .set("unknown_input_feild", Level::Deny)
            .unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("unknown lint `unknown_input_feild`: the lints are `"),
            "{text}"
        );
        assert!(
            text.ends_with("(did you mean `unknown_input_field`?)"),
            "{text}"
        );
        assert!(text.contains("`lock_coverage`"), "{text}");
    }
}
