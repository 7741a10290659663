//! Without the `http-client` feature: no server takes a token, so there
//! is no authorizer to share, and `auth` says what is missing.

/// What servers with `auth` share with the `http-client` feature: nothing
/// here.
#[derive(Clone, Default)]
pub(crate) struct SharedAuthorizer;

/// Runs `action` for `spec`'s server: without the `http-client` feature
/// there is no server to log in to.
#[allow(clippy::unused_async)]
pub async fn run_auth(
    spec: &crate::ServerSpec,
    action: super::AuthAction,
) -> Result<String, super::AuthRunError> {
    use super::AuthRunError::MissingFeature;
    let _ = action;
    Err(match &spec.transport {
        crate::TransportSpec::Stdio { .. } => super::AuthRunError::Stdio {
            server: spec.name.clone(),
        },
        crate::TransportSpec::StreamableHttp { .. } => {
            MissingFeature(crate::features::missing_http_client("http"))
        }
        crate::TransportSpec::Sse { .. } => {
            MissingFeature(crate::features::missing_http_client("sse"))
        }
    })
}
