import type { FastifyInstance } from 'fastify';
import { AccountError } from '../../../domain/accounts/account-error.js';
import { register, signIn } from '../../../domain/accounts/sign-in.js';
import { clientAddress } from '../../api/v2-edge.js';
import {
  csrfValid,
  safeNextPath,
  setSessionCookie,
  signedInBrowser,
} from '../../session/web-session.js';
import { field, FORM_POST, HIDDEN, type AccountPageKit, type Form } from '../account-page-kit.js';

/**
 * /login and /register: the form (a signed-in browser goes straight on to `next`, a path on
 * this site), and its post, which signs in or registers and returns to `next`.
 */
export function signInPages(app: FastifyInstance, kit: AccountPageKit): void {
  const { db, settings, refuseForgery, signInPage } = kit;
  for (const mode of ['login', 'register'] as const) {
    app.get(`/${mode}`, { schema: HIDDEN }, async (request, reply) => {
      const next = safeNextPath((request.query as Form).next);
      if (await signedInBrowser(request)) return reply.redirect(next, 303);
      return signInPage(request, reply, mode, 200, { next });
    });

    app.post(`/${mode}`, FORM_POST, async (request, reply) => {
      const form = (request.body ?? {}) as Form;
      if (!csrfValid(request, form)) return refuseForgery(request, reply);
      const next = safeNextPath(form.next);
      const username = field(form, 'username');
      const password = field(form, 'password');
      if (mode === 'register') {
        try {
          const signedIn = await register(
            db,
            { username, password, address: clientAddress(request) },
            settings,
          );
          if (!signedIn.ok) {
            reply.header('retry-after', signedIn.retryAfterSeconds);
            return signInPage(request, reply, mode, 429, {
              next,
              username,
              error: (t) => t.tooManyRegistrations(t.waitFor(signedIn.retryAfterSeconds)),
            });
          }
          setSessionCookie(request, reply, signedIn.secret, signedIn.session.expiresAt);
          return reply.redirect(next, 303);
        } catch (err) {
          if (!(err instanceof AccountError)) throw err;
          const status = err.code === 'username_taken' ? 409 : 400;
          return signInPage(request, reply, mode, status, {
            next,
            username,
            error: () => err.message,
          });
        }
      }
      const result = await signIn(
        db,
        { username, password, address: clientAddress(request) },
        settings,
      );
      if (result.ok) {
        setSessionCookie(request, reply, result.secret, result.session.expiresAt);
        return reply.redirect(next, 303);
      }
      if (result.reason === 'throttled') {
        reply.header('retry-after', result.retryAfterSeconds);
        return signInPage(request, reply, mode, 429, {
          next,
          username,
          error: (t) => t.tooManySignIns(t.waitFor(result.retryAfterSeconds)),
        });
      }
      const banned = result.reason === 'banned';
      return signInPage(request, reply, mode, banned ? 403 : 401, {
        next,
        username,
        error: (t) => (banned ? t.accountBanned : t.wrongCredentials),
      });
    });
  }
}
