import {
  chooseExtension,
  isInternal,
  parsePhysicalFilename,
  physicalFilename,
  sanitizeTag,
} from './layout.js';

const HASH = 'a'.repeat(64);

describe('storage layout', () => {
  it('treats any dot-folder segment as the service own', () => {
    expect(isInternal('.tmp/x')).toBe(true);
    expect(isInternal('shard/.meta/x.json')).toBe(true);
    expect(isInternal('shard/1_x.bin')).toBe(false);
    expect(isInternal('1_x.bin')).toBe(false);
  });

  it('names a file {timestamp}_{hash}_{tags}.{ext} with sanitised tags', () => {
    expect(
      physicalFilename({ timestamp: 12, hash: HASH, tags: ['a b', 'ü/x', 'ok-1'], ext: 'png' }),
    ).toBe(`12_${HASH}_a-b_--x_ok-1.png`);
  });

  it('leaves the tags part out when there are no tags', () => {
    expect(physicalFilename({ timestamp: 12, hash: HASH, tags: [], ext: 'bin' })).toBe(
      `12_${HASH}.bin`,
    );
  });

  it('cuts the tags part so the name stays within 255 bytes', () => {
    const tags = Array.from({ length: 64 }, (_, i) => `tag${i}`.padEnd(64, 'x'));
    const name = physicalFilename({ timestamp: 1_700_000_000_000, hash: HASH, tags, ext: 'json' });
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    expect(name).toMatch(new RegExp(`^1700000000000_${HASH}_tag0x+.*[^_]\\.json$`));
  });

  it('parses its own names back and rejects others', () => {
    expect(parsePhysicalFilename(`12_${HASH}_a-b_c.png`)).toEqual({
      timestamp: 12,
      hash: HASH,
      ext: 'png',
    });
    expect(parsePhysicalFilename(`12_${HASH}.bin`)).toEqual({
      timestamp: 12,
      hash: HASH,
      ext: 'bin',
    });
    expect(parsePhysicalFilename('notes.txt')).toBeUndefined();
    expect(parsePhysicalFilename(`12_${HASH.slice(1)}.bin`)).toBeUndefined();
  });

  it('replaces one astral character by one dash', () => {
    expect(sanitizeTag('a😀b')).toBe('a-b');
  });

  it('takes the extension from the MIME type, else the name, else bin', () => {
    expect(chooseExtension('png', 'x.jpg')).toBe('png');
    expect(chooseExtension(false, 'x.JPG')).toBe('jpg');
    expect(chooseExtension(false, 'x.we!rd')).toBe('bin');
    expect(chooseExtension(false, undefined)).toBe('bin');
  });
});
