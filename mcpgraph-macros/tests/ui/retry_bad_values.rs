// `retry.attempts` of 0, `maxBackoffMs` under `backoffMs`, a negative
// `timeoutMs`: each an error at its value.
mcpgraph::mcpgraph!("ui/retry_bad_values.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
