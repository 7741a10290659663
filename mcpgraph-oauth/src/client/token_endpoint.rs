//! The token requests rmcp does not make for us (a private-key JWT client
//! assertion, the JWT bearer grant): one form POST to the authorization
//! server's token endpoint, its answer read up to a bound, as a token
//! response (RFC 6749 §5.1) or as the error it names (§5.2). The
//! endpoint's host is resolved once: its addresses are checked (see
//! [`check_address`]) and the request connects to those, so a name that
//! answers otherwise the second time (DNS rebinding) cannot move it.

use super::error::TokenError;
use std::net::SocketAddr;
use std::str::FromStr as _;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use rmcp::transport::auth::OAuthTokenResponse;

/// The most a token endpoint's answer may hold (rmcp's own bound for its
/// OAuth requests): a token response is a few kilobytes.
const MAX_ANSWER_BYTES: usize = 1 << 20;
/// How long one token request may take, answer included.
const TOKEN_TIMEOUT: Duration = Duration::from_secs(30);

/// POSTs `form` to `endpoint` (the token endpoint of the authorization
/// server of the MCP server at `server`) with a client of `client`'s
/// settings, and reads the token it gives.
pub(super) async fn token_request(
    client: reqwest::ClientBuilder,
    server: &str,
    endpoint: &str,
    form: &[(&str, String)],
) -> Result<OAuthTokenResponse, TokenError> {
    token_request_via(client, server, endpoint, form, &System).await
}

/// [`token_request`], its host names resolved by `resolver`: once, and the
/// request goes to the addresses that were checked (a name that resolves
/// elsewhere the second time, DNS rebinding, changes nothing).
async fn token_request_via(
    mut client: reqwest::ClientBuilder,
    server: &str,
    endpoint: &str,
    form: &[(&str, String)],
    resolver: &dyn Resolve,
) -> Result<OAuthTokenResponse, TokenError> {
    let checked = check_address(server, endpoint, resolver).await?;
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    if let Some(name) = &checked.name {
        client = client.resolve_to_addrs(name, &checked.addresses);
    }
    let client = client.build().map_err(|e| {
        TokenError::AuthorizationServer(format!(
            "cannot create an HTTP client: {}",
            super::error_chain(&e)
        ))
    })?;
    let failed =
        |e: &reqwest::Error| format!("token request to {endpoint}: {}", super::error_chain(e));
    let mut response = client
        .post(endpoint)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(body)
        .timeout(TOKEN_TIMEOUT)
        .send()
        .await
        .map_err(|e| TokenError::AuthorizationServer(failed(&e)))?;
    let status = response.status();
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| TokenError::AuthorizationServer(failed(&e)))?
    {
        if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(TokenError::AuthorizationServer(format!(
                "token response of {endpoint}: longer than {} KiB",
                MAX_ANSWER_BYTES >> 10
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        let answer = serde_json::from_slice::<serde_json::Value>(&bytes).ok();
        let field = |key: &str| {
            answer
                .as_ref()
                .and_then(|v| v.get(key)?.as_str().map(str::to_owned))
        };
        let error = match (field("error"), field("error_description")) {
            (Some(error), Some(description)) => format!("{error} ({description})"),
            (Some(error), None) => error,
            (None, _) => format!("HTTP {status}"),
        };
        return Err(TokenError::AuthorizationServer(format!(
            "token refused by {endpoint}: {error}"
        )));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| TokenError::AuthorizationServer(format!("token response of {endpoint}: {e}")))
}

/// How far inside a network an address is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reach {
    Public,
    /// Private, link-local (cloud metadata), unique-local addresses.
    Private,
    Loopback,
}

fn reach(ip: std::net::IpAddr) -> Reach {
    use std::net::IpAddr;
    match ip {
        ip if ip.is_loopback() || ip.is_unspecified() => Reach::Loopback,
        IpAddr::V4(v4) if v4.is_private() || v4.is_link_local() => Reach::Private,
        IpAddr::V6(v6) if v6.is_unique_local() || v6.is_unicast_link_local() => Reach::Private,
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map_or(Reach::Public, |v4| reach(v4.into())),
        IpAddr::V4(_) => Reach::Public,
    }
}

/// The system's resolver.
struct System;

impl Resolve for System {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addresses: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            Ok(Box::new(addresses.into_iter()) as Addrs)
        })
    }
}

/// Where a URL's requests go: its host's name (`None` for an address) and
/// the addresses it resolved to.
#[derive(Debug)]
struct Resolved {
    name: Option<String>,
    addresses: Vec<SocketAddr>,
}

/// The addresses `url`'s host resolves to (by `resolver`), on its port.
async fn addresses_of(url: &str, resolver: &dyn Resolve) -> Result<Resolved, TokenError> {
    let parsed = url::Url::parse(url)
        .map_err(|e| TokenError::AuthorizationServer(format!("`{url}`: {e}")))?;
    let port = parsed.port_or_known_default().unwrap_or(443);
    let address = |ip: std::net::IpAddr| Resolved {
        name: None,
        addresses: vec![SocketAddr::new(ip, port)],
    };
    let host = match parsed.host() {
        Some(url::Host::Ipv4(ip)) => return Ok(address(ip.into())),
        Some(url::Host::Ipv6(ip)) => return Ok(address(ip.into())),
        Some(url::Host::Domain(host)) => host,
        None => {
            return Err(TokenError::AuthorizationServer(format!(
                "`{url}` has no host"
            )));
        }
    };
    let name = Name::from_str(host)
        .map_err(|_| TokenError::AuthorizationServer(format!("`{host}` is not a host name")))?;
    let addresses: Vec<SocketAddr> = resolver
        .resolve(name)
        .await
        .map_err(|e| TokenError::AuthorizationServer(format!("resolving `{host}`: {e}")))?
        .map(|a| SocketAddr::new(a.ip(), port))
        .collect();
    if addresses.is_empty() {
        return Err(TokenError::AuthorizationServer(format!(
            "resolving `{host}`: no address"
        )));
    }
    Ok(Resolved {
        name: Some(host.to_owned()),
        addresses,
    })
}

/// The innermost reach of `addresses`.
fn reach_of(addresses: &[SocketAddr]) -> Reach {
    addresses
        .iter()
        .map(|a| reach(a.ip()))
        .max()
        .unwrap_or(Reach::Public)
}

/// rmcp's rule for the OAuth requests it makes, for ours: a token endpoint
/// on a loopback or private address (a cloud metadata host included) is
/// refused unless the MCP server is on one as far inside, so that metadata
/// a server points to cannot send the graph's secrets into its network.
/// Returns the endpoint's addresses, which its request must go to.
async fn check_address(
    server: &str,
    endpoint: &str,
    resolver: &dyn Resolve,
) -> Result<Resolved, TokenError> {
    let resolved = addresses_of(endpoint, resolver).await?;
    let inner = reach_of(&resolved.addresses);
    let outer = reach_of(&addresses_of(server, resolver).await?.addresses);
    if inner > outer {
        return Err(TokenError::AuthorizationServer(format!(
            "the token endpoint {endpoint} is on a {} address, and the server {server} is not: refused",
            match inner {
                Reach::Loopback => "loopback",
                _ => "private",
            }
        )));
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::*;

    /// A token endpoint on the loopback interface that answers one request
    /// with `status` and `body`, sent in 64 KiB pieces; returns its URL.
    async fn endpoint(status: &'static str, body: Vec<u8>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/token", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf).await;
            let head = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes()).await;
            for piece in body.chunks(64 << 10) {
                if stream.write_all(piece).await.is_err() {
                    return;
                }
            }
        });
        url
    }

    #[tokio::test]
    async fn an_endless_answer_is_refused_at_the_bound() {
        crate::client::install_test_tls();
        // 64 MiB of a JSON string: read whole, it would be held whole.
        let mut body = b"{\"access_token\": \"".to_vec();
        body.resize(64 << 20, b'a');
        let url = endpoint("200 OK", body).await;
        let error = token_request(
            reqwest::Client::builder(),
            &url,
            &url,
            &[("grant_type", "x".into())],
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(error.contains("longer than 1024 KiB"), "{error}");
    }

    #[tokio::test]
    async fn a_refusal_names_the_error_and_its_description() {
        crate::client::install_test_tls();
        let body = br#"{"error": "invalid_grant", "error_description": "assertion expired"}"#;
        let url = endpoint("400 Bad Request", body.to_vec()).await;
        let error = token_request(
            reqwest::Client::builder(),
            &url,
            &url,
            &[("grant_type", "x".into())],
        )
        .await
        .unwrap_err()
        .to_string();
        let expected = format!("token refused by {url}: invalid_grant (assertion expired)");
        assert_eq!(error, expected);
    }

    /// A resolver whose answers change (DNS rebinding): each lookup gets
    /// the next of `answers`, the last one for ever; it counts lookups.
    struct Rebinding {
        answers: Vec<std::net::IpAddr>,
        asked: std::sync::atomic::AtomicUsize,
    }

    impl Rebinding {
        fn new(answers: &[&str]) -> std::sync::Arc<Rebinding> {
            std::sync::Arc::new(Rebinding {
                answers: answers.iter().map(|a| a.parse().unwrap()).collect(),
                asked: std::sync::atomic::AtomicUsize::new(0),
            })
        }
    }

    impl Resolve for Rebinding {
        fn resolve(&self, _name: Name) -> Resolving {
            let n = self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let ip = self.answers[n.min(self.answers.len() - 1)];
            Box::pin(async move { Ok(Box::new(std::iter::once(SocketAddr::new(ip, 0))) as Addrs) })
        }
    }

    /// A token endpoint on `listener` that answers every request with the
    /// access token `name`.
    async fn token_listener(listener: tokio::net::TcpListener, name: &'static str) {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf).await;
            let body = format!(r#"{{"access_token": "{name}", "token_type": "Bearer"}}"#);
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(format!("{head}{body}").as_bytes()).await;
        }
    }

    #[tokio::test]
    async fn the_token_request_goes_to_the_address_that_was_checked() {
        use oauth2::TokenResponse as _;
        crate::client::install_test_tls();
        let checked = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = checked.local_addr().unwrap().port();
        let rebound = tokio::net::TcpListener::bind(("127.0.0.2", port))
            .await
            .unwrap();
        tokio::spawn(token_listener(checked, "from-the-checked-address"));
        tokio::spawn(token_listener(rebound, "from-another-address"));
        // The name's first answer is checked; any later one differs.
        let resolver = Rebinding::new(&["127.0.0.1", "127.0.0.2"]);
        let endpoint = format!("http://tokens.rebinding.test:{port}/token");
        let token = token_request_via(
            reqwest::Client::builder(),
            "http://127.0.0.1:1/mcp",
            &endpoint,
            &[("grant_type", "x".into())],
            &*resolver,
        )
        .await
        .unwrap();
        assert_eq!(token.access_token().secret(), "from-the-checked-address");
        assert_eq!(
            resolver.asked.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "the name is resolved once"
        );
    }

    #[tokio::test]
    async fn a_name_that_resolves_inside_is_refused_for_a_server_outside() {
        crate::client::install_test_tls();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, mut reached) = tokio::sync::mpsc::channel(1);
        tokio::spawn(async move {
            if listener.accept().await.is_ok() {
                let _ = tx.send(()).await;
            }
        });
        let error = token_request_via(
            reqwest::Client::builder(),
            "http://93.184.215.14/mcp",
            &format!("http://tokens.inside.test:{port}/token"),
            &[("grant_type", "x".into())],
            &*Rebinding::new(&["127.0.0.1"]),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(error.contains("loopback address"), "{error}");
        assert!(
            reached.try_recv().is_err(),
            "the loopback token endpoint was reached"
        );
    }

    #[tokio::test]
    async fn a_token_endpoint_further_inside_than_its_server_is_refused() {
        let check = |server, endpoint| check_address(server, endpoint, &System);
        let error = check("http://93.184.215.14/mcp", "http://127.0.0.1:9/token")
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("loopback address"), "{error}");
        let error = check("http://93.184.215.14/mcp", "http://169.254.169.254/token")
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("private address"), "{error}");
        assert!(
            check("http://10.0.0.5/mcp", "http://10.0.0.6/token")
                .await
                .is_ok()
        );
        assert!(
            check("http://127.0.0.1:1/mcp", "http://10.0.0.6/token")
                .await
                .is_ok()
        );
        assert!(
            check("http://10.0.0.5/mcp", "http://93.184.215.14/token")
                .await
                .is_ok()
        );
    }
}
