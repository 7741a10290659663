//! `serve --http` in a build without the `http-server` feature: the flag
//! is there, hidden, and refused with that reason; the flags marked "HTTP
//! only" are absent. With the feature, `mcpgraph-http`'s `HttpArgs` takes
//! this module's place.

use std::time::Duration;

use crate::features::MissingFeature;
use mcpgraph_runtime::host::Handler;
use tokio_util::sync::CancellationToken;

/// `serve`'s HTTP flags in a build that cannot serve HTTP.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct HttpArgs {
    /// Serve streamable HTTP: not in this build (no `http-server` feature).
    #[arg(long, hide = true, value_name = "ADDR", num_args = 0..=1, default_missing_value = "")]
    http: Option<String>,
}

impl HttpArgs {
    /// Whether `--http` was given.
    pub(crate) fn requested(&self) -> bool {
        self.http.is_some()
    }

    /// The refusal of `--http`.
    pub(crate) async fn serve(
        self,
        _: Handler,
        _: fn(&Handler) -> Handler,
        _: Duration,
        _: CancellationToken,
    ) -> Result<(), MissingFeature> {
        Err(MissingFeature {
            what: "`serve --http`",
            feature: "http-server",
        })
    }
}
