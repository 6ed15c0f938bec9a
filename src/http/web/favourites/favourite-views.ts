import type { FavouriteStatus } from '../../../domain/favourites/favourite-status.js';
import type { FavouriteKind } from '../../../domain/favourites/favourites-store.js';
import { hiddenCsrf, html, type Html } from '../../html/html.js';
import { emuHref, stationHref, trainHref } from '../page-links.js';
import type { WebView } from '../web-request.js';

/** Where the star's form posts (a plain form: it works with JavaScript off). */
export const FAVOURITES_FORM_PATH = '/favourites';

const HREF_OF: Record<FavouriteKind, (code: string) => string> = {
  train: trainHref,
  emu: emuHref,
  station: stationHref,
};

/** The page of a favourite. */
export function favouriteHref(kind: FavouriteKind, code: string): string {
  return HREF_OF[kind](code);
}

/**
 * The star under a page's heading, for a signed-in reader: a form that adds the page's train,
 * unit or station to their favourites, or removes it, and comes back to the page.
 */
export function favouriteStar(
  view: WebView,
  input: { kind: FavouriteKind; code: string; starred: boolean; csrfToken: string },
): Html {
  const { t } = view;
  return html`<form
    class="favourite-star"
    method="post"
    action="${FAVOURITES_FORM_PATH}"
    data-favourite-star="${input.starred ? 'on' : 'off'}"
  >
    ${hiddenCsrf(input.csrfToken)}
    <input type="hidden" name="kind" value="${input.kind}" />
    <input type="hidden" name="code" value="${input.code}" />
    <input type="hidden" name="action" value="${input.starred ? 'remove' : 'add'}" />
    <input type="hidden" name="next" value="${view.here}" />
    ${
      input.starred
        ? html`<span class="chip">★ ${t.favouriteStarred}</span>
            <button type="submit" class="secondary">${t.favouriteRemove}</button>`
        : html`<button type="submit" class="secondary">☆ ${t.favouriteAdd}</button>`
    }
  </form>`;
}

function kindLabel(view: WebView, kind: FavouriteKind): string {
  const { t } = view;
  if (kind === 'train') return t.favouriteKindTrain;
  if (kind === 'emu') return t.favouriteKindEmu;
  return t.favouriteKindStation;
}

/** "2026-08-16" from "20260816". */
const dashed = (ymd: string) => `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;

function statusText(view: WebView, f: FavouriteStatus): Html {
  const { t } = view;
  if (f.kind === 'station') return html`${t.favouriteTrainsToday(f.trainsToday)}`;
  if (f.status === 'seen') {
    const today = f.kind === 'train' ? f.units : f.trains;
    const hrefOf = f.kind === 'train' ? emuHref : trainHref;
    return html`${t.favouriteToday}
    ${today.map((code) => html`<a href="${hrefOf(code)}">${code}</a> `)}`;
  }
  const now =
    f.status === 'missing'
      ? html`<strong class="favourite-missing">${t.favouriteMissing}</strong>`
      : html`${
          f.status === 'expected'
            ? t.favouriteExpected
            : f.status === 'not_running'
              ? t.favouriteNotRunning
              : t.favouriteNotSeen
        }`;
  if (!f.latest) return now;
  const last = f.kind === 'train' ? (f.latest.units ?? []) : (f.latest.trains ?? []);
  return html`${now} · ${t.favouriteLatest(dashed(f.latest.date), last.join(' '))}`;
}

/** The home page's "your favourites" card: each favourite with today's status. */
export function favouritesCard(
  view: WebView,
  favourites: readonly FavouriteStatus[],
  max: number,
): Html {
  const { t } = view;
  const items = favourites.map(
    (f) =>
      html`<li data-favourite="${f.kind}:${f.code}">
        <span class="chip">${kindLabel(view, f.kind)}</span>
        <a href="${favouriteHref(f.kind, f.code)}">${f.code}</a>
        <span data-favourite-status>${statusText(view, f)}</span>
      </li>`,
  );
  return html`<section class="card" aria-labelledby="favourites" data-favourites>
    <h2 id="favourites">${t.favouritesTitle}</h2>
    ${
      favourites.length === 0
        ? html`<p>${t.favouritesNone}</p>`
        : html`<ul class="plain-list">
              ${items}
            </ul>
            <p class="muted">${t.favouritesCount(favourites.length, max)}</p>`
    }
  </section>`;
}
