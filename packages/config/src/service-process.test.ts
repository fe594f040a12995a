import { spawn } from 'node:child_process';
import { loadThenKill, stopIfRunning, waitUntil, type ServiceProcess } from './service-process.js';

/** A long-running child standing in for a service: only `child` and `exited` are used. */
function idleProcess(): ServiceProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    stdout: () => '',
    stderr: () => '',
    waitForLog: () => Promise.reject(new Error('no log')),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('loadThenKill', () => {
  it('kills the service while every loop has an operation out, once enough were acknowledged, and counts the cut-off ones', async () => {
    const service = idleProcess();
    const result = await loadThenKill(service, {
      workers: 3,
      killAfter: 10,
      op: async (n) => {
        await tick();
        if (service.child.signalCode !== null || service.child.killed) throw new Error('cut');
        return n;
      },
    });
    expect(await service.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Each loop has at most one operation out when the kill lands, and the one that brought
    // the loops back to all busy started a tick after the kill was scheduled, so it is cut.
    expect(result.acknowledged.length).toBeGreaterThanOrEqual(10);
    expect(result.acknowledged.length).toBeLessThanOrEqual(12);
    expect(result.cutOff).toBeGreaterThanOrEqual(1);
    expect(result.cutOff).toBeLessThanOrEqual(3);
    expect(new Set(result.acknowledged).size).toBe(result.acknowledged.length);
  });

  it('rethrows a failure that came before the kill, and still kills the service', async () => {
    const service = idleProcess();
    await expect(
      loadThenKill(service, {
        workers: 2,
        killAfter: 100,
        op: async (n) => {
          await tick();
          if (n === 3) throw new Error('answered 500');
          return n;
        },
      }),
    ).rejects.toThrow('answered 500');
    expect(await service.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});

describe('stopIfRunning and waitUntil', () => {
  it('stops a running process with the given signal, and leaves an ended one be', async () => {
    const service = idleProcess();
    await stopIfRunning(service, 'SIGTERM');
    expect(await service.exited).toEqual({ code: null, signal: 'SIGTERM' });
    await stopIfRunning(service);
    expect(service.child.signalCode).toBe('SIGTERM');
    await stopIfRunning(undefined);
  });

  it('waits until ready answers true, counting a throw as not yet, and gives up after the timeout', async () => {
    let calls = 0;
    await waitUntil(() => {
      calls += 1;
      if (calls === 1) return Promise.reject(new Error('refused'));
      return Promise.resolve(calls >= 3);
    });
    expect(calls).toBe(3);
    await expect(waitUntil(() => Promise.resolve(false), 250)).rejects.toThrow(
      'not ready within 250 ms',
    );
  });
});
