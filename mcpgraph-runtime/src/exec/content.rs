//! The downstream content blocks an exit node's `content:` returns
//! (FORMAT.md, "exit"): only the `mcp` nodes it names keep their blocks,
//! each its latest run's, of the types it asks for, unchanged (annotations,
//! `_meta` and `mimeType` included).

use rmcp::model::ContentBlock;

use crate::meta::ContentMeta;

/// What the exit returns beside (or instead of) the JSON text: the blocks,
/// in `from` order, and whether the JSON text and `structuredContent` stay.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ExitContent {
    /// The kept blocks, node by node in the order `from` names them.
    pub(crate) blocks: Vec<ContentBlock>,
    /// `json`: the result still starts with its JSON text block.
    pub(crate) json: bool,
}

/// The blocks kept so far in one call.
pub(crate) struct KeptContent {
    spec: &'static ContentMeta,
    /// By position in `spec.from`: the blocks of that node's latest run.
    blocks: Vec<Vec<ContentBlock>>,
}

impl KeptContent {
    pub(crate) fn new(spec: &'static ContentMeta) -> Self {
        Self {
            spec,
            blocks: vec![Vec::new(); spec.from.len()],
        }
    }

    /// Keeps `content`, the result of node `node`, if the exit returns that
    /// node's blocks (replacing an earlier run's).
    pub(crate) fn offer(&mut self, node: &str, content: &[ContentBlock]) {
        let Some(i) = self.spec.from.iter().position(|n| *n == node) else {
            return;
        };
        let types = self.spec.types;
        self.blocks[i] = content
            .iter()
            .filter(|b| types.is_empty() || types.contains(&type_name(b)))
            .cloned()
            .collect();
    }

    /// The blocks in `from` order.
    pub(crate) fn finish(self) -> ExitContent {
        ExitContent {
            blocks: self.blocks.into_iter().flatten().collect(),
            json: self.spec.json,
        }
    }
}

/// A block's `type` as MCP spells it.
fn type_name(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text(_) => "text",
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::Resource(_) => "resource",
        ContentBlock::ResourceLink(_) => "resource_link",
        // A type newer than this build: kept only when every type is.
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn blocks(value: serde_json::Value) -> Vec<ContentBlock> {
        serde_json::from_value(value).expect("content blocks")
    }

    #[test]
    fn keeps_only_named_nodes_latest_run_and_asked_types_in_from_order() {
        static SPEC: ContentMeta = ContentMeta {
            from: &["b", "a"],
            types: &["image", "resource_link"],
            json: false,
        };
        let mut kept = KeptContent::new(&SPEC);
        let a = blocks(json!([
            {"type": "text", "text": "caption"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png",
             "annotations": {"priority": 0.5, "audience": ["user"]}, "_meta": {"k": 1}},
        ]));
        kept.offer("a", &a);
        kept.offer("c", &a);
        let b1 = blocks(json!([{"type": "resource_link", "uri": "x:1", "name": "one"}]));
        let b2 = blocks(json!([{"type": "resource_link", "uri": "x:2", "name": "two"}]));
        kept.offer("b", &b1);
        kept.offer("b", &b2);
        let out = kept.finish();
        assert!(!out.json);
        assert_eq!(
            serde_json::to_value(&out.blocks).unwrap(),
            json!([
                {"type": "resource_link", "uri": "x:2", "name": "two"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png",
                 "annotations": {"priority": 0.5, "audience": ["user"]}, "_meta": {"k": 1}},
            ])
        );
    }

    #[test]
    fn no_types_keeps_every_block() {
        static SPEC: ContentMeta = ContentMeta {
            from: &["a"],
            types: &[],
            json: true,
        };
        let mut kept = KeptContent::new(&SPEC);
        let a = blocks(json!([
            {"type": "text", "text": "t"},
            {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
        ]));
        kept.offer("a", &a);
        assert_eq!(kept.finish().blocks, a);
    }
}
