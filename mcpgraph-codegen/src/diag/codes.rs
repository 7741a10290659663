//! The code of every kind of diagnostic: one name per check, shared by the
//! sites that make the same check, stable across releases (tools, CI
//! annotations and `mcpgraph explain` read it, never the message).
//!
//! A code can only be made here, by the `codes!` list, so every code a
//! check pushes is in [`ALL`] and has an entry in the catalogue
//! ([`super::explain`]). The codes of lints are the lints' names.

use std::fmt;

/// The name of one kind of diagnostic, e.g. `unknown_node`.
///
/// Only this module makes codes, so a check cannot push one that is not
/// listed:
///
/// ```compile_fail
/// let made_up = mcpgraph_codegen::diag::Code("made_up");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Code(&'static str);

impl Code {
    /// The code as written: snake_case.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

macro_rules! codes {
    ($($(#[doc = $doc:literal])* $name:ident = $code:literal,)*) => {
        $(
            $(#[doc = $doc])*
            pub const $name: Code = Code($code);
        )*
        /// Every code, in the order of this module.
        pub const ALL: &[Code] = &[$($name),*];
    };
}

codes! {
    /// The graph file (or its test file) cannot be read.
    FILE_UNREADABLE = "file_unreadable",
    /// The graph file is not UTF-8 text.
    NOT_UTF8 = "not_utf8",
    /// The text is not YAML, or holds more than one document.
    YAML_SYNTAX = "yaml_syntax",
    /// The graph file has nothing in it.
    EMPTY_FILE = "empty_file",
    /// A key the mapping it is in does not have.
    UNKNOWN_KEY = "unknown_key",
    /// A key written twice in one mapping.
    DUPLICATE_KEY = "duplicate_key",
    /// A required field left out.
    MISSING_FIELD = "missing_field",
    /// A value of another YAML type than the field takes.
    WRONG_TYPE = "wrong_type",
    /// A value that is not one of the few a field takes.
    INVALID_CHOICE = "invalid_choice",
    /// A number out of what the field takes (a positive integer, a
    /// whole number of milliseconds).
    INVALID_NUMBER = "invalid_number",
    /// A limit above the ceiling the runtime can honour.
    LIMIT_TOO_LARGE = "limit_too_large",
    /// A maximum below its minimum.
    INVERTED_RANGE = "inverted_range",
    /// An empty string where a node's id or a node's name is expected.
    EMPTY_NAME = "empty_name",
    /// A node `type` that is not one of the node types.
    UNKNOWN_NODE_TYPE = "unknown_node_type",
    /// A server `type` that is not one of the transports.
    UNKNOWN_SERVER_TYPE = "unknown_server_type",
    /// A name that is not an environment variable's.
    INVALID_ENV_NAME = "invalid_env_name",
    /// An `{expr: ...}` argument with other keys beside `expr`.
    EXPR_OBJECT_KEYS = "expr_object_keys",
    /// A tool's or a form's schema without `type: object`.
    SCHEMA_NOT_OBJECT = "schema_not_object",
    /// A schema that is not valid JSON Schema.
    INVALID_SCHEMA = "invalid_schema",
    /// A JSON Schema `type` that does not exist.
    UNKNOWN_SCHEMA_TYPE = "unknown_schema_type",
    /// A JSON Logic object without exactly one key.
    LOGIC_OBJECT_KEYS = "logic_object_keys",
    /// A JSON Logic `var` that is empty or not a string.
    LOGIC_VAR = "logic_var",
    /// A JSON Logic operator that does not exist.
    UNKNOWN_LOGIC_OPERATOR = "unknown_logic_operator",
    /// A `parallel` node with no branch.
    NO_BRANCHES = "no_branches",
    /// Two `parallel` branches with one name.
    DUPLICATE_BRANCH = "duplicate_branch",
    /// `retry` on a call of one of the graph's own tools.
    RETRY_ON_GRAPH_TOOL = "retry_on_graph_tool",
    /// An `auth` grant without what it needs, or with what it refuses.
    AUTH_GRANT = "auth_grant",
    /// An `auth` `issuer` that is not an http(s) URL.
    AUTH_ISSUER = "auth_issuer",
    /// A secret written in the file, or given both inline and as a file.
    SECRET_SOURCE = "secret_source",
    /// A server with both `auth` and its own authorization header.
    AUTH_HEADER = "auth_header",
    /// `content.from` naming no node, a node twice, a node that is not an
    /// `mcp` node, or one the exit cannot be reached from.
    CONTENT_FROM = "content_from",
    /// A content block type that does not exist.
    UNKNOWN_CONTENT_TYPE = "unknown_content_type",
    /// `content.json: false` on a tool with an `outputSchema`.
    CONTENT_JSON_REQUIRED = "content_json_required",
    /// A `requiredScopes` entry that is not an OAuth scope.
    INVALID_SCOPE = "invalid_scope",
    /// An icon whose `src`, `mimeType`, `sizes` or `theme` is malformed.
    INVALID_ICON = "invalid_icon",
    /// An elicitation form field without a type, or of a type a flat form
    /// does not have.
    FORM_FIELD_TYPE = "form_field_type",
    /// A form's `required` naming a field it does not have, or twice.
    FORM_REQUIRED = "form_required",
    /// A form field's `enum`, `oneOf` or `enumNames` that is empty or does
    /// not line up.
    FORM_VALUES = "form_values",
    /// A string `format` elicitation does not allow.
    FORM_STRING_FORMAT = "form_string_format",
    /// A form field's `default` of another type than the field.
    FORM_DEFAULT_TYPE = "form_default_type",
    /// A name of a node that the tool does not have.
    UNKNOWN_NODE = "unknown_node",
    /// Two nodes of one tool with one id.
    DUPLICATE_NODE_ID = "duplicate_node_id",
    /// A tool name MCP does not allow.
    INVALID_TOOL_NAME = "invalid_tool_name",
    /// Two tools with one name.
    DUPLICATE_TOOL_NAME = "duplicate_tool_name",
    /// A tool without exactly one `entry` and one `exit` node.
    ENTRY_EXIT_COUNT = "entry_exit_count",
    /// An exit node that no path from the entry reaches.
    EXIT_UNREACHABLE = "exit_unreachable",
    /// A node that no path from the entry reaches.
    UNREACHABLE_NODE = "unreachable_node",
    /// An `mcp` node calling a server `mcpServers` does not declare.
    UNDECLARED_SERVER = "undeclared_server",
    /// A call (or a test case) naming a tool the graph does not have.
    UNKNOWN_TOOL = "unknown_tool",
    /// Tools that call each other with no way out.
    UNBOUNDED_RECURSION = "unbounded_recursion",
    /// What reaches the exit does not fit the tool's `outputSchema`.
    OUTPUT_SCHEMA_MISMATCH = "output_schema_mismatch",
    /// An expression that is not JSONata.
    JSONATA_SYNTAX = "jsonata_syntax",
    /// A regex literal that would not run as JavaScript runs it.
    REGEX_NOT_JAVASCRIPT = "regex_not_javascript",
    /// A note: the paths into a node's output cannot be checked.
    UNCHECKED_PATHS = "unchecked_paths",
    /// A note: a call whose whole `args` is one expression, which the lock
    /// cannot check.
    UNCHECKED_CALL = "unchecked_call",
    /// An expression reading a node that cannot have run before it.
    REFERENCE_BEFORE_RUN = "reference_before_run",
    /// A call of a function nothing defines.
    UNKNOWN_FUNCTION = "unknown_function",
    /// A call of a JSONata built-in with arguments its signature refuses.
    FUNCTION_SIGNATURE = "function_signature",
    /// A literal operand of a type its operator refuses.
    OPERAND_TYPE = "operand_type",
    /// A literal string in `args` that reads like an expression.
    LITERAL_LOOKS_LIKE_EXPRESSION = "literal_looks_like_expression",
    /// A path naming a field the tool's `inputSchema` does not list.
    UNKNOWN_INPUT_FIELD = "unknown_input_field",
    /// A path naming a field the called tool's `outputSchema` does not list.
    UNKNOWN_OUTPUT_FIELD = "unknown_output_field",
    /// A path naming a field that an object built by an expression, or a
    /// form's answer, cannot have.
    UNKNOWN_FIELD = "unknown_field",
    /// A server declared in `mcpServers` that no node calls.
    UNUSED_SERVER = "unused_server",
    /// A server the graph declares that the lock lacks, or the reverse.
    LOCK_COVERAGE = "lock_coverage",
    /// A call of a tool the locked server does not have.
    LOCK_UNKNOWN_TOOL = "lock_unknown_tool",
    /// No lock beside a graph that requires one.
    LOCK_REQUIRED = "lock_required",
    /// A lock that cannot be read.
    LOCK_UNREADABLE = "lock_unreadable",
    /// `retry` on a tool its server does not annotate as safe to repeat.
    RETRY_NOT_IDEMPOTENT = "retry_not_idempotent",
    /// A call lacking an argument the tool requires.
    MISSING_ARGUMENT = "missing_argument",
    /// A call passing an argument the tool's input schema does not list.
    UNKNOWN_ARGUMENT = "unknown_argument",
    /// A literal argument the tool's input schema refuses.
    INVALID_ARGUMENT = "invalid_argument",
    /// An expression argument of another JSON type than the tool takes.
    ARGUMENT_TYPE = "argument_type",
    /// Two test cases with one name.
    DUPLICATE_CASE = "duplicate_case",
    /// A test case's `args` the tool's `inputSchema` refuses.
    INVALID_CASE_ARGS = "invalid_case_args",
    /// A test case's `expect` that is empty or both fails and returns.
    EXPECT_SHAPE = "expect_shape",
    /// A test case's list of answers for a node that is empty.
    EMPTY_ANSWERS = "empty_answers",
    /// A test case answering a node that is not an `elicit` node.
    ANSWER_NOT_ELICIT = "answer_not_elicit",
    /// An answer whose `action` is unknown or does not go with `content`.
    ANSWER_ACTION = "answer_action",
    /// An answer's `content` the form's `requestedSchema` refuses.
    INVALID_ANSWER = "invalid_answer",
}
