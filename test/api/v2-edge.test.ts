import Fastify, { type FastifyError } from 'fastify';
import { serializerCompiler, validatorCompiler } from '@fastify/type-provider-zod';
import { describe, expect, it } from 'vitest';
import { CredentialCache } from '../../src/http/api/caller.js';
import { answerError, v2Edge } from '../../src/http/api/v2-edge.js';
import type { Db } from '../../src/shared/db/db.js';
import { MemoryQuotaStore } from '../../src/http/quota/memory-quota-store.js';
import { testConfig } from './helpers/api-harness.js';

const noDb = {} as Db;

async function edgeApp() {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const config = testConfig();
  await app.register(v2Edge, {
    config,
    store: new MemoryQuotaStore({ refill: { refillAmount: 0, refillIntervalMs: 1000 } }),
    clock: Date.now,
    credentials: new CredentialCache(noDb),
  });
  return app;
}

describe('the API edge', () => {
  it('refuses a route under /api/v2 that declares no scope and cost', async () => {
    const app = await edgeApp();
    expect(() => app.get('/api/v2/forgotten', async () => ({ ok: true }))).toThrow(
      /declares no config.v2/,
    );
    await app.close();
  });

  it('leaves routes outside /api/v2 and hidden ones alone', async () => {
    const app = await edgeApp();
    app.get('/elsewhere', async () => ({ ok: true }));
    app.get('/api/v2/hidden.json', { schema: { hide: true } }, async () => ({ ok: true }));
    await app.ready();
    const res = await app.inject({ url: '/elsewhere' });
    expect(res.json()).toEqual({ ok: true });
    expect(res.headers['x-api-remain']).toBeUndefined();
    await app.close();
  });

  it('refuses an inHandler route that answers without charging', async () => {
    const app = await edgeApp();
    app.get(
      '/api/v2/free-lunch',
      {
        config: {
          v2: { operationId: 'FreeLunch', tag: 'T', summary: 's', cost: { inHandler: true } },
        },
      },
      async () => ({ items: [] }),
    );
    const seen: string[] = [];
    app.setErrorHandler(async (error: FastifyError, request, reply) => {
      seen.push(error.message);
      return answerError(error, request, reply);
    });
    const res = await app.inject({ url: '/api/v2/free-lunch' });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('internal');
    expect(seen[0]).toContain('FreeLunch answered without charging');
    await app.close();
  });
});
