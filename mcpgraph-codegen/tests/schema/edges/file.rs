//! Rows for the top of the file: `version`, `server`, `executionLimits`
//! and `mcpServers`.

use super::{BASE, agree, edit};

/// The top level and `executionLimits`.
#[test]
fn top_level() {
    // Everything before `tools:`.
    let head = BASE.split("tools:").next().unwrap();
    agree(vec![
        ("the base graph", BASE.to_owned(), true),
        // Top level.
        ("no tools", head.to_owned(), true),
        ("tools: null", format!("{head}tools:\n"), true),
        (
            "no mcpServers",
            edit("mcpServers:\n  fs: {command: npx}\n", "").replace(
                "{id: a, type: mcp, server: fs, tool: x, next: exit}",
                "{id: a, type: transform, transform: {expr: '1'}, next: exit}",
            ),
            true,
        ),
        (
            "mcpServers: null",
            edit("mcpServers:\n  fs: {command: npx}\n", "mcpServers:\n").replace(
                "{id: a, type: mcp, server: fs, tool: x, next: exit}",
                "{id: a, type: transform, transform: {expr: '1'}, next: exit}",
            ),
            true,
        ),
        (
            "version is a number",
            edit("version: \"1\"", "version: 1"),
            false,
        ),
        ("no version", edit("version: \"1\"\n", ""), false),
        (
            "no server",
            edit("server: {name: s, version: \"1\"}\n", ""),
            false,
        ),
        (
            "server title and instructions",
            edit(
                "version: \"1\"}",
                "version: \"1\", title: T, instructions: I}",
            ),
            true,
        ),
        (
            "server title is null",
            edit("version: \"1\"}", "version: \"1\", title: null}"),
            false,
        ),
        (
            "unknown server key",
            edit("version: \"1\"}", "version: \"1\", website: w}"),
            false,
        ),
        ("unknown top-level key", format!("{BASE}extra: 1\n"), false),
        ("tools is a mapping", format!("{head}tools: {{}}\n"), false),
        // Limits.
        (
            "all limits",
            format!(
                "{BASE}executionLimits: {{maxNodeExecutions: 1, maxExecutionTimeMs: 2, maxExpressionDepth: 3, maxExpressionTimeMs: 4}}\n"
            ),
            true,
        ),
        (
            "executionLimits: null",
            format!("{BASE}executionLimits:\n"),
            false,
        ),
        (
            "zero limit",
            format!("{BASE}executionLimits: {{maxNodeExecutions: 0}}\n"),
            false,
        ),
        (
            "limit as a string",
            format!("{BASE}executionLimits: {{maxNodeExecutions: '5'}}\n"),
            false,
        ),
        (
            "unknown limit",
            format!("{BASE}executionLimits: {{maxNodes: 5}}\n"),
            false,
        ),
        // YAML 1.2 booleans: `yes` is a string.
        ("yes as a string", edit("name: s,", "name: yes,"), true),
    ]);
}

/// `mcpServers` and each transport's fields.
#[test]
fn servers() {
    agree(vec![
        // Servers.
        (
            "stdio with everything",
            edit(
                "{command: npx}",
                "{type: stdio, command: npx, args: [a, b], cwd: ., env: {A: b}, timeoutMs: 5}",
            ),
            true,
        ),
        (
            "stdio without command",
            edit("{command: npx}", "{args: [a]}"),
            false,
        ),
        (
            "stdio with a url",
            edit("{command: npx}", "{command: npx, url: u}"),
            false,
        ),
        (
            "stdio arg not a string",
            edit("{command: npx}", "{command: npx, args: [1]}"),
            false,
        ),
        (
            "env value not a string",
            edit("{command: npx}", "{command: npx, env: {A: 1}}"),
            false,
        ),
        (
            "env: null",
            edit("{command: npx}", "{command: npx, env: null}"),
            false,
        ),
        (
            "timeoutMs zero",
            edit("{command: npx}", "{command: npx, timeoutMs: 0}"),
            false,
        ),
        (
            "sse",
            edit(
                "{command: npx}",
                "{type: sse, url: u, headers: {H: v}, timeoutMs: 9}",
            ),
            true,
        ),
        (
            "streamableHttp",
            edit("{command: npx}", "{type: streamableHttp, url: u}"),
            true,
        ),
        ("http", edit("{command: npx}", "{type: http, url: u}"), true),
        (
            "streamable-http",
            edit("{command: npx}", "{type: streamable-http, url: u}"),
            true,
        ),
        (
            "http without url",
            edit("{command: npx}", "{type: http}"),
            false,
        ),
        (
            "http with a command",
            edit("{command: npx}", "{type: http, url: u, command: c}"),
            false,
        ),
        (
            "header not a string",
            edit("{command: npx}", "{type: sse, url: u, headers: {H: 1}}"),
            false,
        ),
        (
            "unknown server type",
            edit("{command: npx}", "{type: websocket, url: u}"),
            false,
        ),
        (
            "server type not a string",
            edit("{command: npx}", "{type: 1, command: npx}"),
            false,
        ),
        ("server: null", edit("{command: npx}", "null"), false),
    ]);
}
