import http from 'node:http';
import { waitFor } from './wait-for.js';

/** One parsed Server-Sent Event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** A raw SSE connection that records every event and can stall or drop on demand. */
export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  /** The stream's text as received, frames unparsed. */
  text: string;
  /** The `message` events' parsed data. */
  messages(): { seq: number; envelope: unknown; created_at: string }[];
  ended: boolean;
  /** Stops reading (the socket backs up); `resume` reads again. */
  pause(): void;
  resume(): void;
  waitForMessages(n: number, timeoutMs?: number): Promise<void>;
  waitForEvent(event: string, timeoutMs?: number): Promise<SseEvent>;
  /** Drops the connection like a lost network would. */
  close(): void;
}

/**
 * Opens `path` on a listening server and resolves once the response headers arrived (the
 * relay sends them only when the stream is subscribed).
 */
export function openSse(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}${path}`, { headers }, (res) => {
      let buffer = '';
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        text: '',
        ended: false,
        messages: () =>
          client.events
            .filter((e) => e.event === 'message')
            .map(
              (e) => JSON.parse(e.data) as { seq: number; envelope: unknown; created_at: string },
            ),
        pause: () => res.pause(),
        resume: () => res.resume(),
        waitForMessages: (n, timeoutMs = 10_000) =>
          waitFor(() => client.messages().length >= n, `${n} messages`, timeoutMs),
        waitForEvent: async (event, timeoutMs = 10_000) => {
          await waitFor(() => client.events.some((e) => e.event === event), event, timeoutMs);
          return client.events.find((e) => e.event === event)!;
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        client.text += chunk;
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const ev: SseEvent = { event: 'message', data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon === 0) continue;
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') ev.id = value;
            else if (field === 'event') ev.event = value;
            else if (field === 'data') data.push(value);
          }
          ev.data = data.join('\n');
          client.events.push(ev);
        }
      });
      res.on('end', () => (client.ended = true));
      res.on('close', () => (client.ended = true));
      res.on('error', () => (client.ended = true));
      resolve(client);
    });
    req.on('error', reject);
  });
}
