// The test_minimal example compiles: an entry straight to the exit.
mcpgraph::mcpgraph!("examples/test_minimal/test_minimal.yaml");

use mcpgraph::runtime::Graph;

fn main() {
    assert_eq!(test_tool::Node::ALL, [test_tool::Node::Entry, test_tool::Node::Exit]);
    assert!(<Server as Graph>::compile().is_ok());
}
