// `retry`, `timeoutMs` and `onError` on fan-out nodes and their calls:
// a bad value at its place, `onError` on a branch (it is the node's), and
// `retry` on a call of the graph's own tool (retried by its own nodes).
mcpgraph::mcpgraph!("ui/fanout_retry_bad_values.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
