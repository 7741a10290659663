//! A person's login to a server (the authorization code grant with PKCE,
//! RFC 9207 `iss` checked, RFC 8707 `resource` sent, all by rmcp): the
//! authorization URL is opened with `$BROWSER` (or printed), and the
//! authorization server sends the browser back to a listener on the
//! loopback interface (RFC 8252 §7.3) that takes the one callback carrying
//! the login's `state`. Only an https authorization endpoint (or http on a
//! loopback host) goes to the browser.
//!
//! The client is the one the graph names (`clientId`, with `clientSecret`),
//! else its client ID metadata document (`clientMetadataUrl`) where the
//! authorization server takes those, else one registered dynamically.

use super::error::TokenError;
use std::time::Duration;

use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadataSource, AuthorizationRequest, AuthorizationSession,
    CredentialStore as _, WWWAuthenticateParams,
};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use super::describe;
use super::issuer::Pin;
use super::settings::{AuthSettings, Secrets};
use super::store::Store;

/// How long a login waits for the browser to come back.
const LOGIN_LIMIT: Duration = Duration::from_secs(300);
/// The most a callback request may send before its blank line.
const MAX_CALLBACK_BYTES: usize = 16 * 1024;

/// Logs a person in to the server `server` at `url`: the scopes asked for
/// are the challenge's (`challenge`, a 401's or 403's `WWW-Authenticate`),
/// else the graph's `scopes`, else the server's `scopes_supported`, and on
/// a second login (step-up) also every scope granted before. The tokens go
/// to `store`; the manager returned holds them.
pub(crate) async fn log_in(
    server: &str,
    url: &str,
    settings: &AuthSettings,
    secrets: &Secrets,
    pin: &Pin,
    store: Store,
    challenge: Option<&str>,
) -> Result<AuthorizationManager, TokenError> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(|e| {
        TokenError::Login(format!("no loopback port for the login's redirect: {e}"))
    })?;
    let port = listener
        .local_addr()
        .map_err(|e| TokenError::Login(e.to_string()))?
        .port();
    let redirect = format!("http://127.0.0.1:{port}/callback");

    let previous = store.load().await.ok().flatten();
    // A login never moves the kept tokens to another authorization server.
    if let Some(issuer) = previous.as_ref().and_then(|p| p.issuer.as_deref()) {
        pin.stored(issuer)?;
    }
    let (mut manager, resolution) = pin.discover(url, challenge).await?;
    manager.set_credential_store(store);
    check_pkce(
        resolution.source,
        &resolution.metadata.code_challenge_methods_supported,
    )?;
    manager.set_metadata(resolution.metadata);

    let mut request = AuthorizationRequest::new(redirect.clone())
        .with_client_name(settings.client_name.as_deref().unwrap_or("mcpgraph"));
    if let Some(id) = settings.client_id()? {
        request = request.with_preregistered_client(id);
        if let Some(secret) = &secrets.client_secret {
            request = request.with_client_secret(secret.clone());
        }
    }
    if let Some(document) = &settings.client_metadata_url {
        request = request.with_client_metadata_url(settings.expand(document)?);
    }
    let challenged = challenge
        .and_then(|c| {
            url::Url::parse(url)
                .ok()
                .map(|base| WWWAuthenticateParams::parse(c, &base))
        })
        .and_then(|p| p.scope)
        .map(|s| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .unwrap_or_default();
    let granted = previous.map(|p| p.granted_scopes).unwrap_or_default();
    let mut scopes: Vec<String> = Vec::new();
    let step_up = !granted.is_empty() && !challenged.is_empty();
    for scope in settings
        .scopes
        .iter()
        .chain(if step_up { &granted[..] } else { &[] })
        .chain(&challenged)
    {
        if !scopes.contains(scope) {
            scopes.push(scope.clone());
        }
    }
    request = if step_up || !settings.scopes.is_empty() {
        request.with_scopes(scopes)
    } else {
        request.with_initial_scope_selection()
    };
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| TokenError::Login(describe(e)))?;
    let authorization_url = session.get_authorization_url();
    let state = browsable(server, authorization_url)?;
    open(server, authorization_url).await;
    let callback = tokio::time::timeout(LOGIN_LIMIT, callback(&listener, &state))
        .await
        .map_err(|_| {
            TokenError::Login(format!(
                "no login came back within {} s",
                LOGIN_LIMIT.as_secs()
            ))
        })??;
    // rmcp logs the code it exchanges (at debug level): a secret, if a
    // short-lived one.
    let query = callback.split_once('?').map_or("", |(_, q)| q);
    for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
        if key == "code" {
            mcpgraph_runtime::host::remember("oauth authorization code", &value);
        }
    }
    session
        .handle_callback_url(&format!("http://127.0.0.1:{port}{callback}"))
        .await
        .map_err(|e| TokenError::Login(describe(e)))?;
    Ok(session.auth_manager)
}

/// Refuses an authorization server whose metadata does not say it does
/// PKCE with S256 (the MCP spec: a client MUST refuse to proceed when
/// `code_challenge_methods_supported` is absent; rmcp goes on with a
/// warning). The 2025-03-26 fallback, which has no metadata to say it,
/// goes on.
fn check_pkce(
    source: AuthorizationMetadataSource,
    methods: &Option<Vec<String>>,
) -> Result<(), TokenError> {
    if source == AuthorizationMetadataSource::LegacyEndpointFallback {
        return Ok(());
    }
    if methods
        .as_ref()
        .is_some_and(|m| m.iter().any(|m| m == "S256"))
    {
        return Ok(());
    }
    Err(TokenError::AuthorizationServer(match methods {
        None => "the authorization server's metadata has no `code_challenge_methods_supported`: \
                 without PKCE S256 a login is refused (MCP authorization spec)"
            .to_owned(),
        Some(m) => format!(
            "the authorization server does not do PKCE with S256 (it lists {}): a login is refused",
            m.join(", ")
        ),
    }))
}

/// The `state` of the authorization URL `url` (from the authorization
/// server's metadata), once it is known that the URL may go to a browser
/// or be printed: https, or http to a loopback host. Anything else (a
/// `javascript:` or `file:` URL, plain http across a network) is refused,
/// naming the server `server`.
fn browsable(server: &str, url: &str) -> Result<String, TokenError> {
    let refused = |why: String| {
        format!(
            "the authorization endpoint of `{server}`'s authorization server {why}: \
             not opened in a browser, nor printed"
        )
    };
    let parsed = url::Url::parse(url)
        .map_err(|e| TokenError::Login(refused(format!("is not a URL ({e})"))))?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match parsed.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(TokenError::Login(refused(format!(
                "is plain http to `{}`, which is not a loopback host (https is needed)",
                parsed.host_str().unwrap_or_default()
            ))));
        }
        scheme => {
            return Err(TokenError::Login(refused(format!(
                "is a `{scheme}:` URL (https is needed)"
            ))));
        }
    }
    let mut states = parsed.query_pairs().filter(|(key, _)| key == "state");
    match (states.next(), states.next()) {
        (Some((_, state)), None) if !state.is_empty() => Ok(state.into_owned()),
        _ => Err(TokenError::Login(refused(
            "has no single `state`".to_owned(),
        ))),
    }
}

/// Whether the request target `target` (`/callback?...`) carries the
/// login's `state`, once (compared in constant time).
fn carries_state(target: &str, state: &str) -> bool {
    let query = target.split_once('?').map_or("", |(_, q)| q);
    let mut states =
        url::form_urlencoded::parse(query.as_bytes()).filter(|(key, _)| key == "state");
    match (states.next(), states.next()) {
        (Some((_, got)), None) => {
            let (got, state) = (got.as_bytes(), state.as_bytes());
            got.len() == state.len()
                && got.iter().zip(state).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
        }
        _ => false,
    }
}

/// Opens `url` in the user's browser (`$BROWSER URL`), and prints it for
/// when there is none.
async fn open(server: &str, url: &str) {
    eprintln!("To authorize `{server}`, open this address in a browser:\n  {url}");
    let Some(browser) = std::env::var_os("BROWSER").filter(|b| !b.is_empty()) else {
        return;
    };
    let started = tokio::process::Command::new("sh")
        .arg("-c")
        .arg("$BROWSER \"$1\"")
        .arg("browser")
        .arg(url)
        .env("BROWSER", browser)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn();
    match started {
        Ok(mut child) => {
            tokio::spawn(async move {
                let _ = child.wait().await;
            });
        }
        Err(e) => eprintln!("could not start $BROWSER: {e}"),
    }
}

/// Waits for the browser's request to `/callback` with the login's
/// `state` and answers it; a callback with another state (or none) gets an
/// error page and the wait goes on, other requests (a favicon, say) get
/// 404. Returns the request's path and query.
async fn callback(listener: &TcpListener, state: &str) -> Result<String, TokenError> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|e| TokenError::Login(e.to_string()))?;
        let mut head = Vec::new();
        let mut buf = [0u8; 2048];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_CALLBACK_BYTES {
            match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => head.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
        let line = String::from_utf8_lossy(&head);
        let target = line
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("GET "))
            .and_then(|l| l.split(' ').next())
            .unwrap_or("");
        if target.starts_with("/callback?") && !carries_state(target, state) {
            let body = "This is not this login's callback (its state does not match): ignored.\n";
            let _ = stream
                .write_all(
                    format!(
                        "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                )
                .await;
            continue;
        }
        if target.starts_with("/callback?") {
            let body = "Logged in: you can close this window.\n";
            let _ = stream
                .write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                )
                .await;
            return Ok(target.to_owned());
        }
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `GET path` on `addr`; the whole answer.
    async fn get(addr: std::net::SocketAddr, path: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer
    }

    #[tokio::test]
    async fn only_the_callback_with_the_logins_state_is_taken() {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let waiting = tokio::spawn(async move { callback(&listener, "the-state").await });
        for forged in [
            "/callback?code=forged&state=other",
            "/callback?code=forged&state=the-stat",
            "/callback?code=forged&state=the-state2",
            "/callback?code=forged",
            "/callback?error=access_denied",
            "/callback?code=forged&state=the-state&state=other",
        ] {
            let answer = get(addr, forged).await;
            assert!(answer.starts_with("HTTP/1.1 400 "), "{forged}: {answer}");
            assert!(answer.contains("not this login's"), "{forged}: {answer}");
            assert!(!waiting.is_finished(), "{forged} was taken");
        }
        let real = "/callback?code=real&state=the-state";
        let answer = get(addr, real).await;
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
        assert_eq!(waiting.await.unwrap().unwrap(), real);
    }

    #[test]
    fn only_https_or_loopback_http_goes_to_a_browser() {
        let query = "?client_id=c&state=s1";
        for good in [
            "https://auth.example/authorize",
            "HTTPS://auth.example/authorize",
            "http://127.0.0.1:9/authorize",
            "http://127.9.9.9/authorize",
            "http://localhost:9/authorize",
            "http://[::1]:9/authorize",
        ] {
            let state = browsable("s", &format!("{good}{query}"));
            assert_eq!(state.as_deref(), Ok("s1"), "{good}");
        }
        for bad in [
            "javascript:alert(1)//",
            "file:///etc/passwd",
            "http://auth.example/authorize",
            "http://10.0.0.1/authorize",
            "data:text/html,hi",
            "ftp://auth.example/authorize",
        ] {
            let error = browsable("srv", &format!("{bad}{query}"))
                .unwrap_err()
                .to_string();
            assert!(error.contains("`srv`"), "{bad}: {error}");
            assert!(error.contains("not opened"), "{bad}: {error}");
            assert!(!error.contains("s1"), "the state is not shown: {error}");
        }
    }

    #[test]
    fn a_server_without_pkce_s256_is_refused_unless_it_has_no_metadata() {
        let discovered = AuthorizationMetadataSource::AuthorizationServerMetadata;
        let s256 = Some(vec!["plain".to_owned(), "S256".to_owned()]);
        assert!(check_pkce(discovered, &s256).is_ok());
        let absent = check_pkce(discovered, &None).unwrap_err().to_string();
        assert!(
            absent.contains("code_challenge_methods_supported"),
            "{absent}"
        );
        let plain = check_pkce(discovered, &Some(vec!["plain".to_owned()]))
            .unwrap_err()
            .to_string();
        assert!(plain.contains("lists plain"), "{plain}");
        assert!(check_pkce(AuthorizationMetadataSource::LegacyEndpointFallback, &None).is_ok());
    }
}
