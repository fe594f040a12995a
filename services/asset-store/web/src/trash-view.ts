import { ApiError, fetchPage, store, type Asset } from './api.js';
import { announce, formatTime, h } from './dom.js';

const SCAN = 1000;

/**
 * The trash: every trashed asset, newest first, each with Restore and a link to its view.
 * List and search have no "trashed only" filter, so this walks `/list?include_trashed` by
 * `offset_time` and keeps the trashed ones; "More" continues the walk.
 */
export function trashView(open: (hash: string) => void): HTMLElement {
  const body = h('tbody');
  const more = h('button', { type: 'button', onclick: () => void load() }, 'More');
  const note = h('p', { class: 'note' });
  const view = h(
    'section',
    { class: 'trash', 'aria-labelledby': 'trash-title' },
    h('h2', { id: 'trash-title' }, 'Trash'),
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Name'),
          h('th', { scope: 'col' }, 'Stored'),
          h('th', { scope: 'col' }, 'Tags'),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      body,
    ),
    note,
    more,
  );
  let cursor: number | undefined;
  let shown = 0;
  async function load(): Promise<void> {
    more.disabled = true;
    note.textContent = 'Looking…';
    let found = 0;
    let done = false;
    try {
      // Fill at least a screen, or reach the end.
      while (found < 50 && !done) {
        const params = new URLSearchParams({
          limit: String(SCAN),
          include_trashed: 'true',
          include_corrupted: 'true',
        });
        if (cursor !== undefined) params.set('offset_time', String(cursor));
        const page = await fetchPage('list', params);
        for (const asset of page.items.filter((a) => a.is_trashed)) {
          body.append(row(asset));
          found++;
        }
        cursor = page.items[page.items.length - 1]?.timestamp;
        done = page.items.length < SCAN;
      }
    } catch (err) {
      announce(err instanceof ApiError ? err.message : 'The asset store did not answer.');
    }
    shown += found;
    note.textContent = done ? (shown === 0 ? 'The trash is empty.' : 'End of the trash.') : '';
    more.hidden = done;
    more.disabled = false;
  }
  function row(asset: Asset): HTMLElement {
    const name = asset.human_filename ?? asset.hash.slice(0, 16);
    const tr = h(
      'tr',
      { 'data-hash': asset.hash },
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
      h('td', {}, formatTime(asset.timestamp)),
      h('td', {}, asset.tags.join(', ')),
      h(
        'td',
        {},
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
                  announce(`Restored ${name}.`);
                })
                .catch((err: unknown) =>
                  announce(err instanceof ApiError ? err.message : 'Restore failed.'),
                );
            },
          },
          'Restore',
        ),
      ),
    );
    return tr;
  }
  void load();
  return view;
}
