//! Node ids and tool names become Rust identifiers, deterministically.
//!
//! `list_directory_node` → `ListDirectoryNode` (enum variants) or
//! `list_directory_node` (modules, fields); characters Rust does not allow
//! separate words; a leading digit gets a prefix; keywords get a trailing
//! `_`. Names that collide after conversion are numbered in file order
//! (`ListDir`, `ListDir2`), since files with such ids are valid.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::Ident;

/// Splits `name` into lowercase words at non-alphanumerics and at
/// lower→upper case changes (`listDir-node` → `list`, `dir`, `node`).
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev_lower_or_digit = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower_or_digit = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower_or_digit && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower_or_digit = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// `UpperCamelCase` form of `name`, always a valid identifier.
pub(crate) fn camel(name: &str) -> String {
    let mut out: String = words(name)
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    if out.is_empty() {
        out.push_str("Node");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'N');
    }
    escape_keyword(out)
}

/// `snake_case` form of `name`, always a valid identifier.
pub(crate) fn snake(name: &str) -> String {
    let mut out = words(name).join("_");
    if out.is_empty() {
        out.push_str("node");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    escape_keyword(out)
}

fn escape_keyword(mut name: String) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
        "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
        "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box",
        "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
        "union", "_",
    ];
    if KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// Converts every name with `convert` and numbers collisions in order:
/// the first keeps its form, later ones get the smallest free suffix ≥ 2.
/// `reserved` names are treated as taken from the start.
pub(crate) fn unique(names: &[&str], convert: fn(&str) -> String, reserved: &[&str]) -> Vec<Ident> {
    let mut taken: HashSet<String> = reserved.iter().map(|s| (*s).to_owned()).collect();
    names
        .iter()
        .map(|name| {
            let base = convert(name);
            let mut candidate = base.clone();
            let mut n = 2;
            while taken.contains(&candidate) {
                let sep = if base.ends_with(|c: char| c.is_ascii_digit()) {
                    "_"
                } else {
                    ""
                };
                candidate = format!("{base}{sep}{n}");
                n += 1;
            }
            taken.insert(candidate.clone());
            Ident::new(&candidate, Span::call_site())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_common_shapes() {
        assert_eq!(camel("list_directory_node"), "ListDirectoryNode");
        assert_eq!(camel("listDir"), "ListDir");
        assert_eq!(camel("my-node.v2"), "MyNodeV2");
        assert_eq!(camel("1st"), "N1st");
        assert_eq!(camel("---"), "Node");
        assert_eq!(camel("self"), "Self_");
        assert_eq!(snake("count_files"), "count_files");
        assert_eq!(snake("countFiles"), "count_files");
        assert_eq!(snake("type"), "type_");
        assert_eq!(snake("9lives"), "_9lives");
        assert_eq!(snake("ünïcode"), "n_code");
    }

    #[test]
    fn collisions_are_numbered_in_order() {
        let ids = unique(
            &["list_dir", "listDir", "list-dir", "x1", "x_1"],
            camel,
            &[],
        );
        let names: Vec<String> = ids.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["ListDir", "ListDir2", "ListDir3", "X1", "X1_2"]);
        let ids = unique(&["node"], snake, &["node"]);
        assert_eq!(ids[0].to_string(), "node2");
    }
}
