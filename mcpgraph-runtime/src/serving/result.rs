//! A successful call's MCP result: the graph's value as JSON text (and
//! `structuredContent`), with the downstream content blocks its exit's
//! `content:` returns (FORMAT.md, "exit").

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::exec::ExitContent;
use crate::serving::handler::success_result;

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
