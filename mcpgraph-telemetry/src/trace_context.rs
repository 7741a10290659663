//! W3C trace context in request `_meta` (`traceparent`, `tracestate`:
//! keys MCP 2026-07-28 reserves for it): taken from the caller's request,
//! made the parent of the call's `tool_call` span (with the `otel` feature),
//! and passed on to every downstream call the graph makes: the context of
//! our own span when spans are exported, the caller's as it came otherwise,
//! so one trace spans the caller, the graph and its downstream servers.

use rmcp::model::{MetaObject, RequestMetaObject};

/// A caller's trace context.
#[derive(Clone, Debug)]
pub struct TraceContext {
    traceparent: String,
    tracestate: Option<String>,
}

impl TraceContext {
    /// The trace context of a request's `_meta`, if it has a valid one.
    pub fn from_meta(meta: &MetaObject) -> Option<Self> {
        let traceparent = meta.get_traceparent()?;
        valid(traceparent).then(|| Self {
            traceparent: traceparent.to_owned(),
            tracestate: meta
                .get_tracestate()
                .filter(|s| s.len() <= 512 && s.is_ascii())
                .map(str::to_owned),
        })
    }

    /// Makes `span` a child of the caller's span (with the `otel` feature;
    /// without it spans are not exported, and nothing changes).
    pub fn adopt(&self, span: &tracing::Span) {
        #[cfg(feature = "otel")]
        {
            use opentelemetry::propagation::TextMapPropagator;
            use tracing_opentelemetry::OpenTelemetrySpanExt;
            let mut carrier = std::collections::HashMap::new();
            carrier.insert("traceparent".to_owned(), self.traceparent.clone());
            if let Some(state) = &self.tracestate {
                carrier.insert("tracestate".to_owned(), state.clone());
            }
            let parent =
                opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&carrier);
            let _ = span.set_parent(parent);
        }
        #[cfg(not(feature = "otel"))]
        let _ = span;
    }

    /// The `_meta` for a downstream request made on behalf of a caller with
    /// trace context `caller`: our current span's context when it is
    /// exported, else the caller's.
    #[doc(hidden)]
    pub fn outgoing(caller: Option<&Self>) -> Option<RequestMetaObject> {
        #[cfg(feature = "otel")]
        {
            use opentelemetry::propagation::TextMapPropagator;
            use tracing_opentelemetry::OpenTelemetrySpanExt;
            let mut carrier = std::collections::HashMap::new();
            let current = tracing::Span::current().context();
            opentelemetry_sdk::propagation::TraceContextPropagator::new()
                .inject_context(&current, &mut carrier);
            if let Some(traceparent) = carrier.remove("traceparent") {
                let mut meta = MetaObject::new();
                meta.set_traceparent(traceparent);
                if let Some(state) = carrier.remove("tracestate").filter(|s| !s.is_empty()) {
                    meta.set_tracestate(state);
                }
                return Some(meta.into());
            }
        }
        let caller = caller?;
        let mut meta = MetaObject::new();
        meta.set_traceparent(caller.traceparent.clone());
        if let Some(state) = &caller.tracestate {
            meta.set_tracestate(state.clone());
        }
        Some(meta.into())
    }
}

/// Whether `value` is a `traceparent` of version 00 (or a later one, read
/// as 00): `vv-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, ids not
/// all zeros.
fn valid(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    let hex = |s: &str, n: usize| {
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    };
    let nonzero = |s: &str| s.bytes().any(|b| b != b'0');
    match parts[..] {
        [version, trace, span, flags] | [version, trace, span, flags, ..] => {
            hex(version, 2)
                && version != "ff"
                && (version != "00" || parts.len() == 4)
                && hex(trace, 32)
                && nonzero(trace)
                && hex(span, 16)
                && nonzero(span)
                && hex(flags, 2)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::valid;

    #[test]
    fn traceparents_are_checked() {
        assert!(valid(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        ));
        assert!(!valid(
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01"
        ));
        assert!(!valid(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"
        ));
        assert!(!valid(
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        ));
        assert!(!valid(
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"
        ));
        assert!(!valid(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"
        ));
        assert!(valid(
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"
        ));
        assert!(!valid("garbage"));
    }
}
