// @generated from examples/build_rs_example/greeter.yaml by `cargo test -p mcpgraph --test expand`
// with EXPECTORATE=overwrite. Do not edit.

/// The MCP server `greeter` 1.0.0, compiled from its graph file.
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
    greet: greet::Compiled,
}
impl ::mcpgraph::__private::Graph for Server {
    type Compiled = __McpgraphCompiled;
    const SERVER: ::mcpgraph::__private::ServerMeta = ::mcpgraph::__private::ServerMeta {
        name: "greeter",
        version: "1.0.0",
        title: "Greeter",
        instructions: ::core::option::Option::None,
    };
    const TOOLS: &'static [::mcpgraph::__private::ToolMeta] = &[
        ::mcpgraph::__private::ToolMeta {
            name: "greet",
            description: "Greets someone in their language, and repeats it `times` times",
            input_schema: "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"language\":{\"type\":\"string\",\"enum\":[\"en\",\"fr\",\"de\"]},\"times\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10}},\"required\":[\"name\"]}",
            output_schema: ::core::option::Option::Some(
                "{\"type\":\"object\",\"properties\":{\"greetings\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}",
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
            greet: greet::Compiled::new()?,
        })
    }
    fn run<'a>(
        compiled: &'a Self::Compiled,
        tool: usize,
        exec: &'a mut ::mcpgraph::__private::Execution,
    ) -> ::mcpgraph::__private::RunFuture<'a> {
        match tool {
            0usize => ::std::boxed::Box::pin(greet::run(&compiled.greet, exec)),
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
/// The tool `greet`: its nodes and its state machine.
pub mod greet {
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
        Route,
        French,
        English,
        Repeat,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 6usize] = [
            Node::Entry,
            Node::Route,
            Node::French,
            Node::English,
            Node::Repeat,
            Node::Exit,
        ];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::Route => "route",
                Node::French => "french",
                Node::English => "english",
                Node::Repeat => "repeat",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> ::mcpgraph::__private::NodeType {
            match self {
                Node::Entry => ::mcpgraph::__private::NodeType::Entry,
                Node::Route => ::mcpgraph::__private::NodeType::Switch,
                Node::French => ::mcpgraph::__private::NodeType::Transform,
                Node::English => ::mcpgraph::__private::NodeType::Transform,
                Node::Repeat => ::mcpgraph::__private::NodeType::Transform,
                Node::Exit => ::mcpgraph::__private::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        route: ::mcpgraph::__private::Switch,
        french: ::mcpgraph::__private::Expr,
        english: ::mcpgraph::__private::Expr,
        repeat: ::mcpgraph::__private::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> ::core::result::Result<
            Self,
            ::mcpgraph::__private::StartupError,
        > {
            ::core::result::Result::Ok(Self {
                route: ::mcpgraph::__private::Switch::new(
                    &[
                        ::mcpgraph::__private::Rule {
                            json: "{\"==\":[{\"val\":[\"\\u0000\",\"0\"]},\"fr\"]}",
                            vars: &["entry.language"],
                            needs_context: false,
                        },
                    ],
                )?,
                french: ::mcpgraph::__private::Expr::parse(
                    "\"Bonjour, \" & $.entry.name & \" !\"",
                )?,
                english: ::mcpgraph::__private::Expr::parse(
                    "\"Hello, \" & $.entry.name & \"!\"",
                )?,
                repeat: ::mcpgraph::__private::Expr::parse(
                    "(\n  $line := $exists($.french) ? $.french : $.english;\n  { \"greetings\": [[1..($.entry.times ? $.entry.times : 1)].($line)] }\n)\n",
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
                    Node::Route
                }
                Node::Route => {
                    let next = match exec.switch(&self_.route)? {
                        ::core::option::Option::Some(0usize) => Node::French,
                        _ => Node::English,
                    };
                    exec.switched(next.id())?;
                    next
                }
                Node::French => {
                    exec.transform(&self_.french)?;
                    Node::Repeat
                }
                Node::English => {
                    exec.transform(&self_.english)?;
                    Node::Repeat
                }
                Node::Repeat => {
                    exec.transform(&self_.repeat)?;
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
