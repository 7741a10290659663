// The known-failures file of the conformance run (scripts/conformance.sh,
// tests/conformance/known-failures.json) and the run's report.
//
//   node conformance-report.mjs expected KNOWN OUT.yml
//       checks KNOWN (every group has a reason and one list, no entry
//       twice) and writes its `failing` entries in the suite's
//       --expected-failures format;
//   node conformance-report.mjs report KNOWN SERVER_DIR CLIENT_DIR
//       reads the checks.json files the suite wrote (-o), prints one line
//       per scenario and the counts, and exits 1 when the file and the run
//       disagree: a failure not listed, a listed entry that passes, a
//       vacuous pass not listed as such, a `vacuous` entry that ran checks
//       of its own, or a listed scenario that did not run.
import { readFileSync, writeFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const MODES = ["server", "client"];
// Added by the runner to every scenario; passing it alone exercises nothing.
const GENERIC = new Set(["wire-schema-valid"]);
const bad = (s) => s.status === "FAILURE" || s.status === "WARNING";

function readKnown(path) {
    const known = JSON.parse(readFileSync(path, "utf8"));
    const errors = [];
    const out = {};
    for (const mode of MODES) {
        out[mode] = { failing: new Map(), vacuous: new Map(), groups: [] };
        for (const [i, group] of (known[mode] ?? []).entries()) {
            const where = `${path}: ${mode} group ${i + 1}`;
            const reason = group.reason?.trim() ?? "";
            if (!reason || /\bTODO\b/.test(reason)) errors.push(`${where}: no reason`);
            const kinds = ["failing", "vacuous"].filter((k) => Array.isArray(group[k]));
            if (kinds.length !== 1) {
                errors.push(`${where}: needs exactly one of "failing" and "vacuous"`);
                continue;
            }
            out[mode].groups.push({ kind: kinds[0], reason, entries: group[kinds[0]] });
            for (const entry of group[kinds[0]]) {
                const seen = out[mode].failing.has(entry) || out[mode].vacuous.has(entry);
                if (seen) errors.push(`${where}: ${entry} is listed twice`);
                out[mode][kinds[0]].set(entry, reason);
            }
        }
    }
    if (errors.length) {
        console.error(errors.join("\n"));
        process.exit(1);
    }
    return out;
}

function writeExpected(known, path) {
    const lines = [];
    for (const mode of MODES) {
        lines.push(`${mode}:`);
        for (const entry of known[mode].failing.keys()) lines.push(`  - ${JSON.stringify(entry)}`);
        if (known[mode].failing.size === 0) lines[lines.length - 1] += " []";
    }
    writeFileSync(path, lines.join("\n") + "\n");
}

// scenario name -> its checks, from the suite's output directory.
function readRuns(dir, mode) {
    const runs = new Map();
    const walk = (d) => {
        for (const name of readdirSync(d)) {
            const p = join(d, name);
            if (!statSync(p).isDirectory()) continue;
            let checks;
            try {
                checks = JSON.parse(readFileSync(join(p, "checks.json"), "utf8"));
            } catch {
                walk(p);
                continue;
            }
            let scenario = relative(dir, p).replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
            if (mode === "server") scenario = scenario.replace(/^server-/, "");
            runs.set(scenario, checks);
        }
    };
    walk(dir);
    return runs;
}

function report(known, dirs) {
    const problems = [];
    const listedLines = [];
    for (const mode of MODES) {
        const runs = readRuns(dirs[mode], mode);
        const { failing, vacuous } = known[mode];
        const count = { pass: 0, vacuous: 0, listed: 0, failed: 0, ok: 0, checks: 0, skipped: 0 };
        const table = [];
        for (const [scenario, checks] of [...runs].sort()) {
            const scored = checks.filter((c) => c.status === "SUCCESS" || bad(c));
            count.ok += scored.filter((c) => c.status === "SUCCESS").length;
            count.checks += scored.length;
            count.skipped += checks.filter((c) => c.status === "SKIPPED").length;
            const failed = checks.filter(bad);
            const own = checks.filter((c) => c.status === "SUCCESS" && !GENERIC.has(c.id));
            const tally = `${scored.length - failed.length}/${scored.length}`;
            let mark;
            if (failing.has(scenario)) {
                if (failed.length === 0) problems.push(`${mode} ${scenario}: listed as failing, but passes (${tally})`);
                mark = "L";
                count.listed++;
            } else if (failed.length > 0) {
                const unlisted = failed.filter((c) => !failing.has(`${scenario}:${c.id}`));
                for (const c of unlisted) problems.push(`${mode} ${scenario}:${c.id}: ${c.status}, not listed (${c.errorMessage ?? ""})`);
                mark = unlisted.length ? "X" : "l";
                count[unlisted.length ? "failed" : "listed"]++;
            } else if (own.length === 0) {
                if (!vacuous.has(scenario)) problems.push(`${mode} ${scenario}: passes vacuously (no check of its own ran), not listed as vacuous`);
                mark = "V";
                count.vacuous++;
            } else {
                if (vacuous.has(scenario)) problems.push(`${mode} ${scenario}: listed as vacuous, but ran checks of its own (${tally})`);
                mark = "P";
                count.pass++;
            }
            for (const c of checks) {
                const entry = `${scenario}:${c.id}`;
                if (failing.has(entry) && c.status === "SUCCESS") problems.push(`${mode} ${entry}: listed as failing, but passes`);
            }
            table.push(`${mark} ${tally.padStart(5)} ${scenario}`);
        }
        for (const entry of [...failing.keys(), ...vacuous.keys()]) {
            const scenario = entry.split(":")[0];
            if (!runs.has(scenario)) problems.push(`${mode} ${entry}: listed, but the scenario did not run`);
            else if (entry.includes(":") && !runs.get(scenario).some((c) => `${scenario}:${c.id}` === entry))
                problems.push(`${mode} ${entry}: listed, but the scenario has no such check`);
        }
        const cols = 3;
        const rows = Math.ceil(table.length / cols);
        const width = Math.max(...table.map((t) => t.length)) + 2;
        console.log(`\n${mode} scenarios (P pass, V vacuous pass, l pass but for listed checks, L listed, X unexpected failure):`);
        for (let r = 0; r < rows; r++)
            console.log("  " + [0, 1, 2].map((c) => (table[c * rows + r] ?? "").padEnd(width)).join("").trimEnd());
        console.log(
            `conformance: ${mode}: ${count.pass}/${runs.size} scenarios pass (${count.vacuous} more vacuously), ` +
                `${count.listed} listed, ${count.failed} unexpected; checks ${count.ok}/${count.checks} passed (${count.skipped} skipped)`,
        );
        for (const { kind, reason, entries } of known[mode].groups)
            listedLines.push(`  ${mode}, ${kind} (${entries.length}): ${reason}\n      ${entries.join(", ")}`);
    }
    if (process.env.CONFORMANCE_REASONS) console.log(`\nlisted, with reasons:\n${listedLines.join("\n")}`);
    if (problems.length) {
        console.log(`\nconformance: the run and tests/conformance/known-failures.json disagree:\n  ${problems.join("\n  ")}`);
        process.exit(1);
    }
}

const [command, knownPath, ...rest] = process.argv.slice(2);
const known = readKnown(knownPath);
if (command === "expected") writeExpected(known, rest[0]);
else if (command === "report") report(known, { server: rest[0], client: rest[1] });
else {
    console.error("usage: conformance-report.mjs expected KNOWN OUT.yml | report KNOWN SERVER_DIR CLIENT_DIR");
    process.exit(2);
}
