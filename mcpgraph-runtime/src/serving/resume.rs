//! The client of a call as questions see it ([`Handler::caller`]): one of
//! the session era is asked live; for one of MCP 2026-07-28, the round a
//! retry resumes, opened from its sealed `requestState`, and the
//! `input_required` result a round ends with, its state sealed (see
//! `questions::rounds` for what the state holds, `mcpgraph_secrets`'
//! `StateKeys` for the sealing).
//!
//! A state is bound to the graph (its server's name and version), the
//! caller and the call (the tool and a digest of its arguments): it opens
//! only in the same graph, for the same call by the same caller, on any
//! replica holding the key it was sealed with, until it expires. The
//! caller is the principal of its OAuth access token under inbound OAuth
//! (issuer and subject, so that a token refreshed between rounds still
//! resumes), else the digest of its `Authorization` header, else no one.
//! A state that does not open says why: another graph, another caller,
//! another call, altered, or expired.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    InputRequiredResult,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use sha2::{Digest, Sha256};

use mcpgraph_secrets::{Binding, StateError};

use super::handler::Handler;
use crate::error::{ErrorKind, NodeError};
use crate::questions::{Caller, Rounds, Saved};
use crate::serving::metrics;

/// The round of a 2026-07-28 call, and what its state is bound to.
pub(super) type Round = (Arc<Rounds>, Binding);

/// How long a client has to answer before the state of its call expires.
pub(crate) const STATE_TTL: Duration = Duration::from_secs(600);

/// What a sealed state holds: the tool it is for, and the rounds so far.
#[derive(serde::Serialize, serde::Deserialize)]
struct Sealed {
    tool: String,
    #[serde(flatten)]
    saved: Saved,
}

impl Handler {
    /// The client of a `tools/call`, as the graph's downstream servers'
    /// questions see it; for a client of MCP 2026-07-28, the round the call
    /// starts or resumes and what its state is bound to.
    pub(super) fn caller(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Caller, Option<Round>), McpError> {
        let capabilities = context.client_capabilities();
        Ok(if !super::tasks::session_era(context) {
            let (round, binding) = self.round(request, context)?;
            let caller = Caller::rounds(capabilities.as_ref(), Arc::clone(&round));
            (caller, Some((round, binding)))
        } else if !self.sessions {
            let why = "cannot be asked: this server runs --stateless, without sessions";
            (Caller::closed(why), None)
        } else {
            let caller = Caller::live(
                capabilities.as_ref(),
                context.peer.clone(),
                context.id.clone(),
            );
            (caller, None)
        })
    }

    /// The round a 2026-07-28 `tools/call` starts or resumes, and what its
    /// state is bound to; a JSON-RPC error (invalid params) for a state
    /// that does not open.
    pub(super) fn round(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Arc<Rounds>, Binding), McpError> {
        let responses = request.input_responses.clone().unwrap_or_default();
        let binding = self.binding(request, context);
        let Some(token) = &request.request_state else {
            return Ok((Arc::new(Rounds::new(Saved::default(), responses)), binding));
        };
        let refused =
            |why: String| McpError::invalid_params(format!("requestState refused: {why}"), None);
        let plain = self
            .state_keys()
            .open(token, &binding)
            .map_err(|e| refused(e.to_string()))?;
        let sealed: Sealed = serde_json::from_slice(&plain)
            .map_err(|e| refused(format!("it does not read back ({e})")))?;
        if sealed.tool != request.name {
            return Err(refused(format!("it is for tool `{}`", sealed.tool)));
        }
        Ok((Arc::new(Rounds::new(sealed.saved, responses)), binding))
    }

    /// The answer to a 2026-07-28 call whose graph stopped with `error`:
    /// error -32021 when a question needed a capability the client did not
    /// declare, the `input_required` result when it waits for answers;
    /// `None` for any other failure.
    pub(super) fn round_ended(
        &self,
        error: &NodeError,
        round: &Rounds,
        tool: &str,
        binding: &Binding,
    ) -> Option<Result<CallToolResponse, McpError>> {
        let label = self.tool_label(tool);
        if let Some(missing) = round.missing() {
            metrics::call(label, "error");
            return Some(Err(McpError::new(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                error.to_string(),
                Some(serde_json::json!({ "requiredCapabilities": missing })),
            )));
        }
        if error.kind() != ErrorKind::InputRequired {
            return None;
        }
        Some(Ok(match self.input_required(round, tool, binding) {
            Some(Ok(result)) => {
                metrics::call(label, "input_required");
                CallToolResponse::InputRequired(result)
            }
            other => {
                metrics::call(label, "error");
                let why = match other {
                    Some(Err(why)) => why.to_string(),
                    _ => format!("{error} (no question was recorded)"),
                };
                CallToolResult::error(vec![ContentBlock::text(why)]).into()
            }
        }))
    }

    /// The `input_required` result of a round that stopped for answers;
    /// `None` if it did not stop.
    pub(super) fn input_required(
        &self,
        round: &Rounds,
        tool: &str,
        binding: &Binding,
    ) -> Option<Result<InputRequiredResult, SealFailure>> {
        let (requests, saved) = round.asked()?;
        let sealed = Sealed {
            tool: tool.to_owned(),
            saved,
        };
        let plain = match serde_json::to_vec(&sealed) {
            Ok(plain) => plain,
            Err(e) => return Some(Err(SealFailure::Encode(e))),
        };
        Some(
            self.state_keys()
                .seal(&plain, binding, STATE_TTL)
                .map(|token| InputRequiredResult::new(Some(requests), Some(token)))
                .map_err(SealFailure::Seal),
        )
    }
}

impl Handler {
    /// What a state is bound to: this graph (its server's name and
    /// version), the caller (`RequestIdentity::principal`), the call (the tool, the
    /// arguments' digest, keys sorted at every depth).
    fn binding(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Binding {
        let server = self.engine().graph().server;
        let graph = [server.name.as_bytes(), b"\0", server.version.as_bytes()].concat();
        let mut call = Vec::with_capacity(33 + request.name.len());
        call.extend_from_slice(request.name.as_bytes());
        call.push(0);
        let mut digest = Sha256::new();
        canonical_object(request.arguments.as_ref(), &mut digest);
        call.extend_from_slice(&digest.finalize());
        Binding::new(&graph, &self.identity.principal(&context.extensions), &call)
    }
}

/// Why a stopped round's state could not go to the caller.
#[derive(Debug)]
pub(super) enum SealFailure {
    /// The state does not encode as JSON.
    Encode(serde_json::Error),
    /// It cannot be sealed (too large, say).
    Seal(StateError),
}

impl std::fmt::Display for SealFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Encode(e) => write!(f, "the call's state does not encode: {e}"),
            Self::Seal(e) => write!(f, "the call's state cannot be sealed: {e}"),
        }
    }
}

/// Feeds `object` (no object: `{}`) to `digest` as JSON text with every
/// object's keys sorted, at every depth, without building the text.
fn canonical_object(object: Option<&serde_json::Map<String, Value>>, digest: &mut Sha256) {
    digest.update(b"{");
    if let Some(map) = object {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        for (i, key) in keys.into_iter().enumerate() {
            if i > 0 {
                digest.update(b",");
            }
            scalar(key.as_str(), digest);
            digest.update(b":");
            canonical(&map[key], digest);
        }
    }
    digest.update(b"}");
}

/// Feeds `value` to `digest` as [`canonical_object`] does.
fn canonical(value: &Value, digest: &mut Sha256) {
    match value {
        Value::Object(map) => canonical_object(Some(map), digest),
        Value::Array(items) => {
            digest.update(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    digest.update(b",");
                }
                canonical(item, digest);
            }
            digest.update(b"]");
        }
        other => scalar(other, digest),
    }
}

/// A string (or a number, boolean or null) as JSON text, into `digest`.
fn scalar<T: serde::Serialize + ?Sized>(value: &T, digest: &mut Sha256) {
    struct Hashing<'a>(&'a mut Sha256);
    impl std::io::Write for Hashing<'_> {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.update(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Writing a JSON scalar into a hasher cannot fail.
    let _ = serde_json::to_writer(Hashing(digest), value);
}
