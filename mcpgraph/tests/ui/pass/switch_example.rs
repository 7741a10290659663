// The switch_example example compiles: routing with JSON Logic rules.
mcpgraph::mcpgraph!("examples/switch_example/switch_example.yaml");

use mcpgraph::runtime::Graph;

fn main() {
    assert_eq!(test_switch::Node::SwitchNode.id(), "switch_node");
    assert!(<Server as Graph>::compile().is_ok());
}
