/** Most tags one asset may carry. */
export const MAX_TAGS = 64;
/** Longest tag, in characters. */
export const MAX_TAG_LENGTH = 64;

/** Trims, drops empty ones and drops duplicates keeping the first (contract, "Inputs"). */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = raw.trim();
    if (tag !== '' && !seen.has(tag)) seen.add(tag);
  }
  return [...seen];
}

/** A comma-separated tag string, split and normalised. */
export function splitTags(csv: string): string[] {
  return normalizeTags(csv.split(','));
}

/** Why a normalised tag list is not acceptable, or undefined when it is. */
export function tagsProblem(tags: readonly string[]): string | undefined {
  if (tags.length > MAX_TAGS) return `expected at most ${MAX_TAGS} tags`;
  const long = tags.find((t) => characterCount(t) > MAX_TAG_LENGTH);
  if (long !== undefined) return `expected each tag to have 1-${MAX_TAG_LENGTH} characters`;
  if (tags.some(hasNulCharacter)) return 'expected tags without NUL characters';
  if (tags.some(hasLoneSurrogate)) return 'expected tags without lone surrogates';
  return undefined;
}

/** True when `text` holds U+0000, which a Postgres `text` value cannot store. */
export function hasNulCharacter(text: string): boolean {
  return text.includes('\u0000');
}

/**
 * True when `text` holds half of a surrogate pair alone: UTF-8 cannot encode it, so the
 * attributes and the index would keep U+FFFD instead of what was sent.
 */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Surrogate}/u.test(text);
}

/** Length in Unicode characters (code points), not UTF-16 units. */
export function characterCount(text: string): number {
  return Array.from(text).length;
}
