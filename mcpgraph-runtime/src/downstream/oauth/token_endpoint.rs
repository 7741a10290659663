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

/// POSTs `form` to `endpoint` and reads the token it gives.
pub(super) async fn token_request(
    endpoint: &str,
    form: &[(&str, String)],
) -> Result<OAuthTokenResponse, String> {
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
        let error = token_request(&url, &[("grant_type", "x".into())])
            .await
            .unwrap_err();
        assert!(error.contains("longer than 1024 KiB"), "{error}");
    }

    #[tokio::test]
    async fn a_refusal_names_the_error_and_its_description() {
        crate::downstream::http_client::install_crypto_provider();
        let body = br#"{"error": "invalid_grant", "error_description": "assertion expired"}"#;
        let url = endpoint("400 Bad Request", body.to_vec()).await;
        let error = token_request(&url, &[("grant_type", "x".into())])
            .await
            .unwrap_err();
        let expected = format!("token refused by {url}: invalid_grant (assertion expired)");
        assert_eq!(error, expected);
    }
}
