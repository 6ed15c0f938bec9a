import type { FastifyInstance } from 'fastify';
import { revokeCredential } from '../../../domain/accounts/credentials.js';
import { clearSessionCookie, csrfValid, SESSION_COOKIE } from '../../session/web-session.js';
import { FORM_POST, type AccountPageKit, type Form } from '../account-page-kit.js';

/** POST /logout: revokes the browser's session (a webapp credential) and returns to /login. */
export function logoutPage(app: FastifyInstance, kit: AccountPageKit): void {
  const { db, credentials, refuseForgery } = kit;
  app.post('/logout', FORM_POST, async (request, reply) => {
    if (!csrfValid(request, (request.body ?? {}) as Form)) return refuseForgery(request, reply);
    const secret = request.cookies[SESSION_COOKIE];
    if (secret) {
      const result = await credentials.authenticate(secret);
      if (result.ok && result.credential.issuer === 'webapp') {
        await revokeCredential(db, result.credential.revokeId);
        credentials.clear();
      }
    }
    clearSessionCookie(request, reply);
    return reply.redirect('/login', 303);
  });
}
