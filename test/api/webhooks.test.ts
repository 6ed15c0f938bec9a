import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { bearer, makeKey, makeUser } from './helpers/accounts.js';
import { makeApp } from './helpers/api-harness.js';

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  trains: string[];
  emuIds: number[];
  secret?: string;
  active: boolean;
}

describe('/api/v2/webhooks', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    app = await makeApp(t.current.db);
    key = await makeKey(t.current.db, await makeUser(t.current.db, 'hooker'));
    otherKey = await makeKey(t.current.db, await makeUser(t.current.db, 'other'));
    await t.current.db.query(
      `INSERT INTO emus (code, registered_by) VALUES ('CR400AF-2001', 'fleet')`,
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (body: Record<string, unknown>, secret = key) =>
    app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: bearer(secret), payload: body });

  it('refuses anonymous callers (401) and keys without api.webhooks.manage (403)', async () => {
    const anonymous = await app.inject({
      method: 'POST',
      url: '/api/v2/webhooks',
      payload: { url: 'https://hooks.example.com/x', events: ['day.rebuilt'] },
    });
    expect(anonymous.statusCode).toBe(401);
    expect((await app.inject('/api/v2/webhooks')).statusCode).toBe(401);
    const user = await makeUser(t.current.db, 'narrow');
    const narrow = await makeKey(t.current.db, user, { scopes: ['api.records.daily.read'] });
    const refused = await app.inject({ url: '/api/v2/webhooks', headers: bearer(narrow) });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'insufficient_scope',
      message: expect.stringContaining('api.webhooks.manage'),
    });
  });

  it('registers an endpoint, showing its secret once; lists, rotates and deletes it', async () => {
    const created = await post({
      url: 'https://hooks.example.com/emutrack',
      events: ['records.changed', 'day.rebuilt'],
      trains: ['g7001'],
      emus: ['CR400AF2001'],
    });
    expect(created.statusCode).toBe(200);
    const endpoint = created.json<{ data: Endpoint }>().data;
    expect(endpoint).toMatchObject({
      url: 'https://hooks.example.com/emutrack',
      events: ['day.rebuilt', 'records.changed'],
      trains: ['G7001'],
      active: true,
    });
    expect(endpoint.emuIds).toHaveLength(1);
    expect(endpoint.secret).toMatch(/^whsec_/);

    const list = await app.inject({ url: '/api/v2/webhooks', headers: bearer(key) });
    expect(list.json<{ data: { items: Endpoint[] } }>().data.items.map((e) => e.id)).toEqual([
      endpoint.id,
    ]);
    expect(list.body).not.toContain(endpoint.secret);
    // Another user neither sees nor touches it.
    const theirs = await app.inject({ url: '/api/v2/webhooks', headers: bearer(otherKey) });
    expect(theirs.json<{ data: { items: Endpoint[] } }>().data.items).toEqual([]);
    const steal = await app.inject({
      method: 'POST',
      url: `/api/v2/webhooks/${endpoint.id}/rotate-secret`,
      headers: bearer(otherKey),
    });
    expect(steal.statusCode).toBe(404);

    const rotated = await app.inject({
      method: 'POST',
      url: `/api/v2/webhooks/${endpoint.id}/rotate-secret`,
      headers: bearer(key),
    });
    expect(rotated.statusCode).toBe(200);
    const secret = rotated.json<{ data: Endpoint }>().data.secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);

    const deliveries = await app.inject({
      url: `/api/v2/webhooks/${endpoint.id}/deliveries`,
      headers: bearer(key),
    });
    expect(deliveries.json()).toMatchObject({ data: { items: [] } });

    const deleted = await app.inject({
      method: 'DELETE',
      url: `/api/v2/webhooks/${endpoint.id}`,
      headers: bearer(key),
    });
    expect(deleted.statusCode).toBe(200);
    const again = await app.inject({
      method: 'DELETE',
      url: `/api/v2/webhooks/${endpoint.id}`,
      headers: bearer(key),
    });
    expect(again.statusCode).toBe(404);
  });

  it.each([
    [{ url: 'https://10.0.0.1/x', events: ['day.rebuilt'] }, /url points at 10.0.0.1/],
    [{ url: 'http://127.0.0.1:9/x', events: ['day.rebuilt'] }, /loopback/],
    [{ url: 'http://hooks.example.com/x', events: ['day.rebuilt'] }, /url must be https/],
    [{ url: 'https://hooks.example.com/x', events: ['nope'] }, /events: "nope" is not an event/],
    [
      { url: 'https://hooks.example.com/x', events: ['records.changed'], trains: ['XYZ*'] },
      /trains\[0\]/,
    ],
    [
      { url: 'https://hooks.example.com/x', events: ['records.changed'], emus: ['BANANA'] },
      /emus\[0\]: no EMU is known as "BANANA"/,
    ],
    [{ url: 'https://hooks.example.com/x', events: ['day.rebuilt'], secret: 'x' }, /secret/],
  ])('refuses %j with a 400 naming the field', async (body, message) => {
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'invalid_param',
      message: expect.stringMatching(message),
    });
  });
});
