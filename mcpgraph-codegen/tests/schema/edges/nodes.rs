//! Rows for nodes: their fields, `args`, and switch rules.

use super::{agree, edit, mcp_args, switch, with_node};

/// Node fields.
#[test]
fn nodes() {
    agree(vec![
        // Nodes.
        ("node is a string", with_node("a"), false),
        (
            "node without id",
            with_node("{type: transform, transform: {expr: '1'}, next: exit}"),
            false,
        ),
        (
            "node with empty id",
            with_node("{id: '', type: transform, transform: {expr: '1'}, next: exit}"),
            false,
        ),
        (
            "node id is a number",
            with_node("{id: 1, type: transform, transform: {expr: '1'}, next: exit}"),
            false,
        ),
        ("node without type", with_node("{id: a, next: exit}"), false),
        (
            "unknown node type",
            with_node("{id: a, type: tranform, transform: {expr: '1'}, next: exit}"),
            false,
        ),
        (
            "exit with content",
            edit(
                "{id: exit, type: exit}",
                "{id: exit, type: exit, content: {from: a, types: [image, resource_link], json: false}}",
            ),
            true,
        ),
        (
            "exit content from a list",
            edit(
                "{id: exit, type: exit}",
                "{id: exit, type: exit, content: {from: [a]}}",
            ),
            true,
        ),
        (
            "exit content without from",
            edit(
                "{id: exit, type: exit}",
                "{id: exit, type: exit, content: {json: true}}",
            ),
            false,
        ),
        (
            "exit content from nothing",
            edit(
                "{id: exit, type: exit}",
                "{id: exit, type: exit, content: {from: []}}",
            ),
            false,
        ),
        (
            "exit content unknown type",
            edit(
                "{id: exit, type: exit}",
                "{id: exit, type: exit, content: {from: a, types: [picture]}}",
            ),
            false,
        ),
        (
            "content on a transform",
            with_node(
                "{id: a, type: transform, transform: {expr: '1'}, next: exit, content: {from: a}}",
            ),
            false,
        ),
        (
            "exit with next",
            edit("{id: exit, type: exit}", "{id: exit, type: exit, next: a}"),
            false,
        ),
        (
            "entry without next",
            edit(
                "{id: entry, type: entry, next: a}",
                "{id: entry, type: entry}",
            ),
            false,
        ),
        (
            "two entries",
            edit(
                "{id: exit, type: exit}",
                "{id: exit, type: exit}\n      - {id: e2, type: entry, next: a}",
            ),
            false,
        ),
        (
            "no exit",
            edit(
                "      - {id: exit, type: exit}\n",
                "      - {id: exit, type: transform, transform: {expr: '1'}, next: a}\n",
            ),
            false,
        ),
        (
            "next is a list",
            with_node("{id: a, type: transform, transform: {expr: '1'}, next: [exit]}"),
            false,
        ),
        (
            "mcp without tool",
            with_node("{id: a, type: mcp, server: fs, next: exit}"),
            false,
        ),
        (
            "mcp without server",
            with_node("{id: a, type: mcp, tool: x, next: exit}"),
            false,
        ),
        (
            "mcp with transform",
            with_node(
                "{id: a, type: mcp, server: fs, tool: x, transform: {expr: '1'}, next: exit}",
            ),
            false,
        ),
        (
            "transform",
            with_node("{id: a, type: transform, transform: {expr: '$.entry'}, next: exit}"),
            true,
        ),
        (
            "transform without transform",
            with_node("{id: a, type: transform, next: exit}"),
            false,
        ),
        (
            "transform: null",
            with_node("{id: a, type: transform, transform: null, next: exit}"),
            false,
        ),
        (
            "transform expr a number",
            with_node("{id: a, type: transform, transform: {expr: 1}, next: exit}"),
            false,
        ),
        (
            "transform with another key",
            with_node(
                "{id: a, type: transform, transform: {expr: '1', lang: jsonata}, next: exit}",
            ),
            false,
        ),
        (
            "transform without expr",
            with_node("{id: a, type: transform, transform: {}, next: exit}"),
            false,
        ),
    ]);
}

/// An `mcp` node's `args`.
#[test]
fn args() {
    agree(vec![
        // Args.
        ("args: null", mcp_args("null"), true),
        ("args: {}", mcp_args("{}"), true),
        (
            "args nested",
            mcp_args(
                "{a: {expr: '$.entry'}, b: [1, {expr: '2'}, {c: null}], d: '$.entry', e: {f: {g: {expr: '3'}}}}",
            ),
            true,
        ),
        ("args as one expr", mcp_args("{expr: '$.entry'}"), true),
        ("args is a list", mcp_args("[1]"), false),
        ("args is a string", mcp_args("x"), false),
        (
            "expr beside another key",
            mcp_args("{a: {expr: '1', default: 2}}"),
            false,
        ),
        ("expr is a number", mcp_args("{a: {expr: 1}}"), false),
        (
            "expr in a list is a number",
            mcp_args("{a: [{expr: 1}]}"),
            false,
        ),
        ("expr: null", mcp_args("{a: {expr: null}}"), false),
    ]);
}

/// Switch conditions and JSON Logic.
#[test]
fn switches() {
    agree(vec![
        // Switches.
        ("switch", switch("{'>': [{var: entry.n}, 1]}"), true),
        ("switch rule a scalar", switch("true"), true),
        ("switch rule a list", switch("[1, {var: entry}]"), true),
        (
            "switch with no conditions",
            with_node("{id: a, type: switch, conditions: [], next: exit}"),
            true,
        ),
        (
            "switch without conditions",
            with_node("{id: a, type: switch, next: exit}"),
            false,
        ),
        (
            "switch conditions: null",
            with_node("{id: a, type: switch, conditions: null, next: exit}"),
            false,
        ),
        (
            "condition without next",
            with_node("{id: a, type: switch, conditions: [{rule: true}], next: exit}"),
            false,
        ),
        (
            "condition without rule",
            with_node("{id: a, type: switch, conditions: [{next: exit}], next: exit}"),
            false,
        ),
        (
            "condition with target",
            with_node(
                "{id: a, type: switch, conditions: [{rule: true, target: exit}], next: exit}",
            ),
            false,
        ),
        (
            "every operator",
            switch(
                "{and: [{'==': [1, 1]}, {'===': [1, 1]}, {'!=': [1, 2]}, {'!==': [1, 2]}, {'>': [2, 1]}, {'>=': [1, 1]}, {'<': [1, 2]}, {'<=': [1, 1]}, {'!': false}, {'!!': 1}, {or: [1]}, {'?:': [1, 1, 2]}, {if: [1, 1, 2]}, {in: [a, abc]}, {cat: [a]}, {substr: [ab, 1]}, {'+': [1]}, {'-': [1]}, {'*': [1]}, {'/': [1, 1]}, {'%': [1, 1]}, {max: [1]}, {min: [1]}, {merge: [1]}, {missing: [a]}, {missing_some: [1, [a]]}, {all: [[1], true]}, {some: [[1], true]}, {none: [[1], true]}, {map: [[1], 1]}, {filter: [[1], true]}, {reduce: [[1], 1, 0]}, {log: 1}]}",
            ),
            true,
        ),
        ("unknown operator", switch("{'=<': [1, 2]}"), false),
        ("two operators", switch("{'>': [1, 2], '<': [1, 2]}"), false),
        ("empty object in a rule", switch("{in: [a, {}]}"), false),
        (
            "data object in a rule",
            switch("{'==': [{foo: 1}, 1]}"),
            false,
        ),
        ("var a number", switch("{'==': [{var: 1}, 1]}"), false),
        ("var a list", switch("{'==': [{var: [a, 1]}, 1]}"), false),
        ("var empty", switch("{var: ''}"), false),
        ("var blank", switch("{var: '  '}"), false),
    ]);
}

/// `BASE` with node `a` an elicit node whose form is `form`.
fn elicit(form: &str) -> String {
    with_node(&format!(
        "{{id: a, type: elicit, message: hi, requestedSchema: {form}, routes: {{accept: exit}}}}"
    ))
}

/// `elicit` nodes (an extension) and their forms.
#[test]
fn elicit_nodes() {
    agree(vec![
        (
            "elicit",
            with_node(
                "{id: a, type: elicit, message: {expr: '\"hi\"'}, requestedSchema: {type: object, properties: {}}, routes: {accept: exit, decline: exit, cancel: exit}}",
            ),
            true,
        ),
        (
            "elicit without routes",
            with_node(
                "{id: a, type: elicit, message: hi, requestedSchema: {type: object, properties: {}}}",
            ),
            false,
        ),
        (
            "elicit without accept",
            with_node(
                "{id: a, type: elicit, message: hi, requestedSchema: {type: object, properties: {}}, routes: {decline: exit}}",
            ),
            false,
        ),
        (
            "elicit with next",
            with_node(
                "{id: a, type: elicit, message: hi, requestedSchema: {type: object, properties: {}}, routes: {accept: exit}, next: exit}",
            ),
            false,
        ),
        (
            "elicit message a number",
            with_node(
                "{id: a, type: elicit, message: 1, requestedSchema: {type: object, properties: {}}, routes: {accept: exit}}",
            ),
            false,
        ),
        (
            "every field shape",
            elicit(
                "{type: object, title: T, properties: {s: {type: string, format: email, minLength: 1, default: a}, n: {type: number, minimum: 0}, i: {type: integer, maximum: 3}, b: {type: boolean, default: true}, e: {type: string, enum: [a]}, l: {type: string, enum: [a], enumNames: [A]}, o: {type: string, oneOf: [{const: a, title: A}]}, m: {type: array, items: {type: string, enum: [a]}, minItems: 1}, t: {type: array, items: {anyOf: [{const: a, title: A}]}}}, required: [s]}",
            ),
            true,
        ),
        ("form without properties", elicit("{type: object}"), false),
        (
            "form of type array",
            elicit("{type: array, properties: {}}"),
            false,
        ),
        (
            "form with additionalProperties",
            elicit("{type: object, properties: {}, additionalProperties: false}"),
            false,
        ),
        (
            "nested object field",
            elicit("{type: object, properties: {o: {type: object}}}"),
            false,
        ),
        (
            "field without type",
            elicit("{type: object, properties: {o: {title: x}}}"),
            false,
        ),
        (
            "field with pattern",
            elicit("{type: object, properties: {s: {type: string, pattern: x}}}"),
            false,
        ),
        (
            "unknown format",
            elicit("{type: object, properties: {s: {type: string, format: phone}}}"),
            false,
        ),
        (
            "empty enum",
            elicit("{type: object, properties: {s: {type: string, enum: []}}}"),
            false,
        ),
        (
            "choice without title",
            elicit("{type: object, properties: {s: {type: string, oneOf: [{const: a}]}}}"),
            false,
        ),
        (
            "negative minLength",
            elicit("{type: object, properties: {s: {type: string, minLength: -1}}}"),
            false,
        ),
    ]);
}
