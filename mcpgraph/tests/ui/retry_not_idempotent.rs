// With a lock, `retry` on a tool its server does not annotate read-only or
// idempotent is a warning (`retry_not_idempotent`), which the macro
// reports as an error unless allowed; `read_text_file` (read-only) is fine.
mcpgraph::mcpgraph!("ui/retry_not_idempotent.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
