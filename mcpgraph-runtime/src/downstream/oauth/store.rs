//! Where a person's tokens for a server are kept between runs: one file per
//! server URL under `$XDG_DATA_HOME/mcpgraph/oauth` (`~/.local/share/...`
//! when unset), readable by the user only (directory 0700, file 0600),
//! written whole to a temporary file and renamed. A refresh holds a lock on
//! a file beside it, so that processes sharing the tokens (a served graph
//! and `call`, replicas on one host) do not refresh at once and revoke each
//! other's rotated refresh tokens.

use std::path::{Path, PathBuf};

use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use sha2::Digest as _;

/// The tokens of the server at one URL, in a file.
#[derive(Clone)]
pub(crate) struct FileStore {
    path: PathBuf,
}

impl FileStore {
    /// The store of the server at `url`.
    pub(crate) fn for_url(url: &str) -> Result<FileStore, String> {
        let dir = directory()?;
        let digest = sha2::Sha256::digest(url.as_bytes());
        let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        Ok(FileStore {
            path: dir.join(format!("{name}.json")),
        })
    }

    /// The file (for `auth status`).
    pub(crate) fn path(&self) -> &Path {
        &self.path
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
        let path = self.path.clone();
        let read = tokio::task::spawn_blocking(move || match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| store_error("reading", &path, e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(store_error("reading", &path, e)),
        });
        read.await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        if let Some(response) = &credentials.token_response {
            remember_tokens(response);
        }
        let bytes = serde_json::to_vec_pretty(&credentials)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || write_private(&path, &bytes))
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
    }

    async fn clear(&self) -> Result<(), AuthError> {
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

/// The access and refresh tokens of `response`, remembered as secrets.
pub(crate) fn remember_tokens(response: &rmcp::transport::auth::OAuthTokenResponse) {
    use oauth2::TokenResponse as _;
    crate::secrets::remember("oauth access token", response.access_token().secret());
    if let Some(refresh) = response.refresh_token() {
        crate::secrets::remember("oauth refresh token", refresh.secret());
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
        };
        assert!(store.load().await.unwrap().is_none());
        let credentials = StoredCredentials::new("client".into(), None, vec!["a".into()], Some(1));
        store.save(credentials).await.unwrap();
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
