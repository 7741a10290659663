//! Inbound OAuth (`serve --http --oauth-issuer …`) against a real
//! authorization server (oidc-provider, `mcpgraph_tests::oidc`): its
//! tokens are accepted; expired, wrong-audience, wrong-issuer, unknown-key,
//! `alg: none`, tampered and shared-secret tokens get 401 with an
//! `invalid_token` challenge, no token a 401 whose `resource_metadata` is
//! the protected resource metadata; a token without a tool's
//! `requiredScopes` gets 403 `insufficient_scope` naming them (read from
//! the body, and from `Mcp-Name` on 2026-07-28 requests); a key rotated at
//! the provider is followed.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use mcpgraph_tests::oidc::{Key, Provider, ProviderConfig};
use mcpgraph_tests::*;
use serde_json::{Value, json};

/// The compiled `graphs/oauth.yaml`.
fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_oauth_fixture"))
}

const OTHER_RESOURCE: &str = "https://other.example/mcp";

/// A stateless `tools/call` of `tool` with `token` (if any) and `extra`
/// headers.
async fn call(
    server: &HttpServer,
    token: Option<&str>,
    tool: &str,
    extra: &[(&str, &str)],
) -> HttpResponse {
    let body = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": tool, "arguments": { "text": "hi" } }
    })
    .to_string();
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = extra.to_vec();
    if let Some(b) = &bearer {
        headers.push(("Authorization", b));
    }
    post_mcp(server.addr, &headers, &body).await
}

/// The `WWW-Authenticate` value of `r`.
fn challenge(r: &HttpResponse) -> &str {
    r.header("www-authenticate")
        .unwrap_or_else(|| panic!("no WWW-Authenticate: {r:?}"))
}

/// `token` with its payload's claims changed by `edit` (signature kept).
fn tampered(token: &str, edit: impl FnOnce(&mut Value)) -> String {
    let parts: Vec<&str> = token.split('.').collect();
    let mut claims: Value = serde_json::from_slice(&B64.decode(parts[1]).unwrap()).unwrap();
    edit(&mut claims);
    let payload = B64.encode(claims.to_string());
    format!("{}.{payload}.{}", parts[0], parts[2])
}

/// `token`'s payload signed anew with `header` (as JSON) and `key`.
fn resigned(token: &str, header: jsonwebtoken::Header, key: &jsonwebtoken::EncodingKey) -> String {
    let payload = token.split('.').nth(1).unwrap();
    let claims: Value = serde_json::from_slice(&B64.decode(payload).unwrap()).unwrap();
    jsonwebtoken::encode(&header, &claims, key).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_tokens_are_validated_against_the_issuer() {
    let dir = TempDir::new("oauth");
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let first_key = Key::generate("ES256");
    let key_file = dir.path().join("key1.json");
    first_key.write_private(&key_file);
    let config = ProviderConfig {
        resources: vec![resource.clone(), OTHER_RESOURCE.into()],
        scopes: vec!["mcp:tools".into(), "tools:write".into()],
        limited_scopes: vec!["mcp:tools".into()],
        key_file: Some(key_file.clone()),
        ..ProviderConfig::default()
    };
    let provider = Provider::start(config.clone()).await;
    let issuer = provider.issuer.clone();
    let mut cmd = tokio::process::Command::new(fixture());
    let addr = format!("127.0.0.1:{port}");
    let flags = [
        "--stateless",
        "--oauth-issuer",
        &issuer,
        "--oauth-resource",
        &resource,
        "--oauth-scopes",
        "mcp:tools",
        "--oauth-leeway-secs",
        "0",
    ];
    cmd.args(["serve", "--http", &addr])
        .args(flags)
        .kill_on_drop(true);
    let server = HttpServer::spawn("oauth_fixture", cmd, &flags).await;

    // No token: 401 naming the metadata, which is served there.
    let r = call(&server, None, "echo", &[]).await;
    assert_eq!(r.status, 401, "{r:?}");
    let metadata_url = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        challenge(&r),
        format!(r#"Bearer resource_metadata="{metadata_url}", scope="mcp:tools""#)
    );
    let expected = json!({
        "resource": resource,
        "authorization_servers": [issuer],
        "scopes_supported": ["mcp:tools"],
        "bearer_methods_supported": ["header"],
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = http_request(server.addr, "GET", path, &[], None).await;
        assert_eq!(r.status, 200, "{path}: {r:?}");
        let got: Value = serde_json::from_str(&r.body).expect("metadata JSON");
        assert_eq!(got, expected, "{path}");
    }

    // A provider token with every scope is accepted: a real call runs.
    let full = provider
        .token("full", &resource, "mcp:tools tools:write")
        .await;
    let r = call(&server, Some(&full), "write", &[]).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains(r#"\"written\":\"hi\""#), "{r:?}");

    // Without `write`'s tools:write: 403 naming every scope the call needs;
    // other tools still work.
    let limited = provider.token("limited", &resource, "mcp:tools").await;
    let r = call(&server, Some(&limited), "echo", &[]).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains(r#"\"echo\":\"hi\""#), "{r:?}");
    let insufficient = format!(
        r#"Bearer error="insufficient_scope", scope="mcp:tools tools:write", resource_metadata="{metadata_url}""#
    );
    let r = call(&server, Some(&limited), "write", &[]).await;
    assert_eq!(r.status, 403, "{r:?}");
    assert_eq!(challenge(&r), insufficient);
    assert!(!r.body.contains("written"), "{r:?}");
    let modern = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "write"),
    ];
    let r = call(&server, Some(&limited), "write", &modern).await;
    assert_eq!(r.status, 403, "Mcp-Name: {r:?}");
    assert_eq!(challenge(&r), insufficient);

    // Refused with 401 invalid_token: ...
    let invalid = format!(
        r#"Bearer error="invalid_token", resource_metadata="{metadata_url}", scope="mcp:tools""#
    );
    let mut refused: Vec<(&str, String)> = Vec::new();
    // a token for another resource;
    refused.push((
        "wrong audience",
        provider.token("full", OTHER_RESOURCE, "mcp:tools").await,
    ));
    // a token from another issuer with the same key;
    let elsewhere = Provider::start(config.clone()).await;
    assert_ne!(elsewhere.issuer, issuer);
    refused.push((
        "wrong issuer",
        elsewhere.token("full", &resource, "mcp:tools").await,
    ));
    // an expired one (the issuer's name and key, a 5 s lifetime: accepted
    // at first, refused once past its `exp`);
    let short = Provider::start(ProviderConfig {
        issuer: Some(issuer.clone()),
        ttl_secs: Some(5),
        ..config.clone()
    })
    .await;
    let expired = short.token("full", &resource, "mcp:tools").await;
    let valid_short = call(&server, Some(&expired), "echo", &[]).await;
    assert_eq!(
        valid_short.status, 200,
        "before it expires: {valid_short:?}"
    );
    let exp = jsonwebtoken::dangerous::insecure_decode::<Value>(&expired)
        .unwrap()
        .claims["exp"]
        .as_u64()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let past_exp = Duration::from_secs(exp + 1).saturating_sub(now);
    tokio::time::sleep(past_exp + Duration::from_millis(500)).await;
    refused.push(("expired", expired));
    // one signed with a key the issuer does not have;
    let stranger = Key::generate("ES256");
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.typ = Some("at+jwt".into());
    header.kid = Some(stranger.kid().into());
    let stranger_key = jsonwebtoken::EncodingKey::from_ec_pem(stranger.pem.as_bytes()).unwrap();
    refused.push((
        "unknown key",
        resigned(&full, header.clone(), &stranger_key),
    ));
    // the same, claiming the issuer's kid;
    header.kid = Some(first_key.kid().into());
    refused.push(("wrong key", resigned(&full, header, &stranger_key)));
    // `alg: none`;
    let none_header = json!({"alg": "none", "typ": "at+jwt", "kid": first_key.kid()});
    let payload = full.split('.').nth(1).unwrap();
    let none = format!("{}.{payload}.", B64.encode(none_header.to_string()));
    refused.push(("alg none", none));
    // HS256 with the issuer's public key as the secret;
    let mut hs = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    hs.kid = Some(first_key.kid().into());
    let secret = jsonwebtoken::EncodingKey::from_secret(first_key.public.to_string().as_bytes());
    refused.push(("HS256", resigned(&full, hs, &secret)));
    // a tampered payload.
    refused.push((
        "tampered",
        tampered(&limited, |c| c["scope"] = "mcp:tools tools:write".into()),
    ));
    for (what, token) in &refused {
        let r = call(&server, Some(token), "echo", &[]).await;
        assert_eq!(r.status, 401, "{what}: {r:?}");
        assert_eq!(challenge(&r), invalid, "{what}");
        assert!(!r.body.contains("echo"), "{what}: {r:?}");
    }
    let r = call(&server, Some("not-a-jwt"), "echo", &[]).await;
    assert_eq!(r.status, 401, "{r:?}");
    // Tokens never reach the logs.
    let stderr = server.stderr();
    for (what, token) in &refused {
        assert!(!stderr.contains(token.as_str()), "{what} logged:\n{stderr}");
    }
    assert!(!stderr.contains(&full), "token logged:\n{stderr}");

    // Key rotation: the provider restarts (same port and issuer) with a new
    // key; its tokens are accepted once the server fetched the new set (an
    // unknown kid fetches it, at most once per 5 s).
    let second_key = Key::generate("RS256");
    let key_file = dir.path().join("key2.json");
    second_key.write_private(&key_file);
    let provider = provider.restart_with_key(&key_file).await;
    let rotated = provider.token("full", &resource, "mcp:tools").await;
    assert_eq!(
        jsonwebtoken::decode_header(&rotated)
            .unwrap()
            .kid
            .as_deref(),
        Some(second_key.kid())
    );
    let start = Instant::now();
    loop {
        let r = call(&server, Some(&rotated), "echo", &[]).await;
        if r.status == 200 {
            assert!(r.body.contains(r#"\"echo\":\"hi\""#), "{r:?}");
            break;
        }
        assert_eq!(r.status, 401, "{r:?}");
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the rotated key is still refused after {:?}",
            start.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // The old key is gone from the issuer's set: its tokens no longer pass.
    let r = call(&server, Some(&full), "echo", &[]).await;
    assert_eq!(r.status, 401, "a token of the withdrawn key: {r:?}");
    drop((short, elsewhere));
    server.stop().await;
}
