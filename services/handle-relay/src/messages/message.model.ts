/** A stored message as it travels to streams: the envelope stays the JSON text it arrived as. */
export interface RelayedMessage {
  seq: number;
  recipient: string;
  /** The envelope's JSON text, spliced verbatim into stream frames and inbox pages. */
  envelopeJson: string;
  /** RFC 3339 UTC with milliseconds. */
  createdAt: string;
}
