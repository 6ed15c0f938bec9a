import type { FastifyInstance } from 'fastify';
import { AccountError } from '../../../domain/accounts/account-error.js';
import { changePasswordLimited } from '../../../domain/accounts/sign-in.js';
import { csrfValid } from '../../session/web-session.js';
import { field, FORM_POST, type AccountPageKit, type Form } from '../account-page-kit.js';

/**
 * POST /account/password: changes the password given the current one (wrong guesses limited);
 * the user's other browsers are signed out.
 */
export function passwordPage(app: FastifyInstance, kit: AccountPageKit): void {
  const { db, settings, credentials, refuseForgery, accountPage, requireSignIn } = kit;
  app.post('/account/password', FORM_POST, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    if (!csrfValid(request, form)) return refuseForgery(request, reply);
    const signedIn = await requireSignIn(request, reply, '/account');
    if (!signedIn) return reply;
    try {
      const changed = await changePasswordLimited(
        db,
        {
          user: signedIn.user,
          currentPassword: field(form, 'currentPassword'),
          newPassword: field(form, 'newPassword'),
          keepCredentialId: signedIn.session.credentialId,
        },
        settings,
      );
      if (!changed.ok && changed.reason === 'throttled') {
        reply.header('retry-after', changed.retryAfterSeconds);
        return accountPage(request, reply, signedIn, {
          tab: 'profile',
          status: 429,
          error: (t) => t.tooManyPasswordGuesses(t.waitFor(changed.retryAfterSeconds)),
        });
      }
      if (!changed.ok) {
        return accountPage(request, reply, signedIn, {
          tab: 'profile',
          status: 401,
          error: (t) => t.wrongCurrentPassword,
        });
      }
      credentials.clear();
      return accountPage(request, reply, signedIn, {
        tab: 'profile',
        notice: (t) => t.passwordChanged,
      });
    } catch (err) {
      if (!(err instanceof AccountError)) throw err;
      return accountPage(request, reply, signedIn, {
        tab: 'profile',
        status: 400,
        error: () => err.message,
      });
    }
  });
}
