import { writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import { createBenchDatabase } from './bench-db.js';
import { formatBenchTable } from './bench-table.js';
import type { BenchContext, BenchRow, BenchSuite } from './bench-types.js';
import { suites } from './suites/index.js';
// Ten minutes long: run only when named (--only soak), never in the default run.
import { soakSuite } from './suites/soak.js';

/**
 * `npm run bench`: runs every suite against local Postgres/Redis (BENCH_DATABASE_URL,
 * BENCH_REDIS_URL; defaults: the local servers) and prints one table. Targets are reported, not
 * enforced: a missed target is printed as "NO" and the run still exits 0.
 */
const program = new Command()
  .name('bench')
  .option('--only <names>', 'comma-separated suite names')
  .option('--quick', 'smaller sizes (a smoke run)', false)
  .option('--json <file>', 'also write the rows as JSON');
program.parse();
const opts = program.opts<{ only?: string; quick: boolean; json?: string }>();

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const selected: BenchSuite[] = opts.only
  ? opts.only.split(',').map((n) => {
      const known = [...suites, soakSuite];
      const s = known.find((x) => x.name === n.trim());
      if (!s) throw new Error(`unknown suite ${n}; known: ${known.map((x) => x.name).join(', ')}`);
      return s;
    })
  : [...suites];

const ctx: BenchContext = {
  adminUrl,
  redisUrl,
  quick: opts.quick,
  createDatabase: () => createBenchDatabase(adminUrl),
  log: (m) => process.stderr.write(`[bench] ${m}\n`),
};

const rows: BenchRow[] = [];
for (const suite of selected) {
  ctx.log(`suite ${suite.name}`);
  const started = Date.now();
  rows.push(...(await suite.run(ctx)));
  ctx.log(`suite ${suite.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
console.log(formatBenchTable(rows));
if (opts.json) await writeFile(opts.json, JSON.stringify(rows, null, 2));
