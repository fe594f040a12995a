import type { StoredMessage } from '../local-store.js';
import { plainWords } from '../relay-api.js';
import type { Session } from '../session.js';
import { h, say, timeOf } from './dom.js';

/** A peer a message can be sent to: a handle, not a bare key or the unreadable pile. */
function canWriteTo(peer: string): boolean {
  return !peer.startsWith('ed25519:') && !peer.startsWith('(');
}

/** Conversations (grouped by sender) beside the open thread and its composer. */
export class ChatView {
  readonly element: HTMLElement;
  private readonly list = h('ul', { class: 'conversations' });
  private readonly messages = h('ol', {
    class: 'messages',
    role: 'log',
    'aria-live': 'polite',
    'aria-label': 'Messages',
  });

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
            },
            h('span', { class: 'peer' }, c.peer),
            h(
              'span',
              { class: 'count', 'aria-label': `${c.messages.length} messages` },
              String(c.messages.length),
            ),
          ),
        ),
      ),
    );
    if (conversations.length === 0)
      this.list.append(h('li', { class: 'hint' }, 'No conversations yet.'));
    if (this.peer) this.renderThread(this.peer);
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
      group.list.append(messageItem(m));
    }
    this.messages.replaceChildren(...groups);
    if (stick) this.messages.scrollTop = this.messages.scrollHeight;
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
      ),
      this.messages,
      canWriteTo(peer)
        ? this.composer(peer)
        : h('p', { class: 'hint' }, 'This sender owns no handle, so there is no one to answer.'),
    );
  }

  private composer(peer: string): HTMLFormElement {
    const text = h('textarea', { id: 'compose', name: 'text', rows: '2', required: true });
    const button = h('button', { type: 'submit' }, 'Send');
    const send = async () => {
      const value = text.value;
      if (!value.trim()) return;
      button.disabled = true;
      try {
        await this.session.send(peer, value);
        text.value = '';
        this.messages.scrollTop = this.messages.scrollHeight;
      } catch (err) {
        say(plainWords(err, `Sending to ${peer}`), 'error');
      } finally {
        button.disabled = false;
        text.focus();
      }
    };
    text.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        void send();
      }
    });
    return h(
      'form',
      {
        class: 'composer',
        onsubmit: (event) => {
          event.preventDefault();
          void send();
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

function messageItem(m: StoredMessage): HTMLLIElement {
  return h(
    'li',
    { class: `msg${m.error ? ' unreadable' : ''}`, 'data-seq': String(m.seq) },
    h('p', { class: 'text' }, m.error ? `Could not open: ${m.error}` : m.text),
    h(
      'p',
      { class: 'meta' },
      h('span', { class: 'seq', title: 'delivery order' }, `#${m.seq}`),
      ' ',
      timeOf(m.created_at),
    ),
  );
}
