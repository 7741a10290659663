// Graph load time of mcpGraph: `new McpGraphApi(file)` (read, parse, validate),
// the work it does at every start in place of compiling. Median of N runs per
// file, after one warm-up. Prints {"<file>": ms, ...} on stdout.
//
//   node bench/js/load.mjs RUNS FILE...
import { McpGraphApi } from 'mcpgraph';

const runs = Number(process.argv[2]);
const out = {};
for (const file of process.argv.slice(3)) {
  new McpGraphApi(file);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    new McpGraphApi(file);
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  out[file] = samples[Math.floor(samples.length / 2)];
}
console.log(JSON.stringify(out));
