//! The form checks, case by case, each error at its key.

use crate::test_support::{ENTRY, EXIT, errors, load, with_nodes};

/// A graph whose elicit node has the form `schema` (lines indented
/// ten spaces under `requestedSchema:`).
fn form(schema: &str) -> String {
    with_nodes(&format!(
        "{ENTRY}      - id: a\n        type: elicit\n        message: hi\n        requestedSchema:\n{schema}        routes: {{accept: exit}}\n{EXIT}"
    ))
}

/// The errors of `schema`, each with the text at its position.
fn form_errors(schema: &str) -> Vec<(String, String)> {
    let src = form(schema);
    let lines: Vec<&str> = src.lines().collect();
    errors(&src)
        .into_iter()
        .map(|(line, column, message)| {
            let at: String = lines[line as usize - 1]
                .chars()
                .skip(column as usize - 1)
                .take_while(|c| !matches!(c, ':' | ',' | '}' | ']'))
                .collect();
            (at, message)
        })
        .collect()
}

#[test]
fn every_allowed_shape_loads() {
    let f = load(&form(
        "          type: object\n          $schema: https://json-schema.org/draft/2020-12/schema\n          title: T\n          description: D\n          properties:\n            name: {type: string, title: Name, description: N, minLength: 1, maxLength: 9, default: Ada}\n            mail: {type: string, format: email}\n            when: {type: string, format: date-time, default: '2024-01-01T00:00:00Z'}\n            height: {type: number, minimum: -1.5, maximum: 3, default: 2}\n            age: {type: integer, minimum: 0, maximum: 150, default: 3}\n            ok: {type: boolean, default: false}\n            pet: {type: string, enum: [cat, dog], default: cat}\n            fish: {type: string, oneOf: [{const: s, title: Salmon}], default: s}\n            old: {type: string, enum: [a, b], enumNames: [A, B], default: b}\n            many: {type: array, minItems: 0, maxItems: 2, items: {type: string, enum: [x, y]}, default: [x, y]}\n            titled: {type: array, items: {anyOf: [{const: x, title: X}]}, default: [x]}\n          required: [name, pet]\n",
    ));
    let crate::model::NodeKind::Elicit { schema, .. } = &f.tools[0].nodes[1].kind else {
        panic!();
    };
    assert_eq!(
        schema["properties"]["titled"]["items"]["anyOf"][0]["title"],
        "X"
    );
    assert_eq!(schema["properties"].as_object().unwrap().len(), 11);
}

#[test]
fn a_form_is_a_flat_object() {
    let e = form_errors(
        "          type: array\n          properties:\n            nested: {type: object, properties: {}}\n            listed: {type: [string, 'null']}\n            none: {title: x}\n            word: {type: strng}\n          additionalProperties: false\n          required: [nested, nme, word, word]\n",
    );
    let e: Vec<(&str, &str)> = e.iter().map(|(a, m)| (a.as_str(), m.as_str())).collect();
    assert_eq!(
        e,
        [
            (
                "array",
                "the `type` of `requestedSchema` must be `object` (elicitation asks for an object of fields), found the string `array`"
            ),
            (
                "object",
                "the field `nested` of `requestedSchema` has type `object`, which elicitation does not allow: a form is flat"
            ),
            (
                "[string",
                "the `type` of the field `listed` of `requestedSchema` must be a string, found a sequence"
            ),
            (
                "{title",
                "the field `none` of `requestedSchema` has no `type`"
            ),
            (
                "strng",
                "the field `word` of `requestedSchema` has type `strng`, which elicitation does not allow: a form is flat"
            ),
            (
                "additionalProperties",
                "elicitation does not allow `additionalProperties` in `requestedSchema`"
            ),
            (
                "nme",
                "`required` names `nme`, which is not a property of `requestedSchema`"
            ),
            ("word", "`required` names `word` twice"),
        ]
    );
}

#[test]
fn fields_have_only_their_keywords() {
    let e = form_errors(
        "          type: object\n          properties:\n            a: {type: string, pattern: '^x', format: phone, minLength: -1, maxLength: 2.5}\n            b: {type: integer, minimum: 1.5, maximum: 0, default: 1.5}\n            c: {type: number, minimum: 5, maximum: 1, default: '3'}\n            d: {type: boolean, default: 'yes', enum: [true]}\n            e: {type: string, enum: [], default: z}\n            f: {type: string, enum: [a, b], enumNames: [A], format: email}\n            g: {type: string, oneOf: [{const: a}, {const: b, title: B, x: 1}], default: c}\n            h: {type: array, items: {type: number, enum: [a]}, default: [a, z]}\n            i: {type: array, items: {anyOf: [{const: a, title: A}], type: string}, minItems: x}\n            j: {type: array}\n            k: {type: string, titel: x}\n",
    );
    let e: Vec<(&str, &str)> = e.iter().map(|(a, m)| (a.as_str(), m.as_str())).collect();
    assert_eq!(
        e,
        [
            (
                "pattern",
                "elicitation does not allow `pattern` in a field of type `string`"
            ),
            (
                "phone",
                "elicitation does not allow the string format `phone` (expected one of `email`, `uri`, `date`, `date-time`)"
            ),
            (
                "-1",
                "`minLength` must be a whole number from 0, found `-1`"
            ),
            (
                "2.5",
                "`maxLength` must be a whole number from 0, found `2.5`"
            ),
            ("1.5", "`minimum` must be an integer, found `1.5`"),
            (
                "1.5",
                "the `default` of the field `b` of `requestedSchema` must be an integer, found `1.5`"
            ),
            ("1", "`maximum` is below `minimum`"),
            (
                "'3'",
                "the `default` of the field `c` of `requestedSchema` must be a number, found the string `3`"
            ),
            (
                "'yes'",
                "the `default` of the field `d` of `requestedSchema` must be a boolean, found the string `yes`"
            ),
            (
                "enum",
                "elicitation does not allow `enum` in a field of type `boolean`"
            ),
            ("[", "`enum` must list at least one value"),
            ("[A", "`enumNames` must have one title per value of `enum`"),
            (
                "format",
                "elicitation does not allow `format` in a legacy enum field (`enumNames`)"
            ),
            (
                "{const",
                "missing required field `title` in an option of `oneOf`"
            ),
            ("x", "unknown key `x` in an option of `oneOf`"),
            (
                "c",
                "the `default` of the field `g` of `requestedSchema` must be one of its values (`a`, `b`), found the string `c`"
            ),
            (
                "number",
                "the `type` of `items` must be `string`, found the string `number`"
            ),
            (
                "[a",
                "the `default` of the field `h` of `requestedSchema` must be a list of its values (`a`), found a sequence"
            ),
            (
                "type",
                "elicitation does not allow `type` in titled `items`"
            ),
            (
                "x",
                "`minItems` must be a whole number from 0, found the string `x`"
            ),
            (
                "{type",
                "missing required field `items` in the field `j` of `requestedSchema`"
            ),
            (
                "titel",
                "unknown key `titel` in the field `k` of `requestedSchema`"
            ),
        ]
    );
}
