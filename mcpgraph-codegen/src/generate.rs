//! The front-door API shared by the macro, the build.rs builder and the
//! CLI: read, load, validate and expand a file in one call, and on error a
//! skeleton of the public items so that user code still resolves.
//!
//! Policy stays with the front doors: which warnings are allowed or
//! denied (`lints`), how diagnostics are printed, where code is written. Nothing here panics on any input.

use std::path::Path;

use proc_macro2::TokenStream;

use crate::diag::{Code, Diagnostics, codes};
use crate::expand::{ExpandOptions, expand, skeleton_of};
use crate::lock::Lock;
use crate::model::{Pos, Tool};
use crate::yaml::LineIndex;

/// What a generation gives back.
pub struct Output {
    /// The generated code when the file has no errors; otherwise a skeleton
    /// of its public items (module per tool with its `Node` enum, `Server`)
    /// with no behaviour.
    pub tokens: TokenStream,
    /// Every error and warning, in file order.
    pub diagnostics: Diagnostics,
    /// The errors of the graph's test file (`<graph>.test.yaml`), when it
    /// has one and the graph itself has no errors.
    pub test_diagnostics: Option<Diagnostics>,
    /// The names of the test file's cases, when it was checked without
    /// errors (what `graph_tests!` makes a test of each).
    pub test_names: Vec<String>,
}

impl Output {
    /// Whether `tokens` is the real code: the file has no errors.
    pub fn is_ok(&self) -> bool {
        self.diagnostics.error_count() == 0
            && self
                .test_diagnostics
                .as_ref()
                .is_none_or(|d| d.error_count() == 0)
    }
}

/// Loads, validates and expands a graph file's text. `display_path` names
/// the file in messages.
///
/// ```
/// let src = "version: '1'\nserver: {name: s, version: '1'}\ntools: []\n";
/// let out = mcpgraph_codegen::generate_str(src, "g.yaml", &Default::default());
/// assert!(out.is_ok());
/// assert!(out.tokens.to_string().contains("struct Server"));
/// ```
pub fn generate_str(source: &str, display_path: &str, options: &ExpandOptions) -> Output {
    generate(source, display_path, options, LockState::None, None)
}

/// A graph's test file as [`generate_file`] found it: where it is, how
/// messages name it, its text.
struct TestFileText {
    absolute: String,
    display: String,
    text: String,
}

/// Reads `<graph>.test.yaml` beside `path`, if there is one.
fn find_tests(path: &Path) -> Option<TestFileText> {
    let tests = crate::cases::test_path(path);
    let text = std::fs::read_to_string(&tests).ok()?;
    let absolute = std::fs::canonicalize(&tests).unwrap_or(tests.clone());
    Some(TestFileText {
        absolute: absolute.to_string_lossy().into_owned(),
        display: display_path(&tests),
        text,
    })
}

/// The graph's lock, as [`generate_file`] found it.
enum LockState {
    /// No lock (or no file to look beside).
    None,
    /// Read: the calls are checked against it.
    Found(Lock, String),
    /// Missing though required, or unreadable: an error for the graph
    /// (its code, message and help).
    Problem(Code, String, &'static str),
}

/// Looks for `<graph>.lock.json` beside `path`.
fn find_lock(path: &Path, options: &ExpandOptions) -> (LockState, Option<String>) {
    let lock_path = crate::lock::lock_path(path);
    let name = display_path(&lock_path);
    match std::fs::read_to_string(&lock_path) {
        Ok(text) => match Lock::from_json(&text) {
            Ok(lock) => {
                // Tracked only where the graph is (the macro).
                let tracked = options.track_path.as_ref().and_then(|_| {
                    std::fs::canonicalize(&lock_path)
                        .ok()
                        .map(|p| p.to_string_lossy().into_owned())
                });
                (LockState::Found(lock, name), tracked)
            }
            Err(e) => (
                LockState::Problem(
                    codes::LOCK_UNREADABLE,
                    format!("the lock `{name}` cannot be read: {e}"),
                    "re-run `mcpgraph lock` to write it again",
                ),
                None,
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !options.require_lock => {
            (LockState::None, None)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (
            LockState::Problem(
                codes::LOCK_REQUIRED,
                format!("no lock `{name}` beside the graph, and one is required"),
                "run `mcpgraph lock` on the graph and commit the lock it writes",
            ),
            None,
        ),
        Err(e) => (
            LockState::Problem(
                codes::LOCK_UNREADABLE,
                format!("the lock `{name}` cannot be read: {e}"),
                "check the file's permissions, or re-run `mcpgraph lock`",
            ),
            None,
        ),
    }
}

fn generate(
    source: &str,
    display_path: &str,
    options: &ExpandOptions,
    lock: LockState,
    tests: Option<TestFileText>,
) -> Output {
    let locked = match &lock {
        LockState::Found(lock, name) => Some((lock, name.as_str())),
        LockState::None | LockState::Problem(..) => None,
    };
    let (lowered, mut diagnostics) = crate::load_lowered(source, display_path, locked);
    let mut options = options.clone();
    options
        .display_path
        .get_or_insert_with(|| display_path.to_owned());
    match (&lowered, lock) {
        (_, LockState::None) => {}
        (_, LockState::Problem(code, message, help)) => {
            diagnostics.error(code, Pos::default(), message).help(help);
            diagnostics.sort();
        }
        // Checked in `load_lowered`.
        (Some(lowered), LockState::Found(lock, _)) if diagnostics.error_count() == 0 => {
            options.embed_lock = Some(lock.called_by(&lowered.file).to_json());
            options.lock = Some(lock);
        }
        (_, LockState::Found(..)) => {}
    }
    let mut test_diagnostics = None;
    if let (Some(lowered), Some(tests)) = (&lowered, tests)
        && diagnostics.error_count() == 0
    {
        let mut diags = Diagnostics::new(&tests.display, &tests.text);
        options.embed_tests =
            crate::cases::check(&tests.text, &tests.absolute, &lowered.file, &mut diags);
        diags.sort();
        if options.track_path.is_some() {
            options.track_tests = Some(tests.absolute);
        }
        test_diagnostics = Some(diags);
    }
    let test_names = options
        .embed_tests
        .as_deref()
        .and_then(|json| serde_json::from_str::<serde_json::Value>(json).ok())
        .and_then(|json| {
            json["cases"].as_array().map(|cases| {
                cases
                    .iter()
                    .filter_map(|c| c["name"].as_str().map(str::to_owned))
                    .collect()
            })
        })
        .unwrap_or_default();
    match lowered {
        Some(lowered) if diagnostics.error_count() == 0 => Output {
            tokens: expand(&lowered.file, &options),
            diagnostics,
            test_diagnostics,
            test_names,
        },
        lowered => {
            let tools: Vec<&Tool> = lowered.as_ref().map_or_else(Vec::new, |l| {
                l.file
                    .tools
                    .iter()
                    .zip(&l.tools)
                    .filter(|(_, info)| !info.name_missing)
                    .map(|(tool, _)| tool)
                    .collect()
            });
            Output {
                tokens: skeleton_of(&tools, &options),
                diagnostics,
                test_diagnostics,
                test_names: Vec::new(),
            }
        }
    }
}

/// Reads the file at `path`, then as [`generate_str`]. A file that cannot
/// be read is an error naming its absolute path; a file that is not UTF-8
/// is an error at the first invalid byte.
pub fn generate_file(path: &Path, display_path: &str, options: &ExpandOptions) -> Output {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let resolved = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            let mut diagnostics = Diagnostics::io_error(
                display_path,
                codes::FILE_UNREADABLE,
                &format!("cannot read the graph file `{}`: {e}", resolved.display()),
            );
            if let Some(item) = diagnostics.items.first_mut() {
                item.help = Some(format!("the path is relative to {}", options.relative_to));
            }
            // Not tracked: a file that does not exist cannot be included.
            let options = ExpandOptions {
                track_path: None,
                ..options.clone()
            };
            return Output {
                tokens: skeleton_of(&[], &options),
                diagnostics,
                test_diagnostics: None,
                test_names: Vec::new(),
            };
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => {
            let (lock, track_lock) = find_lock(path, options);
            let options = ExpandOptions {
                track_lock,
                ..options.clone()
            };
            generate(&text, display_path, &options, lock, find_tests(path))
        }
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
            let pos = LineIndex::new(&prefix).pos(valid);
            let mut diagnostics = Diagnostics::new(display_path, &text);
            diagnostics
                .error(
                    codes::NOT_UTF8,
                    Pos { offset: 0, ..pos },
                    "the graph file is not UTF-8 text: invalid byte here",
                )
                .help("save the file as UTF-8");
            Output {
                tokens: skeleton_of(&[], options),
                diagnostics,
                test_diagnostics: None,
                test_names: Vec::new(),
            }
        }
    }
}

/// `path` as messages should show it: relative to the current directory
/// when it is inside it (rustc's own paths are relative to the directory
/// cargo runs it in), absolute otherwise.
pub fn display_path(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    std::env::current_dir()
        .ok()
        .and_then(|cwd| absolute.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or(absolute)
        .display()
        .to_string()
}

/// Pretty-prints generated tokens as a Rust file (prettyplease).
///
/// A switch's branch carries its rule as written in a doc attribute
/// (tokens have no comments); here it becomes the `//` comment it stands
/// for, the line above the branch.
pub fn pretty(tokens: &TokenStream) -> Result<String, syn::Error> {
    let file: syn::File = syn::parse2(tokens.clone())?;
    let text = prettyplease::unparse(&file);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        let is_branch = |next: &&str| next.trim_start().starts_with("rt::Some(");
        match line.split_once("///") {
            Some((indent, rule))
                if indent.trim().is_empty() && lines.get(i + 1).is_some_and(is_branch) =>
            {
                out.extend([indent, "//", rule]);
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skeleton_keeps_the_tools_that_could_be_read() {
        let src = "version: '1'\nserver: {name: s, version: '1'}\ntools:\n  - name: count_files\n    description: d\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: nope}\n      - {id: list_dir, type: exit}\n";
        let out = generate_str(src, "g.yaml", &ExpandOptions::default());
        assert!(!out.is_ok());
        let text = pretty(&out.tokens).unwrap();
        assert!(text.contains("pub mod count_files"), "{text}");
        assert!(text.contains("ListDir"), "{text}");
        assert!(text.contains("pub struct Server"), "{text}");
    }

    #[test]
    fn pretty_code_shows_rules_as_comments_and_expressions_as_written() {
        let src = "version: '1'\nserver: {name: s, version: '1'}\ntools:\n  - name: t\n    description: d\n    inputSchema: {type: object}\n    nodes:\n      - {id: entry, type: entry, next: s}\n      - id: s\n        type: switch\n        conditions:\n          - {rule: {'==': [{var: '$.entry.x'}, 1]}, next: a}\n        next: a\n      - id: a\n        type: transform\n        transform:\n          expr: |\n            {\n              \"x\": 1\n            }\n        next: exit\n      - {id: exit, type: exit}\n";
        let out = generate_str(src, "g.yaml", &ExpandOptions::default());
        assert!(out.is_ok(), "{}", out.diagnostics);
        let text = pretty(&out.tokens).unwrap();
        let comment = "// {\"==\": [{\"var\": \"$.entry.x\"}, 1]}\n";
        let at = text.find(comment).expect(&text);
        assert!(
            text[at + comment.len()..]
                .trim_start()
                .starts_with("rt::Some(0) => Node::A,")
        );
        assert!(!text.contains("/// {"), "{text}");
        assert!(text.contains("r#\"{\n  \"x\": 1\n}\n\"#"), "{text}");
        assert!(text.contains("compiled: &Compiled,"), "{text}");
    }

    #[test]
    fn unreadable_and_non_utf8_files() {
        let out = generate_file(
            Path::new("no/such.yaml"),
            "no/such.yaml",
            &ExpandOptions::default(),
        );
        let text = out.diagnostics.to_string();
        let abs = std::env::current_dir().unwrap().join("no/such.yaml");
        assert!(text.contains(&abs.display().to_string()), "{text}");
        let dir = std::env::temp_dir().join(format!("mcpgraph-gen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bin.yaml");
        std::fs::write(&path, b"version: '1'\nserver: \xff\xfe\n").unwrap();
        let out = generate_file(&path, "bin.yaml", &ExpandOptions::default());
        let item = &out.diagnostics.items[0];
        assert_eq!((item.pos.line, item.pos.column), (2, 9));
        assert!(item.message.contains("not UTF-8"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
