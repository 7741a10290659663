//! `serve --http`'s inbound OAuth flags (docs/OPERATING.md, "OAuth").

use mcpgraph_oauth::jwt::Algorithm;

use super::ArgError;
use crate::{DEFAULT_ALGORITHMS, DEFAULT_LEEWAY_SECS, OAuthOptions};

#[derive(clap::Args, Debug)]
pub(crate) struct OAuthArgs {
    /// Accept OAuth access tokens (JWTs) from this authorization server
    /// (its issuer URL) instead of a static token; its keys are found
    /// through its metadata (RFC 8414, then OpenID Connect discovery).
    /// HTTP only.
    #[arg(
        long,
        value_name = "URL",
        requires_all = ["http", "oauth_resource"],
        conflicts_with = "auth_token_env"
    )]
    pub(crate) oauth_issuer: Option<String>,

    /// This server's canonical MCP URL as clients reach it (e.g.
    /// https://mcp.example.com/mcp): the protected resource metadata's
    /// `resource` and the default audience. Never taken from `Host`.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    pub(crate) oauth_resource: Option<String>,

    /// An `aud` value tokens may carry (default: --oauth-resource).
    /// Repeatable.
    #[arg(long = "oauth-audience", value_name = "AUD", requires = "oauth_issuer")]
    pub(crate) oauth_audiences: Vec<String>,

    /// The issuer's JWK set URL, instead of the one its metadata gives.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    pub(crate) oauth_jwks_url: Option<String>,

    /// Scopes every request's token needs (space-separated), advertised as
    /// `scopes_supported`.
    #[arg(long, value_name = "SCOPES", requires = "oauth_issuer")]
    pub(crate) oauth_scopes: Option<String>,

    /// Signature algorithms accepted (comma-separated; default: RS256,
    /// RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA). Shared-
    /// secret (HS*) algorithms and `none` are never accepted.
    #[arg(
        long,
        value_name = "ALGS",
        value_delimiter = ',',
        value_parser = parse_algorithm,
        requires = "oauth_issuer"
    )]
    pub(crate) oauth_algorithms: Vec<Algorithm>,

    /// Seconds of clock skew allowed on a token's `exp` and `nbf`.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_LEEWAY_SECS)]
    pub(crate) oauth_leeway_secs: u64,
}

/// No OAuth: what clap gives without the flags.
impl Default for OAuthArgs {
    fn default() -> Self {
        Self {
            oauth_issuer: None,
            oauth_resource: None,
            oauth_audiences: Vec::new(),
            oauth_jwks_url: None,
            oauth_scopes: None,
            oauth_algorithms: Vec::new(),
            oauth_leeway_secs: DEFAULT_LEEWAY_SECS,
        }
    }
}

impl OAuthArgs {
    /// The settings, when `--oauth-issuer` is given.
    pub(crate) fn options(&self) -> Option<OAuthOptions> {
        let issuer = self.oauth_issuer.clone()?;
        Some(OAuthOptions {
            issuer,
            resource: self.oauth_resource.clone().unwrap_or_default(),
            audiences: self.oauth_audiences.clone(),
            jwks_url: self.oauth_jwks_url.clone(),
            scopes: self
                .oauth_scopes
                .iter()
                .flat_map(|s| s.split_whitespace())
                .map(str::to_owned)
                .collect(),
            algorithms: if self.oauth_algorithms.is_empty() {
                DEFAULT_ALGORITHMS.to_vec()
            } else {
                self.oauth_algorithms.clone()
            },
            leeway_secs: self.oauth_leeway_secs,
        })
    }
}

/// One of the asymmetric JWS algorithms.
fn parse_algorithm(text: &str) -> Result<Algorithm, ArgError> {
    let names = "RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 or EdDSA";
    match text.trim().parse::<Algorithm>() {
        Ok(alg) if DEFAULT_ALGORITHMS.contains(&alg) => Ok(alg),
        Ok(_) => Err(ArgError(format!(
            "`{text}` is a shared-secret algorithm, never accepted for access tokens (use {names})"
        ))),
        Err(_) => Err(ArgError(format!("`{text}` is not {names}"))),
    }
}

#[cfg(test)]
mod tests {
    fn serve(args: &[&str]) -> Result<super::OAuthArgs, clap::Error> {
        crate::args::tests::parse(args).map(|http| http.oauth)
    }

    #[test]
    fn oauth_flags_need_http_an_issuer_and_a_resource_and_exclude_the_static_token() {
        let ok = serve(&[
            "--http",
            "--oauth-issuer",
            "https://as.example",
            "--oauth-resource",
            "https://mcp.example/mcp",
            "--oauth-scopes",
            "a  b",
            "--oauth-algorithms",
            "ES256,RS256",
        ])
        .unwrap();
        let options = ok.options().unwrap();
        assert_eq!(options.scopes, ["a", "b"]);
        assert_eq!(options.algorithms.len(), 2);
        assert_eq!(options.leeway_secs, 60);
        for bad in [
            &[
                "--oauth-issuer",
                "https://as.example",
                "--oauth-resource",
                "https://r/mcp",
            ][..],
            &["--http", "--oauth-issuer", "https://as.example"],
            &["--http", "--oauth-resource", "https://r/mcp"],
            &[
                "--http",
                "--oauth-issuer",
                "https://a",
                "--oauth-resource",
                "https://r",
                "--auth-token-env",
                "T",
            ],
            &[
                "--http",
                "--oauth-issuer",
                "https://a",
                "--oauth-resource",
                "https://r",
                "--oauth-algorithms",
                "HS256",
            ],
            &[
                "--http",
                "--oauth-issuer",
                "https://a",
                "--oauth-resource",
                "https://r",
                "--oauth-algorithms",
                "none",
            ],
        ] {
            assert!(serve(bad).is_err(), "{bad:?}");
        }
    }
}
