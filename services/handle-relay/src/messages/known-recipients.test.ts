import { KnownRecipients } from './known-recipients.js';

describe('KnownRecipients', () => {
  it('remembers the handles it was told exist, and no others', () => {
    const known = new KnownRecipients();
    known.add('alice');
    expect(known.has('alice')).toBe(true);
    expect(known.has('bob')).toBe(false);
  });

  it('starts over once full, so it never grows past its capacity', () => {
    const known = new KnownRecipients(2);
    known.add('a');
    known.add('b');
    known.add('c');
    expect([known.has('a'), known.has('b'), known.has('c')]).toEqual([false, false, true]);
  });
});
