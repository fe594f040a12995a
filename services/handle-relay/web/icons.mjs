// The app's icons, drawn here and encoded as PNG (no image tools, no binary files in git):
// a speech bubble on the accent colour. `maskable` keeps the bubble inside the safe zone
// (the inner 80 %) that Android crops to a circle or squircle; the others fill the square
// with rounded corners, as iOS and desktop shortcuts show them.
import zlib from 'node:zlib';

const ACCENT = [0x1f, 0x5f, 0xbf];
const WHITE = [0xff, 0xff, 0xff];

/** Coverage (0..1) of a rounded rectangle at pixel centre (x, y), antialiased by 1 px. */
function roundedRect(x, y, left, top, right, bottom, radius) {
  const cx = Math.min(Math.max(x, left + radius), right - radius);
  const cy = Math.min(Math.max(y, top + radius), bottom - radius);
  const inside = radius - Math.hypot(x - cx, y - cy);
  const edge = Math.min(x - left, right - x, y - top, bottom - y);
  return Math.max(0, Math.min(1, Math.min(inside, edge) + 0.5));
}

/** Coverage of the triangle (a, b, c) at (x, y), by 4x4 supersampling. */
function triangle(x, y, a, b, c) {
  const xs = [a[0], b[0], c[0]];
  const ys = [a[1], b[1], c[1]];
  if (x < Math.min(...xs) - 1 || x > Math.max(...xs) + 1) return 0;
  if (y < Math.min(...ys) - 1 || y > Math.max(...ys) + 1) return 0;
  const side = (p, q, r) => (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
  let hits = 0;
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      const p = [x - 0.5 + (i + 0.5) / 4, y - 0.5 + (j + 0.5) / 4];
      const s1 = side(a, b, p);
      const s2 = side(b, c, p);
      const s3 = side(c, a, p);
      if ((s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0)) hits++;
    }
  }
  return hits / 16;
}

/** RGBA pixels of the icon at `size`, as rows for PNG (each row led by filter byte 0). */
function draw(size, maskable) {
  const rows = Buffer.alloc(size * (size * 4 + 1));
  const u = size / 100;
  // The bubble: inside 80 % for maskable, a little larger otherwise.
  const scale = maskable ? 0.62 : 0.74;
  const o = (100 - 100 * scale) / 2;
  const at = (v) => (o + v * scale) * u;
  for (let y = 0; y < size; y++) {
    rows[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      const px = x + 0.5;
      const py = y + 0.5;
      const back = maskable ? 1 : roundedRect(px, py, 0, 0, size, size, size * 0.22);
      const bubble = Math.max(
        roundedRect(px, py, at(0), at(8), at(100), at(74), 16 * scale * u),
        triangle(px, py, [at(22), at(70)], [at(46), at(70)], [at(16), at(94)]),
      );
      // Three dots in the bubble, in the accent colour.
      let dots = 0;
      for (const dx of [28, 50, 72]) {
        const r = 7 * scale * u;
        dots = Math.max(
          dots,
          Math.max(0, Math.min(1, r - Math.hypot(px - at(dx), py - at(41)) + 0.5)),
        );
      }
      const white = bubble * (1 - dots);
      const i = y * (size * 4 + 1) + 1 + x * 4;
      for (let k = 0; k < 3; k++) {
        rows[i + k] = Math.round(ACCENT[k] * (1 - white) + WHITE[k] * white);
      }
      rows[i + 3] = Math.round(255 * back);
    }
  }
  return rows;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG of the icon, `size` pixels square. */
export function iconPng(size, { maskable = false } = {}) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(draw(size, maskable), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Every icon the manifest and index.html name: file name → PNG bytes. */
export function allIcons() {
  return {
    'icon-192.png': iconPng(192),
    'icon-512.png': iconPng(512),
    'icon-maskable-512.png': iconPng(512, { maskable: true }),
    'apple-touch-icon.png': iconPng(180, { maskable: true }),
  };
}
