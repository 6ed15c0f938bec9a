import Fastify from 'fastify';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob } from '../../jobs/index.js';
import { registerOperations } from '../../src/http/ops/register-operations.js';
import type { ApiApp } from '../../src/http/app-context.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useQueueEnv } from '../worker/support/queue-env.js';

const env = useQueueEnv();
const TOKEN = 'metrics-token-0123456789abcdef';

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string> }[];
}

/** A small app with the operations plugin and three routes: 200, 401 and 429. */
async function opsApp(token: string | null = TOKEN) {
  const config = { ...env.config(), METRICS_TOKEN: token ?? undefined };
  const logger = pino({ level: 'silent' });
  const app = Fastify({ loggerInstance: logger }) as unknown as ApiApp;
  const queues = env.queues();
  await registerOperations(app, { db: env.database.db, config, logger, queues });
  app.get('/ok', { schema: { operationId: 'GetOk' } }, async () => ({ ok: true }));
  app.get('/me', { schema: { operationId: 'GetMe' } }, async (_req, reply) =>
    reply.code(401).send(),
  );
  app.get('/busy', { schema: { operationId: 'GetBusy' } }, async (_req, reply) =>
    reply.code(429).send(),
  );
  env.defer(() => app.close());
  return { app, queues };
}

async function seedStoredFacts() {
  const { db } = env.database;
  const day = serviceDayFromYmd('20261010');
  await db.query(
    `INSERT INTO job_runs (job, job_id, service_day, via, attempt, status, started_at, finished_at, error)
     VALUES ('build-daily-records', 'build-1', $1, 'bullmq', 1, 'failed', now() - interval '40 s', now() - interval '38 s', 'boom'),
            ('build-daily-records', 'build-1', $1, 'bullmq', 2, 'completed', now() - interval '30 s', now() - interval '20 s', NULL),
            ('render-daily-export', 'export-1', $1, 'bullmq', 1, 'completed', now() - interval '10 s', now() - interval '9 s', NULL)`,
    [day],
  );
  const run = await db.query<{ id: number }>(
    `INSERT INTO circulation_runs (window_start_day, window_end_day, window_start_at, window_end_at,
        threshold, min_support, links_seen, links_kept, routes, loop_breaks, finished_at)
     VALUES ($1 - 13, $1, 0, 1, 0.8, 3, 120, 100, 12, 2, now()) RETURNING id`,
    [day],
  );
  await db.query('INSERT INTO circulation_current (run_id) VALUES ($1)', [run.rows[0]!.id]);
  return day;
}

describe('GET /metrics', () => {
  it('shows every family in the Prometheus text format after a small load', async () => {
    const day = await seedStoredFacts();
    const { app, queues } = await opsApp();
    await queues.enqueue(buildDailyRecordsJob, { serviceDay: day + 1 });
    for (let i = 0; i < 5; i++) expect((await app.inject('/ok')).statusCode).toBe(200);
    expect((await app.inject('/me')).statusCode).toBe(401);
    expect((await app.inject('/busy')).statusCode).toBe(429);
    expect((await app.inject('/nowhere')).statusCode).toBe(404);

    const res = await app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0.0.4/);
    const families = new Map(
      (parsePrometheusTextFormat(res.body) as Family[]).map((f) => [f.name, f]),
    );
    const family = (name: string) => {
      const f = families.get(name);
      expect(f, `family ${name}`).toBeDefined();
      expect(f!.metrics.length, `samples of ${name}`).toBeGreaterThan(0);
      return f!;
    };
    const sample = (name: string, labels: Record<string, string>) =>
      family(name).metrics.find((m) =>
        Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
      );

    /**
     * One label set of a histogram, parsed on its own: the parser folds a histogram's samples
     * into one whatever their labels, so each series is handed to it alone.
     */
    const histogram = (name: string, labels: Record<string, string>) => {
      const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
      const lines = res.body
        .split('\n')
        .filter(
          (l) =>
            l === `# TYPE ${name} histogram` ||
            (l.startsWith(`${name}_`) && wanted.every((w) => l.includes(w))),
        );
      // ...and with its labels other than le dropped: the parser reads count and sum only
      // from unlabelled samples.
      const series = lines.map((l) =>
        l.replace(/\{[^}]*\}/, (set) => {
          const le = /le="[^"]*"/.exec(set);
          return le ? `{${le[0]}}` : '';
        }),
      );
      const [parsed] = parsePrometheusTextFormat(`${series.join('\n')}\n`) as Family[];
      return parsed?.metrics[0] as {
        count?: string;
        sum?: string;
        buckets?: Record<string, string>;
      };
    };

    expect(family('emutrack_http_request_duration_seconds').type).toBe('HISTOGRAM');
    const ok = { operation: 'GetOk', method: 'GET', status: '200' };
    expect(histogram('emutrack_http_request_duration_seconds', ok).count).toBe('5');
    expect(histogram('emutrack_http_request_duration_seconds', ok).buckets?.['+Inf']).toBe('5');
    const unmatched = { operation: 'unmatched', status: '404' };
    expect(histogram('emutrack_http_request_duration_seconds', unmatched).count).toBe('1');
    expect(sample('emutrack_quota_refusals_total', { operation: 'GetBusy' })?.value).toBe('1');
    expect(
      sample('emutrack_credential_failures_total', { operation: 'GetMe', status: '401' })?.value,
    ).toBe('1');
    expect(
      sample('emutrack_queue_jobs', { queue: 'build-daily-records', state: 'waiting' })?.value,
    ).toBe('1');
    expect(
      sample('emutrack_queue_jobs', { queue: 'render-daily-export', state: 'active' })?.value,
    ).toBe('0');

    family('emutrack_job_duration_seconds');
    const builds = histogram('emutrack_job_duration_seconds', {
      job: 'build-daily-records',
      status: 'completed',
    });
    expect([builds.count, builds.sum]).toEqual(['1', '10']);
    expect([builds.buckets?.['5'], builds.buckets?.['15']]).toEqual(['0', '1']);
    expect(sample('emutrack_job_failures_total', { job: 'build-daily-records' })?.value).toBe('1');
    expect(
      sample('emutrack_day_last_success_timestamp_seconds', {
        job: 'render-daily-export',
        service_day: '20261010',
      }),
    ).toBeDefined();
    expect(
      sample('emutrack_last_successful_service_day', { job: 'build-daily-records' })?.value,
    ).toBe(String(day));
    expect(family('emutrack_circulation_links_kept').metrics[0]!.value).toBe('100');
    expect(family('emutrack_circulation_links_seen').metrics[0]!.value).toBe('120');
    expect(family('emutrack_circulation_routes').metrics[0]!.value).toBe('12');
    expect(family('emutrack_circulation_loop_breaks').metrics[0]!.value).toBe('2');
    family('emutrack_circulation_finished_timestamp_seconds');
    family('emutrack_process_resident_memory_bytes');
  });

  it('answers only the metrics token (401 otherwise), and is off (404) without METRICS_TOKEN', async () => {
    const { app } = await opsApp();
    expect((await app.inject('/metrics')).statusCode).toBe(401);
    const wrong = await app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}x` },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(wrong.body).not.toContain(TOKEN);
    const basic = await app.inject({
      url: '/metrics',
      headers: { authorization: `Basic ${TOKEN}` },
    });
    expect(basic.statusCode).toBe(401);

    const off = await opsApp(null);
    expect(
      (await off.app.inject({ url: '/metrics', headers: { authorization: 'Bearer ' } })).statusCode,
    ).toBe(404);
  });
});
