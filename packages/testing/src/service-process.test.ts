import { unfinishedRequest } from './raw-connection.js';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
    // The kill is scheduled when the loops are all busy again after the tenth answer, with
    // one operation out each. Usually the kill lands first and only the older two answer
    // (12). A test process stalled past both timers can let each loop's operation and the
    // one it starts next answer first: Node drains every expired timer of the operations'
    // list before it looks at the kill's, if that list's first timer is older (CI saw 13).
    // Still, each loop then has one more out, which the kill cuts off.
    expect(result.acknowledged.length).toBeGreaterThanOrEqual(10);
    expect(result.acknowledged.length).toBeLessThanOrEqual(10 + 2 * 3);
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

describe('unfinishedRequest', () => {
  const HEAD = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n';

  /** A server that reads bodies, or answers at once when `early`; resolves once listening. */
  async function server(early: boolean) {
    let received = '';
    const srv = http.createServer((req, res) => {
      if (early) res.writeHead(413, { 'Content-Length': '0' }).end();
      req.on('data', (chunk: Buffer) => (received += chunk.toString()));
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    return { srv, port: (srv.address() as AddressInfo).port, received: () => received };
  }

  it('stays in flight until the server goes away, and then counts as cut off', async () => {
    const { srv, port, received } = await server(false);
    const unfinished = await unfinishedRequest(port, HEAD, 'first part');
    await waitUntil(() => Promise.resolve(received() === 'first part'));
    let settled = false;
    void unfinished.cutOff.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    srv.closeAllConnections();
    srv.close();
    expect(await unfinished.cutOff).toBe(true);
  });

  it('does not count a request the server answered as cut off', async () => {
    const { srv, port } = await server(true);
    const unfinished = await unfinishedRequest(port, HEAD, 'first part');
    await new Promise((resolve) => setTimeout(resolve, 200));
    srv.closeAllConnections();
    srv.close();
    expect(await unfinished.cutOff).toBe(false);
  });
});
