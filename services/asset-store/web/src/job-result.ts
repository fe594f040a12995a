import type { Job } from './api.js';
import { h } from './dom.js';

/** A count with its noun, singular or plural: `1 file`, `3 files`. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** A duration in milliseconds for people: `850 ms`, `2.4 s`, `3 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * A job's outcome in words, the way a person reads it (what `POST /admin/verify` or
 * `/admin/rebuild` would answer): the counts named, problems first, durations humanised.
 * Kinds or fields this console does not know yet are shown as labelled values, never as JSON.
 */
export function jobResult(job: Job): HTMLElement | null {
  if (job.error !== null)
    return h('p', { class: 'result bad', role: 'note' }, `Failed: ${job.error}`);
  const result = job.result as Record<string, unknown> | null;
  if (result === null) return null;
  const took = job.finished_at !== null ? job.finished_at - job.started_at : undefined;
  const lines: string[] = [];
  let bad = false;
  const n = (key: string): number => {
    const value = result[key];
    return typeof value === 'number' ? value : 0;
  };
  if (job.kind === 'verify') {
    const problems = n('corrupted') + n('missing');
    bad = problems > 0;
    lines.push(
      `Checked ${count(n('checked'), 'file')}: ${
        problems === 0
          ? 'all match their hashes'
          : `${n('corrupted').toLocaleString()} corrupted, ${n('missing').toLocaleString()} missing`
      }.`,
    );
  } else if (job.kind === 'rebuild') {
    bad = n('errors') > 0;
    const mode = result.mode === 'hard' ? 'Hard rebuild' : 'Rebuild';
    lines.push(
      `${mode}: scanned ${count(n('scanned'), 'file')}, indexed ${count(n('indexed'), 'asset')}, ${count(n('errors'), 'error')}.`,
    );
  } else {
    const known = new Set(['duration_ms']);
    const parts = Object.entries(result)
      .filter(([key]) => !known.has(key))
      .map(([key, value]) => `${key.replaceAll('_', ' ')}: ${String(value)}`);
    lines.push(`${parts.join(', ')}.`);
  }
  if (job.status === 'cancelled') lines.unshift('Cancelled; so far:');
  const ms = typeof result.duration_ms === 'number' ? result.duration_ms : took;
  if (ms !== undefined) lines.push(`Took ${formatDuration(ms)}.`);
  return h('p', { class: bad ? 'result bad' : 'result' }, lines.join(' '));
}
