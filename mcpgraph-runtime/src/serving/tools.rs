//! The tools a graph server lists: name, description, schemas, and the
//! annotations and icons the generator compiled in (annotations derived
//! from the lock, with the graph's overrides; FORMAT.md, "Tools").

use std::sync::Arc;

use rmcp::model::Tool;

use crate::engine::Engine;

/// `engine`'s tools as `tools/list` gives them, in the graph's order.
pub(crate) fn listed_tools(engine: &Engine) -> Vec<Tool> {
    engine
        .tools()
        .iter()
        .map(|t| {
            let mut tool = Tool::new(t.meta.name, t.meta.description, Arc::clone(&t.input_schema));
            if let Some(schema) = &t.output_schema {
                tool = tool.with_raw_output_schema(Arc::clone(schema));
            }
            if let Some(annotations) = &t.annotations {
                tool = tool.with_annotations(annotations.clone());
            }
            if let Some(icons) = &t.icons {
                tool = tool.with_icons(icons.clone());
            }
            tool
        })
        .collect()
}
