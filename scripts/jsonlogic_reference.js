// Records what json-logic-js 2.0.5 (the engine mcpGraph runs switch rules
// with) gives for every case of the JSON Logic suites in testdata/jsonlogic,
// for mcpgraph-runtime/tests/jsonlogic_conformance.rs.
//
//   node scripts/jsonlogic_reference.js > mcpgraph-runtime/tests/jsonlogic_reference.json
//
// Needs bench/node_modules (json-logic-js 2.0.5). Each entry is
// {"result": <JSON.stringify of the value, undefined as null>} or
// {"error": <message>}, keyed `suite#n` as the conformance test names cases.
const path = require("path");
const root = path.join(__dirname, "..");
const jsonLogic = require(path.join(root, "bench/node_modules/json-logic-js"));
const suites = path.join(root, "testdata/jsonlogic");
const out = {};
for (const suite of require(path.join(suites, "index.json"))) {
  const cases = require(path.join(suites, suite)).filter((c) => typeof c === "object");
  cases.forEach((c, i) => {
    const id = `${suite}#${String(i + 1).padStart(3, "0")}`;
    try {
      const value = jsonLogic.apply(c.rule, c.data === undefined ? null : c.data);
      const text = JSON.stringify(value);
      out[id] = { result: text === undefined ? null : JSON.parse(text) };
    } catch (e) {
      out[id] = { error: String(e && e.message) };
    }
  });
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
