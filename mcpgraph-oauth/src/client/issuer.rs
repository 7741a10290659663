//! The authorization server (issuer) a server's tokens come from, pinned:
//! named in the graph (`auth.issuer`), or learned at the first discovery
//! (or from the issuer a stored login recorded) and then fixed for the
//! life of the process. Metadata is discovered through rmcp, but once an
//! issuer is pinned every request of that discovery goes through a
//! [`Gate`] that lets through only the server's own origin and the pinned
//! issuer's: a protected-resource document or a 401 challenge that names
//! another authorization server is an error naming the server and both
//! issuers, and that other server receives nothing. What is found is used
//! only when its `issuer` is the pinned one.
//!
//! It must not decide which grant runs or hold tokens (`tokens`,
//! `grants`, `exchange` and `login` do).

use super::error::TokenError;
use std::sync::{Arc, Mutex};

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataResolution,
    AuthorizationMetadataSource, OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRequest,
};

use super::describe;

/// The issuer of one server's tokens.
pub(crate) struct Pin {
    server: String,
    /// The issuer, and how it came to be pinned.
    pinned: Mutex<Option<(String, Source)>>,
}

/// How an issuer came to be pinned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// `auth.issuer`.
    Graph,
    /// The first discovery of this process.
    Discovered,
    /// The login kept in the token store.
    Stored,
}

impl Source {
    fn describe(self) -> &'static str {
        match self {
            Source::Graph => "the graph's `auth.issuer`",
            Source::Discovered => "the first discovery of this run",
            Source::Stored => "the kept login",
        }
    }
}

impl Pin {
    /// The pin of server `server`, with the issuer the graph names, if any.
    pub(crate) fn new(server: &str, configured: Option<String>) -> Pin {
        Pin {
            server: server.to_owned(),
            pinned: Mutex::new(configured.map(|i| (i, Source::Graph))),
        }
    }

    /// The issuer pinned now, if any.
    pub(crate) fn issuer(&self) -> Option<String> {
        self.lock().as_ref().map(|(i, _)| i.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(String, Source)>> {
        self.pinned.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Pins `issuer`, which a kept login recorded: an error when another is
    /// pinned already.
    pub(crate) fn stored(&self, issuer: &str) -> Result<(), TokenError> {
        self.learn(issuer, Source::Stored)
    }

    fn learn(&self, issuer: &str, source: Source) -> Result<(), TokenError> {
        let mut pinned = self.lock();
        match pinned.as_ref() {
            None => {
                *pinned = Some((issuer.to_owned(), source));
                Ok(())
            }
            Some((kept, _)) if same_issuer(kept, issuer) => Ok(()),
            Some((kept, how)) => Err(TokenError::AuthorizationServer(self.mismatch(
                kept,
                *how,
                issuer,
                source.describe(),
            ))),
        }
    }

    fn mismatch(&self, pinned: &str, how: Source, other: &str, named_by: &str) -> String {
        format!(
            "`{}`: {named_by} names authorization server `{other}`, but its issuer is pinned to \
             `{pinned}` (by {}): no token is sent to `{other}`",
            self.server,
            how.describe()
        )
    }

    /// The authorization server metadata of the server at `url`, found from
    /// `challenge` (a 401's or 403's `WWW-Authenticate`) or the well-known
    /// paths, with an rmcp manager for `url` that holds it (and, when the
    /// issuer is pinned, reaches no other authorization server). The issuer
    /// found is pinned when none was.
    pub(crate) async fn discover(
        &self,
        url: &str,
        challenge: Option<&str>,
    ) -> Result<(AuthorizationManager, AuthorizationMetadataResolution), TokenError> {
        let pinned = self.lock().clone();
        let Some((issuer, how)) = pinned else {
            let manager = AuthorizationManager::new(url)
                .await
                .map_err(|e| TokenError::AuthorizationServer(describe(e)))?;
            let resolution = manager
                .resolve_metadata_from_challenge(challenge)
                .await
                .map_err(|e| TokenError::AuthorizationServer(describe(e)))?;
            if let Some(found) = &resolution.metadata.issuer {
                self.learn(found, Source::Discovered)?;
            }
            return Ok((manager, resolution));
        };
        let gate = Gate::new(url, &issuer)?;
        let manager = AuthorizationManager::new_with_oauth_http_client(url, gate.clone())
            .await
            .map_err(|e| TokenError::AuthorizationServer(describe(e)))?;
        let named_by = if challenge.is_some() {
            "its 401 challenge"
        } else {
            "its protected-resource metadata"
        };
        let resolution = match manager.resolve_metadata_from_challenge(challenge).await {
            Ok(r) if r.source == AuthorizationMetadataSource::LegacyEndpointFallback => {
                // The server names no authorization server: ask the pinned
                // one for its own metadata.
                let at_issuer =
                    AuthorizationManager::new_with_oauth_http_client(issuer.as_str(), gate.clone())
                        .await
                        .map_err(|e| TokenError::AuthorizationServer(describe(e)))?;
                let r = at_issuer
                    .resolve_metadata()
                    .await
                    .map_err(|e| TokenError::AuthorizationServer(describe(e)))?;
                if r.source == AuthorizationMetadataSource::LegacyEndpointFallback {
                    return Err(TokenError::AuthorizationServer(format!(
                        "`{}`: the pinned authorization server `{issuer}` publishes no metadata",
                        self.server
                    )));
                }
                r
            }
            Ok(r) => r,
            Err(AuthError::AuthorizationServersUnavailable {
                authorization_servers,
                ..
            }) if gate.refused() => {
                return Err(TokenError::AuthorizationServer(self.mismatch(
                    &issuer,
                    how,
                    &authorization_servers.join(", "),
                    named_by,
                )));
            }
            Err(e) if gate.refused() => {
                return Err(TokenError::AuthorizationServer(format!(
                    "{}; {}",
                    self.mismatch(&issuer, how, &gate.refused_origins(), named_by),
                    describe(e)
                )));
            }
            Err(e) => {
                return Err(TokenError::AuthorizationServer(format!(
                    "`{}`: {}",
                    self.server,
                    describe(e)
                )));
            }
        };
        match resolution.metadata.issuer.as_deref() {
            Some(found) if same_issuer(found, &issuer) => {}
            Some(found) => {
                return Err(TokenError::AuthorizationServer(
                    self.mismatch(&issuer, how, found, named_by),
                ));
            }
            None => {
                return Err(TokenError::AuthorizationServer(format!(
                    "`{}`: the authorization server metadata found names no issuer, and the \
                     server's issuer is pinned to `{issuer}` (by {})",
                    self.server,
                    how.describe()
                )));
            }
        }
        gate.allow_endpoints(&resolution.metadata);
        Ok((manager, resolution))
    }
}

/// Whether two issuer identifiers are the same (RFC 8414 §3.3: equal, a
/// root path's trailing slash aside).
fn same_issuer(a: &str, b: &str) -> bool {
    let trim = |s: &str| {
        match url::Url::parse(s) {
            Ok(u) if u.path() == "/" => s.strip_suffix('/').unwrap_or(s),
            _ => s,
        }
        .to_owned()
    };
    a == b || trim(a) == trim(b)
}

/// The origin (`scheme://host:port`) of `url`.
fn origin(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    Some(u.origin().ascii_serialization())
}

/// An rmcp OAuth HTTP client that reaches only the origins it allows (the
/// server's, the pinned issuer's, then the endpoints of the issuer's own
/// metadata): any other request is answered 404 here, never sent, and
/// remembered.
#[derive(Clone)]
struct Gate {
    inner: Arc<dyn OAuthHttpClient>,
    allowed: Arc<Mutex<Vec<String>>>,
    refused: Arc<Mutex<Vec<String>>>,
}

impl Gate {
    fn new(url: &str, issuer: &str) -> Result<Arc<Gate>, TokenError> {
        let allowed = [url, issuer].iter().filter_map(|u| origin(u)).collect();
        Ok(Arc::new(Gate {
            inner: Arc::new(
                rmcp::transport::auth::default_oauth_http_client()
                    .map_err(|e| TokenError::AuthorizationServer(describe(e)))?,
            ),
            allowed: Arc::new(Mutex::new(allowed)),
            refused: Arc::default(),
        }))
    }

    /// Lets the endpoints of `metadata` (the pinned issuer's) be reached.
    fn allow_endpoints(&self, metadata: &AuthorizationMetadata) {
        let mut allowed = self.allowed.lock().unwrap_or_else(|p| p.into_inner());
        for endpoint in [
            Some(&metadata.token_endpoint),
            metadata.registration_endpoint.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            if let Some(o) = origin(endpoint)
                && !allowed.contains(&o)
            {
                allowed.push(o);
            }
        }
    }

    fn refused(&self) -> bool {
        !self
            .refused
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
    }

    fn refused_origins(&self) -> String {
        self.refused
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .join(", ")
    }
}

impl OAuthHttpClient for Gate {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        let to = origin(&request.request.uri().to_string()).unwrap_or_default();
        let allowed = self
            .allowed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&to);
        if allowed {
            return self.inner.execute(request);
        }
        let mut refused = self.refused.lock().unwrap_or_else(|p| p.into_inner());
        if !refused.contains(&to) {
            refused.push(to);
        }
        Box::pin(async {
            oauth2::http::Response::builder()
                .status(404)
                .body(Vec::new())
                .map_err(|e| Box::new(e) as rmcp::transport::auth::OAuthHttpClientError)
        })
    }
}

#[cfg(test)]
#[path = "issuer_tests.rs"]
mod tests;
