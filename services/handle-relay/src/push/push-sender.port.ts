/** A subscription as the sender needs it. */
export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** How one delivery ended: the push service's status, or a failure before any answer. */
export type PushOutcome = { status: number } | { error: Error };

/** Outside I/O of Web Push: encrypts `payload` for one target and posts it. */
export interface PushSender {
  send(target: PushTarget, payload: string): Promise<PushOutcome>;
  /** Ends the sender at once: deliveries still running end with an error outcome. */
  close(): Promise<void>;
}
