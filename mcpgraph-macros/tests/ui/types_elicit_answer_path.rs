// Types through `elicit`: on accept the node's output is the answer's
// content, the fields of its `requestedSchema` (a form lists every field).
mcpgraph::mcpgraph!("ui/types_elicit_answer_path.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
