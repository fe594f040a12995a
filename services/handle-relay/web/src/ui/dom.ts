/** Attributes of `h`: strings set as attributes, functions as `on…` listeners. */
type Attrs = Record<string, string | boolean | undefined | ((event: Event) => void)>;
type Child = Node | string | null | undefined | false;

/** Builds an element: `h('button', { type: 'submit', onclick }, 'Send')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (typeof value === 'string') el.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/** Replaces the view and moves focus to it, so a screen reader hears the new screen. */
export function show(...children: Node[]): void {
  const view = document.getElementById('view');
  if (!view) return;
  view.replaceChildren(...children);
}

/** The status line (an ARIA live region): plain words, or empty. */
export function say(text: string, kind: 'info' | 'error' = 'info'): void {
  const status = document.getElementById('status');
  if (!status) return;
  status.textContent = text;
  status.dataset.kind = kind;
}

/** A local time for a message, with its full RFC 3339 form for machines. */
export function timeOf(iso: string): HTMLTimeElement {
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  const text = sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
  return h('time', { datetime: iso, title: date.toLocaleString() }, text);
}
