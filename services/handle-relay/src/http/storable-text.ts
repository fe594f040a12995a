/** A UTF-16 surrogate without its partner. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * True when PostgreSQL can keep `text` exactly as given: its `text` type refuses the NUL
 * character (an error that would surface as a 500), and a lone surrogate has no UTF-8 form
 * (it would be stored as U+FFFD). Client text that is stored is checked with this first.
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\0') && !LONE_SURROGATE.test(text);
}
