import type { InboxMessage } from '../../services/handle-relay/src/client/index.js';
import type { Instance } from './cluster.js';
import type { Anomaly } from './http.js';
import { relayClient, type RelayLoad, type User } from './relay-load.js';

/** A user's whole inbox, read through its signed cursor after every fault healed. */
export async function readInbox(relay: Instance, user: User): Promise<InboxMessage[]> {
  const client = relayClient(relay.base);
  const all: InboxMessage[] = [];
  let since = 0;
  for (;;) {
    const page = await client.inbox(user.handle, user.keys, { since, limit: 500 });
    all.push(...page.messages);
    if (!page.has_more || page.messages.length === 0) return all;
    since = page.next_since;
  }
}

/**
 * Reads every inbox back and reports what broke a promise: an acknowledged send missing or
 * at another seq, an inbox out of seq order or holding one envelope twice, a message the
 * poller's cursor had passed before it appeared (a gap that filled late: a reader paging by
 * `since` never sees it), and a stream that lost, repeated or reordered a message across
 * its reconnects.
 */
export function checkRelay(
  load: RelayLoad,
  inboxes: Map<string, InboxMessage[]>,
): { anomalies: Anomaly[]; figures: Record<string, number> } {
  const anomalies: Anomaly[] = [];
  const found = (kind: string, detail: string) => anomalies.push({ kind, detail });
  let messages = 0;
  let reconnects = 0;
  for (const user of load.users) {
    const inbox = inboxes.get(user.handle) ?? [];
    messages += inbox.length;
    const ids = new Map<string, number>();
    for (let i = 0; i < inbox.length; i++) {
      const m = inbox[i]!;
      if (i > 0 && m.seq <= inbox[i - 1]!.seq) {
        found('inbox out of seq order', `${user.handle}: ${inbox[i - 1]!.seq} then ${m.seq}`);
      }
      const id = (m.envelope as { chaos?: string } | null)?.chaos ?? '';
      const twice = ids.get(id);
      if (twice !== undefined)
        found('inbox holds an envelope twice', `${user.handle}: ${id} at ${twice} and ${m.seq}`);
      ids.set(id, m.seq);
      if (m.seq <= user.polledMax && !user.polled.has(m.seq)) {
        found(
          'gap filled late',
          `${user.handle}: seq ${m.seq} appeared after the cursor passed it`,
        );
      }
    }
    const streamed = user.streamed;
    const want = inbox.map((m) => m.seq);
    if (streamed.join(',') !== want.join(',')) {
      const missing = want.filter((seq) => !streamed.includes(seq));
      const repeated = streamed.filter((seq, i) => streamed.indexOf(seq) !== i);
      found(
        'stream not resumed exactly',
        `${user.handle}: ${streamed.length} delivered, ${want.length} stored; missing ${missing.slice(0, 10).join(' ')}; repeated ${repeated.slice(0, 10).join(' ')}`,
      );
    }
    reconnects += Math.max(0, user.connects - 1);
    const byId = new Map(inbox.map((m) => [(m.envelope as { chaos?: string }).chaos, m.seq]));
    for (const sent of load.acked.filter((a) => a.to === user.handle)) {
      const seq = byId.get(sent.id);
      if (seq === undefined)
        found('acknowledged message lost', `${user.handle}: ${sent.id} (seq ${sent.seq})`);
      else if (seq !== sent.seq)
        found('acknowledged message altered', `${sent.id}: seq ${seq}, acknowledged ${sent.seq}`);
    }
  }
  return { anomalies, figures: { messages_stored: messages, stream_reconnects: reconnects } };
}
