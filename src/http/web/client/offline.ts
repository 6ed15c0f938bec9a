/** The service worker's address: the root, so that every page of the origin is in its scope. */
const WORKER_URL = '/sw.js';

/**
 * Registers the service worker (sw/sw.ts) once the page has loaded: its install fetches this
 * build's assets, which must never compete with the page's own first paint. A browser without
 * service workers, or one that refuses this one (private mode, storage off), keeps the plain
 * site: nothing here is needed to read a page.
 */
export function registerOfflineCopies(win: Window): void {
  if (!('serviceWorker' in win.navigator)) return;
  const register = () => {
    win.navigator.serviceWorker.register(WORKER_URL, { scope: '/' }).catch(() => undefined);
  };
  if (win.document.readyState === 'complete') register();
  else win.addEventListener('load', register, { once: true });
}
