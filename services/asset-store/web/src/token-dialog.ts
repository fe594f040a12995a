import { byId } from './dom.js';
import type { TokenKind } from './session.js';

const WHY: Record<TokenKind, [string, string]> = {
  api: ['This asset store needs its API token (api_token).', 'API token'],
  admin: [
    'Jobs need the admin token (admin_token). It is kept for this session only.',
    'Admin token',
  ],
};

let pending: Promise<string> | undefined;

/**
 * Asks for a token in a modal dialog; resolves with what was typed. Concurrent requests
 * that all met a 401 share one prompt.
 */
export function askToken(kind: TokenKind, refused: boolean): Promise<string> {
  pending ??= new Promise<string>((resolve) => {
    const dialog = byId<HTMLDialogElement>('token-dialog');
    const input = byId<HTMLInputElement>('token-input');
    const [why, label] = WHY[kind];
    byId('token-why').textContent = why;
    byId('token-label').textContent = label;
    byId('token-error').textContent = refused ? 'That token was refused; try again.' : '';
    input.value = '';
    const form = byId<HTMLFormElement>('token-form');
    const done = (event: Event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (token === '') return;
      form.removeEventListener('submit', done);
      dialog.close();
      pending = undefined;
      resolve(token);
    };
    form.addEventListener('submit', done);
    // Escape would leave the console without a way to load anything: keep it open.
    dialog.addEventListener('cancel', (event) => event.preventDefault(), { once: true });
    dialog.showModal();
    input.focus();
  });
  return pending;
}
