import type { FastifyReply, FastifyRequest } from 'fastify';
import { FavouriteError } from '../../../domain/favourites/favourite-error.js';
import { favouriteStatuses } from '../../../domain/favourites/favourite-status.js';
import {
  addFavourite,
  canonicalFavouriteCode,
  hasFavourite,
  isFavouriteKind,
  listFavourites,
  MAX_FAVOURITES,
  removeFavourite,
  type FavouriteKind,
} from '../../../domain/favourites/favourites-store.js';
import type { ServedPage } from '../../api/page-cache.js';
import type { ApiServices } from '../../app-context.js';
import { formBody } from '../../html/form-body.js';
import { html } from '../../html/html.js';
import {
  csrfToken,
  csrfValid,
  loginUrl,
  safeNextPath,
  signedInBrowser,
} from '../../session/web-session.js';
import { sendPersonalPage } from '../personal-page.js';
import { PageInputError } from '../web-errors.js';
import type { WebView } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';
import {
  FAVOURITES_FORM_PATH,
  favouriteHref,
  favouritesCard,
  favouriteStar,
} from './favourite-views.js';
import { sendKeptPageWithPersonalPart } from './personal-part.js';

/**
 * Sends a kept train, unit or station page; a signed-in reader's copy has the star under its
 * heading (personal-part.ts: the kept page itself stays anonymous).
 */
export function sendPageWithStar(
  services: ApiServices,
  request: FastifyRequest,
  reply: FastifyReply,
  page: ServedPage,
  view: WebView,
  favourite: { kind: FavouriteKind; code: string },
): Promise<FastifyReply> {
  return sendKeptPageWithPersonalPart(request, reply, page, async (browser) =>
    favouriteStar(view, {
      ...favourite,
      starred: await hasFavourite(services.db, browser.user.userId, favourite.kind, favourite.code),
      csrfToken: csrfToken(request, reply),
    }),
  );
}

/** Sends the kept home page; a signed-in reader's copy has their favourites under its heading. */
export function sendHomeWithFavourites(
  services: ApiServices,
  request: FastifyRequest,
  reply: FastifyReply,
  page: ServedPage,
  view: WebView,
): Promise<FastifyReply> {
  return sendKeptPageWithPersonalPart(request, reply, page, async (browser) => {
    const favourites = await listFavourites(services.db, browser.user.userId);
    const statuses = await favouriteStatuses(services.db, favourites, services.clock());
    return favouritesCard(view, statuses, MAX_FAVOURITES);
  });
}

const single = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/**
 * POST /favourites: the star's form (`kind`, `code`, `action` add or remove, `next`, `_csrf`).
 * Signed out: to the sign-in page, which comes back to `next`. A form without this browser's
 * CSRF token is a 403 page; a bad field a 400 page naming it; else a 303 back to `next` (a path
 * on this site; default the favourite's page).
 */
export function favouritePages({ web, services, view }: WebRoutes): void {
  void web.register(async (scope) => {
    await formBody(scope);
    scope.post(FAVOURITES_FORM_PATH, async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      const v = view(request);
      const { t } = v;
      const kind = single(form.kind) ?? '';
      const code = single(form.code) ?? '';
      const action = single(form.action);
      const back = isFavouriteKind(kind) && code !== '' ? favouriteHref(kind, code) : '/';
      const next = safeNextPath(form.next, back);
      const browser = await signedInBrowser(request);
      if (!browser) return reply.redirect(loginUrl(next), 303);
      if (!csrfValid(request, form)) {
        return sendPersonalPage(
          request,
          reply,
          403,
          { ...v, here: next },
          {
            title: t.formExpiredTitle,
            heading: html`${t.formExpiredHeading}`,
            body: html`<p>${t.formExpiredText} <a href="${next}">${t.formExpiredReload}</a>.</p>`,
          },
        );
      }
      if (!isFavouriteKind(kind))
        throw new PageInputError('kind', 'expected train, emu or station');
      if (action !== 'add' && action !== 'remove') {
        throw new PageInputError('action', 'expected add or remove');
      }
      const { db } = services;
      const userId = browser.user.userId;
      try {
        const canonical = await canonicalFavouriteCode(db, kind, code);
        if (action === 'add') await addFavourite(db, userId, kind, canonical);
        else await removeFavourite(db, userId, kind, canonical);
      } catch (err) {
        if (err instanceof FavouriteError) throw new PageInputError(err.field, err.why);
        throw err;
      }
      return reply.header('cache-control', 'no-store').redirect(next, 303);
    });
  });
}
