//! `check --format`: GitHub annotations, SARIF, JSON.

use std::process::Output;

use crate::{run, text, workspace};

/// The graph files of the UI tests: each has at least one error.
fn error_files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(workspace().join("mcpgraph-macros/tests/ui"))
        .expect("the UI tests")
        .map(|entry| entry.expect("a UI test").path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .map(|path| {
            format!(
                "mcpgraph-macros/tests/ui/{}",
                path.file_name().unwrap().display()
            )
        })
        .collect();
    files.sort();
    files
}

/// `mcpgraph check --format FORMAT FILES...`.
fn check_as(format: &str, files: &[String]) -> Output {
    let args: Vec<&str> = ["check", "--format", format]
        .into_iter()
        .chain(files.iter().map(String::as_str))
        .collect();
    run(&args)
}

/// Every diagnostic of `files`, as `check --format json` gives them.
fn json_items(files: &[String]) -> Vec<serde_json::Value> {
    serde_json::from_slice(&check_as("json", files).stdout).expect("a JSON array")
}

#[test]
fn check_annotates_for_github() {
    let files = error_files();
    let items = json_items(&files);
    let out = check_as("github", &files);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), items.len(), "{stdout}");
    for (line, item) in lines.iter().zip(&items) {
        let command = match item["severity"].as_str().unwrap() {
            "note" => "notice",
            severity => severity,
        };
        let mut want = format!("::{command} file={}", item["file"].as_str().unwrap());
        if item["line"] != 0 {
            want += &format!(",line={},col={}", item["line"], item["column"]);
        }
        assert!(line.starts_with(&want), "{line} does not start with {want}");
        let title = format!(",title=mcpgraph%3A {}::", item["code"].as_str().unwrap());
        assert!(line.contains(&title), "{line} has no {title}");
        let message = item["message"].as_str().unwrap().replace('%', "%25");
        assert!(line.contains(&format!("::{message}")), "{line}");
        assert!(!line.contains('\n'));
    }
    assert!(text(&out.stderr).starts_with("error: checked "));
}

#[test]
fn check_writes_valid_sarif() {
    let files = error_files();
    let items = json_items(&files);
    let out = check_as("sarif", &files);
    assert_eq!(out.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace().join("testdata/sarif/sarif-schema-2.1.0.json"))
            .expect("the SARIF schema"),
    )
    .expect("the SARIF schema is JSON");
    // Two `language` patterns of the schema have a stray `]`, which
    // JavaScript reads as a literal and the meta-schema's `format: regex`
    // rejects: they are replaced here (in memory; the file stays OASIS's)
    // by what they mean.
    for object in ["run", "toolComponent"] {
        let pattern = format!("/definitions/{object}/properties/language/pattern");
        let pattern = schema.pointer_mut(&pattern).expect("a language pattern");
        assert_eq!(*pattern, "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$");
        *pattern = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into();
    }
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let problems: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), items.len());
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    for (result, item) in results.iter().zip(&items) {
        assert_eq!(result["level"], item["severity"]);
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert_eq!(result["ruleId"], item["code"]);
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], item["file"]);
        if item["line"] != 0 {
            assert_eq!(location["region"]["startLine"], item["line"]);
            assert_eq!(location["region"]["startColumn"], item["column"]);
        }
        assert!(
            result["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with(item["message"].as_str().unwrap())
        );
    }
    // A broken result is caught: the check above can fail.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));
}
