// Runs the Khronos glTF validator (npm package `gltf-validator`) over .gltf/.glb files
// and prints one JSON array: per file its issue counts and messages.
//
// Usage: node validate.js <dir holding node_modules/gltf-validator> <file>...
// Exit status 3 (with {"missing": ...} on stdout) when the package cannot be loaded.
'use strict';
const fs = require('fs');
const path = require('path');

const [dir, ...files] = process.argv.slice(2);
let validator;
try {
  validator = require(path.join(path.resolve(dir), 'node_modules', 'gltf-validator'));
} catch (e) {
  console.log(JSON.stringify({ missing: String(e && e.message) }));
  process.exit(3);
}

(async () => {
  const reports = [];
  for (const file of files) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 0,
      writeTimestamp: false,
      // Everything is embedded: any external reference is a failure.
      externalResourceFunction: (uri) => Promise.reject(new Error(`external resource ${uri}`)),
    });
    const issues = report.issues;
    reports.push({
      file,
      validatorVersion: report.validatorVersion,
      numErrors: issues.numErrors,
      numWarnings: issues.numWarnings,
      numInfos: issues.numInfos,
      numHints: issues.numHints,
      messages: issues.messages.map((m) => ({
        code: m.code,
        severity: m.severity,
        pointer: m.pointer,
        message: m.message,
      })),
    });
  }
  console.log(JSON.stringify(reports));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
