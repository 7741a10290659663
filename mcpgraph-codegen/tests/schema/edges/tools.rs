//! Rows for a tool's own fields and its JSON Schemas.

use super::{agree, edit};

/// A tool's fields.
#[test]
fn tools() {
    agree(vec![
        // Required scopes (an extension).
        (
            "required scopes",
            edit(
                "name: t\n",
                "name: t\n    requiredScopes: [orders.write, 'mcp:tools']\n",
            ),
            true,
        ),
        (
            "required scopes not a list",
            edit("name: t\n", "name: t\n    requiredScopes: orders.write\n"),
            false,
        ),
        (
            "a required scope with a space",
            edit("name: t\n", "name: t\n    requiredScopes: ['two words']\n"),
            false,
        ),
        // Annotations and icons (extensions).
        (
            "tool annotations",
            edit(
                "name: t\n",
                "name: t\n    annotations: {title: T, readOnlyHint: true, openWorldHint: false}\n",
            ),
            true,
        ),
        (
            "unknown annotation",
            edit("name: t\n", "name: t\n    annotations: {readOnly: true}\n"),
            false,
        ),
        (
            "annotation hint a string",
            edit(
                "name: t\n",
                "name: t\n    annotations: {readOnlyHint: 'yes'}\n",
            ),
            false,
        ),
        (
            "icons",
            edit(
                "name: t\n",
                "name: t\n    icons: [{src: 'https://e.com/i.png', mimeType: image/png, sizes: [48x48, any], theme: dark}]\n",
            ),
            true,
        ),
        (
            "icon without src",
            edit("name: t\n", "name: t\n    icons: [{sizes: [any]}]\n"),
            false,
        ),
        (
            "icon src a file",
            edit(
                "name: t\n",
                "name: t\n    icons: [{src: 'file:///i.png'}]\n",
            ),
            false,
        ),
        (
            "icon size",
            edit(
                "name: t\n",
                "name: t\n    icons: [{src: 'data:image/png;base64,AA', sizes: ['48']}]\n",
            ),
            false,
        ),
        (
            "icon theme",
            edit(
                "name: t\n",
                "name: t\n    icons: [{src: 'data:image/png;base64,AA', theme: blue}]\n",
            ),
            false,
        ),
        // Tools.
        (
            "tool name with a dot and dash",
            edit("name: t\n", "name: a.b-c_D9\n"),
            true,
        ),
        (
            "tool name with a space",
            edit("name: t\n", "name: a b\n"),
            false,
        ),
        (
            "tool name too long",
            edit("name: t\n", &format!("name: {}\n", "a".repeat(129))),
            false,
        ),
        (
            "tool name of 128",
            edit("name: t\n", &format!("name: {}\n", "a".repeat(128))),
            true,
        ),
        ("empty tool name", edit("name: t\n", "name: ''\n"), false),
        ("no description", edit("    description: d\n", ""), false),
        (
            "unknown tool key",
            edit("    description: d\n", "    description: d\n    title: T\n"),
            false,
        ),
        (
            "no inputSchema",
            edit("    inputSchema: {type: object}\n", ""),
            false,
        ),
        (
            "outputSchema",
            edit(
                "{type: object}",
                "{type: object}\n    outputSchema: {type: object}",
            ),
            true,
        ),
        (
            "outputSchema not an object",
            edit(
                "{type: object}",
                "{type: object}\n    outputSchema: {type: array}",
            ),
            false,
        ),
        (
            "schema type list at the root",
            edit("{type: object}", "{type: [object]}"),
            false,
        ),
        ("schema as true", edit("{type: object}", "true"), false),
        (
            "no nodes",
            edit(
                "    nodes:\n      - {id: entry, type: entry, next: a}\n      - {id: a, type: mcp, server: fs, tool: x, next: exit}\n      - {id: exit, type: exit}\n",
                "",
            ),
            false,
        ),
        (
            "nodes: []",
            edit(
                "    nodes:\n      - {id: entry, type: entry, next: a}\n      - {id: a, type: mcp, server: fs, tool: x, next: exit}\n      - {id: exit, type: exit}\n",
                "    nodes: []\n",
            ),
            false,
        ),
    ]);
}

/// The JSON Schema keywords the generator checks.
#[test]
fn json_schema_keywords() {
    agree(vec![
        // JSON Schema keywords.
        (
            "a rich schema",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {type: [string, 'null'], enum: [x, null]}, b: {type: array, items: {type: integer, minimum: 1}}, c: true, d: {anyOf: [{type: string}, false], not: {const: 1}}}, required: [a], additionalProperties: false, $defs: {x: {type: number}}, minProperties: 1}",
            ),
            true,
        ),
        (
            "unknown nested type",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {type: strng}}}",
            ),
            false,
        ),
        (
            "nested type not a string",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {type: 1}}}",
            ),
            false,
        ),
        (
            "properties is a list",
            edit("{type: object}", "{type: object, properties: [a]}"),
            false,
        ),
        (
            "property schema is a string",
            edit("{type: object}", "{type: object, properties: {a: string}}"),
            false,
        ),
        (
            "items is a list",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {items: [{}]}}}",
            ),
            false,
        ),
        (
            "anyOf is a mapping",
            edit("{type: object}", "{type: object, anyOf: {a: 1}}"),
            false,
        ),
        (
            "required is a string",
            edit("{type: object}", "{type: object, required: a}"),
            false,
        ),
        (
            "required item not a string",
            edit("{type: object}", "{type: object, required: [1]}"),
            false,
        ),
        (
            "enum is a string",
            edit(
                "{type: object}",
                "{type: object, properties: {a: {enum: x}}}",
            ),
            false,
        ),
        (
            "other keywords",
            edit(
                "{type: object}",
                "{type: object, minimum: 1, prefixItems: [true], description: d}",
            ),
            true,
        ),
        (
            "other keywords of the wrong shape (the meta-schema's)",
            edit(
                "{type: object}",
                "{type: object, minimum: x, prefixItems: 1, description: 5}",
            ),
            false,
        ),
    ]);
}
