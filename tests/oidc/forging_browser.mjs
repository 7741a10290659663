// A login's browser, beaten to the login's loopback callback by a forger
// (any local process, or a web page the user has open, can send the
// browser there): first a callback with a code and a state of its own,
// whose HTTP status goes to stderr (`forged callback: HTTP 400`), then the
// real browser, tests/oidc/browser.mjs, on the same address.
const callback = new URL(process.argv[2]).searchParams.get("redirect_uri");
const forged = await fetch(`${callback}?code=forged-code&state=forged-state`).catch((e) => e);
process.stderr.write(`forged callback: HTTP ${forged.status ?? forged.message}\n`);
await import("./browser.mjs");
