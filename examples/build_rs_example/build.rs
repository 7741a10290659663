//! Generates the server for `greeter.yaml` into `$OUT_DIR/greeter.rs`.
//! Problems in the graph are reported as cargo errors and warnings, in the
//! same words as the `mcpgraph!` macro's.

fn main() {
    mcpgraph_codegen::Builder::new().compile("greeter.yaml");
}
