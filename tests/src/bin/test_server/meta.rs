//! What a request's `_meta` carries: `echo_meta` returns it as
//! structuredContent `{meta}` (for trace context passed downstream);
//! `progress` reports progress 1, 2 and 3 of 3 on the request's progress
//! token (messages "step N"), then returns.

use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;

pub fn echo_meta(context: &RequestContext<RoleServer>) -> CallToolResult {
    let meta = serde_json::to_value(&context.meta).unwrap_or_default();
    let mut result = CallToolResult::success(vec![ContentBlock::text(meta.to_string())]);
    result.structured_content = Some(json!({ "meta": meta }));
    result
}

pub async fn progress(context: &RequestContext<RoleServer>) -> CallToolResult {
    if let Some(token) = context.meta.get_progress_token() {
        for step in 1..=3 {
            let param = ProgressNotificationParam::new(token.clone(), f64::from(step))
                .with_total(3.0)
                .with_message(format!("step {step}"));
            let _ = context.peer.notify_progress(param).await;
        }
    }
    CallToolResult::success(vec![ContentBlock::text("done")])
}
