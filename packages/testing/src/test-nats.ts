/** Set by the global setup when this run has no NATS server: why, for the skip message. */
const SKIP_ENV = 'TEST_NATS_SKIPPED';

/** This run's NATS server (`nats://host:port`), or undefined when there is none. */
export function testNatsUrl(): string | undefined {
  return process.env.TEST_NATS_URL || undefined;
}

let told = false;

/**
 * `describe` for suites that need NATS: run when the run has a NATS server (TEST_NATS_URL,
 * or the machine's own at 127.0.0.1:4222), else skipped with one message saying why.
 */
export function describeNats(name: string, body: (url: string) => void): void {
  const url = testNatsUrl();
  if (url) {
    describe(name, () => body(url));
    return;
  }
  if (!told) {
    told = true;
    console.log(
      `NATS suites skipped: ${process.env[SKIP_ENV] ?? 'no TEST_NATS_URL'} ` +
        '(start nats-server -js, or set TEST_NATS_URL)',
    );
  }
  // Skipped without a NATS server; the line above says why once per file, and CI starts one
  // where the machine has nats-server.
  describe.skip(name, () => {
    it('needs a NATS server', () => undefined);
  });
}
