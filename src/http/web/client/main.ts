/*
 * The web app's one script: every page is complete without it; it only adds. Each feature
 * finds its elements by data attributes and does nothing on a page without them.
 */
import { enableAlertPush } from './alert-push.js';
import { enableCalendarKeys } from './calendar-keys.js';
import { enableCopyButtons } from './copy-new-key.js';
import { enableSearchSuggestions } from './search-suggest.js';
import { registerOfflineCopies } from './offline.js';
import { enableSlashToSearch } from './slash-to-search.js';

function enableFeatures(): void {
  // When the features began and ended, beside the paint entries: the benchmark reads whether
  // the first contentful paint came before any of them ran.
  performance.mark('emutrack:script-start');
  enableSlashToSearch(document);
  enableCalendarKeys(document);
  enableSearchSuggestions(document);
  enableCopyButtons(document);
  enableAlertPush(document);
  registerOfflineCopies(window);
  performance.mark('emutrack:script-end');
}

// The script is deferred, so it never holds the parser; but once the stylesheet is in, the
// browser may run it before it renders the first frame (measured: with a CJK system font, the
// first frame's layout took 170-330 ms at 4x CPU after the stylesheet and script arrived
// together, and the script ran first in 2 of 3 visits of the home page). So the features wait
// for the first frame: a task queued from the frame's animation callback runs after the frame
// is rendered. A hidden page renders no frames: its features start at once.
if (document.visibilityState === 'hidden') enableFeatures();
else requestAnimationFrame(() => setTimeout(enableFeatures, 0));
