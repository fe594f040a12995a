import { admin, ApiError, fetchPage, store, type Asset } from './api.js';
import { confirmAction } from './confirm.js';
import { announce, formatBytes, formatTime, h } from './dom.js';
import type { ChangeEvent } from './live.js';
import { forgetThumb, loadThumb } from './thumbs.js';

/** Rows of `/list` read per request while looking for trashed assets. */
const SCAN = 1000;
/** Trashed assets shown per "More": about a screen. */
const SCREEN = 50;

/** The message of a failed request, for the status line. */
function failure(err: unknown, what: string): string {
  return err instanceof ApiError
    ? `${what}: ${err.message}`
    : `${what}: the asset store did not answer.`;
}

/**
 * The trash: every trashed asset, newest first, with its thumbnail, Restore and Delete
 * forever (admin), and Empty trash (admin) for all of them. List and search have no
 * "trashed only" filter, so this walks `/list?include_trashed` by `offset_time` and keeps
 * the trashed ones; "More" continues the walk. "More" and "End of the trash" are never on
 * screen together: the end is said only once the walk has reached the last asset. `change`
 * takes the change feed's events: an asset trashed elsewhere joins in its place, one
 * restored or purged elsewhere leaves.
 */
export function trashView(open: (hash: string) => void): {
  view: HTMLElement;
  change: (event: ChangeEvent) => void;
} {
  const body = h('tbody');
  const more = h('button', { type: 'button', hidden: true, onclick: () => void load() }, 'More');
  const note = h('p', { class: 'note', role: 'status' });
  const empty = h(
    'button',
    { type: 'button', class: 'danger', disabled: true, onclick: () => void emptyTrash() },
    'Empty trash',
  );
  const table = h(
    'table',
    { 'aria-labelledby': 'trash-title' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Preview')),
        h('th', { scope: 'col' }, 'Name'),
        h('th', { scope: 'col' }, 'Size'),
        h('th', { scope: 'col' }, 'Stored'),
        h('th', { scope: 'col' }, 'Tags'),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
      ),
    ),
    body,
  );
  const view = h(
    'section',
    { class: 'trash', 'aria-labelledby': 'trash-title' },
    h(
      'div',
      { class: 'view-head' },
      h('h2', { id: 'trash-title' }, 'Trash'),
      h(
        'p',
        { class: 'hint' },
        'Restore brings an asset back; Delete forever and Empty trash remove files for good and need the admin token.',
      ),
      empty,
    ),
    table,
    note,
    more,
  );
  let cursor: number | undefined;
  let done = false;
  let busy = false;

  function settle(): void {
    const rows = body.children.length;
    empty.disabled = busy || (done && rows === 0);
    more.hidden = busy || done;
    more.disabled = busy;
    if (busy) return;
    note.textContent = !done ? '' : rows === 0 ? 'The trash is empty.' : 'End of the trash.';
  }

  /** Trashed assets found by the walk and not shown yet. */
  let pending: Asset[] = [];
  /** The walk reached the oldest asset. */
  let scanned = false;

  async function load(): Promise<void> {
    if (busy || done) return;
    busy = true;
    note.textContent = 'Looking…';
    settle();
    try {
      // A screen's worth found (one more, to know whether More has anything), or the end.
      while (pending.length <= SCREEN && !scanned) {
        const params = new URLSearchParams({
          limit: String(SCAN),
          include_trashed: 'true',
          include_corrupted: 'true',
        });
        if (cursor !== undefined) params.set('offset_time', String(cursor));
        const page = await fetchPage('list', params);
        pending.push(...page.items.filter((a) => a.is_trashed));
        cursor = page.items[page.items.length - 1]?.timestamp;
        scanned = page.items.length < SCAN;
      }
      for (const asset of pending.splice(0, SCREEN)) body.append(row(asset));
      done = scanned && pending.length === 0;
      busy = false;
      settle();
    } catch (err) {
      busy = false;
      settle();
      note.textContent = failure(err, 'Loading the trash failed');
    }
  }

  async function purge(asset: Asset, name: string, tr: HTMLElement): Promise<boolean> {
    try {
      await admin.purge(asset.hash);
    } catch (err) {
      // Already gone (purged elsewhere): what was asked is done.
      if (!(err instanceof ApiError && err.status === 404)) {
        announce(failure(err, `Deleting ${name} failed`));
        return false;
      }
    }
    forgetThumb(asset.hash);
    tr.remove();
    return true;
  }

  async function emptyTrash(): Promise<void> {
    const yes = await confirmAction(
      'Empty the trash?',
      'Every asset in the trash is deleted for good: its file, its attributes, its thumbnails and its index row. This cannot be undone.',
      'Delete all forever',
    );
    if (!yes) return;
    busy = true;
    settle();
    let deleted = 0;
    let failed = 0;
    try {
      // From the newest again, to the end: rows not loaded yet are trashed too.
      let at: number | undefined;
      for (;;) {
        const params = new URLSearchParams({
          limit: String(SCAN),
          include_trashed: 'true',
          include_corrupted: 'true',
        });
        if (at !== undefined) params.set('offset_time', String(at));
        const page = await fetchPage('list', params);
        for (const asset of page.items.filter((a) => a.is_trashed)) {
          try {
            await admin.purge(asset.hash);
          } catch (err) {
            if (!(err instanceof ApiError && err.status === 404)) {
              failed++;
              // The token refused or admin off: every other purge would fail alike.
              if (err instanceof ApiError && (err.status === 403 || err.status === 401)) throw err;
              continue;
            }
          }
          forgetThumb(asset.hash);
          body.querySelector(`tr[data-hash="${asset.hash}"]`)?.remove();
          deleted++;
          note.textContent = `Deleted ${deleted.toLocaleString()}…`;
        }
        at = page.items[page.items.length - 1]?.timestamp;
        if (page.items.length < SCAN) break;
      }
      done = true;
      scanned = true;
      pending = [];
      cursor = at;
      announce(
        `Deleted ${deleted.toLocaleString()} forever${failed ? `; ${failed.toLocaleString()} could not be deleted` : ''}.`,
      );
    } catch (err) {
      announce(failure(err, 'Emptying the trash failed'));
    }
    busy = false;
    settle();
  }

  function row(asset: Asset): HTMLElement {
    const name = asset.human_filename ?? asset.hash.slice(0, 16);
    const size = (asset as Asset & { size?: number | null }).size;
    const thumb = h('div', { class: 'mini-thumb', 'aria-hidden': 'true' });
    const tr: HTMLElement = h(
      'tr',
      { 'data-hash': asset.hash, 'data-time': asset.timestamp },
      h('td', {}, thumb),
      h(
        'td',
        {},
        h(
          'a',
          {
            href: `/console/asset/${asset.hash}`,
            onclick: (e: MouseEvent) => {
              e.preventDefault();
              open(asset.hash);
            },
          },
          name,
        ),
      ),
      h('td', {}, typeof size === 'number' ? formatBytes(size) : ''),
      h('td', {}, formatTime(asset.timestamp)),
      h('td', {}, asset.tags.join(', ')),
      h(
        'td',
        { class: 'row-actions' },
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Restore ${name}`,
            onclick: () => {
              store
                .restore(asset.hash)
                .then(() => {
                  tr.remove();
                  settle();
                  announce(`Restored ${name}.`);
                })
                .catch((err: unknown) => announce(failure(err, 'Restore failed')));
            },
          },
          'Restore',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'aria-label': `Delete ${name} forever`,
            onclick: () =>
              void confirmAction(
                `Delete ${name} forever?`,
                'Its file, attributes, thumbnails and index row are removed for good. This cannot be undone.',
                'Delete forever',
              ).then(async (yes) => {
                if (yes && (await purge(asset, name, tr))) {
                  settle();
                  announce(`Deleted ${name} forever.`);
                }
              }),
          },
          'Delete forever',
        ),
      ),
    );
    if (asset.is_corrupted) thumb.append(h('span', { class: 'no-preview' }, '—'));
    else
      void loadThumb(asset.hash, () => (tr.isConnected ? 'visible' : 'gone')).then((t) => {
        if ('url' in t) thumb.append(h('img', { src: t.url, alt: '' }));
      });
    return tr;
  }
  /** Puts an asset trashed elsewhere where the walk would have: among the rows, or pending. */
  function add(asset: Asset): void {
    if (body.querySelector(`tr[data-hash="${asset.hash}"]`)) return;
    const rows = [...body.querySelectorAll<HTMLElement>('tr')];
    const before = rows.find((tr) => Number(tr.dataset.time) < asset.timestamp);
    if (before) before.before(row(asset));
    else if (done) body.append(row(asset));
    else if (cursor !== undefined && asset.timestamp > cursor) {
      // Walked past already, below the rows shown: More shows it.
      pending.push(asset);
      pending.sort((a, b) => b.timestamp - a.timestamp);
    } else return;
    done = scanned && pending.length === 0;
    settle();
  }

  function change(event: ChangeEvent): void {
    if (event.type === 'asset.trashed' && event.data) return add(event.data);
    if (event.type !== 'asset.restored' && event.type !== 'asset.purged') return;
    body.querySelector(`tr[data-hash="${event.hash}"]`)?.remove();
    pending = pending.filter((a) => a.hash !== event.hash);
    settle();
  }

  void load();
  return { view, change };
}
