//! Listing what a downstream server offers: its `initialize` answer and
//! every tool, for `mcpgraph lock` and for the comparison with the lock
//! (`drift`). Both page through `tools/list` here, with bounds a server
//! cannot talk its way past: [`MAX_TOOL_PAGES`] pages, no cursor twice,
//! and the server's `timeoutMs` for the whole listing.

use std::collections::HashSet;
use std::time::Duration;

use rmcp::model::{PaginatedRequestParams, Tool};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;

use super::{ClientManager, DownstreamError};
use mcpgraph_runtime::Downstream as Kind;

/// The most `tools/list` pages read from one server. Servers page by tens
/// or hundreds of tools, so 100 pages is thousands of tools; a server that
/// goes on past it is taken to loop, and its listing fails.
pub const MAX_TOOL_PAGES: usize = 100;

/// How much of a cursor a message quotes (cursors are the server's text).
const CURSOR_QUOTED: usize = 64;

/// Why a server's tools could not be listed. The message does not name
/// the server; the caller does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ListingError {
    /// No complete listing within the server's `timeoutMs`.
    pub(super) timed_out: bool,
    pub(super) message: String,
}

impl std::fmt::Display for ListingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Every tool `peer` lists, all pages, within `timeout` in all. Fails on a
/// page past [`MAX_TOOL_PAGES`] and on a `nextCursor` the server already
/// sent, so a server that answers `nextCursor: "again"` forever costs a
/// bounded number of round trips, not the whole `timeoutMs` (or, without
/// one, forever).
pub(super) async fn all_tools(
    peer: &Peer<RoleClient>,
    timeout: Duration,
) -> Result<Vec<Tool>, ListingError> {
    match tokio::time::timeout(timeout, pages(peer)).await {
        Ok(listed) => listed,
        Err(_) => Err(ListingError {
            timed_out: true,
            message: format!(
                "`tools/list` got no complete answer within {} ms (the server's timeoutMs)",
                timeout.as_millis()
            ),
        }),
    }
}

/// [`all_tools`] without its time limit.
async fn pages(peer: &Peer<RoleClient>) -> Result<Vec<Tool>, ListingError> {
    let failed = |message: String| ListingError {
        timed_out: false,
        message,
    };
    let mut tools = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut cursor = None;
    for page in 1..=MAX_TOOL_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let result = peer
            .list_tools(Some(params))
            .await
            .map_err(|e| failed(format!("`tools/list` failed: {e}")))?;
        tools.extend(result.tools);
        let Some(next) = result.next_cursor else {
            return Ok(tools);
        };
        if !seen.insert(next.clone()) {
            return Err(failed(format!(
                "`tools/list` page {page} sent the cursor {} a second time: its pagination loops",
                quoted(&next)
            )));
        }
        cursor = Some(next);
    }
    Err(failed(format!(
        "`tools/list` still had a `nextCursor` after {MAX_TOOL_PAGES} pages \
         (the most mcpgraph reads): its pagination does not end"
    )))
}

/// `cursor` as a message quotes it: in backticks, cut after
/// [`CURSOR_QUOTED`] characters.
fn quoted(cursor: &str) -> String {
    match cursor.char_indices().nth(CURSOR_QUOTED) {
        Some((end, _)) => format!("`{}`...", &cursor[..end]),
        None => format!("`{cursor}`"),
    }
}

/// What a server said about itself and its tools.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerListing {
    /// `serverInfo` of its `initialize` result.
    pub server_info: Value,
    /// The protocol version the handshake agreed on.
    pub protocol_version: String,
    /// Every tool of `tools/list`, all pages, as sent.
    pub tools: Vec<Value>,
}

impl ClientManager {
    /// Connects to `server` if needed and lists its tools, following
    /// `nextCursor` for at most [`MAX_TOOL_PAGES`] pages, within the
    /// server's `timeoutMs`.
    pub async fn list_tools(&self, server: &str) -> Result<ServerListing, DownstreamError> {
        let Some(downstream) = self.servers.get(server) else {
            return Err(DownstreamError::unconfigured(server));
        };
        let timeout = downstream.spec.timeout();
        let connection = self
            .connection(downstream)
            .await
            .map_err(|e| DownstreamError::new(Kind::Refused, e.to_string()))?;
        let peer = connection.service.peer();
        let info = peer.peer_info().ok_or_else(|| {
            let why = "the server sent no `initialize` result";
            DownstreamError::new(Kind::Protocol, why.to_owned())
        })?;
        let tools = all_tools(peer, timeout).await.map_err(|e| {
            let kind = if e.timed_out {
                Kind::TimedOut
            } else {
                Kind::Protocol
            };
            DownstreamError::new(kind, e.message)
        })?;
        let json = |value: serde_json::Result<Value>| {
            value.map_err(|e| DownstreamError::new(Kind::Protocol, e.to_string()))
        };
        Ok(ServerListing {
            server_info: json(serde_json::to_value(&info.server_info))?,
            protocol_version: info.protocol_version.to_string(),
            tools: tools
                .iter()
                .map(|tool| json(serde_json::to_value(tool)))
                .collect::<Result<_, _>>()?,
        })
    }
}
