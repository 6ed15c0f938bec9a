import type { FastifyInstance } from 'fastify';
import { HIDDEN, type AccountPageKit, type Form, type Said } from '../account-page-kit.js';

/** GET /account: the Profile tab, or with ?tab=development the API keys and the panels. */
export function accountPageRoute(app: FastifyInstance, kit: AccountPageKit): void {
  const { accountPage, requireSignIn } = kit;
  app.get('/account', { schema: HIDDEN }, async (request, reply) => {
    const query = request.query as Form;
    const tab = query.tab === 'development' ? 'development' : 'profile';
    const signedIn = await requireSignIn(request, reply, `/account?tab=${tab}`);
    if (!signedIn) return reply;
    const notice: Said | undefined = query.revoked === '1' ? (t) => t.keyRevoked : undefined;
    return accountPage(request, reply, signedIn, { tab, notice });
  });
}
