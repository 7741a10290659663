//! The session cap, enforced where a session is created: rmcp's
//! `LocalSessionManager` behind a wrapper whose `create_session` counts the
//! sessions and creates one more only under the cap, one creation at a
//! time. A count taken when the request arrives would not do: `initialize`
//! requests whose bodies arrive slowly all pass it before any of them has
//! made its session.
//!
//! rmcp answers a failed creation with a 500; the request's task learns
//! that it was this cap ([`watching`]), and the front door answers with its
//! own 503 instead.
//!
//! Each session belongs to the principal whose request opened it (the
//! `sub` and `client_id` of its access token under inbound OAuth, nobody
//! otherwise): the front door answers another principal presenting its id
//! with the 404 of a session that does not exist.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionId;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, ServerSseMessage, SessionManager,
};

tokio::task_local! {
    /// Set when a creation in this task was refused by the cap.
    static REFUSED: Cell<bool>;
}

/// Runs `request` (a call into rmcp's service); also says whether it was
/// refused a session by the cap.
pub(super) async fn watching<F: Future>(request: F) -> (F::Output, bool) {
    REFUSED
        .scope(Cell::new(false), async {
            let output = request.await;
            (output, REFUSED.with(Cell::get))
        })
        .await
}

/// rmcp's local sessions, at most `max` of them.
#[derive(Debug)]
pub(super) struct CappedSessions {
    inner: LocalSessionManager,
    max: usize,
    /// One creation at a time, so that the count and the insertion go
    /// together.
    creating: tokio::sync::Mutex<()>,
    /// Who opened each session.
    owners: Mutex<HashMap<SessionId, Owner>>,
}

/// Who opened a session: the principal of its access token, or nobody
/// (no inbound OAuth).
pub(super) type Owner = Option<Principal>;

/// A caller as its access token names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Principal {
    subject: Option<String>,
    client_id: Option<String>,
}

impl Principal {
    /// The principal `claims` name.
    pub(super) fn of(claims: &super::oauth::Claims) -> Principal {
        Principal {
            subject: claims.subject.clone(),
            client_id: claims.client_id.clone(),
        }
    }
}

/// Why a session was not created or used.
#[derive(Debug)]
pub(super) enum SessionsError {
    /// The cap (`--max-sessions`) is reached.
    Full(usize),
    /// rmcp's own error.
    Local(LocalSessionManagerError),
}

impl std::fmt::Display for SessionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Full(max) => write!(f, "{max} sessions already open (--max-sessions)"),
            Self::Local(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SessionsError {}

impl From<LocalSessionManagerError> for SessionsError {
    fn from(e: LocalSessionManagerError) -> Self {
        Self::Local(e)
    }
}

impl CappedSessions {
    pub(super) fn new(inner: LocalSessionManager, max: usize) -> Self {
        Self {
            inner,
            max,
            creating: tokio::sync::Mutex::new(()),
            owners: Mutex::default(),
        }
    }

    /// Records `owner` as the one who opened the session `id` (and
    /// forgets the owners of sessions gone since).
    pub(super) async fn bind(&self, id: &str, owner: Owner) {
        let open: HashSet<SessionId> = self.inner.sessions.read().await.keys().cloned().collect();
        let mut owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        owners.retain(|id, _| open.contains(id));
        owners.insert(id.into(), owner);
    }

    /// Whether `owner` opened the session `id` (one whose owner is not
    /// known was opened by nobody that asks).
    pub(super) fn owned_by(&self, id: &str, owner: &Owner) -> bool {
        let owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        owners.get(id) == Some(owner)
    }

    /// The sessions open now.
    pub(super) async fn len(&self) -> usize {
        self.inner.sessions.read().await.len()
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _one_at_a_time = self.creating.lock().await;
        if self.len().await >= self.max {
            mcpgraph_runtime::host::refused("sessions");
            let _ = REFUSED.try_with(|refused| refused.set(true));
            return Err(SessionsError::Full(self.max));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.owners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    fn event_store(&self) -> Option<std::sync::Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(subject: &str) -> Owner {
        Some(Principal {
            subject: Some(subject.to_owned()),
            client_id: Some("client".to_owned()),
        })
    }

    #[tokio::test]
    async fn a_session_is_its_openers_alone() {
        let sessions = CappedSessions::new(LocalSessionManager::default(), 4);
        let (theirs, _) = sessions.create_session().await.unwrap();
        sessions.bind(&theirs, principal("alice")).await;
        assert!(sessions.owned_by(&theirs, &principal("alice")));
        assert!(!sessions.owned_by(&theirs, &principal("bob")));
        // A caller with no principal cannot use a principal's session, nor
        // a principal one opened without.
        assert!(!sessions.owned_by(&theirs, &None));
        let (nobodys, _) = sessions.create_session().await.unwrap();
        sessions.bind(&nobodys, None).await;
        assert!(sessions.owned_by(&nobodys, &None));
        assert!(!sessions.owned_by(&nobodys, &principal("alice")));
        // Unknown, or closed: nobody's.
        assert!(!sessions.owned_by("no-such-session", &None));
        sessions.close_session(&theirs).await.unwrap();
        assert!(!sessions.owned_by(&theirs, &principal("alice")));
    }
}
