/*
 * The web app's one script: every page is complete without it; it only adds. Each feature
 * finds its elements by data attributes and does nothing on a page without them.
 */
import { enableCalendarKeys } from './calendar-keys.js';
import { enableCopyButtons } from './copy-new-key.js';
import { enableSearchSuggestions } from './search-suggest.js';
import { enableSlashToSearch } from './slash-to-search.js';

enableSlashToSearch(document);
enableCalendarKeys(document);
enableSearchSuggestions(document);
enableCopyButtons(document);
