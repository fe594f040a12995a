import type { MessageRow } from './message.table.js';

/** A stored message as it travels to streams: the envelope stays the JSON text it arrived as. */
export interface RelayedMessage {
  seq: number;
  recipient: string;
  /** The envelope's JSON text, spliced verbatim into stream frames and inbox pages. */
  envelopeJson: string;
  /** RFC 3339 UTC with milliseconds. */
  createdAt: string;
}

/** What the relayed form is made from: a row as read, or as the writer stored it. */
export type StoredMessage = Pick<MessageRow, 'seq' | 'recipient' | 'envelope' | 'created_text'>;

/** A stored row in the relayed form. */
export function toRelayed(row: StoredMessage): RelayedMessage {
  return {
    seq: row.seq,
    recipient: row.recipient,
    envelopeJson: row.envelope,
    createdAt: row.created_text,
  };
}

/**
 * A message as JSON text `{seq, envelope, created_at}`, the envelope spliced in verbatim.
 * The inbox query writes the same text in SQL (`readInboxPage`).
 */
export function messageJson(m: RelayedMessage): string {
  return `{"seq":${m.seq},"envelope":${m.envelopeJson},"created_at":"${m.createdAt}"}`;
}
