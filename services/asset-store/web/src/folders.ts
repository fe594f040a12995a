import { ApiError, store } from './api.js';
import { h } from './dom.js';

/** The console URL of the same view with another folder (other filters kept). */
function withPath(search: string, path: string): string {
  const params = new URLSearchParams(search);
  if (path === '') params.delete('path');
  else params.set('path', path);
  const text = params.toString();
  return `/console/${text === '' ? '' : `?${text}`}`;
}

/**
 * Browsing by folder (`human_path`): breadcrumbs from the top level to the folder in the URL
 * (`path=`), then its subfolders with their counts (`GET /folders`). Every crumb and
 * subfolder is a link that keeps the other filters, so a folder view can be bookmarked.
 */
export function folderBar(search: string): HTMLElement {
  const path = (new URLSearchParams(search).get('path') ?? '').replace(/^\/+|\/+$/g, '');
  const parts = path === '' ? [] : path.split('/');
  const crumbs = h(
    'ol',
    { class: 'crumbs' },
    h(
      'li',
      {},
      parts.length === 0
        ? h('span', { 'aria-current': 'page' }, 'All folders')
        : h('a', { href: withPath(search, '') }, 'All folders'),
    ),
    ...parts.map((part, i) => {
      const prefix = parts.slice(0, i + 1).join('/');
      return h(
        'li',
        {},
        i === parts.length - 1
          ? h('span', { 'aria-current': 'page' }, part)
          : h('a', { href: withPath(search, prefix) }, part),
      );
    }),
  );
  const subfolders = h('ul', { class: 'subfolders', 'aria-label': 'Subfolders' });
  const bar = h('nav', { class: 'folders', 'aria-label': 'Folders' }, crumbs, subfolders);
  store
    .folders(path)
    .then((listing) => {
      subfolders.replaceChildren(
        ...listing.folders.map((f) =>
          h(
            'li',
            {},
            h(
              'a',
              { href: withPath(search, f.path), 'data-path': f.path },
              h('span', { class: 'folder-icon', 'aria-hidden': 'true' }, '▸ '),
              f.name,
              h('span', { class: 'count' }, ` (${f.count.toLocaleString()})`),
            ),
          ),
        ),
      );
      bar.dataset.loaded = 'true';
    })
    .catch((err: unknown) => {
      subfolders.replaceChildren(
        h(
          'li',
          { class: 'error' },
          err instanceof ApiError ? err.message : 'Folders did not load.',
        ),
      );
    });
  return bar;
}
