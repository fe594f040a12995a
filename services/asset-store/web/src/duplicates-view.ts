import { ApiError, store, type Asset, type DuplicatePage } from './api.js';
import { contentRows } from './asset-details.js';
import { announce, formatTime, h } from './dom.js';
import { loadThumb } from './thumbs.js';

/** Groups per request. */
const GROUPS = 20;

/**
 * Duplicates (`/console/duplicates`): contents held by more than one asset (`GET
 * /duplicates`), the most copies first; each copy with its thumbnail, name, folder, time and
 * a Move to trash, so a person keeps one and trashes the rest (restorable from the trash).
 */
export function duplicatesView(open: (hash: string) => void): HTMLElement {
  const list = h('ol', { class: 'dup-groups', 'aria-label': 'Duplicate groups' });
  const note = h('p', { class: 'note', role: 'status' });
  const more = h('button', { type: 'button', hidden: true, onclick: () => void load() }, 'More');
  const view = h(
    'section',
    { class: 'duplicates', 'aria-labelledby': 'dup-title' },
    h(
      'div',
      { class: 'view-head' },
      h('h2', { id: 'dup-title' }, 'Duplicates'),
      h(
        'p',
        { class: 'hint' },
        'Assets with the same content (SHA-256), the most copies first. Keep one and move the others to the trash.',
      ),
    ),
    list,
    note,
    more,
  );
  let offset = 0;
  async function load(): Promise<void> {
    more.hidden = true;
    note.textContent = 'Looking…';
    let page: DuplicatePage;
    try {
      page = await store.duplicates({ limit: GROUPS, offset });
    } catch (err) {
      note.textContent = err instanceof ApiError ? err.message : 'The asset store did not answer.';
      more.hidden = false;
      return;
    }
    for (const group of page.groups) list.append(groupItem(group));
    offset += page.groups.length;
    const done = offset >= page.pagination.total || page.groups.length === 0;
    more.hidden = done;
    note.textContent = done
      ? page.pagination.total === 0
        ? 'No duplicates: every content is stored once.'
        : `${page.pagination.total.toLocaleString()} contents stored more than once.`
      : '';
  }
  function groupItem(group: DuplicatePage['groups'][number]): HTMLElement {
    const size = contentRows(group.items[0]!).find(([k]) => k === 'Size')?.[1];
    return h(
      'li',
      { class: 'dup-group', 'data-sha256': group.sha256 },
      h(
        'h3',
        {},
        `${group.count} copies`,
        size ? h('span', { class: 'muted' }, ` · ${size.replace(/ \(.*\)$/, '')}`) : null,
        h('span', { class: 'muted mono' }, ` · SHA-256 ${group.sha256.slice(0, 12)}…`),
      ),
      h('ul', { class: 'dup-items' }, ...group.items.map((a) => copyItem(a))),
    );
  }
  function copyItem(a: Asset): HTMLElement {
    const name = a.human_filename ?? `${a.hash.slice(0, 12)}…`;
    const thumb = h('div', { class: 'mini-thumb', 'aria-hidden': 'true' });
    const trash = h(
      'button',
      {
        type: 'button',
        'aria-label': `Move ${name} (${formatTime(a.timestamp)}) to trash`,
        onclick: () => {
          store
            .trash(a.hash)
            .then(() => {
              item.dataset.trashed = 'true';
              trash.disabled = true;
              trash.textContent = 'In trash';
              announce(`Moved ${name} to the trash.`);
            })
            .catch((err: unknown) =>
              announce(err instanceof ApiError ? err.message : 'Trash failed.'),
            );
        },
      },
      'Move to trash',
    );
    const item = h(
      'li',
      { 'data-hash': a.hash },
      thumb,
      h(
        'div',
        { class: 'dup-text' },
        h(
          'a',
          {
            href: `/console/asset/${a.hash}`,
            onclick: (e: MouseEvent) => {
              e.preventDefault();
              open(a.hash);
            },
          },
          name,
        ),
        h('span', { class: 'muted' }, a.human_path ? `in ${a.human_path}` : 'no folder'),
        h('span', { class: 'muted' }, `stored ${formatTime(a.timestamp)}`),
      ),
      trash,
    );
    void loadThumb(a.hash, () => (item.isConnected ? 'visible' : 'gone')).then((t) => {
      if ('url' in t) thumb.append(h('img', { src: t.url, alt: '' }));
    });
    return item;
  }
  void load();
  return view;
}
