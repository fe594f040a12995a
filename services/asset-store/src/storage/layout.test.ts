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

  it('cuts the tags part so the name is 255 bytes at most, no `_` left at the cut', () => {
    const tags = Array.from({ length: 64 }, (_, i) => `tag${i}`.padEnd(64, 'x'));
    const name = physicalFilename({ timestamp: 1_700_000_000_000, hash: HASH, tags, ext: 'json' });
    const joined = tags.join('_');
    const head = `1700000000000_${HASH}_`;
    expect(name).toBe(`${head}${joined.slice(0, 255 - head.length - '.json'.length)}.json`);
    expect(Buffer.byteLength(name)).toBe(255);
    // Cut right after a `_`: dropped, one byte short of the cap.
    const atSeparator = physicalFilename({
      timestamp: 1_700_000_000_000,
      hash: HASH,
      tags: ['a'.repeat(255 - head.length - '.json'.length - 1), 'b'],
      ext: 'json',
    });
    expect(Buffer.byteLength(atSeparator)).toBe(254);
    expect(atSeparator).toMatch(/a\.json$/);
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
