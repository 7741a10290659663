//! `--help` and the READMEs, `explain`, `expand`, `graph`.

use crate::{FIVE_ERRORS, LOOP, run, text, workspace};

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
fn explain_prints_a_code_or_the_closest() {
    let out = run(&["explain", "unknown_node"]);
    assert!(out.status.success());
    let text_out = text(&out.stdout);
    assert!(text_out.starts_with("## `unknown_node`: "), "{text_out}");
    assert!(text_out.contains("next: exot"), "{text_out}");
    let out = run(&["explain", "unknown_nod"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr),
        "error: unknown code `unknown_nod` (did you mean `unknown_node`?)\n"
    );
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

/// `--svg` and `--html` write the pictures instead of printing Mermaid
/// (each flag takes its value; the graph file stays the file); a trace
/// needs a picture to be drawn on.
#[test]
fn graph_writes_pictures() {
    let dir = std::env::temp_dir().join(format!("mcpgraph-pictures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, html) = (dir.join("loop.svg"), dir.join("loop.html"));
    let out = run(&[
        "graph",
        "--svg",
        svg.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        LOOP,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg "), "{svg}");
    assert!(svg.contains("data-node=\"check_condition\""), "{svg}");
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("data-node=\"increment_node\""), "{html}");
    let out = run(&["graph", "--trace", "call.json", LOOP]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("add `--html OUT` or `--svg OUT`"));
    std::fs::remove_dir_all(&dir).unwrap();
}
