// Validates each .glb named on the command line with the Khronos glTF
// validator and prints [{path, errors, warnings, messages}] as JSON
// (tests/support/gltf.py). External resources are refused: a .glb is whole.
"use strict";
const fs = require("fs");
const validator = require("gltf-validator");

async function one(path) {
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(path)), {
    maxIssues: 50,
    externalResourceFunction: () => Promise.reject(new Error("no external resources")),
  });
  const issues = report.issues;
  return {path, errors: issues.numErrors, warnings: issues.numWarnings,
          messages: issues.messages.map((m) => `${m.severity} ${m.code} ${m.pointer || ""}: ${m.message}`)};
}

Promise.all(process.argv.slice(2).map(one)).then(
  (out) => process.stdout.write(JSON.stringify(out)),
  (err) => { process.stderr.write(String(err) + "\n"); process.exit(2); });
