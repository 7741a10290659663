use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::*;

type Answer = dyn Fn(&str, &str) -> Option<String> + Send + Sync;

/// A loopback HTTP server answering each GET with `answer(origin,
/// path)` (200 and the JSON, or 404), counting the requests.
async fn serve(answer: Arc<Answer>) -> (String, Arc<AtomicU64>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicU64::new(0));
    let (o, c) = (origin.clone(), Arc::clone(&count));
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            c.fetch_add(1, Ordering::SeqCst);
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf).await {
                    Ok(n) if n > 0 => head.extend_from_slice(&buf[..n]),
                    _ => break,
                }
            }
            let text = String::from_utf8_lossy(&head).into_owned();
            let path = text.split(' ').nth(1).unwrap_or_default();
            let reply = match answer(&o, path) {
                Some(body) => format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                ),
                None => "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    .to_owned(),
            };
            let _ = stream.write_all(reply.as_bytes()).await;
        }
    });
    (origin, count)
}

async fn authorization_server() -> (String, Arc<AtomicU64>) {
    // rmcp's OAuth client is reqwest's, with our TLS provider.
    crate::client::install_test_tls();
    serve(Arc::new(|origin: &str, path: &str| {
        (path == "/.well-known/oauth-authorization-server").then(|| {
            serde_json::json!({
                "issuer": origin,
                "authorization_endpoint": format!("{origin}/authorize"),
                "token_endpoint": format!("{origin}/token"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
            })
            .to_string()
        })
    }))
    .await
}

/// A resource at `/mcp` whose metadata names `named` now.
async fn resource(named: Arc<Mutex<String>>) -> String {
    let (origin, _) = serve(Arc::new(move |origin: &str, path: &str| {
        path.starts_with("/.well-known/oauth-protected-resource")
            .then(|| {
                serde_json::json!({
                    "resource": format!("{origin}/mcp"),
                    "authorization_servers": [named.lock().unwrap().clone()],
                })
                .to_string()
            })
    }))
    .await;
    format!("{origin}/mcp")
}

#[tokio::test]
async fn an_issuer_learned_at_the_first_discovery_stays_fixed() {
    let (a, _) = authorization_server().await;
    let (b, b_requests) = authorization_server().await;
    let named = Arc::new(Mutex::new(a.clone()));
    let url = resource(Arc::clone(&named)).await;
    let pin = Pin::new("crm", None);
    let (_, found) = pin.discover(&url, None).await.unwrap();
    assert_eq!(found.metadata.token_endpoint, format!("{a}/token"));
    assert_eq!(pin.issuer().as_deref(), Some(a.as_str()));

    // The server now names another: an error naming both, and the
    // other is not asked anything.
    *named.lock().unwrap() = b.clone();
    let err = pin
        .discover(&url, None)
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("`crm`") && err.contains(&a) && err.contains(&b),
        "{err}"
    );
    let challenge = format!(
        r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
        url.trim_end_matches("/mcp")
    );
    let err = pin
        .discover(&url, Some(&challenge))
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("401 challenge") && err.contains(&b), "{err}");
    assert_eq!(b_requests.load(Ordering::SeqCst), 0);
    // Nor is a kept login's other issuer taken.
    assert!(
        pin.stored(&b)
            .unwrap_err()
            .to_string()
            .contains("kept login")
    );
    assert_eq!(pin.issuer().as_deref(), Some(a.as_str()));

    // Named back: found again.
    *named.lock().unwrap() = a.clone();
    assert!(pin.discover(&url, None).await.is_ok());
}

#[tokio::test]
async fn a_pinned_issuer_is_asked_directly_when_the_server_names_none() {
    let (a, _) = authorization_server().await;
    let (silent, _) = serve(Arc::new(|_: &str, _: &str| None)).await;
    let pin = Pin::new("crm", Some(a.clone()));
    let (_, found) = pin.discover(&format!("{silent}/mcp"), None).await.unwrap();
    assert_eq!(found.metadata.issuer.as_deref(), Some(a.as_str()));
}

#[test]
fn issuers_compare_as_rfc_8414_says() {
    assert!(same_issuer("https://as.example", "https://as.example/"));
    assert!(!same_issuer(
        "https://as.example/t1",
        "https://as.example/t1/"
    ));
    assert!(!same_issuer("https://as.example", "https://evil.example"));
}
