import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  csrfValid,
  loginUrl,
  signedInBrowser,
  type SignedInBrowser,
} from '../session/web-session.js';

/** The Development tab of the account page, where the panels are. */
export const DEVELOPMENT_TAB = '/account?tab=development';

/**
 * A posted field as a list of its values, trimmed, empty ones dropped: the values of repeated
 * checkboxes, or a text split at `separator`.
 */
export function listField(value: unknown, separator?: RegExp): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => (separator ? v.split(separator) : [v]))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export interface PanelFormOptions {
  /** The panel's element id: where the browser comes back to. */
  panelId: string;
  /** The query parameter that carries a refusal's message back to the panel. */
  errorParam: string;
  /** Whether an error is a refusal to show on the panel (anything else is thrown). */
  isRefusal(err: unknown): err is Error;
}

/**
 * A form target of an account panel (account-panels.ts): a signed-out browser goes to sign in, a
 * post without this session's CSRF token is refused (403), then the handler acts. It answers
 * itself (a page with a new secret) or leaves it to this, which comes back to the panel (303),
 * with the message of a refusal.
 */
export function panelFormAction(
  options: PanelFormOptions,
  handler: (
    request: FastifyRequest,
    reply: FastifyReply,
    browser: SignedInBrowser,
  ) => Promise<FastifyReply | undefined>,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const browser = await signedInBrowser(request);
    if (!browser) return reply.redirect(loginUrl(DEVELOPMENT_TAB), 303);
    if (!csrfValid(request, request.body as Record<string, unknown>)) {
      return reply
        .code(403)
        .type('text/plain; charset=utf-8')
        .send('This form has expired; reload the page.');
    }
    try {
      const answered = await handler(request, reply, browser);
      if (answered !== undefined) return answered;
    } catch (err) {
      if (options.isRefusal(err)) {
        return reply.redirect(
          `${DEVELOPMENT_TAB}&${options.errorParam}=${encodeURIComponent(err.message)}#${options.panelId}`,
          303,
        );
      }
      throw err;
    }
    return reply.redirect(`${DEVELOPMENT_TAB}#${options.panelId}`, 303);
  };
}
