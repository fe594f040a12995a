import type { Logger } from 'pino';
import { listenWithReconnect, type ListenClient } from '../pubsub/listen-connection.js';
import { ROTATION_CHANNEL } from './sigchain.repository.js';

/**
 * Hears every instance's rotations (`NOTIFY handle_relay_rotations '<handle> <old key>'`,
 * sent at the rotation's commit) and hands each to `rotated`, so the streams the old key
 * opened end on every instance. Once listening again after a lost connection it calls
 * `caughtUp` to read what it may have missed meanwhile; returns its close.
 */
export async function listenForRotations(deps: {
  connect: () => Promise<ListenClient>;
  rotated: (handle: string, oldKey: string) => void;
  caughtUp: () => Promise<void>;
  logger: Logger;
}): Promise<() => Promise<void>> {
  const listening = await listenWithReconnect({
    connect: deps.connect,
    channel: ROTATION_CHANNEL,
    heard: (payload) => {
      const space = payload.indexOf(' ');
      if (space > 0) deps.rotated(payload.slice(0, space), payload.slice(space + 1));
    },
    reconnected: deps.caughtUp,
    logger: deps.logger,
  });
  return listening.close;
}
