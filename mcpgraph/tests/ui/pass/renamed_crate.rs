// The generated code reaches the runtime only through the path it is given,
// so it compiles after a rename of the dependency and without the prelude.
#![no_implicit_prelude]

extern crate mcpgraph as renamed;

renamed::mcpgraph!("examples/test_minimal/test_minimal.yaml", crate = ::renamed);

fn main() {
    let _ = test_tool::Node::Entry.id();
}
