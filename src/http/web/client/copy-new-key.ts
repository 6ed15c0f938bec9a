/**
 * The copy button of a key shown once (the account page's Development tab): the button,
 * hidden until this runs, copies the field named by its `data-copy-from`; the field selects
 * itself on focus, for copying by hand where the clipboard is refused.
 */
export function enableCopyButtons(doc: Document): void {
  for (const button of doc.querySelectorAll<HTMLButtonElement>('button[data-copy-from]')) {
    const field = doc.getElementById(button.dataset.copyFrom ?? '');
    if (!(field instanceof HTMLInputElement)) continue;
    field.addEventListener('focus', () => field.select());
    if (!navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      void navigator.clipboard.writeText(field.value).then(() => {
        button.textContent = button.dataset.copied ?? button.textContent;
      });
    });
  }
}
