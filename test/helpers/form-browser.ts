import type { ApiApp } from '../../src/http/api/app.js';

/**
 * A browser over inject(): keeps cookies, posts forms as a page would, and reads the CSRF token
 * of a page's forms. It asks for English pages (Chinese is the default), which the tests read.
 */
export function formBrowser(app: ApiApp) {
  const jar: Record<string, string> = {};
  const keep = <R extends { cookies: { name: string; value: string }[] }>(res: R): R => {
    for (const c of res.cookies) {
      if (c.value === '') delete jar[c.name];
      else jar[c.name] = c.value;
    }
    return res;
  };
  return {
    jar,
    async get(url: string) {
      return keep(
        await app.inject({ url, cookies: { ...jar }, headers: { 'accept-language': 'en' } }),
      );
    },
    async post(url: string, form: Record<string, string | string[]>) {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
      return keep(
        await app.inject({
          method: 'POST',
          url,
          cookies: { ...jar },
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
          payload: body.toString(),
        }),
      );
    },
    csrfOf(html: string): string {
      return /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    },
    /** Signs in through /login. */
    async signIn(username: string, password: string): Promise<void> {
      const login = await this.get('/login');
      const res = await this.post('/login', {
        _csrf: this.csrfOf(login.body),
        username,
        password,
      });
      if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode}`);
    },
  };
}
