//! What a client is told: the protected resource metadata (RFC 9728) and
//! the `WWW-Authenticate` challenges (RFC 6750 §3) of a 401 (no token, or
//! an invalid one: no more detail than `invalid_token`) and of a 403
//! (`insufficient_scope`, naming every scope the request needs).

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

use crate::{Body, plain};

/// The path of the metadata of a resource at the server's root.
pub(super) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document and the challenges' common parts.
pub(super) struct Challenges {
    /// The metadata document (JSON).
    metadata: Bytes,
    /// `resource_metadata="…"`.
    metadata_param: String,
    /// `scope="…"` of a 401 (the scopes every request needs), if any.
    scope_param: Option<String>,
}

impl Challenges {
    /// For `resource` (its canonical URL, as given and as parsed), whose
    /// tokens come from `issuer`, every request needing `scopes`.
    pub(super) fn new(resource: (&str, &url::Url), issuer: &str, scopes: &[String]) -> Challenges {
        let (given, resource) = resource;
        let metadata = serde_json::json!({
            "resource": given,
            "authorization_servers": [issuer],
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
        });
        Challenges {
            metadata: Bytes::from(metadata.to_string()),
            metadata_param: format!("resource_metadata=\"{}\"", metadata_url(resource)),
            scope_param: (!scopes.is_empty()).then(|| format!("scope=\"{}\"", scopes.join(" "))),
        }
    }

    /// The metadata document, as `GET` gets it.
    pub(super) fn metadata(&self) -> Response<Body> {
        let mut response = Response::new(Full::new(self.metadata.clone()).boxed());
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("max-age=300"),
        );
        response
    }

    /// A 401: no token (`token_sent` false) or an invalid one.
    pub(super) fn unauthorized(&self, token_sent: bool) -> Response<Body> {
        let mut params = Vec::with_capacity(3);
        if token_sent {
            params.push("error=\"invalid_token\"");
        }
        params.push(&self.metadata_param);
        if let Some(scope) = &self.scope_param {
            params.push(scope);
        }
        challenge(
            StatusCode::UNAUTHORIZED,
            "unauthorized\n",
            &params.join(", "),
        )
    }

    /// A 403 for a token without some of `needed` (all the scopes the
    /// request needs).
    pub(super) fn insufficient_scope(&self, needed: &[&str]) -> Response<Body> {
        let scope = format!("scope=\"{}\"", needed.join(" "));
        let params = ["error=\"insufficient_scope\"", &scope, &self.metadata_param];
        challenge(
            StatusCode::FORBIDDEN,
            "insufficient scope\n",
            &params.join(", "),
        )
    }
}

/// A 503 while the issuer's keys cannot be fetched: not the client's
/// fault, and worth a retry.
pub(super) fn keys_unavailable() -> Response<Body> {
    let mut response = plain(
        StatusCode::SERVICE_UNAVAILABLE,
        "cannot check access tokens yet: the authorization server's keys are unavailable\n",
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

fn challenge(status: StatusCode, text: &'static str, params: &str) -> Response<Body> {
    let mut response = plain(status, text);
    let value = format!("Bearer {params}");
    if let Ok(value) = HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// Where `resource`'s metadata is (RFC 9728 §3.1): the well-known path
/// inserted between the origin and the resource's path.
pub(super) fn metadata_url(resource: &url::Url) -> String {
    format!(
        "{}{WELL_KNOWN}{}",
        resource.origin().ascii_serialization(),
        metadata_path_suffix(resource)
    )
}

/// The resource's path as the metadata path's suffix (empty for `/`).
pub(super) fn metadata_path_suffix(resource: &url::Url) -> &str {
    resource.path().trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_path() {
        let url = |s: &str| metadata_url(&url::Url::parse(s).unwrap());
        assert_eq!(
            url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            url("http://127.0.0.1:8080/"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            url("https://h.example:8443/a/mcp"),
            "https://h.example:8443/.well-known/oauth-protected-resource/a/mcp"
        );
    }
}
