import { html, type Html } from '../../html/html.js';
import type { Messages } from '../i18n/messages-en.js';

/**
 * The links from a train's or a unit's page to report a sighting of it and to send feedback
 * about the page. Plain links, the same for every reader: the page stays shareable from the
 * anonymous page cache, and the forms (with the reader's CSRF token) live on personal pages.
 */
export function participationLinks(t: Messages, what: { train?: string; emu?: string }): Html {
  const q = new URLSearchParams();
  if (what.train) q.set('train', what.train);
  if (what.emu) q.set('emu', what.emu);
  const page = what.train
    ? `/train/${encodeURIComponent(what.train)}`
    : `/emu/${encodeURIComponent(what.emu ?? '')}`;
  return html`<p class="participate">
    <a href="/report?${q.toString()}" rel="nofollow">${t.reportLink}</a> ·
    <a href="/feedback?page=${encodeURIComponent(page)}" rel="nofollow">${t.feedbackLink}</a>
  </p>`;
}
