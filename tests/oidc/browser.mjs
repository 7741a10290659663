// A headless "browser" for the tests' logins (BROWSER=... as the login
// runs it: `browser.mjs URL`): follows the authorization server's
// redirects with its cookies until the one to the login's loopback
// callback, which it requests and stops. The provider (tests/oidc/
// provider.mjs with PERSON set) approves the login on the way.
const jar = new Map();
let url = process.argv[2];
// Where the login waits: told of a failure (with the login's state), it
// stops at once.
const callback = new URL(url).searchParams.get("redirect_uri");
const state = new URL(url).searchParams.get("state");
async function fail(why) {
  process.stderr.write(`browser.mjs: ${why}\n`);
  const query = new URLSearchParams({ error: "access_denied", state: state ?? "" });
  if (callback) await fetch(`${callback}?${query}`).catch(() => {});
  process.exit(1);
}
for (let hop = 0; hop < 20; hop++) {
  const target = new URL(url);
  const cookie = [...jar.entries()]
    .filter(([key]) => key.startsWith(`${target.host} `))
    .map(([key, value]) => `${key.split(" ")[1]}=${value}`)
    .join("; ");
  const response = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} }).catch(
    (e) => fail(`GET ${url}: ${e.message}`),
  );
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const at = pair.indexOf("=");
    jar.set(`${target.host} ${pair.slice(0, at).trim()}`, pair.slice(at + 1));
  }
  const location = response.headers.get("location");
  if (target.pathname === "/callback") process.exit(response.ok ? 0 : 1);
  if (!location) await fail(`GET ${url}: HTTP ${response.status} without a redirect`);
  url = new URL(location, url).href;
}
await fail("more than 20 redirects");
