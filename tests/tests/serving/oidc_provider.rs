//! The tests' authorization server itself (`tests/oidc/provider.mjs`,
//! oidc-provider from peers/): every kind of client-credentials client gets
//! a JWT access token for the resource it names, signed by a key of the
//! provider's JWKS, with the issuer, audience, scopes and lifetime asked;
//! a client is refused a scope it may not ask for and a resource the
//! provider does not know.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, jwk::Jwk};
use mcpgraph_tests::TempDir;
use mcpgraph_tests::oidc::{Key, Provider, ProviderConfig};
use serde_json::{Value, json};

const RESOURCE: &str = "http://127.0.0.1:1/mcp";

/// `token`'s claims, checked against `jwks` for `issuer` and `audience`.
fn verified(token: &str, jwks: &Value, issuer: &str, audience: &str) -> Value {
    let header = jsonwebtoken::decode_header(token).expect("a JWT");
    assert_eq!(header.typ.as_deref(), Some("at+jwt"), "RFC 9068 typ");
    let kid = header.kid.clone().expect("kid");
    let jwk = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == kid.as_str())
        .unwrap_or_else(|| panic!("kid {kid} not in {jwks}"));
    let jwk: Jwk = serde_json::from_value(jwk.clone()).unwrap();
    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[audience]);
    jsonwebtoken::decode::<Value>(token, &DecodingKey::from_jwk(&jwk).unwrap(), &validation)
        .expect("the token verifies")
        .claims
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_issues_jwt_access_tokens_to_every_client_kind() {
    let dir = TempDir::new("oidc-provider");
    let client_key = Key::generate("ES256");
    let client_jwks = dir.path().join("client-jwks.json");
    client_key.write_public_jwks(&client_jwks);
    let other = "https://downstream.example/mcp";
    let provider = Provider::start(ProviderConfig {
        resources: vec![RESOURCE.into(), other.into()],
        ttl_secs: Some(7),
        scopes: vec!["mcp:tools".into(), "tools:write".into()],
        limited_scopes: vec!["mcp:tools".into()],
        client_jwks_file: Some(client_jwks),
        ..ProviderConfig::default()
    })
    .await;
    let issuer = provider.issuer.clone();

    // client_secret_basic, all scopes.
    let token = provider
        .token("full", RESOURCE, "mcp:tools tools:write")
        .await;
    let claims = verified(&token, &provider.jwks, &issuer, RESOURCE);
    assert_eq!(claims["scope"], "mcp:tools tools:write", "{claims}");
    assert_eq!(claims["client_id"], "full", "{claims}");
    let life = claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap();
    assert_eq!(life, 7, "TTL: {claims}");

    // client_secret_post, for the other resource.
    let r = provider
        .token_request(
            &[
                ("grant_type", "client_credentials"),
                ("client_id", "post"),
                ("client_secret", "post-secret"),
                ("resource", other),
                ("scope", "mcp:tools"),
            ],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let v: Value = serde_json::from_str(&r.body).unwrap();
    let claims = verified(
        v["access_token"].as_str().unwrap(),
        &provider.jwks,
        &issuer,
        other,
    );
    assert_eq!(claims["client_id"], "post", "{claims}");

    // private_key_jwt: an ES256 client assertion.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(client_key.kid().to_owned());
    let assertion = jsonwebtoken::encode(
        &header,
        &json!({
            "iss": "pkjwt", "sub": "pkjwt", "aud": issuer,
            "jti": format!("a-{now}"), "iat": now, "exp": now + 60,
        }),
        &EncodingKey::from_ec_pem(client_key.pem.as_bytes()).unwrap(),
    )
    .unwrap();
    let r = provider
        .token_request(
            &[
                ("grant_type", "client_credentials"),
                (
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                ),
                ("client_assertion", &assertion),
                ("resource", RESOURCE),
                ("scope", "tools:write"),
            ],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "private_key_jwt: {r:?}");
    let v: Value = serde_json::from_str(&r.body).unwrap();
    let claims = verified(
        v["access_token"].as_str().unwrap(),
        &provider.jwks,
        &issuer,
        RESOURCE,
    );
    assert_eq!(claims["client_id"], "pkjwt", "{claims}");

    // `limited` may not ask for tools:write; nobody for an unknown resource;
    // a wrong secret is refused.
    let r = provider
        .token_request(
            &[
                ("grant_type", "client_credentials"),
                ("scope", "tools:write"),
            ],
            Some(("limited", "limited-secret")),
        )
        .await;
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.body.contains("invalid_scope"), "{r:?}");
    let token = provider.token("limited", RESOURCE, "mcp:tools").await;
    let claims = verified(&token, &provider.jwks, &issuer, RESOURCE);
    assert_eq!(claims["scope"], "mcp:tools", "{claims}");
    let r = provider
        .token_request(
            &[
                ("grant_type", "client_credentials"),
                ("resource", "http://unknown.example/mcp"),
            ],
            Some(("full", "full-secret")),
        )
        .await;
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.body.contains("invalid_target"), "{r:?}");
    let r = provider
        .token_request(
            &[("grant_type", "client_credentials")],
            Some(("full", "wrong")),
        )
        .await;
    assert_eq!(r.status, 401, "{r:?}");

    // A restart with another key keeps port and issuer, signs with the new key.
    let rotated = Key::generate("RS256");
    let key_file = dir.path().join("rotated.json");
    rotated.write_private(&key_file);
    let port = provider.port;
    let provider = provider.restart_with_key(&key_file).await;
    assert_eq!(
        (provider.port, provider.issuer.as_str()),
        (port, &issuer[..])
    );
    let token = provider.token("full", RESOURCE, "mcp:tools").await;
    let header = jsonwebtoken::decode_header(&token).unwrap();
    assert_eq!(header.kid.as_deref(), Some(rotated.kid()));
    assert_eq!(header.alg, Algorithm::RS256);
    verified(&token, &provider.jwks, &issuer, RESOURCE);
}
