// Opens pages in headless Chromium over the DevTools protocol, for
// tests/tests/cli/picture.rs: `node page.mjs CHROMIUM OUT_DIR PAGE...`.
// For each page (a file), prints one JSON line: the elements that carry
// `data-node` (the picture's tool, the node, its classes), every request
// the page made besides itself, and where its screenshot went
// (OUT_DIR/<page name>.png, the whole page).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

// Node 20 has its WebSocket behind a flag (22 has it by default).
if (typeof WebSocket === "undefined") {
  const again = spawnSync(process.execPath, ["--experimental-websocket", ...process.argv.slice(1)], {
    stdio: "inherit",
  });
  process.exit(again.status ?? 1);
}

const [chromium, outDir, ...pages] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), "mcpgraph-chromium-"));
const browser = spawn(
  chromium,
  [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
    `--user-data-dir=${profile}`,
    "about:blank",
  ],
  { stdio: ["ignore", "ignore", "pipe"] },
);
let exited = false;
let socket;
browser.on("exit", (code) => {
  exited = true;
  if (!stopping) stop(1, `chromium exited (${code}) before the pages were checked`);
});
let stopping = false;
// Ends Chromium, and once it is gone (it writes its profile to the end),
// removes its profile and exits.
function stop(code, why) {
  stopping = true;
  if (why) process.stderr.write(`page.mjs: ${why}\n`);
  const done = () => {
    // Its helper processes may still be writing for a moment.
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      process.stderr.write(`page.mjs: left ${profile}: ${e.message}\n`);
    }
    process.exit(code);
  };
  if (exited) done();
  else {
    browser.on("exit", done);
    // Closed the way it closes itself, its helpers with it; killed if not.
    if (socket?.readyState === 1) socket.send(JSON.stringify({ id: 0, method: "Browser.close" }));
    else browser.kill("SIGKILL");
    setTimeout(() => browser.kill("SIGKILL"), 5000).unref();
  }
}
setTimeout(() => stop(1, "timed out after 60 s"), 60_000).unref();

// Chromium says where its DevTools listen on stderr.
const address = await new Promise((done) => {
  let text = "";
  browser.stderr.on("data", (chunk) => {
    text += chunk;
    const found = text.match(/DevTools listening on (ws:\/\/\S+)/);
    if (found) done(found[1]);
  });
});

socket = new WebSocket(address);
await new Promise((done, fail) => {
  socket.onopen = done;
  socket.onerror = () => fail(new Error(`cannot connect to ${address}`));
});
let nextId = 1;
const waiting = new Map();
const listeners = [];
socket.onmessage = (message) => {
  const data = JSON.parse(message.data);
  if (data.id && waiting.has(data.id)) {
    const { done, fail } = waiting.get(data.id);
    waiting.delete(data.id);
    if (data.error) fail(new Error(JSON.stringify(data.error)));
    else done(data.result);
  } else if (data.method) {
    for (const listener of listeners) listener(data);
  }
};
function send(method, params = {}, sessionId) {
  const id = nextId++;
  socket.send(JSON.stringify({ id, method, params, sessionId }));
  return new Promise((done, fail) => waiting.set(id, { done, fail }));
}

try {
  for (const page of pages) {
    const url = pathToFileURL(resolve(page)).href;
    const { targetId } = await send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
    const requests = [];
    let loaded;
    const load = new Promise((done) => (loaded = done));
    listeners.push((event) => {
      if (event.sessionId !== sessionId) return;
      if (event.method === "Network.requestWillBeSent" && event.params.request.url !== url) {
        requests.push(event.params.request.url);
      }
      if (event.method === "Page.loadEventFired") loaded();
    });
    await send("Network.enable", {}, sessionId);
    await send("Page.enable", {}, sessionId);
    await send("Emulation.setDeviceMetricsOverride", { width: 1100, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
    await send("Page.navigate", { url }, sessionId);
    await load;
    const evaluate = async (expression) =>
      (await send("Runtime.evaluate", { expression, returnByValue: true }, sessionId)).result.value;
    const nodes = await evaluate(`[...document.querySelectorAll("[data-node]")].map((e) => ({
      tool: e.closest("svg").dataset.tool, node: e.dataset.node, classes: e.getAttribute("class") }))`);
    const height = await evaluate("document.documentElement.scrollHeight");
    await send("Emulation.setDeviceMetricsOverride", { width: 1100, height, deviceScaleFactor: 1, mobile: false }, sessionId);
    const { data } = await send("Page.captureScreenshot", { format: "png" }, sessionId);
    const screenshot = join(outDir, `${basename(page).replace(/\.html$/, "")}.png`);
    writeFileSync(screenshot, Buffer.from(data, "base64"));
    process.stdout.write(`${JSON.stringify({ page, nodes, requests, screenshot })}\n`);
    await send("Target.closeTarget", { targetId });
  }
} catch (e) {
  stop(1, e.stack ?? String(e));
}
stop(0);
