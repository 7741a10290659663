//! Lowers `mcpServers`: each entry's transport (stdio, streamable HTTP or
//! SSE), with the fields each transport allows, and its timeouts.

use super::Cx;
use crate::diag::codes;
use crate::model::{McpServer, Server, Sp, Transport};
use crate::suggest::suggest;
use crate::yaml::{self, Value};

impl Cx<'_, '_> {
    /// The servers that could be built, and the names of those that could
    /// not.
    pub(super) fn mcp_servers(&mut self, node: &yaml::Node) -> (Vec<McpServer>, Vec<String>) {
        if node.value == Value::Null {
            return (Vec::new(), Vec::new());
        }
        let Some(entries) = self.fields_any(node, "`mcpServers`") else {
            return (Vec::new(), Vec::new());
        };
        let mut broken = Vec::new();
        let servers = entries
            .into_iter()
            .filter_map(|(k, v)| {
                let server = self.mcp_server(k, v);
                if server.is_none() {
                    broken.push(k.key_text());
                }
                server
            })
            .collect();
        (servers, broken)
    }

    /// One entry of `mcpServers`: its `type` decides which fields it may
    /// have.
    fn mcp_server(&mut self, key: &yaml::Node, node: &yaml::Node) -> Option<McpServer> {
        let name = Sp::new(key.key_text(), key.pos);
        let context = format!(" in server `{}`", name.value);
        let kind = match &node.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.key_text() == "type")
                .map(|(_, v)| v),
            _ => None,
        };
        let kind = match kind {
            None => "stdio",
            Some(v) => match &v.value {
                Value::String(s) if Transport::TYPES.contains(&s.as_str()) => s.as_str(),
                Value::String(s) => {
                    let d = self.err(
                        codes::UNKNOWN_SERVER_TYPE, v.pos,
                        format!(
                            "unknown server type `{s}` (expected one of stdio, sse, streamableHttp, http, streamable-http)"
                        ),
                    );
                    if let Some(sug) = suggest(s, Transport::TYPES) {
                        d.help(format!("did you mean `{sug}`?"));
                    }
                    ""
                }
                _ => {
                    self.wrong_type(v, "`type`", "a string");
                    ""
                }
            },
        };
        let allowed: &[&str] = match kind {
            "stdio" => &[
                "type",
                "command",
                "args",
                "cwd",
                "env",
                "inheritEnv",
                "timeoutMs",
                "pingTimeoutMs",
            ],
            "" => &[
                "type",
                "command",
                "args",
                "cwd",
                "env",
                "inheritEnv",
                "url",
                "headers",
                "auth",
                "timeoutMs",
                "pingTimeoutMs",
            ],
            _ => &[
                "type",
                "url",
                "headers",
                "auth",
                "timeoutMs",
                "pingTimeoutMs",
            ],
        };
        let f = self.fields(node, &format!("server `{}`", name.value), allowed, &context)?;
        let timeout_ms = f
            .get("timeoutMs")
            .and_then(|n| self.positive_int(n, "`timeoutMs`"));
        let ping_timeout_ms = f
            .get("pingTimeoutMs")
            .and_then(|n| self.positive_int(n, "`pingTimeoutMs`"));
        let auth = f.get("auth").and_then(|n| self.auth(n, &name.value, kind));
        let transport = match kind {
            "stdio" => {
                let command = self.required_string(&f, "command", &context);
                let args = f
                    .get("args")
                    .map(|n| self.string_list(n, "`args`"))
                    .unwrap_or_default();
                let cwd = self.optional_string(&f, "cwd").map(|s| s.value);
                let env = f
                    .get("env")
                    .map(|n| self.string_map(n, "`env`"))
                    .unwrap_or_default();
                let inherit_env = f
                    .get("inheritEnv")
                    .map(|n| self.env_names(n))
                    .unwrap_or_default();
                Transport::Stdio {
                    command: command?.value,
                    args,
                    cwd,
                    env,
                    inherit_env,
                }
            }
            "" => return None,
            http => {
                let url = self.required_string(&f, "url", &context);
                let headers = f
                    .get("headers")
                    .map(|n| self.string_map(n, "`headers`"))
                    .unwrap_or_default();
                let url = url?.value;
                if auth.is_some()
                    && let Some((key, _)) = headers
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
                {
                    let pos = f.key_pos("auth").unwrap_or(f.pos);
                    self.err(
                        codes::AUTH_HEADER,
                        pos,
                        format!(
                            "server `{}` has both `auth` and an `{key}` header: `auth` sends the \
                             token it gets (drop the header)",
                            name.value
                        ),
                    );
                }
                if http == "sse" {
                    Transport::Sse { url, headers }
                } else {
                    Transport::StreamableHttp { url, headers }
                }
            }
        };
        Some(McpServer {
            pos: name.pos,
            spec: Server {
                name: name.value,
                transport,
                timeout_ms,
                ping_timeout_ms,
                auth,
            },
        })
    }

    /// `inheritEnv`: a sequence of environment variable names (letters,
    /// digits and `_`, not starting with a digit); other items are reported
    /// where they are and left out.
    fn env_names(&mut self, node: &yaml::Node) -> Vec<String> {
        let what = "an item of `inheritEnv`";
        let Value::Seq(items) = &node.value else {
            self.wrong_type(node, "`inheritEnv`", "a sequence of variable names");
            return Vec::new();
        };
        let mut names = Vec::new();
        for item in items {
            let Some(name) = self.string(item, what) else {
                continue;
            };
            if mcpgraph_format::is_env_name(&name.value) {
                names.push(name.value);
            } else {
                self.err(
                    codes::INVALID_ENV_NAME,
                    item.pos,
                    format!(
                        "{what} must be an environment variable name (letters, digits and `_`, \
                         not starting with a digit), found {}",
                        super::fields::describe(item)
                    ),
                );
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Transport;
    use crate::test_support::ENTRY;
    use crate::test_support::EXIT;
    use crate::test_support::load;
    use crate::test_support::messages;
    use crate::test_support::with_nodes;

    #[test]
    fn servers() {
        let src = with_nodes(&format!("{ENTRY}{EXIT}")).replace(
            "  fs:\n    command: npx\n",
            "  fs:\n    command: npx\n    args: [-y, pkg]\n    env: {A: b}\n    cwd: .\n    timeoutMs: 5\n    pingTimeoutMs: 6\n    inheritEnv: [AWS_PROFILE, _X1]\n  a: {type: sse, url: 'http://x'}\n  b: {type: streamableHttp, url: u, headers: {H: v}}\n  c: {type: http, url: u}\n  d: {type: streamable-http, url: u}\n",
        );
        let src = src.replace("next: a\n", "next: exit\n");
        let f = load(&src);
        assert_eq!(f.mcp_servers.len(), 5);
        assert_eq!(
            f.mcp_servers[0].spec.transport,
            Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "pkg".into()],
                cwd: Some(".".into()),
                env: vec![("A".into(), "b".into())],
                inherit_env: vec!["AWS_PROFILE".into(), "_X1".into()],
            }
        );
        assert_eq!(f.mcp_servers[0].spec.timeout_ms, Some(5));
        assert_eq!(f.mcp_servers[0].spec.ping_timeout_ms, Some(6));
        assert!(matches!(
            f.mcp_servers[1].spec.transport,
            Transport::Sse { .. }
        ));
        for s in &f.mcp_servers[2..] {
            assert!(matches!(s.spec.transport, Transport::StreamableHttp { .. }));
        }

        let bad = with_nodes(&format!("{ENTRY}{EXIT}"))
            .replace("next: a\n", "next: exit\n")
            .replace(
                "  fs:\n    command: npx\n",
                "  fs:\n    url: x\n  g: {command: c, inheritEnv: HOME}\n  g2: {command: c, inheritEnv: [1, 'A=B', '9X', OK]}\n  h: {type: htp, url: u}\n  i: {type: sse}\n",
            );
        assert_eq!(
            messages(&bad),
            [
                "unknown key `url` in server `fs`",
                "missing required field `command` in server `fs`",
                "`inheritEnv` must be a sequence of variable names, found a string",
                "an item of `inheritEnv` must be a string, found a number",
                "an item of `inheritEnv` must be an environment variable name (letters, digits and `_`, not starting with a digit), found the string `A=B`",
                "an item of `inheritEnv` must be an environment variable name (letters, digits and `_`, not starting with a digit), found the string `9X`",
                "unknown server type `htp` (expected one of stdio, sse, streamableHttp, http, streamable-http)",
                "missing required field `url` in server `i`",
            ]
        );
    }
}
