//! Graph calls as MCP tasks for clients of the session era: a client that
//! declares the tasks extension in `initialize` gets tasks in its session
//! (raw JSON-RPC over streamable HTTP sessions, the conformance fixture as
//! in `tasks.rs`).

use std::time::Duration;

use serde_json::json;

use super::tasks::{Client, fixture_serving, question_key, text};

/// A client of the session era that declares the extension in
/// `initialize` gets tasks in its session: started, asked, answered,
/// cancelled; a tool with `askFirst` is a task from the start (no round
/// before it), its question the task's `input_required`. Another session
/// does not see them; a session without the extension gets plain calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_era_client_gets_tasks_in_its_session() {
    let server = fixture_serving("sessions", &[], None, false).await;
    let mut client = Client::open_session(&server, true).await;
    let id = client
        .start("slow_compute", json!({ "seconds": 1, "label": "s" }))
        .await;
    let done = client
        .wait_for(&id, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(text(&done), "\"computed s in 1 s\"", "{done}");

    // Another session, even with the extension, does not know the task.
    let mut other = Client::open_session(&server, true).await;
    let unknown = other.get(&id).await;
    assert_eq!(unknown["error"]["code"], json!(-32602), "{unknown}");

    // Asked first: the call is the task; its question comes as
    // input_required, answered by tasks/update.
    let id = client.start("test_tool_with_task", json!({})).await;
    let asking = client
        .wait_for(&id, "input_required", Duration::from_secs(5))
        .await;
    let key = question_key(&asking);
    let refused = other
        .update(
            &id,
            json!({ key.clone(): { "action": "accept", "content": { "name": "Eve" } } }),
        )
        .await;
    assert_eq!(refused["error"]["code"], json!(-32602), "{refused}");
    let ack = client
        .update(
            &id,
            json!({ key: { "action": "accept", "content": { "name": "Ada" } } }),
        )
        .await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    let done = client
        .wait_for(&id, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(text(&done), "\"Hello, Ada!\"", "{done}");

    // Cancelled through its own session only.
    let id = client.start("slow_compute", json!({ "seconds": 60 })).await;
    let refused = other.cancel(&id).await;
    assert_eq!(refused["error"]["code"], json!(-32602), "{refused}");
    client
        .wait_for(&id, "working", Duration::from_secs(2))
        .await;
    let ack = client.cancel(&id).await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    client
        .wait_for(&id, "cancelled", Duration::from_secs(5))
        .await;

    // Without the extension: plain calls, and `task: required` refused.
    let mut plain = Client::open_session(&server, false).await;
    let sync = plain
        .call("slow_compute", json!({ "seconds": 0, "label": "now" }))
        .await;
    assert!(sync.get("taskId").is_none(), "{sync}");
    assert_eq!(
        sync["content"][0]["text"],
        json!("\"computed now in 0 s\""),
        "{sync}"
    );
    let refused = plain
        .send(
            "tools/call",
            json!({ "name": "failing_job", "arguments": {} }),
            Some("failing_job"),
        )
        .await;
    assert_eq!(refused["error"]["code"], json!(-32021), "{refused}");
}
