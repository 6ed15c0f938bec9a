/*
 * The web app's one script: every page is complete without it; it only adds. Each feature
 * finds its elements by data attributes and does nothing on a page without them.
 */
import { enableCalendarKeys } from './calendar-keys.js';
import { enableCopyButtons } from './copy-new-key.js';
import { enableSearchSuggestions } from './search-suggest.js';
import { registerOfflineCopies } from './offline.js';
import { enableSlashToSearch } from './slash-to-search.js';

// When the script began, beside the paint entries: the benchmark reads whether the first
// contentful paint came before any script ran (it is deferred: it must never hold the paint).
performance.mark('emutrack:script-start');

enableSlashToSearch(document);
enableCalendarKeys(document);
enableSearchSuggestions(document);
enableCopyButtons(document);
registerOfflineCopies(window);
performance.mark('emutrack:script-end');
