/** Whether typing into `target` must be left alone (a field, an editable region). */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  );
}

/** `/` anywhere but in a field moves the focus to the page's search box (as on GitHub, MDN). */
export function enableSlashToSearch(doc: Document): void {
  doc.addEventListener('keydown', (event) => {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTyping(event.target)) return;
    const box = doc.querySelector<HTMLInputElement>('input[data-search-box]');
    if (!box) return;
    event.preventDefault();
    box.focus();
    box.select();
  });
}
