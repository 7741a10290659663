//! OTLP/HTTP export of spans (feature `otel`): the exporter, which redacts
//! every exported text (`mcpgraph_secrets`), and which spans and events go.

use std::borrow::Cow;
use std::time::Duration;

use opentelemetry::trace::{Status, TracerProvider as _};
use opentelemetry::{Array, KeyValue, StringValue, Value};
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{EnvFilter, FilterExt as _, filter_fn};
use tracing_subscriber::registry::LookupSpan;

/// A tracer provider exporting to `endpoint`, or `None` (with a warning)
/// when the exporter cannot be built.
pub(super) fn provider(endpoint: &str, service_name: &str) -> Option<SdkTracerProvider> {
    // An https endpoint needs the TLS provider the HTTP client expects
    // (reqwest is built without one): ring, unless something else installed
    // one first. Losing a race with another installer is fine.
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(endpoint)
        .build()
        .map_err(|e| eprintln!("warning: OTLP exporter not started: {e}"))
        .ok()?;
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(service_name.to_owned())
        .build();
    Some(
        SdkTracerProvider::builder()
            .with_batch_exporter(Redacting(exporter))
            .with_resource(resource)
            .build(),
    )
}

/// The layer exporting through `provider`: the runtime's spans (`tool_call`
/// at info, `node` at debug) whatever the log level, since spans are what
/// OTLP is for; events (log lines) only as `log_filter` lets them through,
/// as on stderr.
pub(super) fn layer<S>(provider: &SdkTracerProvider, log_filter: EnvFilter) -> impl Layer<S>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    let spans = filter_fn(|meta| meta.is_span()).and(EnvFilter::new("mcpgraph_runtime=debug"));
    let events = filter_fn(|meta| meta.is_event()).and(log_filter);
    tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("mcpgraph"))
        .with_filter(spans.or(events))
}

/// An exporter that redacts secrets from each span before `E` sends it.
#[derive(Debug)]
struct Redacting<E>(E);

impl<E: SpanExporter> SpanExporter for Redacting<E> {
    fn export(
        &self,
        mut batch: Vec<SpanData>,
    ) -> impl std::future::Future<Output = OTelSdkResult> + Send {
        batch.iter_mut().for_each(redact_span);
        self.0.export(batch)
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.0.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.0.set_resource(resource);
    }
}

/// Every text of `span` redacted: its name, attribute values, status and
/// events (names and attributes).
fn redact_span(span: &mut SpanData) {
    if let Some(name) = redacted(&span.name) {
        span.name = Cow::Owned(name);
    }
    redact_attributes(&mut span.attributes);
    if let Status::Error { description } = &mut span.status
        && let Some(text) = redacted(description)
    {
        *description = Cow::Owned(text);
    }
    for event in span.events.events.iter_mut() {
        if let Some(name) = redacted(&event.name) {
            event.name = Cow::Owned(name);
        }
        redact_attributes(&mut event.attributes);
    }
}

fn redact_attributes(attributes: &mut [KeyValue]) {
    for attribute in attributes {
        match &mut attribute.value {
            Value::String(text) => redact_string(text),
            Value::Array(Array::String(texts)) => texts.iter_mut().for_each(redact_string),
            _ => {}
        }
    }
}

fn redact_string(text: &mut StringValue) {
    if let Some(redacted) = redacted(text.as_str()) {
        *text = StringValue::from(redacted);
    }
}

/// `text` redacted, or `None` when there was nothing to redact.
fn redacted(text: &str) -> Option<String> {
    match mcpgraph_secrets::redact(text) {
        Cow::Borrowed(_) => None,
        Cow::Owned(text) => Some(text),
    }
}
