import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createLogger } from '../../../src/log/logger.js';
import { buildSiteApp, type SiteApp } from '../../../src/site/app.js';
import { useTestDatabase } from '../../helpers/test-db.js';
import { buildCorpus, CATEGORIES } from './oracle-corpus.js';
import type { NormalisedAnswer } from './oracle-normalise.js';
import {
  ALLOW_LIST,
  compareWithGolden,
  describeDifference,
  formatTable,
  readGolden,
  readKnownDifferences,
  seedAndReplay,
  type CategoryResult,
} from './oracle-replay.js';
import { createOracleUsers, siteClient } from './oracle-site-client.js';

/**
 * The differential test: our site, seeded as the oracle WordPress was, answers the whole corpus;
 * each category's answers must equal WordPress's golden answers (test/site/oracle/golden,
 * captured by test/site/oracle/capture-wordpress.ts) except the requests listed, with their reason, in
 * known-differences.json. A listed request that now matches fails too: the list only shrinks.
 * ORACLE_WRITE_KNOWN=1 rewrites the list from this run (new entries get the difference as their
 * reason, to be explained by hand); the table is printed on every run.
 */
const database = useTestDatabase();
let app: SiteApp | undefined;
let answers: Map<string, NormalisedAnswer>;
let results: CategoryResult[];
let known: Record<string, string>;

beforeAll(async () => {
  const db = database.current.db;
  app = await buildSiteApp({
    db,
    config: loadConfig({ LOG_LEVEL: 'silent', SITE_SEED_DOCS: 'false' }),
    logger: createLogger('silent'),
    siteUrl: 'http://oracle.test',
  });
  const users = await createOracleUsers(db);
  answers = await seedAndReplay(siteClient(app, users));
  results = await compareWithGolden(answers);
  known = await readKnownDifferences();
  console.info(`differential against WordPress 6.1:\n${formatTable(results)}`);
  if (process.env.ORACLE_WRITE_KNOWN === '1') {
    const next: Record<string, string> = {};
    for (const r of results) {
      const golden = await readGolden(r.category);
      for (const id of r.differing) {
        next[id] = known[id] ?? describeDifference(golden[id], answers.get(id)).join('; ');
      }
    }
    await writeFile(ALLOW_LIST, `${JSON.stringify(next, null, 2)}\n`);
    known = next;
  }
}, 900_000);

afterAll(async () => {
  await app?.close();
});

describe('the site answers as WordPress 6.1 does (golden files)', () => {
  it('lists only requests of the corpus as known differences, each with a reason', () => {
    const ids = new Set(buildCorpus().map((r) => r.id));
    for (const [id, reason] of Object.entries(known)) {
      expect(ids.has(id), id).toBe(true);
      expect(reason.length, id).toBeGreaterThan(0);
    }
  });

  for (const category of CATEGORIES) {
    it(`${category}: every answer equals WordPress's, known differences aside`, async () => {
      const result = results.find((r) => r.category === category)!;
      const golden = await readGolden(category);
      const unexpected = result.differing
        .filter((id) => !(id in known))
        .map((id) => `${id}: ${describeDifference(golden[id], answers.get(id)).join('; ')}`);
      const nowMatching = Object.keys(known).filter(
        (id) => id.startsWith(`${category}:`) && !result.differing.includes(id),
      );
      expect({ unexpected, nowMatching }).toEqual({ unexpected: [], nowMatching: [] });
    });
  }
});
