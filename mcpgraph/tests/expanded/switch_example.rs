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
const _: () = {
    use ::mcpgraph::__private as rt;
    impl rt::Graph for Server {
        type Compiled = __McpgraphCompiled;
        const SERVER: rt::ServerMeta = rt::ServerMeta {
            name: "switchExample",
            version: "1.0.0",
            title: "Switch Node Example",
            instructions: rt::Some(
                "This example demonstrates conditional routing using switch nodes with JSON Logic.",
            ),
        };
        const TOOLS: &'static [rt::ToolMeta] = &[
            rt::ToolMeta {
                name: "test_switch",
                description: "Test switch node with conditional routing",
                input_schema: r#"{"type":"object","properties":{"value":{"type":"number","description":"A numeric value to route based on"}},"required":["value"]}"#,
                output_schema: rt::Some(
                    r#"{"type":"object","properties":{"result":{"type":"string","description":"The routing result"}}}"#,
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
                test_switch: test_switch::Compiled::new()?,
            })
        }
        fn run<'a>(
            compiled: &'a Self::Compiled,
            tool: usize,
            exec: &'a mut rt::Execution,
        ) -> rt::RunFuture<'a> {
            match tool {
                0 => rt::Box::pin(test_switch::run(&compiled.test_switch, exec)),
                _ => rt::Box::pin(async { rt::Err(rt::NodeError::call("no such tool")) }),
            }
        }
    }
};
/// The tool `test_switch`: its nodes and its state machine.
pub mod test_switch {
    use ::mcpgraph::__private as rt;
    /// One variant per node of the tool's graph.
    #[derive(rt::Clone, rt::Copy, rt::Debug, rt::PartialEq, rt::Eq, rt::Hash)]
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
        pub const ALL: [Node; 6] = [
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
        pub const fn kind(self) -> rt::NodeType {
            match self {
                Node::Entry => rt::NodeType::Entry,
                Node::SwitchNode => rt::NodeType::Switch,
                Node::HighPath => rt::NodeType::Transform,
                Node::LowPath => rt::NodeType::Transform,
                Node::ZeroPath => rt::NodeType::Transform,
                Node::Exit => rt::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        switch_node: rt::Switch,
        high_path: rt::Expr,
        low_path: rt::Expr,
        zero_path: rt::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                switch_node: rt::Switch::new(
                    &[
                        rt::Rule {
                            json: r#"{">":[{"val":["\u0000","0"]},10]}"#,
                            vars: &["entry.value"],
                            needs_context: false,
                        },
                        rt::Rule {
                            json: r#"{">":[{"val":["\u0000","0"]},0]}"#,
                            vars: &["entry.value"],
                            needs_context: false,
                        },
                    ],
                )?,
                high_path: rt::Expr::parse(r#"{ "result": "high" }"#)?,
                low_path: rt::Expr::parse(r#"{ "result": "low" }"#)?,
                zero_path: rt::Expr::parse(r#"{ "result": "zero_or_negative" }"#)?,
            })
        }
    }
    /// Runs the tool's graph from its entry to its exit.
    pub async fn run(
        compiled: &Compiled,
        exec: &mut rt::Execution,
    ) -> rt::Result<(), rt::NodeError> {
        let mut node = Node::Entry;
        loop {
            exec.enter(node.id(), node.kind()).await?;
            node = match node {
                Node::Entry => {
                    exec.entry()?;
                    Node::SwitchNode
                }
                Node::SwitchNode => {
                    let next = match exec.switch(&compiled.switch_node)? {
                        // {">": [{"var": "entry.value"}, 10]}
                        rt::Some(0) => Node::HighPath,
                        // {">": [{"var": "entry.value"}, 0]}
                        rt::Some(1) => Node::LowPath,
                        _ => Node::ZeroPath,
                    };
                    exec.switched(next.id())?;
                    next
                }
                Node::HighPath => {
                    exec.transform(&compiled.high_path)?;
                    Node::Exit
                }
                Node::LowPath => {
                    exec.transform(&compiled.low_path)?;
                    Node::Exit
                }
                Node::ZeroPath => {
                    exec.transform(&compiled.zero_path)?;
                    Node::Exit
                }
                Node::Exit => {
                    exec.exit();
                    return rt::Ok(());
                }
            };
        }
    }
}
