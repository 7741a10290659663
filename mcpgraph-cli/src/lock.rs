//! `mcpgraph lock`: list every downstream server of a graph and write what
//! it offers to `<graph>.lock.json`, or (`--check`) compare the servers with
//! the committed lock and fail when a change matters.
//!
//! The servers are reached exactly as a generated server reaches them: the
//! runtime's client manager, with `${VAR}` expanded from the environment
//! and `--mcp` files overriding the graph's entries by name.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use mcpgraph_codegen::lock::drift::{self, Change};
use mcpgraph_codegen::lock::{Lock, ServerLock, ToolLock, lock_path};
use mcpgraph_codegen::model::GraphFile;
use mcpgraph_downstream::{ClientManager, ServerSpec, parse_override};

use crate::error::{CliError, graph_errors};

/// What `mcpgraph lock` was asked to do.
pub(crate) struct LockArgs {
    /// The graph file.
    pub graph: PathBuf,
    /// `--mcp` files, later ones overriding earlier ones.
    pub mcp: Vec<PathBuf>,
    /// Only this server.
    pub server: Option<String>,
    /// Compare instead of writing.
    pub check: bool,
    /// With `check`: cosmetic changes fail too.
    pub strict: bool,
}

/// What a lock run found: where the lock is, what it lists, and (for
/// `--check`) every change since it was written.
#[derive(Debug)]
pub(crate) struct LockReport {
    /// The lock file.
    pub path: PathBuf,
    /// How many servers and tools were listed.
    pub servers: usize,
    pub tools: usize,
    /// Whether the lock was written (`false`: it was up to date, or this was
    /// a check).
    pub wrote: bool,
    /// With `check`: the changes since the lock, by server.
    pub changes: Vec<(String, Change)>,
    /// With `check`: whether the lock is stale (a change that matters, or
    /// with `strict` any change).
    pub stale: bool,
}

impl LockReport {
    /// How many changes matter.
    pub(crate) fn matters(&self) -> usize {
        self.changes.iter().filter(|(_, c)| c.matters).count()
    }

    /// How many changes are cosmetic.
    pub(crate) fn cosmetic(&self) -> usize {
        self.changes.len() - self.matters()
    }
}

/// Runs `mcpgraph lock`, printing what it did.
pub(crate) fn run(args: &LockArgs) -> Result<ExitCode, CliError> {
    // A person runs `lock`: a server that wants a login gets one.
    mcpgraph_downstream::allow_interactive_login(true);
    let report = lock(args)?;
    let path = report.path.display();
    if !args.check {
        let (servers, tools) = (report.servers, report.tools);
        if report.wrote {
            eprintln!("wrote {path} ({servers} servers, {tools} tools)");
        } else {
            eprintln!("{path} is up to date ({servers} servers, {tools} tools)");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut server = None;
    for (name, change) in &report.changes {
        if server != Some(name) {
            println!("server `{name}`:");
            server = Some(name);
        }
        println!("  {}", describe(change));
    }
    let summary = format!(
        "{path}: {} change(s) that matter, {} cosmetic",
        report.matters(),
        report.cosmetic()
    );
    if report.stale {
        eprintln!(
            "error: the lock is stale: {summary}; re-run `mcpgraph lock` and review the diff"
        );
        Ok(ExitCode::FAILURE)
    } else {
        eprintln!("{summary}");
        Ok(ExitCode::SUCCESS)
    }
}

/// Lists the graph's servers, then writes the lock or (`check`) compares
/// them with it.
pub(crate) fn lock(args: &LockArgs) -> Result<LockReport, CliError> {
    let (file, _) = mcpgraph_codegen::load_file(&args.graph)
        .map_err(|d| graph_errors(&d, "; fix them before locking"))?;
    let specs = specs(&file, &args.mcp, args.server.as_deref())?;
    let listed = list_all(specs)?;
    let path = lock_path(&args.graph);
    let servers = listed.len();
    let tools: usize = listed.iter().map(|(_, s)| s.tools.len()).sum();
    let mut report = LockReport {
        path,
        servers,
        tools,
        wrote: false,
        changes: Vec::new(),
        stale: false,
    };
    if args.check {
        report.changes = check(&file, &report.path, &listed)?;
        report.stale = report.matters() > 0 || (args.strict && !report.changes.is_empty());
        return Ok(report);
    }
    let path = &report.path;
    let mut lock = match (&args.server, std::fs::read_to_string(path)) {
        // Locking one server keeps the others' entries.
        (Some(_), Ok(text)) => Lock::from_json(&text).map_err(CliError::malformed(path))?,
        _ => Lock::default(),
    };
    lock.servers.extend(listed);
    let text = lock.to_json();
    if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(path, text).map_err(CliError::file("write", path))?;
        touch(&args.graph)?;
        report.wrote = true;
    }
    Ok(report)
}

/// Makes cargo rebuild what includes the graph: the macro tracks the graph
/// file, and a lock that did not exist when it last ran cannot be tracked.
fn touch(graph: &Path) -> Result<(), CliError> {
    std::fs::File::options()
        .append(true)
        .open(graph)
        .and_then(|f| f.set_modified(SystemTime::now()))
        .map_err(CliError::file("touch", graph))
}

/// The graph's servers as the runtime reaches them, with the `--mcp`
/// overrides applied, only `only` if given.
pub(crate) fn specs(
    file: &GraphFile,
    mcp: &[PathBuf],
    only: Option<&str>,
) -> Result<Vec<ServerSpec>, CliError> {
    let mut specs: Vec<ServerSpec> = file.mcp_servers.iter().map(|s| s.spec.clone()).collect();
    for path in mcp {
        let text = std::fs::read_to_string(path).map_err(CliError::file("read", path))?;
        for spec in parse_override(&text).map_err(CliError::malformed(path))? {
            match specs.iter_mut().find(|s| s.name == spec.name) {
                Some(slot) => *slot = spec,
                None => specs.push(spec),
            }
        }
    }
    if let Some(name) = only {
        specs.retain(|s| s.name == name);
        if specs.is_empty() {
            let known: Vec<&str> = file.mcp_servers.iter().map(|s| s.name()).collect();
            return Err(CliError::Usage(format!(
                "the graph has no server `{name}` (it has: {})",
                known.join(", ")
            )));
        }
    }
    Ok(specs)
}

/// Lists every server of `specs`, one after the other. The first that cannot be
/// listed fails the whole (so no lock is half written), naming the server.
pub(crate) fn list_all(specs: Vec<ServerSpec>) -> Result<Vec<(String, ServerLock)>, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(CliError::run("the async runtime"))?;
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let manager = ClientManager::new(specs, runtime.handle().clone());
    let results = runtime.block_on(async {
        let mut listed = Vec::with_capacity(names.len());
        for name in &names {
            listed.push(manager.list_tools(name).await);
        }
        manager
            .shutdown(std::time::Instant::now() + std::time::Duration::from_secs(3))
            .await;
        listed
    });
    names
        .into_iter()
        .zip(results)
        .map(|(name, result)| {
            let listing = result.map_err(CliError::server(&name))?;
            let tools = listing
                .tools
                .iter()
                .filter_map(|tool| {
                    let name = tool.get("name")?.as_str()?.to_owned();
                    Some((name, ToolLock::from_listed(tool)))
                })
                .collect();
            let server = ServerLock {
                server_info: listing.server_info,
                protocol_version: listing.protocol_version,
                tools,
            };
            Ok((name, server))
        })
        .collect()
}

/// `--check`: the changes per server and tool since the lock at `path`.
fn check(
    file: &GraphFile,
    path: &Path,
    listed: &[(String, ServerLock)],
) -> Result<Vec<(String, Change)>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::File {
        action: "read",
        path: path.to_owned(),
        source,
        hint: "(run `mcpgraph lock` first)",
    })?;
    let lock = Lock::from_json(&text).map_err(CliError::malformed(path))?;
    let uses = drift::uses(file);
    let mut all = Vec::new();
    for (name, new) in listed {
        let changes = match lock.servers.get(name) {
            Some(old) => drift::diff(name, old, new, &uses),
            None => vec![Change {
                tool: None,
                what: "not in the lock".into(),
                matters: true,
                breaks: Vec::new(),
            }],
        };
        all.extend(changes.into_iter().map(|c| (name.clone(), c)));
    }
    Ok(all)
}

fn describe(change: &Change) -> String {
    let mut line = format!(
        "{} {}{}",
        if change.matters { "!" } else { "~" },
        change
            .tool
            .as_ref()
            .map_or_else(String::new, |t| format!("tool `{t}`: ")),
        change.what
    );
    if !change.breaks.is_empty() {
        line.push_str(&format!(" (breaks {})", change.breaks.join(", ")));
    }
    line
}
