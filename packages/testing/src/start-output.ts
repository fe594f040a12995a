import net from 'node:net';
import { freePort, spawnService, spawnServiceInTerminal, waitUntil } from './service-process.js';
import { useServiceSandbox, type ServiceSandbox } from './service-sandbox.js';

// Each start loads the whole service; a fresh embedded database adds seconds.
const START_TIMEOUT_MS = 120_000;

/** What `startOutputSuite` needs to know of one service. */
export interface StartOutputService {
  /** The service's name, as its logs and its one-line messages give it. */
  name: string;
  /** Its `src/main.ts`. */
  entry: string;
  /** A config file in the sandbox: an embedded database there, listening on `port`. */
  config(sandbox: ServiceSandbox, port: number): string;
  /** The same with its database at `databaseUrl` instead, written as `starting.yaml`. */
  configOnDatabase(sandbox: ServiceSandbox, port: number, databaseUrl: string): string;
  /** The ready line, newline included. */
  ready(port: number): string;
  /** The one line when its port is taken, newline included. */
  portInUse(port: number): string;
  /** Checks what it serves once ready (its front end). */
  servesFrontEnd(port: number): Promise<void>;
}

/**
 * Both services' suite of what a person sees when starting one by hand: the ready line,
 * JSON logs into a pipe and readable ones on a terminal, exit 0 on (repeated) Ctrl-C, also
 * while still starting, and one line naming the setting when the port is taken.
 */
export function startOutputSuite(s: StartOutputService): void {
  const sandbox = useServiceSandbox(`${s.name}-output-`);

  it(
    'prints one plain line with its URLs once it serves, logs JSON lines into a pipe, and exits 0 on Ctrl-C (even a repeated one)',
    async () => {
      const port = await freePort();
      const service = spawnService(s.entry, [s.config(sandbox, port)]);
      sandbox.running = service;
      await waitUntil(() => Promise.resolve(service.stderr().includes('ready')), START_TIMEOUT_MS);
      expect(service.stderr()).toBe(s.ready(port));
      await s.servesFrontEnd(port);

      // pnpm passes a Ctrl-C on to its children: the service hears it more than once.
      service.child.kill('SIGINT');
      service.child.kill('SIGINT');
      expect(await service.exited).toEqual({ code: 0, signal: null });
      const lines = service.stdout().trimEnd().split('\n');
      const records = lines.map((line) => JSON.parse(line) as { msg?: string; name?: string });
      expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining(['listening', 'stopped']));
      expect(new Set(records.map((r) => r.name))).toEqual(new Set([s.name]));
      expect(service.stderr()).toBe(s.ready(port));
    },
    START_TIMEOUT_MS,
  );

  it(
    'names the setting in one line, without a stack, and exits 1 when its port is taken',
    async () => {
      const port = await freePort();
      const taken = net.createServer();
      await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
      try {
        const service = spawnService(s.entry, [s.config(sandbox, port)]);
        sandbox.running = service;
        expect(await service.exited).toEqual({ code: 1, signal: null });
        expect(service.stderr()).toBe(s.portInUse(port));
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    'writes readable log lines on a terminal and ends with exit 0 on Ctrl-C there',
    async () => {
      const port = await freePort();
      const service = spawnServiceInTerminal(s.entry, [s.config(sandbox, port)]);
      try {
        await waitUntil(
          () => Promise.resolve(service.screen().includes('ready')),
          START_TIMEOUT_MS,
        );
        const screen = service.screen();
        expect(screen).toContain(s.ready(port).replace('\n', '\r\n'));
        expect(screen).toMatch(
          new RegExp(`\\[\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\] .*INFO.* \\(${s.name}\\): .*listening`),
        );
        expect(screen).not.toContain('{"level"');
        service.interrupt();
        const exit = await service.exited;
        // Another end shows the screen in the diff: a failed shutdown logs its error there.
        expect({ ...exit, screen: exit.code === 0 ? '' : service.screen() }).toEqual({
          code: 0,
          signal: null,
          screen: '',
        });
        expect(service.screen()).toMatch(new RegExp(`INFO.* \\(${s.name}\\): .*stopped`));
      } finally {
        service.child.kill('SIGKILL');
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    'ends with exit 0, quietly, on Ctrl-C while it is still starting (its database not answering yet)',
    async () => {
      // A database that takes the connection and never answers: start-up waits there.
      const held: net.Socket[] = [];
      let connected!: () => void;
      const connection = new Promise<void>((resolve) => (connected = resolve));
      const silent = net.createServer((socket) => {
        held.push(socket);
        connected();
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const dbPort = (silent.address() as net.AddressInfo).port;
      try {
        const port = await freePort();
        const file = s.configOnDatabase(sandbox, port, `postgres://x@127.0.0.1:${dbPort}/x`);
        const service = spawnService(s.entry, [file]);
        sandbox.running = service;
        await connection;
        service.child.kill('SIGINT');
        expect(await service.exited).toEqual({ code: 0, signal: null });
        expect(service.stderr()).toBe('');
      } finally {
        for (const socket of held) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    },
    START_TIMEOUT_MS,
  );
}
