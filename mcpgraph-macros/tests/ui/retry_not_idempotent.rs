// With a lock, `retry` on a tool its server does not annotate read-only or
// idempotent is a warning (`retry_not_idempotent`), here denied in the
// macro call, so an error; `read_text_file` (read-only) is fine.
mcpgraph::mcpgraph!("ui/retry_not_idempotent.yaml", deny(retry_not_idempotent));

fn main() -> std::process::ExitCode {
    Server::main()
}
