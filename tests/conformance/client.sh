#!/usr/bin/env bash
# The client command of the conformance suite's client mode
# (scripts/conformance.sh): the suite starts its mock server for
# MCP_CONFORMANCE_SCENARIO and runs this with the mock's URL. What the mock
# expects of a client is done through our client manager: the fixture
# binary (tests/graphs/conformance.yaml compiled) runs one of its tools,
# whose downstream server is the mock (`--mcp`), and for the scenarios about
# reading a server's tool schemas, `mcpgraph lock` lists the mock first.
# Set by conformance.sh: CONFORMANCE_FIXTURE, CONFORMANCE_MCPGRAPH,
# CONFORMANCE_NODE, CONFORMANCE_GRAPH, CONFORMANCE_WORK.
set -uo pipefail
url="$1"
scenario="${MCP_CONFORMANCE_SCENARIO:?}"
dir="$(mktemp -d "${CONFORMANCE_WORK:?}/client.XXXXXX")"
clients="$(cd "$(dirname "${BASH_SOURCE[0]}")/../clients" && pwd)"
status=0

# The fixture's downstream server NAME is the mock.
server() {
    printf '{"mcpServers":{"%s":{"type":"http","url":"%s"}}}' "$1" "$url" > "$dir/mcp.json"
}
# One tool call through the client manager; a failure is noted, and the
# next call still runs (the suite judges what the mock saw, not our status).
call() {
    "${CONFORMANCE_FIXTURE:?}" --mcp "$dir/mcp.json" call "$@" || status=1
}
# One tool call through the client manager for a client that answers the
# mock's questions: the TypeScript SDK client (tests/clients/ts_client.mjs)
# runs the fixture over stdio, and the fixture passes each question on to it
# (`--elicit ACTION`, $1). A tool error counts as a failure, as in `call`.
answered() {
    local out
    out="$("${CONFORMANCE_NODE:?}" "$clients/ts_client.mjs" --elicit "$1" \
        --calls "[{\"name\": \"$2\", \"arguments\": $3}]" \
        --stdio "${CONFORMANCE_FIXTURE:?}" --mcp "$dir/mcp.json")" || status=1
    printf '%s\n' "$out" >&2
    if grep -q '"isError":true' <<< "$out"; then status=1; fi
}
# `mcpgraph lock` of the server NAME (a copy of the graph, in $dir): lists
# the mock's tools and records them, as a graph's author does.
lock() {
    cp "${CONFORMANCE_GRAPH:?}" "$dir/graph.yaml"
    "${CONFORMANCE_MCPGRAPH:?}" lock "$dir/graph.yaml" --server "$1" --mcp "$dir/mcp.json" || status=1
}
# The fixture's server `oauth` is the mock, with `auth` $1 (JSON; secrets
# as ${VAR}, exported from the scenario's context by `from_context`).
oauth_server() {
    printf '{"mcpServers":{"oauth":{"type":"http","url":"%s","auth":%s}}}' "$url" "$1" > "$dir/mcp.json"
}
# Exports as OAUTH_ISSUER the authorization server the mock's
# protected-resource metadata names: the graph's author names it in `auth`
# (`issuer`, which the unattended grants need), as the server never
# chooses where the graph's credentials go.
mock_issuer() {
    local value
    value="$("${CONFORMANCE_NODE:?}" -e 'const u = new URL(process.argv[1]);
        const paths = [`/.well-known/oauth-protected-resource${u.pathname}`, "/.well-known/oauth-protected-resource"];
        (async () => {
            for (const p of paths) {
                const r = await fetch(new URL(p, u));
                const named = r.ok ? (await r.json()).authorization_servers?.[0] : undefined;
                if (named) { process.stdout.write(named); return; }
            }
            console.error("the mock names no authorization server"); process.exit(1);
        })()' "$url")" || status=1
    export OAUTH_ISSUER="$value"
}
# Exports the scenario context's value at key $2 as the variable $1.
from_context() {
    local value
    value="$("${CONFORMANCE_NODE:?}" -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
        if (typeof c[process.argv[1]] !== "string") { console.error(`no ${process.argv[1]} in the context`); process.exit(1); }
        process.stdout.write(c[process.argv[1]])' "$2")" || status=1
    export "$1=$value"
}
# Runs "$@" (`call` or `lock` of an auth/* scenario) with its stderr kept,
# then passed on. Any secret of the scenario found in it (a token the mock
# issued, the authorization code, a client secret, a private key, an ID
# token, an assertion) is noted in $CONFORMANCE_WORK/leaks, which fails the
# whole run (conformance.sh), even where the scenario allows the client's
# error. Debug logs are on (rmcp's OAuth logs at that level), unless the
# run sets RUST_LOG.
watched() {
    RUST_LOG="${RUST_LOG:-debug}" "$@" 2> "$dir/stderr"
    cat "$dir/stderr" >&2
    "${CONFORMANCE_NODE:?}" -e 'const text = require("fs").readFileSync(process.argv[1], "utf8");
        const secrets = {"an access token": "test-token", "a client-credentials token": "cc-token",
            "the registered client secret": "test-client-secret", "the authorization code": "test-auth-code"};
        for (const name of ["OAUTH_CLIENT_SECRET", "OAUTH_ID_TOKEN", "OAUTH_ASSERTION"])
            if (process.env[name]) secrets[name] = process.env[name];
        for (const line of (process.env.OAUTH_PRIVATE_KEY ?? "").split("\n"))
            if (line.trim() && !line.startsWith("-----")) secrets["OAUTH_PRIVATE_KEY"] = line.trim();
        for (const [name, value] of Object.entries(secrets))
            if (text.includes(value)) console.log(`${process.env.MCP_CONFORMANCE_SCENARIO}: ${name} in the stderr of ${process.argv[2]}`);' \
        "$dir/stderr" "$1" >> "${CONFORMANCE_WORK:?}/leaks"
}
# A value of the JSON file $1 at the JavaScript path $2, as JSON.
json_at() {
    "${CONFORMANCE_NODE:?}" -e 'const v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        process.stdout.write(JSON.stringify(process.argv[2].split(".").reduce((o, k) => o?.[k], v) ?? null))' "$1" "$2"
}
# The arguments of the scenario's context's tool call named $1.
context_args() {
    "${CONFORMANCE_NODE:?}" -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
        const t = (c.toolCalls ?? []).find(t => t.name === process.argv[1]);
        if (!t) { console.error(`no ${process.argv[1]} in the context`); process.exit(1); }
        process.stdout.write(JSON.stringify(t.arguments))' "$1"
}

case "$scenario" in
    http-custom-headers)
        # Listed first (the graph's lock), so the Mcp-Param-* headers go out.
        server headers
        call client_custom_headers "$(context_args test_custom_headers)"
        call client_custom_headers_null "$(context_args test_custom_headers_null)"
        ;;
    http-invalid-tool-headers)
        server invalid_headers
        call client_valid_tool '{"region": "us-west1"}'
        ;;
    json-schema-ref-no-deref)
        # The schema holds a network $ref that neither the lock nor the call
        # may fetch (the mock answers no tools/call: that call fails).
        server ref_schema
        lock ref_schema
        call client_lookup_user '{"id": "user-1"}'
        ;;
    json-schema-2020-12-preservation)
        # The schema the lock recorded goes back to the mock as an argument.
        server schema_echo
        lock schema_echo
        schema="$(json_at "$dir/graph.lock.json" servers.schema_echo.tools.json_schema_2020_12_tool.inputSchema)"
        call client_schema_echo "{\"schema\": $schema}"
        ;;
    sep-2322-client-request-state)
        # The mock's input_required rounds ask elicitation questions: the
        # client manager asks them of the calling client and retries.
        server mrtr
        answered accept client_mrtr '{}'
        ;;
    elicitation-sep1034-client-defaults)
        # The mock's form is answered by a client that fills in the
        # defaults (the TypeScript SDK's applyDefaults).
        server elicit_defaults
        answered defaults client_elicitation_defaults '{}'
        ;;
    auth/client-credentials-basic)
        # The graph's own credentials (an unattended server).
        from_context OAUTH_CLIENT_ID client_id
        from_context OAUTH_CLIENT_SECRET client_secret
        mock_issuer
        oauth_server '{"grant":"client_credentials","issuer":"${OAUTH_ISSUER}","clientId":"${OAUTH_CLIENT_ID}","clientSecret":"${OAUTH_CLIENT_SECRET}"}'
        watched call client_oauth '{}'
        ;;
    auth/client-credentials-jwt)
        from_context OAUTH_CLIENT_ID client_id
        from_context OAUTH_PRIVATE_KEY private_key_pem
        from_context OAUTH_SIGNING_ALGORITHM signing_algorithm
        mock_issuer
        oauth_server '{"grant":"client_credentials","issuer":"${OAUTH_ISSUER}","clientId":"${OAUTH_CLIENT_ID}","privateKey":"${OAUTH_PRIVATE_KEY}","signingAlgorithm":"'"$OAUTH_SIGNING_ALGORITHM"'"}'
        watched call client_oauth '{}'
        ;;
    auth/enterprise-managed-authorization)
        from_context OAUTH_CLIENT_ID client_id
        from_context OAUTH_CLIENT_SECRET client_secret
        from_context OAUTH_IDP_ISSUER idp_issuer
        from_context OAUTH_IDP_TOKEN_ENDPOINT idp_token_endpoint
        from_context OAUTH_IDP_CLIENT_ID idp_client_id
        from_context OAUTH_ID_TOKEN idp_id_token
        oauth_server '{"grant":"enterprise","clientId":"${OAUTH_CLIENT_ID}","clientSecret":"${OAUTH_CLIENT_SECRET}","enterprise":{"idpIssuer":"${OAUTH_IDP_ISSUER}","idpTokenEndpoint":"${OAUTH_IDP_TOKEN_ENDPOINT}","idpClientId":"${OAUTH_IDP_CLIENT_ID}","idToken":"${OAUTH_ID_TOKEN}"}}'
        watched call client_oauth '{}'
        ;;
    auth/wif-jwt-bearer)
        # A workload identity token as the grant's assertion.
        from_context OAUTH_CLIENT_ID client_id
        from_context OAUTH_ASSERTION valid_jwt
        mock_issuer
        oauth_server '{"grant":"jwt_bearer","issuer":"${OAUTH_ISSUER}","clientId":"${OAUTH_CLIENT_ID}","assertion":"${OAUTH_ASSERTION}"}'
        watched call client_oauth '{}'
        ;;
    auth/*)
        # A person's login (authorization code): `call` logs in when the
        # mock asks, opening the authorization URL with the headless
        # browser; the tokens are kept in this scenario's own data dir. The
        # client is the pre-registered one where the scenario gives one,
        # else the client ID metadata document the suite expects (where the
        # authorization server takes those), else one registered.
        export XDG_DATA_HOME="$dir/data"
        export BROWSER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/headless-browser.sh"
        if [[ "$scenario" == auth/pre-registration ]]; then
            from_context OAUTH_CLIENT_ID client_id
            from_context OAUTH_CLIENT_SECRET client_secret
            oauth_server '{"clientId":"${OAUTH_CLIENT_ID}","clientSecret":"${OAUTH_CLIENT_SECRET}"}'
        else
            oauth_server '{"clientMetadataUrl":"https://conformance-test.local/client-metadata.json"}'
        fi
        if [[ "$scenario" == auth/metadata-default ]]; then
            # `mcpgraph lock` logs in (its listing is refused first), and
            # the call after it, another process, uses the kept tokens.
            watched lock oauth
        fi
        watched call client_oauth '{}'
        ;;
    *)
        # initialize, tools_call, sse-retry, request-metadata,
        # http-standard-headers; sep-2640-* (listed) likewise.
        server suite
        call add '{"a": 2, "b": 3}'
        ;;
esac
exit "$status"
