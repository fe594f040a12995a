import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The renderer's own process, on a file of its own: nothing of the asset storage, so it
// runs once, with no S3 twin (see docs/storage.md).

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-store-render-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One large blur over a 4000 x 4000 drawing: about 14 s of work for libvips at this size. */
const slowSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000">' +
  '<filter id="f"><feGaussianBlur stdDeviation="1000"/></filter>' +
  '<rect width="4000" height="4000" filter="url(#f)"/></svg>';

describe('a render process whose service is gone', () => {
  const RENDERER = path.resolve(
    import.meta.dirname,
    '..',
    'src',
    'thumbnails',
    'thumbnail.renderer.ts',
  );
  const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

  /** The render process (a `node -e` running sharp) whose parent is `pid`, if any (/proc). */
  function renderProcessOf(pid: number): number | undefined {
    for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const command = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
        if (parent === pid && command.includes('sharpEntry')) return Number(name);
      } catch {
        // Gone meanwhile.
      }
    }
    return undefined;
  }

  /** Running or sleeping: neither gone nor a zombie waiting for its new parent to reap it. */
  function alive(pid: number): boolean {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  }
  // Skipped off Linux: whether the render process is gone is read from /proc.
  const onLinux = process.platform === 'linux' ? it : it.skip;

  onLinux(
    'stops itself once its service was killed before the render ended',
    async () => {
      const file = path.join(dir, 'orphaned-render.svg');
      fs.writeFileSync(file, slowSvg);
      // A service rendering with no libvips timeout and a kill a minute away, then killed.
      const script =
        `import { SharpRenderer } from ${JSON.stringify(RENDERER)};\n` +
        `await new SharpRenderer(0, 60_000).render(${JSON.stringify(file)}, ` +
        '{ width: 4096, height: 4096 });';
      const service = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          cwd: REPO_ROOT,
          stdio: 'ignore',
        },
      );
      let render: number | undefined;
      for (let i = 0; i < 300 && render === undefined; i++) {
        await new Promise((r) => setTimeout(r, 50));
        render = renderProcessOf(service.pid!);
      }
      expect(render).toBeDefined();
      service.kill('SIGKILL');
      const killed = performance.now();
      while (alive(render!) && performance.now() - killed < 5_000) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const lived = performance.now() - killed;
      if (alive(render!)) process.kill(render!, 'SIGKILL');
      // The render itself takes about 14 s.
      expect(lived).toBeLessThan(2_000);
    },
    60_000,
  );
});
