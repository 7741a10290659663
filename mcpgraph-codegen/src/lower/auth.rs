//! Lowers a server's `auth` (an extension key of `http` and `sse`
//! servers): how the client manager gets OAuth tokens for it. Each key is
//! checked where it is; what passes is the format's [`Auth`], the value the
//! runtime gets (and `--mcp` files give).
//!
//! Secrets never reach the binary: a client secret, a private key, an IdP
//! client secret, an ID token and a workload's identity token are `${VAR}` references (expanded when the
//! server is first called) or file paths (`...File`, read then).

use mcpgraph_format::{Algorithm, Auth, Grant, TokenStore};
use serde_json::{Map, Value as Json};

use super::Cx;
use super::fields::Fields;
use crate::diag::codes;
use crate::yaml::{self, Value};

/// The keys of `auth` whose value is a plain string (not a secret).
const PLAIN: &[&str] = &["clientId", "clientMetadataUrl", "clientName", "issuer"];
/// The keys of `auth` holding a secret, each with its file form.
const SECRETS: &[(&str, &str)] = &[
    ("clientSecret", "clientSecretFile"),
    ("privateKey", "privateKeyFile"),
    ("assertion", "assertionFile"),
];
/// The keys of `auth.enterprise`: plain strings, then secrets.
const IDP_PLAIN: &[&str] = &["idpIssuer", "idpTokenEndpoint", "idpClientId"];
const IDP_SECRETS: &[(&str, &str)] = &[
    ("idpClientSecret", "idpClientSecretFile"),
    ("idToken", "idTokenFile"),
];

impl Cx<'_, '_> {
    /// `auth` of server `server` (of transport `kind`); `None` (with the
    /// problems reported) when it does not check.
    pub(super) fn auth(&mut self, node: &yaml::Node, server: &str, kind: &str) -> Option<Auth> {
        let context = format!(" in `auth` of server `{server}`");
        let mut allowed = vec!["grant", "scopes", "signingAlgorithm", "tokenStore"];
        allowed.extend(PLAIN);
        allowed.extend(SECRETS.iter().flat_map(|(k, f)| [*k, *f]));
        allowed.push("enterprise");
        let before = self.diags.error_count();
        let f = self.fields(node, "`auth`", &allowed, &context)?;
        let mut out = Map::new();
        let grant = match f.get("grant") {
            None => "authorization_code".to_owned(),
            Some(n) => self.one_of(n, "`grant`", &Grant::ALL.map(Grant::name))?,
        };
        let grant_pos = f.get("grant").map_or(f.pos, |n| n.pos);
        if grant == "token_exchange" && kind == "sse" {
            self.err(
                codes::AUTH_GRANT,
                grant_pos,
                format!(
                    "`grant: token_exchange` is not for `sse` servers{context}: the legacy \
                     transport sends every message with one token, which cannot carry each \
                     caller's identity (use `type: http`)"
                ),
            );
        }
        out.insert("grant".into(), Json::String(grant.clone()));
        for key in PLAIN {
            if let Some(s) = self.optional_string(&f, key) {
                out.insert((*key).into(), Json::String(s.value));
            }
        }
        for (key, file) in SECRETS {
            self.secret(&f, key, file, &mut out);
        }
        if let Some(n) = f.get("scopes") {
            let scopes = self.string_list(n, "`scopes`");
            out.insert(
                "scopes".into(),
                scopes.into_iter().map(Json::String).collect(),
            );
        }
        if let Some(n) = f.get("signingAlgorithm")
            && let Some(alg) = self.one_of(
                n,
                "`signingAlgorithm`",
                &Algorithm::ALL.map(Algorithm::name),
            )
        {
            out.insert("signingAlgorithm".into(), Json::String(alg));
        }
        if let Some(n) = f.get("tokenStore")
            && let Some(store) =
                self.one_of(n, "`tokenStore`", &TokenStore::ALL.map(TokenStore::name))
        {
            out.insert("tokenStore".into(), Json::String(store));
        }
        if let Some(n) = f.get("enterprise")
            && let Some(idp) = self.enterprise(n, server)
        {
            out.insert("enterprise".into(), Json::Object(idp));
        }
        let needs_issuer = Grant::ALL
            .into_iter()
            .any(|g| g.name() == grant && g.needs_issuer());
        if needs_issuer && !out.contains_key("issuer") {
            self.err(
                codes::AUTH_GRANT,
                grant_pos,
                format!(
                    "the `{grant}` grant needs `issuer`{context}: name the authorization server \
                     its tokens come from (its issuer URL); a server never chooses where the \
                     graph's credentials or a caller's token go"
                ),
            );
        }
        if let Some(n) = f.get("issuer")
            && let Value::String(issuer) = &n.value
            && !issuer.contains("${")
            && !(issuer.starts_with("https://") || issuer.starts_with("http://"))
        {
            self.err(
                codes::AUTH_ISSUER,
                n.pos,
                format!("`issuer`{context} must be an https (or http) URL, found `{issuer}`"),
            );
        }
        self.grant_needs(&f, &grant, &out, &context);
        if self.diags.error_count() > before {
            return None;
        }
        // Every key was checked above: the format reads what passed.
        match serde_json::from_value(Json::Object(out)) {
            Ok(auth) => Some(auth),
            Err(e) => {
                self.err(codes::AUTH_GRANT, f.pos, format!("`auth`{context}: {e}"));
                None
            }
        }
    }

    /// `auth.enterprise`: the identity provider an ID token is exchanged at.
    fn enterprise(&mut self, node: &yaml::Node, server: &str) -> Option<Map<String, Json>> {
        let context = format!(" in `auth.enterprise` of server `{server}`");
        let mut allowed: Vec<&str> = IDP_PLAIN.to_vec();
        allowed.extend(IDP_SECRETS.iter().flat_map(|(k, f)| [*k, *f]));
        let f = self.fields(node, "`auth.enterprise`", &allowed, &context)?;
        let mut out = Map::new();
        for key in IDP_PLAIN {
            if let Some(s) = self.required_string(&f, key, &context) {
                out.insert((*key).into(), Json::String(s.value));
            }
        }
        for (key, file) in IDP_SECRETS {
            self.secret(&f, key, file, &mut out);
        }
        if !out.contains_key("idToken") && !out.contains_key("idTokenFile") {
            self.missing(&f, "idToken", &context);
        }
        Some(out)
    }

    /// A secret given as `key` (a `${VAR}` reference) or as `file` (a path):
    /// at most one of them, and never a value written in the graph.
    fn secret(&mut self, f: &Fields<'_>, key: &str, file: &str, out: &mut Map<String, Json>) {
        if let (Some(_), Some(pos)) = (f.get(key), f.key_pos(file)) {
            self.err(
                codes::SECRET_SOURCE,
                pos,
                format!("give `{key}` or `{file}`, not both"),
            );
            return;
        }
        if let Some(node) = f.get(key)
            && let Some(value) = self.string(node, &format!("`{key}`"))
        {
            if value.value.contains("${") {
                out.insert(key.into(), Json::String(value.value));
            } else {
                self.err(
                    codes::SECRET_SOURCE,
                    value.pos,
                    format!(
                        "`{key}` must come from the environment (`\"${{VAR}}\"`) or a file \
                         (`{file}`): a value written here would be compiled into the binary"
                    ),
                );
            }
        }
        if let Some(path) = self.optional_string(f, file) {
            out.insert(file.into(), Json::String(path.value));
        }
    }

    /// What each grant needs: client credentials a client id and a secret or
    /// a key; the enterprise grant an identity provider; the JWT bearer
    /// grant an assertion (and no client secret: it is a public client); a
    /// private key only with client credentials, an assertion only with the
    /// JWT bearer grant.
    fn grant_needs(&mut self, f: &Fields<'_>, grant: &str, out: &Map<String, Json>, context: &str) {
        let has = |k: &str| out.contains_key(k);
        let key = has("privateKey") || has("privateKeyFile");
        let secret = has("clientSecret") || has("clientSecretFile");
        match grant {
            "client_credentials" => {
                if !has("clientId") {
                    self.missing(f, "clientId", context);
                }
                if !key && !secret {
                    self.err(
                        codes::AUTH_GRANT,
                        f.pos,
                        format!(
                            "the `client_credentials` grant needs `clientSecret` (or \
                             `clientSecretFile`) or `privateKey` (or `privateKeyFile`){context}"
                        ),
                    );
                }
                if key && secret {
                    self.err(
                        codes::AUTH_GRANT,
                        f.pos,
                        format!("give a client secret or a private key, not both{context}"),
                    );
                }
            }
            "token_exchange" => {
                if !has("clientId") {
                    self.missing(f, "clientId", context);
                }
                if !secret {
                    self.err(
                        codes::AUTH_GRANT,
                        f.pos,
                        format!(
                            "the `token_exchange` grant needs `clientSecret` (or \
                             `clientSecretFile`): the graph authenticates as a client of the \
                             authorization server{context}"
                        ),
                    );
                }
            }
            "enterprise" => {
                if !has("clientId") {
                    self.missing(f, "clientId", context);
                }
                if !has("enterprise") && f.get("enterprise").is_none() {
                    self.missing(f, "enterprise", context);
                }
            }
            "jwt_bearer" => {
                if !has("assertion") && !has("assertionFile") {
                    self.missing(f, "assertion", context);
                }
                if let Some(pos) = f.key_pos("clientSecret").or(f.key_pos("clientSecretFile")) {
                    self.err(
                        codes::AUTH_GRANT,
                        pos,
                        "the `jwt_bearer` grant authenticates with its assertion: no client secret",
                    );
                }
            }
            _ => {}
        }
        if grant != "jwt_bearer"
            && let Some(pos) = f.key_pos("assertion").or(f.key_pos("assertionFile"))
        {
            self.err(
                codes::AUTH_GRANT,
                pos,
                "`assertion` goes with `grant: jwt_bearer`",
            );
        }
        if grant != "client_credentials"
            && let Some(pos) = f.key_pos("privateKey").or(f.key_pos("privateKeyFile"))
        {
            self.err(
                codes::AUTH_GRANT,
                pos,
                "a private key signs client assertions of the `client_credentials` grant only",
            );
        }
        if grant != "client_credentials"
            && let Some(pos) = f.key_pos("signingAlgorithm")
            && !key
        {
            self.err(
                codes::AUTH_GRANT,
                pos,
                "`signingAlgorithm` goes with `privateKey` or `privateKeyFile`",
            );
        }
        if grant != "enterprise"
            && let Some(pos) = f.key_pos("enterprise")
        {
            self.err(
                codes::AUTH_GRANT,
                pos,
                "`enterprise` goes with `grant: enterprise`",
            );
        }
    }
}

#[cfg(test)]
#[path = "auth_tests.rs"]
mod tests;
