//! One server's tokens: the [`Authorizer`] every connection to the server
//! shares gives the token each request carries, and when the server
//! refuses one (401, or 403 `insufficient_scope`), gets a better one once:
//! a refresh, the unattended grant again, or (where a person is at hand) a
//! login asking for the scopes the server named, at most three logins a
//! run. Concurrent refusals are recovered from once: a request whose
//! token was already replaced gets the new one.

use super::error::TokenError;
use mcpgraph_format::{Grant, TokenStore};
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, CredentialStore, InMemoryCredentialStore,
};
use tokio::sync::Mutex;

use super::Behalf;
use super::describe;
use super::exchange::Exchanges;
use super::grants::{self, Token};
use super::issuer::Pin;

use super::settings::{AuthSettings, Secrets};
use super::store::{FileStore, Store};
use mcpgraph_runtime::host::CallerToken;
use mcpgraph_runtime::host::{OneCopy, one_copy};

/// Logins (the first and step-ups) one run makes at most for a server.
const MAX_LOGINS: u32 = 3;

/// One recovery under way in [`Authorizer::recovering`]'s count, until
/// dropped (done or cancelled).
struct Recovering<'a>(&'a tokio::sync::watch::Sender<usize>);

impl<'a> Recovering<'a> {
    fn new(count: &'a tokio::sync::watch::Sender<usize>) -> Self {
        count.send_modify(|n| *n += 1);
        Recovering(count)
    }
}

impl Drop for Recovering<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

/// What the server said of a request's token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// 401: no token, or one it does not take.
    Unauthorized,
    /// 403 `insufficient_scope`.
    InsufficientScope,
}

/// The tokens of one server, shared by its connections.
pub struct Authorizer {
    server: String,
    url: String,
    settings: AuthSettings,
    secrets: Secrets,
    store: Store,
    state: Mutex<State>,
    /// Tokens got on behalf of callers (`token_exchange`).
    exchanges: Exchanges,
    /// The authorization server the tokens come from.
    pin: Pin,
    /// How many refusals are being recovered from now (a login, a grant).
    recovering: tokio::sync::watch::Sender<usize>,
}

#[derive(Default)]
struct State {
    /// The unattended grants' token.
    token: Option<Token>,
    /// A person's login, with its tokens (authorization code).
    manager: Option<AuthorizationManager>,
    /// Logins made this run.
    logins: u32,
}

impl Authorizer {
    /// The authorizer of server `server` at `url` (its `${VAR}` expanded);
    /// reads the secrets now.
    pub fn new(server: &str, url: &str, settings: AuthSettings) -> Result<Authorizer, TokenError> {
        let secrets = settings.secrets(server)?;
        let pin = Pin::new(server, settings.issuer()?);
        let store = match settings.token_store() {
            TokenStore::File => Store::File(FileStore::for_server(
                url,
                settings
                    .client_id()?
                    .or(settings.client_metadata_url.clone())
                    .as_deref(),
            )?),
            TokenStore::Memory => Store::Memory(InMemoryCredentialStore::new()),
        };
        Ok(Authorizer {
            server: server.to_owned(),
            url: url.to_owned(),
            settings,
            secrets,
            store,
            state: Mutex::default(),
            exchanges: Exchanges::default(),
            pin,
            recovering: tokio::sync::watch::Sender::new(0),
        })
    }

    /// The token the next request carries; `None` when there is none yet
    /// (the request goes without, and the server's 401 says where to get
    /// one).
    pub fn token<'a>(
        &'a self,
        behalf: Behalf<'a>,
    ) -> OneCopy<'a, Result<Option<String>, TokenError>> {
        one_copy(self.token_now(behalf))
    }

    /// A token exchanged for `caller`'s at the pinned issuer (a new one
    /// when the server `refused` the last).
    async fn exchanged(
        &self,
        caller: &CallerToken,
        refused: Option<&str>,
    ) -> Result<String, TokenError> {
        self.exchanges
            .token(
                &self.url,
                &self.settings,
                &self.secrets,
                &self.pin,
                caller,
                refused,
            )
            .await
    }

    async fn token_now(&self, behalf: Behalf<'_>) -> Result<Option<String>, TokenError> {
        if self.settings.grant == Grant::TokenExchange {
            match behalf {
                Behalf::Call(Some(caller)) => {
                    return self.exchanged(caller, None).await.map(Some);
                }
                Behalf::Call(None) => return Err(self.no_caller()),
                // What no caller asked (the handshake, listings) goes as
                // the graph.
                Behalf::Graph => {}
            }
        }
        let mut state = self.state.lock().await;
        if self.settings.grant != Grant::AuthorizationCode {
            if let Some(token) = state.token.as_ref().filter(|t| t.is_fresh()) {
                return Ok(Some(token.access.clone()));
            }
            let token =
                grants::unattended(&self.url, &self.settings, &self.secrets, &self.pin, None)
                    .await?;
            state.token = Some(token.clone());
            return Ok(Some(token.access));
        }
        // A login kept by an earlier run, or by `auth login` while this
        // one runs.
        if state.manager.is_none() {
            state.manager = self.stored_login().await?;
        }
        match &state.manager {
            None => Ok(None),
            Some(manager) => match manager.get_access_token().await {
                Ok(token) => Ok(Some(token)),
                Err(
                    AuthError::AuthorizationRequired
                    | AuthError::TokenRefreshRejected(_)
                    | AuthError::TokenExpired,
                ) => Ok(None),
                Err(e) => Err(TokenError::AuthorizationServer(describe(e))),
            },
        }
    }

    /// A login kept by an earlier run (or `auth login`), if any.
    async fn stored_login(&self) -> Result<Option<AuthorizationManager>, TokenError> {
        let Some(stored) = self
            .store
            .load()
            .await
            .map_err(|e| TokenError::Store(describe(e)))?
        else {
            return Ok(None);
        };
        // The kept tokens came from this issuer: they are never refreshed
        // at, nor replaced by, another.
        if let Some(issuer) = &stored.issuer {
            self.pin.stored(issuer)?;
        }
        let (mut manager, resolution) = self.pin.discover(&self.url, None).await?;
        manager.set_metadata(resolution.metadata);
        manager.set_credential_store(self.store.clone());
        match manager
            .initialize_from_store()
            .await
            .map_err(|e| TokenError::Store(describe(e)))?
        {
            true => Ok(Some(manager)),
            false => Ok(None),
        }
    }

    /// A better token than `sent`, which the server refused with
    /// `challenge` (its `WWW-Authenticate`).
    pub fn recover<'a>(
        &'a self,
        behalf: Behalf<'a>,
        sent: Option<&'a str>,
        challenge: &'a str,
        refusal: Refusal,
    ) -> OneCopy<'a, Result<String, TokenError>> {
        one_copy(self.recover_now(behalf, sent, challenge, refusal))
    }

    /// How many refusals are being recovered from now: a person's login
    /// takes minutes, so a connection's time limits that are not about the
    /// person (its protocol probe) wait while this is above zero.
    pub fn recovering(&self) -> tokio::sync::watch::Receiver<usize> {
        self.recovering.subscribe()
    }

    async fn recover_now(
        &self,
        behalf: Behalf<'_>,
        sent: Option<&str>,
        challenge: &str,
        refusal: Refusal,
    ) -> Result<String, TokenError> {
        let _recovering = Recovering::new(&self.recovering);
        if self.settings.grant == Grant::TokenExchange {
            match behalf {
                Behalf::Call(Some(caller)) => {
                    if refusal == Refusal::InsufficientScope {
                        return Err(TokenError::scope(&self.server, &self.url, challenge));
                    }
                    return self.exchanged(caller, sent).await;
                }
                Behalf::Call(None) => return Err(self.no_caller()),
                Behalf::Graph => {}
            }
        }
        let mut state = self.state.lock().await;
        if self.settings.grant != Grant::AuthorizationCode {
            if refusal == Refusal::InsufficientScope {
                return Err(TokenError::scope(&self.server, &self.url, challenge));
            }
            if let Some(token) = &state.token
                && Some(token.access.as_str()) != sent
                && token.is_fresh()
            {
                return Ok(token.access.clone());
            }
            let token = grants::unattended(
                &self.url,
                &self.settings,
                &self.secrets,
                &self.pin,
                Some(challenge),
            )
            .await?;
            state.token = Some(token.clone());
            return Ok(token.access);
        }
        if let Some(manager) = &state.manager {
            // Another request's refusal may have been recovered from already.
            if let Ok(token) = manager.get_access_token().await
                && Some(token.as_str()) != sent
            {
                return Ok(token);
            }
            if refusal == Refusal::Unauthorized
                && sent.is_some()
                && let Ok(response) = manager.refresh_token().await
            {
                use oauth2::TokenResponse as _;
                let token = response.access_token().secret().clone();
                if Some(token.as_str()) != sent {
                    return Ok(token);
                }
            }
        }
        if !(self.settings.host().interactive)() {
            return Err(TokenError::needs_login(
                &self.server,
                &self.url,
                challenge,
                refusal,
            ));
        }
        if state.logins >= MAX_LOGINS {
            return Err(TokenError::logins_used_up(
                &self.server,
                &self.url,
                challenge,
                refusal,
                MAX_LOGINS,
            ));
        }
        state.logins += 1;
        let manager = self.log_in(Some(challenge)).await?;
        let token = manager
            .get_access_token()
            .await
            .map_err(|e| TokenError::Login(describe(e)))?;
        state.manager = Some(manager);
        Ok(token)
    }

    /// A person's login now (`auth login`, or a refused request where a
    /// person is at hand), kept in the server's store.
    pub fn log_in<'a>(
        &'a self,
        challenge: Option<&'a str>,
    ) -> OneCopy<'a, Result<AuthorizationManager, TokenError>> {
        one_copy(super::login::log_in(
            &self.server,
            &self.url,
            &self.settings,
            &self.secrets,
            &self.pin,
            self.store.clone(),
            challenge,
        ))
    }

    /// Forgets the server's tokens (`auth logout`).
    pub async fn forget(&self) -> Result<(), TokenError> {
        self.store
            .clear()
            .await
            .map_err(|e| TokenError::Store(describe(e)))
    }

    /// Where the tokens are kept and what was granted (`auth status`).
    pub async fn status(&self) -> Result<String, TokenError> {
        let place = match &self.store {
            Store::File(f) => f.path().display().to_string(),
            Store::Memory(_) => "memory (this process only)".to_owned(),
        };
        let issuer = match self.pin.issuer() {
            Some(issuer) => format!(", issuer `{issuer}`"),
            None => String::new(),
        };
        Ok(
            match self
                .store
                .load()
                .await
                .map_err(|e| TokenError::Store(describe(e)))?
            {
                Some(stored) if stored.token_response.is_some() => format!(
                    "`{}`: logged in (client `{}`, scopes: {}{}); tokens in {place}",
                    self.server,
                    stored.client_id,
                    if stored.granted_scopes.is_empty() {
                        "none named".to_owned()
                    } else {
                        stored.granted_scopes.join(" ")
                    },
                    stored
                        .issuer
                        .map(|i| format!(", issuer `{i}`"))
                        .unwrap_or(issuer),
                ),
                _ => format!(
                    "`{}`: not logged in; tokens would be kept in {place}",
                    self.server
                ),
            },
        )
    }

    /// Whether the server gets each caller's own identity
    /// (`token_exchange`), which a transport sharing one token between
    /// callers cannot carry.
    pub fn passes_caller_on(&self) -> bool {
        self.settings.grant == Grant::TokenExchange
    }

    /// The refusal of a call with no caller's token to a server that gets
    /// the caller's identity: the graph's own is never used in its place.
    pub fn no_caller(&self) -> TokenError {
        TokenError::no_caller(&self.server)
    }
}
