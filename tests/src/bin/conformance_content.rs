//! `graphs/conformance_content.yaml`, compiled: downstream content blocks
//! returned as they came, for the conformance suite's content scenarios
//! (tools-call-image, -audio, -embedded-resource, -mixed-content) and the
//! pass-through tests (tests/tests/serving/content.rs).

mcpgraph::mcpgraph!("graphs/conformance_content.yaml");
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
