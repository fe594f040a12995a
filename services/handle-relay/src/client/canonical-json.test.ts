import { canonicalize } from 'json-canonicalize';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts the keys of an object holding a toJSON member, and of everything around it', () => {
    const sent = JSON.parse(
      '{"b":1,"toJSON":{"z":1,"a":2},"a":[{"toJSON":0,"y":1,"x":2},"é",1e21,-0]}',
    ) as unknown;
    expect(canonicalJson(sent)).toBe(
      '{"a":[{"toJSON":0,"x":2,"y":1},"é",1e+21,0],"b":1,"toJSON":{"a":2,"z":1}}',
    );
  });

  it.each([
    ['an object', '{"z":[1,{"b":null,"a":true}],"\\u20ac":"x","a\\nb":1.5}'],
    ['an array', '[3,"two",{"y":{},"x":[]}]'],
    ['a string', '"caf\\u00e9 \\ud83d\\ude00"'],
    ['a number', '5e-324'],
  ])('writes %s without one exactly as json-canonicalize does', (_what, text) => {
    const value = JSON.parse(text) as unknown;
    expect(canonicalJson(value)).toBe(canonicalize(value));
  });
});
