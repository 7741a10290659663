//! The one connection a store uses: opened on first use, reconnected by
//! redis's `ConnectionManager`, every operation bounded in time.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{FromRedisValue, RedisError, ScriptInvocation};
use tokio::sync::OnceCell;

use crate::error::{OpenError, StoreError};

/// The longest one operation may take, connecting included, before it is
/// [`StoreError::Unavailable`].
const OP_TIMEOUT: Duration = Duration::from_millis(1500);
/// The longest a connection attempt, or a reply, may take.
const IO_TIMEOUT: Duration = Duration::from_secs(1);

/// A Redis client and, once used, its connection.
pub(super) struct Connection {
    client: redis::Client,
    manager: OnceCell<ConnectionManager>,
}

/// A Redis failure as the store reports it: the cause, never a value.
fn failure(e: RedisError) -> StoreError {
    match e.kind() {
        redis::ErrorKind::Parse | redis::ErrorKind::UnexpectedReturnType => {
            StoreError::Corrupt(format!("unexpected reply from Redis: {e}"))
        }
        _ => StoreError::Unavailable(format!("Redis: {e}")),
    }
}

impl Connection {
    /// A client for `url`; nothing is connected yet.
    pub(super) fn new(url: &str) -> Result<Connection, OpenError> {
        let scheme = url.split_once("://").map_or("", |(s, _)| s);
        let tls = matches!(scheme, "rediss" | "valkeys");
        if tls && !cfg!(feature = "tls") {
            return Err(OpenError::NotBuilt {
                scheme: scheme.to_owned(),
                feature: "tls",
            });
        }
        // The provider every rustls user in mcpgraph installs; a second
        // install is a no-op.
        #[cfg(feature = "tls")]
        if tls {
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        let client = redis::Client::open(url).map_err(|e| OpenError::BadUrl {
            url: redact_url(url),
            reason: e.to_string(),
        })?;
        Ok(Connection {
            client,
            manager: OnceCell::new(),
        })
    }

    async fn manager(&self) -> Result<ConnectionManager, StoreError> {
        let connect = || async {
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(IO_TIMEOUT))
                .set_response_timeout(Some(IO_TIMEOUT))
                .set_number_of_retries(1)
                .set_max_delay(Duration::from_millis(500));
            ConnectionManager::new_with_config(self.client.clone(), config)
                .await
                .map_err(failure)
        };
        self.manager.get_or_try_init(connect).await.cloned()
    }

    /// `op`, given up after [`OP_TIMEOUT`].
    async fn bounded<T>(op: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
        tokio::time::timeout(OP_TIMEOUT, op)
            .await
            .unwrap_or_else(|_| {
                Err(StoreError::Unavailable(format!(
                    "Redis did not answer within {} ms",
                    OP_TIMEOUT.as_millis()
                )))
            })
    }

    /// Runs a script.
    pub(super) async fn eval<T: FromRedisValue>(
        &self,
        invocation: &ScriptInvocation<'_>,
    ) -> Result<T, StoreError> {
        Self::bounded(async {
            let mut manager = self.manager().await?;
            invocation.invoke_async(&mut manager).await.map_err(failure)
        })
        .await
    }

    /// Runs a pipeline.
    pub(super) async fn query<T: FromRedisValue>(
        &self,
        pipe: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        Self::bounded(async {
            let mut manager = self.manager().await?;
            pipe.query_async(&mut manager).await.map_err(failure)
        })
        .await
    }
}

/// `url` with the password of its user info replaced by `***`.
fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        // Not a URL: it may be anything, a password included.
        return "…".to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info.split_once(':').map_or(user_info, |(u, _)| u);
            let password = if user_info.contains(':') { ":***" } else { "" };
            format!("{scheme}://{user}{password}@{host}{tail}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact_url("redis://:s3cret@h:6379/2"),
            "redis://:***@h:6379/2"
        );
        assert_eq!(
            redact_url("rediss://bob:p@ss:w@h/0#x"),
            "rediss://bob:***@h/0#x"
        );
        assert_eq!(redact_url("redis://bob@h"), "redis://bob@h");
        assert_eq!(redact_url("redis://h:1/3"), "redis://h:1/3");
        assert_eq!(redact_url("junk:secretpassword"), "…");
    }
}
