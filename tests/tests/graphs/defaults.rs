//! JSON Schema `default`s in a tool's `inputSchema` (FORMAT.md): the
//! defaults of top-level properties fill in the arguments a call lacks
//! before they are checked and before the graph runs, for a client's call
//! and for a call of the graph's tool from inside the graph; and JSONata's
//! "no value" against a required output property, with the idioms
//! FORMAT.md gives.

use mcpgraph::Engine;
use mcpgraph_tests::engine_call;
use serde_json::json;

mod graph {
    mcpgraph::mcpgraph!("graphs/defaults.yaml");
}

fn engine() -> Engine {
    Engine::start::<graph::Server>(Vec::new(), 1).expect("engine starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_arguments_get_their_defaults() {
    let engine = engine();
    // A required property with a default is never missing.
    assert_eq!(
        engine_call(&engine, "greet", json!({})).await,
        Ok(json!({ "name": "world", "times": 2 }))
    );
    // Given ones are kept, `null` included (then checked: not a string).
    assert_eq!(
        engine_call(&engine, "greet", json!({ "name": "ann", "loud": true })).await,
        Ok(json!({ "name": "ann", "times": 2, "loud": true }))
    );
    let null = engine_call(&engine, "greet", json!({ "name": null })).await;
    assert!(
        null.as_ref().is_err_and(|e| e.contains("/name")),
        "{null:?}"
    );
    // Nested defaults are not applied.
    assert_eq!(
        engine_call(&engine, "greet", json!({ "style": {} })).await,
        Ok(json!({ "name": "world", "times": 2, "style": {} }))
    );
    // The graph's own call of the tool gets them too.
    assert_eq!(
        engine_call(&engine, "greet_inside", json!({})).await,
        Ok(json!({ "g": { "name": "inner", "times": 2 } }))
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sum_of_nothing_drops_the_key_unless_guarded() {
    let engine = engine();
    assert_eq!(
        engine_call(&engine, "total_plain", json!({ "sizes": [1, 2] })).await,
        Ok(json!({ "total": 3 }))
    );
    let missing = engine_call(&engine, "total_plain", json!({})).await;
    assert!(
        missing
            .as_ref()
            .is_err_and(|e| e.contains("outputSchema") && e.contains("total")),
        "{missing:?}"
    );
    // An empty array sums to 0: only a missing path is no value.
    assert_eq!(
        engine_call(&engine, "total_plain", json!({ "sizes": [] })).await,
        Ok(json!({ "total": 0 }))
    );
    for args in [json!({}), json!({ "sizes": [] })] {
        assert_eq!(
            engine_call(&engine, "total_guarded", args).await,
            Ok(json!({ "total": 0, "exists": 0, "coalesced": 0 }))
        );
    }
    assert_eq!(
        engine_call(&engine, "total_guarded", json!({ "sizes": [4, 5] })).await,
        Ok(json!({ "total": 9, "exists": 9, "coalesced": 9 }))
    );
    engine.shutdown().await;
}
