//! The connections of callers that declared capabilities (see `asking`):
//! one per server and set of capabilities over streamable HTTP, where a
//! question names the call it is for; over stdio and SSE, where nothing
//! does, connections that carry one call at a time, a few per set, so that
//! a call waiting for its caller's answer (up to the answer's time limit)
//! does not hold up the others.
//!
//! What they cost is bounded. Over stdio and SSE a server gets at most
//! [`MAX_ASKING_CONNECTIONS_PER_SERVER`] of them (child processes, SSE
//! sessions) across all sets: past it, a call that needs a new one closes
//! an idle one of another set, or waits for one to be idle, up to the
//! server's `timeoutMs`, and is then refused (kind `refused`, not counted
//! by the circuit breaker). And a connection that no call has used for
//! [`IDLE_CONNECTION`] is closed (its child stopped and reaped). One
//! caller (see `questions::Owner`) holds at most [`MAX_TURNS_PER_CALLER`]
//! of a set's connections at once: its further calls wait for its own to
//! end, and another caller of the set still finds one (over stdio, the
//! graph's one client has them all).

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tokio::sync::OwnedSemaphorePermit;

use super::{ClientManager, Declaring, Downstream, DownstreamError, TransportSpec};
use mcpgraph_runtime::host::{Declared, Owner};
use mcpgraph_runtime::{Downstream as Kind, ErrorKind};

/// The most one-call-at-a-time connections (child processes, SSE
/// sessions) kept per server and set of capabilities; a call that finds
/// them all busy waits for the first to be free.
pub(super) const MAX_ASKING_CONNECTIONS: usize = 4;

/// The most one-call-at-a-time connections (child processes, SSE
/// sessions) a server gets for callers that declared capabilities, across
/// all sets of capabilities (a client can declare 39 different sets).
pub(super) const MAX_ASKING_CONNECTIONS_PER_SERVER: usize = 16;

/// The most one-call-at-a-time connections of one server and set of
/// capabilities that the calls of one caller (principal, else session,
/// else peer address) hold at once: half of [`MAX_ASKING_CONNECTIONS`].
pub(super) const MAX_TURNS_PER_CALLER: usize = MAX_ASKING_CONNECTIONS / 2;

/// How long a connection of callers that declared capabilities stays open
/// without a call; then it is closed (a stdio server's child stopped).
pub(super) const IDLE_CONNECTION: Duration = Duration::from_secs(60);

/// How often a call that found the server at its cap looks again for a
/// connection that became idle.
const CAP_POLL: Duration = Duration::from_millis(25);

/// What a call found in the pools.
enum Picked {
    /// A connection, and the turn on it (over stdio and SSE); a new one
    /// first waits for the closing of the idle one it replaces.
    Ready(
        Arc<Downstream>,
        Option<OwnedSemaphorePermit>,
        Option<tokio::task::JoinHandle<()>>,
    ),
    /// The connections of the call's set, all busy, and no room for more.
    Busy(Vec<Arc<Downstream>>),
    /// No connection of the call's set, and the server is at its cap with
    /// none idle.
    AtCap,
    /// The caller holds its share of the set's connections.
    OverShare,
}

impl ClientManager {
    /// The server `base` as callers that declared `declared` see it, and
    /// the turn on it this call holds (over stdio and SSE).
    pub(super) async fn asking(
        &self,
        base: &Arc<Downstream>,
        declared: Declared,
        owner: Option<&Owner>,
    ) -> Result<(Arc<Downstream>, Option<OwnedSemaphorePermit>), DownstreamError> {
        let name = base.spec.name.as_str();
        let closing = || DownstreamError::new(Kind::Refused, format!("`{name}` is closing"));
        self.start_sweeping();
        let deadline = Instant::now() + base.spec.timeout();
        loop {
            match self.pick(base, declared, owner).ok_or_else(closing)? {
                Picked::Ready(downstream, turn, replaced) => {
                    // Its child is gone before the new one starts, so the
                    // server never has more than the cap. The closing runs
                    // as a task: it completes even if this call is dropped.
                    if let Some(replaced) = replaced {
                        let _ = replaced.await;
                    }
                    return Ok((downstream, turn));
                }
                // All busy: the first turn that comes free is this call's,
                // if the caller's share allows. (A turn taken then given
                // back to pick again would go at once to the next call
                // waiting, never found free: the waiting calls would hand
                // it round for ever.)
                Picked::Busy(pool) => {
                    let waits = pool.into_iter().map(|downstream| {
                        Box::pin(async move {
                            let turn = match &downstream.turns {
                                Some(turns) => Some(Arc::clone(turns).acquire_owned().await.ok()?),
                                None => None,
                            };
                            Some((downstream, turn))
                        })
                    });
                    let (first, _, _) = futures::future::select_all(waits).await;
                    let (downstream, turn) = first.ok_or_else(closing)?;
                    if self
                        .claim(&downstream, declared, owner)
                        .ok_or_else(closing)?
                    {
                        return Ok((downstream, turn));
                    }
                    tokio::time::sleep(CAP_POLL).await;
                }
                Picked::OverShare => tokio::time::sleep(CAP_POLL).await,
                Picked::AtCap if Instant::now() < deadline => {
                    tokio::time::sleep(CAP_POLL).await;
                }
                Picked::AtCap => return Err(at_cap(name, base.spec.timeout())),
            }
        }
    }

    /// Under the pools' lock: a free connection of `declared` to `base`,
    /// or a new one if there is room (closing an idle one of another set
    /// to make it); `None` when the lock is poisoned.
    fn pick(
        &self,
        base: &Arc<Downstream>,
        declared: Declared,
        owner: Option<&Owner>,
    ) -> Option<Picked> {
        let name = &base.spec.name;
        let mut declaring = self.declaring.lock().ok()?;
        let key = (name.clone(), declared);
        let pool = declaring.get(&key).map(Vec::as_slice).unwrap_or_default();
        if let Some(owner) = owner.filter(|o| !o.is_sole_client())
            && pool.iter().filter(|d| d.held_by(owner)).count() >= MAX_TURNS_PER_CALLER
        {
            return Some(Picked::OverShare);
        }
        for downstream in pool {
            let turn = match &downstream.turns {
                None => None,
                Some(turns) => match Arc::clone(turns).try_acquire_owned() {
                    Ok(turn) => Some(turn),
                    Err(_) => continue,
                },
            };
            downstream.touch();
            downstream.hold(owner);
            return Some(Picked::Ready(Arc::clone(downstream), turn, None));
        }
        let one_at_a_time = !matches!(base.spec.transport, TransportSpec::StreamableHttp { .. });
        let busy = pool.to_vec();
        let mut replaced = None;
        if one_at_a_time {
            if busy.len() >= MAX_ASKING_CONNECTIONS {
                return Some(Picked::Busy(busy));
            }
            let of_server = declaring
                .iter()
                .filter(|((server, _), _)| server == name)
                .map(|(_, pool)| pool.len())
                .sum::<usize>();
            if of_server >= MAX_ASKING_CONNECTIONS_PER_SERVER {
                // Room made by closing the connection idle the longest.
                let Some(idle) = take_idle(&mut declaring, |(server, _)| server == name, None)
                else {
                    return Some(if busy.is_empty() {
                        Picked::AtCap
                    } else {
                        Picked::Busy(busy)
                    });
                };
                replaced = Some(self.runtime.spawn(close(idle)));
            }
        }
        let downstream = Arc::new(Downstream::new(
            base.spec.clone(),
            base.auth.clone(),
            declared,
        ));
        downstream.hold(owner);
        let turn = downstream
            .turns
            .as_ref()
            .and_then(|t| Arc::clone(t).try_acquire_owned().ok());
        declaring
            .entry(key)
            .or_default()
            .push(Arc::clone(&downstream));
        Some(Picked::Ready(downstream, turn, replaced))
    }

    /// Under the pools' lock: takes `downstream`, whose turn this call
    /// holds, for `owner` unless the caller holds its share of the set's
    /// connections already; `None` when the lock is poisoned.
    fn claim(
        &self,
        downstream: &Arc<Downstream>,
        declared: Declared,
        owner: Option<&Owner>,
    ) -> Option<bool> {
        let declaring = self.declaring.lock().ok()?;
        if let Some(owner) = owner.filter(|o| !o.is_sole_client()) {
            let key = (downstream.spec.name.clone(), declared);
            let held = declaring
                .get(&key)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter(|d| !Arc::ptr_eq(d, downstream) && d.held_by(owner))
                .count();
            if held >= MAX_TURNS_PER_CALLER {
                return Some(false);
            }
        }
        downstream.touch();
        downstream.hold(owner);
        Some(true)
    }

    /// Starts, once, the task that closes the connections of `declaring`
    /// left idle for [`idle_time`].
    fn start_sweeping(&self) {
        self.sweeping.get_or_init(|| {
            let declaring = Arc::downgrade(&self.declaring);
            let closing = self.closing.clone();
            let task = self.runtime.spawn(async move {
                let idle = idle_time();
                let every = (idle / 4).max(Duration::from_millis(20));
                loop {
                    tokio::select! {
                        () = closing.cancelled() => break,
                        () = tokio::time::sleep(every) => {}
                    }
                    let Some(idle_ones) = sweep(&declaring, idle) else {
                        break;
                    };
                    for downstream in idle_ones {
                        close(downstream).await;
                    }
                }
            });
            self.track_retiring(task);
        });
    }
}

impl Downstream {
    /// A call uses it now.
    pub(super) fn touch(&self) {
        if let Ok(mut last_used) = self.last_used.lock() {
            *last_used = Instant::now();
        }
    }

    /// The caller whose call takes its turn now.
    fn hold(&self, owner: Option<&Owner>) {
        if let Ok(mut holder) = self.holder.lock() {
            holder.clone_from(&owner.cloned());
        }
    }

    /// Whether `owner`'s call holds its turn.
    fn held_by(&self, owner: &Owner) -> bool {
        self.turns
            .as_ref()
            .is_some_and(|t| t.available_permits() == 0)
            && self
                .holder
                .lock()
                .is_ok_and(|holder| holder.as_ref() == Some(owner))
    }

    /// Under the pools' lock: whether no call uses it, nor waits for it,
    /// nor is parked on it, nor connects it (the pool holds the only
    /// reference, its turn is free and its connection unused).
    fn is_idle(self: &Arc<Self>) -> bool {
        Arc::strong_count(self) == 1
            && self
                .turns
                .as_ref()
                .is_none_or(|t| t.available_permits() == 1)
            && self.slot.try_lock().is_ok_and(|slot| {
                slot.connection
                    .as_ref()
                    .is_none_or(|c| Arc::strong_count(c) == 1)
            })
    }
}

/// Marks the call on `downstream` as ended when dropped (the idle time
/// counts from there).
pub(super) struct Using<'a>(pub(super) &'a Downstream);

impl Drop for Using<'_> {
    fn drop(&mut self) {
        self.0.touch();
    }
}

/// Takes out of `declaring` the idle connection, among the pools whose key
/// `of` accepts, unused the longest (and, with `idle_for`, at least that
/// long); a busy one seen is marked used now.
fn take_idle(
    declaring: &mut std::collections::HashMap<(String, Declared), super::Pool>,
    of: impl Fn(&(String, Declared)) -> bool,
    idle_for: Option<Duration>,
) -> Option<Arc<Downstream>> {
    let now = Instant::now();
    let mut oldest: Option<((String, Declared), usize, Instant)> = None;
    for (key, pool) in declaring.iter().filter(|(key, _)| of(key)) {
        for (i, downstream) in pool.iter().enumerate() {
            if !downstream.is_idle() {
                downstream.touch();
                continue;
            }
            let used = downstream.last_used.lock().map_or(now, |u| *u);
            if idle_for.is_some_and(|idle| now.saturating_duration_since(used) < idle) {
                continue;
            }
            if oldest.as_ref().is_none_or(|(_, _, t)| used < *t) {
                oldest = Some((key.clone(), i, used));
            }
        }
    }
    let (key, i, _) = oldest?;
    let pool = declaring.get_mut(&key)?;
    let idle = pool.remove(i);
    if pool.is_empty() {
        declaring.remove(&key);
    }
    Some(idle)
}

/// Takes out every connection of `declaring` idle for `idle` or more;
/// `None` once the manager is gone.
fn sweep(declaring: &Weak<Declaring>, idle: Duration) -> Option<Vec<Arc<Downstream>>> {
    let declaring = declaring.upgrade()?;
    let mut declaring = declaring.lock().ok()?;
    let mut idle_ones = Vec::new();
    while let Some(downstream) = take_idle(&mut declaring, |_| true, Some(idle)) {
        idle_ones.push(downstream);
    }
    Some(idle_ones)
}

/// Closes the connection of `downstream`, taken out of its pool idle (no
/// call can reach it any more): its transport closes, and a stdio
/// server's child is stopped (stdin closed, then signals) and reaped.
async fn close(downstream: Arc<Downstream>) {
    let connection = downstream.slot.lock().await.connection.take();
    let Some(connection) = connection else {
        return;
    };
    tracing::debug!(
        "closing an idle connection to `{}` of callers that declared capabilities",
        downstream.spec.name
    );
    connection.service.cancellation_token().cancel();
    if let Some(process) = &connection.process {
        process.stop().await;
    }
}

/// The refusal of a call that found `server` at its cap, with no
/// connection idle within `waited` (its `timeoutMs`).
fn at_cap(server: &str, waited: Duration) -> DownstreamError {
    DownstreamError::of(
        ErrorKind::Refused,
        format!(
            "downstream server `{server}` has all its {MAX_ASKING_CONNECTIONS_PER_SERVER} connections \
             for callers that declared capabilities busy (the cap per server), and none was free \
             within its timeoutMs ({} ms); retry later",
            waited.as_millis()
        ),
    )
}

/// [`IDLE_CONNECTION`]; in `testing` builds, `MCPGRAPH_TEST_IDLE_CONNECTION_MS`
/// when set (so that a test need not wait a minute).
fn idle_time() -> Duration {
    #[cfg(feature = "testing")]
    if let Some(ms) = std::env::var("MCPGRAPH_TEST_IDLE_CONNECTION_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return Duration::from_millis(ms);
    }
    IDLE_CONNECTION
}
