//! Checks the graph rules of FORMAT.md ("Validated when the file is
//! compiled") on a lowered model: unique tool names and node ids, one entry
//! and one exit per tool, `next` targets and servers that exist,
//! reachability, JSONata syntax (including S0212) and references to node ids
//! inside expressions; and, as warnings with a lint name, references to
//! nodes that cannot have run before the node whose expression reads them.
//!
//! Every problem is pushed into the `Diagnostics`; nothing stops at the
//! first. Shape errors (wrong types, missing fields) are `parse`'s and are
//! not repeated here: parts that `parse` could not build are skipped.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use jsonata_core::ast::{AstNode, BinaryOp, Stage};
use jsonata_core::parser::ParserError;

use crate::diag::{Diagnostics, REFERENCE_BEFORE_RUN};
use crate::model::{Arg, Expr, GraphFile, Logic, NodeKind, Pos, Sp, Tool};
use crate::parse::{Lowered, ToolInfo, expr_pos, suggest};

/// How many bytes of prefixes the search for a syntax error's place may
/// parse one by one; past that (long expressions), it bisects instead.
const LINEAR_SEARCH_BUDGET: usize = 4 << 20;

/// The history functions whose first argument names a node.
const HISTORY_FUNCTIONS: &[&str] = &["executionCount", "nodeExecution", "nodeExecutions"];

/// Checks everything `parse` could build.
pub(crate) fn validate(lowered: &Lowered, diags: &mut Diagnostics) {
    let file = &lowered.file;
    tool_names(file, &lowered.tools, diags);
    let servers: Vec<&str> = file
        .mcp_servers
        .iter()
        .map(|s| s.name.value.as_str())
        .chain(lowered.broken_servers.iter().map(String::as_str))
        .collect();
    for (tool, info) in file.tools.iter().zip(&lowered.tools) {
        check_tool(tool, info, &servers, diags);
    }
    unused_servers(lowered, diags);
}

/// A declared server that no node calls is likely a typo or a leftover:
/// a warning (it would still be started by nothing, so it costs nothing).
fn unused_servers(lowered: &Lowered, diags: &mut Diagnostics) {
    // With errors, a server may look unused because of them (a misspelt
    // server name, a tool that could not be read).
    if diags.error_count() > 0 || lowered.tools.iter().any(|t| t.incomplete) {
        return;
    }
    let used: HashSet<&str> = lowered
        .file
        .tools
        .iter()
        .flat_map(|t| &t.nodes)
        .filter_map(|n| match &n.kind {
            NodeKind::Mcp { server, .. } => Some(server.value.as_str()),
            _ => None,
        })
        .collect();
    for server in &lowered.file.mcp_servers {
        if !used.contains(server.name.value.as_str()) {
            diags
                .warning(
                    server.name.pos,
                    format!(
                        "server `{}` is declared but no node calls it",
                        server.name.value
                    ),
                )
                .help("remove it, or call it from an `mcp` node");
        }
    }
}

fn tool_names(file: &GraphFile, infos: &[ToolInfo], diags: &mut Diagnostics) {
    let mut seen: HashMap<&str, Pos> = HashMap::new();
    for (tool, info) in file.tools.iter().zip(infos) {
        if info.name_missing {
            continue;
        }
        let name = &tool.name;
        let bad: Vec<char> = name
            .value
            .chars()
            .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .collect();
        if name.value.is_empty() || name.value.len() > 128 || !bad.is_empty() {
            let d = diags.error(name.pos, format!("invalid tool name `{}`", name.value));
            d.help("MCP tool names are 1 to 128 characters of A-Z a-z 0-9 _ - .");
            if let Some(c) = bad.first() {
                d.note(format!("`{c}` is not allowed"));
            }
        }
        if let Some(first) = seen.get(name.value.as_str()) {
            diags
                .error(name.pos, format!("duplicate tool name `{}`", name.value))
                .note(format!(
                    "first defined at line {}, column {}",
                    first.line, first.column
                ));
        } else {
            seen.insert(&name.value, name.pos);
        }
    }
}

/// The targets a node may pass control to, with where each is written.
fn targets(kind: &NodeKind) -> Vec<&Sp<String>> {
    match kind {
        NodeKind::Entry { next }
        | NodeKind::Mcp { next, .. }
        | NodeKind::Transform { next, .. } => vec![next],
        NodeKind::Switch { conditions, next } => conditions
            .iter()
            .map(|c| &c.next)
            .chain(std::iter::once(next))
            .collect(),
        NodeKind::Exit => Vec::new(),
    }
}

fn check_tool(tool: &Tool, info: &ToolInfo, servers: &[&str], diags: &mut Diagnostics) {
    let tool_name = &tool.name.value;
    let label = if info.name_missing {
        "this tool".to_owned()
    } else {
        format!("tool `{tool_name}`")
    };

    // Ids, duplicates first.
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, node) in tool.nodes.iter().enumerate() {
        if let Some(&first) = index.get(node.id.value.as_str()) {
            let first = tool.nodes[first].id.pos;
            diags
                .error(
                    node.id.pos,
                    format!("duplicate node id `{}` in {label}", node.id.value),
                )
                .note(format!(
                    "first defined at line {}, column {}",
                    first.line, first.column
                ));
        } else {
            index.insert(&node.id.value, i);
        }
    }
    let mut ids: BTreeSet<&str> = index.keys().copied().collect();
    ids.extend(info.broken_ids.iter().map(String::as_str));
    let id_list: Vec<&str> = {
        let mut seen = HashSet::new();
        info.ids
            .iter()
            .map(String::as_str)
            .filter(|id| seen.insert(*id))
            .collect()
    };

    // Targets and servers.
    let mut targets_ok = true;
    for node in &tool.nodes {
        for target in targets(&node.kind) {
            if !ids.contains(target.value.as_str()) {
                targets_ok = false;
                unknown_node(
                    diags,
                    target.pos,
                    &target.value,
                    &label,
                    &id_list,
                    "`next` names",
                );
            }
        }
        if let NodeKind::Mcp { server, .. } = &node.kind
            && !servers.contains(&server.value.as_str())
        {
            let d = diags.error(
                server.pos,
                format!(
                    "node `{}` calls server `{}`, which is not declared in `mcpServers`",
                    node.id.value, server.value
                ),
            );
            match suggest(&server.value, servers) {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None if servers.is_empty() => {
                    d.help("declare it under `mcpServers` at the top level")
                }
                None => d.note(format!("declared servers: {}", servers.join(", "))),
            };
        }
    }

    // Expressions, and the references to existing nodes each node makes.
    let scope = Scope {
        ids: &ids,
        id_list: &id_list,
        label: &label,
    };
    let mut refs: Vec<Vec<Ref>> = Vec::with_capacity(tool.nodes.len());
    for node in &tool.nodes {
        let mut found = Vec::new();
        match &node.kind {
            NodeKind::Transform { expr, .. } => check_expr(expr, &scope, diags, &mut found),
            NodeKind::Mcp { args, .. } => check_arg(args, &scope, diags, &mut found),
            NodeKind::Switch { conditions, .. } => {
                for c in conditions {
                    check_logic(&c.rule, &scope, diags, &mut found);
                }
            }
            NodeKind::Entry { .. } | NodeKind::Exit => {}
        }
        refs.push(found);
    }

    if info.incomplete {
        return;
    }

    // Exactly one entry and one exit. A node whose id repeats an earlier
    // one was reported as a duplicate: one typo, one error, so it is not
    // counted again as a second entry or exit.
    let first_of_its_id = |i: usize| index.get(tool.nodes[i].id.value.as_str()) == Some(&i);
    let entries: Vec<usize> = (0..tool.nodes.len())
        .filter(|&i| matches!(tool.nodes[i].kind, NodeKind::Entry { .. }) && first_of_its_id(i))
        .collect();
    let exits: Vec<usize> = (0..tool.nodes.len())
        .filter(|&i| matches!(tool.nodes[i].kind, NodeKind::Exit) && first_of_its_id(i))
        .collect();
    for (found, kind) in [(&entries, "entry"), (&exits, "exit")] {
        match found.as_slice() {
            [] => {
                diags
                    .error(tool.name.pos, format!("{label} has no `{kind}` node"))
                    .help(format!(
                        "every tool needs exactly one node of type `{kind}`"
                    ));
            }
            [_] => {}
            [first, rest @ ..] => {
                let first = &tool.nodes[*first].id;
                for i in rest {
                    diags
                        .error(
                            tool.nodes[*i].id.pos,
                            format!("{label} has more than one `{kind}` node"),
                        )
                        .note(format!(
                            "the first is `{}` at line {}, column {}",
                            first.value, first.pos.line, first.pos.column
                        ));
                }
            }
        }
    }

    // Reachability, when the graph is whole.
    let ([entry], [exit]) = (entries.as_slice(), exits.as_slice()) else {
        return;
    };
    if !targets_ok || index.len() != tool.nodes.len() {
        return;
    }
    let mut reached = vec![false; tool.nodes.len()];
    let mut queue = VecDeque::from([*entry]);
    reached[*entry] = true;
    while let Some(i) = queue.pop_front() {
        for t in targets(&tool.nodes[i].kind) {
            let j = index[t.value.as_str()];
            if !reached[j] {
                reached[j] = true;
                queue.push_back(j);
            }
        }
    }
    let entry_id = &tool.nodes[*entry].id.value;
    if !reached[*exit] {
        let exit_node = &tool.nodes[*exit].id;
        diags
            .error(
                exit_node.pos,
                format!(
                    "the exit node `{}` of {label} is not reachable from the entry node `{entry_id}`",
                    exit_node.value
                ),
            )
            .help("every call must be able to end: route some `next` to the exit node");
    }
    for (i, node) in tool.nodes.iter().enumerate() {
        if !reached[i] && i != *exit {
            diags
                .error(
                    node.id.pos,
                    format!(
                        "node `{}` of {label} is not reachable from the entry node `{entry_id}`",
                        node.id.value
                    ),
                )
                .help("route a `next` to it, or remove it");
        }
    }

    let successors: Vec<Vec<usize>> = tool
        .nodes
        .iter()
        .map(|n| {
            targets(&n.kind)
                .into_iter()
                .map(|t| index[t.value.as_str()])
                .collect()
        })
        .collect();
    references_before_run(tool, &label, &successors, &reached, &refs, diags);
}

/// How many edges the may-have-run analysis may visit in one tool; past
/// that (graphs of many thousands of nodes) the check is skipped rather
/// than slowing the build.
const BEFORE_RUN_BUDGET: usize = 20_000_000;

/// Reports references to nodes that cannot have run before the node whose
/// expression reads them, as warnings with the lint [`REFERENCE_BEFORE_RUN`].
///
/// Node X may have run before node N when some path from the entry passes
/// through X and then, one or more steps later, reaches N: in a loop, a node
/// later in the body has run on an earlier iteration, and a node on a cycle
/// has run before its own next run. This is the union over all paths (a
/// "may" analysis), so a node that ran but yielded nothing, or that runs
/// only on some paths, is never reported.
fn references_before_run(
    tool: &Tool,
    label: &str,
    successors: &[Vec<usize>],
    reached: &[bool],
    refs: &[Vec<Ref>],
    diags: &mut Diagnostics,
) {
    let index: HashMap<&str, usize> = tool
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.value.as_str(), i))
        .collect();
    // The nodes referred to, each with the nodes it can reach in one or more
    // steps: one search per node referred to.
    let mut referred: Vec<usize> = refs
        .iter()
        .flatten()
        .filter_map(|r| index.get(r.name.as_str()).copied())
        .filter(|&x| reached[x])
        .collect();
    referred.sort_unstable();
    referred.dedup();
    let mut budget = BEFORE_RUN_BUDGET;
    let mut reach_from: HashMap<usize, Vec<bool>> = HashMap::new();
    for &x in &referred {
        let mut seen = vec![false; tool.nodes.len()];
        let mut queue: VecDeque<usize> = successors[x].iter().copied().collect();
        while let Some(y) = queue.pop_front() {
            budget = budget.saturating_sub(1 + successors[y].len());
            if budget == 0 {
                return;
            }
            if !std::mem::replace(&mut seen[y], true) {
                queue.extend(successors[y].iter().copied());
            }
        }
        reach_from.insert(x, seen);
    }
    let mut predecessors = vec![Vec::new(); tool.nodes.len()];
    for (from, next) in successors.iter().enumerate() {
        for &to in next {
            predecessors[to].push(from);
        }
    }
    let mut earlier_of: HashMap<usize, Vec<&str>> = HashMap::new();
    for (n, node_refs) in refs.iter().enumerate() {
        if !reached[n] {
            continue;
        }
        let node = &tool.nodes[n].id.value;
        for r in node_refs {
            let Some(x) = index.get(r.name.as_str()).copied() else {
                continue;
            };
            let Some(from_x) = reach_from.get(&x) else {
                continue;
            };
            if from_x[n] {
                continue;
            }
            let read = match r.kind {
                RefKind::Path => "reads",
                RefKind::StringArg => "asks for the history of",
            };
            let message = if x == n {
                format!(
                    "node `{node}` {read} itself, but it is not on a loop: its own output is never in its context"
                )
            } else {
                format!(
                    "node `{node}` {read} `{}`, which cannot have run before it on any path from the entry",
                    r.name
                )
            };
            let help = match r.kind {
                RefKind::Path => "this always yields nothing; read a node that runs before it",
                RefKind::StringArg => {
                    "the history is always empty here; ask for a node that runs before it"
                }
            };
            let earlier: &Vec<&str> = earlier_of.entry(n).or_insert_with(|| {
                let before = predecessors_of(&predecessors, n);
                (0..tool.nodes.len())
                    .filter(|&y| reached[y] && before[y])
                    .map(|y| tool.nodes[y].id.value.as_str())
                    .collect()
            });
            let d = diags.warning(r.pos, message);
            d.help(help);
            if earlier.is_empty() {
                d.note(format!("no node of {label} can have run before `{node}`"));
            } else {
                d.note(format!(
                    "the nodes that may have run before `{node}`: {}",
                    earlier.join(", ")
                ));
            }
            d.lint = Some(REFERENCE_BEFORE_RUN);
        }
    }
}

/// The nodes from which `to` is reached in one or more steps.
fn predecessors_of(predecessors: &[Vec<usize>], to: usize) -> Vec<bool> {
    let mut seen = vec![false; predecessors.len()];
    let mut stack: Vec<usize> = predecessors[to].clone();
    while let Some(y) = stack.pop() {
        if !std::mem::replace(&mut seen[y], true) {
            stack.extend(predecessors[y].iter().copied());
        }
    }
    seen
}

fn unknown_node(
    diags: &mut Diagnostics,
    pos: Pos,
    name: &str,
    label: &str,
    id_list: &[&str],
    what: &str,
) {
    let d = diags.error(
        pos,
        format!("{what} `{name}`, which is not a node of {label}"),
    );
    if let Some(s) = suggest(name, id_list) {
        d.help(format!("did you mean `{s}`?"));
    }
    if id_list.is_empty() {
        d.note(format!("{label} has no nodes"));
    } else {
        d.note(format!("the nodes of {label} are: {}", id_list.join(", ")));
    }
}

/// What the expressions of one tool are checked against.
struct Scope<'a> {
    ids: &'a BTreeSet<&'a str>,
    id_list: &'a [&'a str],
    label: &'a str,
}

/// A reference to an existing node, found in an expression.
struct Ref {
    name: String,
    kind: RefKind,
    pos: Pos,
}

fn check_arg(arg: &Arg, scope: &Scope<'_>, diags: &mut Diagnostics, refs: &mut Vec<Ref>) {
    match arg {
        Arg::Expr(e) => check_expr(e, scope, diags, refs),
        Arg::Object(entries) => {
            for (_, a) in entries {
                check_arg(a, scope, diags, refs);
            }
        }
        Arg::Array(items) => {
            for a in items {
                check_arg(a, scope, diags, refs);
            }
        }
        Arg::Literal(_) => {}
    }
}

fn check_logic(logic: &Logic, scope: &Scope<'_>, diags: &mut Diagnostics, refs: &mut Vec<Ref>) {
    match logic {
        Logic::Var(e) => check_expr(e, scope, diags, refs),
        Logic::Object(entries) => {
            for (_, l) in entries {
                check_logic(l, scope, diags, refs);
            }
        }
        Logic::Array(items) => {
            for l in items {
                check_logic(l, scope, diags, refs);
            }
        }
        Logic::Literal(_) => {}
    }
}

/// Syntax, S0212 and node references of one expression. References to
/// existing nodes are added to `refs`.
fn check_expr(expr: &Expr, scope: &Scope<'_>, diags: &mut Diagnostics, refs: &mut Vec<Ref>) {
    let ast = match jsonata_core::parser::parse(&expr.source) {
        Ok(ast) => ast,
        Err(e) => {
            let (offset, exact) = locate_syntax_error(&expr.source, &e);
            let d = diags.error(
                expr_pos(expr, offset),
                format!("invalid JSONata expression: {}", error_text(&e)),
            );
            if !exact {
                d.note("the position of the error inside the expression could not be determined");
            }
            return;
        }
    };
    let mut found = Found::default();
    walk(&ast, true, &mut found);
    if found.bad_assignment {
        let offset = find_bad_assignment(&expr.source).unwrap_or(0);
        diags
            .error(
                expr_pos(expr, offset),
                "invalid JSONata expression: S0212: the left side of `:=` must be a variable name (starting with `$`)",
            )
            .help("assign to a variable, e.g. `$x := 1`");
    }
    let mut reported = HashSet::new();
    for (name, kind) in found.refs {
        if !reported.insert((name.clone(), kind)) {
            continue;
        }
        let offset = match kind {
            RefKind::Path => find_name(&expr.source, &name),
            RefKind::StringArg => find_string(&expr.source, &name),
        };
        let pos = expr_pos(expr, offset.unwrap_or(0));
        if scope.ids.contains(name.as_str()) {
            refs.push(Ref { name, kind, pos });
            continue;
        }
        if reported.iter().any(|(n, k)| *n == name && *k != kind) {
            continue;
        }
        let what = match kind {
            RefKind::Path => "the expression reads",
            RefKind::StringArg => "the expression asks for the history of",
        };
        unknown_node(diags, pos, &name, scope.label, scope.id_list, what);
    }
}

/// The parser's message from its error code on (without prefixes such as
/// "Invalid syntax: "), with token names written as the symbols they are.
fn error_text(e: &ParserError) -> String {
    let text = e.to_string();
    let code = text
        .char_indices()
        .find(|&(i, _)| {
            let rest = &text.as_bytes()[i..];
            rest.len() >= 5
                && rest[0] == b'S'
                && rest[1..5].iter().all(u8::is_ascii_digit)
                && (i == 0 || !text.as_bytes()[i - 1].is_ascii_alphanumeric())
        })
        .map_or(0, |(i, _)| i);
    let text = &text[code..];
    let text = text.strip_prefix("Invalid syntax: ").unwrap_or(text);
    const SYMBOLS: &[(&str, &str)] = &[
        ("RightBrace", "`}`"),
        ("LeftBrace", "`{`"),
        ("RightBracket", "`]`"),
        ("LeftBracket", "`[`"),
        ("RightParen", "`)`"),
        ("LeftParen", "`(`"),
        ("Comma", "`,`"),
        ("Colon", "`:`"),
        ("Semicolon", "`;`"),
        ("Eof", "the end"),
    ];
    let mut out = text.to_owned();
    for (name, symbol) in SYMBOLS {
        out = replace_word(&out, name, symbol);
    }
    out
}

/// Replaces `word` where it stands as a whole word.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + word.len()..].chars().next();
        let whole =
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..i]);
        out.push_str(if whole { with } else { word });
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
}

/// Errors that a prefix of a valid expression may give: the text just
/// stops too early.
fn is_end_error(e: &ParserError) -> bool {
    match e {
        ParserError::UnexpectedEnd
        | ParserError::UnclosedString
        | ParserError::UnclosedComment
        | ParserError::UnclosedBacktick => true,
        ParserError::UnexpectedToken(t) => t == "Eof",
        ParserError::Expected { found, .. } => found == "Eof",
        _ => false,
    }
}

/// Where a syntax error is: the start of the token that makes the shortest
/// failing prefix (cut at token boundaries) fail with something other than
/// running out of text. Returns the byte offset and whether it was found.
fn locate_syntax_error(text: &str, error: &ParserError) -> (usize, bool) {
    if matches!(error, ParserError::UnclosedString)
        && let Some(o) = unclosed_quote(text)
    {
        return (o, true);
    }
    let cuts = cut_points(text);
    let fails =
        |cut: usize| jsonata_core::parser::parse(&text[..cut]).is_err_and(|e| !is_end_error(&e));
    let work: usize = cuts.iter().sum();
    let first_failing = if work <= LINEAR_SEARCH_BUDGET {
        cuts.iter().position(|&c| fails(c))
    } else {
        // Assumes that once a prefix fails, longer ones do too: true of
        // almost every error, and the expression is long.
        let i = cuts.partition_point(|&c| !fails(c));
        (i < cuts.len()).then_some(i)
    };
    match first_failing {
        Some(i) => {
            let from = i.checked_sub(1).map_or(0, |p| cuts[p]);
            let token = text[from..cuts[i]]
                .char_indices()
                .find(|(_, c)| !c.is_whitespace())
                .map_or(from, |(o, _)| from + o);
            (token, true)
        }
        // Every prefix parses or just stops early: the text ends too soon.
        None => (text.trim_end().len(), is_end_error(error)),
    }
}

/// Byte offsets where the text may be cut without splitting a token (as far
/// as a cheap look at the characters can tell), in order, the end included.
fn cut_points(text: &str) -> Vec<usize> {
    const PAIRS: &[&str] = &[
        ":=", "!=", "<=", ">=", "..", "**", "~>", "??", "?:", "/*", "*/",
    ];
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut out = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        if let Some(p) = prev {
            let joined = (word(p) && word(c))
                || (p.is_ascii_digit() && c == '.')
                || (p == '.' && c.is_ascii_digit())
                || PAIRS.iter().any(|pair| {
                    text[..i].ends_with(&pair[..1]) && text[i..].starts_with(&pair[1..])
                })
                || c.is_whitespace();
            if !joined {
                out.push(i);
            }
        }
        prev = Some(c);
    }
    out.push(text.len());
    out
}

/// The offset of the quote that opens a string never closed.
fn unclosed_quote(text: &str) -> Option<usize> {
    let mut open: Option<(usize, char)> = None;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match open {
            Some((_, q)) if c == '\\' => {
                let _ = q;
                chars.next();
            }
            Some((_, q)) if c == q => open = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => open = Some((i, c)),
            None if c == '/' && text[i..].starts_with("/*") => {
                // Skip a comment.
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(text.len(), |e| i + 2 + e + 2);
                while chars.clone().next().is_some_and(|(j, _)| j < end) {
                    chars.next();
                }
            }
            None => {}
        }
    }
    open.map(|(i, _)| i)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum RefKind {
    /// A path step read from the context.
    Path,
    /// The string argument of a history function.
    StringArg,
}

#[derive(Default)]
struct Found {
    refs: Vec<(String, RefKind)>,
    bad_assignment: bool,
}

/// Collects node references and S0212 violations. `at_context`: the node is
/// evaluated against the expression's input (the context of the call), not
/// against an item inside a path.
fn walk(node: &AstNode, at_context: bool, found: &mut Found) {
    match node {
        AstNode::Name(n) => {
            if at_context {
                found.refs.push((n.clone(), RefKind::Path));
            }
        }
        AstNode::Path { steps } => {
            let mut rest = steps.iter();
            if let Some(first) = rest.next() {
                match &first.node {
                    AstNode::Variable(v) | AstNode::ParentVariable(v) if v.is_empty() => {
                        // `$` (at the top) or `$$` (anywhere): the next
                        // step reads the context.
                        let root = matches!(first.node, AstNode::ParentVariable(_));
                        if (at_context || root)
                            && first.stages.is_empty()
                            && let Some(AstNode::Name(n)) = steps.get(1).map(|s| &s.node)
                        {
                            found.refs.push((n.clone(), RefKind::Path));
                        }
                    }
                    other => walk(other, at_context, found),
                }
                walk_stages(&first.stages, found);
            }
            for step in rest {
                walk(&step.node, false, found);
                walk_stages(&step.stages, found);
            }
        }
        AstNode::Binary { op, lhs, rhs } => {
            if *op == BinaryOp::ColonEqual && !matches!(**lhs, AstNode::Variable(_)) {
                found.bad_assignment = true;
            }
            if *op != BinaryOp::ColonEqual {
                walk(lhs, at_context, found);
            }
            walk(rhs, at_context, found);
        }
        AstNode::Unary { operand, .. } => walk(operand, at_context, found),
        AstNode::Function { name, args, .. } => {
            if HISTORY_FUNCTIONS.contains(&name.as_str())
                && let Some(AstNode::String(id)) = args.first()
            {
                found.refs.push((id.clone(), RefKind::StringArg));
            }
            for a in args {
                walk(a, at_context, found);
            }
        }
        AstNode::Call { procedure, args } => {
            walk(procedure, at_context, found);
            for a in args {
                walk(a, at_context, found);
            }
        }
        // A lambda's body sees the input where it was defined.
        AstNode::Lambda { body, .. } => walk(body, at_context, found),
        AstNode::Array(items) | AstNode::Block(items) => {
            for i in items {
                walk(i, at_context, found);
            }
        }
        AstNode::Object(pairs) => {
            for (k, v) in pairs {
                walk(k, at_context, found);
                walk(v, at_context, found);
            }
        }
        AstNode::ObjectTransform { input, pattern } => {
            walk(input, at_context, found);
            for (k, v) in pattern {
                walk(k, false, found);
                walk(v, false, found);
            }
        }
        AstNode::Conditional {
            condition,
            then_branch,
            else_branch,
        } => {
            walk(condition, at_context, found);
            walk(then_branch, at_context, found);
            if let Some(e) = else_branch {
                walk(e, at_context, found);
            }
        }
        AstNode::ArrayGroup(items) => {
            for i in items {
                walk(i, false, found);
            }
        }
        AstNode::FunctionApplication(inner) => walk(inner, false, found),
        AstNode::Sort { input, terms } => {
            walk(input, at_context, found);
            for (t, _) in terms {
                walk(t, false, found);
            }
        }
        AstNode::Transform {
            location,
            update,
            delete,
        } => {
            walk(location, false, found);
            walk(update, false, found);
            if let Some(d) = delete {
                walk(d, false, found);
            }
        }
        AstNode::String(_)
        | AstNode::Number(_)
        | AstNode::Boolean(_)
        | AstNode::Null
        | AstNode::Undefined
        | AstNode::Placeholder
        | AstNode::Regex { .. }
        | AstNode::Variable(_)
        | AstNode::ParentVariable(_)
        | AstNode::Wildcard
        | AstNode::Descendant
        | AstNode::Parent(_) => {}
    }
}

fn walk_stages(stages: &[Stage], found: &mut Found) {
    for s in stages {
        if let Stage::Filter(f) = s {
            walk(f, false, found);
        }
    }
}

/// A cheap lexer over an expression: yields `(offset, token)` for names
/// (plain or backquoted), variables, string literals (with their text) and
/// single punctuation, skipping comments and whitespace.
fn tokens(text: &str) -> Vec<(usize, Tok)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    while i < b.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
        } else if let Some(comment) = rest.strip_prefix("/*") {
            i = comment.find("*/").map_or(text.len(), |e| i + 2 + e + 2);
        } else if c == '"' || c == '\'' {
            let mut s = String::new();
            let mut j = i + 1;
            let mut chars = text[j..].chars();
            while let Some(d) = chars.next() {
                j += d.len_utf8();
                if d == c {
                    break;
                }
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        j += e.len_utf8();
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                    }
                    continue;
                }
                s.push(d);
            }
            out.push((i, Tok::Str(s)));
            i = j;
        } else if c == '`' {
            let end = rest[1..].find('`').map_or(text.len(), |e| i + 1 + e);
            out.push((i, Tok::Name(text[i + 1..end].to_owned())));
            i = (end + 1).min(text.len());
        } else if c == '$' {
            let len = rest[1..]
                .char_indices()
                .find(|(_, d)| !(word(*d) || *d == '$'))
                .map_or(rest.len(), |(k, _)| k + 1);
            out.push((i, Tok::Var(rest[..len].to_owned())));
            i += len;
        } else if word(c) {
            let len = rest
                .char_indices()
                .find(|(_, d)| !word(*d))
                .map_or(rest.len(), |(k, _)| k);
            out.push((i, Tok::Name(rest[..len].to_owned())));
            i += len;
        } else if rest.starts_with(":=") {
            out.push((i, Tok::Assign));
            i += 2;
        } else {
            out.push((i, Tok::Punct(c)));
            i += c.len_utf8();
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Var(String),
    Str(String),
    Assign,
    Punct(char),
}

/// The first place `name` is written as a name.
fn find_name(text: &str, name: &str) -> Option<usize> {
    tokens(text)
        .into_iter()
        .find(|(_, t)| matches!(t, Tok::Name(n) if n == name))
        .map(|(o, _)| o)
}

/// The first string literal whose text is `value`.
fn find_string(text: &str, value: &str) -> Option<usize> {
    tokens(text)
        .into_iter()
        .find(|(_, t)| matches!(t, Tok::Str(s) if s == value))
        .map(|(o, _)| o)
}

/// The first `:=` whose left side is not a variable token.
fn find_bad_assignment(text: &str) -> Option<usize> {
    let toks = tokens(text);
    toks.iter().enumerate().find_map(|(i, (o, t))| {
        let bad =
            *t == Tok::Assign && !matches!(i.checked_sub(1).map(|p| &toks[p].1), Some(Tok::Var(_)));
        bad.then_some(*o)
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::diag::Severity;
    use crate::load_str;

    /// A file with one tool whose `nodes:` are `nodes` (lines indented by
    /// six spaces) and one stdio server `fs`.
    pub(crate) fn with_nodes(nodes: &str) -> String {
        format!(
            "version: \"1.0\"\nserver:\n  name: s\n  version: \"1.0\"\nmcpServers:\n  fs:\n    command: npx\ntools:\n  - name: t\n    description: d\n    inputSchema: {{type: object}}\n    nodes:\n{nodes}"
        )
    }

    /// The errors of loading `src`, as `(line, column, message)`.
    pub(crate) fn errors(src: &str) -> Vec<(u32, u32, String)> {
        match load_str(src, "g.yaml") {
            Ok(_) => Vec::new(),
            Err(d) => d
                .items
                .iter()
                .filter(|i| i.severity == Severity::Error)
                .map(|i| (i.pos.line, i.pos.column, i.message.clone()))
                .collect(),
        }
    }

    /// The errors of loading `src` (warnings left out).
    pub(crate) fn load_errors(src: &str) -> crate::diag::Diagnostics {
        let mut d = load_str(src, "g.yaml").unwrap_err();
        d.items.retain(|i| i.severity == Severity::Error);
        d
    }

    /// The only error of loading `src`.
    #[track_caller]
    pub(crate) fn one_error(src: &str) -> (u32, u32, String) {
        let mut e = errors(src);
        assert_eq!(e.len(), 1, "expected one error, got {e:#?}\n{src}");
        e.remove(0)
    }

    const ENTRY: &str = "      - id: entry\n        type: entry\n        next: a\n";
    const EXIT: &str = "      - id: exit\n        type: exit\n";

    fn transform(id: &str, expr: &str, next: &str) -> String {
        format!(
            "      - id: {id}\n        type: transform\n        transform:\n          expr: '{expr}'\n        next: {next}\n"
        )
    }

    #[test]
    fn compat_examples_load() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/mcpgraph/");
        for f in [
            "file_utils.yaml",
            "loop_example.yaml",
            "switch_example.yaml",
            "test_minimal.yaml",
        ] {
            let src = std::fs::read_to_string(format!("{dir}{f}")).unwrap();
            let (file, warnings) = crate::load_str_with_warnings(&src, f)
                .unwrap_or_else(|d| panic!("{f} failed:\n{d}"));
            assert!(warnings.is_empty(), "{f}: {warnings}");
            assert!(!file.tools.is_empty());
        }
    }

    #[test]
    fn valid_minimal_graph() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "$.entry", "exit")
        ));
        assert_eq!(errors(&src), vec![]);
    }

    #[test]
    fn duplicate_tool_names() {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exit")));
        let tool = &src[src.find("  - name: t").unwrap()..];
        let src = format!("{src}{tool}");
        let (line, col, msg) = one_error(&src);
        assert_eq!(msg, "duplicate tool name `t`");
        assert_eq!((line, col), (23, 11));
    }

    #[test]
    fn invalid_tool_name() {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exit")))
            .replace("name: t\n", "name: \"my tool\"\n");
        assert_eq!(one_error(&src).2, "invalid tool name `my tool`");
    }

    #[test]
    fn duplicate_node_ids() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{EXIT}",
            transform("a", "1", "exit"),
            transform("a", "2", "exit")
        ));
        let (line, col, msg) = one_error(&src);
        assert_eq!(msg, "duplicate node id `a` in tool `t`");
        assert_eq!((line, col), (21, 13));
    }

    /// A repeated `exit` (or `entry`) is one problem, the duplicate id,
    /// not also a second exit.
    #[test]
    fn a_duplicate_exit_is_reported_once() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}{EXIT}",
            transform("a", "1", "exit")
        ));
        let errs = errors(&src);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].2, "duplicate node id `exit` in tool `t`");
        let src = with_nodes(&format!(
            "{ENTRY}{ENTRY}{}{EXIT}",
            transform("a", "1", "exit")
        ));
        let errs = errors(&src);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].2, "duplicate node id `entry` in tool `t`");
    }

    #[test]
    fn entry_and_exit_counts() {
        let src = with_nodes(&format!("{ENTRY}{}", transform("a", "1", "entry")));
        assert_eq!(one_error(&src).2, "tool `t` has no `exit` node");
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}      - id: exit2\n        type: exit\n",
            transform("a", "1", "exit")
        ));
        let errs = errors(&src);
        assert!(
            errs.iter()
                .any(|e| e.2 == "tool `t` has more than one `exit` node"),
            "{errs:?}"
        );
    }

    #[test]
    fn unknown_next_target() {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exti")));
        let d = load_errors(&src);
        assert_eq!(d.items.len(), 1, "{d}");
        let item = &d.items[0];
        assert_eq!(
            item.message,
            "`next` names `exti`, which is not a node of tool `t`"
        );
        assert_eq!(item.help.as_deref(), Some("did you mean `exit`?"));
        assert_eq!(item.notes, ["the nodes of tool `t` are: entry, a, exit"]);
        assert_eq!((item.pos.line, item.pos.column), (20, 15));
    }

    #[test]
    fn unknown_switch_target() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: switch\n        conditions:\n          - rule: {{\"==\": [1, 1]}}\n            next: nowhere\n        next: exit\n{EXIT}"
        ));
        let (line, col, msg) = one_error(&src);
        assert_eq!(
            msg,
            "`next` names `nowhere`, which is not a node of tool `t`"
        );
        assert_eq!((line, col), (20, 19));
    }

    #[test]
    fn undeclared_server() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: mcp\n        server: fss\n        tool: x\n        next: exit\n{EXIT}"
        ));
        let d = load_errors(&src);
        assert_eq!(d.items.len(), 1, "{d}");
        assert_eq!(
            d.items[0].message,
            "node `a` calls server `fss`, which is not declared in `mcpServers`"
        );
        assert_eq!(d.items[0].help.as_deref(), Some("did you mean `fs`?"));
    }

    #[test]
    fn unreachable_exit_and_nodes() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{EXIT}",
            transform("a", "1", "a"),
            transform("b", "1", "exit")
        ));
        let errs = errors(&src);
        let msgs: Vec<&str> = errs.iter().map(|e| e.2.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "node `b` of tool `t` is not reachable from the entry node `entry`",
                "the exit node `exit` of tool `t` is not reachable from the entry node `entry`",
            ]
        );
    }

    #[test]
    fn loops_are_fine() {
        let src = with_nodes(&format!(
            "{ENTRY}{}      - id: sw\n        type: switch\n        conditions:\n          - rule: {{\"<\": [{{var: \"$.a\"}}, 3]}}\n            next: a\n        next: exit\n{EXIT}",
            transform("a", "$.a + 1", "sw")
        ));
        assert_eq!(errors(&src), vec![]);
    }

    #[test]
    fn jsonata_syntax_error_position() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "1 +* 2", "exit")
        ));
        let (line, col, msg) = one_error(&src);
        assert!(
            msg.starts_with("invalid JSONata expression: S0201"),
            "{msg}"
        );
        // `expr: '1 +* 2'` with the quote at column 17: `2` is at 23.
        assert_eq!((line, col), (19, 23));
    }

    #[test]
    fn jsonata_error_in_block_scalar() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: transform\n        transform:\n          expr: |\n            (\n              $x := 1;\n              $x ]\n            )\n        next: exit\n{EXIT}"
        ));
        let (line, col, msg) = one_error(&src);
        assert!(msg.starts_with("invalid JSONata expression"), "{msg}");
        assert_eq!((line, col), (22, 18));
    }

    #[test]
    fn jsonata_error_in_double_quoted_with_escapes() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: transform\n        transform:\n          expr: \"$split(\\\"a\\\\nb\\\", \\\"\\\\n\\\") ]\"\n        next: exit\n{EXIT}"
        ));
        let (line, col, msg) = one_error(&src);
        assert!(msg.starts_with("invalid JSONata expression"), "{msg}");
        let text = src.lines().nth(line as usize - 1).unwrap();
        assert_eq!(text.chars().nth(col as usize - 1), Some(']'), "{text}");
    }

    #[test]
    fn jsonata_unexpected_end() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "($.entry", "exit")
        ));
        let (line, col, msg) = one_error(&src);
        assert!(msg.contains("S0203") || msg.contains("S0207"), "{msg}");
        // Just past the last character: `'($.entry'` starts at 17.
        assert_eq!((line, col), (19, 26));
    }

    #[test]
    fn jsonata_unclosed_string() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "1 & \"abc", "exit")
        ));
        let (line, col, msg) = one_error(&src);
        assert!(msg.contains("S0101"), "{msg}");
        assert_eq!((line, col), (19, 22));
    }

    #[test]
    fn s0212_assignments() {
        for (expr, col) in [("x := 1", 20), ("2 := 1", 20), ("$a[1] := 3", 24)] {
            let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", expr, "exit")));
            let (line, c, msg) = one_error(&src);
            assert!(msg.contains("S0212"), "{msg}");
            assert_eq!((line, c), (19, col), "{expr}");
        }
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "($a := 1; $a)", "exit")
        ));
        assert_eq!(errors(&src), vec![]);
    }

    #[test]
    fn node_references() {
        for (expr, bad, col) in [
            ("$.nope.x", "nope", 20),
            ("$$.nope", "nope", 21),
            ("nope.value", "nope", 18),
            ("{\"a\": $.entry.x, \"b\": nope}", "nope", 40),
            ("$executionCount(\"nope\")", "nope", 34),
            ("$nodeExecution(\"nope\", -1)", "nope", 33),
            ("$nodeExecutions(\"nope\")", "nope", 34),
            ("$.`nope`", "nope", 20),
        ] {
            let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", expr, "exit")));
            let (line, c, msg) = one_error(&src);
            assert!(
                msg.contains(&format!("`{bad}`, which is not a node of tool `t`")),
                "{msg}"
            );
            assert_eq!((line, c), (19, col), "{expr}");
        }
        // Not references to the context: items inside paths and predicates,
        // variables, `$` inside a path step.
        for expr in [
            "$.entry.items[price > 1].name",
            "$.entry.items.$.name",
            "$x := 1",
            "$map($.entry.xs, function($v) { $v.y })",
            "$.entry.xs.(foo)",
            "$previousNode().count",
            "$$.a.b",
            "$executionCount(\"a\")",
            "a.b",
        ] {
            let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", expr, "exit")));
            assert_eq!(errors(&src), vec![], "{expr}");
        }
    }

    #[test]
    fn references_in_args_and_vars() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: mcp\n        server: fs\n        tool: x\n        args:\n          path: {{expr: \"$.nope\"}}\n          list: [{{expr: \"$.entry\"}}, 2]\n        next: sw\n      - id: sw\n        type: switch\n        conditions:\n          - rule: {{\">\": [{{var: \"other.value\"}}, 10]}}\n            next: exit\n        next: exit\n{EXIT}"
        ));
        let errs = errors(&src);
        let msgs: Vec<&str> = errs.iter().map(|e| e.2.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "the expression reads `nope`, which is not a node of tool `t`",
                "the expression reads `other`, which is not a node of tool `t`",
            ]
        );
        assert_eq!((errs[0].0, errs[0].1), (21, 27));
        assert_eq!((errs[1].0, errs[1].1), (27, 33));
    }

    #[test]
    fn broken_nodes_still_count_as_existing() {
        // `a` has an unknown type: one error, and `next: a` is not also
        // reported, nor reachability.
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: tranform\n        next: exit\n{EXIT}"
        ));
        let (_, _, msg) = one_error(&src);
        assert!(msg.starts_with("unknown node type `tranform`"), "{msg}");
    }

    #[test]
    fn unused_server_is_a_warning() {
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", "1", "exit")));
        let (_, warnings) = crate::load_str_with_warnings(&src, "g.yaml").unwrap();
        assert_eq!(warnings.items.len(), 1);
        assert_eq!(warnings.items[0].severity, Severity::Warning);
        assert_eq!(
            warnings.items[0].message,
            "server `fs` is declared but no node calls it"
        );
        assert_eq!(
            (warnings.items[0].pos.line, warnings.items[0].pos.column),
            (6, 3)
        );
        assert!(warnings.to_string().starts_with("warning: server `fs`"));
    }

    #[test]
    fn deeply_nested_expression() {
        let deep = format!("{}1{}", "(".repeat(1500), ")".repeat(1500));
        let src = with_nodes(&format!("{ENTRY}{}{EXIT}", transform("a", &deep, "exit")));
        let (line, col, msg) = one_error(&src);
        assert!(msg.contains("U1002"), "{msg}");
        assert_eq!(line, 19);
        assert!(col > 900 && col < 1100, "{col}");
    }

    #[test]
    fn crlf_files() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{EXIT}",
            transform("a", "1 +* 2", "exit")
        ))
        .replace('\n', "\r\n");
        assert_eq!(one_error(&src).0, 19);
        assert_eq!(one_error(&src).1, 23);
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/mcpgraph/");
        let src = std::fs::read_to_string(format!("{dir}loop_example.yaml")).unwrap();
        assert_eq!(errors(&src.replace('\n', "\r\n")), vec![]);
    }

    #[test]
    fn load_file_reports_the_absolute_path() {
        let d = crate::load_file(std::path::Path::new("no/such/graph.yaml")).unwrap_err();
        let text = d.to_string();
        let abs = std::env::current_dir().unwrap().join("no/such/graph.yaml");
        assert!(text.contains(&format!("`{}`", abs.display())), "{text}");
        assert_eq!(d.error_count(), 1);
        let path = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/mcpgraph/test_minimal.yaml"
        ));
        let (file, source) = crate::load_file(path).unwrap();
        assert_eq!(file.server.name.value, "testMinimal");
        assert!(source.contains("testMinimal"));
    }

    /// The warnings of loading `src` (which must have no errors), as
    /// `(line, column, message)`.
    fn warnings(src: &str) -> Vec<(u32, u32, String)> {
        let (_, w) = crate::load_str_with_warnings(src, "g.yaml")
            .unwrap_or_else(|d| panic!("unexpected errors:\n{d}"));
        w.items
            .iter()
            .filter(|d| d.lint == Some(crate::diag::REFERENCE_BEFORE_RUN))
            .map(|d| (d.pos.line, d.pos.column, d.message.clone()))
            .collect()
    }

    fn switch(id: &str, to: &str, default: &str) -> String {
        format!(
            "      - id: {id}\n        type: switch\n        conditions:\n          - rule: {{\"==\": [1, 1]}}\n            next: {to}\n        next: {default}\n"
        )
    }

    #[test]
    fn reference_to_a_node_that_runs_later() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{EXIT}",
            transform("a", "$.b.x", "b"),
            transform("b", "$.a.x", "exit")
        ));
        let w = warnings(&src);
        assert_eq!(
            w,
            [(
                19,
                20,
                "node `a` reads `b`, which cannot have run before it on any path from the entry"
                    .to_owned()
            )]
        );
        let (_, d) = crate::load_str_with_warnings(&src, "g.yaml").unwrap();
        let item = d.items.iter().find(|i| i.lint.is_some()).unwrap();
        assert_eq!(
            item.notes,
            ["the nodes that may have run before `a`: entry"]
        );
        // Its own output, off a loop; the history of a later node.
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{EXIT}",
            transform("a", "$.a", "b"),
            transform(
                "b",
                "$executionCount(\"b\") + $count($nodeExecutions(\"a\"))",
                "exit"
            )
        ));
        let msgs: Vec<String> = warnings(&src).into_iter().map(|w| w.2).collect();
        assert_eq!(
            msgs,
            [
                "node `a` reads itself, but it is not on a loop: its own output is never in its context",
                "node `b` asks for the history of itself, but it is not on a loop: its own output is never in its context",
            ]
        );
    }

    #[test]
    fn loops_and_branches_may_have_run() {
        // a → sw → (a | c) → exit: in the loop, `a` reads `sw` (an earlier
        // iteration) and itself; `c` reads everything.
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{}{EXIT}",
            transform("a", "$.sw & $.a & $executionCount(\"a\") & $.c", "sw"),
            switch("sw", "a", "c"),
            transform("c", "$.a & $.sw & $.entry", "exit")
        ));
        let msgs: Vec<String> = warnings(&src).into_iter().map(|w| w.2).collect();
        assert_eq!(
            msgs,
            ["node `a` reads `c`, which cannot have run before it on any path from the entry"]
        );
        // Two branches that join: the join may read either branch, one
        // branch cannot read the other.
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{}{}{EXIT}",
            switch("a", "b", "c"),
            transform("b", "$.c", "d"),
            transform("c", "$.b", "d"),
            transform("d", "$.b ? $.b : $.c", "exit")
        ));
        let msgs: Vec<String> = warnings(&src).into_iter().map(|w| w.2).collect();
        assert_eq!(
            msgs,
            [
                "node `b` reads `c`, which cannot have run before it on any path from the entry",
                "node `c` reads `b`, which cannot have run before it on any path from the entry",
            ]
        );
    }

    #[test]
    fn switch_vars_and_args_are_checked_too() {
        let src = with_nodes(&format!(
            "{ENTRY}      - id: a\n        type: switch\n        conditions:\n          - rule: {{\">\": [{{var: \"b.n\"}}, 1]}}\n            next: b\n        next: b\n      - id: b\n        type: mcp\n        server: fs\n        tool: x\n        args: {{p: {{expr: \"$.b\"}}}}\n        next: exit\n{EXIT}"
        ));
        let msgs: Vec<String> = warnings(&src).into_iter().map(|w| w.2).collect();
        assert_eq!(
            msgs,
            [
                "node `a` reads `b`, which cannot have run before it on any path from the entry",
                "node `b` reads itself, but it is not on a loop: its own output is never in its context",
            ]
        );
    }

    #[test]
    fn everything_at_once() {
        let src = with_nodes(&format!(
            "{ENTRY}{}{}{EXIT}",
            transform("a", "$.nope", "b"),
            transform("b", "1 +* 2", "exti")
        ))
        .replace("description: d", "descripton: d")
        .replace("server:\n  name: s", "server:\n  nme: s");
        let errs = errors(&src);
        assert_eq!(errs.len(), 5, "{errs:#?}");
    }
}
