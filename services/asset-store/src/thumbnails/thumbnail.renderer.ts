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
 * libvips through sharp: EXIF orientation applied first, then the largest size inside the
 * box with the aspect kept (never enlarged), transparency flattened on white, JPEG out.
 * sharp's default pixel limit stays on, so a decompression bomb becomes a placeholder.
 */
export const sharpRenderer: ThumbnailRenderer = {
  async render(file, box) {
    try {
      return await sharp(file)
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
