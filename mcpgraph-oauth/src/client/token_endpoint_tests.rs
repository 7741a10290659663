//! The tests of `token_endpoint`.

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
