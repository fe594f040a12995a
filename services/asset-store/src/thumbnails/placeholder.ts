import type { Box } from './thumbnail.renderer.js';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * An SVG icon for content that has no picture: a square that fits the box, showing the
 * file's extension, scaled through its viewBox so any box size looks the same.
 */
export function placeholderSvg(extension: string, box: Box): Buffer {
  const side = Math.min(box.width, box.height);
  const label = escapeXml(extension.slice(0, 12));
  const fontSize = Math.min(28, Math.floor(160 / Math.max(label.length, 1)));
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}" viewBox="0 0 100 100">` +
      `<rect width="100" height="100" rx="8" fill="#eceff1"/>` +
      `<path d="M30 18h28l14 14v50H30z" fill="#ffffff" stroke="#90a4ae" stroke-width="2"/>` +
      `<text x="50" y="64" font-family="sans-serif" font-size="${fontSize}" font-weight="bold" ` +
      `text-anchor="middle" fill="#455a64">${label}</text></svg>`,
    'utf8',
  );
}
