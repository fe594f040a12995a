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
 * audio file with its controls, a PDF in a sandboxed frame of the browser's PDF viewer, text
 * in a `<pre>`; anything else says there is no preview.
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
    if (getToken('api')) {
      // A frame cannot send the token, and a PDF from a blob: URL would run as this page:
      // nothing is shown that cannot be sandboxed.
      box.replaceChildren(
        h('p', { class: 'no-preview' }, 'No preview while an API token is needed: download it.'),
      );
    } else {
      // The store's answer to `disposition=inline` carries `Content-Security-Policy: sandbox`:
      // the document in the frame gets an opaque origin, no scripts, no forms, no top
      // navigation, and Chromium's own PDF viewer still shows it (a frame with the `sandbox`
      // attribute is refused by that viewer, a `blob:` URL has no headers to sandbox it).
      box.append(
        h('iframe', {
          title: name,
          src: `${API}/asset/${a.hash}?disposition=inline`,
          referrerpolicy: 'no-referrer',
        }),
      );
    }
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
