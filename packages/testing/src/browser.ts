import fs from 'node:fs';

/** The system's Chromium (Debian's `chromium`), or `CHROMIUM_PATH`. */
export function findChromium(): string | undefined {
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  return candidates.find((file) => file !== undefined && fs.existsSync(file));
}

/**
 * `describe` when a Chromium is installed; without one, the suite is skipped with a line
 * saying so. Under CI a missing browser is a failure, not a skip: the suite would pass
 * without testing. Shared by both services' browser tests.
 */
export function describeInBrowser(): jest.Describe {
  if (findChromium()) return describe;
  if (process.env.CI) {
    throw new Error("no Chromium found (install Debian's chromium, or set CHROMIUM_PATH)");
  }
  console.warn('browser tests skipped: no Chromium found (apt-get install chromium)');
  // Skipped without a Chromium outside CI (CI fails above instead): no browser to drive.
  return describe.skip;
}
