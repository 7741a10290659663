// The loop_example example compiles: a loop that reads its own history.
mcpgraph::mcpgraph!("examples/loop_example/loop_example.yaml");

use mcpgraph::runtime::Graph;

fn main() {
    assert_eq!(sum_to_n::Node::ALL.len(), 5);
    assert_eq!(<Server as Graph>::SERVER.name, "loopExample");
    assert!(<Server as Graph>::compile().is_ok());
}
