//! What the checks of [`super::run_errors`] find, and how each finding
//! reads as a diagnostic.

use std::collections::HashSet;

use super::builtins::{self, Arity};
use crate::diag::{Diagnostics, codes};
use crate::model::Pos;
use crate::suggest::suggest;

/// What a finding is about, as written in the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Anchor {
    /// `$name`.
    Var(String),
    /// An operator.
    Op(&'static str),
}

/// One thing the expression would fail on.
pub(super) struct Finding {
    pub(super) problem: Problem,
    pub(super) anchor: Anchor,
    /// Which occurrence of the anchor, counting from 0 in text order.
    pub(super) nth: usize,
    /// Whether every evaluation reaches it.
    pub(super) surely: bool,
}

/// What is wrong.
pub(super) enum Problem {
    /// A call of `$name`, which nothing defines.
    UnknownFunction { name: String, piped: bool },
    /// A call of a built-in with `given` arguments.
    ArgumentCount {
        name: String,
        given: usize,
        arity: Arity,
        piped: bool,
    },
    /// A call of a built-in whose signature refuses its literal arguments.
    ArgumentTypes {
        name: String,
        signature: &'static str,
        /// "argument 1 is a number", for each literal argument.
        literals: Vec<String>,
        piped: bool,
    },
    /// An operand of the wrong type.
    Operand { code: &'static str, message: String },
}

/// Turns a finding into a diagnostic at `pos`.
pub(super) fn report(f: &Finding, pos: Pos, bound: &HashSet<String>, diags: &mut Diagnostics) {
    let (message, code) = match &f.problem {
        Problem::UnknownFunction { name, .. } => (
            format!("unknown function `${name}`"),
            codes::UNKNOWN_FUNCTION,
        ),
        Problem::ArgumentCount {
            name, given, arity, ..
        } => {
            let takes = match (arity.min, arity.max) {
                (min, Some(max)) if min == max => plural(min),
                (0, Some(max)) => format!("at most {}", plural(max)),
                (min, Some(max)) => format!("{min} to {max} arguments"),
                (min, None) => format!("at least {}", plural(min)),
            };
            (
                format!("`${name}` takes {takes}, but is given {given}"),
                codes::FUNCTION_SIGNATURE,
            )
        }
        Problem::ArgumentTypes {
            name, signature, ..
        } => (
            format!("the arguments of `${name}` do not match its signature `{signature}`"),
            codes::FUNCTION_SIGNATURE,
        ),
        Problem::Operand { message, .. } => (message.clone(), codes::OPERAND_TYPE),
    };
    let d = if f.surely {
        diags.error(code, pos, message)
    } else {
        diags.warning(code, pos, message).as_lint()
    };
    let when = if f.surely {
        "every evaluation"
    } else {
        "an evaluation that reaches it"
    };
    match &f.problem {
        Problem::UnknownFunction { name, piped } => {
            let mut known: Vec<&str> = builtins::names().collect();
            known.extend(bound.iter().map(String::as_str));
            let code = if *piped { "T2006" } else { "T1006" };
            d.note(format!(
                "JSONata's functions, the history functions and the functions the expression binds with `:=` can be called; {when} fails with {code}"
            ));
            if let Some(s) = suggest(name, &known) {
                d.help(format!("did you mean `${s}`?"));
            }
        }
        Problem::ArgumentCount {
            arity, piped, name, ..
        } => {
            if let Some(sig) = arity.signature {
                d.note(format!(
                    "its signature is `{sig}`: a parameter marked `?` may be left out, and one marked `-` too (the context is then passed in its place)"
                ));
            }
            if *piped {
                d.note(format!(
                    "the value on the left of `~>` is `${name}`'s first argument"
                ));
            }
            d.note(format!("{when} fails with T0410"));
        }
        Problem::ArgumentTypes {
            literals,
            piped,
            name,
            ..
        } => {
            if !literals.is_empty() {
                d.note(literals.join(", "));
            }
            d.note("in a signature, `s` is a string, `n` a number, `b` a boolean, `l` null, `a` an array, `o` an object, `f` a function, `x` anything; `?` and `-` mark a parameter that may be left out");
            if *piped {
                d.note(format!(
                    "the value on the left of `~>` is `${name}`'s first argument"
                ));
            }
            d.note(format!("{when} fails with T0410"));
        }
        Problem::Operand { code, .. } => {
            d.note(format!("{when} fails with {code}"));
        }
    }
}

fn plural(n: usize) -> String {
    if n == 1 {
        "1 argument".to_owned()
    } else {
        format!("{n} arguments")
    }
}
