//! A call's MCP result: the graph's value as JSON text (and
//! `structuredContent`), with the downstream content blocks its exit's
//! `content:` returns (FORMAT.md, "exit"); or a failed call's tool error.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::error::NodeError;
use crate::exec::ExitContent;
use crate::servers::convert::{MAX_ERROR_BYTES, cut_to};
use crate::serving::metrics;

/// The tool error of a call of the tool labelled `label` that failed with
/// `error`, counted on `/metrics`. A downstream server's text in it is cut
/// to 8 KiB already; the whole (with what the graph says around it) is
/// bounded too.
pub(crate) fn tool_error(label: &'static str, error: &NodeError) -> CallToolResult {
    metrics::call(label, "error");
    metrics::node_error(error.kind());
    let text = cut_to(error.to_string(), 2 * MAX_ERROR_BYTES);
    tracing::warn!(tool = label, error = %text, "tool call failed");
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The result for `value`: [`success_result`] when the exit has no
/// `content:`; otherwise its blocks, after the JSON text block and with
/// `structuredContent` when `json` is on, alone when it is off.
pub(crate) fn tool_result(value: Value, content: Option<ExitContent>) -> CallToolResult {
    let Some(content) = content else {
        return success_result(value);
    };
    if !content.json {
        return CallToolResult::success(content.blocks);
    }
    let mut result = success_result(value);
    result.content.extend(content.blocks);
    result
}

/// The tool result for a successful value: JSON text as `JSON.stringify`
/// writes it (JavaScript's number spelling), plus `structuredContent` when
/// it is an object. Keys are in the value's order, which `to_json` made
/// JavaScript's.
pub fn success_result(value: Value) -> CallToolResult {
    let text = mcpgraph_expr::js_text::to_js_string(&value);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if value.is_object() {
        result.structured_content = Some(value);
    }
    result
}
