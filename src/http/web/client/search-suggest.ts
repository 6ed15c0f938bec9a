/*
 * Suggestions under the search box while typing, as the WAI-ARIA combobox pattern (APG's "list
 * autocomplete"): the box is a combobox that controls a listbox of options and points at the
 * one chosen with the arrows (aria-activedescendant: the focus stays in the box). They come
 * from the app's /suggest (the same search index as the results page), asked for once typing
 * pauses, a request overtaken by more typing aborted. Without this script the box is a plain
 * GET form to /search, and so it stays: Enter with no suggestion chosen submits it.
 */

/** Milliseconds of quiet typing before suggestions are asked for. */
const DEBOUNCE_MS = 120;

interface Suggestion {
  type: string;
  code: string;
  subtitle: string;
  href: string;
}

interface SuggestAnswer {
  items: Suggestion[];
  /** How many, in the reader's language (for the live region). */
  status?: string;
}

class SearchCombobox {
  private readonly listbox: HTMLUListElement;
  private readonly status: HTMLElement;
  private items: Suggestion[] = [];
  private active = -1;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private request: AbortController | undefined;

  constructor(
    private readonly doc: Document,
    private readonly input: HTMLInputElement,
  ) {
    const id = input.id || 'q';
    const label = input.labels?.[0];
    if (label && !label.id) label.id = `${id}-label`;

    this.listbox = doc.createElement('ul');
    this.listbox.id = `${id}-suggestions`;
    this.listbox.className = 'suggestions';
    this.listbox.setAttribute('role', 'listbox');
    if (label) this.listbox.setAttribute('aria-labelledby', label.id);
    this.listbox.hidden = true;

    this.status = doc.createElement('p');
    this.status.className = 'visually-hidden';
    this.status.setAttribute('role', 'status');
    this.status.setAttribute('aria-atomic', 'true');

    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('aria-controls', this.listbox.id);
    input.after(this.listbox, this.status);

    input.addEventListener('input', () => this.typed());
    input.addEventListener('keydown', (event) => this.key(event));
    input.addEventListener('blur', () => this.close());
    // A press on an option must not move the focus out of the box (blur would close the list).
    this.listbox.addEventListener('mousedown', (event) => event.preventDefault());
    this.listbox.addEventListener('click', (event) => {
      const option = (event.target as Element | null)?.closest<HTMLElement>('[role="option"]');
      const index = option ? Number(option.dataset.index) : -1;
      if (index >= 0) this.go(index);
    });
  }

  private typed(): void {
    clearTimeout(this.timer);
    const q = this.input.value.trim();
    if (q === '') {
      this.request?.abort();
      this.show([], '');
      return;
    }
    this.timer = setTimeout(() => void this.fetch(q), DEBOUNCE_MS);
  }

  private async fetch(q: string): Promise<void> {
    this.request?.abort();
    const request = new AbortController();
    this.request = request;
    try {
      const res = await fetch(`/suggest?q=${encodeURIComponent(q)}`, {
        headers: { accept: 'application/json' },
        signal: request.signal,
      });
      // Refused (the page limit, a query too long): the box goes on as a plain form.
      if (!res.ok) return this.show([], '');
      const answer = (await res.json()) as SuggestAnswer;
      if (request.signal.aborted || this.input.value.trim() !== q) return;
      this.show(answer.items, answer.status ?? '');
    } catch (error) {
      // An aborted request was overtaken by more typing; offline: no suggestions, the form stays.
      if ((error as { name?: string }).name !== 'AbortError') this.show([], '');
    }
  }

  private show(items: Suggestion[], status: string): void {
    this.items = items;
    this.active = -1;
    this.input.removeAttribute('aria-activedescendant');
    const options = items.map((item, index) => {
      const option = this.doc.createElement('li');
      option.id = `${this.listbox.id}-${index}`;
      option.setAttribute('role', 'option');
      option.setAttribute('aria-selected', 'false');
      option.dataset.index = String(index);
      option.dataset.href = item.href;
      const code = this.doc.createElement('span');
      code.className = 'suggestion-code';
      code.textContent = item.code;
      option.append(code);
      if (item.subtitle !== '') {
        const subtitle = this.doc.createElement('span');
        subtitle.className = 'muted';
        subtitle.textContent = item.subtitle;
        option.append(' ', subtitle);
      }
      return option;
    });
    this.listbox.replaceChildren(...options);
    this.setOpen(items.length > 0 && this.doc.activeElement === this.input);
    if (this.status.textContent !== status) this.status.textContent = status;
  }

  private setOpen(open: boolean): void {
    this.listbox.hidden = !open;
    this.input.setAttribute('aria-expanded', String(open));
    if (!open) this.choose(-1);
  }

  private close(): void {
    clearTimeout(this.timer);
    this.setOpen(false);
  }

  private choose(index: number): void {
    const options = this.listbox.children;
    if (this.active >= 0) options[this.active]?.setAttribute('aria-selected', 'false');
    this.active = index;
    const option = index >= 0 ? (options[index] as HTMLElement | undefined) : undefined;
    if (!option) {
      this.input.removeAttribute('aria-activedescendant');
      return;
    }
    option.setAttribute('aria-selected', 'true');
    this.input.setAttribute('aria-activedescendant', option.id);
    option.scrollIntoView({ block: 'nearest' });
  }

  private key(event: KeyboardEvent): void {
    const open = !this.listbox.hidden;
    const count = this.items.length;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        if (count === 0) return;
        event.preventDefault();
        if (!open) this.setOpen(true);
        const step = event.key === 'ArrowDown' ? 1 : -1;
        // From none chosen, down goes to the first and up to the last; both wrap.
        const from = this.active === -1 ? (step === 1 ? -1 : count) : this.active;
        this.choose((from + step + count) % count);
        return;
      }
      case 'Enter':
        if (open && this.active >= 0) {
          event.preventDefault();
          this.go(this.active);
        }
        // Otherwise the form is submitted: the results page, or the one hit's page.
        return;
      case 'Escape':
        if (open) {
          event.preventDefault();
          this.close();
        }
        return;
      default:
        return;
    }
  }

  private go(index: number): void {
    const item = this.items[index];
    if (!item) return;
    this.close();
    this.doc.location.assign(item.href);
  }
}

/** Suggestions for every search box of the page (data-search-box). */
export function enableSearchSuggestions(doc: Document): void {
  for (const input of doc.querySelectorAll<HTMLInputElement>('input[data-search-box]')) {
    new SearchCombobox(doc, input);
  }
}
