import sharp from 'sharp';

/** What an asset's content says about it as a picture (contract, "finding things"). */
export interface MediaFacts {
  /** Pixels, after EXIF orientation; null when not an image sharp can read. */
  width: number | null;
  height: number | null;
  /** EXIF `DateTimeOriginal` as epoch ms, else null. */
  taken_at: number | null;
}

/** The facts of content that is not a readable image. */
export const NO_MEDIA: MediaFacts = Object.freeze({ width: null, height: null, taken_at: null });

/**
 * How much of an image is read for its facts: formats put their size and EXIF before the
 * pixels (a JPEG's EXIF segment is at most 64 KiB), so this leaves room for large ones.
 */
export const PROBE_BYTES = 1 << 20;

/** True for the MIME types worth handing to sharp: the `image/*` family. */
export function isImageType(mimeType: string): boolean {
  return mimeType.startsWith('image/');
}

/**
 * Reads width, height and date taken from an image's header (a file path, or its leading
 * bytes: formats keep these before the pixels). Anything sharp cannot read gives nulls,
 * never an error: the asset is stored either way.
 */
export async function probeMedia(input: string | Buffer): Promise<MediaFacts> {
  try {
    const meta = await sharp(input, { failOn: 'none' }).metadata();
    const { width, height } = meta.autoOrient;
    if (!(width > 0 && height > 0)) return NO_MEDIA;
    return { width, height, taken_at: meta.exif ? exifTakenAt(meta.exif) : null };
  } catch {
    return NO_MEDIA;
  }
}

const DATE_TIME_ORIGINAL = 0x9003;
const OFFSET_TIME_ORIGINAL = 0x9011;
const EXIF_IFD_POINTER = 0x8769;
const ASCII = 2;

/**
 * `DateTimeOriginal` ("YYYY:MM:DD HH:MM:SS") from a raw EXIF block (TIFF structure, with
 * or without the `Exif\0\0` prefix), as epoch ms. The camera's clock has no zone: the
 * time is read as UTC unless `OffsetTimeOriginal` ("+02:00") gives its offset. Null when
 * absent or malformed.
 */
export function exifTakenAt(exif: Buffer): number | null {
  try {
    const tiff = exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? exif.subarray(6) : exif;
    const order = tiff.toString('latin1', 0, 2);
    if (order !== 'II' && order !== 'MM') return null;
    const le = order === 'II';
    const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
    const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
    /** The entries of the IFD at `offset`: tag → [type, count, value-or-offset position]. */
    const entries = (offset: number) => {
      const found = new Map<number, { type: number; count: number; at: number }>();
      const n = u16(offset);
      for (let i = 0; i < n; i++) {
        const at = offset + 2 + i * 12;
        found.set(u16(at), { type: u16(at + 2), count: u32(at + 4), at: at + 8 });
      }
      return found;
    };
    const ascii = (e: { type: number; count: number; at: number } | undefined) => {
      if (!e || e.type !== ASCII) return undefined;
      const start = e.count <= 4 ? e.at : u32(e.at);
      return tiff.toString('latin1', start, start + e.count).replace(/\0.*$/s, '');
    };
    const ifd0 = entries(u32(4));
    const pointer = ifd0.get(EXIF_IFD_POINTER);
    if (!pointer) return null;
    const exifIfd = entries(u32(pointer.at));
    const text = ascii(exifIfd.get(DATE_TIME_ORIGINAL));
    const m = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})/.exec(text ?? '');
    if (!m) return null;
    const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const ms = Date.UTC(y, mo - 1, d, h, mi, s);
    if (!Number.isFinite(ms) || y === 0 || mo === 0 || d === 0) return null;
    const offset = /^([+-])(\d{2}):(\d{2})$/.exec(ascii(exifIfd.get(OFFSET_TIME_ORIGINAL)) ?? '');
    if (!offset) return ms;
    const sign = offset[1] === '-' ? -1 : 1;
    return ms - sign * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000;
  } catch {
    return null;
  }
}
