import { API, authHeaders, store } from './api.js';
import { formatBytes, h } from './dom.js';
import type * as TusExports from './tus-module.js';

/**
 * The upload panel: files dropped anywhere on `target` (or chosen with the button) go up
 * through tus (resumable, `/uploads`), each with its own progress bar. `stored` is called
 * once a batch has finished, so the grid can show the new assets.
 */
export function uploadPanel(target: HTMLElement, stored: () => void): HTMLElement {
  const list = h('ul', { class: 'uploads', 'aria-label': 'Uploads' });
  // A live region of its own: the grid's refresh that follows a batch announces its count
  // in the page's region, which must not overwrite how the batch went.
  const outcome = h('p', { id: 'upload-status', class: 'status', role: 'status' });
  const tags = h('input', { id: 'upload-tags', autocomplete: 'off', placeholder: 'optional' });
  const anyway = h('input', { id: 'upload-anyway', type: 'checkbox' });
  const picker = h('input', {
    id: 'upload-files',
    type: 'file',
    multiple: true,
    class: 'visually-hidden',
    onchange: () => {
      void uploadAll([...(picker.files ?? [])]);
      picker.value = '';
    },
  });
  const zone = h(
    'section',
    { class: 'dropzone', 'aria-label': 'Upload' },
    h('p', {}, 'Drop files anywhere here to upload them, or '),
    picker,
    h('label', { for: 'upload-files', class: 'button' }, 'Choose files'),
    h('label', { for: 'upload-tags' }, 'Tags for uploads'),
    tags,
    h(
      'span',
      { class: 'check' },
      anyway,
      h('label', { for: 'upload-anyway' }, 'Store duplicates anyway'),
    ),
    outcome,
    list,
  );
  target.addEventListener('dragover', (e) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    target.classList.add('dragging');
  });
  target.addEventListener('dragleave', (e) => {
    if (e.target === target) target.classList.remove('dragging');
  });
  target.addEventListener('drop', (e) => {
    e.preventDefault();
    target.classList.remove('dragging');
    void uploadAll([...(e.dataTransfer?.files ?? [])]);
  });

  async function uploadAll(files: File[]): Promise<void> {
    if (files.length === 0) return;
    // A cheap request first: it asks for the API token when one is needed, before tus runs.
    await store.list({ limit: 1 });
    outcome.textContent = 'Checking for duplicates…';
    const held = anyway.checked ? new Map<File, Held>() : await alreadyHeld(files);
    const results = await Promise.all(
      files.map((file) => {
        const copy = held.get(file);
        if (copy) {
          skippedItem(file, copy, list);
          return Promise.resolve('skipped' as const);
        }
        return uploadOne(file, tags.value.trim(), list);
      }),
    );
    const ok = results.filter((r) => r === true).length;
    const skipped = results.filter((r) => r === 'skipped').length;
    const toUpload = files.length - skipped;
    outcome.textContent =
      (toUpload > 0 || skipped === 0 ? `${ok} of ${toUpload} uploaded.` : '') +
      (skipped > 0
        ? `${toUpload > 0 ? ' ' : ''}${skipped} already stored, skipped (tick “Store duplicates anyway” to store ${skipped === 1 ? 'it' : 'them'} again).`
        : '') +
      (unchecked > 0 ? ` ${unchecked} not checked for duplicates (${uncheckedWhy}).` : '');
    unchecked = 0;
    stored();
  }
  return zone;
}

/** An asset already holding a file's content: the newest one. */
interface Held {
  hash: string;
}

/** Files larger than this are not hashed in the browser (Web Crypto hashes in memory). */
const HASH_LIMIT = 512 * 2 ** 20;
let unchecked = 0;
let uncheckedWhy = '';

/** A file's plain SHA-256, lowercase hex (Web Crypto: secure contexts only). */
async function sha256(file: File): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Which files the store already holds, by content: each hashed here (SHA-256, Web Crypto),
 * then one `POST /search/sha256` for all of them. A file that cannot be hashed (too large,
 * or a page not on HTTPS or localhost, where browsers offer no Web Crypto) is uploaded, and
 * the outcome says it was not checked.
 */
async function alreadyHeld(files: File[]): Promise<Map<File, Held>> {
  const out = new Map<File, Held>();
  const digests = new Map<File, string>();
  for (const file of files) {
    if (!globalThis.crypto?.subtle) {
      unchecked++;
      uncheckedWhy = 'this page is not on HTTPS or localhost, so the browser cannot hash';
    } else if (file.size > HASH_LIMIT) {
      unchecked++;
      uncheckedWhy = 'larger than 512 MiB';
    } else digests.set(file, await sha256(file));
  }
  if (digests.size === 0) return out;
  const unique = [...new Set(digests.values())];
  const held = new Map<string, Held>();
  for (let i = 0; i < unique.length; i += 1000) {
    const answer = await store.lookupContent(unique.slice(i, i + 1000));
    for (const item of answer.items) held.set(item.sha256, { hash: item.hash });
  }
  // The same content twice in one batch: the first goes up, the others are duplicates of it.
  const seen = new Set<string>();
  for (const [file, digest] of digests) {
    const copy = held.get(digest);
    if (copy) out.set(file, copy);
    else if (seen.has(digest)) out.set(file, { hash: '' });
    seen.add(digest);
  }
  return out;
}

/** A file not uploaded because its content is stored: said in its row, with a link to the copy. */
function skippedItem(file: File, copy: Held, list: HTMLElement): void {
  list.prepend(
    h(
      'li',
      { 'data-file': file.name, 'data-state': 'skipped', 'data-hash': copy.hash || undefined },
      h('span', { class: 'name' }, file.name),
      copy.hash
        ? h(
            'span',
            { class: 'state' },
            'already stored, skipped: ',
            h('a', { href: `/console/asset/${copy.hash}` }, 'see the stored copy'),
          )
        : h('span', { class: 'state' }, 'same content as another file of this upload, skipped'),
    ),
  );
}

/** `tus.js` (`tus-module.ts`), loaded with the first upload: most of the console's script. */
type TusModule = typeof TusExports;
const TUS_MODULE = '/console/tus.js';
let tus: Promise<TusModule> | undefined;

async function uploadOne(file: File, tags: string, list: HTMLElement): Promise<boolean> {
  const bar = h('progress', {
    max: file.size || 1,
    value: 0,
    'aria-label': `Upload of ${file.name}`,
  });
  const state = h('span', { class: 'state' }, 'waiting');
  const item = h(
    'li',
    { 'data-file': file.name },
    h('span', { class: 'name' }, file.name),
    bar,
    state,
  );
  list.prepend(item);
  const metadata: Record<string, string> = { filename: file.name, human_file_name: file.name };
  if (file.type) metadata.mime_type = file.type;
  if (tags) metadata.tags = tags;
  let Upload: TusModule['Upload'];
  try {
    // A variable, not a literal: the bundler leaves the import to the browser.
    ({ Upload } = await (tus ??= import(TUS_MODULE) as Promise<TusModule>));
  } catch {
    // A failed load (the network went away) is tried again by the next upload.
    tus = undefined;
    item.dataset.state = 'failed';
    state.textContent = 'failed: the upload code did not load';
    return false;
  }
  return new Promise((resolve) => {
    const upload = new Upload(file, {
      endpoint: `${API}/uploads`,
      headers: authHeaders(),
      metadata,
      chunkSize: 8 * 1024 * 1024,
      retryDelays: [0, 1000, 3000, 5000],
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => {
        bar.value = sent;
        state.textContent = `${formatBytes(sent)} of ${formatBytes(total)}`;
      },
      onSuccess: ({ lastResponse }) => {
        bar.value = bar.max;
        const hash = lastResponse.getHeader('Asset-Hash');
        item.dataset.state = 'done';
        if (hash) item.dataset.hash = hash;
        state.textContent = 'stored';
        resolve(true);
      },
      onError: (err) => {
        item.dataset.state = 'failed';
        state.textContent = `failed: ${err.message}`;
        resolve(false);
      },
    });
    state.textContent = 'starting';
    void upload.findPreviousUploads().then((previous) => {
      if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    });
  });
}
