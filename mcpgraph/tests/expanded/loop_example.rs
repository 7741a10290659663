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
impl ::mcpgraph::__private::Graph for Server {
    type Compiled = __McpgraphCompiled;
    const SERVER: ::mcpgraph::__private::ServerMeta = ::mcpgraph::__private::ServerMeta {
        name: "loopExample",
        version: "1.0.0",
        title: "Loop Example",
        instructions: ::core::option::Option::Some(
            "This example demonstrates loops and execution history functions like $executionCount() and $nodeExecution().",
        ),
    };
    const TOOLS: &'static [::mcpgraph::__private::ToolMeta] = &[
        ::mcpgraph::__private::ToolMeta {
            name: "sum_to_n",
            description: "Sums numbers from 1 to n using a loop",
            input_schema: "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"description\":\"The number to sum to\"}},\"required\":[\"n\"]}",
            output_schema: ::core::option::Option::Some(
                "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\",\"description\":\"The sum from 1 to n\"}}}",
            ),
        },
    ];
    const SERVERS: &'static [::mcpgraph::__private::ServerDef] = &[];
    const LIMITS: ::mcpgraph::__private::Limits = ::mcpgraph::__private::Limits {
        max_node_executions: 1000u64,
        max_execution_time_ms: 300000u64,
        max_expression_depth: 500u64,
        max_expression_time_ms: 1000u64,
        max_value_bytes: 67108864u64,
        max_history_bytes: 268435456u64,
        max_value_depth: 128u64,
    };
    fn compile() -> ::core::result::Result<
        Self::Compiled,
        ::mcpgraph::__private::StartupError,
    > {
        ::core::result::Result::Ok(__McpgraphCompiled {
            sum_to_n: sum_to_n::Compiled::new()?,
        })
    }
    fn run<'a>(
        compiled: &'a Self::Compiled,
        tool: usize,
        exec: &'a mut ::mcpgraph::__private::Execution,
    ) -> ::mcpgraph::__private::RunFuture<'a> {
        match tool {
            0usize => ::std::boxed::Box::pin(sum_to_n::run(&compiled.sum_to_n, exec)),
            _ => {
                ::std::boxed::Box::pin(async move {
                    ::core::result::Result::Err(
                        ::mcpgraph::__private::NodeError::call("no such tool"),
                    )
                })
            }
        }
    }
}
/// The tool `sum_to_n`: its nodes and its state machine.
pub mod sum_to_n {
    /// One variant per node of the tool's graph.
    #[derive(
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::fmt::Debug,
        ::core::cmp::PartialEq,
        ::core::cmp::Eq,
        ::core::hash::Hash
    )]
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
        pub const ALL: [Node; 5usize] = [
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
        pub const fn kind(self) -> ::mcpgraph::__private::NodeType {
            match self {
                Node::EntrySum => ::mcpgraph::__private::NodeType::Entry,
                Node::IncrementNode => ::mcpgraph::__private::NodeType::Transform,
                Node::CheckCondition => ::mcpgraph::__private::NodeType::Switch,
                Node::ExitSum => ::mcpgraph::__private::NodeType::Transform,
                Node::ExitSumFinal => ::mcpgraph::__private::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        increment_node: ::mcpgraph::__private::Expr,
        check_condition: ::mcpgraph::__private::Switch,
        exit_sum: ::mcpgraph::__private::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> ::core::result::Result<
            Self,
            ::mcpgraph::__private::StartupError,
        > {
            ::core::result::Result::Ok(Self {
                increment_node: ::mcpgraph::__private::Expr::parse(
                    "$executionCount(\"increment_node\") = 0\n  ? {\n      \"counter\": 1,\n      \"sum\": 1,\n      \"target\": $.entry_sum.n\n    }\n  : {\n      \"counter\": $nodeExecution(\"increment_node\", -1).counter + 1,\n      \"sum\": $nodeExecution(\"increment_node\", -1).sum + $nodeExecution(\"increment_node\", -1).counter + 1,\n      \"target\": $.entry_sum.n\n    }\n",
                )?,
                check_condition: ::mcpgraph::__private::Switch::new(
                    &[
                        ::mcpgraph::__private::Rule {
                            json: "{\"<\":[{\"val\":[\"\\u0000\",\"0\"]},{\"val\":[\"\\u0000\",\"1\"]}]}",
                            vars: &[
                                "$.increment_node.counter",
                                "$.increment_node.target",
                            ],
                            needs_context: false,
                        },
                    ],
                )?,
                exit_sum: ::mcpgraph::__private::Expr::parse(
                    "$previousNode() = \"exit_sum\" ? {\n  \"sum\": $.increment_node.sum\n} : {\n  \"sum\": 0,\n  \"error\": \"previousNode check failed\"\n}\n",
                )?,
            })
        }
    }
    /// Runs the tool's graph from its entry to its exit.
    pub async fn run(
        self_: &Compiled,
        exec: &mut ::mcpgraph::__private::Execution,
    ) -> ::core::result::Result<(), ::mcpgraph::__private::NodeError> {
        let mut node = Node::EntrySum;
        loop {
            exec.enter(node.id(), node.kind()).await?;
            node = match node {
                Node::EntrySum => {
                    exec.entry()?;
                    Node::IncrementNode
                }
                Node::IncrementNode => {
                    exec.transform(&self_.increment_node)?;
                    Node::CheckCondition
                }
                Node::CheckCondition => {
                    let next = match exec.switch(&self_.check_condition)? {
                        ::core::option::Option::Some(0usize) => Node::IncrementNode,
                        _ => Node::ExitSum,
                    };
                    exec.switched(next.id())?;
                    next
                }
                Node::ExitSum => {
                    exec.transform(&self_.exit_sum)?;
                    Node::ExitSumFinal
                }
                Node::ExitSumFinal => {
                    exec.exit();
                    return ::core::result::Result::Ok(());
                }
            };
        }
    }
}
