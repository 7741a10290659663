//! `graphs/oauth_client.yaml` compiled: a tool whose downstream server
//! takes OAuth tokens only, got with the graph's client credentials
//! (tests/tests/downstream/oauth_client.rs).

mcpgraph::mcpgraph!("graphs/oauth_client.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
