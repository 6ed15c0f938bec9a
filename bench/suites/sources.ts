import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import { addSource } from '../../src/domain/sources/source-store.js';
import type { Db } from '../../src/shared/db/db.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { benchApiConfig } from '../bench-api-config.js';
import { startCpuCount } from '../cpu-time.js';
import type { BenchDatabase, BenchRow, BenchSuite } from '../bench-types.js';
import { insertGeneratedUnits } from '../generated-rows.js';
import { median } from '../repeat.js';
import { startServer } from './api.js';
import { WORKER_NODE_FLAGS } from './pipeline.js';

const run = promisify(execFile);

const DATE = '20260810';
/** Records of the upstream's day; each unit runs three of them, six hours apart. */
const RECORDS = 12_000;
const UNITS = 4_000;
/** The page size the puller asks for (the v2 API's largest). */
const LIMIT = 200;
const RSS_LIMIT_MB = 250;
/** Records of the day before, which each side reads first (unmeasured): yesterday's pull. */
const WARM_RECORDS = RECORDS;

interface ChildOutcome {
  records: number;
  pages: number;
  ms: number;
  /** The child's own CPU time over the same stretch (user + system). */
  cpuMs: number;
  /** The pull's: its Postgres backends' CPU time. */
  postgresCpuMs?: number;
  /** The read's: the upstream's CPU time (its app and Postgres) while it read. */
  upstreamCpuMs?: number;
  peakRss: number;
}

/**
 * The upstream's day, in SQL: RECORDS trains (G1001..G7000, D1001..D7000), each with a
 * timetable (so that pages carry timetableMappings, whose startOffset dates each sighting), run
 * by UNITS units three times a day in slots six hours apart, so no unit is on two trains at
 * once and the pulled day builds to the same pairs. The day before holds the first
 * WARM_RECORDS of the same runs: what each side reads first, unmeasured.
 */
async function loadUpstreamDays(db: Db, serviceDay: number): Promise<void> {
  await insertGeneratedUnits(db, UNITS);
  await db.query(
    `INSERT INTO timetables (content_hash, train_code, all_codes, start_station, end_station,
                             start_offset, end_offset)
     SELECT sha256(('sources:' || c)::bytea), c, ARRAY[c], 'S' || (g % 700), 'S' || ((g * 7) % 700),
            s, s + 5400
       FROM generate_series(1, $1::int) g,
            LATERAL (SELECT CASE WHEN g <= $1::int / 2 THEN 'G' ELSE 'D' END
                              || (1000 + (g - 1) % ($1::int / 2) + 1) AS c,
                            21600 * (1 + (g - 1) / $2::int) + ((g * 7) % 180) * 60 AS s) x
      ORDER BY g`,
    [RECORDS, UNITS],
  );
  for (const [day, records] of [
    [serviceDay, RECORDS],
    [serviceDay - 1, WARM_RECORDS],
  ] as const)
    await db.query(
      `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                  first_observed_at, last_observed_at, status, timetable_id)
       SELECT $1, t.train_code, e0.id + (g - 1) % $3::int, 1 + g % 3, '{crowd}', 0, 0,
              CASE WHEN g % 3 = 0 THEN 0 ELSE 1 END, t.id
         FROM generate_series(1, $2::int) g,
              (SELECT min(id) AS id FROM emus) e0, (SELECT min(id) AS id FROM timetables) t0,
              timetables t
        WHERE t.id = t0.id + g - 1`,
      [day, records, UNITS],
    );
  for (const table of ['emus', 'timetables', 'daily_records']) await db.query(`ANALYZE ${table}`);
}

/** The day's (train, unit) pairs, sorted. */
async function pairsOf(db: Db, serviceDay: number): Promise<string[]> {
  const r = await db.query<{ p: string }>(
    `SELECT d.train_code || ' ' || e.code AS p FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = $1 ORDER BY 1`,
    [serviceDay],
  );
  return r.rows.map((x) => x.p);
}

/** As a build of the day does (its trigger): every cached page of the day is stale at once. */
async function moveDayVersion(db: Db, serviceDay: number): Promise<void> {
  await db.query(
    `INSERT INTO daily_record_builds AS b (service_day, version, inputs) VALUES ($1, 1, 'bench')
     ON CONFLICT (service_day) DO UPDATE SET version = b.version + 1`,
    [serviceDay],
  );
}

/**
 * What any store of the pulled day must cost Postgres at least: the rows the pull left (its
 * units, their aliases, the day's observations) copied with COPY into a fresh, migrated
 * database (the same indexes, constraints and triggers), in one transaction. Returns the CPU
 * time of Postgres's processes over that transaction, in ms.
 */
async function storeFloorCpuMs(pulled: Db, fresh: Db): Promise<number> {
  const tables: { table: string; columns: string[]; data: Buffer[] }[] = [];
  for (const table of ['emus', 'emu_aliases', 'observations']) {
    const cols = await pulled.query<{ c: string }>(
      `SELECT column_name AS c FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER'
          AND NOT (is_identity = 'YES' AND identity_generation = 'ALWAYS')
        ORDER BY ordinal_position`,
      [table],
    );
    const columns = cols.rows.map((r) => r.c);
    const data: Buffer[] = [];
    for await (const b of pulled.copyTo(`SELECT ${columns.join(', ')} FROM ${table}`)) data.push(b);
    tables.push({ table, columns, data });
  }
  const count = await startCpuCount();
  await fresh.transaction(async (tx) => {
    for (const t of tables)
      await tx.copyFrom(
        t.table,
        t.columns,
        (async function* () {
          yield* t.data;
        })(),
      );
  });
  return (await count()).postgres;
}

async function runChild(args: string[]): Promise<ChildOutcome> {
  const entry = fileURLToPath(new URL('../source-pull-child.js', import.meta.url));
  const profile =
    args[0] === 'pull' && process.env.BENCH_PROFILE_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
      : [];
  const out = await run(process.execPath, [...WORKER_NODE_FLAGS, ...profile, entry, ...args], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.stdout.trim().split('\n').at(-1)!) as ChildOutcome;
}

/**
 * `source pull` of a 12,000-record day from a local emutrack upstream (the whole API app in a
 * process of its own, on its own database, quota too large to throttle; the source's rate
 * 1,000,000 a second: nothing but the pull itself paces it) into an empty database, against the
 * same pages read alone from the same upstream: every page of the day one after the other, with
 * the puller's HttpGet, headers and page size, each body parsed for its nextCursor. Both sides
 * run in child processes started as the worker is (its V8 flags), timed from their first
 * request; the pull's peak RSS is read from its /proc. Before each side the day's version moves,
 * so both meet an upstream whose page cache is cold for the day (every page read from Postgres,
 * as on the first pull after the upstream built the day), and whose Postgres buffers are warm
 * (a read of every page before the rounds). Three rounds, alternating which side goes first,
 * each pull into a fresh database; the ratio is the median of the rounds' ratios. Each pulled day
 * is built and its pairs compared with the upstream's.
 */
export const sourcesSuite: BenchSuite = {
  name: 'sources',
  async run(ctx) {
    const rounds = ctx.quick ? 1 : 3;
    const serviceDay = serviceDayFromYmd(DATE);
    const upstream = await ctx.createDatabase();
    const quotaPrefix = `emutrack-bench:${randomBytes(4).toString('hex')}:quota:`;
    const redis = createQuotaRedis(ctx.redisUrl, benchApiConfig(upstream.url, ctx.redisUrl));
    const targets: BenchDatabase[] = [];
    let server: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      ctx.log(`sources: upstream day of ${RECORDS} records`);
      await loadUpstreamDays(upstream.db, serviceDay);
      const upstreamPairs = await pairsOf(upstream.db, serviceDay);
      if (upstreamPairs.length !== RECORDS)
        throw new Error(`upstream has ${upstreamPairs.length} records, not ${RECORDS}`);
      server = await startServer(['app', upstream.url, ctx.redisUrl, quotaPrefix]);
      const warmYmd = ymdOfServiceDay(serviceDay - 1);
      const readArgs = ['read', server.url, DATE, String(LIMIT), warmYmd, String(server.pid)];
      const first = await runChild(readArgs);
      if (first.records !== RECORDS) throw new Error(`read ${first.records} of ${RECORDS} records`);

      const reads: ChildOutcome[] = [];
      const pulls: ChildOutcome[] = [];
      // Per round: the upstream's CPU (its app and Postgres) while the pages are read alone, and
      // the least Postgres CPU that stores what the pull stored.
      const upstreamCpu: number[] = [];
      const floorCpu: number[] = [];
      let equal = true;
      for (let round = 0; round < rounds; round++) {
        const target = await ctx.createDatabase();
        targets.push(target);
        await addSource(
          target.db,
          checkSourceSettings({ name: 'upstream', kind: 'v2', url: server.url, rate: 1_000_000 }),
        );
        const read = async () => {
          await moveDayVersion(upstream.db, serviceDay);
          const r = await runChild(readArgs);
          reads.push(r);
          upstreamCpu.push(r.upstreamCpuMs ?? 0);
        };
        // The pull's warm-up goes into a database of its own: the measured pull registers every
        // unit of its day, as a first pull does.
        const warm = await ctx.createDatabase();
        targets.push(warm);
        await addSource(
          warm.db,
          checkSourceSettings({ name: 'upstream', kind: 'v2', url: server.url, rate: 1_000_000 }),
        );
        const pull = async () => {
          await moveDayVersion(upstream.db, serviceDay);
          pulls.push(
            await runChild([
              'pull',
              target.url,
              'upstream',
              String(serviceDay),
              warm.url,
              String(serviceDay - 1),
            ]),
          );
        };
        if (round % 2 === 0) {
          await read();
          await pull();
        } else {
          await pull();
          await read();
        }
        const p = pulls.at(-1)!;
        const r = reads.at(-1)!;
        ctx.log(
          `sources: round ${round + 1}: read ${r.records} in ${r.ms.toFixed(0)} ms (CPU ${r.cpuMs.toFixed(0)} ms), pulled ${p.records} in ${p.ms.toFixed(0)} ms (CPU ${p.cpuMs.toFixed(0)} ms, its Postgres ${p.postgresCpuMs?.toFixed(0)} ms, ${p.pages} pages), peak RSS ${(p.peakRss / 2 ** 20).toFixed(0)} MB`,
        );
        await buildDailyRecords(target.db, serviceDay);
        const pulled = await pairsOf(target.db, serviceDay);
        const same =
          pulled.length === upstreamPairs.length && pulled.every((x, i) => x === upstreamPairs[i]);
        if (!same)
          ctx.log(`sources: round ${round + 1}: pulled day has ${pulled.length} pairs, differing`);
        equal &&= same && p.records === RECORDS;
        const fresh = await ctx.createDatabase();
        try {
          floorCpu.push(await storeFloorCpuMs(target.db, fresh.db));
        } finally {
          await fresh.drop();
        }
        ctx.log(
          `sources: round ${round + 1}: upstream CPU while read ${upstreamCpu.at(-1)!.toFixed(0)} ms, store floor (Postgres CPU) ${floorCpu.at(-1)!.toFixed(0)} ms`,
        );
        await target.drop();
        await warm.drop();
        targets.splice(targets.indexOf(target), 1);
        targets.splice(targets.indexOf(warm), 1);
      }

      const rate = (o: ChildOutcome) => o.records / (o.ms / 1000);
      const pullRate = median(pulls.map(rate));
      const readRate = median(reads.map(rate));
      const ratio = median(pulls.map((p, i) => rate(p) / rate(reads[i]!)));
      const peakMb = Math.max(...pulls.map((p) => p.peakRss)) / 2 ** 20;
      // The pull's least time on this machine: the reading's CPU (the upstream's, the reader's)
      // plus the least a store costs Postgres, spread over every core with nothing idle, and
      // never less than the reading's own time.
      const cores = availableParallelism();
      // The read's time over the least a pull could take with `cpuMs` of CPU spread over the
      // cores, never less than the read itself.
      const bound = (readMs: number, cpuMs: number) => readMs / Math.max(readMs, cpuMs / cores);
      const best = reads.map((r, i) => bound(r.ms, upstreamCpu[i]! + r.cpuMs + floorCpu[i]!));
      // The same bound with the pull's own CPU (its process and its Postgres backends) in place
      // of the reader's and of storing's floor: how near the pull comes to what its CPU allows
      // on this machine. Near the measured ratio, the pull is short of CPU, not waiting.
      const bestForItsCpu = reads.map((r, i) =>
        bound(r.ms, upstreamCpu[i]! + pulls[i]!.cpuMs + (pulls[i]!.postgresCpuMs ?? 0)),
      );
      const of = `median of ${rounds}; ratio: median of the rounds' ratios`;
      return [
        {
          suite: 'sources',
          metric: `source pull (v2) of a ${RECORDS}-record day into an empty database, vs reading its pages alone (${of}; page cache cold for both)`,
          value: Math.round(pullRate),
          unit: 'records/s',
          reference: Math.round(readRate),
          ratio,
          target: '>= 0.8x',
          pass: ratio >= 0.8,
        },
        {
          suite: 'sources',
          metric: `  the best ratio ${cores} cores allow: the read's time against the CPU of reading (upstream app and Postgres, reader) plus storing's floor (Postgres COPY of the pulled units, aliases and observations into a fresh database), over ${cores} cores (median of ${rounds})`,
          value: Number(median(best).toFixed(2)),
          unit: 'x',
        },
        {
          suite: 'sources',
          metric: `  the best ratio the pull's own CPU allows: the same, with the pulling process's CPU and its Postgres backends' in place of the reader's and storing's floor (median of ${rounds})`,
          value: Number(median(bestForItsCpu).toFixed(2)),
          unit: 'x',
        },
        {
          suite: 'sources',
          metric: `  upstream CPU while its pages are read alone (app + Postgres) / storing's floor (Postgres), median of ${rounds}`,
          value: Math.round(median(upstreamCpu)),
          unit: 'ms',
          reference: Math.round(median(floorCpu)),
        },
        {
          suite: 'sources',
          metric: `CPU time of the pulling process vs the reading one (user + system, median of ${rounds})`,
          value: Math.round(median(pulls.map((p) => p.cpuMs))),
          unit: 'ms',
          reference: Math.round(median(reads.map((r) => r.cpuMs))),
        },
        {
          suite: 'sources',
          metric: `CPU time of the pull's Postgres backends (median of ${rounds})`,
          value: Math.round(median(pulls.map((p) => p.postgresCpuMs ?? 0))),
          unit: 'ms',
        },
        {
          suite: 'sources',
          metric: `the pulled day, built, has the upstream's ${RECORDS} train-unit pairs (every round)`,
          value: equal ? 1 : 0,
          unit: equal ? 'yes' : 'no',
          target: 'yes',
          pass: equal,
        },
        {
          suite: 'sources',
          metric: `peak RSS of the pulling process (largest of ${rounds})`,
          value: Math.round(peakMb),
          unit: 'MB',
          target: `< ${RSS_LIMIT_MB} MB`,
          pass: peakMb < RSS_LIMIT_MB,
        },
      ] satisfies BenchRow[];
    } finally {
      await server?.stop();
      const left = await redis.keys(`${quotaPrefix}*`).catch(() => []);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      for (const t of targets) await t.drop();
      await upstream.drop();
    }
  },
};
