import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedInBrowser } from '../session/web-session.js';

/**
 * What the OAuth pages need of the accounts' web sign-in: who is signed in, where to
 * sign in, and CSRF protection of forms. An adapter over the accounts edge provides it.
 */
export interface PageSession {
  /** The signed-in user of a browser request, or undefined (signed out, expired, banned). */
  signedIn(request: FastifyRequest): Promise<SignedInBrowser | undefined>;
  /** The sign-in page that comes back to `next` (a path and query on this site) afterwards. */
  loginUrl(next: string): string;
  /** The hidden field a form on this page must carry (issued for this browser). */
  csrfField(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ field: string; token: string }>;
  /** Whether a form post carries this browser's CSRF token. */
  csrfValid(request: FastifyRequest, form: Record<string, unknown>): Promise<boolean>;
}
