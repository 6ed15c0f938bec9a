import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import type { ApiApp } from '../../src/http/app-context.js';
import { registerOperations } from '../../src/http/ops/register-operations.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { useTestDatabase } from '../helpers/test-db.js';

const database = useTestDatabase();
const TOKEN = 'metrics-token-0123456789abcdef';
const FIXTURE = path.resolve(
  import.meta.dirname,
  '../../fixtures/observations/2026-08-10_13.ndjson',
);
let dir: string | undefined;

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string }[];
}

describe('ingest counters in /metrics', () => {
  it('count accepted, duplicate and rejected lines per kind, from every batch', async () => {
    const { db } = database.current;
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-ingest-metrics-'));
    // A real day's file with two bad lines a feed sends: a cut-off line and one with no EMU.
    const file = path.join(dir, 'day.ndjson');
    const bad = [
      '{"observedAt":1786317000,"trainCode":"G1"',
      '{"observedAt":1786317000,"trainCode":"G3","source":"s"}',
    ];
    await writeFile(file, (await readFile(FIXTURE, 'utf8')) + bad.join('\n') + '\n');
    const first = await ingestObservations(db, file);
    const again = await ingestObservations(db, file);
    expect(first.rejected).toBeGreaterThanOrEqual(bad.length); // the fixture has its own too
    expect(again.accepted).toBe(0);

    const config = { ...loadConfig({}), METRICS_TOKEN: TOKEN, REDIS_URL: undefined };
    const logger = pino({ level: 'silent' });
    const app = Fastify({ loggerInstance: logger }) as unknown as ApiApp;
    await registerOperations(app, { db, config, logger });
    try {
      const res = await app.inject({
        url: '/metrics',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.statusCode).toBe(200);
      const families = parsePrometheusTextFormat(res.body) as Family[];
      const lines = families.find((f) => f.name === 'emutrack_ingest_lines_total')!;
      expect(lines.type).toBe('COUNTER');
      const value = (outcome: string) =>
        Number(
          lines.metrics.find(
            (m) => m.labels?.kind === 'observations' && m.labels.outcome === outcome,
          )?.value,
        );
      expect(value('accepted')).toBe(first.accepted + again.accepted);
      expect(value('duplicate')).toBe(first.duplicate + again.duplicate);
      expect(value('rejected')).toBe(first.rejected + again.rejected);
      const batches = families.find((f) => f.name === 'emutrack_ingest_batches_total')!;
      expect(batches.metrics).toEqual([{ labels: { kind: 'observations' }, value: '2' }]);
    } finally {
      await app.close();
    }
  });
});
