import { parsePrimary } from '../auth/primary-key.js';
import {
  foldHandle,
  handleProblem,
  isValidHandle,
  parseQualifiedHandle,
  requireValidHandle,
} from './handle-rules.js';

describe('handle rules', () => {
  it.each(['abc', 'a'.repeat(32), 'a_b-c', '9lives', 'bob'])('accepts %s', (h) => {
    expect(isValidHandle(h)).toBe(true);
  });

  it.each([
    ['ab', 'handle must be 3-32 characters'],
    ['a'.repeat(33), 'handle must be 3-32 characters'],
    ['Alice', 'handle may contain only lowercase letters a-z, digits 0-9, _ and -'],
    ['al.ice', 'handle may contain only lowercase letters a-z, digits 0-9, _ and -'],
    ['_alice', 'handle must start with a letter or digit'],
    ['-alice', 'handle must start with a letter or digit'],
    ['admin', 'handle admin is reserved'],
    ['no-reply', 'handle no-reply is reserved'],
  ])('refuses %s: %s', (h, message) => {
    expect(handleProblem(h)).toBe(message);
  });

  it('folds case for lookups and paths', () => {
    expect(foldHandle('AlIcE')).toBe('alice');
    expect(requireValidHandle('AlIcE')).toBe('alice');
    expect(() => requireValidHandle('ROOT')).toThrow('handle root is reserved');
    // Only ASCII folds: the Kelvin sign lowercases to "k" in JavaScript.
    expect(foldHandle('\u212Aate')).toBe('\u212Aate');
    expect(() => requireValidHandle('\u212Aate')).toThrow('handle may contain only');
  });

  it('splits a qualified handle at the last @', () => {
    expect(parseQualifiedHandle('alice@relay.test')).toEqual({
      handle: 'alice',
      server: 'relay.test',
    });
    expect(parseQualifiedHandle('alice')).toBeUndefined();
    expect(parseQualifiedHandle('@relay.test')).toBeUndefined();
    expect(parseQualifiedHandle('alice@')).toBeUndefined();
  });

  it('parses ed25519 primaries, lowercasing the hex', () => {
    expect(parsePrimary(`ed25519:${'AB'.repeat(32)}`)).toEqual({
      scheme: 'ed25519',
      keyHex: 'ab'.repeat(32),
    });
    expect(parsePrimary(`ed25519:${'ab'.repeat(31)}`)).toBeUndefined();
    expect(parsePrimary(`rsa:${'ab'.repeat(32)}`)).toBeUndefined();
  });
});
