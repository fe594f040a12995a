import { h } from './dom.js';

/**
 * Asks before something that cannot be undone, in a modal dialog (Escape or Cancel: no).
 * Resolves true only when the confirming button, named `confirmLabel`, was pressed.
 */
export function confirmAction(title: string, text: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-text' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'confirm-title' }, title),
        h('p', { id: 'confirm-text' }, text),
        h(
          'div',
          { class: 'actions' },
          // Cancel first and focused: Enter on a dialog opened by mistake does nothing harmful.
          h('button', { value: 'cancel', autofocus: true }, 'Cancel'),
          h('button', { value: 'confirm', class: 'danger' }, confirmLabel),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'confirm');
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
