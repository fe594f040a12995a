/** An owner identity `ed25519:<hex>`; the key is kept as lowercase hex. */
export interface Primary {
  scheme: 'ed25519';
  keyHex: string;
}

const PRIMARY = /^ed25519:([0-9a-fA-F]{64})$/;

/** Parses `ed25519:<64 hex>` (either case); `undefined` for anything else. */
export function parsePrimary(value: string): Primary | undefined {
  const m = PRIMARY.exec(value);
  return m?.[1] ? { scheme: 'ed25519', keyHex: m[1].toLowerCase() } : undefined;
}

/** The stored spelling of a primary: `ed25519:<lowercase hex>`. */
export function formatPrimary(p: Primary): string {
  return `${p.scheme}:${p.keyHex}`;
}
