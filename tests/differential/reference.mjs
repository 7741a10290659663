// The reference side of the differential runner (tests/src/bin/differential):
// reads one case per line on stdin, evaluates it with the pinned JavaScript
// engines of bench/package.json (jsonata 2.2.2; json-logic-js 2.0.5 through
// mcpGraph 0.1.23's evaluateJsonLogic), and writes one result per line on
// stdout, in order.
//
//   {"id": 1, "kind": "jsonata", "expr": "a.b", "data": {...}}
//     -> {"id": 1, "value": ..} | {"id": 1, "undefined": true} | {"id": 1, "error": ".."},
//        plus "text": the text content mcpGraph's tool result would carry
//   {"id": 2, "kind": "logic", "rule": {...}, "data": {...}}
//     -> {"id": 2, "value": .. | "valueError": "..", "decision": bool | "decisionError": ".."}
//
// "data" absent means undefined.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";
import readline from "node:readline";

const bench = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../bench");
const require = createRequire(path.join(bench, "package.json"));
const jsonata = require("jsonata");
const jsonLogic = require("json-logic-js");

// mcpGraph logs every evaluation (to stderr), and json-logic-js's `log`
// writes to stdout, which is this process's answer channel: silence both.
console.log = () => {};
console.warn = () => {};
console.error = () => {};

const { evaluateJsonLogic } = await import(
    pathToFileURL(path.join(bench, "node_modules/mcpgraph/dist/expressions/json-logic.js")).href
);

/** The error as one line: its JSONata code first when it has one. */
function describe(e) {
    if (e && typeof e === "object") {
        const message = typeof e.message === "string" ? e.message : JSON.stringify(e);
        return e.code ? `${e.code}: ${message}` : message;
    }
    return String(e);
}

/** A JavaScript value as JSON would carry it (`undefined` stays undefined). */
function roundTrip(value) {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
}

/**
 * A node's expression time limit (the format's default maxExpressionTimeMs),
 * so that an expression written to hit it (tests/graphs/limits.yaml) ends
 * here too, with jsonata-js's own D1012.
 */
const OPTIONS = { timeout: 1000 };

async function runJsonata(request, out) {
    let result;
    try {
        result = await jsonata(request.expr, OPTIONS).evaluate(request.data);
    } catch (e) {
        out.error = describe(e);
        return;
    }
    let value;
    try {
        value = roundTrip(result);
        // mcpGraph's exit node: the previous output, `{}` when that is
        // falsy; its tool result's text: JSON.stringify of that.
        out.text = JSON.stringify(result || {});
    } catch (e) {
        // A value nested too deeply for JSON.stringify (a node's
        // maxValueDepth stops ours): node cannot return it either.
        delete out.text;
        out.error = describe(e);
        return;
    }
    if (value === undefined) out.undefined = true;
    else out.value = value;
}

/**
 * mcpGraph's preprocessJsonLogicRule (dist/expressions/json-logic.js), which
 * it does not export: every one-key `{var: S}` object replaced by the value
 * of S as JSONata on the context, wherever it is in the rule.
 */
async function substituteVars(rule, context) {
    if (typeof rule === "object" && rule !== null && "var" in rule && Object.keys(rule).length === 1) {
        return await jsonata(rule.var).evaluate(context);
    }
    if (Array.isArray(rule)) {
        return Promise.all(rule.map((item) => substituteVars(item, context)));
    }
    if (typeof rule === "object" && rule !== null) {
        const result = {};
        for (const [key, value] of Object.entries(rule)) {
            result[key] = await substituteVars(value, context);
        }
        return result;
    }
    return rule;
}

async function runLogic(request, out) {
    try {
        const processed = await substituteVars(request.rule, request.data);
        const value = roundTrip(jsonLogic.apply(processed, request.data));
        out.value = value === undefined ? null : value;
        if (value === undefined) out.valueUndefined = true;
    } catch (e) {
        out.valueError = describe(e);
    }
    try {
        out.decision = await evaluateJsonLogic(request.rule, request.data, [], 0);
    } catch (e) {
        out.decisionError = describe(e);
    }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let pending = [];
const flush = () => {
    if (pending.length) process.stdout.write(pending.join(""));
    pending = [];
};
for await (const line of lines) {
    if (!line) continue;
    const request = JSON.parse(line);
    const out = { id: request.id };
    const started = Date.now();
    if (process.env.DIFFERENTIAL_TRACE) process.stderr.write(`reference.mjs: ${line.slice(0, 300)}\n`);
    if (request.kind === "jsonata") await runJsonata(request, out);
    else await runLogic(request, out);
    if (Date.now() - started > 1000) {
        process.stderr.write(`reference.mjs: case ${request.id} took ${Date.now() - started} ms: ${line.slice(0, 300)}\n`);
    }
    pending.push(JSON.stringify(out) + "\n");
    if (pending.length >= 256) flush();
}
flush();
