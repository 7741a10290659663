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
