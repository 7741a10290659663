//! Inbound OAuth (`serve --http --oauth-issuer …`): the server as an OAuth
//! protected resource. It publishes its metadata (RFC 9728) at the
//! well-known paths, refuses a request without a valid access token from
//! its issuer (401 with a `WWW-Authenticate` challenge naming the
//! metadata), and a token without the scopes the request needs (403
//! `insufficient_scope`): `--oauth-scopes` for every request, plus a
//! tool's `requiredScopes` for a `tools/call` of it. The tool is read
//! before rmcp sees the request: from `Mcp-Method`/`Mcp-Name` on requests
//! of protocol 2026-07-28 or later (rmcp then refuses a body that says
//! otherwise), else from the body (already bounded by `--max-body-bytes`).
//!
//! `mcpgraph-oauth`'s `jwt` holds the issuer's keys and checks a token;
//! `challenge` words the answers. Tokens are never logged.

mod challenge;

use std::collections::HashMap;
use std::sync::Arc;

use hyper::HeaderMap;
use hyper::header;
use mcpgraph_oauth::jwt::{Algorithm, Invalid, KeyCache, Policy};

pub(crate) use mcpgraph_oauth::jwt::{Claims, DEFAULT_ALGORITHMS};

use super::Body;
use super::error::OAuthError;
use challenge::Challenges;

/// Default of `serve --oauth-leeway-secs`.
pub(crate) const DEFAULT_LEEWAY_SECS: u64 = 60;

/// The protocol version from which requests carry `Mcp-Method` and
/// `Mcp-Name` (SEP-2243), which rmcp checks against the body.
const STANDARD_HEADERS_VERSION: &str = "2026-07-28";

/// Settings of inbound OAuth.
#[derive(Clone, Debug)]
pub(crate) struct OAuthOptions {
    /// `--oauth-issuer`: the authorization server whose tokens are valid.
    pub issuer: String,
    /// `--oauth-resource`: this server's canonical MCP URL.
    pub resource: String,
    /// `--oauth-audience`: the `aud` values accepted (default: the resource).
    pub audiences: Vec<String>,
    /// `--oauth-jwks-url`: the issuer's keys, instead of discovery.
    pub jwks_url: Option<String>,
    /// `--oauth-scopes`: scopes every request needs.
    pub scopes: Vec<String>,
    /// `--oauth-algorithms`: the signature algorithms accepted.
    pub algorithms: Vec<Algorithm>,
    /// `--oauth-leeway-secs`: clock skew allowed on `exp` and `nbf`.
    pub leeway_secs: u64,
}

/// The checks of every request, and the metadata.
pub(super) struct Guard {
    policy: Policy,
    keys: Arc<KeyCache>,
    challenges: Challenges,
    /// The paths the metadata is served on.
    metadata_paths: [String; 2],
    /// `--oauth-scopes`.
    scopes: Vec<String>,
    /// The tools with `requiredScopes`, and those scopes.
    tool_scopes: HashMap<&'static str, &'static [&'static str]>,
}

/// Which tool a request calls, as far as its headers tell.
pub(super) enum CalledTool {
    /// A `tools/call` of this tool.
    Named(String),
    /// No `tools/call`.
    None,
    /// The body tells.
    InBody,
}

impl Guard {
    /// The guard for `options`, for a server whose tools need the scopes
    /// `tools` lists (name, `requiredScopes`). Starts fetching the
    /// issuer's keys in the background: a failure there is logged and
    /// retried when a token comes (which gets a 503 meanwhile).
    pub(super) fn new(
        options: OAuthOptions,
        tools: impl IntoIterator<Item = (&'static str, &'static [&'static str])>,
    ) -> Result<Guard, OAuthError> {
        http_url("--oauth-issuer", &options.issuer)?;
        let resource = http_url("--oauth-resource", &options.resource)?;
        if let Some(jwks) = &options.jwks_url {
            http_url("--oauth-jwks-url", jwks)?;
        }
        let audiences = if options.audiences.is_empty() {
            vec![options.resource.clone()]
        } else {
            options.audiences
        };
        // The TLS provider the facade's `tls` gives reqwest.
        mcpgraph_downstream::install_crypto_provider();
        let keys = KeyCache::new(
            &options.issuer,
            options.jwks_url,
            reqwest::Client::builder(),
        )
        .map_err(OAuthError::Client)?;
        let keys = Arc::new(keys);
        let suffix = challenge::metadata_path_suffix(&resource);
        let guard = Guard {
            challenges: Challenges::new(
                (&options.resource, &resource),
                &options.issuer,
                &options.scopes,
            ),
            metadata_paths: [
                format!("{}{suffix}", challenge::WELL_KNOWN),
                challenge::WELL_KNOWN.to_owned(),
            ],
            policy: Policy {
                algorithms: options.algorithms,
                issuer: options.issuer,
                audiences,
                leeway_secs: options.leeway_secs,
            },
            keys: Arc::clone(&keys),
            scopes: options.scopes,
            tool_scopes: tools.into_iter().filter(|(_, s)| !s.is_empty()).collect(),
        };
        tokio::spawn(async move { keys.refresh().await });
        Ok(guard)
    }

    /// Whether `path` is where the metadata is served.
    pub(super) fn is_metadata_path(&self, path: &str) -> bool {
        self.metadata_paths.iter().any(|p| p == path)
    }

    /// The metadata document.
    pub(super) fn metadata(&self) -> hyper::Response<Body> {
        self.challenges.metadata()
    }

    /// The caller named by the request's valid access token, which has the
    /// scopes every request needs; else the refusal to answer with.
    pub(super) async fn authenticate(
        &self,
        headers: &HeaderMap,
    ) -> Result<Claims, hyper::Response<Body>> {
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            let sent = headers.contains_key(header::AUTHORIZATION);
            return Err(self.challenges.unauthorized(sent));
        };
        let Some(token) = mcpgraph_oauth::jwt::bearer_token(value.as_bytes()) else {
            // Another scheme is no bearer token at all.
            let sent =
                value.as_bytes().len() > 6 && value.as_bytes()[..6].eq_ignore_ascii_case(b"bearer");
            return Err(self.challenges.unauthorized(sent));
        };
        let claims = match mcpgraph_oauth::jwt::verify(token, &self.policy, &self.keys).await {
            Ok(claims) => claims,
            Err(Invalid::KeysUnavailable) => {
                mcpgraph_runtime::host::refused("oauth_keys_unavailable");
                return Err(challenge::keys_unavailable());
            }
            Err(why) => {
                mcpgraph_runtime::host::refused("oauth_invalid_token");
                tracing::debug!(reason = ?why, "access token refused");
                return Err(self.challenges.unauthorized(true));
            }
        };
        if self.scopes.iter().any(|s| !claims.scopes.contains(s)) {
            let needed: Vec<&str> = self.scopes.iter().map(String::as_str).collect();
            return Err(self.insufficient(&needed));
        }
        tracing::trace!(sub = ?claims.subject, client_id = ?claims.client_id, "access token accepted");
        Ok(claims)
    }

    /// Whether any tool has `requiredScopes`.
    pub(super) fn checks_tools(&self) -> bool {
        !self.tool_scopes.is_empty()
    }

    /// Which tool the request with `headers` calls, if its headers tell
    /// (protocol 2026-07-28 or later).
    pub(super) fn called_tool(headers: &HeaderMap) -> CalledTool {
        let modern = headers
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v >= STANDARD_HEADERS_VERSION);
        let method = headers.get("mcp-method").map(|v| v.as_bytes());
        match (modern, method) {
            (true, Some(b"tools/call")) => headers
                .get("mcp-name")
                .and_then(|v| v.to_str().ok())
                .and_then(decode_header_value)
                .map_or(CalledTool::InBody, CalledTool::Named),
            // rmcp refuses a body whose method is not the header's.
            (true, Some(_)) => CalledTool::None,
            _ => CalledTool::InBody,
        }
    }

    /// The tools a JSON-RPC `body` (a message or a batch) calls; `None`
    /// when it is not one (rmcp would refuse it too).
    pub(super) fn called_in_body(body: &[u8]) -> Option<Vec<String>> {
        #[derive(serde::Deserialize)]
        struct Message {
            method: Option<String>,
            params: Option<Params>,
        }
        #[derive(serde::Deserialize)]
        struct Params {
            name: Option<serde_json::Value>,
        }
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Messages {
            One(Message),
            Many(Vec<Message>),
        }
        let messages = match serde_json::from_slice::<Messages>(body).ok()? {
            Messages::One(m) => vec![m],
            Messages::Many(ms) => ms,
        };
        let called = messages
            .into_iter()
            .filter(|m| m.method.as_deref() == Some("tools/call"))
            .filter_map(|m| match m.params?.name? {
                serde_json::Value::String(name) => Some(name),
                _ => None,
            })
            .collect();
        Some(called)
    }

    /// A 403 when `claims` lack a scope a call of `tool` needs (boxed: the
    /// rare path).
    pub(super) fn check_tool(
        &self,
        claims: &Claims,
        tool: &str,
    ) -> Result<(), Box<hyper::Response<Body>>> {
        let Some(required) = self.tool_scopes.get(tool) else {
            return Ok(());
        };
        if required.iter().all(|s| claims.scopes.contains(*s)) {
            return Ok(());
        }
        let mut needed: Vec<&str> = self.scopes.iter().map(String::as_str).collect();
        for scope in required.iter() {
            if !needed.contains(scope) {
                needed.push(scope);
            }
        }
        Err(Box::new(self.insufficient(&needed)))
    }

    fn insufficient(&self, needed: &[&str]) -> hyper::Response<Body> {
        mcpgraph_runtime::host::refused("oauth_insufficient_scope");
        self.challenges.insufficient_scope(needed)
    }
}

/// `text` parsed as an absolute `http(s)` URL without a fragment.
fn http_url(flag: &'static str, text: &str) -> Result<url::Url, OAuthError> {
    let url = url::Url::parse(text).map_err(|source| OAuthError::NotAUrl {
        flag,
        text: text.to_owned(),
        source,
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.fragment().is_some() {
        return Err(OAuthError::NotHttp {
            flag,
            text: text.to_owned(),
        });
    }
    Ok(url)
}

/// An `Mcp-Name` value: as is, or Base64 in `=?base64?…?=` (SEP-2243).
fn decode_header_value(value: &str) -> Option<String> {
    use base64::Engine as _;
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(inner) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(inner)
                .ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(value.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_called_are_read_from_headers_or_body() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (k, v) in pairs {
                map.insert(*k, hyper::header::HeaderValue::from_static(v));
            }
            map
        };
        let modern = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
        ];
        assert!(matches!(
            Guard::called_tool(&headers(&[modern[0], modern[1], ("mcp-name", "=?base64?ZMOpcGxveQ==?=")])),
            CalledTool::Named(n) if n == "déploy"
        ));
        assert!(matches!(
            Guard::called_tool(&headers(&modern)),
            CalledTool::InBody
        ));
        assert!(matches!(
            Guard::called_tool(&headers(&[modern[0], ("mcp-method", "tools/list")])),
            CalledTool::None
        ));
        assert!(matches!(
            Guard::called_tool(&headers(&[
                ("mcp-protocol-version", "2025-11-25"),
                modern[1],
                ("mcp-name", "x")
            ])),
            CalledTool::InBody
        ));
        let body = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},
                        {"jsonrpc":"2.0","method":"notifications/x"},
                        {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","arguments":{}}}]"#;
        assert_eq!(Guard::called_in_body(body).unwrap(), ["a", "b"]);
        assert_eq!(Guard::called_in_body(br#"{"method":"ping"}"#), Some(vec![]));
        assert_eq!(Guard::called_in_body(b"not json"), None);
        let twice = br#"{"method":"tools/call","params":{"name":"a","name":"b"}}"#;
        assert_eq!(Guard::called_in_body(twice), None, "ambiguous: refused");
    }
}
