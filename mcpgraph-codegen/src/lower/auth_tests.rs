//! The tests of `auth`.

use crate::test_support::{ENTRY, EXIT, errors, load, messages, with_nodes};

fn graph(auth: &str) -> String {
    with_nodes(&format!("{ENTRY}{EXIT}")).replace("next: a\n", "next: exit\n").replace(
        "  fs:\n    command: npx\n",
        &format!(
            "  fs:\n    command: npx\n  crm:\n    type: http\n    url: https://crm.example/mcp\n    auth:\n{auth}"
        ),
    )
}

#[test]
fn client_credentials_with_a_secret_from_the_environment() {
    let f = load(&graph(
        "      grant: client_credentials\n      issuer: https://login.example\n      clientId: svc\n      clientSecret: \"${CRM_SECRET}\"\n      scopes: [crm.read]\n",
    ));
    let auth = f.mcp_servers[1].spec.auth.as_ref().unwrap();
    assert_eq!(auth.grant, mcpgraph_format::Grant::ClientCredentials);
    assert_eq!(auth.client_secret.as_deref(), Some("${CRM_SECRET}"));
    assert_eq!(auth.scopes, ["crm.read"]);
    assert_eq!(auth.issuer.as_deref(), Some("https://login.example"));
}

#[test]
fn jwt_bearer_with_a_workload_token_file() {
    let f = load(&graph(
        "      grant: jwt_bearer\n      issuer: \"${WL_ISSUER}\"\n      clientId: wl\n      assertionFile: /var/run/secrets/token\n",
    ));
    let auth = f.mcp_servers[1].spec.auth.as_ref().unwrap();
    assert_eq!(auth.grant, mcpgraph_format::Grant::JwtBearer);
    assert_eq!(
        auth.assertion_file.as_deref(),
        Some("/var/run/secrets/token")
    );
    let m = messages(&graph(
        "      grant: jwt_bearer\n      assertion: eyJhbGciOi\n",
    ));
    assert!(
        m.iter()
            .any(|m| m.contains("`assertion` must come from the environment")),
        "{m:?}"
    );
}

#[test]
fn a_secret_written_in_the_graph_is_refused_where_it_is() {
    let text = graph(
        "      grant: client_credentials\n      clientId: svc\n      clientSecret: hunter2\n",
    );
    let m = messages(&text);
    assert!(
        m.iter()
            .any(|m| m.contains("`clientSecret` must come from the environment")),
        "{m:?}"
    );
}

#[test]
fn what_each_grant_needs() {
    let m = messages(&graph("      grant: token_exchange\n      clientId: g\n"));
    assert!(
        m.iter()
            .any(|m| m.contains("`token_exchange` grant needs `clientSecret`")),
        "{m:?}"
    );
    let m = messages(&graph("      grant: client_credentials\n"));
    assert!(
        m.iter()
            .any(|m| m.contains("missing required field `clientId`")),
        "{m:?}"
    );
    assert!(
        m.iter().any(|m| m.contains("needs `clientSecret`")),
        "{m:?}"
    );
    let m = messages(&graph("      grant: password\n"));
    assert!(
        m.iter().any(|m| m.contains("`grant` must be one of")),
        "{m:?}"
    );
    let m = messages(&graph(
        "      grant: jwt_bearer\n      clientSecretFile: s\n",
    ));
    assert!(
        m.iter()
            .any(|m| m.contains("missing required field `assertion`")),
        "{m:?}"
    );
    assert!(m.iter().any(|m| m.contains("no client secret")), "{m:?}");
    let m = messages(&graph("      assertionFile: /var/run/token\n"));
    assert!(
        m.iter()
            .any(|m| m.contains("`assertion` goes with `grant: jwt_bearer`")),
        "{m:?}"
    );
    let m = messages(&graph("      privateKeyFile: k.pem\n"));
    assert!(
        m.iter()
            .any(|m| m.contains("`client_credentials` grant only")),
        "{m:?}"
    );
}

/// The line and column (1-based) of the value of `key:` in `text`.
fn value_at(text: &str, key: &str) -> (u32, u32) {
    let (n, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with(key))
        .unwrap();
    let column = line.find(key).unwrap() + key.len() + 2;
    (n as u32 + 1, column as u32)
}

#[test]
fn the_unattended_grants_name_their_issuer_at_the_grant() {
    for (grant, rest) in [
        (
            "client_credentials",
            "      clientId: c\n      clientSecret: \"${S}\"\n",
        ),
        (
            "token_exchange",
            "      clientId: c\n      clientSecret: \"${S}\"\n",
        ),
        ("jwt_bearer", "      assertion: \"${A}\"\n"),
    ] {
        let text = graph(&format!("      grant: {grant}\n{rest}"));
        let (line, column) = value_at(&text, "grant:");
        let found = errors(&text);
        assert!(
            found.iter().any(|(l, c, m)| (*l, *c) == (line, column)
                && m.contains(&format!("the `{grant}` grant needs `issuer`"))),
            "{grant}: expected an error at {line}:{column}, got {found:?}"
        );
        let named = text.replace(
            "      grant:",
            "      issuer: https://as.example\n      grant:",
        );
        assert!(errors(&named).is_empty(), "{grant}: {:?}", errors(&named));
    }
    // A person's login and the enterprise grant learn it.
    assert!(errors(&graph("      clientId: a\n")).is_empty());
    let m = messages(&graph(
        "      issuer: as.example\n      grant: client_credentials\n      clientId: c\n      clientSecret: \"${S}\"\n",
    ));
    assert!(m.iter().any(|m| m.contains("must be an https")), "{m:?}");
}

#[test]
fn token_exchange_on_an_sse_server_is_refused_at_its_grant() {
    let text = graph(
        "      grant: token_exchange\n      issuer: https://as.example\n      clientId: c\n      clientSecret: \"${S}\"\n",
    )
    .replace("    type: http\n", "    type: sse\n");
    let (line, column) = value_at(&text, "grant:");
    let found = errors(&text);
    assert!(
        found.iter().any(|(l, c, m)| (*l, *c) == (line, column)
            && m.contains("`grant: token_exchange` is not for `sse` servers")),
        "expected an error at {line}:{column}, got {found:?}"
    );
    assert!(errors(&text.replace("    type: sse\n", "    type: http\n")).is_empty());
}

#[test]
fn auth_with_an_authorization_header_or_on_stdio_is_refused() {
    let text = graph("      clientId: a\n").replace(
        "    auth:\n",
        "    headers: {Authorization: \"Bearer ${T}\"}\n    auth:\n",
    );
    let m = messages(&text);
    assert!(
        m.iter()
            .any(|m| m.contains("both `auth` and an `Authorization` header")),
        "{m:?}"
    );
    let stdio = with_nodes(&format!("{ENTRY}{EXIT}")).replace(
        "    command: npx\n",
        "    command: npx\n    auth: {clientId: a}\n",
    );
    assert!(messages(&stdio).iter().any(|m| m.contains("`auth`")));
}
