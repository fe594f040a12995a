import { decodeUtf8, errors } from '@svc/envelope';

/**
 * The multipart parser reads text fields as latin1 (`defCharset`), one character per byte,
 * so that they can be decoded here as UTF-8 strictly: bytes that are not UTF-8 are a 400
 * naming the field, where the parser's own decoding would turn them into U+FFFD in silence.
 * A part that names its own charset was decoded by the parser, and is left as it is.
 */
export function decodeFormText(form: unknown): unknown {
  if (form === null || typeof form !== 'object' || Array.isArray(form)) return form;
  return Object.fromEntries(
    Object.entries(form).map(([name, value]) => [name, decodeValue(name, value)]),
  );
}

function decodeValue(name: string, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => decodeValue(name, item));
  if (typeof value !== 'string' || !/[\x80-\uffff]/.test(value)) return value;
  // A character past latin1 means the parser decoded the part itself (its own charset).
  if (/[\u0100-\uffff]/.test(value)) return value;
  const text = decodeUtf8(Buffer.from(value, 'latin1'));
  if (text === undefined) throw errors.invalidUtf8(name);
  return text;
}
