//! Every case of `testdata/mcpgraph/expected.json`, called through a
//! real MCP client against the compiled example of the same name.

use std::collections::BTreeMap;
use std::path::Path;

use mcpgraph_tests::*;
use serde_json::{Value, json};

/// The cases of expected.json, grouped by binary (keeps file order).
fn cases_by_bin() -> BTreeMap<String, Vec<Value>> {
    let expected = expected();
    let cases = expected["cases"]
        .as_array()
        .expect("expected.json has cases[]");
    assert!(!cases.is_empty());
    let mut by_bin: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for case in cases {
        let file = case["file"].as_str().expect("case.file");
        by_bin
            .entry(bin_for_file(file).to_string())
            .or_default()
            .push(case.clone());
    }
    by_bin
}

/// `<this folder>` of expected.json, mapped into our repo: the example's own
/// folder (file_utils carries its copy of `counting/` there).
fn this_folder(bin: &str) -> std::path::PathBuf {
    example_dir(bin)
        .canonicalize()
        .expect("example folder exists")
}

async fn run_cases(bin: &str) {
    let cases = cases_by_bin().remove(bin).unwrap_or_default();
    assert!(!cases.is_empty(), "no compat cases for {bin}");
    let server = Server::start(bin).await;
    for case in &cases {
        let tool = case["tool"].as_str().expect("case.tool");
        let args = substitute_this_folder(&case["arguments"], &this_folder(bin));
        let result = server.call(tool, args.clone()).await;
        let wire = result_json(&result);
        if case.get("isError") == Some(&Value::Bool(true)) {
            assert_eq!(
                result.is_error,
                Some(true),
                "{bin} {tool} {args}: expected isError: true, got {wire}"
            );
            let text = result_text(&result);
            assert!(
                text.contains("/value"),
                "{bin} {tool} {args}: error message should name /value, got {text:?}"
            );
        } else {
            let want = &case["structuredContent"];
            assert_ne!(
                result.is_error,
                Some(true),
                "{bin} {tool} {args}: unexpected error: {wire}"
            );
            assert_eq!(
                result.structured_content.as_ref(),
                Some(want),
                "{bin} {tool} {args}: structuredContent mismatch; whole result: {wire}"
            );
            // FORMAT.md: a successful call also answers with the value as JSON text.
            let text = result_text(&result);
            let parsed: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
                panic!("{bin} {tool} {args}: text content is not JSON ({e}): {text:?}")
            });
            assert_eq!(&parsed, want, "{bin} {tool} {args}: text content mismatch");
        }
    }
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compat_file_utils() {
    run_cases("file_utils").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compat_loop_example() {
    run_cases("loop_example").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compat_switch_example() {
    run_cases("switch_example").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compat_test_minimal() {
    run_cases("test_minimal").await;
}

#[test]
fn every_compat_file_has_an_example() {
    for bin in cases_by_bin().keys() {
        assert!(
            EXAMPLES.contains(&bin.as_str()),
            "compat file {bin}.yaml has no example binary"
        );
    }
    for name in EXAMPLES {
        assert!(
            compat_dir().join(format!("{name}.yaml")).is_file(),
            "example {name} has no upstream copy in testdata/mcpgraph"
        );
    }
}

/// initialize's serverInfo and instructions: as listed in expected.json's
/// `server_info`, and for every example as its YAML's `server:` block says
/// (title defaults to name; no instructions → none sent).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_info_matches() {
    let expected = expected();
    let listed = expected["server_info"]
        .as_object()
        .expect("expected.json has server_info");
    assert!(!listed.is_empty());
    for name in EXAMPLES {
        let file = format!("{name}.yaml");
        let want = match listed.get(&file) {
            Some(w) => w.clone(),
            None => {
                let server = &load_yaml(&example_yaml(name))["server"];
                json!({
                    "name": server["name"],
                    "version": server["version"],
                    "title": server.get("title").unwrap_or(&server["name"]),
                    "instructions": server.get("instructions").unwrap_or(&Value::Null),
                })
            }
        };
        let server = Server::start(name).await;
        let info = server
            .client()
            .peer_info()
            .expect("peer_info after initialize");
        let imp = info
            .server_info
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: initialize result has no serverInfo"));
        assert_eq!(
            Some(imp.name.as_str()),
            want["name"].as_str(),
            "{name}: serverInfo.name"
        );
        assert_eq!(
            Some(imp.version.as_str()),
            want["version"].as_str(),
            "{name}: serverInfo.version"
        );
        assert_eq!(
            imp.title.as_deref(),
            want["title"].as_str(),
            "{name}: serverInfo.title"
        );
        assert_eq!(
            info.instructions.as_deref(),
            want["instructions"].as_str(),
            "{name}: instructions"
        );
        assert!(
            info.capabilities.tools.is_some(),
            "{name}: initialize result should advertise the tools capability"
        );
        server.close().await;
    }
}

/// The YAML each example compiles is a byte-identical copy of the upstream file in testdata/mcpgraph.
#[test]
fn example_yaml_is_the_upstream_file() {
    for name in EXAMPLES {
        let ours = example_yaml(name);
        let shared = compat_dir().join(format!("{name}.yaml"));
        let a =
            std::fs::read(&ours).unwrap_or_else(|e| panic!("cannot read {}: {e}", ours.display()));
        let b = std::fs::read(&shared)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", shared.display()));
        assert!(
            a == b,
            "{} differs from {}",
            ours.display(),
            shared.display()
        );
    }
}

fn dir_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| {
            let e = e.unwrap();
            assert!(
                e.file_type().unwrap().is_file(),
                "unexpected non-file {}",
                e.path().display()
            );
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The expected counts are for the upstream `counting/` folder (testdata/mcpgraph/counting): our copy must
/// hold exactly the same files.
#[test]
fn counting_copy_is_identical() {
    let ours = dir_files(&counting_dir());
    let shared = dir_files(&compat_dir().join("counting"));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        shared.keys().collect::<Vec<_>>(),
        "examples/file_utils/counting has different files than testdata/mcpgraph/counting/"
    );
    for (name, bytes) in &shared {
        assert!(
            &ours[name] == bytes,
            "examples/file_utils/counting/{name} differs from the upstream copy"
        );
    }
}
