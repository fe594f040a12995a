import { KeyedSerializer } from './keyed-serializer.js';

describe('keyed serializer', () => {
  it('runs one key’s tasks in call order, even when an earlier one is slower or fails', async () => {
    const s = new KeyedSerializer();
    const order: string[] = [];
    const slow = s.run('a', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('a1');
      throw new Error('a1 failed');
    });
    const fast = s.run('a', () => {
      order.push('a2');
      return Promise.resolve('a2');
    });
    const other = s.run('b', () => {
      order.push('b1');
      return Promise.resolve('b1');
    });
    await expect(slow).rejects.toThrow('a1 failed');
    await expect(fast).resolves.toBe('a2');
    await expect(other).resolves.toBe('b1');
    expect(order).toEqual(['b1', 'a1', 'a2']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.size).toBe(0);
  });
});
