//! A person's login to a server (the authorization code grant with PKCE,
//! RFC 9207 `iss` checked, RFC 8707 `resource` sent, all by rmcp): the
//! authorization URL is opened with `$BROWSER` (or printed), and the
//! authorization server sends the browser back to a listener on the
//! loopback interface (RFC 8252 §7.3) that takes the one callback.
//!
//! The client is the one the graph names (`clientId`, with `clientSecret`),
//! else its client ID metadata document (`clientMetadataUrl`) where the
//! authorization server takes those, else one registered dynamically.

use std::time::Duration;

use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadataSource, AuthorizationRequest, AuthorizationSession,
    CredentialStore as _, WWWAuthenticateParams,
};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use super::grants::describe;
use super::issuer::Pin;
use super::settings::{AuthSettings, Secrets};
use super::tokens::Store;

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
) -> Result<AuthorizationManager, String> {
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| format!("no loopback port for the login's redirect: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
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
        request =
            request.with_client_metadata_url(crate::downstream::env_expand::expand(document)?);
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
        .map_err(|(_, e)| describe(e))?;
    open(server, session.get_authorization_url()).await;
    let callback = tokio::time::timeout(LOGIN_LIMIT, callback(&listener))
        .await
        .map_err(|_| format!("no login came back within {} s", LOGIN_LIMIT.as_secs()))??;
    // rmcp logs the code it exchanges (at debug level): a secret, if a
    // short-lived one.
    let query = callback.split_once('?').map_or("", |(_, q)| q);
    for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
        if key == "code" {
            crate::secrets::remember("oauth authorization code", &value);
        }
    }
    session
        .handle_callback_url(&format!("http://127.0.0.1:{port}{callback}"))
        .await
        .map_err(describe)?;
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
) -> Result<(), String> {
    if source == AuthorizationMetadataSource::LegacyEndpointFallback {
        return Ok(());
    }
    if methods
        .as_ref()
        .is_some_and(|m| m.iter().any(|m| m == "S256"))
    {
        return Ok(());
    }
    Err(match methods {
        None => "the authorization server's metadata has no `code_challenge_methods_supported`: \
                 without PKCE S256 a login is refused (MCP authorization spec)"
            .to_owned(),
        Some(m) => format!(
            "the authorization server does not do PKCE with S256 (it lists {}): a login is refused",
            m.join(", ")
        ),
    })
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

/// Waits for the browser's request to `/callback` and answers it; other
/// requests (a favicon, say) get 404. Returns the request's path and query.
async fn callback(listener: &TcpListener) -> Result<String, String> {
    loop {
        let (mut stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
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

    #[test]
    fn a_server_without_pkce_s256_is_refused_unless_it_has_no_metadata() {
        let discovered = AuthorizationMetadataSource::AuthorizationServerMetadata;
        let s256 = Some(vec!["plain".to_owned(), "S256".to_owned()]);
        assert!(check_pkce(discovered, &s256).is_ok());
        let absent = check_pkce(discovered, &None).unwrap_err();
        assert!(
            absent.contains("code_challenge_methods_supported"),
            "{absent}"
        );
        let plain = check_pkce(discovered, &Some(vec!["plain".to_owned()])).unwrap_err();
        assert!(plain.contains("lists plain"), "{plain}");
        assert!(check_pkce(AuthorizationMetadataSource::LegacyEndpointFallback, &None).is_ok());
    }
}
