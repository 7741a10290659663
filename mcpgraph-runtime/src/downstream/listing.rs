//! Listing what a downstream server offers: its `initialize` answer and
//! every tool, for `mcpgraph lock`.

use serde_json::Value;

use super::ClientManager;

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
    /// `nextCursor`, within the server's `timeoutMs`.
    pub async fn list_tools(&self, server: &str) -> Result<ServerListing, String> {
        let Some(downstream) = self.servers.get(server) else {
            return Err(format!("no downstream server `{server}` is configured"));
        };
        let timeout = downstream.spec.timeout();
        let connection = self.connection(downstream).await?;
        let peer = connection.service.peer();
        let info = peer
            .peer_info()
            .ok_or_else(|| "the server sent no `initialize` result".to_owned())?;
        let tools = match tokio::time::timeout(timeout, peer.list_all_tools()).await {
            Err(_) => {
                return Err(format!(
                    "`tools/list` got no answer within {} ms (the server's timeoutMs)",
                    timeout.as_millis()
                ));
            }
            Ok(Err(e)) => return Err(format!("`tools/list` failed: {e}")),
            Ok(Ok(tools)) => tools,
        };
        let json = |value: serde_json::Result<Value>| value.map_err(|e| e.to_string());
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
