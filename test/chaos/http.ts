import { randomInt } from 'node:crypto';

/** A request's answer: its status and body (JSON when it parses, else the text). */
export interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

/**
 * One request with a bound on the whole exchange; a failure to get an answer (refused,
 * reset, timed out) rejects. Nothing is retried here: the caller decides what an answer
 * that never came means.
 */
export async function call(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 30_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? '' : JSON.parse(text);
  } catch {
    // Not JSON: the text as it is.
  }
  return { status: res.status, body, headers: res.headers };
}

/** A random element. */
export function pick<T>(items: readonly T[]): T {
  return items[randomInt(items.length)]!;
}

/** A whole number of ms in [min, max]. */
export function between(min: number, max: number): number {
  return min + randomInt(max - min + 1);
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Counts of operations by kind and outcome (`acked`, `refused 503`, `no answer`). */
export class Tally {
  readonly counts: Record<string, Record<string, number>> = {};
  /** Each refusal a well-formed request should never get (4xx): how many, the first words. */
  readonly refusals: Record<string, { count: number; first: string[] }> = {};

  add(kind: string, outcome: string): void {
    const bucket = (this.counts[kind] ??= {});
    bucket[outcome] = (bucket[outcome] ?? 0) + 1;
  }

  /** Counts an answer other than the one wanted, keeping a 4xx's words. */
  refused(kind: string, answer: Answer | undefined): void {
    if (!answer) {
      this.add(kind, 'no answer');
      return;
    }
    this.add(kind, `refused ${answer.status}`);
    if (answer.status >= 400 && answer.status < 500) {
      const seen = (this.refusals[`${kind} ${answer.status}`] ??= { count: 0, first: [] });
      seen.count += 1;
      if (seen.first.length < 5) seen.first.push(JSON.stringify(answer.body).slice(0, 300));
    }
  }
}

/** One finding of the checker: what kind of promise broke, and where. */
export interface Anomaly {
  kind: string;
  detail: string;
}
