//! The connections of callers that declared capabilities (see `asking`):
//! one per server and set of capabilities over streamable HTTP, where a
//! question names the call it is for; over stdio and SSE, where nothing
//! does, connections that carry one call at a time, a few per set, so that
//! a call waiting for its caller's answer (up to the answer's time limit)
//! does not hold up the others.

use std::sync::Arc;

use tokio::sync::OwnedSemaphorePermit;

use super::{ClientManager, Downstream, DownstreamError};
use crate::error::Downstream as Kind;
use crate::questions::Declared;

/// The most one-call-at-a-time connections (child processes, SSE
/// sessions) kept per server and set of capabilities; a call that finds
/// them all busy waits for the first to be free.
pub(super) const MAX_ASKING_CONNECTIONS: usize = 4;

impl ClientManager {
    /// The server `base` as callers that declared `declared` see it, and
    /// the turn on it this call holds (over stdio and SSE).
    pub(super) async fn asking(
        &self,
        base: &Arc<Downstream>,
        declared: Declared,
    ) -> Result<(Arc<Downstream>, Option<OwnedSemaphorePermit>), DownstreamError> {
        let closing =
            || DownstreamError::new(Kind::Refused, format!("`{}` is closing", base.spec.name));
        let pool = {
            let Ok(mut declaring) = self.declaring.lock() else {
                return Err(closing());
            };
            let pool = declaring
                .entry((base.spec.name.clone(), declared))
                .or_default();
            if pool.is_empty() {
                pool.push(Arc::new(Downstream::new(base.spec.clone(), declared)));
            }
            // A free connection, or room for one more.
            for downstream in pool.iter() {
                match &downstream.turns {
                    None => return Ok((Arc::clone(downstream), None)),
                    Some(turns) => {
                        if let Ok(turn) = Arc::clone(turns).try_acquire_owned() {
                            return Ok((Arc::clone(downstream), Some(turn)));
                        }
                    }
                }
            }
            if pool.len() < MAX_ASKING_CONNECTIONS {
                let downstream = Arc::new(Downstream::new(base.spec.clone(), declared));
                let turn = downstream
                    .turns
                    .as_ref()
                    .and_then(|t| Arc::clone(t).try_acquire_owned().ok());
                pool.push(Arc::clone(&downstream));
                return Ok((downstream, turn));
            }
            pool.clone()
        };
        // All busy: the first to be free.
        let waits = pool.iter().map(|downstream| {
            let turns = downstream.turns.clone();
            let downstream = Arc::clone(downstream);
            Box::pin(async move {
                let turn = match turns {
                    Some(turns) => Some(turns.acquire_owned().await.ok()?),
                    None => None,
                };
                Some((downstream, turn))
            })
        });
        let (first, _, _) = futures::future::select_all(waits).await;
        first.ok_or_else(closing)
    }
}
