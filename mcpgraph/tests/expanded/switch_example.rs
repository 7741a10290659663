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
                input_check: test_switch::input_schema::check,
                output_check: rt::Some(test_switch::output_schema::check),
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
            r#"{"file":"switch_example/switch_example.yaml","tools":[{"name":"test_switch","nodes":[{"id":"entry","type":"entry","line":30,"routes":[]},{"id":"switch_node","type":"switch","line":35,"routes":[{"to":"high_path","line":42,"label":"condition 1"},{"to":"low_path","line":47,"label":"condition 2"},{"to":"zero_path","line":48,"label":"default"}]},{"id":"high_path","type":"transform","line":51,"routes":[]},{"id":"low_path","type":"transform","line":58,"routes":[]},{"id":"zero_path","type":"transform","line":65,"routes":[]},{"id":"exit","type":"exit","line":72,"routes":[]}]}]}"#,
        );
        fn compile() -> rt::Result<Self::Compiled, rt::StartupError> {
            let test_switch = test_switch::Compiled::new()?;
            rt::Ok(__McpgraphCompiled { test_switch })
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
    /// The tool's expressions, built once at start-up.
    pub struct Compiled {
        switch_node: rt::Switch,
        high_path: rt::Expr,
        low_path: rt::Expr,
        zero_path: rt::Expr,
    }
    impl Compiled {
        /// Builds every expression of the tool from its parsed tree.
        pub fn new() -> rt::Result<Self, rt::StartupError> {
            rt::Ok(Self {
                switch_node: rt::Switch::compiled(
                    rt::Vec::from([
                        rt::Condition {
                            json: r#"{">":[{"val":["\u0000","0"]},10]}"#,
                            tree: {
                                use rt::logic as l;
                                l::binary(l::Op::Gt, l::slot(0), l::num(10.0))
                            },
                            slots: rt::Vec::from([
                                rt::Expr::from_ast(
                                    "entry.value",
                                    {
                                        use rt::ast as j;
                                        j::names(rt::None, &["entry", "value"])
                                    },
                                    rt::Helpers::NONE,
                                ),
                            ]),
                            needs_context: false,
                        },
                        rt::Condition {
                            json: r#"{">":[{"val":["\u0000","0"]},0]}"#,
                            tree: {
                                use rt::logic as l;
                                l::binary(l::Op::Gt, l::slot(0), l::num(0.0))
                            },
                            slots: rt::Vec::from([
                                rt::Expr::from_ast(
                                    "entry.value",
                                    {
                                        use rt::ast as j;
                                        j::names(rt::None, &["entry", "value"])
                                    },
                                    rt::Helpers::NONE,
                                ),
                            ]),
                            needs_context: false,
                        },
                    ]),
                )?,
                high_path: rt::Expr::from_ast(
                    r#"{ "result": "high" }"#,
                    {
                        use rt::ast as j;
                        j::object([(j::string("result"), j::string("high"))])
                    },
                    rt::Helpers::NONE,
                ),
                low_path: rt::Expr::from_ast(
                    r#"{ "result": "low" }"#,
                    {
                        use rt::ast as j;
                        j::object([(j::string("result"), j::string("low"))])
                    },
                    rt::Helpers::NONE,
                ),
                zero_path: rt::Expr::from_ast(
                    r#"{ "result": "zero_or_negative" }"#,
                    {
                        use rt::ast as j;
                        j::object([(j::string("result"), j::string("zero_or_negative"))])
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
                                    "value" => {
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
                                "value" => {
                                    __req_0 = true;
                                    if __first.is_none() {
                                        __first = (|| {
                                            let instance = value;
                                            let __path = &__path.push("value");
                                            if !(instance.is_number()) {
                                                return Some(
                                                    __err::single_type(
                                                        "/properties/value/type",
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
                                __err::required(
                                    "/required",
                                    __path.into(),
                                    instance,
                                    "value",
                                ),
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
                                    if !(obj.contains_key("value")) {
                                        return Some(
                                            __err::required(
                                                "/required",
                                                __path.into(),
                                                instance,
                                                "value",
                                            ),
                                        );
                                    }
                                    None
                                })(),
                            );
                        if let Some(value) = obj.get("value") {
                            let instance = value;
                            if !(instance.is_number()) {
                                let __path = &__path.push("value");
                                if !(instance.is_number()) {
                                    __errors
                                        .push(
                                            __err::single_type(
                                                "/properties/value/type",
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
                                    "result" => instance.is_string(),
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
                                "result" => {
                                    let instance = value;
                                    let __path = &__path.push("result");
                                    if !(instance.is_string()) {
                                        return Some(
                                            __err::single_type(
                                                "/properties/result/type",
                                                __path.into(),
                                                instance,
                                                __JT::String,
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
                        if let Some(value) = obj.get("result") {
                            let instance = value;
                            if !(instance.is_string()) {
                                let __path = &__path.push("result");
                                if !(instance.is_string()) {
                                    __errors
                                        .push(
                                            __err::single_type(
                                                "/properties/result/type",
                                                __path.into(),
                                                instance,
                                                __JT::String,
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
