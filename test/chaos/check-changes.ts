import { isDeepStrictEqual } from 'node:util';
import { API } from './asset-load.js';
import type { Instance } from './cluster.js';
import { call, type Anomaly } from './http.js';

/** An event of the change feed (CONTRACT, "changes and webhooks"). */
interface ChangeEvent {
  id: string;
  type: string;
  hash: string;
  data: Record<string, unknown> | null;
}

/** The fields of a record a change sets, as the feed's last event and the index must agree. */
const FIELDS = ['timestamp', 'tags', 'description', 'is_trashed'] as const;

/**
 * The change feed folded per asset must equal the index: every asset's last event carries
 * its record as the index holds it, and an asset that has events but no row was purged.
 * Answers undefined when this build has no feed (`/changes` is 404).
 */
export async function checkChanges(
  store: Instance,
  records: ReadonlyMap<string, object>,
): Promise<{ anomalies: Anomaly[]; events: number } | undefined> {
  const probe = await call(`${store.base}${API}/changes?limit=1`);
  if (probe.status === 404) return undefined;
  const anomalies: Anomaly[] = [];
  const last = new Map<string, ChangeEvent>();
  let after: string | undefined;
  let events = 0;
  for (;;) {
    const query = new URLSearchParams({ limit: '1000', ...(after ? { after } : {}) });
    const answer = await call(`${store.base}${API}/changes?${query.toString()}`);
    if (answer.status !== 200) throw new Error(`/changes answered ${answer.status}`);
    const page = (answer.body as { data: { events: ChangeEvent[]; next: string } }).data;
    for (const event of page.events) last.set(event.hash, event);
    events += page.events.length;
    if (page.events.length === 0) break;
    after = page.next;
  }
  for (const [hash, record] of records) {
    const event = last.get(hash);
    const pick = (r: object | null | undefined) =>
      Object.fromEntries(FIELDS.map((f) => [f, (r as Record<string, unknown> | null)?.[f]]));
    if (!event) anomalies.push({ kind: 'change feed misses an asset', detail: hash });
    else if (!isDeepStrictEqual(pick(event.data), pick(record))) {
      anomalies.push({
        kind: 'change feed disagrees with the index',
        detail: `${hash}: last event ${event.type} ${JSON.stringify(pick(event.data))}, index ${JSON.stringify(pick(record))}`,
      });
    }
  }
  for (const [hash, event] of last) {
    if (!records.has(hash) && event.type !== 'asset.purged') {
      anomalies.push({
        kind: 'change feed names an asset the index lacks',
        detail: `${hash} (${event.type})`,
      });
    }
  }
  return { anomalies, events };
}
