import { create } from 'qrcode';

const SVG = 'http://www.w3.org/2000/svg';
/** The quiet zone a scanner needs around the code, in modules (ISO/IEC 18004). */
const QUIET = 4;

/**
 * `text` as a QR code drawn here as SVG (one path of dark modules): no image from
 * anywhere, and sharp at any size.
 */
export function qrCode(text: string, label: string): SVGSVGElement {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const side = modules.size + 2 * QUIET;
  let d = '';
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (modules.get(row, col)) d += `M${col + QUIET} ${row + QUIET}h1v1h-1z`;
    }
  }
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${side} ${side}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('class', 'qr');
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(side));
  background.setAttribute('height', String(side));
  background.setAttribute('fill', '#fff');
  const dark = document.createElementNS(SVG, 'path');
  dark.setAttribute('d', d);
  dark.setAttribute('fill', '#000');
  svg.append(background, dark);
  return svg;
}
