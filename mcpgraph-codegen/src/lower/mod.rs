//! Lowers the positioned YAML tree into the typed [`model`](crate::model).
//!
//! Every problem of shape is collected, none stops the walk: unknown keys
//! (with a "did you mean" hint), duplicate keys, wrong types, missing
//! required fields, unknown node types and JSON Logic operators, malformed
//! `{expr}` arguments, schemas without `type: object`, limits that are not
//! positive integers. What is left half-built is recorded in [`Unfinished`]
//! so that `validate` checks the rest without piling errors on top of
//! these. Graph rules (references, reachability, expression syntax) are not
//! checked here.
//!
//! One walker, [`Cx`], goes down the tree; its methods are spread over the
//! submodules by the part of the file they read.

mod args;
mod auth;
mod elicit;
mod extensions;
mod fanout;
mod fields;
mod file;
mod form;
mod logic;
mod node;
mod resilience;
pub(crate) mod schema;
mod servers;
mod standalone;

pub(crate) use fields::expr_pos;
pub use standalone::lower_rule;

use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::GraphFile;
use crate::yaml::{self, LineIndex};

/// What lowering left unfinished in one tool, so that `validate` does not
/// report consequences of errors already reported.
#[derive(Debug, Default, Clone)]
pub(crate) struct Unfinished {
    /// The tool's name was missing or not a string (a placeholder is in the
    /// model).
    pub name_missing: bool,
    /// Some node could not be built: the tool's graph is incomplete, so its
    /// shape (entry, exit, reachability) is not checked.
    pub incomplete: bool,
    /// Ids of nodes that were left out of the model because of errors; they
    /// still count as existing for references.
    pub broken_ids: Vec<String>,
    /// The ids of all nodes, built or not, in file order (for messages).
    pub ids: Vec<String>,
}

/// The result of lowering: the model (with placeholders where errors were
/// reported) and what was left unfinished.
#[derive(Debug)]
pub(crate) struct Lowered {
    pub file: GraphFile,
    /// What was left unfinished in each tool, one per entry of
    /// `file.tools`.
    pub tools: Vec<Unfinished>,
    /// Names of servers left out of the model because of errors; they still
    /// count as declared.
    pub broken_servers: Vec<String>,
}

/// Reads and lowers `source`. Returns `None` only when the YAML itself
/// cannot be read; otherwise every problem is in `diags` and the model is as
/// complete as the file allows.
pub(crate) fn lower(source: &str, diags: &mut Diagnostics) -> Option<Lowered> {
    let root = match yaml::read(source) {
        Ok(root) => root,
        Err(e) => {
            let d = diags.error(codes::YAML_SYNTAX, e.pos, e.message);
            if d.message.contains("multiple YAML documents") {
                d.message =
                    "a graph file holds a single YAML document; found another `---` document"
                        .to_owned();
                d.help("remove the `---` line, or split the file");
            }
            return None;
        }
    };
    let mut cx = Cx {
        diags,
        index: LineIndex::new(source),
        servers: Vec::new(),
    };
    Some(cx.file(&root))
}

/// The walker: where problems go, and the file's lines (for mapping
/// expressions back to it).
struct Cx<'d, 's> {
    diags: &'d mut Diagnostics,
    index: LineIndex<'s>,
    /// The names under `mcpServers`, once read (for messages).
    servers: Vec<String>,
}
