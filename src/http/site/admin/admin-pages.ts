import type { FastifyReply, FastifyRequest } from 'fastify';
import { issueCredential } from '../../../domain/accounts/credentials.js';
import { defaultKeyScopes } from '../../../domain/accounts/scopes.js';
import { checkSignIn } from '../../../domain/accounts/sign-in.js';
import { accountSettingsFromConfig } from '../../../domain/accounts/account-settings.js';
import { CSRF_FIELD, fromOwnOrigin, originOf } from '../../session/form-csrf.js';
import {
  AppPasswordError,
  chunkAppPassword,
  createAppPassword,
} from '../../../domain/content/app-passwords.js';
import { SESSION_COOKIE, type SiteSession } from '../auth/site-authenticator.js';
import type { SiteKit } from '../site-kit.js';
import { escapeHtml } from '../../html/escape.js';
import { THEME_FONT_STACK, THEME_WEB_FONT } from '../theme/theme-fonts.js';

/** How long a session made by the site's sign-in lasts (as the product's web sessions). */
const SESSION_SECONDS = 30 * 86_400;
const AUTHORIZE_ACTION = 'authorize_application_password';

/** wp-login.php's and authorize-application.php's look: a card, the site's CJK font. */
const PAGE_STYLE = `*{box-sizing:border-box}
body{font:16px/1.6 ${THEME_FONT_STACK};margin:0;background:#f0f0f1;color:#1d2327}
main{max-width:26rem;margin:3rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #c3c4c7;border-radius:6px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.04);overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:0 0 1rem}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password]{width:100%;padding:.5rem .6rem;font:inherit;border:1px solid #8c8f94;border-radius:4px}
button{margin-top:1.2rem;padding:.5rem 1.2rem;font:inherit;border:1px solid #2271b1;background:#2271b1;color:#fff;border-radius:4px;cursor:pointer}
.error{color:#b32d2e}
code{background:#f0f0f1;padding:.2rem .4rem;font-size:1.05em;overflow-wrap:anywhere}
.back{margin:1rem 0 0;font-size:.9rem}.back a{color:#2271b1}
.destination{border:2px solid #b32d2e;padding:.2rem 1rem;margin:1rem 0}
.destination-host{font-size:1.6rem;margin:.2rem 0}
.muted{color:#50575e;font-size:.85rem}`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style><link rel="stylesheet" href="${THEME_WEB_FONT.stylesheetUrl}"></head><body><main><div class="card"><h1>${escapeHtml(title)}</h1>${body}</div><p class="back"><a href="/">← 返回文档首页</a> · <a href="/manual/">使用手册</a></p></main></body></html>`;
}

function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body as unknown;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    return Object.fromEntries(
      Object.entries(body as Record<string, unknown>).map(([k, v]) => [
        k,
        typeof v === 'string' ? v : '',
      ]),
    );
  }
  return {};
}

/** A same-site path to go to after sign-in (never another host). */
function safeRedirect(value: string | undefined, site: string): string {
  if (!value) return '/';
  try {
    const url = new URL(value, site);
    if (url.origin !== new URL(site).origin) return '/';
    return `${url.pathname}${url.search}`;
  } catch {
    return '/';
  }
}

/** success_url / reject_url: https, or http on a loopback host (a client on this machine). */
function validCallback(value: string): boolean {
  try {
    const url = new URL(value);
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  } catch {
    return false;
  }
}

/**
 * Where the new password will go, as WordPress's authorize-application.php says it ("You will be
 * sent to ..."), with the destination's host first and large: a stranger's link can name any
 * https address as success_url, and the host is what the reader must check before approving.
 */
function destinationNotice(successUrl: string, username: string, site: string): string {
  if (!successUrl) return '<p class="destination">新密码将只显示在本页，不会发送到任何地址。</p>';
  const url = new URL(successUrl);
  url.searchParams.set('site_url', site);
  url.searchParams.set('user_login', username);
  url.searchParams.set('password', '[------]');
  return `<div class="destination"><p>同意后，新密码将发送到：</p><p class="destination-host"><strong>${escapeHtml(url.host)}</strong></p><p class="muted">完整地址：<code>${escapeHtml(url.toString())}</code></p><p>如果你不认识这个地址，请点“拒绝”。</p></div>`;
}

/**
 * The site's sign-in (/wp-login.php: the product's accounts, a web session in the `token`
 * cookie), the authorize-application page of application passwords
 * (/wp-admin/authorize-application.php: sign in, approve, go back to success_url with the new
 * password) and the REST nonce for signed-in scripts (/wp-admin/admin-ajax.php?action=rest-nonce).
 */
export function registerAdminPages(kit: SiteKit): void {
  const { http, db, auth, urls } = kit;
  const session = (request: FastifyRequest): Promise<SiteSession | undefined> =>
    auth.session(request.cookies?.[SESSION_COOKIE]);
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .header('content-type', 'text/html; charset=UTF-8')
      .header('cache-control', 'no-store')
      .send(body);

  // Login CSRF: the form carries a token bound to this browser's pre-session `csrf` cookie
  // (src/http/session/form-csrf.ts), and the post must come from the site's own origin.
  const siteOrigin = originOf(urls.site);
  const loginForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    redirectTo: string,
    error?: string,
  ) =>
    page(
      '登录',
      `${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}<form method="post" action="/wp-login.php">
<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(http.formCsrf.token(request, reply))}">
<label for="log">用户名</label><input type="text" id="log" name="log" autocomplete="username" required>
<label for="pwd">密码</label><input type="password" id="pwd" name="pwd" autocomplete="current-password" required>
<input type="hidden" name="redirect_to" value="${escapeHtml(redirectTo)}"><button type="submit">登录</button></form>`,
    );

  http.get('/wp-login.php', async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    return html(reply, 200, loginForm(request, reply, safeRedirect(q.redirect_to, urls.site)));
  });

  http.post('/wp-login.php', async (request, reply) => {
    const form = formOf(request);
    const username = form.log ?? '';
    const redirectTo = safeRedirect(form.redirect_to, urls.site);
    if (
      !fromOwnOrigin(request, siteOrigin ? [siteOrigin] : []) ||
      !http.formCsrf.valid(request, form)
    ) {
      return html(
        reply,
        403,
        loginForm(request, reply, redirectTo, '表单已过期或来自其他网站，请重新登录。'),
      );
    }
    // The product's sign-in limits, shared with the API's sign-in (one count per account and
    // address, counted before the password is tried: see accounts/sign-in-throttle.ts).
    const checked = await checkSignIn(
      db,
      { username, password: form.pwd ?? '', address: request.ip },
      accountSettingsFromConfig(kit.config),
    );
    if (!checked.ok && checked.reason === 'throttled') {
      reply.header('retry-after', String(checked.retryAfterSeconds));
      return html(
        reply,
        429,
        loginForm(
          request,
          reply,
          redirectTo,
          `尝试次数过多，请 ${checked.retryAfterSeconds} 秒后再试。`,
        ),
      );
    }
    if (!checked.ok)
      return html(reply, 401, loginForm(request, reply, redirectTo, '用户名或密码不正确。'));
    const user = checked.user;
    if (user.bannedAt)
      return html(reply, 403, loginForm(request, reply, redirectTo, '此账号已被封禁。'));
    const { secret, credential } = await issueCredential(db, {
      userId: user.userId,
      issuer: 'webapp',
      name: 'site sign-in',
      scopes: [...defaultKeyScopes(user.role)],
      dailyTokenLimit: kit.config.QUOTA_USER_CAPACITY,
      expiresAt: new Date(kit.clock() + SESSION_SECONDS * 1000),
    });
    reply.setCookie(SESSION_COOKIE, secret, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: urls.site.startsWith('https:'),
      expires: credential.expiresAt,
    });
    return reply.redirect(redirectTo, 303);
  });

  http.get('/wp-admin/admin-ajax.php', async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    const s = await session(request);
    if (q.action !== 'rest-nonce' || !s)
      return reply.code(400).header('content-type', 'text/html; charset=UTF-8').send('0');
    return reply
      .header('content-type', 'text/html; charset=UTF-8')
      .header('cache-control', 'no-store')
      .send(auth.nonces.create(s.user.id, s.sessionId));
  });

  const authorizeParams = (q: Record<string, string | undefined>) => ({
    appName: (q.app_name ?? '').trim(),
    appId: (q.app_id ?? '').trim(),
    successUrl: (q.success_url ?? '').trim(),
    rejectUrl: (q.reject_url ?? '').trim(),
  });

  const refuseAuthorize = (reply: FastifyReply, status: number, message: string) =>
    html(reply, status, page('授权应用', `<p class="error">${escapeHtml(message)}</p>`));

  const authorizeError = (p: ReturnType<typeof authorizeParams>): string | undefined => {
    if (p.successUrl && !validCallback(p.successUrl))
      return 'success_url 必须使用 https（本机地址可用 http）。';
    if (p.rejectUrl && !validCallback(p.rejectUrl))
      return 'reject_url 必须使用 https（本机地址可用 http）。';
    if (p.appId && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(p.appId))
      return 'app_id 必须是 UUID。';
    return undefined;
  };

  http.get('/wp-admin/authorize-application.php', async (request, reply) => {
    const p = authorizeParams(request.query as Record<string, string | undefined>);
    const s = await session(request);
    if (!s)
      return reply.redirect(`/wp-login.php?redirect_to=${encodeURIComponent(request.url)}`, 302);
    const error = authorizeError(p);
    if (error) return refuseAuthorize(reply, 400, error);
    const nonce = auth.nonces.create(s.user.id, s.sessionId, AUTHORIZE_ACTION);
    const hidden = Object.entries({
      app_id: p.appId,
      success_url: p.successUrl,
      reject_url: p.rejectUrl,
      _wpnonce: nonce,
    })
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
      .join('');
    return html(
      reply,
      200,
      page(
        '授权应用',
        `<p>应用 <strong>${escapeHtml(p.appName || '(未命名)')}</strong> 请求以 <strong>${escapeHtml(s.user.username)}</strong> 的身份访问本站。</p>
${destinationNotice(p.successUrl, s.user.username, urls.site)}
<form method="post" action="/wp-admin/authorize-application.php">${hidden}
<label for="app_name">应用名称</label><input type="text" id="app_name" name="app_name" value="${escapeHtml(p.appName)}" required>
<button type="submit" name="approve" value="1">同意</button> <button type="submit" name="reject" value="1">拒绝</button></form>`,
      ),
    );
  });

  http.post('/wp-admin/authorize-application.php', async (request, reply) => {
    const form = formOf(request);
    const p = authorizeParams(form);
    const s = await session(request);
    if (!s) return reply.redirect('/wp-login.php', 303);
    if (
      !form._wpnonce ||
      !auth.nonces.verify(form._wpnonce, s.user.id, s.sessionId, AUTHORIZE_ACTION)
    ) {
      return refuseAuthorize(reply, 403, '链接已过期，请重试。');
    }
    const error = authorizeError(p);
    if (error) return refuseAuthorize(reply, 400, error);
    if (form.reject) {
      if (p.rejectUrl) {
        const url = new URL(p.rejectUrl);
        url.searchParams.set('success', 'false');
        return reply.redirect(url.toString(), 303);
      }
      return html(reply, 200, page('授权应用', '<p>已拒绝。</p>'));
    }
    let created;
    try {
      created = await createAppPassword(db, {
        userId: s.user.id,
        name: p.appName,
        appId: p.appId || undefined,
      });
    } catch (err) {
      if (err instanceof AppPasswordError) return refuseAuthorize(reply, 400, err.message);
      throw err;
    }
    if (p.successUrl) {
      const url = new URL(p.successUrl);
      url.searchParams.set('site_url', urls.site);
      url.searchParams.set('user_login', s.user.username);
      url.searchParams.set('password', created.password);
      return reply.header('cache-control', 'no-store').redirect(url.toString(), 303);
    }
    return html(
      reply,
      200,
      page(
        '授权应用',
        `<p>应用 <strong>${escapeHtml(created.item.name)}</strong> 的新密码（只显示这一次）：</p><p><code>${escapeHtml(chunkAppPassword(created.password))}</code></p>`,
      ),
    );
  });
}
