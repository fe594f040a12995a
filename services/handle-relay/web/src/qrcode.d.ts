// The one part of the `qrcode` package the app uses. @types/qrcode would bring Node's
// types (streams, Buffer) into the browser build's type check.
declare module 'qrcode' {
  /** The symbol's modules: `get(row, col)` is 1 for a dark one. */
  export interface BitMatrix {
    size: number;
    get(row: number, col: number): number;
  }
  export interface QRCode {
    modules: BitMatrix;
    version: number;
  }
  export function create(
    text: string,
    options?: { errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' },
  ): QRCode;
}
