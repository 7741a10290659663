//! Where a person's tokens for a server are kept between runs: one file per
//! server URL and client under `$XDG_DATA_HOME/mcpgraph/oauth`
//! (`~/.local/share/...` when unset), readable by the user only (directory
//! 0700, file 0600), written whole to a temporary file of its own (never an
//! existing file, never through a link) and renamed. A directory another
//! user owns, or its group or others may write to, is refused: whoever can
//! write there can replace the tokens. A refresh holds a lock on a file
//! beside it, so that processes sharing the tokens (a served graph and
//! `call`, replicas on one host) do not refresh at once and revoke each
//! other's rotated refresh tokens; it waits for another process's lock for
//! [`LOCK_WAIT`] at most.

use super::error::TokenError;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, InMemoryCredentialStore, StoredCredentials,
};
use sha2::Digest as _;

/// Where a server's tokens are kept.
#[derive(Clone)]
pub(crate) enum Store {
    File(FileStore),
    Memory(InMemoryCredentialStore),
}

#[async_trait::async_trait]
impl CredentialStore for Store {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match self {
            Store::File(s) => s.load().await,
            Store::Memory(s) => s.load().await,
        }
    }
    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        if let Some(response) = &credentials.token_response {
            remember_tokens(response);
        }
        match self {
            Store::File(s) => s.save(credentials).await,
            Store::Memory(s) => s.save(credentials).await,
        }
    }
    async fn clear(&self) -> Result<(), AuthError> {
        match self {
            Store::File(s) => s.clear().await,
            Store::Memory(s) => s.clear().await,
        }
    }
    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        match self {
            Store::File(s) => s.acquire_refresh_guard().await,
            Store::Memory(s) => s.acquire_refresh_guard().await,
        }
    }
}

/// The tokens of the server at one URL, in a file.
#[derive(Clone)]
pub(crate) struct FileStore {
    path: PathBuf,
    /// The file as last read, by its modification time and length: rmcp
    /// loads the credentials for every request, and a file another
    /// process has not rewritten since is not read and parsed again.
    cache: Arc<Mutex<Option<Cached>>>,
    /// How long a refresh waits for another process's lock.
    lock_wait: Duration,
}

/// How long a refresh waits for the lock another process holds (its
/// refresh takes one token request, bounded at 30 s).
const LOCK_WAIT: Duration = Duration::from_secs(60);
/// How often a refresh waiting for the lock tries it again.
const LOCK_POLL: Duration = Duration::from_millis(50);

struct Cached {
    stamp: (SystemTime, u64),
    credentials: StoredCredentials,
}

impl FileStore {
    /// The store of the server at `url` for the client `client` (the
    /// graph's `clientId` or `clientMetadataUrl`; `None` for a client
    /// registered dynamically, whose file is named by the URL alone, as
    /// all were before the client was part of the name).
    pub(crate) fn for_server(url: &str, client: Option<&str>) -> Result<FileStore, TokenError> {
        let dir = directory()?;
        let mut digest = sha2::Sha256::new();
        digest.update(url.as_bytes());
        if let Some(client) = client {
            digest.update(b"\0");
            digest.update(client.as_bytes());
        }
        let digest = digest.finalize();
        let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        Ok(FileStore {
            path: dir.join(format!("{name}.json")),
            cache: Arc::default(),
            lock_wait: LOCK_WAIT,
        })
    }

    /// The file (for `auth status`).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn forget_cached(&self) {
        if let Ok(mut cache) = self.cache.lock() {
            *cache = None;
        }
    }

    fn lock_path(&self) -> PathBuf {
        self.path.with_extension("lock")
    }
}

/// `$XDG_DATA_HOME/mcpgraph/oauth`, or `$HOME/.local/share/mcpgraph/oauth`.
fn directory() -> Result<PathBuf, TokenError> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .ok_or_else(|| {
                    TokenError::Store(
                        "neither XDG_DATA_HOME nor HOME is set: no place to keep tokens".to_owned(),
                    )
                })?;
            PathBuf::from(home).join(".local/share")
        }
    };
    Ok(base.join("mcpgraph").join("oauth"))
}

fn store_error(what: &str, path: &Path, e: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(format!("{what} {}: {e}", path.display()))
}

/// Refuses the token directory `dir` when another user owns it or its
/// group or others may write to it (a directory not made yet passes).
fn check_directory(dir: &Path) -> Result<(), AuthError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let metadata = match std::fs::metadata(dir) {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(store_error("reading", dir, e)),
        };
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if metadata.uid() != me {
            return Err(AuthError::CredentialStoreError(format!(
                "the token directory {} is owned by uid {}, not by this user (uid {me}): refused, \
                 since its owner can read and replace the tokens; make it this user's or set \
                 XDG_DATA_HOME elsewhere",
                dir.display(),
                metadata.uid()
            )));
        }
        if metadata.mode() & 0o022 != 0 {
            return Err(AuthError::CredentialStoreError(format!(
                "the token directory {} has mode {:o}: its group or others can write to it, \
                 and so replace the tokens: refused (`chmod go-w` it)",
                dir.display(),
                metadata.mode() & 0o7777
            )));
        }
    }
    Ok(())
}

#[async_trait::async_trait]
impl CredentialStore for FileStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        if let Some(dir) = self.path.parent() {
            check_directory(dir)?;
        }
        // A stat (microseconds on a local file) tells whether the cache
        // still holds the file.
        let stamp = match std::fs::metadata(&self.path) {
            Ok(m) => (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.forget_cached();
                return Ok(None);
            }
            Err(e) => return Err(store_error("reading", &self.path, e)),
        };
        if let Ok(cache) = self.cache.lock()
            && let Some(cached) = cache.as_ref().filter(|c| c.stamp == stamp)
        {
            return Ok(Some(cached.credentials.clone()));
        }
        let path = self.path.clone();
        let read = tokio::task::spawn_blocking(move || match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<StoredCredentials>(&bytes)
                .map(Some)
                .map_err(|e| store_error("reading", &path, e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(store_error("reading", &path, e)),
        });
        let loaded = read
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))??;
        // The stamp was taken before the read: a file rewritten in between
        // is read again next time.
        if let (Some(credentials), Ok(mut cache)) = (&loaded, self.cache.lock()) {
            *cache = Some(Cached {
                stamp,
                credentials: credentials.clone(),
            });
        }
        Ok(loaded)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.forget_cached();
        let bytes = serde_json::to_vec_pretty(&credentials)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || write_private(&path, &bytes))
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.forget_cached();
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(store_error("removing", &self.path, e)),
        }
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let path = self.lock_path();
        let opened = tokio::task::spawn_blocking(move || {
            create_private_dir(&path)?;
            let file = private_options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| store_error("opening", &path, e))?;
            Ok::<_, AuthError>((path, file))
        });
        let (path, file) = opened
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))??;
        let deadline = tokio::time::Instant::now() + self.lock_wait;
        loop {
            match file.try_lock() {
                // Dropping the file releases its lock.
                Ok(()) => return Ok(Some(CredentialRefreshGuard::new(file))),
                Err(std::fs::TryLockError::WouldBlock)
                    if tokio::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(LOCK_POLL).await;
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(AuthError::CredentialStoreError(format!(
                        "another process holds the refresh lock {} for more than {:.1} s \
                         (its refresh may hang): the tokens are not refreshed here",
                        path.display(),
                        self.lock_wait.as_secs_f64()
                    )));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(store_error("locking", &path, e));
                }
            }
        }
    }
}

/// The access and refresh tokens of `response`, remembered as secrets
/// until they expire (rmcp holds them, not us: no guard to drop).
fn remember_tokens(response: &rmcp::transport::auth::OAuthTokenResponse) {
    use mcpgraph_runtime::host::remember_token;
    use oauth2::TokenResponse as _;
    let access = response.access_token().secret();
    remember_token("oauth access token", access, response.expires_in()).until_expiry();
    if let Some(refresh) = response.refresh_token() {
        remember_token("oauth refresh token", refresh.secret(), None).until_expiry();
    }
}

/// Options that make a file (mode 0600) and never open one through a link.
fn private_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options
}

fn create_private_dir(file: &Path) -> Result<(), AuthError> {
    let Some(dir) = file.parent() else {
        return Ok(());
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .map_err(|e| store_error("creating", dir, e))?;
    check_directory(dir)
}

/// Writes `bytes` to `path` (mode 0600) through a temporary file renamed
/// over it, so a reader never sees half a file.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), AuthError> {
    use std::io::Write as _;
    create_private_dir(path)?;
    let (temp, mut file) = temporary_file(path)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| store_error("writing", &temp, e))
        .and_then(|()| std::fs::rename(&temp, path).map_err(|e| store_error("writing", path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// A new file beside `path` for its next content, made by this call
/// (`O_EXCL`, `O_NOFOLLOW`): a name another file or a link holds already
/// (one left by a process that died, or planted) is passed over.
fn temporary_file(path: &Path) -> Result<(PathBuf, std::fs::File), AuthError> {
    let pid = std::process::id();
    for n in 0..16 {
        let temp = path.with_extension(match n {
            0 => format!("tmp{pid}"),
            n => format!("tmp{pid}-{n}"),
        });
        match private_options().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(store_error("writing", &temp, e)),
        }
    }
    Err(store_error(
        "writing",
        path,
        "16 temporary names beside it are taken: remove the `.tmp*` files there",
    ))
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
