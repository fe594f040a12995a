import { jsonMember } from './json-member.js';

/** The member as `jsonMember` reads it, after checking the text really is JSON. */
function member(text: string, name = 'envelope'): string | undefined {
  JSON.parse(text);
  return jsonMember(text, name);
}

describe('jsonMember', () => {
  it('keeps number spellings that a parse and stringify would change', () => {
    const text = '{"n":12345678901234567890,"f":1.50,"z":-0,"big":1e400,"e":2E-3}';
    expect(member(`{"envelope":${text}}`)).toBe(text);
  });

  it('keeps string escapes as written, and raw non-ASCII characters as they are', () => {
    const text = String.raw`"a\u00e9\n\/\"\\\ud83d\ude00 é 😀"`;
    expect(member(`{"envelope":${text}}`)).toBe(text);
  });

  it.each([
    ['a number', '42'],
    ['a negative fraction', '-0.000'],
    ['a string', '"text"'],
    ['null', 'null'],
    ['true', 'true'],
    ['false', 'false'],
    ['an empty object', '{}'],
    ['an empty array', '[]'],
    ['nested arrays', '[[1,[2,[3,[]]]],[{"a":[[]]}]]'],
    ['nested objects', '{"a":{"b":{"c":{}}},"d":[{"e":null}]}'],
  ])('returns %s as its text', (_name, value) => {
    expect(member(`{"envelope":${value}}`)).toBe(value);
    expect(member(`{"before":1,"envelope":${value},"after":[2]}`)).toBe(value);
  });

  it('drops whitespace outside strings, every kind of it, keeping it inside strings', () => {
    const text = '{\n\t"envelope" :\r\n {\n  "a" : [ 1 ,\t2 ] ,\r\n  "s" : " x \\t y "\n }\n}\n';
    expect(member(text)).toBe('{"a":[1,2],"s":" x \\t y "}');
    expect(member(' { "envelope" : 7 , "to" : "x" } ')).toBe('7');
    expect(member('{"envelope"   :   "spaced"}')).toBe('"spaced"');
  });

  it('returns a long value without whitespace unchanged', () => {
    const value = `"${'x'.repeat(100_000)}"`;
    expect(member(`{"to":"bob","envelope":${value}}`)).toBe(value);
  });

  it('skips braces, brackets, commas and quotes inside strings', () => {
    const tricky = String.raw`{"k}":"]},{\"envelope\":1}","x":["[","{",",",":"]}`;
    expect(member(`{"a":${tricky},"envelope":${tricky}}`)).toBe(tricky);
    expect(member(String.raw`{"a":"\"envelope\":2","envelope":3}`)).toBe('3');
  });

  it('reads a backslash run before a quote by its parity', () => {
    expect(member(String.raw`{"a":"\\","envelope":"\\\"\\"}`)).toBe(String.raw`"\\\"\\"`);
    expect(member(String.raw`{"a":"x\\\\","envelope":1}`)).toBe('1');
  });

  it('compares keys after unescaping them', () => {
    expect(member(String.raw`{"envel\u006fpe":"escaped"}`)).toBe('"escaped"');
    expect(member(String.raw`{"\u0065nvelope":1,"envelop\u0065 ":2}`)).toBe('1');
    expect(member(String.raw`{"envelope\\":1}`)).toBeUndefined();
    expect(member(String.raw`{"a\"b":1}`, 'a"b')).toBe('1');
  });

  it('takes the last of duplicate members, as JSON.parse does', () => {
    const text = String.raw`{"envelope":1,"to":"x","envel\u006fpe":{"b":2},"envelope":[3]}`;
    expect(member(text)).toBe('[3]');
    expect(JSON.parse(text)).toEqual({ envelope: [3], to: 'x' });
  });

  it('looks only at top-level members', () => {
    expect(member('{"a":{"envelope":1},"b":[{"envelope":2}]}')).toBeUndefined();
    expect(member('{"a":{"envelope":1},"envelope":2}')).toBe('2');
  });

  it.each([
    ['an array', '[{"envelope":1}]'],
    ['a string', '"envelope"'],
    ['a number', '1'],
    ['an empty object', '{}'],
    ['an object without the member', '{"to":"bob","env":1}'],
  ])('answers undefined for %s', (_name, text) => {
    expect(member(text)).toBeUndefined();
  });

  it('agrees with JSON.stringify on values it writes the same way, however they are indented', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const pieces = ['a', ' ', '"', '\\', '{', '}', '[', ']', ',', ':', '\n', 'é', '😀'];
    const value = (depth: number): unknown => {
      const kind = random(depth > 3 ? 4 : 6);
      if (kind === 0) return random(2_000) - 1_000;
      if (kind === 1) return Array.from({ length: random(6) }, () => pieces[random(13)]).join('');
      if (kind === 2) return [null, true, false][random(3)];
      if (kind === 3) return random(1_000) / 8;
      if (kind === 4) return Array.from({ length: random(4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: random(4) }, (_, k) => [`k${k}`, value(depth + 1)]),
      );
    };
    for (let n = 0; n < 500; n++) {
      const envelope = value(0);
      const text = JSON.stringify({ to: 'bob', envelope, after: value(2) }, null, random(4));
      expect(member(text)).toBe(JSON.stringify(envelope));
    }
  });

  it('ends without hanging on text that is not JSON, which callers never pass', () => {
    for (const text of [
      '',
      '{',
      '{"envelope',
      '{"envelope":',
      '{"envelope":"abc',
      '{"envelope":[1',
    ]) {
      expect(jsonMember(text, 'envelope')).toBeUndefined();
    }
  });
});
