import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnService } from '@svc/testing/service-process';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Each start loads the whole service through tsx.
const START_TIMEOUT_MS = 90_000;

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-relay-web-dir-'));
  fs.mkdirSync(path.join(dir, 'empty'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('handle-relay start-up with a web_dir that cannot serve the app', () => {
  it(
    'stops with exit 2 and one line naming web_dir, for a missing folder and one without index.html',
    async () => {
      const cases = [
        { web: path.join(dir, 'missing'), problem: 'is not a folder' },
        { web: path.join(dir, 'empty'), problem: 'holds no index.html' },
      ];
      const results = await Promise.all(
        cases.map(async ({ web }) => {
          const run = spawnService(ENTRY, [`--web-dir=${web}`], {
            HANDLE_RELAY_DB: path.join(dir, 'db'),
          });
          const { code } = await run.exited;
          return { code, stderr: run.stderr(), stdout: run.stdout() };
        }),
      );
      expect(results).toEqual(
        cases.map(({ web, problem }) => ({
          code: 2,
          stderr: `handle-relay: invalid configuration: web_dir: ${web} ${problem}\n`,
          stdout: '',
        })),
      );
      expect(fs.existsSync(path.join(dir, 'db'))).toBe(false);
    },
    START_TIMEOUT_MS,
  );
});
