import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { ApiServices } from '../app-context.js';
import { answerSwitches } from '../web/personal-page.js';
import { accountPageKit, FORM_BODY_LIMIT } from './account-page-kit.js';
import { accountPageRoute } from './pages/account-page.js';
import { createKeyPage } from './pages/create-key-page.js';
import { logoutPage } from './pages/logout-page.js';
import { passwordPage } from './pages/password-page.js';
import { revokeKeyPage } from './pages/revoke-key-page.js';
import { signInPages } from './pages/sign-in-pages.js';

export interface AccountPagesOptions {
  services: ApiServices;
}

/**
 * The account pages, server-rendered and usable without JavaScript: /login and /register (both
 * return to `next`, a path on this site), /logout, and /account with a Profile tab (password)
 * and a Development tab (API keys: list, create with name, scopes and lifetime, shown once;
 * revoke; then the panels others add through app.accountPanels). Every form carries the CSRF
 * token; a post without it is refused with 403.
 */
export async function accountPages(
  app: FastifyInstance,
  options: AccountPagesOptions,
): Promise<void> {
  await app.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });
  app.addHook('preHandler', answerSwitches);
  const kit = accountPageKit(app, options.services);
  signInPages(app, kit);
  logoutPage(app, kit);
  accountPageRoute(app, kit);
  createKeyPage(app, kit);
  revokeKeyPage(app, kit);
  passwordPage(app, kit);
}
