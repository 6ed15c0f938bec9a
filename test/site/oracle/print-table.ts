/**
 * The differential's table, for the README and docs/site-wordpress-fidelity.md:
 *   npm run -s oracle:table                 # the markdown table
 *   npm run -s oracle:table -- --differences # and each differing request: reason, difference
 *   npm run -s oracle:table -- --show=<text> # both answers (JSON) of the requests whose id has <text>
 *   npm run -s oracle:table -- --rules       # how many requests each compare-time rule touches
 * Our site on a fresh test database (copied from the migrated template, dropped at the end),
 * seeded and replayed as in the CI check (oracle.test.ts), compared with the golden files.
 */
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { createPostgresDb } from '../../../src/shared/db/postgres-db.js';
import { ensureTemplate, testDatabaseName } from '../../helpers/template-db.js';
import { ADMIN_DATABASE_URL, databaseUrl } from '../../helpers/test-env.js';
import { COMPARE_RULES } from './oracle-compare.js';
import { buildCorpus, CATEGORIES } from './oracle-corpus.js';
import type { NormalisedAnswer } from './oracle-normalise.js';
import {
  compareWithGolden,
  formatTable,
  readGolden,
  readKnownDifferences,
} from './oracle-replay.js';
import { replayOurSite } from './oracle-site-replay.js';

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const name = testDatabaseName('oracletable');
await admin(`CREATE DATABASE ${name} TEMPLATE ${await ensureTemplate()}`);
const db = createPostgresDb({ connectionString: databaseUrl(name), max: 5 });
try {
  const answers = await replayOurSite(db);
  const results = await compareWithGolden(answers);
  const known = await readKnownDifferences();
  console.log(formatTable(results, known));
  if (process.argv.includes('--differences')) {
    for (const r of results) {
      for (const id of r.differing) {
        const difference = r.differences[id]!.join('\n    ');
        console.log(`\n${id}\n  ${known[id] ?? 'not listed'}\n    ${difference}`);
      }
    }
  }
  if (process.argv.includes('--rules')) {
    const corpus = buildCorpus();
    const golden = new Map<string, NormalisedAnswer>();
    for (const category of CATEGORIES) {
      for (const [id, a] of Object.entries(await readGolden(category))) golden.set(id, a);
    }
    for (const rule of COMPARE_RULES) {
      const touched = corpus.filter((r) =>
        [golden.get(r.id)!, answers.get(r.id)!].some(
          (a) => !isDeepStrictEqual(rule.apply(r, a), a),
        ),
      );
      console.log(`${rule.name}: ${touched.length} requests`);
    }
    const beyond = corpus.filter((r) => r.beyond61);
    console.log(`marked beyond 6.1 (a filter 6.1 ignores): ${beyond.length} requests`);
  }
  const show = process.argv.find((a) => a.startsWith('--show='))?.slice('--show='.length);
  if (show) {
    for (const r of results) {
      const golden = await readGolden(r.category);
      for (const id of Object.keys(golden).filter((i) => i.includes(show))) {
        console.log(`\n${id}\n  WordPress: ${JSON.stringify(golden[id])}`);
        console.log(`  here:      ${JSON.stringify(answers.get(id))}`);
      }
    }
  }
} finally {
  await db.close();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
