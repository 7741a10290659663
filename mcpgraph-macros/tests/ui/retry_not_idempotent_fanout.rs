// With a lock, a `forEach` call or a `parallel` branch retried (by its own
// `retry` or its node's) on a tool not annotated read-only or idempotent is
// a `retry_not_idempotent` warning, as on an `mcp` node (denied here).
mcpgraph::mcpgraph!("ui/retry_not_idempotent_fanout.yaml", deny(retry_not_idempotent));

fn main() -> std::process::ExitCode {
    Server::main()
}
