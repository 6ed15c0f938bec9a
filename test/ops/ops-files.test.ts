import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { pino } from 'pino';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/app-context.js';
import { registerOperations } from '../../src/http/ops/register-operations.js';
import { prerequisites } from '../helpers/prerequisites.js';
import { useQueueEnv } from '../worker/support/queue-env.js';

/**
 * ops/: the Prometheus alert rules (checked and unit-tested by Debian's promtool, a prerequisite
 * of the tests like chromium) and the Grafana dashboard, against the metrics that exist.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RULES = path.join(ROOT, 'ops/prometheus/alerts.yml');
const RULE_TESTS = path.join(ROOT, 'ops/prometheus/alerts.test.yml');
const DASHBOARD = path.join(ROOT, 'ops/grafana/emutrack.json');
const promtool = prerequisites().find((p) => p.name === 'promtool')!.path;
const env = useQueueEnv();
const TOKEN = 'metrics-token-0123456789abcdef';

interface Dashboard {
  uid: string;
  title: string;
  templating: { list: { name: string; type: string }[] };
  panels: { title: string; datasource: { uid: string }; targets: { expr: string }[] }[];
}
const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const rules = parse(readFileSync(RULES, 'utf8')) as {
  groups: { rules: { alert: string; expr: string }[] }[];
};

/** The families a scrape of /metrics declares (# TYPE lines), with their types. */
async function scrapedFamilies(): Promise<Map<string, string>> {
  const config = { ...env.config(), METRICS_TOKEN: TOKEN };
  const logger = pino({ level: 'silent' });
  const app = Fastify({ loggerInstance: logger }) as unknown as ApiApp;
  await registerOperations(app, { db: env.database.db, config, logger, queues: env.queues() });
  env.defer(() => app.close());
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  const families = new Map<string, string>();
  for (const m of res.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(m[1]!, m[2]!);
  return families;
}

/** Every emutrack_* name in some PromQL, as the family it belongs to. */
function familiesNamed(expressions: string[], known: Map<string, string>): string[] {
  const names = new Set<string>();
  for (const expr of expressions) {
    for (const [name] of expr.matchAll(/\bemutrack_[a-z0-9_]+/g)) {
      const base = name.replace(/_(bucket|count|sum)$/, '');
      names.add(base !== name && known.get(base) === 'histogram' ? base : name);
    }
  }
  return [...names].sort();
}

describe('ops/prometheus/alerts.yml', () => {
  it('passes promtool check rules', () => {
    const r = spawnSync(promtool, ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS: 10 rules found');
  });

  it('passes its unit tests (promtool test rules): each alert fires on what it is for', () => {
    const r = spawnSync(promtool, ['test', 'rules', RULE_TESTS], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});

describe('ops/grafana/emutrack.json', () => {
  it('is a dashboard on a chosen Prometheus data source, every panel with a query', () => {
    expect(dashboard).toMatchObject({ uid: 'emutrack', title: 'emutrack' });
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource' }),
    );
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    for (const p of dashboard.panels) {
      expect(p.datasource.uid, p.title).toBe('${datasource}');
      expect(p.targets.length, p.title).toBeGreaterThan(0);
    }
  });
});

describe('the metrics the alerts and the dashboard name', () => {
  it('all exist in /metrics', async () => {
    const known = await scrapedFamilies();
    const alertExprs = rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
    const panelExprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    const named = familiesNamed([...alertExprs, ...panelExprs], known);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((n) => !known.has(n))).toEqual([]);
    // The dashboard shows the ingest counters and every family the API's own code defines.
    for (const family of [
      'emutrack_ingest_lines_total',
      'emutrack_ingest_batches_total',
      'emutrack_http_request_duration_seconds',
      'emutrack_queue_jobs',
      'emutrack_job_duration_seconds',
    ])
      expect(familiesNamed(panelExprs, known)).toContain(family);
  });
});
