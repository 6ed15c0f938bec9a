import type { Credential } from '../../domain/accounts/credentials.js';
import { SCOPE_CATALOGUE } from '../../domain/accounts/scopes.js';
import type { User } from '../../domain/accounts/users.js';
import { escapeHtml } from '../html/escape.js';
import { hiddenCsrf } from '../html/html.js';

/** The bodies of the account pages (renderPage puts them in the frame). */

const errorBox = (error?: string) =>
  error ? `<div class="error" role="alert">${escapeHtml(error)}</div>` : '';

const date = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

export function signInForm(options: {
  mode: 'login' | 'register';
  csrfToken: string;
  next: string;
  username?: string;
  error?: string;
}): string {
  const login = options.mode === 'login';
  const action = login ? '/login' : '/register';
  const other = login
    ? `<p class="muted">No account yet? <a href="/register?next=${encodeURIComponent(options.next)}">Register</a></p>`
    : `<p class="muted">Have an account? <a href="/login?next=${encodeURIComponent(options.next)}">Sign in</a></p>`;
  return `<div class="card" style="max-width:30rem">
<h1>${login ? 'Sign in' : 'Create an account'}</h1>
${errorBox(options.error)}
<form method="post" action="${action}">
${hiddenCsrf(options.csrfToken)}
<input type="hidden" name="next" value="${escapeHtml(options.next)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" required minlength="3" maxlength="32" pattern="[A-Za-z0-9_.\\-]{3,32}" value="${escapeHtml(options.username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="${login ? 'current-password' : 'new-password'}" required minlength="${login ? 1 : 8}">
${login ? '' : '<p class="muted">3-32 letters, digits, "_", "." or "-"; a password of at least 8 characters.</p>'}
<button class="primary" type="submit">${login ? 'Sign in' : 'Register'}</button>
</form>
${other}
</div>`;
}

export function tabs(current: 'profile' | 'development'): string {
  const tab = (id: typeof current, label: string) =>
    `<a href="/account?tab=${id}"${id === current ? ' aria-current="page"' : ''}>${label}</a>`;
  return `<nav class="tabs">${tab('profile', 'Profile')}${tab('development', 'Development')}</nav>`;
}

export function profileTab(options: {
  user: User;
  csrfToken: string;
  error?: string;
  notice?: string;
}): string {
  const { user } = options;
  return `<div class="card">
<h2>Profile</h2>
<table><tbody>
<tr><th>Username</th><td>${escapeHtml(user.username)}</td></tr>
<tr><th>User id</th><td><code>${escapeHtml(user.userId)}</code></td></tr>
<tr><th>Role</th><td>${escapeHtml(user.role)}</td></tr>
<tr><th>Member since</th><td>${escapeHtml(date(user.createdAt))}</td></tr>
</tbody></table>
</div>
<div class="card">
<h2>Change password</h2>
${errorBox(options.error)}${options.notice ? `<div class="notice">${escapeHtml(options.notice)}</div>` : ''}
<form method="post" action="/account/password">
${hiddenCsrf(options.csrfToken)}
<label for="currentPassword">Current password</label>
<input type="password" id="currentPassword" name="currentPassword" autocomplete="current-password" required>
<label for="newPassword">New password</label>
<input type="password" id="newPassword" name="newPassword" autocomplete="new-password" required minlength="8">
<p class="muted">Your other browsers are signed out; your API keys keep working.</p>
<button class="primary" type="submit">Change password</button>
</form>
</div>`;
}

/** Lifetimes offered for a new key, in days. */
export const KEY_LIFETIMES = [7, 30, 90, 365, 1826] as const;

export function developmentTab(options: {
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
}): string {
  const rows = options.credentials
    .map((c) => {
      const revoked = c.revokedAt !== null;
      const current = c.revokeId === options.currentRevokeId;
      const action = revoked
        ? `revoked ${escapeHtml(date(c.revokedAt!))}`
        : current
          ? '<span class="muted">this browser</span>'
          : `<form method="post" action="/account/keys/${escapeHtml(c.revokeId)}/revoke">${hiddenCsrf(options.csrfToken)}<button class="danger" type="submit" aria-label="Revoke ${escapeHtml(c.name || c.maskedApiKey)}">Revoke</button></form>`;
      return `<tr${revoked ? ' class="revoked"' : ''} data-revoke-id="${escapeHtml(c.revokeId)}">
<td>${escapeHtml(c.name || '—')}</td><td><code>${escapeHtml(c.maskedApiKey)}</code></td><td>${escapeHtml(c.issuer)}</td>
<td>${escapeHtml(date(c.expiresAt))}</td><td>${c.scopes.length} scope${c.scopes.length === 1 ? '' : 's'}</td><td>${action}</td></tr>`;
    })
    .join('\n');
  const newKey = options.newKey
    ? `<div class="notice" role="status"><strong>Key “${escapeHtml(options.newKey.name)}” created.</strong> Copy it now: it is shown this once.
<div class="newkey"><input type="text" id="new-key" readonly value="${escapeHtml(options.newKey.secret)}" aria-label="New API key">
<button type="button" class="primary" id="copy-new-key" style="margin:0">Copy</button></div></div>`
    : '';
  const scopeBoxes = SCOPE_CATALOGUE.filter((s) => options.creatableScopes.includes(s.name))
    .map(
      (s) =>
        `<label><input type="checkbox" name="scopes" value="${escapeHtml(s.name)}" checked> <code>${escapeHtml(s.name)}</code> — ${escapeHtml(s.description)}</label>`,
    )
    .join('\n');
  const lifetimes = KEY_LIFETIMES.map(
    (d) =>
      `<option value="${d}"${d === options.defaultLifetimeDays ? ' selected' : ''}>${d === 1826 ? '5 years' : `${d} days`}</option>`,
  ).join('');
  const panels = options.panels
    .map(
      (p) =>
        `<section class="card" id="${escapeHtml(p.id)}"><h2>${escapeHtml(p.title)}</h2>${p.html}</section>`,
    )
    .join('\n');
  return `<section class="card" id="api-keys">
<h2>API keys</h2>
${errorBox(options.error)}${options.notice ? `<div class="notice">${escapeHtml(options.notice)}</div>` : ''}${newKey}
<p class="muted">Send a key as <code>Authorization: Bearer &lt;key&gt;</code>. Your keys and sessions share your quota.</p>
<table><thead><tr><th>Name</th><th>Key</th><th>Kind</th><th>Expires</th><th>Scopes</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>
<section class="card" id="create-key">
<h2>Create a key</h2>
<form method="post" action="/account/keys">
${hiddenCsrf(options.csrfToken)}
<label for="key-name">Name</label>
<input type="text" id="key-name" name="name" required maxlength="100" placeholder="e.g. my timetable script">
<label>Scopes</label>
<div class="scopes">${scopeBoxes}</div>
<label for="key-lifetime">Expires after</label>
<select id="key-lifetime" name="expiresInDays">${lifetimes}</select>
<button class="primary" type="submit">Create key</button>
</form>
</section>
${panels}`;
}
