// Micro-benchmarks of the JavaScript side, same cases and same method as the
// harness's Rust side (bench/src/micro.rs): warm up, then batches of about
// 20 ms, median time per operation. Prints one JSON object on stdout.
//
//   node bench/js/micro.mjs bench/js/cases.json [--quick]
//
// - jsonata:       jsonata-js, expression compiled once, `await evaluate(data)`
// - mcpgraph_path: mcpGraph 0.1.23's own evaluateJsonata (it compiles the
//                  expression on every evaluation, and logs at debug level)
// - switch:        mcpGraph's switch decision: evaluateJsonLogic per
//                  condition, in order, until one is true (20 conditions)
//
// mcpGraph writes its debug log on stderr: run with stderr sent to /dev/null.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import jsonata from 'jsonata';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'node_modules', 'mcpgraph', 'dist');
// mcpGraph's package `exports` hide these modules; import them by path.
const { evaluateJsonata } = await import(pathToFileURL(join(dist, 'expressions', 'jsonata.js')));
const { evaluateJsonLogic } = await import(pathToFileURL(join(dist, 'expressions', 'json-logic.js')));

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const quick = process.argv.includes('--quick');
const BATCHES = quick ? 5 : 15;
const BATCH_MS = 20;

async function nsPerOp(op) {
  // Warm-up (JIT) and calibration.
  let iters = 1;
  const warmEnd = performance.now() + (quick ? 100 : 300);
  while (performance.now() < warmEnd) {
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) await op();
    const dt = performance.now() - t0;
    if (dt < BATCH_MS) iters = Math.max(iters * 2, Math.ceil(iters * BATCH_MS / Math.max(dt, 0.001)));
  }
  const samples = [];
  for (let b = 0; b < BATCHES; b++) {
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) await op();
    samples.push(((performance.now() - t0) * 1e6) / iters);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

const out = { jsonata: {}, mcpgraph_path: {}, switch: {} };
for (const { name, expr } of cases.expressions) {
  const compiled = jsonata(expr);
  out.jsonata[name] = await nsPerOp(() => compiled.evaluate(cases.data));
  out.mcpgraph_path[name] = await nsPerOp(() => evaluateJsonata(expr, cases.data, [], 0));
}

// The switch sees {entry, fan}: the wide fan's input and its 50 fields.
const fanExpr = cases.expressions.find((e) => e.name.startsWith('wide fan')).expr;
const context = { entry: cases.data.entry };
context.fan = await jsonata(fanExpr).evaluate(context);
const decide = async () => {
  for (const condition of cases.switch) {
    if (await evaluateJsonLogic(condition.rule, context, [], 2)) return condition.target;
  }
  return 'miss';
};
if ((await decide()) !== 'hit') throw new Error('switch did not route to hit');
out.switch['wide fan switch (20 conditions)'] = await nsPerOp(decide);
console.log(JSON.stringify(out));
