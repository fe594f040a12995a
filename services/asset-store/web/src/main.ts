import type { Asset } from './api.js';
import { assetChanged, showAsset } from './asset-dialog.js';
import { byId, h } from './dom.js';
import { filterForm, queryFromUrl } from './filters.js';
import { folderBar } from './folders.js';
import { duplicatesView } from './duplicates-view.js';
import { AssetGrid } from './grid.js';
import { jobsView } from './jobs-view.js';
import { followChanges, type ChangeEvent } from './live.js';
import { selectionBar } from './selection.js';
import { trashView } from './trash-view.js';
import { uploadPanel } from './upload.js';

const BASE = '/console';

/** The view on screen and how to leave it. */
let current:
  | {
      name: string;
      search: string;
      grid?: AssetGrid;
      leave: () => void;
      /** Takes the change feed's events, for views that follow them. */
      change?: (event: ChangeEvent) => void;
    }
  | undefined;
/** The last list URL, where closing an asset goes back to. */
let listUrl = `${BASE}/`;
let openedHere = false;

let following = false;

/**
 * Follows the change feed from here on: the grid takes each change as it commits, and looks
 * again when the stream (re)starts without resuming. Started after the grid's first screen
 * (the stream holds one of the browser's six connections to the store, which the first
 * thumbnails need), at once on other views, and after 3 s whatever happens.
 */
function followLive(): void {
  if (following) return;
  following = true;
  followChanges({
    event: (event) => {
      current?.change?.(event);
      assetChanged(event.hash);
    },
    fresh: () => current?.grid?.recheck(),
  });
}

function go(url: string, push = true): void {
  if (push) history.pushState(null, '', url);
  route();
}

/** Renders the view the URL names: /console/, /console/asset/<hash>, /console/trash, /console/jobs. */
function route(): void {
  const path = location.pathname.replace(/\/+$/, '') || BASE;
  const asset = /^\/console\/asset\/([0-9a-fA-F]{64})$/.exec(path)?.[1];
  const name = asset
    ? 'assets'
    : path === `${BASE}/trash`
      ? 'trash'
      : path === `${BASE}/jobs`
        ? 'jobs'
        : path === `${BASE}/duplicates`
          ? 'duplicates'
          : 'assets';
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (link.dataset.route === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const search = asset ? (current?.name === 'assets' ? current.search : '') : location.search;
  if (current?.name !== name || (name === 'assets' && current.search !== search)) {
    current?.leave();
    current = render(name, search);
    // The grid starts following once its first screen is shown; other views at once.
    if (name !== 'assets') followLive();
  }
  if (name === 'assets' && !asset) listUrl = `${BASE}/${location.search}`;
  if (asset) {
    const grid = current?.grid;
    void showAsset(
      asset,
      (a) => current?.grid?.update(a, shownWith(a, current.search)),
      () => {
        if (openedHere) history.back();
        else go(listUrl);
        openedHere = false;
      },
      grid && {
        list: () => grid.loaded(),
        // In place of the asset shown: Back and Close still return to the list.
        go: (hash) => {
          history.replaceState(null, '', `${BASE}/asset/${hash}`);
          route();
        },
      },
    );
  } else {
    const dialog = byId<HTMLDialogElement>('asset-dialog');
    if (dialog.open) dialog.close();
  }
}

/** Whether an asset still belongs in a grid with these filters (after trash or restore). */
function shownWith(a: Asset, search: string): boolean {
  const params = new URLSearchParams(search);
  if (a.is_trashed && params.get('include_trashed') !== 'true') return false;
  if (a.is_corrupted && params.get('include_corrupted') !== 'true') return false;
  return true;
}

function render(name: string, search: string): NonNullable<typeof current> {
  const view = byId('view');
  document.title = `${name[0]!.toUpperCase()}${name.slice(1)} · Asset store console`;
  if (name === 'trash') {
    const trash = trashView(
      (hash) =>
        void showAsset(
          hash,
          () => undefined,
          () => undefined,
        ),
    );
    view.replaceChildren(trash.view);
    return { name, search, leave: () => undefined, change: trash.change };
  }
  if (name === 'duplicates') {
    view.replaceChildren(
      duplicatesView(
        (hash) =>
          void showAsset(
            hash,
            () => undefined,
            () => undefined,
          ),
      ),
    );
    return { name, search, leave: () => undefined };
  }
  if (name === 'jobs') {
    const jobs = jobsView();
    view.replaceChildren(jobs.view);
    return { name, search, leave: jobs.stop };
  }
  const grid = new AssetGrid(queryFromUrl(search), (asset) => {
    openedHere = true;
    go(`${BASE}/asset/${asset.hash}`);
  });
  grid.onFirstScreen = followLive;
  const page = h(
    'div',
    { class: 'assets' },
    h('h2', { class: 'visually-hidden' }, 'Assets'),
    filterForm(search, (next) => go(`${BASE}/${next}`)),
    folderBar(search),
    selectionBar(grid),
    grid.element,
  );
  page.prepend(uploadPanel(page, () => grid.reset()));
  view.replaceChildren(page);
  return {
    name,
    search,
    grid,
    leave: () => grid.dispose(),
    change: (event) => grid.applyChange(event.type, event.data ?? undefined),
  };
}

document.addEventListener('click', (event) => {
  const link = (event.target as Element).closest?.('a');
  if (!link || link.hasAttribute('download') || event.ctrlKey || event.metaKey || event.shiftKey)
    return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(`${BASE}/`)) return;
  event.preventDefault();
  go(url.pathname + url.search);
});
window.addEventListener('popstate', () => route());

// The grid's first request asks for the API token when one is needed (api.ts).
route();
setTimeout(followLive, 3000);
