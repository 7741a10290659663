// @generated from examples/test_minimal/test_minimal.yaml by `cargo test -p mcpgraph --test expand`
// with EXPECTORATE=overwrite. Do not edit.

/// The MCP server `testMinimal` 1.0.0, compiled from its graph file.
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
    test_tool: test_tool::Compiled,
}
const _: () = {
    use ::mcpgraph::__private as rt;
    impl rt::Graph for Server {
        type Compiled = __McpgraphCompiled;
        const SERVER: rt::ServerMeta = rt::ServerMeta {
            name: "testMinimal",
            version: "1.0.0",
            title: "testMinimal",
            instructions: rt::None,
        };
        const TOOLS: &'static [rt::ToolMeta] = &[
            rt::ToolMeta {
                name: "test_tool",
                description: "Test tool",
                input_schema: r#"{"type":"object"}"#,
                output_schema: rt::Some(r#"{"type":"object"}"#),
                input_check: rt::no_check,
                output_check: rt::Some(test_tool::output_schema::check),
                content: rt::None,
                annotations: rt::Some(
                    r#"{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}"#,
                ),
                icons: rt::None,
                required_scopes: &[],
                task: rt::TaskSupport {
                    mode: rt::TaskMode::Allowed,
                    ask_first: false,
                },
            },
        ];
        fn servers() -> rt::Vec<rt::ServerSpec> {
            rt::owned::vec([])
        }
        const CONNECT: rt::Connect = rt::no_servers;
        const LIMITS: rt::Limits = rt::Limits {
            max_node_executions: 1000,
            max_execution_time_ms: 300000,
            max_expression_depth: 500,
            max_expression_time_ms: 1000,
            max_value_bytes: 67108864,
            max_history_bytes: 268435456,
            max_value_depth: 128,
            max_call_depth: 8,
            max_questions: 16,
            max_answer_wait_ms: 600000,
        };
        const MAP: rt::Option<&'static str> = rt::Some(
            r#"{"file":"test_minimal/test_minimal.yaml","tools":[{"name":"test_tool","nodes":[{"id":"entry","type":"entry","line":19,"routes":[]},{"id":"exit","type":"exit","line":22,"routes":[]}]}]}"#,
        );
        fn compile() -> rt::Result<Self::Compiled, rt::StartupError> {
            let test_tool = test_tool::Compiled::new()?;
            rt::Ok(__McpgraphCompiled { test_tool })
        }
        fn run<'a>(
            compiled: &'a Self::Compiled,
            tool: usize,
            exec: &'a mut rt::Execution,
        ) -> rt::RunFuture<'a> {
            match tool {
                0 => rt::Box::pin(test_tool::run(&compiled.test_tool, exec)),
                _ => rt::Box::pin(async { rt::Err(rt::NodeError::call("no such tool")) }),
            }
        }
    }
};
/// The tool `test_tool`: its nodes and its state machine.
pub mod test_tool {
    use ::mcpgraph::__private as rt;
    /// One variant per node of the tool's graph.
    #[derive(rt::Clone, rt::Copy, rt::Debug, rt::PartialEq, rt::Eq, rt::Hash)]
    #[allow(clippy::enum_variant_names)]
    pub enum Node {
        Entry,
        Exit,
    }
    impl Node {
        /// Every node, in file order.
        pub const ALL: [Node; 2] = [Node::Entry, Node::Exit];
        /// The node's id in the graph file.
        pub const fn id(self) -> &'static str {
            match self {
                Node::Entry => "entry",
                Node::Exit => "exit",
            }
        }
        /// The node's type.
        pub const fn kind(self) -> rt::NodeType {
            match self {
                Node::Entry => rt::NodeType::Entry,
                Node::Exit => rt::NodeType::Exit,
            }
        }
    }
    /// The tool's expressions, built once at start-up.
    pub struct Compiled {}
    impl Compiled {
        /// Builds every expression of the tool from its parsed tree.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {})
        }
    }
    /// Runs the tool's graph from its entry to its exit.
    pub async fn run(
        _: &Compiled,
        exec: &mut rt::Execution,
    ) -> rt::Result<(), rt::NodeError> {
        let mut node = Node::Entry;
        loop {
            exec.enter(node.id(), node.kind()).await?;
            node = match node {
                Node::Entry => {
                    exec.entry()?;
                    Node::Exit
                }
                Node::Exit => {
                    exec.exit();
                    return rt::Ok(());
                }
            };
        }
    }
    #[doc(hidden)]
    #[allow(unused_imports, unused_qualifications, clippy::all, clippy::pedantic)]
    pub mod output_schema {
        use ::std::prelude::rust_2021::*;
        use ::std::{self as std, matches, vec};
        use ::mcpgraph::__private as rt;
        use rt::jsonschema;
        /// The schema's validator.
        pub struct Validator;
        #[doc(hidden)]
        #[allow(
            non_snake_case,
            dead_code,
            unused_imports,
            unused_variables,
            unreachable_code,
            clippy::all
        )]
        mod __validator_impl {
            use super::*;
            use jsonschema::__private::cmp as __cmp;
            use jsonschema::__private::content as __content;
            use jsonschema::__private::custom as __custom;
            use jsonschema::__private::error as __err;
            use jsonschema::__private::fancy_regex as __fancy;
            use jsonschema::__private::format as __fmt;
            use jsonschema::__private::numeric as __num;
            use jsonschema::__private::regex as __re;
            use jsonschema::__private::serde_json as __sj;
            use jsonschema::__private::types as __types;
            use jsonschema::__private::unique_items as __uniq;
            use jsonschema::__private::unfinished_matches as __unfinished;
            use jsonschema::paths as __paths;
            use jsonschema::JsonType as __JT;
            use jsonschema::JsonTypeSet as __JTS;
            use jsonschema::ErrorIterator as __EI;
            use jsonschema::ValidationError as __VE;
            use __sj::Value as __Value;
            use std::sync::LazyLock as __Lazy;
            type __Map = __sj::Map<String, __Value>;
            pub(super) fn is_valid(instance: &__Value) -> bool {
                instance.is_object()
            }
            pub(super) fn validate<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
            ) -> Option<__VE<'__i>> {
                if !(instance.is_object()) {
                    return Some(
                        __err::single_type(
                            "/type",
                            __path.into(),
                            instance,
                            __JT::Object,
                        ),
                    );
                }
                None
            }
            pub(super) fn collect_errors<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
                __errors: &mut Vec<__VE<'__i>>,
            ) {
                if !(instance.is_object()) {
                    __errors
                        .push(
                            __err::single_type(
                                "/type",
                                __path.into(),
                                instance,
                                __JT::Object,
                            ),
                        );
                }
            }
            pub(super) fn run_is_valid(instance: &__Value) -> bool {
                is_valid(instance)
            }
            pub(super) fn run_validate<'__i>(
                instance: &'__i __Value,
            ) -> Option<__VE<'__i>> {
                validate(instance, &__paths::LazyLocation::new())
            }
            pub(super) fn run_collect_errors<'__i>(
                instance: &'__i __Value,
            ) -> Vec<__VE<'__i>> {
                let mut errors = Vec::new();
                collect_errors(instance, &__paths::LazyLocation::new(), &mut errors);
                errors
            }
            pub(super) fn entry_is_valid(instance: &__Value) -> bool {
                run_is_valid(instance)
            }
            pub(super) fn entry_validate<'__i>(
                instance: &'__i __Value,
            ) -> ::std::result::Result<(), __VE<'__i>> {
                match run_validate(instance) {
                    Some(e) => Err(e),
                    None => Ok(()),
                }
            }
            pub(super) fn entry_iter_errors<'__i>(
                instance: &'__i __Value,
            ) -> __EI<'__i> {
                __err::iterator_from(run_collect_errors(instance))
            }
        }
        impl Validator {
            pub fn is_valid(
                instance: &jsonschema::__private::serde_json::Value,
            ) -> bool {
                __validator_impl::entry_is_valid(instance)
            }
            pub fn validate<'__i>(
                instance: &'__i jsonschema::__private::serde_json::Value,
            ) -> ::std::result::Result<(), jsonschema::ValidationError<'__i>> {
                __validator_impl::entry_validate(instance)
            }
            pub fn iter_errors<'__i>(
                instance: &'__i jsonschema::__private::serde_json::Value,
            ) -> jsonschema::ErrorIterator<'__i> {
                __validator_impl::entry_iter_errors(instance)
            }
        }
        /// The first way `value` breaks the schema, or `None`.
        pub fn check(value: &rt::serde_json::Value) -> rt::Option<rt::String> {
            if Validator::is_valid(value) {
                return rt::None;
            }
            rt::schema_violation(Validator::validate(value))
        }
    }
}
