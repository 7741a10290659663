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

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

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
    pub(crate) fn for_server(url: &str, client: Option<&str>) -> Result<FileStore, String> {
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
pub(crate) fn remember_tokens(response: &rmcp::transport::auth::OAuthTokenResponse) {
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
mod tests {
    use super::*;

    /// A store of its own in `dir/oauth`.
    fn store_in(dir: &Path) -> FileStore {
        FileStore {
            path: dir.join("oauth").join("x.json"),
            cache: Arc::default(),
            lock_wait: LOCK_WAIT,
        }
    }

    fn credentials(client: &str) -> StoredCredentials {
        StoredCredentials::new(client.into(), None, vec![], Some(1))
    }

    #[tokio::test]
    async fn tokens_are_kept_in_a_file_only_the_user_can_read() {
        let dir = std::env::temp_dir().join(format!("mcpgraph-store-{}", std::process::id()));
        let store = store_in(&dir);
        assert!(store.load().await.unwrap().is_none());
        let credentials = StoredCredentials::new("client".into(), None, vec!["a".into()], Some(1));
        store.save(credentials).await.unwrap();
        let loaded = store.load().await.unwrap().unwrap();
        assert_eq!(loaded.client_id, "client");
        // Another process rewrites the file: the next load sees it.
        let other = FileStore {
            path: store.path().to_owned(),
            cache: Arc::default(),
            lock_wait: LOCK_WAIT,
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

    #[test]
    fn each_server_and_client_has_a_file_of_its_own() {
        let path = |url, client| FileStore::for_server(url, client).unwrap().path;
        let url = "https://a.example/mcp";
        assert_ne!(path(url, Some("one")), path(url, Some("two")));
        assert_ne!(path(url, Some("one")), path(url, None));
        assert_ne!(
            path(url, Some("one")),
            path("https://b.example/mcp", Some("one"))
        );
        assert_eq!(path(url, Some("one")), path(url, Some("one")));
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_directory_others_may_write_or_own_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = std::env::temp_dir().join(format!("mcpgraph-store-open-{}", std::process::id()));
        let store = store_in(&dir);
        std::fs::create_dir_all(store.path().parent().unwrap()).unwrap();
        let oauth = store.path().parent().unwrap().to_owned();
        std::fs::set_permissions(&oauth, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = store.save(credentials("c")).await.unwrap_err().to_string();
        assert!(error.contains("group or others can write"), "{error}");
        assert!(!store.path().exists());
        std::fs::set_permissions(&oauth, std::fs::Permissions::from_mode(0o700)).unwrap();
        store.save(credentials("c")).await.unwrap();
        std::fs::set_permissions(&oauth, std::fs::Permissions::from_mode(0o770)).unwrap();
        let error = store.load().await.unwrap_err().to_string();
        assert!(error.contains("group or others can write"), "{error}");
        std::fs::set_permissions(&oauth, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(store.load().await.unwrap().is_some());
        // Another user's directory (made so when the test runs as root;
        // otherwise a directory root owns).
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let theirs = if root {
            std::os::unix::fs::chown(&oauth, Some(65534), None).unwrap();
            store_in(&dir)
        } else {
            FileStore {
                path: PathBuf::from("/x.json"),
                cache: Arc::default(),
                lock_wait: LOCK_WAIT,
            }
        };
        let error = theirs.load().await.unwrap_err().to_string();
        assert!(error.contains("is owned by uid"), "{error}");
        let error = theirs.save(credentials("c")).await.unwrap_err().to_string();
        assert!(error.contains("is owned by uid"), "{error}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_link_planted_where_the_temporary_file_goes_is_not_followed() {
        let dir = std::env::temp_dir().join(format!("mcpgraph-store-link-{}", std::process::id()));
        let store = store_in(&dir);
        std::fs::create_dir_all(store.path().parent().unwrap()).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "untouched").unwrap();
        let temp = store
            .path()
            .with_extension(format!("tmp{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &temp).unwrap();
        store.save(credentials("c")).await.unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
        let kept = std::fs::symlink_metadata(store.path()).unwrap();
        assert!(kept.file_type().is_file(), "{kept:?}");
        assert_eq!(store.load().await.unwrap().unwrap().client_id, "c");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn a_lock_held_too_long_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("mcpgraph-store-lock-{}", std::process::id()));
        let holder = store_in(&dir);
        let held = holder.acquire_refresh_guard().await.unwrap();
        let waiter = FileStore {
            lock_wait: Duration::from_millis(300),
            ..store_in(&dir)
        };
        let waited = tokio::time::timeout(Duration::from_secs(10), waiter.acquire_refresh_guard())
            .await
            .expect("the wait for the lock is bounded");
        let error = waited.err().expect("refused").to_string();
        assert!(error.contains("another process holds"), "{error}");
        assert!(error.contains("x.lock"), "{error}");
        drop(held);
        assert!(waiter.acquire_refresh_guard().await.unwrap().is_some());
        let _ = std::fs::remove_dir_all(dir);
    }
}
