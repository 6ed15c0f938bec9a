import type { Credential } from '../../domain/accounts/credentials.js';
import { SCOPE_CATALOGUE } from '../../domain/accounts/scopes.js';
import type { User } from '../../domain/accounts/users.js';
import { hiddenCsrf, html, Html } from '../html/html.js';
import type { Messages } from '../web/i18n/messages-en.js';
import { reflowTable } from '../html/reflow-table.js';

/** The bodies of the account pages (personal-page.ts puts them in the web app's layout). */

const messages = (options: { error?: string; notice?: string }) =>
  html`${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}${
    options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''
  }`;

const date = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

export function signInForm(
  t: Messages,
  options: {
    mode: 'login' | 'register';
    csrfToken: string;
    next: string;
    username?: string;
    error?: string;
  },
): Html {
  const login = options.mode === 'login';
  const next = encodeURIComponent(options.next);
  return html`<div class="card narrow">
    ${messages(options)}
    <form method="post" action="${login ? '/login' : '/register'}" class="stacked">
      ${hiddenCsrf(options.csrfToken)}
      <input type="hidden" name="next" value="${options.next}" />
      <label for="username">${t.username}</label>
      <input
        type="text"
        id="username"
        name="username"
        autocomplete="username"
        required
        minlength="3"
        maxlength="32"
        pattern="[A-Za-z0-9_.\\-]{3,32}"
        value="${options.username ?? ''}"
      />
      <label for="password">${t.password}</label>
      <input
        type="password"
        id="password"
        name="password"
        autocomplete="${login ? 'current-password' : 'new-password'}"
        required
        minlength="${login ? 1 : 8}"
      />
      ${login ? '' : html`<p class="muted">${t.registerRules}</p>`}
      <button type="submit">${login ? t.signInTitle : t.registerTitle}</button>
    </form>
    <p class="muted">
      ${
        login
          ? html`${t.noAccountYet} <a href="/register?next=${next}">${t.registerTitle}</a>`
          : html`${t.haveAccount} <a href="/login?next=${next}">${t.signInTitle}</a>`
      }
    </p>
  </div>`;
}

export function tabs(t: Messages, current: 'profile' | 'development'): Html {
  const tab = (id: typeof current, label: string) =>
    html`<a href="/account?tab=${id}" ${id === current ? new Html('aria-current="page"') : ''}
      >${label}</a
    >`;
  return html`<nav class="tabs" aria-label="${t.accountSections}">
    ${tab('profile', t.tabProfile)}${tab('development', t.tabDevelopment)}
  </nav>`;
}

export function profileTab(
  t: Messages,
  options: { user: User; csrfToken: string; error?: string; notice?: string },
): Html {
  const { user } = options;
  return html`<section class="card">
      <h2>${t.tabProfile}</h2>
      <dl class="facts">
        <dt>${t.username}</dt>
        <dd>${user.username}</dd>
        <dt>${t.userId}</dt>
        <dd><code>${user.userId}</code></dd>
        <dt>${t.role}</dt>
        <dd>${user.role}</dd>
        <dt>${t.memberSince}</dt>
        <dd>${date(user.createdAt)}</dd>
      </dl>
    </section>
    <section class="card">
      <h2>${t.changePassword}</h2>
      ${messages(options)}
      <form method="post" action="/account/password" class="stacked">
        ${hiddenCsrf(options.csrfToken)}
        <label for="currentPassword">${t.currentPassword}</label>
        <input
          type="password"
          id="currentPassword"
          name="currentPassword"
          autocomplete="current-password"
          required
        />
        <label for="newPassword">${t.newPassword}</label>
        <input
          type="password"
          id="newPassword"
          name="newPassword"
          autocomplete="new-password"
          required
          minlength="8"
        />
        <p class="muted">${t.changePasswordNote}</p>
        <button type="submit">${t.changePassword}</button>
      </form>
    </section>`;
}

/** Lifetimes offered for a new key, in days. */
export const KEY_LIFETIMES = [7, 30, 90, 365, 1826] as const;

function keyRow(t: Messages, c: Credential, currentRevokeId: string, csrfToken: string): Html {
  const revoked = c.revokedAt !== null;
  const action = revoked
    ? t.revokedOn(date(c.revokedAt!))
    : c.revokeId === currentRevokeId
      ? html`<span class="muted">${t.thisBrowser}</span>`
      : html`<form method="post" action="/account/keys/${c.revokeId}/revoke">
          ${hiddenCsrf(csrfToken)}<button
            class="danger"
            type="submit"
            aria-label="${t.revokeKey(c.name || c.maskedApiKey)}"
          >
            ${t.revoke}
          </button>
        </form>`;
  return html`<tr ${revoked ? new Html('class="revoked"') : ''} data-revoke-id="${c.revokeId}">
    <th scope="row" data-label="${t.keyName}">${c.name || '—'}</th>
    <td data-label="${t.keyColumn}"><code>${c.maskedApiKey}</code></td>
    <td data-label="${t.keyKind}">${c.issuer}</td>
    <td data-label="${t.keyExpires}">${date(c.expiresAt)}</td>
    <td data-label="${t.scopes}">${t.scopeCount(c.scopes.length)}</td>
    <td data-label="${t.actions}">${action}</td>
  </tr>`;
}

export function developmentTab(
  t: Messages,
  options: {
    credentials: readonly Credential[];
    currentRevokeId: string;
    creatableScopes: readonly string[];
    defaultLifetimeDays: number;
    csrfToken: string;
    error?: string;
    notice?: string;
    /** A key just created: shown in clear this once. */
    newKey?: { secret: string; name: string };
    /** Other panels' HTML (the OAuth clients panel). */
    panels: readonly { id: string; title: string; html: string }[];
  },
): Html {
  // One line each (prettier-ignore): the key's field is read by its attributes in this order.
  // prettier-ignore
  const keyField = (secret: string) =>
    html`<input type="text" id="new-key" readonly value="${secret}" aria-label="${t.newKeyLabel}" />`;
  const newKey = options.newKey
    ? html`<div class="notice" role="status">
        <strong>${t.keyCreated(options.newKey.name)}</strong> ${t.keyShownOnce}
        <div class="newkey">
          ${keyField(options.newKey.secret)}
          <button
            type="button"
            id="copy-new-key"
            data-copy-from="new-key"
            data-copied="${t.copied}"
            hidden
          >
            ${t.copy}
          </button>
        </div>
      </div>`
    : '';
  const scopeBoxes = SCOPE_CATALOGUE.filter((s) => options.creatableScopes.includes(s.name)).map(
    (s) =>
      html`<label class="check"
        ><input type="checkbox" name="scopes" value="${s.name}" checked />
        <span><code>${s.name}</code> — ${s.description}</span></label
      >`,
  );
  const lifetimes = KEY_LIFETIMES.map(
    (d) =>
      html`<option value="${d}" ${d === options.defaultLifetimeDays ? new Html('selected') : ''}>
        ${d === 1826 ? t.lifetimeYears(5) : t.lifetimeDays(d)}
      </option>`,
  );
  // Their HTML is theirs, already escaped (account-panels.ts).
  // prettier-ignore
  const panels = options.panels.map(
    (p) => html`<section class="card" id="${p.id}"><h2>${p.title}</h2>${new Html(p.html)}</section>`,
  );
  const keys = reflowTable({
    className: 'keys',
    columns: [t.keyName, t.keyColumn, t.keyKind, t.keyExpires, t.scopes, t.actions],
    rows: options.credentials.map((c) => keyRow(t, c, options.currentRevokeId, options.csrfToken)),
  });
  return html`<section class="card" id="api-keys">
      <h2>${t.apiKeys}</h2>
      ${messages(options)}${newKey}
      <p class="muted">
        ${t.keyUsageBefore} <code>Authorization: Bearer &lt;key&gt;</code>. ${t.keyUsageAfter}
      </p>
      ${keys}
    </section>
    <section class="card" id="create-key">
      <h2>${t.createKey}</h2>
      <form method="post" action="/account/keys" class="stacked">
        ${hiddenCsrf(options.csrfToken)}
        <label for="key-name">${t.keyName}</label>
        <input
          type="text"
          id="key-name"
          name="name"
          required
          maxlength="100"
          placeholder="${t.keyNamePlaceholder}"
        />
        <fieldset class="scopes">
          <legend>${t.scopes}</legend>
          ${scopeBoxes}
        </fieldset>
        <label for="key-lifetime">${t.expiresAfter}</label>
        <select id="key-lifetime" name="expiresInDays">
          ${lifetimes}
        </select>
        <button type="submit">${t.createKeyButton}</button>
      </form>
    </section>
    ${panels}`;
}
