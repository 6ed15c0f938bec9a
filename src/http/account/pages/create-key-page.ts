import type { FastifyInstance } from 'fastify';
import { AccountError } from '../../../domain/accounts/account-error.js';
import { issueCredential } from '../../../domain/accounts/credentials.js';
import { csrfValid } from '../../session/web-session.js';
import { KEY_LIFETIMES } from '../account-page-views.js';
import {
  field,
  FORM_POST,
  type AccountPageKit,
  type Form,
  type Said,
} from '../account-page-kit.js';

/**
 * POST /account/keys: a new API key with a name, scopes and one of the offered lifetimes, its
 * secret shown once on the Development tab.
 */
export function createKeyPage(app: FastifyInstance, kit: AccountPageKit): void {
  const { db, config, settings, refuseForgery, accountPage, requireSignIn } = kit;
  app.post('/account/keys', FORM_POST, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    if (!csrfValid(request, form)) return refuseForgery(request, reply);
    const signedIn = await requireSignIn(request, reply, '/account?tab=development');
    if (!signedIn) return reply;
    const { user } = signedIn;
    const scopes =
      form.scopes === undefined ? [] : [form.scopes].flat().filter((s) => s !== undefined);
    const days = Number(field(form, 'expiresInDays') || config.API_KEY_DEFAULT_LIFETIME_DAYS);
    const name = field(form, 'name').trim();
    const fail = (error: Said) =>
      accountPage(request, reply, signedIn, { tab: 'development', status: 400, error });
    if (name === '' || name.length > 100) return fail((t) => t.keyNameNeeded);
    if (scopes.length === 0) return fail((t) => t.keyScopeNeeded);
    if (
      !(KEY_LIFETIMES as readonly number[]).includes(days) ||
      days > config.API_KEY_MAX_LIFETIME_DAYS
    ) {
      return fail((t) => t.keyLifetimeNeeded);
    }
    try {
      const { secret, credential } = await issueCredential(
        db,
        {
          userId: user.userId,
          issuer: 'api',
          name,
          scopes,
          expiresAt: new Date(Date.now() + days * 86_400_000),
          dailyTokenLimit: settings.dailyTokenLimit,
        },
        { maxLifetimeSeconds: settings.maxLifetimeSeconds },
      );
      return accountPage(request, reply, signedIn, {
        tab: 'development',
        newKey: { secret, name: credential.name },
      });
    } catch (err) {
      if (!(err instanceof AccountError)) throw err;
      return fail(() => err.message);
    }
  });
}
