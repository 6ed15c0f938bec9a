import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { makeUser } from '../api/helpers/accounts.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { formBrowser } from '../helpers/form-browser.js';
import { useTestDatabase } from '../helpers/test-db.js';

/** Feedback: a thread tied to a page between a reader and the operators, and no one else. */
const t = useTestDatabase();
const NOW = Date.parse('2026-08-05T12:00:00+08:00');
const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';
let app: ApiApp;
const people: Record<string, { username: string; password: string }> = {};

async function signedIn(name: string) {
  const b = formBrowser(app);
  await b.signIn(people[name]!.username, people[name]!.password);
  // The session was issued at the real time; make it valid at the injected one.
  await t.current.db.query(
    `UPDATE credentials SET active_from = to_timestamp($1), expires_at = to_timestamp($2)
      WHERE issuer = 'webapp'`,
    [NOW / 1000 - 3600, NOW / 1000 + 86400],
  );
  return b;
}

beforeAll(async () => {
  const { db } = t.current;
  people.alice = await makeUser(db, 'alice');
  people.bob = await makeUser(db, 'bob');
  people.mod = await makeUser(db, 'mod', 'moderator');
  app = await makeApp(db, { clock: () => NOW });
});
afterAll(async () => {
  await app?.close();
});

describe('feedback', () => {
  it('a thread from a page, answered by the operators, private to its author, escaped', async () => {
    const alice = await signedIn('alice');
    const form = await alice.get('/feedback?page=/train/G1');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('value="/train/G1"');
    expect(form.body).toContain('Coupled unit not detected');
    const csrf = alice.csrfOf(form.body);
    const bad = await alice.post('/feedback', {
      _csrf: csrf,
      topic: XSS,
      page: '/train/G1',
      message: 'x',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('topic: expected one of');
    const offsite = await alice.post('/feedback', {
      _csrf: csrf,
      topic: 'wrong-assignment',
      page: 'https://evil.example/',
      message: 'x',
    });
    expect(offsite.statusCode).toBe(400);
    expect(offsite.body).toContain('page: expected a path of this site');
    const noToken = await alice.post('/feedback', {
      topic: 'wrong-assignment',
      page: '/train/G1',
      message: 'x',
    });
    expect(noToken.statusCode).toBe(403);

    const sent = await alice.post('/feedback', {
      _csrf: csrf,
      topic: 'wrong-assignment',
      page: '/train/G1',
      message: XSS,
    });
    expect(sent.statusCode).toBe(303);
    const here = sent.headers.location as string;
    expect(here).toMatch(/^\/feedback\/\d+$/);
    const thread = await alice.get(here);
    expect(thread.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(thread.body).not.toContain('<script>alert');
    expect(thread.body).not.toContain('<img src=x');

    const bob = await signedIn('bob');
    expect((await bob.get(here)).statusCode).toBe(404);
    expect((await bob.get('/admin/feedback')).statusCode).toBe(403);

    const mod = await signedIn('mod');
    const list = await mod.get('/admin/feedback');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('/train/G1');
    const id = here.split('/').pop()!;
    const opThread = await mod.get(`/admin/feedback/${id}`);
    const answered = await mod.post(`/admin/feedback/${id}`, {
      _csrf: mod.csrfOf(opThread.body),
      message: 'Fixed: it was CR400AF-2002.',
    });
    expect(answered.statusCode).toBe(303);
    const seen = await alice.get(here);
    expect(seen.body).toContain('Fixed: it was CR400AF-2002.');
    expect(seen.body).toContain('operators');
  });
});
