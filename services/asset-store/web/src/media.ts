import { API, store, type Asset } from './api.js';
import { h } from './dom.js';
import { getToken } from './session.js';

/** Text shown inline up to this size; larger text files are offered for download. */
const TEXT_LIMIT = 1024 * 1024;

/**
 * The URL a media element plays the asset from. Without an API token, the download URL
 * itself: `<img>`, `<video>` and `<audio>` ignore its `Content-Disposition: attachment` and
 * stream with ranges. With a token (which an element cannot send), the bytes fetched with it
 * as a `blob:` URL of the asset's type.
 */
async function mediaUrl(a: Asset, urls: string[]): Promise<string> {
  if (!getToken('api')) return `${API}/asset/${a.hash}`;
  return blobUrl(a, urls);
}

async function blobUrl(a: Asset, urls: string[]): Promise<string> {
  const blob = await store.download(a.hash);
  const url = URL.createObjectURL(new Blob([blob], { type: a.mime_type }));
  urls.push(url);
  return url;
}

/** The full-size view of an asset and its zoom, made by `mediaView`. */
export interface MediaView {
  element: HTMLElement;
  /** Zooms an image by this factor (1: back to fit); false when the asset cannot zoom. */
  zoom: (factor: number) => boolean;
  /** Frees the object URLs made for it. */
  dispose: () => void;
}

/**
 * The asset at full size with the browser's own players: an image (zoomable), a video or an
 * audio file with its controls, a PDF in a frame of the browser's PDF viewer, text in a `<pre>`; anything else says there is no preview.
 */
export function mediaView(a: Asset, name: string): MediaView {
  const urls: string[] = [];
  const box = h('div', { class: 'media', 'data-kind': 'none' });
  let scale = 1;
  let img: HTMLImageElement | undefined;
  const type = a.mime_type.toLowerCase();
  const fail = () => box.replaceChildren(h('p', { class: 'no-preview' }, 'No preview'));
  if (a.is_corrupted) {
    fail();
  } else if (type.startsWith('image/')) {
    box.dataset.kind = 'image';
    img = h('img', { alt: name, decoding: 'async' });
    box.append(img);
    const shown = img;
    void mediaUrl(a, urls).then((url) => (shown.src = url), fail);
  } else if (type.startsWith('video/')) {
    box.dataset.kind = 'video';
    const video = h('video', { controls: true, preload: 'metadata', 'aria-label': name });
    box.append(video);
    void mediaUrl(a, urls).then((url) => (video.src = url), fail);
  } else if (type.startsWith('audio/')) {
    box.dataset.kind = 'audio';
    const audio = h('audio', { controls: true, preload: 'metadata', 'aria-label': name });
    box.append(audio);
    void mediaUrl(a, urls).then((url) => (audio.src = url), fail);
  } else if (type === 'application/pdf') {
    box.dataset.kind = 'pdf';
    // A frame of the download URL would save the file (it is an attachment): the bytes go
    // in as a blob: URL whose type is set here to application/pdf, so the browser's own PDF
    // viewer (out of the page's process) shows it and nothing in it runs as this page.
    // Not a `sandbox` frame: Chromium refuses its PDF viewer in one. The CSP allows frames
    // of blob: URLs only.
    const frame = h('iframe', { title: name, referrerpolicy: 'no-referrer' });
    box.append(frame);
    void blobUrl(a, urls).then((url) => (frame.src = url), fail);
  } else if (type.startsWith('text/') || type === 'application/json') {
    box.dataset.kind = 'text';
    const pre = h('pre', { tabindex: 0, 'aria-label': name });
    box.append(pre);
    void store
      .download(a.hash)
      .then(async (blob) => {
        pre.textContent =
          blob.size > TEXT_LIMIT
            ? `${await blob.slice(0, TEXT_LIMIT).text()}\n… (the first MiB of ${blob.size.toLocaleString()} bytes)`
            : await blob.text();
      })
      .catch(fail);
  } else {
    fail();
  }
  return {
    element: box,
    zoom: (factor) => {
      if (!img) return false;
      scale = factor === 1 ? 1 : Math.min(8, Math.max(1, scale * factor));
      img.style.transform = scale === 1 ? '' : `scale(${scale})`;
      box.classList.toggle('zoomed', scale > 1);
      box.dataset.zoom = String(scale);
      return true;
    },
    dispose: () => {
      for (const url of urls) URL.revokeObjectURL(url);
    },
  };
}
