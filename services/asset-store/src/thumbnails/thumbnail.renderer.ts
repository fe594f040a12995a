import sharp from 'sharp';

/** The box a thumbnail must fit in, in pixels. */
export interface Box {
  width: number;
  height: number;
}

/** The port that turns an image file into a JPEG thumbnail. */
export interface ThumbnailRenderer {
  /** JPEG bytes fitting `box`, or undefined when the file is not an image it can decode. */
  render(file: string, box: Box): Promise<Buffer | undefined>;
}

/**
 * A render still running after this long stops and the file gets a placeholder. An SVG a
 * few kilobytes long (a large blur on many layers) can otherwise keep a thread busy for
 * minutes. libvips checks the clock between tiles, so one tile's work still runs out.
 */
export const RENDER_TIMEOUT_SECONDS = 10;

/**
 * libvips through sharp: EXIF orientation applied first, then the largest size inside the
 * box with the aspect kept (never enlarged), transparency flattened on white, JPEG out.
 * sharp's default pixel limit stays on, so a decompression bomb becomes a placeholder, as
 * does a render that outlasts `timeoutSeconds`.
 */
export function createSharpRenderer(timeoutSeconds = RENDER_TIMEOUT_SECONDS): ThumbnailRenderer {
  return {
    async render(file, box) {
      try {
        return await sharp(file)
          .timeout({ seconds: timeoutSeconds })
          .rotate()
          .resize(box.width, box.height, { fit: 'inside', withoutEnlargement: true })
          .flatten({ background: '#ffffff' })
          .jpeg({ quality: 80, mozjpeg: false })
          .toBuffer();
      } catch {
        return undefined;
      }
    },
  };
}

/** The renderer the service uses. */
export const sharpRenderer = createSharpRenderer();
