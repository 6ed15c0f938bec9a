import { pullSource } from '../src/domain/sources/pull-source.js';
import { createPostgresDb } from '../src/shared/db/postgres-db.js';
import { agentGet } from '../src/shared/io/agent-get.js';
import type { Db } from '../src/shared/db/db.js';
import { processCpu, startCpuCount } from './cpu-time.js';
import { peakRssBytes } from './peak-rss.js';

/**
 * One side of the sources benchmark, in a process of its own (started as the worker is, so that
 * its peak RSS is a worker's):
 *   node source-pull-child.js read <base-url> <YYYYMMDD> <limit> <warm YYYYMMDD> <server pid>:
 *     every page of the day's /api/v2/records/daily read one after the other, as the puller asks
 *     them (its HttpGet, agentGet, with the same headers, timeout and size bound), each body
 *     parsed for its nextCursor and nothing else; with the CPU time the upstream (the server's
 *     process and every Postgres process) spent meanwhile;
 *   node source-pull-child.js pull <database-url> <source> <service-day> <warm database-url>
 *     <warm service-day>: `source pull` of that day in this process (pullSource, as the CLI
 *     without REDIS_URL and the worker's job run it).
 * Each side first does the same with the warm day (into the warm database: the measured pull
 * still registers every unit of its day), unmeasured: a worker pulls on a schedule, and its
 * code is compiled and optimised by the pulls before, which a fresh process's first pull is not.
 * Prints one JSON line: {records, pages, ms, cpuMs, peakRss}. The clock (and the CPU count:
 * process.cpuUsage, user + system) starts at the first request of the measured day.
 */
const [mode, ...args] = process.argv.slice(2);

interface ChildOutcome {
  records: number;
  pages: number;
  ms: number;
  cpuMs: number;
  /** The pull's: CPU time of the Postgres backends serving its connections. */
  postgresCpuMs?: number;
  /** The read's: CPU time of the upstream's app and of Postgres while it read. */
  upstreamCpuMs?: number;
  peakRss: number;
}

const APPLICATION = 'emutrack-bench-source-pull';

/** CPU ms so far of each backend serving this process's pool (the server is on this machine). */
async function backendCpu(db: Db): Promise<Map<number, number>> {
  const r = await db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
    [APPLICATION],
  );
  const out = new Map<number, number>();
  for (const { pid } of r.rows) out.set(pid, (await processCpu(pid))?.ms ?? 0);
  return out;
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1000;
};

async function readAlone(baseUrl: string, ymd: string, limit: number): Promise<ChildOutcome> {
  const headers = { accept: 'application/json', 'user-agent': 'emutrack source pull' };
  const started = performance.now();
  const cpu = process.cpuUsage();
  let records = 0;
  let pages = 0;
  for (let cursor = ''; ;) {
    const q = new URLSearchParams({ date: ymd, limit: String(limit) });
    if (cursor !== '') q.set('cursor', cursor);
    const res = await agentGet({
      url: `${baseUrl}/api/v2/records/daily?${q.toString()}`,
      headers,
      timeoutMs: 30_000,
      maxBytes: 16 << 20,
    });
    if (res.status !== 200) throw new Error(`page ${pages + 1}: HTTP ${res.status}`);
    const page = (JSON.parse(res.body) as { data: { items: unknown[]; nextCursor: string } }).data;
    records += page.items.length;
    pages++;
    if (page.nextCursor === '') break;
    cursor = page.nextCursor;
  }
  const ms = performance.now() - started;
  return { records, pages, ms, cpuMs: cpuMsSince(cpu), peakRss: await peakRssBytes() };
}

async function pullDay(dbUrl: string, source: string, day: number): Promise<ChildOutcome> {
  const db = createPostgresDb({ connectionString: dbUrl, max: 10, applicationName: APPLICATION });
  try {
    // The pool's first connection is opened before the clock starts, as a running worker has it.
    const backends0 = await backendCpu(db);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const r = await pullSource(db, source, { from: day, to: day });
    const ms = performance.now() - started;
    const cpuMs = cpuMsSince(cpu);
    // Backends that came and went during the pull are not counted (the pool keeps its own).
    let postgresCpuMs = 0;
    for (const [pid, ms] of await backendCpu(db)) postgresCpuMs += ms - (backends0.get(pid) ?? 0);
    return {
      records: r.taken,
      pages: r.days.reduce((n, d) => n + d.pages, 0),
      ms,
      cpuMs,
      postgresCpuMs,
      peakRss: await peakRssBytes(),
    };
  } finally {
    await db.close();
  }
}

async function warmPull(dbUrl: string, source: string, day: number): Promise<void> {
  const db = createPostgresDb({ connectionString: dbUrl, max: 10 });
  try {
    await pullSource(db, source, { from: day, to: day });
  } finally {
    await db.close();
  }
}

let outcome: ChildOutcome;
if (mode === 'read' && args.length === 5) {
  const [baseUrl, ymd, limit, warmYmd, pid] = args as [string, string, string, string, string];
  await readAlone(baseUrl, warmYmd, Number(limit));
  const count = await startCpuCount(Number(pid));
  outcome = await readAlone(baseUrl, ymd, Number(limit));
  const spent = await count();
  outcome.upstreamCpuMs = spent.server + spent.postgres;
} else if (mode === 'pull' && args.length === 5) {
  const [dbUrl, source, day, warmUrl, warmDay] = args as [string, string, string, string, string];
  await warmPull(warmUrl, source, Number(warmDay));
  outcome = await pullDay(dbUrl, source, Number(day));
} else {
  throw new Error(
    'usage: source-pull-child read <base-url> <YYYYMMDD> <limit> <warm YYYYMMDD> <server pid> | pull <db-url> <source> <day> <warm db-url> <warm day>',
  );
}
process.stdout.write(`${JSON.stringify(outcome)}\n`);
