//! `graphs/held_stderr.yaml` compiled: a tool that starts one downstream
//! server, then another whose call fails, for `call`'s held-back stderr
//! (tests/tests/cli/cli.rs).

mcpgraph::mcpgraph!("graphs/held_stderr.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
