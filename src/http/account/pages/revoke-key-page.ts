import type { FastifyInstance } from 'fastify';
import { revokeCredential } from '../../../domain/accounts/credentials.js';
import { csrfValid } from '../../session/web-session.js';
import { FORM_POST, type AccountPageKit, type Form } from '../account-page-kit.js';

/** POST /account/keys/:revokeId/revoke: revokes one of the signed-in user's keys. */
export function revokeKeyPage(app: FastifyInstance, kit: AccountPageKit): void {
  const { db, credentials, refuseForgery, accountPage, requireSignIn } = kit;
  app.post<{ Params: { revokeId: string } }>(
    '/account/keys/:revokeId/revoke',
    FORM_POST,
    async (request, reply) => {
      if (!csrfValid(request, (request.body ?? {}) as Form)) return refuseForgery(request, reply);
      const signedIn = await requireSignIn(request, reply, '/account?tab=development');
      if (!signedIn) return reply;
      const revoked = await revokeCredential(db, request.params.revokeId, {
        userId: signedIn.user.userId,
      });
      if (!revoked) {
        return accountPage(request, reply, signedIn, {
          tab: 'development',
          status: 404,
          error: (t) => t.noSuchKey,
        });
      }
      credentials.clear();
      return reply.redirect('/account?tab=development&revoked=1', 303);
    },
  );
}
