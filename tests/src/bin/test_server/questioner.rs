//! A downstream server of the session era that keeps its caller busy
//! (issue 42, items 4 and 5), for the bounds on questions:
//!
//! - `ask_forever`: asks `roots/list` and `elicitation/create` in turn,
//!   whatever the answers, until the call is cancelled (or 1000 questions:
//!   a bound for a client that never stops it), then says how many;
//! - `ask_once`: asks one `elicitation/create` and returns the answer's
//!   action;
//! - `big_error`: an `isError` result whose text is `bytes` long (default
//!   16 MiB less 1 KiB, under the 16 MiB reply bound), `é` after `boom `.
//!
//! Its questions are server-to-client requests, so the graph must reach it
//! with `--legacy` (sessions).

#![allow(deprecated)] // roots are deprecated by SEP-2577, and still asked

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, ElicitRequestParams, ElicitationSchema,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;

/// The most questions `ask_forever` asks.
const MOST: usize = 1000;

fn form() -> ElicitRequestParams {
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}},
        "required": ["name"]
    }))
    .expect("a flat form schema");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: "What is your name, again?".to_owned(),
        requested_schema: schema,
    }
}

pub async fn ask_forever(context: &RequestContext<RoleServer>) -> CallToolResult {
    let mut asked = 0;
    while asked < MOST && !context.ct.is_cancelled() {
        let roots = context.peer.list_roots();
        let _ = if asked % 2 == 0 {
            tokio::select! {
                r = roots => r.map(drop),
                () = context.ct.cancelled() => break,
            }
        } else {
            tokio::select! {
                r = context.peer.create_elicitation(form()) => r.map(drop),
                () = context.ct.cancelled() => break,
            }
        };
        asked += 1;
    }
    CallToolResult::success(vec![ContentBlock::text(format!("asked {asked} questions"))])
}

pub async fn ask_once(context: &RequestContext<RoleServer>) -> CallToolResult {
    match context.peer.create_elicitation(form()).await {
        Ok(answer) => CallToolResult::success(vec![ContentBlock::text(format!(
            "answered: {:?}",
            answer.action
        ))]),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!("no answer: {e}"))]),
    }
}

pub fn big_error(request: &CallToolRequestParams) -> CallToolResult {
    let bytes = request
        .arguments
        .as_ref()
        .and_then(|a| a.get("bytes"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or((16 << 20) - 1024) as usize;
    let head = "boom ";
    let text = format!("{head}{}", "é".repeat(bytes.saturating_sub(head.len()) / 2));
    CallToolResult::error(vec![ContentBlock::text(text)])
}
