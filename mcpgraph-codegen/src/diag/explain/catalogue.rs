//! The explanations, one per code, in the order of `codes::ALL`.

use super::{Beside, Explanation};
use crate::diag::codes;

/// The first lines of every example.
macro_rules! head {
    () => {
        "version: \"1.0\"\nserver: {name: demo, version: \"1.0\"}\n"
    };
}

/// A file with one tool `echo` whose `nodes:` follow (indented by six).
macro_rules! echo {
    ($nodes:expr) => {
        concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object, properties: {text: {type: string}}}\n    nodes:\n",
            $nodes
        )
    };
}

/// A file with the stdio server `fs` and one tool `list` whose `nodes:`
/// follow (indented by six).
macro_rules! list {
    ($nodes:expr) => {
        concat!(
            head!(),
            "mcpServers:\n  fs: {command: npx, args: [\"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]}\n",
            "tools:\n  - name: list\n    description: Lists a directory\n    inputSchema: {type: object, properties: {path: {type: string}}}\n    nodes:\n",
            $nodes
        )
    };
}

/// The graph the examples of test files are of.
const ASK: &str = concat!(
    head!(),
    r#"tools:
  - name: greet
    description: Asks a name and greets
    inputSchema: {type: object, properties: {greeting: {type: string}}, required: [greeting]}
    nodes:
      - {id: entry, type: entry, next: ask}
      - id: ask
        type: elicit
        message: What is your name?
        requestedSchema:
          type: object
          properties: {name: {type: string, title: Name}}
          required: [name]
        routes: {accept: hello}
      - id: hello
        type: transform
        transform: {expr: '$.entry.greeting & ", " & $.ask.name'}
        next: exit
      - {id: exit, type: exit}
"#
);

/// The lock of the examples that call `fs`/`list_directory`.
const FS_LOCK: &str = r#"{
  "lockVersion": 1,
  "servers": {
    "fs": {
      "protocolVersion": "2025-06-18",
      "serverInfo": { "name": "fs", "version": "1" },
      "tools": {
        "list_directory": {
          "inputSchema": {
            "type": "object",
            "properties": { "path": { "type": "string" } },
            "required": ["path"]
          },
          "outputSchema": {
            "type": "object",
            "properties": { "entries": { "type": "array" } }
          }
        }
      }
    }
  }
}
"#;

/// `list` calling `list_directory` with `args`, then the exit.
macro_rules! call {
    ($args:expr) => {
        list!(concat!(
            "      - {id: entry, type: entry, next: ls}\n      - id: ls\n        type: mcp\n        server: fs\n        tool: list_directory\n        args: ",
            $args,
            "\n        next: exit\n      - {id: exit, type: exit}\n"
        ))
    };
}

/// The tool `echo`, as the first of `tools:`.
macro_rules! echo_tool {
    () => {
        concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        )
    };
}

/// The tool `find` calling `crm`, after `mcpServers:`.
macro_rules! find {
    () => {
        "tools:\n  - name: find\n    description: Finds a customer\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: find}\n      - {id: find, type: mcp, server: crm, tool: find_customer, next: exit}\n      - {id: exit, type: exit}\n"
    };
}

/// A tool asking a form whose fields follow `name` (indented by twelve).
macro_rules! form_tool {
    () => {
        "tools:\n  - name: ask\n    description: Asks for details\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: ask}\n      - id: ask\n        type: elicit\n        message: Your details?\n        requestedSchema:\n          type: object\n          properties:\n            name: {type: string, title: Name}\n"
    };
}

/// The end of `form_tool!` after `required`.
macro_rules! form_routes {
    () => {
        "        routes: {accept: exit}\n      - {id: exit, type: exit}\n"
    };
}

/// The end of `form_tool!` after the fields.
macro_rules! form_end {
    () => {
        concat!("          required: [name]\n", form_routes!())
    };
}

/// The test file of `ASK` with one case.
macro_rules! case {
    () => {
        "cases:\n  - name: greets Ada\n    tool: greet\n    args: {greeting: Hi}\n    answers: {ask: {action: accept, content: {name: Ada}}}\n    expect: {output: \"Hi, Ada\"}\n"
    };
}

/// A graph with a character that Latin-1 and UTF-8 write differently.
const CAFE: &str = concat!(
    head!(),
    "tools:\n  - name: order\n    description: Orders a café au lait\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
);

const ECHO: &str =
    echo!("      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n");
const CALL: &str = call!(r#"{path: {expr: "$.entry.path"}}"#);

/// `echo`, and `both` calling it twice at once.
const BOTH: &str = concat!(
    echo_tool!(),
    r#"  - name: both
    description: Echoes twice at once
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: fan}
      - id: fan
        type: parallel
        branches:
          a: {tool: echo, args: {}}
          b: {tool: echo, args: {}}
        next: exit
      - {id: exit, type: exit}
"#
);

/// `find` calling `crm`, a server with `auth` as it should be.
const CRM: &str = concat!(
    head!(),
    r#"mcpServers:
  crm:
    type: http
    url: https://crm.example.com/mcp
    auth: {grant: client_credentials, issuer: "https://login.example.com", clientId: demo, clientSecret: "${CRM_SECRET}"}
"#,
    find!()
);

pub(super) static ALL: &[Explanation] = &[
    Explanation {
        code: codes::FILE_UNREADABLE,
        title: "the file cannot be read",
        meaning: "The graph file (or its test file) does not exist at the path given, or cannot be read. A path in `mcpgraph!` is relative to the crate's `Cargo.toml`; on the command line, to the current directory. The message names the absolute path that was tried.",
        example: "",
        beside: Beside::NoFile,
        fix: "Give the path of an existing file, relative to the crate (the macro, build.rs) or the current directory (`mcpgraph check`).",
        fixed: None,
    },
    Explanation {
        code: codes::NOT_UTF8,
        title: "the file is not UTF-8 text",
        meaning: "A graph file is UTF-8 text. The error points at the first byte that is not UTF-8, often a character saved by an editor in a legacy encoding (Latin-1, Windows-1252).",
        example: CAFE,
        beside: Beside::Latin1,
        fix: "Save the file as UTF-8 (the same text).",
        fixed: Some(CAFE),
    },
    Explanation {
        code: codes::YAML_SYNTAX,
        title: "the text is not YAML",
        meaning: "The file cannot be read as YAML (an unclosed bracket or quote, a tab in the indentation, a bad indentation), or holds a second YAML document after a `---` line: a graph file (and a test file) is one YAML document.",
        example: concat!(
            "version: \"1.0\"\nserver: {name: demo, version: \"1.0\"\n",
            "tools: []\n"
        ),
        beside: Beside::Nothing,
        fix: "Correct the YAML at the position shown (here: close the `{`).",
        fixed: Some(concat!(head!(), "tools: []\n")),
    },
    Explanation {
        code: codes::EMPTY_FILE,
        title: "the graph file is empty",
        meaning: "The file holds nothing but comments or blank lines. A graph file is a mapping with `version`, `server` and `tools`.",
        example: "# the graph of the demo server\n",
        beside: Beside::Nothing,
        fix: "Write the graph: at least `version` and `server`.",
        fixed: Some(concat!(
            "# the graph of the demo server\n",
            head!(),
            "tools: []\n"
        )),
    },
    Explanation {
        code: codes::UNKNOWN_KEY,
        title: "a key the mapping does not have",
        meaning: "Every mapping of the format (the file, `server`, a server of `mcpServers`, a tool, a node, a test case...) has a fixed set of keys; any other key is an error, since a misspelt key would otherwise be ignored silently. The help names the closest key, or lists the keys allowed there.",
        example: echo!(
            "      - {id: entry, type: entry, nxt: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Spell the key as the format does (here `next`), or remove it.",
        fixed: Some(ECHO),
    },
    Explanation {
        code: codes::DUPLICATE_KEY,
        title: "a key written twice in one mapping",
        meaning: "YAML keeps one value per key; a key written twice in one mapping is most likely a mistake (a copied block), so the second one is an error rather than silently winning. The note says where the first one is.",
        example: concat!(
            head!(),
            "server:\n  name: other\n  version: \"1.0\"\ntools: []\n"
        ),
        beside: Beside::Nothing,
        fix: "Keep one of the two.",
        fixed: Some(concat!(head!(), "tools: []\n")),
    },
    Explanation {
        code: codes::MISSING_FIELD,
        title: "a required field is missing",
        meaning: "A field the format requires is absent: `version` or `server` at the top level, `name` or `version` in `server`, a tool's `name`, `description`, `inputSchema` and `nodes`, a node's `id` and `type`, an `mcp` node's `server` and `tool`, a test case's `name`, `tool` or `expect`. A key reported unknown as a misspelling of the field is not reported missing too.",
        example: "version: \"1.0\"\nserver: {name: demo}\ntools: []\n",
        beside: Beside::Nothing,
        fix: "Add the field.",
        fixed: Some(concat!(head!(), "tools: []\n")),
    },
    Explanation {
        code: codes::WRONG_TYPE,
        title: "a value of the wrong YAML type",
        meaning: "A field holds a value of another type than it takes: a number where a string is expected (`version: 1.0`), a string where a mapping or a list is. YAML reads an unquoted `1.0`, `true` or `null` as a number, a boolean or null, not as a string.",
        example: "version: 1.0\nserver: {name: demo, version: \"1.0\"}\ntools: []\n",
        beside: Beside::Nothing,
        fix: "Write a value of the type the field takes (here: quote the version).",
        fixed: Some(concat!(head!(), "tools: []\n")),
    },
    Explanation {
        code: codes::INVALID_CHOICE,
        title: "a value that is not one of the choices",
        meaning: "A field that takes one of a few names (an `auth` `grant`, a `tokenStore`, a `signingAlgorithm`, a tool's `task` mode) holds another. The message lists the choices.",
        example: concat!(
            head!(),
            r#"mcpServers:
  crm:
    type: http
    url: https://crm.example.com/mcp
    auth: {tokenStore: disk}
tools:
  - name: find
    description: Finds a customer
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: find}
      - {id: find, type: mcp, server: crm, tool: find_customer, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Use one of the values listed.",
        fixed: Some(concat!(
            head!(),
            r#"mcpServers:
  crm:
    type: http
    url: https://crm.example.com/mcp
    auth: {tokenStore: file}
tools:
  - name: find
    description: Finds a customer
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: find}
      - {id: find, type: mcp, server: crm, tool: find_customer, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::INVALID_NUMBER,
        title: "a number out of what the field takes",
        meaning: "Limits and time-outs (`executionLimits`, `timeoutMs`, `maxConcurrency`) are positive integers; retry delays are whole numbers of milliseconds, 0 or more; a form field's bounds are numbers of its kind.",
        example: concat!(
            head!(),
            "executionLimits: {maxNodeExecutions: 0}\ntools: []\n"
        ),
        beside: Beside::Nothing,
        fix: "Write a number the field takes.",
        fixed: Some(concat!(
            head!(),
            "executionLimits: {maxNodeExecutions: 100}\ntools: []\n"
        )),
    },
    Explanation {
        code: codes::LIMIT_TOO_LARGE,
        title: "a limit above its ceiling",
        meaning: "Some limits have a ceiling the runtime cannot go past: `maxValueDepth` (the stacks that convert a value carry no deeper one) and `retry.attempts`.",
        example: concat!(
            head!(),
            "executionLimits: {maxValueDepth: 100000}\ntools: []\n"
        ),
        beside: Beside::Nothing,
        fix: "Lower the limit to the ceiling the message names, or below.",
        fixed: Some(concat!(
            head!(),
            "executionLimits: {maxValueDepth: 64}\ntools: []\n"
        )),
    },
    Explanation {
        code: codes::INVERTED_RANGE,
        title: "a maximum below its minimum",
        meaning: "A pair of bounds where the upper one is below the lower one: `retry.maxBackoffMs` below `retry.backoffMs`, a form field's `maxLength` below its `minLength` or `maximum` below `minimum`. Nothing could satisfy both.",
        example: call!(
            r#"{path: {expr: "$.entry.path"}}
        retry: {attempts: 3, backoffMs: 1000, maxBackoffMs: 100}"#
        ),
        beside: Beside::Nothing,
        fix: "Swap or correct the bounds.",
        fixed: Some(call!(
            r#"{path: {expr: "$.entry.path"}}
        retry: {attempts: 3, backoffMs: 100, maxBackoffMs: 1000}"#
        )),
    },
    Explanation {
        code: codes::EMPTY_NAME,
        title: "an empty node id or node name",
        meaning: "A node's `id`, and a key that names a node (`onError`), must not be the empty string.",
        example: call!(
            r#"{path: {expr: "$.entry.path"}}
        onError: """#
        ),
        beside: Beside::Nothing,
        fix: "Name a node, or leave the key out.",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::UNKNOWN_NODE_TYPE,
        title: "a node type that does not exist",
        meaning: "A node's `type` is one of `entry`, `exit`, `mcp`, `transform`, `switch`, `elicit`, `parallel` and `forEach`. The help names the closest one.",
        example: echo!(
            "      - {id: entry, type: entry, next: shout}\n      - {id: shout, type: tranform, transform: {expr: '$uppercase($.entry.text)'}, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Use one of the node types.",
        fixed: Some(echo!(
            "      - {id: entry, type: entry, next: shout}\n      - {id: shout, type: transform, transform: {expr: '$uppercase($.entry.text)'}, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::UNKNOWN_SERVER_TYPE,
        title: "a server type that does not exist",
        meaning: "A server's `type` chooses its transport: `stdio` (the default), `streamableHttp` (also `http`, `streamable-http`) or `sse`.",
        example: concat!(
            head!(),
            r#"mcpServers:
  search: {type: websocket, url: "wss://search.example.com/mcp"}
tools:
  - name: find
    description: Searches
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: q}
      - {id: q, type: mcp, server: search, tool: query, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Use one of the transports.",
        fixed: Some(concat!(
            head!(),
            r#"mcpServers:
  search: {type: http, url: "https://search.example.com/mcp"}
tools:
  - name: find
    description: Searches
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: q}
      - {id: q, type: mcp, server: search, tool: query, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::INVALID_ENV_NAME,
        title: "not an environment variable name",
        meaning: "`inheritEnv` lists names of environment variables passed on to a stdio server: letters, digits and `_`, not starting with a digit.",
        example: concat!(
            head!(),
            r#"mcpServers:
  fs: {command: npx, inheritEnv: [NODE-OPTIONS]}
tools:
  - name: list
    description: Lists the current directory
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: "."}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Write the variable's name.",
        fixed: Some(concat!(
            head!(),
            r#"mcpServers:
  fs: {command: npx, inheritEnv: [NODE_OPTIONS]}
tools:
  - name: list
    description: Lists the current directory
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: "."}, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::EXPR_OBJECT_KEYS,
        title: "an `expr` object with other keys",
        meaning: "In `args`, an object whose key is `expr` is an expression, replaced by its value. With other keys beside `expr` it is neither an expression nor clearly a literal, so it is refused.",
        example: call!(r#"{path: {expr: "$.entry.path", default: "."}}"#),
        beside: Beside::Nothing,
        fix: "Keep `expr` alone; a default goes in the expression (`$.entry.path ? $.entry.path : \".\"`).",
        fixed: Some(call!(
            r#"{path: {expr: '$.entry.path ? $.entry.path : "."'}}"#
        )),
    },
    Explanation {
        code: codes::SCHEMA_NOT_OBJECT,
        title: "a schema without `type: object`",
        meaning: "MCP requires a tool's `inputSchema` and `outputSchema` to describe objects, and an `elicit` node's `requestedSchema` is a form: an object of fields. Each must have `type: object`.",
        example: concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: array}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Describe an object (its fields under `properties`).",
        fixed: Some(ECHO),
    },
    Explanation {
        code: codes::INVALID_SCHEMA,
        title: "a schema that is not valid JSON Schema",
        meaning: "A tool's schemas are checked against the JSON Schema meta-schema: a keyword with a value JSON Schema refuses (a `pattern` that is not a regex, a `minimum` that is not a number) is an error at the schema.",
        example: concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object, properties: {text: {type: string, pattern: \"[a-\"}}}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Write the keyword as JSON Schema defines it (here: close the character class).",
        fixed: Some(concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object, properties: {text: {type: string, pattern: \"[a-z]\"}}}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::UNKNOWN_SCHEMA_TYPE,
        title: "a JSON Schema type that does not exist",
        meaning: "A schema's `type` is one of `string`, `number`, `integer`, `boolean`, `object`, `array` and `null`.",
        example: concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object, properties: {text: {type: str}}}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Use one of the JSON Schema types.",
        fixed: Some(ECHO),
    },
    Explanation {
        code: codes::LOGIC_OBJECT_KEYS,
        title: "a JSON Logic object without exactly one key",
        meaning: "In a switch rule, every object is an operation: its one key is the operator, its value the operands. An object with two keys (or none) is not an operation, and a literal object cannot be written in a rule.",
        example: echo!(
            r#"      - {id: entry, type: entry, next: route}
      - id: route
        type: switch
        conditions:
          - rule: {"==": [{var: "$.entry.text"}, ""], "!": true}
            next: exit
        next: exit
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Write one operation per object, combining them with `and` or `or`.",
        fixed: Some(echo!(
            r#"      - {id: entry, type: entry, next: route}
      - id: route
        type: switch
        conditions:
          - rule: {"==": [{var: "$.entry.text"}, ""]}
            next: exit
        next: exit
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::LOGIC_VAR,
        title: "a JSON Logic `var` that is empty or not a string",
        meaning: "A `var` reads the context with a JSONata expression, written as a string (`$.entry.text`); `$` is the whole context. An empty `var` or one of another type is refused.",
        example: echo!(
            r#"      - {id: entry, type: entry, next: route}
      - id: route
        type: switch
        conditions:
          - rule: {"!": {var: ""}}
            next: exit
        next: exit
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Write the expression of what the rule reads.",
        fixed: Some(echo!(
            r#"      - {id: entry, type: entry, next: route}
      - id: route
        type: switch
        conditions:
          - rule: {"!": {var: "$.entry.text"}}
            next: exit
        next: exit
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::UNKNOWN_LOGIC_OPERATOR,
        title: "a JSON Logic operator that does not exist",
        meaning: "A switch rule uses the operators of json-logic-js 2.0 (`==`, `>`, `and`, `in`, `var`, `missing`...). The help names the closest one.",
        example: echo!(
            r#"      - {id: entry, type: entry, next: route}
      - id: route
        type: switch
        conditions:
          - rule: {"equals": [{var: "$.entry.text"}, ""]}
            next: exit
        next: exit
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Use one of the operators.",
        fixed: Some(echo!(
            r#"      - {id: entry, type: entry, next: route}
      - id: route
        type: switch
        conditions:
          - rule: {"==": [{var: "$.entry.text"}, ""]}
            next: exit
        next: exit
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::NO_BRANCHES,
        title: "a `parallel` node with no branch",
        meaning: "A `parallel` node runs its branches at once; with none it would do nothing.",
        example: concat!(
            echo_tool!(),
            r#"  - name: both
    description: Echoes twice at once
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: fan}
      - {id: fan, type: parallel, branches: {}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Give at least one branch, or remove the node.",
        fixed: Some(BOTH),
    },
    Explanation {
        code: codes::DUPLICATE_BRANCH,
        title: "two branches with one name",
        meaning: "A `parallel` node's output has one field per branch, named by the branch: two branches with one name would collide.",
        example: concat!(
            echo_tool!(),
            r#"  - name: both
    description: Echoes twice at once
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: fan}
      - id: fan
        type: parallel
        branches:
          a: {tool: echo, args: {}}
          a: {tool: echo, args: {}}
        next: exit
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Name each branch differently.",
        fixed: Some(BOTH),
    },
    Explanation {
        code: codes::RETRY_ON_GRAPH_TOOL,
        title: "`retry` on a call of one of the graph's own tools",
        meaning: "A call without `server` runs a tool of this graph in the same process: there is no transport to fail, so a retry would only run the tool's work again. Retries belong on the downstream calls inside that tool.",
        example: concat!(
            echo_tool!(),
            r#"  - name: both
    description: Echoes twice at once
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: fan}
      - id: fan
        type: parallel
        branches:
          a: {tool: echo, args: {}, retry: {attempts: 3}}
          b: {tool: echo, args: {}}
        next: exit
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Remove `retry` from the call (put it on the `mcp` nodes of the called tool).",
        fixed: Some(BOTH),
    },
    Explanation {
        code: codes::AUTH_GRANT,
        title: "an `auth` grant without what it needs",
        meaning: "Each OAuth grant needs some keys and refuses others: `client_credentials` needs `issuer`, `clientId` and a secret or private key; `jwt_bearer` needs `issuer` and an `assertion` and takes no client secret; `token_exchange` needs `issuer` and a client secret and is not for `sse` servers; `enterprise` goes with `grant: enterprise` only; a private key signs `client_credentials` assertions only.",
        example: concat!(
            head!(),
            r#"mcpServers:
  crm:
    type: http
    url: https://crm.example.com/mcp
    auth: {grant: client_credentials, clientId: demo, clientSecret: "${CRM_SECRET}"}
"#,
            find!()
        ),
        beside: Beside::Nothing,
        fix: "Add what the grant needs (here the authorization server's `issuer`), or remove what it refuses.",
        fixed: Some(CRM),
    },
    Explanation {
        code: codes::AUTH_ISSUER,
        title: "an `issuer` that is not an http(s) URL",
        meaning: "`issuer` names the authorization server the server's tokens come from, by its issuer URL (https, or http for a local one), or a `${VAR}` reference.",
        example: concat!(
            head!(),
            r#"mcpServers:
  crm:
    type: http
    url: https://crm.example.com/mcp
    auth: {grant: client_credentials, issuer: login.example.com, clientId: demo, clientSecret: "${CRM_SECRET}"}
"#,
            find!()
        ),
        beside: Beside::Nothing,
        fix: "Write the issuer's URL.",
        fixed: Some(CRM),
    },
    Explanation {
        code: codes::SECRET_SOURCE,
        title: "a secret written in the file, or given twice",
        meaning: "Secrets never reach the binary: `clientSecret`, `privateKey`, `assertion`, `idToken` and `idpClientSecret` must be `${VAR}` references (read when the server is first called), or given as a file with the `...File` key; not both.",
        example: concat!(
            head!(),
            r#"mcpServers:
  crm:
    type: http
    url: https://crm.example.com/mcp
    auth: {grant: client_credentials, issuer: "https://login.example.com", clientId: demo, clientSecret: hunter2}
"#,
            find!()
        ),
        beside: Beside::Nothing,
        fix: "Read the secret from the environment (`\"${CRM_SECRET}\"`) or a file (`clientSecretFile`).",
        fixed: Some(CRM),
    },
    Explanation {
        code: codes::AUTH_HEADER,
        title: "`auth` beside an authorization header",
        meaning: "With `auth`, the graph sends the token it gets as the `Authorization` header; a header of the server's own would be replaced or would conflict.",
        example: concat!(
            head!(),
            r#"mcpServers:
  crm:
    type: http
    url: https://crm.example.com/mcp
    headers: {Authorization: "Bearer ${CRM_TOKEN}"}
    auth: {grant: client_credentials, issuer: "https://login.example.com", clientId: demo, clientSecret: "${CRM_SECRET}"}
"#,
            find!()
        ),
        beside: Beside::Nothing,
        fix: "Drop the header, or drop `auth` and keep a static token.",
        fixed: Some(CRM),
    },
    Explanation {
        code: codes::CONTENT_FROM,
        title: "`content.from` naming a node it cannot take blocks from",
        meaning: "The exit's `content.from` names the `mcp` nodes whose content blocks the result returns: at least one, each once, each an `mcp` node (other nodes have no blocks) from which the exit can be reached.",
        example: list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit, content: {from: [entry]}}
"#
        ),
        beside: Beside::Nothing,
        fix: "Name the `mcp` nodes whose blocks the result returns.",
        fixed: Some(list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit, content: {from: [ls]}}
"#
        )),
    },
    Explanation {
        code: codes::UNKNOWN_CONTENT_TYPE,
        title: "a content block type that does not exist",
        meaning: "The exit's `content.types` keeps blocks of some MCP content types: `text`, `image`, `audio`, `resource` and `resource_link`.",
        example: list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit, content: {from: [ls], types: [picture]}}
"#
        ),
        beside: Beside::Nothing,
        fix: "Use the MCP content types.",
        fixed: Some(list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit, content: {from: [ls], types: [image]}}
"#
        )),
    },
    Explanation {
        code: codes::CONTENT_JSON_REQUIRED,
        title: "`content.json: false` on a tool with an `outputSchema`",
        meaning: "A tool that declares an `outputSchema` must return `structuredContent` (MCP); `content.json: false` drops it, so the two cannot go together.",
        example: concat!(
            head!(),
            r#"mcpServers:
  fs: {command: npx}
tools:
  - name: list
    description: Lists a directory
    inputSchema: {type: object, properties: {path: {type: string}}}
    outputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit, content: {from: [ls], json: false}}
"#
        ),
        beside: Beside::Nothing,
        fix: "Keep the JSON (drop `json: false`), or drop the `outputSchema`.",
        fixed: Some(concat!(
            head!(),
            r#"mcpServers:
  fs: {command: npx}
tools:
  - name: list
    description: Lists a directory
    inputSchema: {type: object, properties: {path: {type: string}}}
    outputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit, content: {from: [ls]}}
"#
        )),
    },
    Explanation {
        code: codes::INVALID_SCOPE,
        title: "a `requiredScopes` entry that is not an OAuth scope",
        meaning: "Each item of `requiredScopes` is one RFC 6749 scope token: printable ASCII without spaces, `\"` or `\\`. A space separates two scopes in a token's `scope`, so a scope with one could never match.",
        example: concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object}\n    requiredScopes: [\"orders write\"]\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Write one scope per item.",
        fixed: Some(concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object}\n    requiredScopes: [orders.write]\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::INVALID_ICON,
        title: "a malformed icon",
        meaning: "A tool's `icons` are MCP `Icon` objects: `src` an `https:`, `http:` or `data:` URI, `mimeType` a MIME type (`type/subtype`), `sizes` a list of `WxH` or `any`, `theme` `light` or `dark`.",
        example: concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object}\n    icons: [{src: \"ftp://example.com/echo.png\", mimeType: image/png}]\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Correct the field the message names.",
        fixed: Some(concat!(
            head!(),
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object}\n    icons: [{src: \"https://example.com/echo.png\", mimeType: image/png}]\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::FORM_FIELD_TYPE,
        title: "a form field without a type a form has",
        meaning: "An `elicit` node's `requestedSchema` is a flat form: each field has a `type` among `string`, `number`, `integer` and `boolean` (and `array` of strings for a multiple choice). Objects and nested arrays are not allowed by MCP elicitation.",
        example: concat!(
            head!(),
            form_tool!(),
            "            address: {type: object}\n",
            form_end!()
        ),
        beside: Beside::Nothing,
        fix: "Ask for each value as a field of its own.",
        fixed: Some(concat!(
            head!(),
            form_tool!(),
            "            street: {type: string}\n",
            form_end!()
        )),
    },
    Explanation {
        code: codes::FORM_REQUIRED,
        title: "a form's `required` naming a field it does not have",
        meaning: "A form's `required` lists some of its `properties`, each once.",
        example: concat!(
            head!(),
            form_tool!(),
            "            city: {type: string}\n",
            "          required: [name, town]\n",
            form_routes!()
        ),
        beside: Beside::Nothing,
        fix: "Name fields of the form.",
        fixed: Some(concat!(
            head!(),
            form_tool!(),
            "            city: {type: string}\n",
            "          required: [name, city]\n",
            form_routes!()
        )),
    },
    Explanation {
        code: codes::FORM_VALUES,
        title: "a form field's choices that are empty or do not line up",
        meaning: "A field's `enum` or `oneOf` lists at least one value, and `enumNames` has one title per value of `enum`.",
        example: concat!(
            head!(),
            form_tool!(),
            "            colour: {type: string, enum: [red, blue], enumNames: [Red]}\n",
            form_end!()
        ),
        beside: Beside::Nothing,
        fix: "Give each value its title.",
        fixed: Some(concat!(
            head!(),
            form_tool!(),
            "            colour: {type: string, enum: [red, blue], enumNames: [Red, Blue]}\n",
            form_end!()
        )),
    },
    Explanation {
        code: codes::FORM_STRING_FORMAT,
        title: "a string `format` elicitation does not allow",
        meaning: "MCP elicitation allows the string formats `email`, `uri`, `date` and `date-time`.",
        example: concat!(
            head!(),
            form_tool!(),
            "            phone: {type: string, format: phone}\n",
            form_end!()
        ),
        beside: Beside::Nothing,
        fix: "Use one of the formats, or none.",
        fixed: Some(concat!(
            head!(),
            form_tool!(),
            "            phone: {type: string, description: \"digits, spaces and +\"}\n",
            form_end!()
        )),
    },
    Explanation {
        code: codes::FORM_DEFAULT_TYPE,
        title: "a form field's `default` of another type",
        meaning: "A field's `default` is a value of the field's type (and one of its values, for a choice).",
        example: concat!(
            head!(),
            form_tool!(),
            "            subscribe: {type: boolean, default: \"yes\"}\n",
            form_end!()
        ),
        beside: Beside::Nothing,
        fix: "Write a default of the field's type.",
        fixed: Some(concat!(
            head!(),
            form_tool!(),
            "            subscribe: {type: boolean, default: true}\n",
            form_end!()
        )),
    },
    Explanation {
        code: codes::UNKNOWN_NODE,
        title: "a name of a node the tool does not have",
        meaning: "`next`, a switch's routes, `onError`, an `elicit` node's routes, `content.from` and a test case's `answers` name nodes of the tool. The help names the closest id.",
        example: echo!(
            "      - {id: entry, type: entry, next: exot}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Name a node of the tool.",
        fixed: Some(ECHO),
    },
    Explanation {
        code: codes::DUPLICATE_NODE_ID,
        title: "two nodes with one id",
        meaning: "A node's id names it in routes and in expressions (`$.id`): it is unique within its tool.",
        example: echo!(
            r#"      - {id: entry, type: entry, next: step}
      - {id: step, type: transform, transform: {expr: '$.entry.text'}, next: step2}
      - {id: step, type: transform, transform: {expr: '$uppercase($.step)'}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Give each node its own id.",
        fixed: Some(echo!(
            r#"      - {id: entry, type: entry, next: step}
      - {id: step, type: transform, transform: {expr: '$.entry.text'}, next: step2}
      - {id: step2, type: transform, transform: {expr: '$uppercase($.step)'}, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::INVALID_TOOL_NAME,
        title: "a tool name MCP does not allow",
        meaning: "MCP tool names are 1 to 128 characters of `A-Z a-z 0-9 _ - .`.",
        example: concat!(
            head!(),
            "tools:\n  - name: echo back\n    description: Returns its input\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Rename the tool.",
        fixed: Some(concat!(
            head!(),
            "tools:\n  - name: echo_back\n    description: Returns its input\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::DUPLICATE_TOOL_NAME,
        title: "two tools with one name",
        meaning: "A client calls a tool by its name: each tool of the file has its own.",
        example: concat!(
            echo_tool!(),
            "  - name: echo\n    description: Returns its input again\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Rename one of them.",
        fixed: Some(concat!(
            echo_tool!(),
            "  - name: echo_again\n    description: Returns its input again\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::ENTRY_EXIT_COUNT,
        title: "a tool without exactly one `entry` and one `exit` node",
        meaning: "A call starts at the tool's one `entry` node and ends at its one `exit` node.",
        example: echo!(
            "      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n      - {id: done, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Keep one `entry` and one `exit`; routes that end the call all go to the one exit.",
        fixed: Some(ECHO),
    },
    Explanation {
        code: codes::EXIT_UNREACHABLE,
        title: "an exit that no path reaches",
        meaning: "No route from the entry node leads to the exit: every call would loop until a limit stops it, or fail.",
        example: echo!(
            "      - {id: entry, type: entry, next: again}\n      - {id: again, type: transform, transform: {expr: '$.entry.text'}, next: again}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Route some path to the exit.",
        fixed: Some(echo!(
            "      - {id: entry, type: entry, next: again}\n      - {id: again, type: transform, transform: {expr: '$.entry.text'}, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::UNREACHABLE_NODE,
        title: "a node no path reaches",
        meaning: "A node that no route from the entry leads to never runs: most often a route was forgotten or misspelt. It would also make the tool's annotations wrong (every `mcp` node is taken to run).",
        example: echo!(
            "      - {id: entry, type: entry, next: exit}\n      - {id: shout, type: transform, transform: {expr: '$uppercase($.entry.text)'}, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Route to the node, or remove it.",
        fixed: Some(echo!(
            "      - {id: entry, type: entry, next: shout}\n      - {id: shout, type: transform, transform: {expr: '$uppercase($.entry.text)'}, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::UNDECLARED_SERVER,
        title: "a call of a server `mcpServers` does not declare",
        meaning: "An `mcp` node's `server` (and a branch's or `forEach` call's) is a key of `mcpServers`. The help names the closest one.",
        example: list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: files, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Name a declared server, or declare it.",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::UNKNOWN_TOOL,
        title: "a call of a tool the graph does not have",
        meaning: "A call without `server` (a `parallel` branch, a `forEach` call) runs a tool of this graph, and a test case calls one: it must be a tool of the file. The help names the closest one.",
        example: concat!(
            echo_tool!(),
            r#"  - name: both
    description: Echoes twice at once
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: fan}
      - id: fan
        type: parallel
        branches:
          a: {tool: echo, args: {}}
          b: {tool: ecko, args: {}}
        next: exit
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Name a tool of the graph, or give the call the `server` of the downstream tool.",
        fixed: Some(BOTH),
    },
    Explanation {
        code: codes::UNBOUNDED_RECURSION,
        title: "tools that call each other with no way out",
        meaning: "Every call of the tool calls it again (directly, or through other tools): no call could ever finish.",
        example: concat!(
            head!(),
            r#"tools:
  - name: forever
    description: Calls itself
    inputSchema: {type: object}
    nodes:
      - {id: entry, type: entry, next: again}
      - {id: again, type: parallel, branches: {a: {tool: forever, args: {}}}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Give the recursion a route that does not call the tool again (a switch on a depth).",
        fixed: Some(concat!(
            head!(),
            r#"tools:
  - name: forever
    description: Calls itself, up to a depth
    inputSchema: {type: object, properties: {depth: {type: number}}}
    nodes:
      - {id: entry, type: entry, next: deep}
      - id: deep
        type: switch
        conditions:
          - rule: {">=": [{var: "$.entry.depth"}, 3]}
            next: exit
        next: again
      - {id: again, type: parallel, branches: {a: {tool: forever, args: {depth: {expr: "$.entry.depth + 1"}}}}, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::OUTPUT_SCHEMA_MISMATCH,
        title: "what reaches the exit does not fit the `outputSchema`",
        meaning: "The value that goes to the exit becomes the tool's `structuredContent`, which MCP requires to fit the tool's `outputSchema`. Where the value is an object built by an expression, its keys are checked against the schema's `required` and `additionalProperties: false`.",
        example: concat!(
            head!(),
            r#"tools:
  - name: greet
    description: Greets
    inputSchema: {type: object, properties: {name: {type: string}}}
    outputSchema: {type: object, properties: {greeting: {type: string}}, required: [greeting]}
    nodes:
      - {id: entry, type: entry, next: hello}
      - {id: hello, type: transform, transform: {expr: '{"hello": $.entry.name}'}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Build the value the schema describes.",
        fixed: Some(concat!(
            head!(),
            r#"tools:
  - name: greet
    description: Greets
    inputSchema: {type: object, properties: {name: {type: string}}}
    outputSchema: {type: object, properties: {greeting: {type: string}}, required: [greeting]}
    nodes:
      - {id: entry, type: entry, next: hello}
      - {id: hello, type: transform, transform: {expr: '{"greeting": "Hello " & $.entry.name}'}, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::JSONATA_SYNTAX,
        title: "an expression that is not JSONata",
        meaning: "Expressions (`transform.expr`, `{ expr }` arguments, `var` in rules, a test's `expect.assert`) are JSONata, parsed at build time: a syntax error is reported at its line and column in the file, with JSONata's error code.",
        example: echo!(
            "      - {id: entry, type: entry, next: shout}\n      - {id: shout, type: transform, transform: {expr: '$uppercase($.entry.text'}, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Correct the expression at the position shown (here: close the call).",
        fixed: Some(echo!(
            "      - {id: entry, type: entry, next: shout}\n      - {id: shout, type: transform, transform: {expr: '$uppercase($.entry.text)'}, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::REGEX_NOT_JAVASCRIPT,
        title: "a regex that would not run as JavaScript runs it",
        meaning: "JSONata's regex literals are JavaScript regexes; the runtime's engine runs them as JavaScript would. A construct it cannot run the same way (a backreference, a lookbehind of unbounded length...) is refused at build time rather than behaving differently.",
        example: echo!(
            "      - {id: entry, type: entry, next: twice}\n      - {id: twice, type: transform, transform: {expr: '$contains($.entry.text, /(a)\\1/)'}, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Write the regex without the construct (here: spell the repeat out).",
        fixed: Some(echo!(
            "      - {id: entry, type: entry, next: twice}\n      - {id: twice, type: transform, transform: {expr: '$contains($.entry.text, /aa/)'}, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::UNCHECKED_PATHS,
        title: "the paths into a node's output are not checked",
        meaning: "A note: paths into a node's output (`$.ls.entries`) are checked against what the node returns when that is known (a transform's expression, a locked tool's `outputSchema`); here it is not, and the note says why.",
        example: list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: count}
      - {id: count, type: transform, transform: {expr: '$count($.ls.entries)'}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Run `mcpgraph lock` on the graph to record its servers' tools (with their output schemas), and commit the lock.",
        fixed: None,
    },
    Explanation {
        code: codes::UNCHECKED_CALL,
        title: "a call the lock cannot check",
        meaning: "A note: a call whose whole `args` is one expression has keys known only when it runs, so its arguments are not checked against the locked input schema.",
        example: call!(r#"{expr: '{"path": $.entry.path}'}"#),
        beside: Beside::Lock(FS_LOCK),
        fix: "Write `args` as a mapping with an expression per argument, where that can be done.",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::REFERENCE_BEFORE_RUN,
        title: "an expression reading a node that cannot have run",
        meaning: "A lint. An expression reads `$.id` of a node that no path from the entry runs before it: the read gives nothing. Often the nodes are in the wrong order, or the id is of a node on another branch.",
        example: echo!(
            r#"      - {id: entry, type: entry, next: first}
      - {id: first, type: transform, transform: {expr: '$.second & "!"'}, next: second}
      - {id: second, type: transform, transform: {expr: '$uppercase($.entry.text)'}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Run the node before the one that reads it (or `allow(reference_before_run)` when it is meant).",
        fixed: Some(echo!(
            r#"      - {id: entry, type: entry, next: second}
      - {id: second, type: transform, transform: {expr: '$uppercase($.entry.text)'}, next: first}
      - {id: first, type: transform, transform: {expr: '$.second & "!"'}, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::UNKNOWN_FUNCTION,
        title: "a call of a function nothing defines",
        meaning: "The expression calls `$name`, which is not a JSONata function, a history function or a function the expression binds with `:=`: it fails with T1006 when it is reached. An error where every evaluation reaches the call, else a lint (warning).",
        example: echo!(
            "      - {id: entry, type: entry, next: shout}\n      - {id: shout, type: transform, transform: {expr: '$upper($.entry.text)'}, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Call a function that exists (the help names the closest).",
        fixed: Some(echo!(
            "      - {id: entry, type: entry, next: shout}\n      - {id: shout, type: transform, transform: {expr: '$uppercase($.entry.text)'}, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::FUNCTION_SIGNATURE,
        title: "a built-in called with arguments its signature refuses",
        meaning: "A JSONata built-in called with too few or too many arguments, or with a literal of a type its signature refuses: it fails with T0410 when it is reached. An error where every evaluation reaches the call, else a lint (warning).",
        example: echo!(
            "      - {id: entry, type: entry, next: cut}\n      - {id: cut, type: transform, transform: {expr: '$substring()'}, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Pass the arguments the signature in the note names.",
        fixed: Some(echo!(
            "      - {id: entry, type: entry, next: cut}\n      - {id: cut, type: transform, transform: {expr: '$substring($.entry.text, 0, 3)'}, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::OPERAND_TYPE,
        title: "a literal operand of a type its operator refuses",
        meaning: "An operator given a literal it refuses (`\"a\" + 1`: arithmetic on a string) fails with a T2001-like error when it is reached. An error where every evaluation reaches it, else a lint (warning).",
        example: echo!(
            "      - {id: entry, type: entry, next: add}\n      - {id: add, type: transform, transform: {expr: '\"total: \" + 1'}, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Use the operator of what is meant (`&` joins strings).",
        fixed: Some(echo!(
            "      - {id: entry, type: entry, next: add}\n      - {id: add, type: transform, transform: {expr: '\"total: \" & 1'}, next: exit}\n      - {id: exit, type: exit}\n"
        )),
    },
    Explanation {
        code: codes::LITERAL_LOOKS_LIKE_EXPRESSION,
        title: "a literal string in `args` that reads like an expression",
        meaning: "A lint. In `args`, only `{ expr: ... }` objects are evaluated; `\"$.entry.path\"` written as a plain string is passed as those characters.",
        example: call!(r#"{path: "$.entry.path"}"#),
        beside: Beside::Nothing,
        fix: "Write `{ expr: \"$.entry.path\" }` to pass what it reads.",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::UNKNOWN_INPUT_FIELD,
        title: "a path into the arguments naming a field the schema does not list",
        meaning: "`$.entry.x` reads the argument `x`; the tool's `inputSchema` does not list it, so a client is not told to send it. An error when the schema is closed (`additionalProperties: false`), else a lint (warning).",
        example: list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.pth"}}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Read a listed argument (the help names the closest), or list it in `inputSchema`.",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::UNKNOWN_OUTPUT_FIELD,
        title: "a path into a call's output naming a field its schema does not list",
        meaning: "`$.node.x` reads the field `x` of an `mcp` node's output; the called tool's locked `outputSchema` does not list it. An error when that schema is closed, else a lint (warning).",
        example: list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: count}
      - {id: count, type: transform, transform: {expr: '$count($.ls.entrys)'}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Lock(FS_LOCK),
        fix: "Read a field the output has (the help names the closest).",
        fixed: Some(list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: count}
      - {id: count, type: transform, transform: {expr: '$count($.ls.entries)'}, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::UNKNOWN_FIELD,
        title: "a path naming a field the value cannot have",
        meaning: "`$.node.x` reads the field `x` of a node's output. Where that output is an object an expression builds (a transform's `{...}`), or the answer to an `elicit` node's form, its fields are known, and `x` is not one of them: the read would always give nothing.",
        example: echo!(
            r#"      - {id: entry, type: entry, next: sum}
      - {id: sum, type: transform, transform: {expr: '{"total": $length($.entry.text)}'}, next: say}
      - {id: say, type: transform, transform: {expr: '"length " & $.sum.totl'}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Nothing,
        fix: "Read a field the value has (the help names the closest).",
        fixed: Some(echo!(
            r#"      - {id: entry, type: entry, next: sum}
      - {id: sum, type: transform, transform: {expr: '{"total": $length($.entry.text)}'}, next: say}
      - {id: say, type: transform, transform: {expr: '"length " & $.sum.total'}, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::UNUSED_SERVER,
        title: "a server no node calls",
        meaning: "A lint. A server declared in `mcpServers` that no node calls is started (stdio) or connected to for nothing.",
        example: concat!(
            head!(),
            "mcpServers:\n  fs: {command: npx}\n",
            "tools:\n  - name: echo\n    description: Returns its input\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: exit}\n      - {id: exit, type: exit}\n"
        ),
        beside: Beside::Nothing,
        fix: "Remove the server, or call it from an `mcp` node.",
        fixed: Some(echo_tool!()),
    },
    Explanation {
        code: codes::LOCK_COVERAGE,
        title: "the lock and the graph's servers differ",
        meaning: "A lint. The graph declares a server its lock (`<graph>.lock.json`) does not have, so its calls are not checked; or the lock has a server the graph no longer declares.",
        example: CALL,
        beside: Beside::Lock("{\n  \"lockVersion\": 1,\n  \"servers\": {}\n}\n"),
        fix: "Run `mcpgraph lock` on the graph to record the servers it declares.",
        fixed: None,
    },
    Explanation {
        code: codes::LOCK_UNKNOWN_TOOL,
        title: "a call of a tool the locked server does not have",
        meaning: "The lock records the tools each server listed when `mcpgraph lock` ran; the graph calls a tool that is not among them (a typo, or a tool the server removed or renamed). The help names the closest.",
        example: list!(
            r#"      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_dir, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Lock(FS_LOCK),
        fix: "Call a tool the server has; if the server changed, run `mcpgraph lock` again.",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::LOCK_REQUIRED,
        title: "no lock where one is required",
        meaning: "The build requires a lock (`mcpgraph!(\"graph.yaml\", require_lock)`, or `Builder::require_lock`), so that every call is checked against the recorded tools, and there is no `<graph>.lock.json` beside the graph.",
        example: CALL,
        beside: Beside::NoRequiredLock,
        fix: "Run `mcpgraph lock` on the graph and commit the lock it writes.",
        fixed: None,
    },
    Explanation {
        code: codes::LOCK_UNREADABLE,
        title: "a lock that cannot be read",
        meaning: "The graph's `<graph>.lock.json` is not a lock this version reads (not JSON, another `lockVersion`, or edited by hand), or cannot be opened.",
        example: CALL,
        beside: Beside::Lock("{ \"lockVersion\": 1,\n"),
        fix: "Run `mcpgraph lock` on the graph to write the lock again.",
        fixed: None,
    },
    Explanation {
        code: codes::RETRY_NOT_IDEMPOTENT,
        title: "`retry` on a tool not known to be safe to repeat",
        meaning: "A lint. A call that failed for lack of an answer may have done its work; retrying it may do the work twice. The lock says the tool is not annotated `readOnlyHint` or `idempotentHint`.",
        example: call!(
            r#"{path: {expr: "$.entry.path"}}
        retry: {attempts: 3}"#
        ),
        beside: Beside::Lock(FS_LOCK),
        fix: "Retry only read-only or idempotent tools (or `allow(retry_not_idempotent)` when a repeat is harmless).",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::MISSING_ARGUMENT,
        title: "a call lacking a required argument",
        meaning: "The called tool's input schema (from the lock, or the graph's own tool) requires an argument the call does not pass, and the schema gives it no `default`.",
        example: call!("{}"),
        beside: Beside::Lock(FS_LOCK),
        fix: "Pass the argument.",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::UNKNOWN_ARGUMENT,
        title: "a call passing an argument the tool does not list",
        meaning: "The called tool's input schema does not list the argument: an error when the schema is closed (`additionalProperties: false`), else a lint (warning), since the tool most likely ignores it.",
        example: call!(r#"{path: {expr: "$.entry.path"}, recursive: true}"#),
        beside: Beside::Lock(FS_LOCK),
        fix: "Pass the arguments the tool lists (the help names the closest).",
        fixed: Some(CALL),
    },
    Explanation {
        code: codes::INVALID_ARGUMENT,
        title: "a literal argument the tool's schema refuses",
        meaning: "A literal argument is checked against its property in the called tool's input schema: a value of another type, or out of an `enum` or bounds, would be refused by the tool.",
        example: call!("{path: 3}"),
        beside: Beside::Lock(FS_LOCK),
        fix: "Pass a value the schema takes.",
        fixed: Some(call!(r#"{path: "."}"#)),
    },
    Explanation {
        code: codes::ARGUMENT_TYPE,
        title: "an expression argument of another type than the tool takes",
        meaning: "A lint. An `{ expr }` argument reading the tool's own arguments (`$.entry.x`) has the type `inputSchema` gives `x`, and the called tool wants another.",
        example: concat!(
            head!(),
            r#"mcpServers:
  fs: {command: npx}
tools:
  - name: list
    description: Lists a directory
    inputSchema: {type: object, properties: {path: {type: number}}}
    nodes:
      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit}
"#
        ),
        beside: Beside::Lock(FS_LOCK),
        fix: "Give the argument the type the tool takes (or convert it: `$string(...)`).",
        fixed: Some(concat!(
            head!(),
            r#"mcpServers:
  fs: {command: npx}
tools:
  - name: list
    description: Lists a directory
    inputSchema: {type: object, properties: {path: {type: string}}}
    nodes:
      - {id: entry, type: entry, next: ls}
      - {id: ls, type: mcp, server: fs, tool: list_directory, args: {path: {expr: "$.entry.path"}}, next: exit}
      - {id: exit, type: exit}
"#
        )),
    },
    Explanation {
        code: codes::DUPLICATE_CASE,
        title: "two test cases with one name",
        meaning: "A case's name names its test (`cargo test`, JUnit): each case of a test file has its own.",
        example: ASK,
        beside: Beside::Tests(concat!(
            case!(),
            "  - name: greets Ada\n    tool: greet\n    args: {greeting: Hello}\n    answers: {ask: {action: accept, content: {name: Ada}}}\n    expect: {output: \"Hello, Ada\"}\n"
        )),
        fix: "Rename one of them.",
        fixed: Some(concat!(
            case!(),
            "  - name: greets Bob\n    tool: greet\n    args: {greeting: Hi}\n    answers: {ask: {action: accept, content: {name: Bob}}}\n    expect: {output: \"Hi, Bob\"}\n"
        )),
    },
    Explanation {
        code: codes::INVALID_CASE_ARGS,
        title: "a case's arguments the tool's `inputSchema` refuses",
        meaning: "A case's `args` are checked against the tool's `inputSchema`, as a client's would be: a call the server would refuse is not a test of the graph.",
        example: ASK,
        beside: Beside::Tests(
            "cases:\n  - name: greets Ada\n    tool: greet\n    args: {}\n    answers: {ask: {action: accept, content: {name: Ada}}}\n    expect: {output: \"Hi, Ada\"}\n",
        ),
        fix: "Pass the arguments the schema requires.",
        fixed: Some(concat!(case!())),
    },
    Explanation {
        code: codes::EXPECT_SHAPE,
        title: "an `expect` that is empty, or both fails and returns",
        meaning: "A case expects an `output`, a `subset` of it, an `assert`, or an `error`: at least one, and `error` alone (a call either fails or returns).",
        example: ASK,
        beside: Beside::Tests(
            "cases:\n  - name: greets Ada\n    tool: greet\n    args: {greeting: Hi}\n    answers: {ask: {action: accept, content: {name: Ada}}}\n    expect: {}\n",
        ),
        fix: "Say what the call should give.",
        fixed: Some(concat!(case!())),
    },
    Explanation {
        code: codes::EMPTY_ANSWERS,
        title: "an empty list of answers",
        meaning: "A node asked more than once takes a list of answers, in order; an empty list answers nothing.",
        example: ASK,
        beside: Beside::Tests(
            "cases:\n  - name: greets Ada\n    tool: greet\n    args: {greeting: Hi}\n    answers: {ask: []}\n    expect: {output: \"Hi, Ada\"}\n",
        ),
        fix: "Give the answer (or the answers, in order).",
        fixed: Some(concat!(case!())),
    },
    Explanation {
        code: codes::ANSWER_NOT_ELICIT,
        title: "an answer for a node that asks nothing",
        meaning: "A case's `answers` answer the tool's `elicit` nodes, by id; any other node asks the user nothing.",
        example: ASK,
        beside: Beside::Tests(
            "cases:\n  - name: greets Ada\n    tool: greet\n    args: {greeting: Hi}\n    answers: {hello: {action: accept, content: {name: Ada}}}\n    expect: {output: \"Hi, Ada\"}\n",
        ),
        fix: "Answer the `elicit` node.",
        fixed: Some(concat!(case!())),
    },
    Explanation {
        code: codes::ANSWER_ACTION,
        title: "an answer's `action` unknown, or `content` without `accept`",
        meaning: "An answer's `action` is `accept`, `decline` or `cancel`, as in MCP; only an accepted answer has `content` (the form's fields).",
        example: ASK,
        beside: Beside::Tests(
            "cases:\n  - name: greets Ada\n    tool: greet\n    args: {greeting: Hi}\n    answers: {ask: {action: accepted, content: {name: Ada}}}\n    expect: {output: \"Hi, Ada\"}\n",
        ),
        fix: "Use one of the actions.",
        fixed: Some(concat!(case!())),
    },
    Explanation {
        code: codes::INVALID_ANSWER,
        title: "an answer the form's `requestedSchema` refuses",
        meaning: "An accepted answer's `content` is checked against the node's `requestedSchema`, as the runtime checks a client's: an answer the graph would refuse is not a test of it.",
        example: ASK,
        beside: Beside::Tests(
            "cases:\n  - name: greets Ada\n    tool: greet\n    args: {greeting: Hi}\n    answers: {ask: {action: accept, content: {name: 3}}}\n    expect: {output: \"Hi, 3\"}\n",
        ),
        fix: "Answer as the form asks.",
        fixed: Some(concat!(case!())),
    },
];
