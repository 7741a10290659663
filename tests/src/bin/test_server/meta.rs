//! `echo_meta`: returns the `_meta` of the request it answers as
//! structuredContent `{meta}` (for trace context passed downstream).

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;

pub fn echo_meta(context: &RequestContext<RoleServer>) -> CallToolResult {
    let meta = serde_json::to_value(&context.meta).unwrap_or_default();
    let mut result = CallToolResult::success(vec![ContentBlock::text(meta.to_string())]);
    result.structured_content = Some(json!({ "meta": meta }));
    result
}
