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
                input_check: sum_to_n::input_schema::check,
                output_check: rt::Some(sum_to_n::output_schema::check),
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
            r#"{"file":"loop_example/loop_example.yaml","tools":[{"name":"sum_to_n","nodes":[{"id":"entry_sum","type":"entry","line":30,"routes":[]},{"id":"increment_node","type":"transform","line":38,"routes":[]},{"id":"check_condition","type":"switch","line":56,"routes":[{"to":"increment_node","line":61,"label":"condition 1"},{"to":"exit_sum","line":62,"label":"default"}]},{"id":"exit_sum","type":"transform","line":67,"routes":[]},{"id":"exit_sum_final","type":"exit","line":80,"routes":[]}]}]}"#,
        );
        fn compile() -> rt::Result<Self::Compiled, rt::StartupError> {
            let sum_to_n = sum_to_n::Compiled::new()?;
            rt::Ok(__McpgraphCompiled { sum_to_n })
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
    /// The tool's expressions, built once at start-up.
    pub struct Compiled {
        increment_node: rt::Expr,
        check_condition: rt::Switch,
        exit_sum: rt::Expr,
    }
    impl Compiled {
        /// Builds every expression of the tool from its parsed tree.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                increment_node: rt::Expr::from_ast(
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
                    {
                        use rt::ast as j;
                        j::AstNode::Conditional {
                            condition: j::b(
                                j::binary(
                                    j::BinaryOp::Equal,
                                    j::function(
                                        "executionCount",
                                        [j::string("increment_node")],
                                        true,
                                    ),
                                    j::AstNode::Number(0.0),
                                ),
                            ),
                            then_branch: j::b(
                                j::object([
                                    (j::string("counter"), j::AstNode::Number(1.0)),
                                    (j::string("sum"), j::AstNode::Number(1.0)),
                                    (
                                        j::string("target"),
                                        j::names(rt::Some(""), &["entry_sum", "n"]),
                                    ),
                                ]),
                            ),
                            else_branch: rt::Some(
                                j::b(
                                    j::object([
                                        (
                                            j::string("counter"),
                                            j::binary(
                                                j::BinaryOp::Add,
                                                j::path([
                                                    j::plain(
                                                        j::function(
                                                            "nodeExecution",
                                                            [
                                                                j::string("increment_node"),
                                                                j::AstNode::Unary {
                                                                    op: j::UnaryOp::Negate,
                                                                    operand: j::b(j::AstNode::Number(1.0)),
                                                                },
                                                            ],
                                                            true,
                                                        ),
                                                    ),
                                                    j::plain(j::name("counter")),
                                                ]),
                                                j::AstNode::Number(1.0),
                                            ),
                                        ),
                                        (
                                            j::string("sum"),
                                            j::binary(
                                                j::BinaryOp::Add,
                                                j::binary(
                                                    j::BinaryOp::Add,
                                                    j::path([
                                                        j::plain(
                                                            j::function(
                                                                "nodeExecution",
                                                                [
                                                                    j::string("increment_node"),
                                                                    j::AstNode::Unary {
                                                                        op: j::UnaryOp::Negate,
                                                                        operand: j::b(j::AstNode::Number(1.0)),
                                                                    },
                                                                ],
                                                                true,
                                                            ),
                                                        ),
                                                        j::plain(j::name("sum")),
                                                    ]),
                                                    j::path([
                                                        j::plain(
                                                            j::function(
                                                                "nodeExecution",
                                                                [
                                                                    j::string("increment_node"),
                                                                    j::AstNode::Unary {
                                                                        op: j::UnaryOp::Negate,
                                                                        operand: j::b(j::AstNode::Number(1.0)),
                                                                    },
                                                                ],
                                                                true,
                                                            ),
                                                        ),
                                                        j::plain(j::name("counter")),
                                                    ]),
                                                ),
                                                j::AstNode::Number(1.0),
                                            ),
                                        ),
                                        (
                                            j::string("target"),
                                            j::names(rt::Some(""), &["entry_sum", "n"]),
                                        ),
                                    ]),
                                ),
                            ),
                        }
                    },
                    rt::Helpers::NONE,
                ),
                check_condition: rt::Switch::compiled(
                    rt::Vec::from([
                        rt::Condition {
                            json: r#"{"<":[{"val":["\u0000","0"]},{"val":["\u0000","1"]}]}"#,
                            tree: {
                                use rt::logic as l;
                                l::binary(l::Op::Lt, l::slot(0), l::slot(1))
                            },
                            slots: rt::Vec::from([
                                rt::Expr::from_ast(
                                    "$.increment_node.counter",
                                    {
                                        use rt::ast as j;
                                        j::names(rt::Some(""), &["increment_node", "counter"])
                                    },
                                    rt::Helpers::NONE,
                                ),
                                rt::Expr::from_ast(
                                    "$.increment_node.target",
                                    {
                                        use rt::ast as j;
                                        j::names(rt::Some(""), &["increment_node", "target"])
                                    },
                                    rt::Helpers::NONE,
                                ),
                            ]),
                            needs_context: false,
                        },
                    ]),
                )?,
                exit_sum: rt::Expr::from_ast(
                    r#"$previousNode() = "exit_sum" ? {
  "sum": $.increment_node.sum
} : {
  "sum": 0,
  "error": "previousNode check failed"
}
"#,
                    {
                        use rt::ast as j;
                        j::AstNode::Conditional {
                            condition: j::b(
                                j::binary(
                                    j::BinaryOp::Equal,
                                    j::function("previousNode", [], true),
                                    j::string("exit_sum"),
                                ),
                            ),
                            then_branch: j::b(
                                j::object([
                                    (
                                        j::string("sum"),
                                        j::names(rt::Some(""), &["increment_node", "sum"]),
                                    ),
                                ]),
                            ),
                            else_branch: rt::Some(
                                j::b(
                                    j::object([
                                        (j::string("sum"), j::AstNode::Number(0.0)),
                                        (j::string("error"), j::string("previousNode check failed")),
                                    ]),
                                ),
                            ),
                        }
                    },
                    rt::Helpers::NONE,
                ),
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
    #[doc(hidden)]
    #[allow(unused_imports, unused_qualifications, clippy::all, clippy::pedantic)]
    pub mod input_schema {
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
                match instance {
                    __Value::Object(obj) => {
                        let mut __req_0 = false;
                        let __object_pass = obj
                            .iter()
                            .all(|(key, instance)| {
                                match key.as_str() {
                                    "n" => {
                                        if !(instance.is_number()) {
                                            return false;
                                        }
                                        __req_0 = true;
                                    }
                                    _ => {}
                                }
                                true
                            });
                        __object_pass && __req_0
                    }
                    _ => false,
                }
            }
            pub(super) fn validate<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
            ) -> Option<__VE<'__i>> {
                match instance {
                    __Value::Object(obj) => {
                        let mut __req_0 = false;
                        let mut __first = None;
                        for (key, value) in obj.iter() {
                            let key_str = key.as_str();
                            match key_str {
                                "n" => {
                                    __req_0 = true;
                                    if __first.is_none() {
                                        __first = (|| {
                                            let instance = value;
                                            let __path = &__path.push("n");
                                            if !(instance.is_number()) {
                                                return Some(
                                                    __err::single_type(
                                                        "/properties/n/type",
                                                        __path.into(),
                                                        instance,
                                                        __JT::Number,
                                                    ),
                                                );
                                            }
                                            None
                                        })();
                                    }
                                }
                                _ => {}
                            }
                        }
                        if !__req_0 {
                            return Some(
                                __err::required("/required", __path.into(), instance, "n"),
                            );
                        }
                        if __first.is_some() {
                            return __first;
                        }
                    }
                    _ => {
                        return Some(
                            __err::single_type(
                                "/type",
                                __path.into(),
                                instance,
                                __JT::Object,
                            ),
                        );
                    }
                }
                None
            }
            pub(super) fn collect_errors<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
                __errors: &mut Vec<__VE<'__i>>,
            ) {
                match instance {
                    __Value::Object(obj) => {
                        __errors
                            .extend(
                                (|| -> Option<__VE<'_>> {
                                    if !(obj.contains_key("n")) {
                                        return Some(
                                            __err::required("/required", __path.into(), instance, "n"),
                                        );
                                    }
                                    None
                                })(),
                            );
                        if let Some(value) = obj.get("n") {
                            let instance = value;
                            if !(instance.is_number()) {
                                let __path = &__path.push("n");
                                if !(instance.is_number()) {
                                    __errors
                                        .push(
                                            __err::single_type(
                                                "/properties/n/type",
                                                __path.into(),
                                                instance,
                                                __JT::Number,
                                            ),
                                        );
                                }
                            }
                        }
                    }
                    _ => {
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
                match instance {
                    __Value::Object(obj) => {
                        obj.iter()
                            .all(|(key, instance)| {
                                let key_str = key.as_str();
                                match key_str {
                                    "sum" => instance.is_number(),
                                    _ => true,
                                }
                            })
                    }
                    _ => false,
                }
            }
            pub(super) fn validate<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
            ) -> Option<__VE<'__i>> {
                match instance {
                    __Value::Object(obj) => {
                        for (key, value) in obj.iter() {
                            let key_str = key.as_str();
                            match key_str {
                                "sum" => {
                                    let instance = value;
                                    let __path = &__path.push("sum");
                                    if !(instance.is_number()) {
                                        return Some(
                                            __err::single_type(
                                                "/properties/sum/type",
                                                __path.into(),
                                                instance,
                                                __JT::Number,
                                            ),
                                        );
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {
                        return Some(
                            __err::single_type(
                                "/type",
                                __path.into(),
                                instance,
                                __JT::Object,
                            ),
                        );
                    }
                }
                None
            }
            pub(super) fn collect_errors<'__i>(
                instance: &'__i __Value,
                __path: &__paths::LazyLocation,
                __errors: &mut Vec<__VE<'__i>>,
            ) {
                match instance {
                    __Value::Object(obj) => {
                        if let Some(value) = obj.get("sum") {
                            let instance = value;
                            if !(instance.is_number()) {
                                let __path = &__path.push("sum");
                                if !(instance.is_number()) {
                                    __errors
                                        .push(
                                            __err::single_type(
                                                "/properties/sum/type",
                                                __path.into(),
                                                instance,
                                                __JT::Number,
                                            ),
                                        );
                                }
                            }
                        }
                    }
                    _ => {
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
