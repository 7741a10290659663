//! The `mcpgraph` command as a person or a CI job runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgraph"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("cannot run mcpgraph")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const FIVE_ERRORS: &str = "mcpgraph-macros/tests/ui/five_errors.yaml";
const LOOP: &str = "examples/loop_example/loop_example.yaml";

#[test]
fn check_passes_good_files() {
    let out = run(&["check", LOOP, "examples/test_minimal/test_minimal.yaml"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stderr), "checked 2 files: no problems\n");
}

#[test]
fn check_reports_every_error_and_fails() {
    let out = run(&["check", FIVE_ERRORS]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("\nerror: ").count() + 1, 6, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: unknown key `descripton` in tool `count_files`\n --> {FIVE_ERRORS}:7:5\n  |\n7 |     descripton:"
        )),
        "{stderr}"
    );
    assert!(stderr.ends_with("error: checked 1 file: 5 errors, 0 warnings\n"));

    let out = run(&["check", "--format", "json", FIVE_ERRORS, LOOP]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = json.as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert_eq!(items[0]["severity"], "error");
    assert_eq!(items[0]["file"], FIVE_ERRORS);
    assert_eq!(
        (items[0]["line"].clone(), items[0]["column"].clone()),
        (7.into(), 5.into())
    );
    assert_eq!(items[0]["help"], "did you mean `description`?");
}

#[test]
fn warnings_pass_unless_denied() {
    let file = "mcpgraph-macros/tests/ui/reference_before_run.yaml";
    let out = run(&["check", file]);
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("warning: node `list` reads `count`, which cannot have run before it"),
        "{stderr}"
    );
    let out = run(&["check", "--deny-warnings", "--format", "json", file]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json[0]["lint"], "reference_before_run");
}

/// With a lock beside the graph, `check` checks a `parallel` branch's and
/// a `forEach` call's downstream tool as an `mcp` node's: a tool the server
/// lacks, a literal of the wrong type.
#[test]
fn check_holds_branches_and_item_calls_to_the_lock() {
    let files = [
        "mcpgraph-macros/tests/ui/lock_branch_tool_misspelled.yaml",
        "mcpgraph-macros/tests/ui/lock_branch_literal_type.yaml",
        "mcpgraph-macros/tests/ui/lock_foreach_tool_misspelled.yaml",
    ];
    let args: Vec<&str> = ["check", "--format", "json"]
        .into_iter()
        .chain(files)
        .collect();
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(&str, u64, u64, &str, &str)> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["severity"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                files[0],
                16,
                19,
                "error",
                "node `gather`, branch `now`: server `time` has no tool `get_curent_time`"
            ),
            (
                files[1],
                19,
                15,
                "error",
                "node `gather`, branch `number`: argument `message` of `echo`: 42 is not of type \"string\""
            ),
            (
                files[2],
                16,
                17,
                "error",
                "node `each`, item call: server `filesystem` has no tool `read_txt_file`"
            ),
        ]
    );
    assert_eq!(json[0]["help"], "did you mean `get_current_time`?");
}

/// Files mcpGraph runs that our checks warn about (the fixtures the UI
/// case `mcpgraph_files_compile.rs` compiles): `check` passes them with the
/// same warning, at the same place, as the build shows, and fails them with
/// `--deny-warnings`.
#[test]
fn compat_fixtures_warn_and_pass() {
    for (file, lint, first) in [
        (
            "mcpgraph-macros/tests/compat/entry_nothing.yaml",
            "unknown_input_field",
            "warning: `entry.nothing`: the tool's arguments (its `inputSchema`) cannot have a field `nothing`\n  --> mcpgraph-macros/tests/compat/entry_nothing.yaml:27:67\n",
        ),
        (
            "mcpgraph-macros/tests/compat/substring_before_typo.yaml",
            "unknown_function",
            "warning: unknown function `$substringBefor`\n  --> mcpgraph-macros/tests/compat/substring_before_typo.yaml:27:42\n",
        ),
    ] {
        let out = run(&["check", file]);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.starts_with(first), "{stderr}");
        assert!(stderr.ends_with("0 errors, 1 warning\n"), "{stderr}");
        let out = run(&["check", "--deny-warnings", "--format", "json", file]);
        assert_eq!(out.status.code(), Some(1));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json[0]["lint"], lint);
        assert_eq!(json[0]["severity"], "warning");
        // `--allow` and `--deny`, as in the macro call.
        let out = run(&["check", "--allow", lint, file]);
        assert!(out.status.success());
        assert_eq!(text(&out.stderr), "checked 1 file: no problems\n");
        let out = run(&["check", "--deny", "warnings", "--allow", lint, file]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let out = run(&["check", "--deny", lint, file]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&first.replacen("warning", "error", 1)),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("= note: denied by `--deny {lint}`\n")),
            "{stderr}"
        );
        assert!(stderr.ends_with("1 error, 0 warnings\n"), "{stderr}");
    }
    let out = run(&["check", "--deny", "unknown_input_feild", LOOP]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: unknown lint `unknown_input_feild`: the lints are "),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `unknown_input_field`?"),
        "{stderr}"
    );
}

#[test]
fn check_a_missing_file() {
    let out = run(&["check", "no/such.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let here = std::fs::canonicalize(workspace()).unwrap();
    let abs = here.join("no/such.yaml");
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&abs.display().to_string()), "{stderr}");
    // On the command line a path is relative to the current directory (the
    // macro's is relative to the crate's Cargo.toml).
    assert!(
        stderr.contains(&format!(
            "help: the path is relative to the current directory (`{}`)",
            here.display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("Cargo.toml"), "{stderr}");
}

/// The commands clap knows, from `--help`'s list (without `help`).
fn commands() -> Vec<String> {
    let out = run(&["--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    let list = help
        .split_once("Commands:\n")
        .and_then(|(_, rest)| rest.split_once("\n\n"))
        .map(|(list, _)| list)
        .unwrap_or_else(|| panic!("no command list in:\n{help}"));
    list.lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// `--help`'s first line, the README's table of commands and the CLI
/// README's summary name every command.
#[test]
fn help_and_readmes_name_every_command() {
    let commands = commands();
    assert!(commands.len() >= 6, "{commands:?}");
    let about = text(&run(&["--help"]).stdout);
    let about = about.lines().next().unwrap_or_default();
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let cli_readme = std::fs::read_to_string(workspace().join("mcpgraph-cli/README.md")).unwrap();
    for command in &commands {
        assert!(
            readme.contains(&format!("| `mcpgraph {command} ")),
            "README.md's table of commands lacks `{command}`"
        );
        assert!(
            cli_readme.contains(&format!("\nmcpgraph {command} ")),
            "mcpgraph-cli/README.md lacks `{command}`"
        );
    }
    for word in ["check", "lock", "expand", "draw", "log in"] {
        assert!(about.contains(word), "{word:?} not in {about:?}");
    }
}

#[test]
fn expand_prints_the_code() {
    let out = run(&["expand", LOOP]);
    assert!(out.status.success());
    let code = text(&out.stdout);
    assert!(code.contains("pub struct Server;"), "{code}");
    assert!(code.contains("pub mod sum_to_n {"), "{code}");
    let out = run(&["expand", "--crate", "::renamed", LOOP]);
    assert!(text(&out.stdout).contains("::renamed::__private::cli::main"));
    let out = run(&["expand", FIVE_ERRORS]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

#[test]
fn graph_draws_mermaid() {
    let out = run(&["graph", LOOP]);
    assert!(out.status.success());
    let chart = text(&out.stdout);
    assert!(chart.starts_with("flowchart TD\n"), "{chart}");
    assert!(chart.contains("check_condition -.->|"), "{chart}");
    let out = run(&["graph", "--tool", "nope", LOOP]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("its tools: sum_to_n"));
}

/// A fresh directory under the system's temporary one.
fn scratch(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpgraph-cli-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The crates `mcpgraph new` makes share a target directory (so the
/// second builds only its own code), unless `--own-target`.
#[test]
fn new_crates_share_a_target_directory() {
    let dir = scratch("shared-target");
    let cache = dir.join("cache");
    let create = |name: &str, extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mcpgraph"))
            .arg("new")
            .arg(dir.join(name))
            .args(extra)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let said = create("first", &[]);
    let shared = cache.join("mcpgraph/target");
    assert!(said.contains(&shared.display().to_string()), "{said}");
    let config = std::fs::read_to_string(dir.join("first/.cargo/config.toml")).unwrap();
    assert!(
        config.contains(&format!("target-dir = \"{}\"", shared.display())),
        "{config}"
    );
    create("second", &["--own-target"]);
    assert!(!dir.join("second/.cargo/config.toml").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn new_creates_a_crate() {
    let dir = scratch("new");
    let target = dir.join("my-server");
    let target_arg = target.display().to_string();
    let checkout = workspace().display().to_string();
    let out = run(&[
        "new",
        &target_arg,
        "--graph",
        LOOP,
        "--mcpgraph-path",
        &checkout,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The checkout given, so nothing said about the one built from.
    assert!(
        !text(&out.stderr).contains("built from"),
        "{}",
        text(&out.stderr)
    );
    let manifest = std::fs::read_to_string(target.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"my-server\""), "{manifest}");
    let facade = std::fs::canonicalize(workspace().join("mcpgraph")).unwrap();
    assert!(
        manifest.contains(&format!("mcpgraph = {{ path = \"{}\" }}", facade.display())),
        "{manifest}"
    );
    let lines = "\n[workspace]\n|\nresolver = \"1\"\n|\n[profile.dev.package.\"*\"]\ndebug = false\n\
        |\n[profile.release.package.jsonschema]\nopt-level = 0\n";
    assert!(lines.split('|').all(|l| manifest.contains(l)), "{manifest}");
    let main = std::fs::read_to_string(target.join("src/main.rs")).unwrap();
    assert!(
        main.contains("mcpgraph::mcpgraph!(\"loop_example.yaml\");"),
        "{main}"
    );
    // The evaluation byte budget counted (a binary's choice: see
    // `mcpgraph::allocator!`).
    assert!(main.contains("\nmcpgraph::allocator!();\n"), "{main}");
    assert_eq!(
        std::fs::read(target.join("loop_example.yaml")).unwrap(),
        std::fs::read(workspace().join(LOOP)).unwrap()
    );
    assert!(target.join("Cargo.lock").exists());
    // Not over an existing crate, not for a broken graph, not a bad name,
    // not with a path that is no checkout.
    let out = run(&["new", &target_arg, "--graph", LOOP]);
    assert_eq!(out.status.code(), Some(1));
    let other = dir.join("other").display().to_string();
    let out = run(&["new", &other, "--graph", FIVE_ERRORS]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!dir.join("other").exists());
    let bad = dir.join("9lives").display().to_string();
    assert_eq!(run(&["new", &bad, "--graph", LOOP]).status.code(), Some(1));
    let out = run(&["new", &other, "--mcpgraph-path", "/"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is not a checkout"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without `--graph`: the starter graph, with the schema line and the
/// schema beside it. Without `--mcpgraph-path`: a dependency on the
/// checkout this command was built from (the crates are not on crates.io),
/// said on stderr, with the checkout's lock file.
#[test]
fn new_writes_a_starter_on_the_checkout_it_was_built_from() {
    let dir = scratch("starter");
    let target = dir.join("hello_server");
    let out = run(&["new", &target.display().to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let manifest = std::fs::read_to_string(target.join("Cargo.toml")).unwrap();
    let checkout = std::fs::canonicalize(workspace()).unwrap();
    let facade = checkout.join("mcpgraph");
    assert!(
        manifest.contains(&format!(
            "\nmcpgraph = {{ path = \"{}\" }}\n",
            facade.display()
        )),
        "{manifest}"
    );
    assert_eq!(
        text(&out.stderr),
        format!(
            "depending on the mcpgraph checkout this command was built from, {} (`--mcpgraph-path CHECKOUT` for another)\n",
            checkout.display()
        )
    );
    assert!(target.join("Cargo.lock").exists());
    let graph = std::fs::read_to_string(target.join("graph.yaml")).unwrap();
    assert!(
        graph.starts_with("# yaml-language-server: $schema=mcpgraph.schema.json\n"),
        "{graph}"
    );
    assert!(graph.contains("name: \"hello_server\""), "{graph}");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(target.join("mcpgraph.schema.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    // The starter checks clean.
    let file = target.join("graph.yaml").display().to_string();
    let out = run(&["check", "--deny-warnings", &file]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

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
