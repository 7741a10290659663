//! A downstream server's settings, as the generated code compiles them in
//! and a `--mcp` file (read by the downstream client manager) overrides
//! them.

/// How a downstream server is authorized (`auth`).
pub use mcpgraph_format::Auth as ServerAuth;
/// A downstream server's settings, as compiled in or overridden.
pub use mcpgraph_format::Server as ServerSpec;
/// How to reach a downstream server.
pub use mcpgraph_format::Transport as TransportSpec;

/// Builds the server list from the compiled-in servers and an optional
/// override: each override entry replaces the server of the same name or
/// adds one.
pub fn effective_specs(compiled: Vec<ServerSpec>, overrides: Vec<ServerSpec>) -> Vec<ServerSpec> {
    let mut specs = compiled;
    for spec in overrides {
        match specs.iter_mut().find(|s| s.name == spec.name) {
            Some(existing) => *existing = spec,
            None => specs.push(spec),
        }
    }
    specs
}
