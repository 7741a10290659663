#!/usr/bin/env bash
# The browser ($BROWSER) of the auth/* client scenarios (client.sh): a
# person's login opens the authorization URL $1 with it. The suite's mock
# authorization server approves at once with a redirect to our loopback
# callback, so this GETs the URL without following the redirect, then GETs
# its Location, as a browser would. An authorization server that answers
# without a redirect gets the callback an error (RFC 6749 §4.1.2.1), so the
# login ends now rather than at its time limit.
exec "${CONFORMANCE_NODE:?}" -e '
const url = new URL(process.argv[1]);
(async () => {
    const answer = await fetch(url, { redirect: "manual" });
    let next = answer.headers.get("location");
    if (!next) {
        const back = new URL(url.searchParams.get("redirect_uri"));
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("error_description", `the authorization endpoint answered ${answer.status}`);
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        next = back.href;
    }
    await fetch(new URL(next, url));
})().catch(e => { console.error(`headless-browser: ${e}`); process.exit(1); });
' "$1"
