import { openAppContext } from '../../shared/app/app-context.js';
import {
  closeOnSignals,
  listenOn,
  loadConfigOrExit,
  runMain,
} from '../../shared/app/server-entry.js';
import { buildSeededSite } from './start-site.js';
import { closeWithin } from '../../shared/app/http-server-limits.js';

/**
 * `npm run site`: the documentation site on HOST:SITE_PORT (Postgres at DATABASE_URL or the
 * embedded PGlite database; on the embedded one `npm start` serves the site too, and this is
 * for a site of its own). On first start it writes emutrack's own documentation as its contents
 * (SITE_SEED_DOCS). Stops cleanly on SIGTERM and SIGINT.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const ctx = await openAppContext({ config });
  const { db, logger } = ctx;
  const app = await buildSeededSite(ctx);
  closeOnSignals(logger, async () => {
    await closeWithin(app, config.HTTP_SHUTDOWN_TIMEOUT_MS);
    await db.close();
  });
  await listenOn(app, config.HOST, config.SITE_PORT, 'SITE_PORT');
  logger.info(
    { database: db.kind, url: app.site.urls.site, rest: app.site.urls.restRoot },
    'site ready',
  );
}

runMain('emutrack site', main);
