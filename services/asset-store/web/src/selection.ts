import { Zip, ZipPassThrough } from 'fflate';
import { ApiError, store, type Asset } from './api.js';
import { h } from './dom.js';
import type { AssetGrid } from './grid.js';

/** Requests at once for a batch action: enough to be quick, few enough to leave room. */
const PARALLEL = 4;

/** Runs `work` over `items`, PARALLEL at a time; how many failed. */
async function each<T>(items: T[], work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return failed;
}

/** Splits a tags field like the service does: on commas, trimmed, empty ones dropped. */
function splitTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ];
}

/** A name for each asset inside the zip: its folder and file name, made unique. */
function zipNames(assets: Asset[]): string[] {
  const used = new Set<string>();
  return assets.map((a) => {
    const folder = (a.human_path ?? '').replace(/^\/+|\/+$/g, '').replace(/\.\.(\/|$)/g, '');
    const base = (a.human_filename ?? a.hash).replace(/[/\\]/g, '_');
    let name = folder ? `${folder}/${base}` : base;
    const dot = name.lastIndexOf('.');
    const [stem, ext] =
      dot > name.lastIndexOf('/') + 1 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let n = 2; used.has(name); n++) name = `${stem} (${n})${ext}`;
    used.add(name);
    return name;
  });
}

/**
 * The assets as one zip file, made here in the browser (fflate, stored without compression:
 * photos and videos are compressed already). Each file is fetched in turn (with the token).
 */
export async function zipOf(assets: Asset[], progress: (done: number) => void): Promise<Blob> {
  const names = zipNames(assets);
  const parts: Uint8Array[] = [];
  let finished!: () => void;
  let failed!: (err: Error) => void;
  const ended = new Promise<void>((resolve, reject) => {
    finished = resolve;
    failed = reject;
  });
  const zip = new Zip((err, chunk, final) => {
    if (err) return failed(err);
    parts.push(chunk);
    if (final) finished();
  });
  for (const [i, asset] of assets.entries()) {
    const bytes = new Uint8Array(await (await store.download(asset.hash)).arrayBuffer());
    const entry = new ZipPassThrough(names[i]!);
    entry.mtime = asset.timestamp;
    zip.add(entry);
    entry.push(bytes, true);
    progress(i + 1);
  }
  zip.end();
  await ended;
  return new Blob(parts as BlobPart[], { type: 'application/zip' });
}

/** Asks for tags in a small modal form; undefined when cancelled. */
function askTags(title: string, action: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    const input = h('input', { id: 'bulk-tags', autocomplete: 'off', required: true });
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'bulk-title' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'bulk-title' }, title),
        h('label', { for: 'bulk-tags' }, 'Tags (comma-separated)'),
        input,
        h(
          'div',
          { class: 'actions' },
          h('button', { value: 'cancel', formnovalidate: true }, 'Cancel'),
          h('button', { value: 'ok' }, action),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      const tags = splitTags(input.value);
      resolve(dialog.returnValue === 'ok' && tags.length > 0 ? tags : undefined);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
}

/**
 * The selection's toolbar, over the grid: how many are selected, select all loaded, clear,
 * and what to do with them: add or remove tags, move to the trash, restore, download as one
 * zip. Shown only while something is selected.
 */
export function selectionBar(grid: AssetGrid): HTMLElement {
  // A live region of its own: the grid's refresh after a batch announces its count in the
  // page's status line, which must not overwrite how the batch went.
  const outcome = h('p', { id: 'selection-status', class: 'status', role: 'status' });
  const announce = (text: string) => (outcome.textContent = text);
  const countText = h('span', { class: 'count', 'aria-live': 'polite' });
  const busy = (on: boolean) => {
    for (const b of bar.querySelectorAll('button')) b.disabled = on;
  };
  const run = async (label: string, work: (a: Asset) => Promise<void>) => {
    const assets = [...grid.selected.values()];
    busy(true);
    announce(`${label} ${assets.length}…`);
    const failed = await each(assets, work);
    busy(false);
    announce(
      `${label} ${assets.length - failed} of ${assets.length}${failed ? `; ${failed} failed` : ''}.`,
    );
    grid.clearSelection();
    grid.reset();
  };
  const button = (label: string, onclick: () => void, extra: Record<string, string> = {}) =>
    h('button', { type: 'button', onclick, ...extra }, label);
  const bar = h(
    'div',
    { class: 'selection-bar', role: 'toolbar', 'aria-label': 'Selection', hidden: true },
    countText,
    button('Select all on this page', () => {
      const n = grid.selectAllLoaded();
      announce(`${n} selected.`);
    }),
    button('Clear selection', () => grid.clearSelection()),
    button(
      'Tag…',
      () =>
        void askTags('Add tags to the selected assets', 'Add tags').then((tags) => {
          if (!tags) return;
          return run('Tagged', (a) =>
            store.update(a.hash, { tags: [...new Set([...a.tags, ...tags])] }),
          );
        }),
    ),
    button(
      'Untag…',
      () =>
        void askTags('Remove tags from the selected assets', 'Remove tags').then((tags) => {
          if (!tags) return;
          return run('Untagged', (a) =>
            store.update(a.hash, { tags: a.tags.filter((t) => !tags.includes(t)) }),
          );
        }),
    ),
    button('Move to trash', () => void run('Moved to trash', (a) => store.trash(a.hash))),
    button('Restore', () => void run('Restored', (a) => store.restore(a.hash))),
    button('Download zip', () => {
      const assets = [...grid.selected.values()].filter((a) => !a.is_corrupted);
      busy(true);
      zipOf(assets, (done) => announce(`Zipping ${done} of ${assets.length}…`))
        .then((blob) => {
          const url = URL.createObjectURL(blob);
          h('a', { href: url, download: `assets-${assets.length}.zip` }).click();
          setTimeout(() => URL.revokeObjectURL(url), 60_000);
          announce(`Zipped ${assets.length} assets.`);
        })
        .catch((err: unknown) =>
          announce(
            err instanceof ApiError ? `Download failed: ${err.message}` : 'Download failed.',
          ),
        )
        .finally(() => busy(false));
    }),
  );
  grid.onSelection = () => {
    const n = grid.selected.size;
    bar.hidden = n === 0;
    countText.textContent = `${n.toLocaleString()} selected`;
  };
  return h('div', { class: 'selection' }, bar, outcome);
}
