import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { packageRoot } from '../../src/shared/app/package-root.js';
import { demoCirculations } from '../../src/cli/demo-circulations.js';
import { demoNextSteps, makeDemoKey } from '../../src/cli/demo-next-steps.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { writeDemoWeek } from '../../src/cli/demo-week.js';
import { runDayInProcess } from '../../src/worker/in-process-runner.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { FAST_SCRYPT_ENV } from '../api/helpers/accounts.js';
import { makeApp, testConfig } from '../api/helpers/api-harness.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { pino } from 'pino';

/**
 * The demo's closing curl lines, run against the API on the demo's data: with the key the demo
 * makes, none is refused; anonymously the anonymous quota (25) runs out before the last one.
 */
const database = useTestDatabase();
const FIXTURES = path.join(packageRoot(), 'fixtures');
let dir: string;
let app: ApiApp;
let lines: string[];
let secret: string;
const today = serviceDayFromYmd('20261123');

beforeAll(async () => {
  const { db } = database.current;
  const config = testConfig({ ...FAST_SCRYPT_ENV, REDIS_URL: '' });
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-demo-steps-'));
  await importFleet(db, path.join(FIXTURES, 'fleet.csv'));
  // The fixture week as the demo moves it: ending today.
  const week = await writeDemoWeek(FIXTURES, path.join(dir, 'week'), today);
  await ingestObservations(db, week.observations);
  const ctx = { config, db, logger: pino({ level: 'silent' }) };
  await runDayInProcess(ctx, today);
  const circ = await demoCirculations(
    db,
    path.join(FIXTURES, 'circulations'),
    dir,
    () => {},
    today,
  );
  app = await makeApp(db, { config });
  const key = await makeDemoKey(db, config);
  secret = key.secret;
  lines = demoNextSteps({
    port: 3000,
    anonymousCapacity: config.QUOTA_ANONYMOUS_CAPACITY,
    exportDir: dir,
    rejected: 7,
    key,
    today: ymdOfServiceDay(circ.today),
    yesterday: ymdOfServiceDay(circ.today - 1),
    picture: circ.picture,
  });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The paths (and queries) of the curl lines, in order. */
function curlPaths(): string[] {
  return lines
    .filter((l) => l.includes('curl '))
    .map((l) => new URL(/'(http:\/\/localhost:3000[^']+)'/.exec(l)![1]!))
    .map((u) => u.pathname + u.search);
}

describe("the demo's next steps", () => {
  it('start with the web app, and each page they name is there', async () => {
    expect(lines[1]).toBe('The web app (npm start), in a browser: http://localhost:3000/');
    const pages = lines
      .slice(1, lines.indexOf('Where to look:'))
      .flatMap((l) => /(http:\/\/localhost:3000\/\S*)/.exec(l)?.[1] ?? [])
      .map((u) => new URL(u).pathname);
    expect(pages[0]).toBe('/');
    expect(pages.length).toBeGreaterThanOrEqual(5);
    for (const url of pages) {
      const res = await app.inject({ url, headers: { accept: 'text/html' } });
      expect([url, res.statusCode, res.headers['content-type']]).toEqual([
        url,
        200,
        'text/html; charset=utf-8',
      ]);
    }
  });

  it('give the key to use, and every curl line uses it', () => {
    expect(lines).toContain(`  export EMUTRACK_KEY=${secret}`);
    const curls = lines.filter((l) => l.includes('curl '));
    expect(curls.length).toBe(6);
    for (const l of curls) expect(l).toContain('-H "Authorization: Bearer $EMUTRACK_KEY"');
    expect(lines.join('\n')).toMatch(/npx emutrack key revoke \S+/);
    expect(lines.join('\n')).toContain('npx emutrack rejects');
  });

  it('run within the quota with the key, twice over (anonymously the quota runs out)', async () => {
    const statuses = async (headers: Record<string, string>) => {
      const out: number[] = [];
      for (const url of curlPaths()) out.push((await app.inject({ url, headers })).statusCode);
      return out;
    };
    // Anonymously (the picture not drawn yet, as after the demo) the lines cost the whole
    // anonymous quota: the next call is a 429.
    const caller = { 'x-forwarded-for': '198.51.100.7' };
    expect(await statuses(caller)).not.toContain(429);
    const next = await app.inject({ url: curlPaths()[0]!, headers: caller });
    expect(next.statusCode).toBe(429);
    // With the key, tried once and again (as a user does), nothing is refused.
    const keyed = [
      ...(await statuses({ authorization: `Bearer ${secret}` })),
      ...(await statuses({ authorization: `Bearer ${secret}` })),
    ];
    expect(keyed).toEqual(Array(12).fill(200));
  });
});
