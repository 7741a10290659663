//! Where a person's tokens for a server are kept between runs: one file per
//! server URL under `$XDG_DATA_HOME/mcpgraph/oauth` (`~/.local/share/...`
//! when unset), readable by the user only (directory 0700, file 0600),
//! written whole to a temporary file and renamed. A refresh holds a lock on
//! a file beside it, so that processes sharing the tokens (a served graph
//! and `call`, replicas on one host) do not refresh at once and revoke each
//! other's rotated refresh tokens.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use sha2::Digest as _;

/// The tokens of the server at one URL, in a file.
#[derive(Clone)]
pub(crate) struct FileStore {
    path: PathBuf,
    /// The file as last read, by its modification time and length: rmcp
    /// loads the credentials for every request, and a file another
    /// process has not rewritten since is not read and parsed again.
    cache: Arc<Mutex<Option<Cached>>>,
}

struct Cached {
    stamp: (SystemTime, u64),
    credentials: StoredCredentials,
}

impl FileStore {
    /// The store of the server at `url`.
    pub(crate) fn for_url(url: &str) -> Result<FileStore, String> {
        let dir = directory()?;
        let digest = sha2::Sha256::digest(url.as_bytes());
        let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        Ok(FileStore {
            path: dir.join(format!("{name}.json")),
            cache: Arc::default(),
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
fn directory() -> Result<PathBuf, String> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .ok_or("neither XDG_DATA_HOME nor HOME is set: no place to keep tokens")?;
            PathBuf::from(home).join(".local/share")
        }
    };
    Ok(base.join("mcpgraph").join("oauth"))
}

fn store_error(what: &str, path: &Path, e: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(format!("{what} {}: {e}", path.display()))
}

#[async_trait::async_trait]
impl CredentialStore for FileStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
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
        let locked = tokio::task::spawn_blocking(move || {
            create_private_dir(&path)?;
            let file = private_options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| store_error("opening", &path, e))?;
            file.lock().map_err(|e| store_error("locking", &path, e))?;
            Ok::<_, AuthError>(file)
        });
        let file = locked
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))??;
        // Dropping the file releases its lock.
        Ok(Some(CredentialRefreshGuard::new(file)))
    }
}

/// The access and refresh tokens of `response`, remembered as secrets
/// until they expire (rmcp holds them, not us: no guard to drop).
pub(crate) fn remember_tokens(response: &rmcp::transport::auth::OAuthTokenResponse) {
    use crate::secrets::remember_token;
    use oauth2::TokenResponse as _;
    let access = response.access_token().secret();
    remember_token("oauth access token", access, response.expires_in()).until_expiry();
    if let Some(refresh) = response.refresh_token() {
        remember_token("oauth refresh token", refresh.secret(), None).until_expiry();
    }
}

fn private_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
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
        .map_err(|e| store_error("creating", dir, e))
}

/// Writes `bytes` to `path` (mode 0600) through a temporary file renamed
/// over it, so a reader never sees half a file.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), AuthError> {
    use std::io::Write as _;
    create_private_dir(path)?;
    let temp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut file = private_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temp)
        .map_err(|e| store_error("writing", &temp, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| store_error("writing", &temp, e))?;
    std::fs::rename(&temp, path).map_err(|e| store_error("writing", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tokens_are_kept_in_a_file_only_the_user_can_read() {
        let dir = std::env::temp_dir().join(format!("mcpgraph-store-{}", std::process::id()));
        let store = FileStore {
            path: dir.join("oauth").join("x.json"),
            cache: Arc::default(),
        };
        assert!(store.load().await.unwrap().is_none());
        let credentials = StoredCredentials::new("client".into(), None, vec!["a".into()], Some(1));
        store.save(credentials).await.unwrap();
        let loaded = store.load().await.unwrap().unwrap();
        assert_eq!(loaded.client_id, "client");
        // Another process rewrites the file: the next load sees it.
        let other = FileStore {
            path: store.path().to_owned(),
            cache: Arc::default(),
        };
        let rewritten = StoredCredentials::new("other".into(), None, vec![], Some(2));
        other.save(rewritten).await.unwrap();
        assert_eq!(store.load().await.unwrap().unwrap().client_id, "other");
        store
            .save(StoredCredentials::new(
                "client".into(),
                None,
                vec!["a".into()],
                Some(1),
            ))
            .await
            .unwrap();
        let loaded = store.load().await.unwrap().unwrap();
        assert_eq!(loaded.client_id, "client");
        assert_eq!(loaded.granted_scopes, ["a"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(store.path()), 0o600);
            assert_eq!(mode(store.path().parent().unwrap()), 0o700);
        }
        let guard = store.acquire_refresh_guard().await.unwrap();
        assert!(guard.is_some());
        drop(guard);
        store.clear().await.unwrap();
        assert!(store.load().await.unwrap().is_none());
        let _ = std::fs::remove_dir_all(dir);
    }
}
