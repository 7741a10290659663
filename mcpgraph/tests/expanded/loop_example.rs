// @generated from examples/loop_example/loop_example.yaml by `cargo test -p mcpgraph --test expand`
// with EXPECTORATE=overwrite. Do not edit.

/// The MCP server `loopExample` 1.0.0, compiled from its graph file.
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
pub struct Server;
impl Server {
    /// Runs the server's command line: `serve` (stdio, the default),
    /// `tools`, `call TOOL JSON`; see `--help`.
    pub fn main() -> ::std::process::ExitCode {
        ::mcpgraph::__private::cli::main::<Server>()
    }
}
#[doc(hidden)]
pub struct __McpgraphCompiled {
    sum_to_n: sum_to_n::Compiled,
}
const _: () = {
    use ::mcpgraph::__private as rt;
    impl rt::Graph for Server {
        type Compiled = __McpgraphCompiled;
        const SERVER: rt::ServerMeta = rt::ServerMeta {
            name: "loopExample",
            version: "1.0.0",
            title: "Loop Example",
            instructions: rt::Some(
                "This example demonstrates loops and execution history functions like $executionCount() and $nodeExecution().",
            ),
        };
        const TOOLS: &'static [rt::ToolMeta] = &[
            rt::ToolMeta {
                name: "sum_to_n",
                description: "Sums numbers from 1 to n using a loop",
                input_schema: r#"{"type":"object","properties":{"n":{"type":"number","description":"The number to sum to"}},"required":["n"]}"#,
                output_schema: rt::Some(
                    r#"{"type":"object","properties":{"sum":{"type":"number","description":"The sum from 1 to n"}}}"#,
                ),
            },
        ];
        const SERVERS: &'static [rt::ServerDef] = &[];
        const LIMITS: rt::Limits = rt::Limits {
            max_node_executions: 1000,
            max_execution_time_ms: 300000,
            max_expression_depth: 500,
            max_expression_time_ms: 1000,
            max_value_bytes: 67108864,
            max_history_bytes: 268435456,
            max_value_depth: 128,
        };
        fn compile() -> rt::Result<Self::Compiled, rt::StartupError> {
            rt::Ok(__McpgraphCompiled {
                sum_to_n: sum_to_n::Compiled::new()?,
            })
        }
        fn run<'a>(
            compiled: &'a Self::Compiled,
            tool: usize,
            exec: &'a mut rt::Execution,
        ) -> rt::RunFuture<'a> {
            match tool {
                0 => rt::Box::pin(sum_to_n::run(&compiled.sum_to_n, exec)),
                _ => rt::Box::pin(async { rt::Err(rt::NodeError::call("no such tool")) }),
            }
        }
    }
};
/// The tool `sum_to_n`: its nodes and its state machine.
pub mod sum_to_n {
    use ::mcpgraph::__private as rt;
    /// One variant per node of the tool's graph.
    #[derive(rt::Clone, rt::Copy, rt::Debug, rt::PartialEq, rt::Eq, rt::Hash)]
    #[allow(clippy::enum_variant_names)]
    pub enum Node {
        EntrySum,
        IncrementNode,
        CheckCondition,
        ExitSum,
        ExitSumFinal,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 5] = [
            Node::EntrySum,
            Node::IncrementNode,
            Node::CheckCondition,
            Node::ExitSum,
            Node::ExitSumFinal,
        ];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::EntrySum => "entry_sum",
                Node::IncrementNode => "increment_node",
                Node::CheckCondition => "check_condition",
                Node::ExitSum => "exit_sum",
                Node::ExitSumFinal => "exit_sum_final",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> rt::NodeType {
            match self {
                Node::EntrySum => rt::NodeType::Entry,
                Node::IncrementNode => rt::NodeType::Transform,
                Node::CheckCondition => rt::NodeType::Switch,
                Node::ExitSum => rt::NodeType::Transform,
                Node::ExitSumFinal => rt::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        increment_node: rt::Expr,
        check_condition: rt::Switch,
        exit_sum: rt::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                increment_node: rt::Expr::parse(
                    r#"$executionCount("increment_node") = 0
  ? {
      "counter": 1,
      "sum": 1,
      "target": $.entry_sum.n
    }
  : {
      "counter": $nodeExecution("increment_node", -1).counter + 1,
      "sum": $nodeExecution("increment_node", -1).sum + $nodeExecution("increment_node", -1).counter + 1,
      "target": $.entry_sum.n
    }
"#,
                )?,
                check_condition: rt::Switch::new(
                    &[
                        rt::Rule {
                            json: r#"{"<":[{"val":["\u0000","0"]},{"val":["\u0000","1"]}]}"#,
                            vars: &[
                                "$.increment_node.counter",
                                "$.increment_node.target",
                            ],
                            needs_context: false,
                        },
                    ],
                )?,
                exit_sum: rt::Expr::parse(
                    r#"$previousNode() = "exit_sum" ? {
  "sum": $.increment_node.sum
} : {
  "sum": 0,
  "error": "previousNode check failed"
}
"#,
                )?,
            })
        }
    }
    /// Runs the tool's graph from its entry to its exit.
    pub async fn run(
        compiled: &Compiled,
        exec: &mut rt::Execution,
    ) -> rt::Result<(), rt::NodeError> {
        let mut node = Node::EntrySum;
        loop {
            exec.enter(node.id(), node.kind()).await?;
            node = match node {
                Node::EntrySum => {
                    exec.entry()?;
                    Node::IncrementNode
                }
                Node::IncrementNode => {
                    exec.transform(&compiled.increment_node)?;
                    Node::CheckCondition
                }
                Node::CheckCondition => {
                    let next = match exec.switch(&compiled.check_condition)? {
                        // {"<": [{"var": "$.increment_node.counter"}, {"var": "$.increment_node.target"}]}
                        rt::Some(0) => Node::IncrementNode,
                        _ => Node::ExitSum,
                    };
                    exec.switched(next.id())?;
                    next
                }
                Node::ExitSum => {
                    exec.transform(&compiled.exit_sum)?;
                    Node::ExitSumFinal
                }
                Node::ExitSumFinal => {
                    exec.exit();
                    return rt::Ok(());
                }
            };
        }
    }
}
