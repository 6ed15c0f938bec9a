import { historySources, type HistoryRecord } from '../../../domain/history/read-history.js';
import { html, type Html } from '../../html/html.js';
import type { Messages } from '../i18n/messages-en.js';

/** Names shown per record; more are counted ("+2"), which keeps a long history page short. */
const SHOWN = 3;

/**
 * A history record's provenance, as the history API gives it (`sources`): "seen by" and the
 * sources' names, small, under the record's unit or train. Nothing when the record has none.
 */
export function seenBy(t: Messages, r: Pick<HistoryRecord, 'sourcesJson'>): Html | '' {
  const sources = historySources(r);
  if (sources.length === 0) return '';
  const shown = sources.slice(0, SHOWN).join(', ');
  const more = sources.length > SHOWN ? ` +${sources.length - SHOWN}` : '';
  return html`<br /><small class="muted seen-by">${t.seenBy} ${shown}${more}</small>`;
}
