//! `graphs/downstream_tasks.yaml` compiled: tools whose downstream server
//! runs their calls as MCP tasks, one of which asks the user inside its
//! task (tests/tests/downstream/tasks.rs). The tests point `remote` at the
//! conformance fixture with `--mcp`.

mcpgraph::mcpgraph!("graphs/downstream_tasks.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
