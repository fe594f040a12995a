// Prints "tests: N passed, N failed" over every Jest JSON result file given. A suite that fails
// to load has no failed test of its own: it counts as one failure, as does a missing file.
import fs from 'node:fs';

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    for (const suite of r.testResults ?? []) {
      const own = (suite.assertionResults ?? []).filter((a) => a.status === 'failed');
      if (suite.status === 'failed' && own.length === 0) failed += 1;
    }
  } catch (err) {
    console.error(`no Jest results in ${file}: ${err.message}`);
    failed += 1;
  }
}
console.log(`tests: ${passed} passed, ${failed} failed`);
