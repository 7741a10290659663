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
#[path = "token_endpoint_tests.rs"]
mod tests;
