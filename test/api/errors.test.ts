import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import type { Db } from '../../src/shared/db/db.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { capturingLogger, makeApp } from './helpers/api-harness.js';

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The test database, except that queries matching `pattern` fail with `error`. */
function failingDb(db: Db, pattern: RegExp, error: () => Error): Db {
  return {
    ...db,
    query: async (sql, params) => {
      if (pattern.test(sql)) throw error();
      return db.query(sql, params);
    },
  } as Db;
}

describe('errors in the envelope', () => {
  const t = useTestDatabase();
  beforeAll(async () => {
    await seedDay(t.current.db, '20260810', busyDay(2000));
  });

  it('answers unknown /api/v2 routes and methods with 404 not_found in the envelope, with the quota headers', async () => {
    const app = await makeApp(t.current.db);
    try {
      for (const [method, url] of [
        ['GET', '/api/v2/records'],
        ['GET', '/api/v2/records/daily/extra?x=1'],
        ['POST', '/api/v2/records/daily?date=20260810'],
        ['DELETE', '/api/v2/exports/daily/20260810'],
        ['GET', '/api/v2/'],
        ['GET', '/api/v2'],
      ] as const) {
        const res = await app.inject({ method, url });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        const body = errorEnvelopeSchema.parse(res.json());
        expect(body.error.code).toBe('not_found');
        expect(body.meta).toEqual({ remain: 25, cost: 0 });
        expect(res.headers['x-api-remain']).toBe('25');
        expect(res.headers['x-api-cost']).toBe('0');
      }
    } finally {
      await app.close();
    }
  });

  it('reports an unexpected failure as 500 internal without SQL or stack, logs it, and charges nothing', async () => {
    const { logger, lines } = capturingLogger();
    const secret = 'syntax error at or near "FROM daily_records WHERE service_day"';
    const db = failingDb(t.current.db, /daily_records/, () => new Error(secret));
    const app = await makeApp(db, { logger });
    try {
      const res = await app.inject('/api/v2/records/daily?date=20260810&limit=200');
      expect(res.statusCode).toBe(500);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('internal');
      expect(body.error.message).toBe(`internal error (request ${res.headers['x-request-id']})`);
      expect(res.body).not.toMatch(/daily_records|syntax|at \w+ \(|\.ts:/);
      expect(body.meta).toEqual({ remain: 25, cost: 0 }); // the reservation of 10 was given back
      expect(res.headers['x-api-cost']).toBe('0');
      const logged = lines().find((l) => l.msg === 'request failed');
      expect(logged).toBeDefined();
      expect((logged!.err as { message: string }).message).toBe(secret);
      expect(logged!.reqId).toBe(res.headers['x-request-id']);
    } finally {
      await app.close();
    }
  });

  it('answers 503 unavailable while Postgres cannot be reached, and /readyz says so', async () => {
    const unreachable = createPostgresDb({
      connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/nowhere`,
      max: 2,
    });
    const app = await makeApp(unreachable);
    try {
      for (const url of [
        '/api/v2/records/daily?date=20260810',
        '/api/v2/exports/daily',
        '/api/v2/exports/daily/20260810',
      ]) {
        const res = await app.inject(url);
        expect(res.statusCode, url).toBe(503);
        const body = errorEnvelopeSchema.parse(res.json());
        expect(body.error.code).toBe('unavailable');
        expect(body.meta.cost).toBe(0);
        expect(res.headers['x-api-remain']).toBe('25');
      }
      const ready = await app.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'not ready', postgres: 'unreachable' });
      expect((await app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await app.close();
      await unreachable.close();
    }
  });

  it('tells a lost server connection (SQLSTATE 57P01) as unavailable', async () => {
    const db = failingDb(t.current.db, /daily_records/, () =>
      Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      }),
    );
    const app = await makeApp(db);
    try {
      const res = await app.inject('/api/v2/records/daily?date=20260810');
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('unavailable');
    } finally {
      await app.close();
    }
  });

  it('answers malformed URLs and over-long path parameters in the envelope too', async () => {
    const app = await makeApp(t.current.db);
    try {
      for (const [url, message] of [
        ['/api/v2/exports/daily/%zz', /URL is malformed/],
        [`/api/v2/exports/daily/${'9'.repeat(101)}`, /longer than 100 characters/],
      ] as const) {
        const res = await app.inject(url);
        expect(res.statusCode, url).toBe(400);
        const body = errorEnvelopeSchema.parse(res.json());
        expect(body.error.code).toBe('invalid_param');
        expect(body.error.message).toMatch(message);
        expect(res.headers['x-api-remain']).toBe('25');
        expect(res.headers['x-api-cost']).toBe('0');
        expect(res.headers['x-request-id']).toBeTruthy();
      }
    } finally {
      await app.close();
    }
  });

  it('carries a well-formed incoming x-request-id through, and makes one up otherwise', async () => {
    const app = await makeApp(t.current.db);
    try {
      const given = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
      expect(given.headers['x-request-id']).toBe('abc-123');
      const bad = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'a b\u0001' } });
      expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await app.close();
    }
  });
});
