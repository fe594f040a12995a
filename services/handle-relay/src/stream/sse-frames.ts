import { messageJson, type RelayedMessage } from '../messages/message.model.js';

/** The last message framed and its frame, reused by every other stream of its handle. */
let lastMessage: RelayedMessage | undefined;
let lastFrame = '';

/**
 * One stored message as an SSE event. The envelope's JSON text is spliced in verbatim: it
 * was stored without whitespace outside strings, and JSON strings cannot hold a raw line
 * break, so the data line stays one line.
 * A message reaches all the streams of its handle one after the other, so the frame text is
 * built once per message, not once per stream.
 */
export function messageFrame(m: RelayedMessage): string {
  if (m !== lastMessage) {
    lastFrame = `id: ${m.seq}\nevent: message\ndata: ${messageJson(m)}\n\n`;
    lastMessage = m;
  }
  return lastFrame;
}

/** Keep-alive carrying the server's Unix time in seconds. */
export function pingFrame(unixSeconds: number): string {
  return `event: ping\ndata: ${unixSeconds}\n\n`;
}

/** Tells a subscriber that `dropped` messages overflowed its buffer: resync by polling. */
export function laggedFrame(dropped: number): string {
  return `event: lagged\ndata: {"dropped":${dropped}}\n\n`;
}
