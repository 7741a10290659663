//! The capabilities a caller declared that a downstream server may use to
//! ask it something, as a small set: downstream connections are kept per
//! set, because a server of the session era reads them once, at
//! `initialize`.

// Sampling and roots are deprecated by SEP-2577, and still in the protocol.
#![allow(deprecated)]

use rmcp::model::{
    ClientCapabilities, ElicitRequestParams, ElicitationCapability, FormElicitationCapability,
    JsonObject, RootsCapabilities, SamplingCapability, ServerRequest, UrlElicitationCapability,
};

/// Elicitation, sampling and roots as the caller declared them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub struct Declared(u8);

const ELICIT_FORM: u8 = 1;
const ELICIT_URL: u8 = 1 << 1;
const SAMPLING: u8 = 1 << 2;
const SAMPLING_TOOLS: u8 = 1 << 3;
const SAMPLING_CONTEXT: u8 = 1 << 4;
const ROOTS: u8 = 1 << 5;

impl Declared {
    /// What `capabilities` declares. An `elicitation` object naming no
    /// mode means form mode (MCP 2025-11-25).
    pub(crate) fn of(capabilities: &ClientCapabilities) -> Self {
        let mut bits = 0;
        if let Some(e) = &capabilities.elicitation {
            if e.form.is_some() || e.url.is_none() {
                bits |= ELICIT_FORM;
            }
            if e.url.is_some() {
                bits |= ELICIT_URL;
            }
        }
        if let Some(s) = &capabilities.sampling {
            bits |= SAMPLING;
            if s.tools.is_some() {
                bits |= SAMPLING_TOOLS;
            }
            if s.context.is_some() {
                bits |= SAMPLING_CONTEXT;
            }
        }
        if capabilities.roots.is_some() {
            bits |= ROOTS;
        }
        Self(bits)
    }

    /// Nothing declared.
    #[doc(hidden)]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The capabilities to declare to a downstream server.
    #[doc(hidden)]
    pub fn capabilities(self) -> ClientCapabilities {
        let has = |bit| self.0 & bit != 0;
        let mut capabilities = ClientCapabilities::default();
        if has(ELICIT_FORM) || has(ELICIT_URL) {
            let mut elicitation = ElicitationCapability::default();
            if has(ELICIT_FORM) {
                elicitation.form = Some(FormElicitationCapability::default());
            }
            if has(ELICIT_URL) {
                elicitation.url = Some(UrlElicitationCapability::default());
            }
            capabilities.elicitation = Some(elicitation);
        }
        if has(SAMPLING) {
            let mut sampling = SamplingCapability::default();
            if has(SAMPLING_TOOLS) {
                sampling.tools = Some(JsonObject::new());
            }
            if has(SAMPLING_CONTEXT) {
                sampling.context = Some(JsonObject::new());
            }
            capabilities.sampling = Some(sampling);
        }
        if has(ROOTS) {
            capabilities.roots = Some(RootsCapabilities::default());
        }
        capabilities
    }

    /// Whether a client that declared this may be sent `request`.
    pub(crate) fn allows(self, request: &ServerRequest) -> bool {
        let has = |bit| self.0 & bit != 0;
        match request {
            ServerRequest::ElicitRequest(r) => match r.params {
                ElicitRequestParams::UrlElicitationParams { .. } => has(ELICIT_URL),
                _ => has(ELICIT_FORM),
            },
            ServerRequest::CreateMessageRequest(r) => {
                has(SAMPLING)
                    && (has(SAMPLING_TOOLS)
                        || (r.params.tools.is_none() && r.params.tool_choice.is_none()))
            }
            ServerRequest::ListRootsRequest(_) => has(ROOTS),
            ServerRequest::PingRequest(_) => true,
            _ => false,
        }
    }

    /// The capability `request` needs, as the spec spells it.
    #[doc(hidden)]
    pub fn needed_by(request: &ServerRequest) -> &'static str {
        match request {
            ServerRequest::ElicitRequest(r) => match r.params {
                ElicitRequestParams::UrlElicitationParams { .. } => "elicitation.url",
                _ => "elicitation",
            },
            ServerRequest::CreateMessageRequest(_) => "sampling",
            ServerRequest::ListRootsRequest(_) => "roots",
            ServerRequest::PingRequest(_) => "ping",
            _ => "a custom request",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_elicitation_object_means_form_mode() {
        let caps: ClientCapabilities =
            serde_json::from_value(serde_json::json!({"elicitation": {}})).unwrap();
        let declared = Declared::of(&caps);
        assert_eq!(
            serde_json::to_value(declared.capabilities()).unwrap(),
            serde_json::json!({"elicitation": {"form": {}}})
        );
    }

    #[test]
    fn capabilities_round_trip() {
        let caps: ClientCapabilities = serde_json::from_value(serde_json::json!({
            "elicitation": {"form": {}, "url": {}},
            "sampling": {"tools": {}},
            "roots": {"listChanged": true}
        }))
        .unwrap();
        let declared = Declared::of(&caps);
        assert_eq!(
            serde_json::to_value(declared.capabilities()).unwrap(),
            serde_json::json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}})
        );
        assert!(Declared::default().is_empty());
    }
}
