import { loadConfig } from '../../../src/shared/config/config.js';
import type { Db } from '../../../src/shared/db/db.js';
import { createLogger } from '../../../src/shared/log/logger.js';
import { buildSiteApp } from '../../../src/http/site/app.js';
import type { NormalisedAnswer } from './oracle-normalise.js';
import { seedAndReplay } from './oracle-replay.js';
import { createOracleUsers, siteClient } from './oracle-site-client.js';

/**
 * Our side of the differential: the site built on a fresh, migrated database, its oracle users
 * made, seeded as WordPress was and the whole corpus replayed (shared by the CI check and the
 * table script, so both judge the same answers). Named as scripts/wp-oracle/install.php names
 * the oracle WordPress: "emutrack oracle", no tagline (6.1's default).
 */
export async function replayOurSite(db: Db): Promise<Map<string, NormalisedAnswer>> {
  const app = await buildSiteApp({
    db,
    config: loadConfig({
      LOG_LEVEL: 'silent',
      SITE_SEED_DOCS: 'false',
      SITE_NAME: 'emutrack oracle',
      SITE_DESCRIPTION: '',
    }),
    logger: createLogger('silent'),
    siteUrl: 'http://oracle.test',
  });
  try {
    const users = await createOracleUsers(db);
    return await seedAndReplay(siteClient(app, users));
  } finally {
    await app.close();
  }
}
