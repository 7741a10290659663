//! Bounds per peer, so that one client cannot take what the global caps
//! share: open connections (`--max-connections-per-peer`) and a request
//! rate (`--max-request-rate-per-peer`, a token bucket refilled at that
//! rate that holds one second of it).
//!
//! A peer is an IPv4 address, or an IPv6 /64: one host usually holds a
//! whole /64, and could otherwise leave its limits behind by changing the
//! low bits of its address.
//!
//! The table is keyed by client addresses, so it is bounded: a peer's entry
//! lives while it has a connection open, and after that only until its
//! bucket has refilled (at most a second), so that closing and reopening a
//! connection does not refill it. It never holds more than twice
//! `--max-connections` entries: past that, entries of peers without a
//! connection go first, refilled or not (only the peers with a connection,
//! at most `--max-connections`, must stay).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A request-rate limit per peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests per second, and the most a peer may send at once.
    pub per_sec: u32,
    /// Whether loopback peers (a reverse proxy on the same host, through
    /// which every client shares one address; a benchmark) are limited too.
    pub loopback: bool,
}

/// A peer's key: an IPv4 address, or the /64 of an IPv6 one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum PeerKey {
    V4(u32),
    V6(u64),
}

impl PeerKey {
    fn of(ip: IpAddr) -> Self {
        match ip.to_canonical() {
            IpAddr::V4(v4) => Self::V4(v4.to_bits()),
            IpAddr::V6(v6) => Self::V6((v6.to_bits() >> 64) as u64),
        }
    }
}

/// One peer's state.
#[derive(Debug)]
struct Peer {
    connections: usize,
    /// Requests the peer may still send now, as of `at`.
    tokens: f64,
    at: Instant,
}

/// The per-peer bounds and the table they read.
#[derive(Debug)]
pub(super) struct PeerTable {
    peers: Mutex<HashMap<PeerKey, Peer>>,
    max_connections: usize,
    rate: Option<RateLimit>,
    /// Entries at most.
    capacity: usize,
}

/// A connection's place in its peer's count, given back when dropped; it
/// also takes the peer's tokens for the connection's requests.
#[derive(Debug)]
pub(super) struct PeerConnection {
    table: Arc<PeerTable>,
    key: PeerKey,
    /// Whether the rate limit applies to this peer.
    rated: bool,
}

impl PeerTable {
    /// At most `max_connections` connections per peer, and `rate` if any,
    /// in a server of `total_connections` connections at most.
    pub(super) fn new(
        max_connections: usize,
        rate: Option<RateLimit>,
        total_connections: usize,
    ) -> Self {
        Self {
            peers: Mutex::new(HashMap::new()),
            max_connections: max_connections.max(1),
            rate: rate.filter(|r| r.per_sec > 0),
            capacity: total_connections.saturating_mul(2).max(16),
        }
    }

    /// A place for one more connection from `ip`, or `None` when the peer
    /// already holds `--max-connections-per-peer`.
    pub(super) fn connect(self: &Arc<Self>, ip: IpAddr) -> Option<PeerConnection> {
        let key = PeerKey::of(ip);
        let rated = self
            .rate
            .is_some_and(|r| r.loopback || !ip.to_canonical().is_loopback());
        let now = Instant::now();
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        if !peers.contains_key(&key) && peers.len() >= self.capacity {
            self.prune(&mut peers, now);
        }
        let full = self.burst();
        let peer = peers.entry(key).or_insert(Peer {
            connections: 0,
            tokens: full,
            at: now,
        });
        if peer.connections >= self.max_connections {
            return None;
        }
        peer.connections += 1;
        Some(PeerConnection {
            table: Arc::clone(self),
            key,
            rated,
        })
    }

    /// The peers tracked now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.peers.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn burst(&self) -> f64 {
        self.rate.map_or(0.0, |r| f64::from(r.per_sec))
    }

    /// `peer`'s tokens at `now`.
    fn refill(&self, peer: &mut Peer, now: Instant) {
        let rate = self.burst();
        let elapsed = now.saturating_duration_since(peer.at).as_secs_f64();
        peer.tokens = (peer.tokens + elapsed * rate).min(rate);
        peer.at = now;
    }

    /// Drops the entries of peers without a connection: the refilled ones,
    /// and if that is not enough, all of them.
    fn prune(&self, peers: &mut HashMap<PeerKey, Peer>, now: Instant) {
        let full = self.burst();
        peers.retain(|_, peer| {
            self.refill(peer, now);
            peer.connections > 0 || peer.tokens < full
        });
        if peers.len() >= self.capacity {
            peers.retain(|_, peer| peer.connections > 0);
        }
    }
}

impl PeerConnection {
    /// Takes one of the peer's tokens for a request, or tells how long
    /// until one is there.
    pub(super) fn admit_request(&self) -> Result<(), Duration> {
        if !self.rated {
            return Ok(());
        }
        let table = &self.table;
        let mut peers = table.peers.lock().unwrap_or_else(|e| e.into_inner());
        let Some(peer) = peers.get_mut(&self.key) else {
            return Ok(());
        };
        table.refill(peer, Instant::now());
        if peer.tokens >= 1.0 {
            peer.tokens -= 1.0;
            return Ok(());
        }
        Err(Duration::from_secs_f64((1.0 - peer.tokens) / table.burst()))
    }
}

impl Drop for PeerConnection {
    fn drop(&mut self) {
        let table = &self.table;
        let mut peers = table.peers.lock().unwrap_or_else(|e| e.into_inner());
        let Some(peer) = peers.get_mut(&self.key) else {
            return;
        };
        peer.connections -= 1;
        if peer.connections == 0 {
            table.refill(peer, Instant::now());
            if peer.tokens >= table.burst() {
                peers.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn connections_per_peer_and_per_slash_64() {
        let table = Arc::new(PeerTable::new(2, None, 10));
        let a = [table.connect(ip("10.0.0.1")), table.connect(ip("10.0.0.1"))];
        assert!(a.iter().all(Option::is_some));
        assert!(table.connect(ip("10.0.0.1")).is_none());
        assert!(table.connect(ip("::ffff:10.0.0.1")).is_none(), "v4-mapped");
        assert!(table.connect(ip("10.0.0.2")).is_some());
        let b = [
            table.connect(ip("2001:db8::1")),
            table.connect(ip("2001:db8::2")),
        ];
        assert!(b.iter().all(Option::is_some));
        assert!(table.connect(ip("2001:db8::ffff")).is_none(), "same /64");
        assert!(table.connect(ip("2001:db8:0:1::1")).is_some());
        drop(a);
        drop(b);
        assert_eq!(
            table.len(),
            0,
            "no rate: entries go with their last connection"
        );
    }

    #[test]
    fn rate_spares_loopback_unless_asked() {
        let rate = RateLimit {
            per_sec: 3,
            loopback: false,
        };
        let table = Arc::new(PeerTable::new(10, Some(rate), 10));
        let local = table.connect(ip("127.0.0.1")).unwrap();
        assert!((0..100).all(|_| local.admit_request().is_ok()));
        let remote = table.connect(ip("192.0.2.1")).unwrap();
        assert!((0..3).all(|_| remote.admit_request().is_ok()));
        let wait = remote.admit_request().unwrap_err();
        assert!(wait <= Duration::from_millis(334), "{wait:?}");
        // Reconnecting does not refill the bucket.
        drop(remote);
        let again = table.connect(ip("192.0.2.1")).unwrap();
        assert!(again.admit_request().is_err());
    }

    #[test]
    fn the_table_is_bounded() {
        let rate = RateLimit {
            per_sec: 1000,
            loopback: true,
        };
        let table = Arc::new(PeerTable::new(10, Some(rate), 8));
        for n in 0..10_000u32 {
            let c = table.connect(IpAddr::V4(n.into())).unwrap();
            c.admit_request().unwrap();
        }
        assert!(table.len() <= 16, "{}", table.len());
    }
}
