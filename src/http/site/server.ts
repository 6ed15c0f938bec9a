import { openAppContext } from '../../shared/app/app-context.js';
import { closeOnSignals, loadConfigOrExit, runMain } from '../../shared/app/server-entry.js';
import { seedDocs } from '../../domain/content/seed-docs.js';
import { buildSiteApp } from './app.js';
import { loadDocsSource } from './docs/docs-source.js';
import { closeWithin } from '../../shared/app/http-server-limits.js';

/**
 * `npm run site`: the documentation site on HOST:SITE_PORT (Postgres at DATABASE_URL or the
 * embedded PGlite database). On first start it writes emutrack's own documentation as its
 * contents (SITE_SEED_DOCS). Stops cleanly on SIGTERM and SIGINT.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const { db, logger } = await openAppContext({ config });
  if (config.SITE_SEED_DOCS) {
    const already = await db.query(`SELECT 1 FROM site_options WHERE name = 'docs_seeded'`);
    if (
      already.rowCount === 0 &&
      (await seedDocs(db, await loadDocsSource({ db, config, logger })))
    ) {
      logger.info("wrote the documentation as the site's first contents");
    }
  }
  const app = await buildSiteApp({ db, config, logger });
  closeOnSignals(logger, async () => {
    await closeWithin(app, config.HTTP_SHUTDOWN_TIMEOUT_MS);
    await db.close();
  });
  await app.listen({ host: config.HOST, port: config.SITE_PORT });
  logger.info(
    { database: db.kind, url: app.site.urls.site, rest: app.site.urls.restRoot },
    'site ready',
  );
}

runMain(main);
