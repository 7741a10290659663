//! CONTRIBUTING.md's map of the code matches the tree: its table of
//! crates lists exactly the workspace's `mcpgraph*` crates, and under
//! "The crates' modules" each crate's table lists exactly the top-level
//! modules its `lib.rs` (or `main.rs`) declares (`#[cfg(test)]` ones aside).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace directory")
        .to_path_buf()
}

/// The first cell of a table row, when it is one backticked name.
fn first_cell(line: &str) -> Option<&str> {
    let cell = line.strip_prefix('|')?.split('|').next()?.trim();
    let name = cell.strip_prefix('`')?.strip_suffix('`')?;
    (!name.is_empty() && !name.contains('`')).then_some(name)
}

/// The workspace's crates named `mcpgraph*`, by directory.
fn crates(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .expect("the workspace directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_owned()))
        .filter(|name| name.starts_with("mcpgraph"))
        .collect()
}

/// The modules a crate root declares, `#[cfg(test)]` ones aside.
fn modules(krate: &Path) -> BTreeSet<String> {
    let root = ["src/lib.rs", "src/main.rs"]
        .iter()
        .map(|f| krate.join(f))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{}: no src/lib.rs or src/main.rs", krate.display()));
    let text = std::fs::read_to_string(&root).expect("the crate root");
    let mut found = BTreeSet::new();
    let mut after_cfg_test = false;
    // Top-level declarations only: an inline module's own modules are
    // indented.
    for line in text.lines().filter(|l| !l.starts_with(char::is_whitespace)) {
        if line.starts_with("#[cfg(test)]") {
            after_cfg_test = true;
            continue;
        }
        let decl = ["pub mod ", "pub(crate) mod ", "mod "]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix));
        if let Some(rest) = decl {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !after_cfg_test && !name.is_empty() {
                found.insert(name);
            }
        }
        if !line.starts_with("#[") {
            after_cfg_test = false;
        }
    }
    found
}

/// CONTRIBUTING.md's sections: the crates table under "The workspace",
/// and each `#### \`crate\`` table under "The crates' modules".
struct Map {
    crates: BTreeSet<String>,
    modules: Vec<(String, BTreeSet<String>)>,
}

fn map(text: &str) -> Map {
    let mut crates = BTreeSet::new();
    let mut modules: Vec<(String, BTreeSet<String>)> = Vec::new();
    let mut section = "";
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            section = if title == "The workspace" {
                "workspace"
            } else if title == "The crates' modules" {
                "modules"
            } else {
                ""
            };
            continue;
        }
        match section {
            "workspace" => {
                if let Some(name) = first_cell(line).filter(|n| n.starts_with("mcpgraph")) {
                    crates.insert(name.to_owned());
                }
            }
            "modules" => {
                if let Some(title) = line.strip_prefix("#### ") {
                    let name = title.trim().trim_matches('`').to_owned();
                    modules.push((name, BTreeSet::new()));
                } else if let (Some(name), Some((_, list))) = (first_cell(line), modules.last_mut())
                {
                    list.insert(name.to_owned());
                }
            }
            _ => {}
        }
    }
    Map { crates, modules }
}

#[test]
fn contributing_maps_every_crate_and_module() {
    let root = root();
    let text = std::fs::read_to_string(root.join("CONTRIBUTING.md")).expect("CONTRIBUTING.md");
    let map = map(&text);
    let crates = crates(&root);
    assert_eq!(
        map.crates, crates,
        "CONTRIBUTING.md's table of crates (\"The workspace\") against the workspace"
    );
    let mapped: BTreeSet<String> = map.modules.iter().map(|(c, _)| c.clone()).collect();
    assert_eq!(
        mapped, crates,
        "CONTRIBUTING.md's \"The crates' modules\": one `#### ` table per crate"
    );
    for (krate, listed) in &map.modules {
        let declared = modules(&root.join(krate));
        assert_eq!(
            listed, &declared,
            "{krate}: CONTRIBUTING.md's modules against those src/lib.rs (or main.rs) declares"
        );
    }
}
