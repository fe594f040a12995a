/**
 * Registers the hooks of a test file that shares one fixture among its tests: `build()`
 * before them, `close()` after them. The returned object stands for the fixture inside the
 * tests (and throws outside them), so a file reads `const t = useFileFixture(…)`.
 */
export function useFileFixture<T extends { close(): Promise<void> }>(
  build: () => Promise<T>,
  timeoutMs = 60_000,
): T {
  let current: T | undefined;
  const built = (): T => {
    if (current === undefined) throw new Error('the fixture exists only inside the tests');
    return current;
  };
  beforeAll(async () => {
    current = await build();
  }, timeoutMs);
  afterAll(async () => {
    await current?.close();
    current = undefined;
  }, timeoutMs);
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(built(), key) as unknown,
  });
}
