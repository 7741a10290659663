//! Where logs and spans go: stderr always (stdout belongs to the stdio
//! transport), and, with the `otel` cargo feature and `--otlp-endpoint`,
//! an OTLP/HTTP exporter too (`otlp`). Both redact secrets
//! (`mcpgraph_secrets`): stderr in its writer, OTLP in its exporter.

#[cfg(feature = "otel")]
mod otlp;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Keeps exporters alive; flushes them when dropped.
#[must_use]
pub struct Telemetry {
    #[cfg(feature = "otel")]
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        #[cfg(feature = "otel")]
        if let Some(provider) = self.provider.take() {
            let _ = provider.shutdown();
        }
    }
}

/// Installs the global subscriber: stderr at `level` (or `RUST_LOG`), and
/// OTLP export of the runtime's spans, with events at the same level, to
/// `otlp_endpoint` when given (feature `otel`; ignored with a warning
/// without it).
pub fn init(level: &str, otlp_endpoint: Option<&str>, service_name: &str) -> Telemetry {
    let filter = || {
        EnvFilter::try_from_default_env()
            .or_else(|_| EnvFilter::try_new(level))
            .unwrap_or_else(|_| EnvFilter::new("warn"))
    };
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(crate::stderr::EventWriter::default)
        .with_ansi(false)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_filter(filter());
    #[cfg(feature = "otel")]
    {
        let provider = otlp_endpoint.and_then(|endpoint| otlp::provider(endpoint, service_name));
        // Two stacks, not an `Option` layer: a `None` layer beside the
        // stderr layer's own filter made tracing-subscriber drop spans a
        // target directive (`RUST_LOG=mcpgraph_runtime=debug`) enables,
        // such as `tool_call`, the parent of every node span.
        let _ = match &provider {
            Some(p) => tracing_subscriber::registry()
                .with(stderr)
                .with(otlp::layer(p, filter()))
                .try_init(),
            None => tracing_subscriber::registry().with(stderr).try_init(),
        };
        Telemetry { provider }
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = service_name;
        if otlp_endpoint.is_some() {
            eprintln!("warning: --otlp-endpoint needs a build with the `otel` feature; ignored");
        }
        let _ = tracing_subscriber::registry().with(stderr).try_init();
        Telemetry {}
    }
}
