import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
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
 * minutes.
 */
export const RENDER_TIMEOUT_SECONDS = 10;

/** How long past the timeout an SVG's render process may take to stop before it is killed. */
const KILL_GRACE_MS = 2000;

/** More than any JPEG of a 4096 x 4096 box: a child sending more is not the renderer. */
const MAX_JPEG_BYTES = 64 << 20;

/**
 * The one resize recipe: EXIF orientation applied first, then the largest size inside the
 * box with the aspect kept (never enlarged), transparency flattened on white, JPEG out.
 * sharp's default pixel limit stays on, so a decompression bomb fails. It is self-contained
 * (no closure, no import) because an SVG's render process runs its source text.
 */
function renderJpeg(
  sharpModule: typeof sharp,
  file: string,
  width: number,
  height: number,
  timeoutSeconds: number,
): Promise<Buffer> {
  return sharpModule(file)
    .timeout({ seconds: timeoutSeconds })
    .rotate()
    .resize(width, height, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80, mozjpeg: false })
    .toBuffer();
}

const SHARP_ENTRY = createRequire(import.meta.url).resolve('sharp');

/**
 * `node -e` with arguments: the service's pid, sharp's entry, the file, the box and the
 * timeout. A render whose service is gone (killed, or exited before its kill timer fired)
 * ends itself: no one else would. It kills itself outright, since an exit would wait for
 * the render's thread.
 */
const CHILD_SCRIPT = `
const [service, sharpEntry, file, width, height, seconds] = process.argv.slice(1);
setInterval(() => process.ppid !== +service && process.kill(process.pid, 'SIGKILL'), 250).unref();
(${renderJpeg.toString()})(require(sharpEntry), file, +width, +height, +seconds).then(
  (jpeg) => process.stdout.write(jpeg, () => process.exit(0)),
  () => process.exit(1),
);`;

/**
 * Renders in a process of its own, killed `killAfterMs` after it starts: libvips checks
 * its timeout only between tiles, and librsvg cannot be interrupted inside one, so a
 * crafted SVG could otherwise hold a render slot, and a shutdown, for minutes.
 */
function renderInChild(
  file: string,
  box: Box,
  timeoutSeconds: number,
  killAfterMs: number,
): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const args = [process.pid, SHARP_ENTRY, file, box.width, box.height, timeoutSeconds].map(
      String,
    );
    const child = spawn(process.execPath, ['-e', CHILD_SCRIPT, ...args], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    const settle = (jpeg: Buffer | undefined) => {
      clearTimeout(timer);
      resolve(jpeg);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_JPEG_BYTES) child.kill('SIGKILL');
      else chunks.push(chunk);
    });
    child.on('error', () => settle(undefined));
    child.on('close', (code) =>
      settle(code === 0 && size <= MAX_JPEG_BYTES ? Buffer.concat(chunks) : undefined),
    );
  });
}

/**
 * libvips through sharp; an image that cannot be decoded, or a render that outlasts
 * `timeoutSeconds` (0: no limit), gets a placeholder. SVGs render in a process that is
 * killed `killAfterMs` after it starts.
 */
export class SharpRenderer implements ThumbnailRenderer {
  constructor(
    private readonly timeoutSeconds = RENDER_TIMEOUT_SECONDS,
    private readonly killAfterMs = timeoutSeconds * 1000 + KILL_GRACE_MS,
  ) {}

  async render(file: string, box: Box): Promise<Buffer | undefined> {
    try {
      const { format } = await sharp(file).metadata();
      if (format === 'svg') {
        return await renderInChild(file, box, this.timeoutSeconds, this.killAfterMs);
      }
      return await renderJpeg(sharp, file, box.width, box.height, this.timeoutSeconds);
    } catch {
      return undefined;
    }
  }
}

/** The renderer the service uses. */
export const sharpRenderer: ThumbnailRenderer = new SharpRenderer();
