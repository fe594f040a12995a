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
    const results = await Promise.all(
      files.map((file) => uploadOne(file, tags.value.trim(), list)),
    );
    const ok = results.filter(Boolean).length;
    outcome.textContent = `${ok} of ${files.length} uploaded.`;
    stored();
  }
  return zone;
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
