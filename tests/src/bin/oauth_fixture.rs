//! `graphs/oauth.yaml` compiled: a tool with `requiredScopes` and one
//! without, served with inbound OAuth (tests/tests/serving/oauth.rs).

mcpgraph::mcpgraph!("graphs/oauth.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
