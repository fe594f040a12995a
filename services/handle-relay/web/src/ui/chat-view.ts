import type { StoredMessage } from '../local-store.js';
import { plainWords } from '../relay-api.js';
import type { Session } from '../session.js';
import { h, say, timeOf } from './dom.js';
import { keyNotice, verifyHref } from './key-notice.js';

/** A peer a message can be sent to: a handle, not a bare key or the unreadable pile. */
function canWriteTo(peer: string): boolean {
  return !peer.startsWith('ed25519:') && !peer.startsWith('(');
}

/** Conversations (grouped by sender) beside the open thread and its composer. */
export class ChatView {
  readonly element: HTMLElement;
  private readonly list = h('ul', { class: 'conversations' });
  private readonly items = new Map<string, { shape: string; element: HTMLLIElement }>();
  private readonly messages = h('ol', {
    class: 'messages',
    role: 'log',
    'aria-live': 'polite',
    'aria-label': 'Messages',
  });
  /** Where the peer's key notice goes (a change warning, a rotation, a first pin). */
  private readonly notice = h('div', { class: 'key-notice' });
  private noticeShape = '';
  private readonly text = h('textarea', { id: 'compose', name: 'text', rows: '2', required: true });
  private readonly sendButton = h('button', { type: 'submit' }, 'Send');

  constructor(
    private readonly session: Session,
    private readonly peer: string | undefined,
  ) {
    this.element = h(
      'div',
      { class: `chat ${peer ? 'has-thread' : ''}` },
      h(
        'nav',
        { class: 'sidebar', 'aria-label': 'Conversations' },
        this.newConversationForm(),
        h('h2', { class: 'visually-hidden' }, 'Conversations'),
        this.list,
      ),
      peer
        ? this.threadSection(peer)
        : h(
            'section',
            { class: 'thread empty' },
            h('p', {}, 'Choose a conversation, or start one with a handle.'),
          ),
    );
    this.render();
    // Every time a conversation opens, its peer's key is checked (and pinned on first use).
    if (peer && canWriteTo(peer)) void session.trust.check(peer);
  }

  /** Draws the conversation list and the thread again from the session. */
  render(): void {
    const conversations = this.session.conversations();
    this.list.replaceChildren(
      ...conversations.map((c) =>
        h(
          'li',
          {},
          h(
            'a',
            {
              href: `#/c/${encodeURIComponent(c.peer)}`,
              'aria-current': c.peer === this.peer ? 'page' : undefined,
              class: c.unread > 0 ? 'has-unread' : undefined,
            },
            h('span', { class: 'peer' }, c.peer),
            c.unread > 0
              ? h('span', { class: 'count', 'aria-label': `${c.unread} unread` }, String(c.unread))
              : null,
            h('span', { class: 'preview' }, previewOf(c.last)),
          ),
        ),
      ),
    );
    if (conversations.length === 0)
      this.list.append(h('li', { class: 'hint' }, 'No conversations yet.'));
    if (this.peer) {
      this.renderThread(this.peer);
      this.renderKey(this.peer);
    }
  }

  /** The key notice, and the composer blocked while a key change waits for the person. */
  private renderKey(peer: string): void {
    const known = this.session.trust.stateOf(peer);
    const blocked = known?.state === 'changed';
    this.text.disabled = blocked;
    this.sendButton.disabled = blocked;
    // Drawn again only when it changes: a live region repeats what it is given.
    const shape = JSON.stringify(known ?? null);
    if (shape === this.noticeShape) return;
    this.noticeShape = shape;
    const notice = keyNotice(peer, known, {
      accept: () => void this.session.trust.accept(peer),
      dismiss: () => void this.session.trust.dismissNote(peer),
    });
    this.notice.replaceChildren(...(notice ? [notice] : []));
  }

  private renderThread(peer: string): void {
    const stick =
      this.messages.scrollHeight - this.messages.scrollTop - this.messages.clientHeight < 80;
    const groups: HTMLElement[] = [];
    let group: { dir: string; list: HTMLOListElement } | undefined;
    for (const m of this.session.thread(peer)) {
      if (!group || group.dir !== m.dir) {
        const list = h('ol', {});
        group = { dir: m.dir, list };
        groups.push(
          h(
            'li',
            { class: `group ${m.dir}` },
            h('p', { class: 'sender' }, m.dir === 'out' ? 'You' : m.peer),
            list,
          ),
        );
      }
      group.list.append(this.itemOf(m));
    }
    this.messages.replaceChildren(...groups);
    if (stick) this.messages.scrollTop = this.messages.scrollHeight;
  }

  /**
   * A message's element, built once and kept while the message is unchanged: a thread is
   * drawn again on every change, and rebuilding a long one for each message sent or
   * received would cost more with every message.
   */
  private itemOf(m: StoredMessage): HTMLLIElement {
    const shape = `${m.state ?? ''}|${m.seq}|${m.sendError ?? ''}|${m.error ?? ''}|${m.text}`;
    const kept = this.items.get(m.id);
    if (kept?.shape === shape) return kept.element;
    const element = messageItem(m, (id) => void this.session.retry(id));
    this.items.set(m.id, { shape, element });
    return element;
  }

  private threadSection(peer: string): HTMLElement {
    return h(
      'section',
      { class: 'thread', 'aria-labelledby': 'thread-title' },
      h(
        'header',
        { class: 'thread-head' },
        h('a', { href: '#/', class: 'back' }, '← Chats'),
        h('h2', { id: 'thread-title' }, peer),
        canWriteTo(peer) ? h('a', { href: verifyHref(peer), class: 'verify' }, 'Verify') : null,
      ),
      this.notice,
      this.messages,
      canWriteTo(peer)
        ? this.composer(peer)
        : h('p', { class: 'hint' }, 'This sender owns no handle, so there is no one to answer.'),
    );
  }

  /**
   * The composer: Enter (or Send) takes the text in the box into the send queue and
   * clears the box of that text only; the message shows at once as sending. Nothing typed
   * is dropped: a send that fails stays in the thread with why and a retry.
   */
  private composer(peer: string): HTMLFormElement {
    const text = this.text;
    const button = this.sendButton;
    const send = () => {
      const value = text.value;
      // Blocked while the peer's key changed unexplained (the send would fail anyway).
      if (!value.trim() || text.disabled) return;
      text.value = '';
      void this.session.enqueue(peer, value).then(() => {
        this.messages.scrollTop = this.messages.scrollHeight;
      });
      text.focus();
    };
    text.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        send();
      }
    });
    return h(
      'form',
      {
        class: 'composer',
        onsubmit: (event) => {
          event.preventDefault();
          send();
        },
      },
      h('label', { for: 'compose', class: 'visually-hidden' }, `Message to ${peer}`),
      text,
      button,
    );
  }

  private newConversationForm(): HTMLFormElement {
    const input = h('input', {
      id: 'peer',
      name: 'peer',
      required: true,
      autocapitalize: 'none',
      spellcheck: 'false',
      placeholder: 'handle',
    });
    const open = async (event: Event) => {
      event.preventDefault();
      const handle = input.value.trim().replace(/@.*$/, '');
      try {
        const record = await this.session.records.lookup(handle);
        location.hash = `#/c/${encodeURIComponent(record.handle)}`;
      } catch (err) {
        say(plainWords(err, `Opening a conversation with ${handle}`), 'error');
      }
    };
    return h(
      'form',
      { class: 'new-conversation', onsubmit: (e) => void open(e) },
      h('label', { for: 'peer' }, 'Write to'),
      input,
      h('button', { type: 'submit' }, 'Open'),
    );
  }
}

/** A conversation's last message, short: "You: ..." for one sent. */
function previewOf(m: StoredMessage | undefined): string {
  if (!m) return '';
  const text = m.error ? 'Could not open this message' : m.text.replace(/\s+/g, ' ');
  const short = text.length > 80 ? `${text.slice(0, 79)}…` : text;
  return m.dir === 'out' ? `You: ${short}` : short;
}

/** What became of a message written here: sending, stored (with its seq), or failed. */
function deliveryOf(m: StoredMessage, retry: (id: string) => void): (Node | string)[] {
  if (m.state === 'sending') return [h('span', { class: 'state' }, 'Sending…')];
  if (m.state === 'failed') {
    return [
      h('span', { class: 'state', role: 'alert' }, `Not sent: ${m.sendError ?? 'failed'}`),
      ' ',
      h('button', { type: 'button', class: 'retry', onclick: () => retry(m.id) }, 'Retry'),
    ];
  }
  return [
    h('span', { class: 'seq', title: 'stored by the relay: delivery order' }, `#${m.seq}`),
    ' ',
    timeOf(m.created_at),
  ];
}

function messageItem(m: StoredMessage, retry: (id: string) => void): HTMLLIElement {
  const state = m.state ?? 'stored';
  return h(
    'li',
    {
      class: `msg${m.error ? ' unreadable' : ''}${m.dir === 'out' ? ` ${state}` : ''}`,
      'data-seq': String(m.seq),
      'data-state': m.dir === 'out' ? state : undefined,
    },
    h('p', { class: 'text' }, m.error ? `Could not open: ${m.error}` : m.text),
    h('p', { class: 'meta' }, ...deliveryOf(m, retry)),
  );
}
