import { scopeInfo } from '../../domain/accounts/scopes.js';
import type { AuthorizationRequest } from '../../domain/oauth/authorization-request.js';
import type { FastifyRequest } from 'fastify';
import { html, type Html } from '../html/html.js';
import { OAUTH_PATHS } from '../../domain/oauth/discovery.js';
import type { Messages } from '../web/i18n/messages-en.js';
import { personalPage, personalView } from '../web/personal-page.js';

/** The consent form's field names (the decision buttons and the carried request). */
export const CONSENT_FIELDS = {
  /** The authorization request's query string, carried unchanged and checked again on POST. */
  request: 'request',
  decision: 'decision',
} as const;

export interface ConsentPageInput {
  request: AuthorizationRequest;
  /** The query string of the GET request (without "?"). */
  query: string;
  /** The signed-in user's name, to say who is giving access. */
  username: string;
  /** The user is the client's owner (pending scopes are usable, and said so). */
  isOwner: boolean;
  /** Hidden CSRF field: its name and value. */
  csrf: { field: string; token: string };
  /** Where the form posts (the authorization endpoint). */
  action: string;
}

/**
 * The consent page: which app (name, owner, homepage, description), what it will be able to
 * do (each scope in words), where the browser goes next, and one POST form with Allow and Deny.
 */
export function consentPage(http: FastifyRequest, input: ConsentPageInput): string {
  const { request, csrf } = input;
  const { client } = request;
  const view = personalView(http);
  const { t } = view;
  const review = new Map(client.scopes.map((s) => [s.scope, s.status]));
  const target = new URL(request.redirectUri);
  const scopes = request.scopes.map((scope) => {
    const pending = review.get(scope) === 'pending';
    return html`<li>
      <strong>${scopeInfo(scope)?.description ?? scope}</strong>
      <span class="muted"><code>${scope}</code></span
      >${pending ? html` <span class="warn">${t.consentPending}</span>` : ''}
    </li>`;
  });
  const body = html`<p class="muted">
      ${t.consentSignedInAs} <strong>${input.username}</strong>. ${t.consentRegisteredBy}
      <strong>${client.ownerUsername}</strong>${
        client.homepageUrl
          ? html`; ${t.consentHomepage}
              <a href="${client.homepageUrl}" rel="noopener noreferrer">${client.homepageUrl}</a>`
          : ''
      }.
    </p>
    ${client.description ? html`<p>${client.description}</p>` : ''}
    <p>${t.consentAbleTo}</p>
    <ul class="scopes">
      <li><strong>${t.consentUserId}</strong> <span class="muted">${t.consentAlways}</span></li>
      ${scopes}
    </ul>
    <p class="muted">${t.consentSentTo} <code>${target.origin}</code>. ${t.consentRevoke}</p>
    <form method="post" action="${input.action}">
      <input type="hidden" name="${csrf.field}" value="${csrf.token}" />
      <input type="hidden" name="${CONSENT_FIELDS.request}" value="${input.query}" />
      <div class="buttons">
        <button type="submit" name="${CONSENT_FIELDS.decision}" value="allow">${t.allow}</button>
        <button type="submit" name="${CONSENT_FIELDS.decision}" value="deny">${t.deny}</button>
      </div>
    </form>`;
  return personalPage(http, view, {
    title: t.consentTitle(client.name),
    heading: html`${t.consentHeadingBefore} <em>${client.name}</em> ${t.consentHeadingAfter}`,
    body,
  });
}

/**
 * The page shown instead of redirecting (RFC 6749 4.1.2.1): the client or its redirect_uri
 * cannot be trusted, so the user is told here and never sent anywhere.
 */
export function authorizationErrorPage(
  http: FastifyRequest,
  error: string,
  description: string,
): string {
  // The request is not to be trusted: the footer's switches do not carry it (they go home).
  const view = personalView(http, '/');
  const { t } = view;
  return personalPage(http, view, {
    title: t.authorizationFailed,
    heading: html`${t.authorizationCannotComplete}`,
    body: html`<p>${description}.</p>
      <p class="muted">
        ${t.authorizationErrorCode} <code>${error}</code>. ${t.authorizationNotSentBack}
      </p>`,
  });
}

/** A short page of the authorization endpoint: a heading and a line or two. */
export function authorizationNotice(
  http: FastifyRequest,
  words: (t: Messages) => { title: string; heading: string; text: Html },
): string {
  const view = personalView(http, http.method === 'GET' ? undefined : OAUTH_PATHS.authorize);
  const { title, heading, text } = words(view.t);
  return personalPage(http, view, { title, heading: html`${heading}`, body: html`<p>${text}</p>` });
}
