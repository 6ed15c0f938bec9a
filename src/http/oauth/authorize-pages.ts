import { scopeInfo } from '../../domain/accounts/scopes.js';
import type { AuthorizationRequest } from '../../domain/oauth/authorization-request.js';
import { html, page } from '../html/html.js';

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
export function consentPage(input: ConsentPageInput): string {
  const { request, csrf } = input;
  const { client } = request;
  const review = new Map(client.scopes.map((s) => [s.scope, s.status]));
  const target = new URL(request.redirectUri);
  const scopes = request.scopes.map((scope) => {
    const pending = review.get(scope) === 'pending';
    return html`<li>
      <strong>${scopeInfo(scope)?.description ?? scope}</strong>
      <span class="muted"><code>${scope}</code></span
      >${
        pending
          ? html` <span class="warn"
              >(awaiting an administrator's review: only you, the owner, can grant it for now)</span
            >`
          : ''
      }
    </li>`;
  });
  const body = html`<h1>Allow <em>${client.name}</em> to use your emutrack account?</h1>
    <p class="muted">
      Signed in as <strong>${input.username}</strong>. This app is registered by
      <strong>${client.ownerUsername}</strong>${
        client.homepageUrl
          ? html`; its homepage is
              <a href="${client.homepageUrl}" rel="noopener noreferrer">${client.homepageUrl}</a>`
          : ''
      }.
    </p>
    ${client.description ? html`<p>${client.description}</p>` : ''}
    <p>It will be able to:</p>
    <ul class="scopes">
      <li><strong>Know your user id</strong> <span class="muted">(always)</span></li>
      ${scopes}
    </ul>
    <p class="muted">
      You will then be sent to <code>${target.origin}</code>. You can revoke this access at any time
      on your account page.
    </p>
    <form method="post" action="${input.action}">
      <input type="hidden" name="${csrf.field}" value="${csrf.token}" />
      <input type="hidden" name="${CONSENT_FIELDS.request}" value="${input.query}" />
      <div class="buttons">
        <button type="submit" name="${CONSENT_FIELDS.decision}" value="allow">Allow</button>
        <button type="submit" name="${CONSENT_FIELDS.decision}" value="deny">Deny</button>
      </div>
    </form>`;
  return page(`Allow ${client.name}?`, body);
}

/**
 * The page shown instead of redirecting (RFC 6749 4.1.2.1): the client or its redirect_uri
 * cannot be trusted, so the user is told here and never sent anywhere.
 */
export function authorizationErrorPage(error: string, description: string): string {
  return page(
    'Authorization failed',
    html`<h1>This authorization request cannot be completed</h1>
      <p>${description}.</p>
      <p class="muted">
        Error <code>${error}</code>. The app that sent you here is misconfigured or not allowed; you
        were not sent back to it. You may close this page.
      </p>`,
  );
}
