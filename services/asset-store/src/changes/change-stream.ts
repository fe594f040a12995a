import type { Request, Response } from 'express';
import { AppError } from '@svc/envelope';
import type { ChangeEvent, ChangeFeed } from './change.service.js';

/** A comment line this often keeps proxies and clients from taking a quiet stream for dead. */
export const PING_MS = 15_000;
/** Events read per page while catching up. */
const PAGE = 1000;
/** How long a stream waits before reading again when the index does not answer. */
const RETRY_MS = 1_000;

function frame(event: ChangeEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Serves `GET /changes/stream` (Server-Sent Events): the events after `after` (from now
 * when absent), then each new one as it commits on any instance, with a comment every
 * `pingMs`. A cursor past retention is answered 410 before the stream starts. While the
 * index does not answer the stream only pings; it reads on from its cursor once it does.
 */
export async function streamChanges(
  req: Request,
  res: Response,
  feed: ChangeFeed,
  after: number | undefined,
  pingMs = PING_MS,
): Promise<void> {
  let cursor = after ?? (await feed.head());
  // The first page before the headers: a bad or gone cursor gets its error answer.
  let page: ChangeEvent[] | undefined = (await feed.page(cursor, PAGE)).events;
  const abort = new AbortController();
  const stop = () => abort.abort();
  req.on('close', stop);
  res.on('close', stop);
  feed.closing.addEventListener('abort', stop, { once: true });
  if (feed.closing.aborted) stop();
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  // An id without data dispatches nothing but sets the client's last event id (the SSE
  // rules): a reconnect before the first event resumes here, not from a later "now".
  res.write(`: stream of changes\nid: ${cursor}\nretry: 1000\n\n`);
  let lastWrite = Date.now();
  const write = async (text: string) => {
    lastWrite = Date.now();
    if (!res.write(text)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          abort.signal.removeEventListener('abort', done);
          resolve();
        };
        res.on('drain', done);
        abort.signal.addEventListener('abort', done, { once: true });
      });
    }
  };
  try {
    while (!abort.signal.aborted) {
      if (page) {
        for (const event of page) {
          await write(frame(event));
          if (abort.signal.aborted) return;
        }
        if (page.length > 0) cursor = Number(page.at(-1)!.id);
        if (page.length === PAGE) {
          page = await readPage(feed, cursor);
          continue;
        }
      }
      await feed.wait(cursor, Math.max(0, lastWrite + pingMs - Date.now()), abort.signal);
      if (abort.signal.aborted) return;
      if (Date.now() - lastWrite >= pingMs) await write(': ping\n\n');
      page = await readPage(feed, cursor);
      if (page === undefined) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  } catch (err) {
    // Pruned while the client lagged this far behind: the stream ends, a reconnect is told 410.
    if (!(err instanceof AppError && err.status === 410)) throw err;
  } finally {
    req.off('close', stop);
    res.off('close', stop);
    feed.closing.removeEventListener('abort', stop);
    if (!res.writableEnded) res.end();
  }
}

/** The next page, or undefined while the index does not answer. */
async function readPage(feed: ChangeFeed, cursor: number): Promise<ChangeEvent[] | undefined> {
  try {
    return (await feed.page(cursor, PAGE)).events;
  } catch (err) {
    if (err instanceof AppError && err.status === 410) throw err;
    return undefined;
  }
}
