import {
  authLines,
  EnvelopeError,
  RelayClient,
  RelayClientError,
  signedAuthValue,
  type HandleRecord,
  type KeyPair,
} from '../../src/client/index.js';

/** The relay this page came from: the app talks to its own origin only. */
export function relayClient(): RelayClient {
  return new RelayClient({ baseUrl: location.origin });
}

/** A failure said in plain words, for the status line. */
export function plainWords(err: unknown, doing: string): string {
  if (err instanceof RelayClientError) {
    if (err.status === 409 && err.message.includes('handle')) {
      return 'That handle is taken. Try another one.';
    }
    if (err.status === 409) return 'This key already owns a handle.';
    if (err.status === 404) return `${doing}: no one has that handle.`;
    if (err.status === 429) return 'Too many requests. Wait a minute and try again.';
    if (err.status === 401) return `${doing}: the relay did not accept this key's signature.`;
    if (err.status >= 500) return `${doing}: the relay had a problem. Try again later.`;
    return `${doing}: ${err.message}.`;
  }
  if (err instanceof EnvelopeError) return `${doing}: ${err.message}.`;
  if (err instanceof TypeError) {
    return `${doing}: the relay cannot be reached. Check the connection; the app keeps trying.`;
  }
  return `${doing}: ${err instanceof Error ? err.message : String(err)}.`;
}

/** Looks up records once per page life: a conversation asks for its peer's key each send. */
export class RecordCache {
  private readonly records = new Map<string, Promise<HandleRecord>>();
  private readonly names = new Map<string, Promise<string | null>>();
  constructor(private readonly client: RelayClient) {}

  lookup(handle: string): Promise<HandleRecord> {
    const key = handle.toLowerCase();
    let record = this.records.get(key);
    if (!record) {
      record = this.client.lookup(key);
      // A failed lookup (a typo, the relay away) is asked again next time.
      record.catch(() => this.records.delete(key));
      this.records.set(key, record);
    }
    return record;
  }

  /** The handle owning `primary` (a reverse lookup, asked once), or null when none does. */
  handleOf(primary: string): Promise<string | null> {
    let name = this.names.get(primary);
    if (!name) {
      name = this.client.byPrimary(primary).then(
        (record) => record.handle,
        (err: unknown) => {
          if (err instanceof RelayClientError && err.status === 404) return null;
          this.names.delete(primary);
          throw err;
        },
      );
      this.names.set(primary, name);
    }
    return name;
  }
}

/** The relay's VAPID public key (base64url), for a push subscription. */
export async function vapidPublicKey(): Promise<string> {
  const res = await fetch('/v1/push/vapid-public-key');
  if (!res.ok) throw new RelayClientError(res.status, 'push', 'no push key');
  return ((await res.json()) as { key: string }).key;
}

/** `POST /v1/push/subscribe/{handle}`, signed, with the browser's subscription as is. */
export async function subscribePush(
  handle: string,
  keys: KeyPair,
  subscription: PushSubscriptionJSON,
): Promise<void> {
  const endpoint = subscription.endpoint ?? '';
  const auth = signedAuthValue(keys.secretKey, authLines.push('subscribe', handle, endpoint));
  const res = await fetch(`/v1/push/subscribe/${encodeURIComponent(handle)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-ID-Auth': auth },
    body: JSON.stringify(subscription),
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as {
      error?: { code?: string; message?: string };
    };
    throw new RelayClientError(
      res.status,
      body.error?.code ?? 'unknown',
      body.error?.message ?? `HTTP ${res.status}`,
    );
  }
}
