//! This crate is internal to mcpgraph and carries no semver promise: use
//! it through the [`mcpgraph`](https://docs.rs/mcpgraph) crate. A `build.rs`
//! that calls [`Builder`] depends on it directly: pin it with `=` to the
//! version of `mcpgraph`.
//!
//! The mcpgraph generator: graph YAML → positioned model → validation → Rust tokens.

mod annotations;
mod call_args;
pub mod cases;
pub mod diag;
pub mod lock;
mod lower;
pub mod model;
mod suggest;
#[cfg(test)]
mod test_support;
mod validate;
mod yaml;

/// Parses and validates a graph file's text. `display_path` is used in messages.
///
/// Warnings are dropped; use [`load_str_with_warnings`] to see them.
pub fn load_str(source: &str, display_path: &str) -> Result<model::GraphFile, diag::Diagnostics> {
    load_str_with_warnings(source, display_path).map(|(file, _)| file)
}

/// Like [`load_str`], but a successful load also returns its warnings (a
/// `Diagnostics` whose items are all warnings, possibly none). On failure the
/// `Diagnostics` holds every error and warning found.
pub fn load_str_with_warnings(
    source: &str,
    display_path: &str,
) -> Result<(model::GraphFile, diag::Diagnostics), diag::Diagnostics> {
    let (lowered, diags) = load_lowered(source, display_path, None);
    match lowered {
        Some(lowered) if diags.error_count() == 0 => Ok((lowered.file, diags)),
        _ => Err(diags),
    }
}

/// Parses and validates, keeping the model even when it has errors (with
/// placeholders where parts could not be built), for the skeleton. With
/// `lock` (and the name it is shown by), the calls are checked against it
/// (when the graph has no errors of its own), and the types of the calls'
/// outputs are known from it.
fn load_lowered(
    source: &str,
    display_path: &str,
    lock: Option<(&lock::Lock, &str)>,
) -> (Option<lower::Lowered>, diag::Diagnostics) {
    let mut diags = diag::Diagnostics::new(display_path, source);
    let lowered = lower::lower(source, &mut diags);
    if let Some(lowered) = &lowered {
        validate::validate(lowered, &mut diags);
        if let Some((lock, name)) = lock
            && diags.error_count() == 0
        {
            lock::check::check(&lowered.file, lock, name, &mut diags);
        }
        validate::check_types(lowered, lock.map(|(lock, _)| lock), &mut diags);
    }
    diags.sort();
    (lowered, diags)
}

/// Reads and loads a graph file. Returns the model and the file's text.
///
/// A file that cannot be read is reported with its absolute path.
pub fn load_file(path: &std::path::Path) -> Result<(model::GraphFile, String), diag::Diagnostics> {
    let display = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| {
        let resolved = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        diag::Diagnostics::io_error(
            &display,
            diag::codes::FILE_UNREADABLE,
            &format!("cannot read `{}`: {e}", resolved.display()),
        )
    })?;
    let file = load_str(&source, &display)?;
    Ok((file, source))
}
mod builder;
mod expand;
mod generate;
mod ident;
mod invocation;
pub mod lints;
pub mod mermaid;
mod rustc_warning;
pub use builder::Builder;
pub use expand::{ExpandOptions, RewrittenRule, expand, rewrite_rule, skeleton};
pub use generate::{Output, display_path, generate_file, generate_str, pretty};
pub use invocation::{expand_invocation, expand_tests_invocation, expansion_after_panic};
#[doc(hidden)]
pub use lower::lower_rule;

/// The checks a graph file gives a JSONata expression that do not depend
/// on the graph (syntax, `:=`, regular expressions, errors every run would
/// raise), for an expression on its own: positions are lines and columns
/// in `source`. What `mcpgraph mcp`'s `eval_jsonata` reports before it
/// evaluates.
///
/// ```
/// let d = mcpgraph_codegen::check_expression("$.a +\n  (1");
/// assert_eq!((d.items[0].pos.line, d.items[0].pos.column), (2, 5));
/// ```
pub fn check_expression(source: &str) -> diag::Diagnostics {
    validate::check_expression(source)
}
