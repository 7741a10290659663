//! Diagnostics in the formats CI systems show on the lines they are about:
//! GitHub workflow commands (`::error file=…,line=…,col=…::…`), which put an
//! annotation on the pull request's diff, and SARIF 2.1.0, which code
//! scanning tools read. Both name each diagnostic by its code (the SARIF
//! rule, described from the catalogue of codes).

use mcpgraph_codegen::diag::explain::explain;
use mcpgraph_codegen::diag::{Code, Diagnostic, Diagnostics, Severity};
use serde_json::{Value, json};

/// One GitHub workflow command per diagnostic, each on its own line.
pub(crate) fn github(d: &Diagnostics) -> String {
    let mut out = String::new();
    for item in &d.items {
        let mut properties = vec![format!("file={}", escape_property(&d.path))];
        if item.pos.line > 0 {
            properties.push(format!("line={}", item.pos.line));
            properties.push(format!("col={}", item.pos.column));
        }
        properties.push(format!(
            "title={}",
            escape_property(&format!("mcpgraph: {}", item.code))
        ));
        // GitHub's commands are error, warning and notice.
        let command = match item.severity {
            Severity::Note => "notice",
            severity => severity.as_str(),
        };
        out.push_str(&format!(
            "::{command} {}::{}\n",
            properties.join(","),
            escape_data(&full_message(item))
        ));
    }
    out
}

/// The message with its help and notes, one per line, as rustc prints
/// them below a diagnostic.
fn full_message(item: &Diagnostic) -> String {
    let mut text = item.message.clone();
    if let Some(help) = &item.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    for note in &item.notes {
        text.push_str("\nnote: ");
        text.push_str(note);
    }
    text
}

/// The escapes of a workflow command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// The escapes of a workflow command's property value.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// A SARIF 2.1.0 log of every diagnostic of `files`, as one run of
/// mcpgraph.
pub(crate) fn sarif(files: &[Diagnostics]) -> Value {
    let mut rules: Vec<Code> = Vec::new();
    let mut results = Vec::new();
    for d in files {
        for item in &d.items {
            let id = item.code;
            let index = match rules.iter().position(|r| *r == id) {
                Some(index) => index,
                None => {
                    rules.push(id);
                    rules.len() - 1
                }
            };
            let mut location = json!({ "artifactLocation": { "uri": uri(&d.path) } });
            if item.pos.line > 0 {
                location["region"] = json!({
                    "startLine": item.pos.line,
                    "startColumn": item.pos.column,
                });
            }
            results.push(json!({
                "ruleId": id.as_str(),
                "ruleIndex": index,
                "level": match item.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Note => "note",
                },
                "message": { "text": full_message(item) },
                "locations": [{ "physicalLocation": location }],
            }));
        }
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|&id| {
            let mut rule = json!({
                "id": id.as_str(),
                "helpUri": format!(
                    "{}/blob/main/docs/DIAGNOSTICS.md#{id}",
                    env!("CARGO_PKG_REPOSITORY")
                ),
            });
            if let Some(e) = explain(id.as_str()) {
                rule["shortDescription"] = json!({ "text": e.title });
                rule["fullDescription"] = json!({ "text": e.meaning });
            }
            rule
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "mcpgraph",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_HOMEPAGE"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

/// A relative path as a URI reference: `/` separators, and the characters
/// a URI cannot hold percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.replace('\\', "/").chars() {
        match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '-' | '.' | '_' | '~' | '/' | ':' => out.push(c),
            c => {
                let mut buf = [0; 4];
                for byte in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostics() -> Diagnostics {
        let src = "version: \"1.0\"\nserver: {name: s, version: \"1\"}\ntoolz: []\n";
        mcpgraph_codegen::load_str(src, "dir/my graph,1.yaml").unwrap_err()
    }

    #[test]
    fn github_commands_escape_their_properties_and_message() {
        assert_eq!(
            github(&diagnostics()),
            "::error file=dir/my graph%2C1.yaml,line=3,col=1,title=mcpgraph%3A unknown_key::\
             unknown key `toolz` at the top level%0Ahelp: did you mean `tools`?\n"
        );
    }

    #[test]
    fn sarif_locates_each_result() {
        let log = sarif(&[diagnostics()]);
        let result = &log["runs"][0]["results"][0];
        assert_eq!(result["level"], "error");
        assert_eq!(
            result["locations"][0]["physicalLocation"],
            json!({
                "artifactLocation": { "uri": "dir/my%20graph%2C1.yaml" },
                "region": { "startLine": 3, "startColumn": 1 },
            })
        );
        assert_eq!(result["ruleId"], "unknown_key");
        let rule = &log["runs"][0]["tool"]["driver"]["rules"][0];
        assert_eq!(rule["id"], "unknown_key");
        assert_eq!(
            rule["shortDescription"]["text"],
            "a key the mapping does not have"
        );
    }
}
