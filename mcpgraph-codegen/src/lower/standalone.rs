//! One JSON Logic rule lowered on its own, outside a graph file: for the
//! differential runner, which feeds rules it generates through the
//! generator's own lowering before the runtime evaluates them. Not an API.

use super::Cx;
use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::Logic;
use crate::yaml::{self, LineIndex};

/// Lowers `source` (YAML, so JSON too) as a switch condition's `rule` is
/// lowered: the same operator checks, `var`s taken as JSONata. The errors
/// are those a graph file holding the rule would report.
#[doc(hidden)]
pub fn lower_rule(source: &str) -> Result<Logic, Diagnostics> {
    let mut diags = Diagnostics::new("rule", source);
    let root = match yaml::read(source) {
        Ok(root) => root,
        Err(e) => {
            diags.error(codes::YAML_SYNTAX, e.pos, e.message);
            return Err(diags);
        }
    };
    let mut cx = Cx {
        diags: &mut diags,
        index: LineIndex::new(source),
        servers: Vec::new(),
    };
    let logic = cx.logic(&root);
    if diags.error_count() == 0 {
        Ok(logic)
    } else {
        Err(diags)
    }
}
