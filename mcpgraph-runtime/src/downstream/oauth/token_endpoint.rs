//! The token requests rmcp does not make for us (a private-key JWT client
//! assertion, the JWT bearer grant): one form POST to the authorization
//! server's token endpoint, its answer read up to a bound, as a token
//! response (RFC 6749 §5.1) or as the error it names (§5.2).

use std::time::Duration;

use rmcp::transport::auth::OAuthTokenResponse;

/// The most a token endpoint's answer may hold (rmcp's own bound for its
/// OAuth requests): a token response is a few kilobytes.
const MAX_ANSWER_BYTES: usize = 1 << 20;
/// How long one token request may take, answer included.
const TOKEN_TIMEOUT: Duration = Duration::from_secs(30);

/// POSTs `form` to `endpoint` (the token endpoint of the authorization
/// server of the MCP server at `server`) and reads the token it gives.
pub(super) async fn token_request(
    server: &str,
    endpoint: &str,
    form: &[(&str, String)],
) -> Result<OAuthTokenResponse, String> {
    check_address(server, endpoint).await?;
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let client = crate::downstream::http_client::http_client()?;
    let failed = |e: &reqwest::Error| {
        format!(
            "token request to {endpoint}: {}",
            crate::downstream::http_client::error_chain(e)
        )
    };
    let mut response = client
        .post(endpoint)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(body)
        .timeout(TOKEN_TIMEOUT)
        .send()
        .await
        .map_err(|e| failed(&e))?;
    let status = response.status();
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| failed(&e))? {
        if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(format!(
                "token response of {endpoint}: longer than {} KiB",
                MAX_ANSWER_BYTES >> 10
            ));
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
        return Err(format!("token refused by {endpoint}: {error}"));
    }
    serde_json::from_slice(&bytes).map_err(|e| format!("token response of {endpoint}: {e}"))
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

/// The innermost reach of the addresses `url`'s host resolves to.
async fn reach_of(url: &str) -> Result<Reach, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("`{url}`: {e}"))?;
    let host = parsed
        .host_str()
        .ok_or_else(|| format!("`{url}` has no host"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let port = parsed.port_or_known_default().unwrap_or(443);
    let addresses = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| format!("resolving `{host}`: {e}"))?;
    Ok(addresses
        .map(|a| reach(a.ip()))
        .max()
        .unwrap_or(Reach::Public))
}

/// rmcp's rule for the OAuth requests it makes, for ours: a token endpoint
/// on a loopback or private address (a cloud metadata host included) is
/// refused unless the MCP server is on one as far inside, so that metadata
/// a server points to cannot send the graph's secrets into its network.
async fn check_address(server: &str, endpoint: &str) -> Result<(), String> {
    let (inner, outer) = (reach_of(endpoint).await?, reach_of(server).await?);
    if inner > outer {
        return Err(format!(
            "the token endpoint {endpoint} is on a {} address, and the server {server} is not: refused",
            match inner {
                Reach::Loopback => "loopback",
                _ => "private",
            }
        ));
    }
    Ok(())
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
        crate::downstream::http_client::install_crypto_provider();
        // 64 MiB of a JSON string: read whole, it would be held whole.
        let mut body = b"{\"access_token\": \"".to_vec();
        body.resize(64 << 20, b'a');
        let url = endpoint("200 OK", body).await;
        let error = token_request(&url, &url, &[("grant_type", "x".into())])
            .await
            .unwrap_err();
        assert!(error.contains("longer than 1024 KiB"), "{error}");
    }

    #[tokio::test]
    async fn a_refusal_names_the_error_and_its_description() {
        crate::downstream::http_client::install_crypto_provider();
        let body = br#"{"error": "invalid_grant", "error_description": "assertion expired"}"#;
        let url = endpoint("400 Bad Request", body.to_vec()).await;
        let error = token_request(&url, &url, &[("grant_type", "x".into())])
            .await
            .unwrap_err();
        let expected = format!("token refused by {url}: invalid_grant (assertion expired)");
        assert_eq!(error, expected);
    }

    #[tokio::test]
    async fn a_token_endpoint_further_inside_than_its_server_is_refused() {
        let error = check_address("http://93.184.215.14/mcp", "http://127.0.0.1:9/token")
            .await
            .unwrap_err();
        assert!(error.contains("loopback address"), "{error}");
        let error = check_address("http://93.184.215.14/mcp", "http://169.254.169.254/token")
            .await
            .unwrap_err();
        assert!(error.contains("private address"), "{error}");
        assert!(
            check_address("http://10.0.0.5/mcp", "http://10.0.0.6/token")
                .await
                .is_ok()
        );
        assert!(
            check_address("http://127.0.0.1:1/mcp", "http://10.0.0.6/token")
                .await
                .is_ok()
        );
        assert!(
            check_address("http://10.0.0.5/mcp", "http://93.184.215.14/token")
                .await
                .is_ok()
        );
    }
}
