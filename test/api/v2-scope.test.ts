import { describe, expect, it } from 'vitest';
import { errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { bearer, makeKey, makeUser } from './helpers/accounts.js';
import { makeApp, testConfig } from './helpers/api-harness.js';

/**
 * The edge lives in the app's /api/v2 scope (v2-edge.ts): an unknown path under the prefix is
 * the caller's like any operation, nothing outside the scope runs its hooks, and what it keeps
 * belongs to one app.
 */
describe('the /api/v2 scope', () => {
  const t = useTestDatabase();

  it('charges an unknown path to the caller its key names, and refuses a key that does not hold', async () => {
    const app = await makeApp(t.current.db);
    try {
      const user = await makeUser(t.current.db);
      const key = await makeKey(t.current.db, user);
      const known = await app.inject({ url: '/api/v2/no/such/operation', headers: bearer(key) });
      expect(known.statusCode).toBe(404);
      const body = errorEnvelopeSchema.parse(known.json());
      // The user's bucket (QUOTA_USER_CAPACITY; failures are free here), not the anonymous one (25).
      expect(body.meta.remain).toBe(testConfig().QUOTA_USER_CAPACITY);
      expect(known.headers['x-api-remain']).toBe(String(body.meta.remain));

      const refused = await app.inject({
        url: '/api/v2/no/such/operation',
        headers: bearer('nope'),
      });
      expect(refused.statusCode).toBe(401);
      expect(errorEnvelopeSchema.parse(refused.json()).error.code).toBe('invalid_api_key');
      expect(refused.headers['www-authenticate']).toContain('invalid_token');
    } finally {
      await app.close();
    }
  });

  it('runs none of its hooks outside /api/v2, and keeps its route table per app', async () => {
    const first = await makeApp(t.current.db);
    const second = await makeApp(t.current.db);
    try {
      const health = await first.inject({ url: '/healthz', headers: bearer('nope') });
      expect(health.statusCode).toBe(200);
      expect(health.headers['x-api-remain']).toBeUndefined();
      const elsewhere = await first.inject({ url: '/no/such/page' });
      expect(elsewhere.statusCode).toBe(404);
      expect(elsewhere.json()).toEqual({
        error: { code: 'not_found', message: 'no operation GET /no/such/page' },
      });
      expect(elsewhere.headers['x-api-remain']).toBeUndefined();

      expect(first.emutrackEdge).not.toBe(second.emutrackEdge);
      expect(first.emutrackV2Routes).not.toBe(second.emutrackV2Routes);
      expect(first.emutrackV2Routes.length).toBe(second.emutrackV2Routes.length);
      expect(first.emutrackV2Routes.every((r) => r.url.startsWith('/api/v2/'))).toBe(true);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
