// @generated from examples/switch_example/switch_example.yaml by `cargo test -p mcpgraph --test expand`
// with EXPECTORATE=overwrite. Do not edit.

/// The MCP server `switchExample` 1.0.0, compiled from its graph file.
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
    test_switch: test_switch::Compiled,
}
impl ::mcpgraph::__private::Graph for Server {
    type Compiled = __McpgraphCompiled;
    const SERVER: ::mcpgraph::__private::ServerMeta = ::mcpgraph::__private::ServerMeta {
        name: "switchExample",
        version: "1.0.0",
        title: "Switch Node Example",
        instructions: ::core::option::Option::Some(
            "This example demonstrates conditional routing using switch nodes with JSON Logic.",
        ),
    };
    const TOOLS: &'static [::mcpgraph::__private::ToolMeta] = &[
        ::mcpgraph::__private::ToolMeta {
            name: "test_switch",
            description: "Test switch node with conditional routing",
            input_schema: "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"number\",\"description\":\"A numeric value to route based on\"}},\"required\":[\"value\"]}",
            output_schema: ::core::option::Option::Some(
                "{\"type\":\"object\",\"properties\":{\"result\":{\"type\":\"string\",\"description\":\"The routing result\"}}}",
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
            test_switch: test_switch::Compiled::new()?,
        })
    }
    fn run<'a>(
        compiled: &'a Self::Compiled,
        tool: usize,
        exec: &'a mut ::mcpgraph::__private::Execution,
    ) -> ::mcpgraph::__private::RunFuture<'a> {
        match tool {
            0usize => {
                ::std::boxed::Box::pin(test_switch::run(&compiled.test_switch, exec))
            }
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
/// The tool `test_switch`: its nodes and its state machine.
pub mod test_switch {
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
        Entry,
        SwitchNode,
        HighPath,
        LowPath,
        ZeroPath,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 6usize] = [
            Node::Entry,
            Node::SwitchNode,
            Node::HighPath,
            Node::LowPath,
            Node::ZeroPath,
            Node::Exit,
        ];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::SwitchNode => "switch_node",
                Node::HighPath => "high_path",
                Node::LowPath => "low_path",
                Node::ZeroPath => "zero_path",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> ::mcpgraph::__private::NodeType {
            match self {
                Node::Entry => ::mcpgraph::__private::NodeType::Entry,
                Node::SwitchNode => ::mcpgraph::__private::NodeType::Switch,
                Node::HighPath => ::mcpgraph::__private::NodeType::Transform,
                Node::LowPath => ::mcpgraph::__private::NodeType::Transform,
                Node::ZeroPath => ::mcpgraph::__private::NodeType::Transform,
                Node::Exit => ::mcpgraph::__private::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        switch_node: ::mcpgraph::__private::Switch,
        high_path: ::mcpgraph::__private::Expr,
        low_path: ::mcpgraph::__private::Expr,
        zero_path: ::mcpgraph::__private::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> ::core::result::Result<
            Self,
            ::mcpgraph::__private::StartupError,
        > {
            ::core::result::Result::Ok(Self {
                switch_node: ::mcpgraph::__private::Switch::new(
                    &[
                        ::mcpgraph::__private::Rule {
                            json: "{\">\":[{\"val\":[\"\\u0000\",\"0\"]},10]}",
                            vars: &["entry.value"],
                            needs_context: false,
                        },
                        ::mcpgraph::__private::Rule {
                            json: "{\">\":[{\"val\":[\"\\u0000\",\"0\"]},0]}",
                            vars: &["entry.value"],
                            needs_context: false,
                        },
                    ],
                )?,
                high_path: ::mcpgraph::__private::Expr::parse(
                    "{ \"result\": \"high\" }",
                )?,
                low_path: ::mcpgraph::__private::Expr::parse("{ \"result\": \"low\" }")?,
                zero_path: ::mcpgraph::__private::Expr::parse(
                    "{ \"result\": \"zero_or_negative\" }",
                )?,
            })
        }
    }
    /// Runs the tool's graph from its entry to its exit.
    pub async fn run(
        self_: &Compiled,
        exec: &mut ::mcpgraph::__private::Execution,
    ) -> ::core::result::Result<(), ::mcpgraph::__private::NodeError> {
        let mut node = Node::Entry;
        loop {
            exec.enter(node.id(), node.kind()).await?;
            node = match node {
                Node::Entry => {
                    exec.entry()?;
                    Node::SwitchNode
                }
                Node::SwitchNode => {
                    let next = match exec.switch(&self_.switch_node)? {
                        ::core::option::Option::Some(0usize) => Node::HighPath,
                        ::core::option::Option::Some(1usize) => Node::LowPath,
                        _ => Node::ZeroPath,
                    };
                    exec.switched(next.id())?;
                    next
                }
                Node::HighPath => {
                    exec.transform(&self_.high_path)?;
                    Node::Exit
                }
                Node::LowPath => {
                    exec.transform(&self_.low_path)?;
                    Node::Exit
                }
                Node::ZeroPath => {
                    exec.transform(&self_.zero_path)?;
                    Node::Exit
                }
                Node::Exit => {
                    exec.exit();
                    return ::core::result::Result::Ok(());
                }
            };
        }
    }
}
