// Prints "tests: N passed, N failed" over every Jest JSON result file given. A suite that fails
// to load has no failed test of its own: it counts as one failure, as does a missing file.
// Each failure is also summed up on stderr (its name and the start of its message, colours
// stripped) just before: whoever sees only the end of a long CI log still sees why.
import fs from 'node:fs';
import path from 'node:path';

const MESSAGE_LINES = 15;
// eslint-disable-next-line no-control-regex -- Jest colours its messages with ANSI escapes.
const plain = (text) => text.replace(/\u001b\[[0-9;]*m/g, '');
// The code frame (numbered source lines, the caret) is left out: the stack names the line.
const frame = /^\s*(>\s*)?(\d+\s*)?\|/;
const brief = (text) =>
  plain(text)
    .split('\n')
    .filter((line) => !frame.test(line) && line.trim() !== '')
    .slice(0, MESSAGE_LINES)
    .join('\n');

let passed = 0;
let failed = 0;
const why = [];
for (const file of process.argv.slice(2)) {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    for (const suite of r.testResults ?? []) {
      const own = (suite.assertionResults ?? []).filter((a) => a.status === 'failed');
      if (suite.status === 'failed' && own.length === 0) {
        failed += 1;
        why.push(`${path.relative('.', suite.name)}: the file failed\n${brief(suite.message ?? '')}`);
      }
      for (const a of own) {
        why.push(`${path.relative('.', suite.name)} › ${a.fullName}\n${brief((a.failureMessages ?? []).join('\n'))}`);
      }
    }
  } catch (err) {
    console.error(`no Jest results in ${file}: ${err.message}`);
    failed += 1;
  }
}
if (why.length > 0) console.error(`\nfailures (${why.length}):\n\n${why.join('\n\n')}\n`);
console.log(`tests: ${passed} passed, ${failed} failed`);
