// @generated from examples/file_utils/file_utils.yaml by `cargo test -p mcpgraph --test expand`
// with EXPECTORATE=overwrite. Do not edit.

/// The MCP server `fileUtils` 1.0.0, compiled from its graph file.
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
    count_files: count_files::Compiled,
    sum_file_sizes: sum_file_sizes::Compiled,
}
impl ::mcpgraph::__private::Graph for Server {
    type Compiled = __McpgraphCompiled;
    const SERVER: ::mcpgraph::__private::ServerMeta = ::mcpgraph::__private::ServerMeta {
        name: "fileUtils",
        version: "1.0.0",
        title: "File utilities",
        instructions: ::core::option::Option::Some(
            "This server provides file utility tools for counting files and calculating total file sizes in directories.",
        ),
    };
    const TOOLS: &'static [::mcpgraph::__private::ToolMeta] = &[
        ::mcpgraph::__private::ToolMeta {
            name: "count_files",
            description: "Counts the number of files in a directory",
            input_schema: "{\"type\":\"object\",\"properties\":{\"directory\":{\"type\":\"string\",\"description\":\"The directory path to count files in\"}},\"required\":[\"directory\"]}",
            output_schema: ::core::option::Option::Some(
                "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"number\",\"description\":\"The number of files in the directory\"}}}",
            ),
        },
        ::mcpgraph::__private::ToolMeta {
            name: "sum_file_sizes",
            description: "Sums the size of all files in a directory",
            input_schema: "{\"type\":\"object\",\"properties\":{\"directory\":{\"type\":\"string\",\"description\":\"The directory path to sum file sizes in\"}},\"required\":[\"directory\"]}",
            output_schema: ::core::option::Option::Some(
                "{\"type\":\"object\",\"properties\":{\"totalSize\":{\"type\":\"number\",\"description\":\"The total size of all files in bytes\"}}}",
            ),
        },
    ];
    const SERVERS: &'static [::mcpgraph::__private::ServerDef] = &[
        ::mcpgraph::__private::ServerDef {
            name: "filesystem",
            transport: ::mcpgraph::__private::TransportDef::Stdio {
                command: "npx",
                args: &[
                    "-y",
                    "@modelcontextprotocol/server-filesystem",
                    "../mcpGraph/tests/counting",
                ],
                cwd: ::core::option::Option::None,
                env: &[],
            },
            timeout_ms: ::core::option::Option::None,
            ping_timeout_ms: ::core::option::Option::None,
        },
    ];
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
            count_files: count_files::Compiled::new()?,
            sum_file_sizes: sum_file_sizes::Compiled::new()?,
        })
    }
    fn run<'a>(
        compiled: &'a Self::Compiled,
        tool: usize,
        exec: &'a mut ::mcpgraph::__private::Execution,
    ) -> ::mcpgraph::__private::RunFuture<'a> {
        match tool {
            0usize => {
                ::std::boxed::Box::pin(count_files::run(&compiled.count_files, exec))
            }
            1usize => {
                ::std::boxed::Box::pin(
                    sum_file_sizes::run(&compiled.sum_file_sizes, exec),
                )
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
/// The tool `count_files`: its nodes and its state machine.
pub mod count_files {
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
        ListDirectoryNode,
        CountFilesNode,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 4usize] = [
            Node::Entry,
            Node::ListDirectoryNode,
            Node::CountFilesNode,
            Node::Exit,
        ];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::ListDirectoryNode => "list_directory_node",
                Node::CountFilesNode => "count_files_node",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> ::mcpgraph::__private::NodeType {
            match self {
                Node::Entry => ::mcpgraph::__private::NodeType::Entry,
                Node::ListDirectoryNode => ::mcpgraph::__private::NodeType::Mcp,
                Node::CountFilesNode => ::mcpgraph::__private::NodeType::Transform,
                Node::Exit => ::mcpgraph::__private::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        list_directory_node: ::mcpgraph::__private::Args,
        count_files_node: ::mcpgraph::__private::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> ::core::result::Result<
            Self,
            ::mcpgraph::__private::StartupError,
        > {
            ::core::result::Result::Ok(Self {
                list_directory_node: ::mcpgraph::__private::Args::Object(
                    ::std::vec![
                        ("path", ::mcpgraph::__private::Args::expr("$.entry.directory")
                        ?)
                    ],
                ),
                count_files_node: ::mcpgraph::__private::Expr::parse(
                    "{ \"count\": $count($split($.list_directory_node.content, \"\\n\")) }",
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
                    Node::ListDirectoryNode
                }
                Node::ListDirectoryNode => {
                    exec.mcp("filesystem", "list_directory", &self_.list_directory_node)
                        .await?;
                    Node::CountFilesNode
                }
                Node::CountFilesNode => {
                    exec.transform(&self_.count_files_node)?;
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
/// The tool `sum_file_sizes`: its nodes and its state machine.
pub mod sum_file_sizes {
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
        ListDirectoryWithSizesNode,
        SumSizesNode,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 4usize] = [
            Node::Entry,
            Node::ListDirectoryWithSizesNode,
            Node::SumSizesNode,
            Node::Exit,
        ];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::ListDirectoryWithSizesNode => "list_directory_with_sizes_node",
                Node::SumSizesNode => "sum_sizes_node",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> ::mcpgraph::__private::NodeType {
            match self {
                Node::Entry => ::mcpgraph::__private::NodeType::Entry,
                Node::ListDirectoryWithSizesNode => ::mcpgraph::__private::NodeType::Mcp,
                Node::SumSizesNode => ::mcpgraph::__private::NodeType::Transform,
                Node::Exit => ::mcpgraph::__private::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, parsed once at start-up.
    pub struct Compiled {
        list_directory_with_sizes_node: ::mcpgraph::__private::Args,
        sum_sizes_node: ::mcpgraph::__private::Expr,
    }
    impl Compiled {
        /// Parses every expression of the tool.
        pub fn new() -> ::core::result::Result<
            Self,
            ::mcpgraph::__private::StartupError,
        > {
            ::core::result::Result::Ok(Self {
                list_directory_with_sizes_node: ::mcpgraph::__private::Args::Object(
                    ::std::vec![
                        ("path", ::mcpgraph::__private::Args::expr("$.entry.directory")
                        ?)
                    ],
                ),
                sum_sizes_node: ::mcpgraph::__private::Expr::parse(
                    "(\n  $lines := $split($.list_directory_with_sizes_node.content, \"\\n\");\n  $fileLines := $lines[$substring($, 0, 6) = \"[FILE]\"];\n  { \n    \"totalSize\": $sum($fileLines. (\n      $parts := $split($trim($), \" \");\n      $sizeStr := $parts[$count($parts) - 2] & \" \" & $parts[$count($parts) - 1];\n      $number := $number($replace($sizeStr, /[^0-9.]/, \"\"));\n      $unit := $replace($sizeStr, /[0-9.]/, \"\");\n      $number * (\n        $unit = \"TB\" ? 1099511627776 :\n        $unit = \"GB\" ? 1073741824 :\n        $unit = \"MB\" ? 1048576 :\n        $unit = \"KB\" ? 1024 : 1\n      )\n    ))\n  }\n)\n",
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
                    Node::ListDirectoryWithSizesNode
                }
                Node::ListDirectoryWithSizesNode => {
                    exec.mcp(
                            "filesystem",
                            "list_directory_with_sizes",
                            &self_.list_directory_with_sizes_node,
                        )
                        .await?;
                    Node::SumSizesNode
                }
                Node::SumSizesNode => {
                    exec.transform(&self_.sum_sizes_node)?;
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
