import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './compose-file.js';

const run = promisify(execFile);

/** The packages other projects install, by folder under `packages/`. */
export const PUBLISHED = ['asset-store-client', 'handle-relay-client', 'testcontainers'] as const;
export type Published = (typeof PUBLISHED)[number];

/** What a command printed, and its exit code. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a non-zero exit is returned, not thrown. */
export async function runIn(
  cwd: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
    };
  }
}

async function mustRun(cwd: string, command: string, args: string[]): Promise<string> {
  const ran = await runIn(cwd, command, args);
  if (ran.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`,
    );
  }
  return ran.stdout;
}

/** The first fenced block of a package's README in that language (its example). */
export function readmeExample(pkg: Published, language = 'js'): string {
  const readme = fs.readFileSync(path.join(ROOT, 'packages', pkg, 'README.md'), 'utf8');
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(readme);
  if (!match?.[1]) throw new Error(`packages/${pkg}/README.md has no \`\`\`${language} example`);
  return match[1];
}

/**
 * A project outside the workspace, as another team would start one: the packages built and
 * packed (`pnpm pack`, which writes real versions for `workspace:` and `catalog:`), then
 * installed from their tarballs with npm (their dependencies, and Jest, from the registry).
 */
export async function scratchProject(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'can-services-scratch-'));
  const tarballs: string[] = [];
  for (const pkg of PUBLISHED) {
    const pkgDir = path.join(ROOT, 'packages', pkg);
    await mustRun(pkgDir, process.execPath, [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      '--build',
    ]);
    const out = await mustRun(pkgDir, 'pnpm', ['pack', '--pack-destination', dir]);
    const tarball = out.trim().split('\n').pop() ?? '';
    tarballs.push(path.isAbsolute(tarball) ? tarball : path.join(dir, tarball));
  }
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'scratch',
        private: true,
        type: 'module',
        scripts: { test: 'node --experimental-vm-modules node_modules/jest/bin/jest.js' },
        jest: { testEnvironment: 'node', transform: {}, testMatch: ['**/*.test.mjs'] },
      },
      null,
      2,
    ),
  );
  await mustRun(dir, 'npm', [
    'install',
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    '--loglevel=error',
    ...tarballs,
    'jest@30',
  ]);
  return dir;
}
