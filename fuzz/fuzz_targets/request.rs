//! One JSON-RPC request through the server's request path: a compiled
//! graph served over an in-memory stdio-like stream, initialized, then
//! given the input as one more line. Any line gets an answer or is
//! ignored; the server never panics or hangs.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcpgraph_runtime::testing::{Handler, serve};
use mcpgraph::Engine;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod graph {
    mcpgraph::mcpgraph!("../examples/loop_example/loop_example.yaml");
}

struct Fixture {
    runtime: tokio::runtime::Runtime,
    handler: Handler,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let engine = runtime
            .block_on(async { Engine::start::<graph::Server>(Vec::new(), 1) })
            .expect("the engine starts");
        Fixture {
            runtime,
            handler: Handler::new(engine),
        }
    })
}

const INIT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","#,
    r#""capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

fuzz_target!(|data: &[u8]| {
    if data.contains(&b'\n') {
        return;
    }
    let fixture = fixture();
    let handler = fixture.handler.clone();
    fixture.runtime.block_on(async move {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let session = tokio::spawn(serve(handler, tokio::io::split(server)));
        client.write_all(INIT.as_bytes()).await.expect("write");
        client.write_all(data).await.expect("write");
        client.write_all(b"\n").await.expect("write");
        client.shutdown().await.expect("shutdown");
        let mut out = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut out))
            .await
            .expect("the server answers and ends the session at EOF")
            .expect("read");
        let _ = tokio::time::timeout(Duration::from_secs(5), session).await.expect("the session ends");
    });
});
