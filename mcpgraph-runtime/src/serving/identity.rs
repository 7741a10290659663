//! Who sent a request, as the transport that carried it tells: the seam
//! through which streamable HTTP (`mcpgraph-http`) hands the handler what
//! it learnt of a request (its accepted access token, its session, its
//! peer), read from the request's extensions, where rmcp puts the HTTP
//! request's parts. Over stdio there is one caller and no credential: the
//! trait's default methods.

use rmcp::model::Extensions;

use crate::questions::Owner;
use mcpgraph_secrets::CallerToken;

/// What a transport knows of the sender of a request. Each method reads
/// the request's `extensions`; the defaults are stdio's.
#[doc(hidden)]
pub trait RequestIdentity: Send + Sync + 'static {
    /// The access token the request carried, once inbound OAuth accepted
    /// it: kept with the call for the downstream servers that pass the
    /// caller's identity on.
    fn token(&self, extensions: &Extensions) -> Option<CallerToken> {
        let _ = extensions;
        None
    }

    /// Who calls, for its share of what the server holds for callers
    /// (parked calls, connections waiting for answers).
    fn owner(&self, extensions: &Extensions) -> Owner {
        let _ = extensions;
        Owner::new(Owner::STDIO)
    }

    /// The bytes a sealed state's principal is the digest of; empty for
    /// no one (stdio, or a request without a credential).
    fn principal(&self, extensions: &Extensions) -> Vec<u8> {
        let _ = extensions;
        Vec::new()
    }
}

/// The process's own stdin and stdout: one caller, no credential.
pub(crate) struct Stdio;

impl RequestIdentity for Stdio {}
