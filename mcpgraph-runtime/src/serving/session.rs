//! Serving one MCP session over any rmcp transport ([`serve`]), and how it
//! failed ([`SessionError`]).

use rmcp::ServiceExt;
use rmcp::service::RoleServer;

use super::handler::Handler;

/// Serves `handler` over `transport` until the client disconnects.
pub async fn serve<T, E, A>(handler: Handler, transport: T) -> Result<(), SessionError>
where
    T: rmcp::transport::IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let service = handler
        .serve(transport)
        .await
        .map_err(|e| SessionError::Start(Box::new(e)))?;
    service.waiting().await.map_err(SessionError::Ended)?;
    Ok(())
}

/// How an MCP session served by [`serve`] failed.
#[derive(Debug)]
pub enum SessionError {
    /// It did not start (the client's `initialize` and what follows).
    Start(Box<rmcp::service::ServerInitializeError>),
    /// Its task ended abnormally.
    Ended(tokio::task::JoinError),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Start(e) => write!(f, "MCP session failed to start: {e}"),
            SessionError::Ended(e) => write!(f, "MCP session ended abnormally: {e}"),
        }
    }
}

impl std::error::Error for SessionError {}
