const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** JSON's four whitespace characters: space, tab, line feed, carriage return. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Index just past the string whose opening quote is at `open`, or -1 when it never closes.
 * Jumps quote to quote with `indexOf`: a quote ends the string unless an odd run of
 * backslashes escapes it.
 */
function stringEnd(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let before = quote - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    if ((quote - 1 - before) % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** Index just past the value starting at `i`, or -1 when the text ends inside it. */
function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return stringEnd(text, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number or a literal: it runs to the next delimiter.
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i === -1) return -1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
    i++;
  }
  return -1;
}

/** `text[start, end)` without whitespace outside strings; one slice when there is none. */
function minify(text: string, start: number, end: number): string {
  let out = '';
  let from = start;
  let i = start;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
    } else if (isSpace(c)) {
      out += text.slice(from, i);
      i = skipSpace(text, i);
      from = i;
    } else {
      i++;
    }
  }
  return from === start ? text.slice(start, end) : out + text.slice(from, end);
}

/** Whether the key string `text[start, end)` (quotes included) names `name`, unescaped. */
function keyIs(text: string, start: number, end: number, name: string): boolean {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes('\\')) return raw === name;
  return JSON.parse(text.slice(start, end)) === name;
}

/**
 * The JSON text of member `name` of the object `text`, exactly as written there but for
 * whitespace outside strings (so it is one line: escapes and number spellings are kept,
 * where `JSON.stringify(JSON.parse(text)[name])` would round `12345678901234567890` or turn
 * `1e400` into `null`). Keys compare unescaped and the last duplicate wins, as in
 * `JSON.parse`. `undefined` when `text` is not an object or has no such member. `text` must
 * be JSON that `JSON.parse` accepted: the scan relies on it rather than checking it again.
 */
export function jsonMember(text: string, name: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  let found: [number, number] | undefined;
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyStart = i;
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1) return undefined;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (end <= start) return undefined;
    if (keyIs(text, keyStart, keyEnd, name)) found = [start, end];
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return found && minify(text, found[0], found[1]);
}
