import { messageJson, type RelayedMessage } from '../messages/message.model.js';

/**
 * One stored message as an SSE event. The envelope's JSON text is spliced in verbatim: it
 * came from JSON.stringify, so it holds no raw line break and the data line stays one line.
 */
export function messageFrame(m: RelayedMessage): string {
  return `id: ${m.seq}\nevent: message\ndata: ${messageJson(m)}\n\n`;
}

/** Keep-alive carrying the server's Unix time in seconds. */
export function pingFrame(unixSeconds: number): string {
  return `event: ping\ndata: ${unixSeconds}\n\n`;
}

/** Tells a subscriber that `dropped` messages overflowed its buffer: resync by polling. */
export function laggedFrame(dropped: number): string {
  return `event: lagged\ndata: {"dropped":${dropped}}\n\n`;
}
