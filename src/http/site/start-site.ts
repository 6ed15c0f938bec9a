import type { AppContext } from '../../shared/app/app-context.js';
import { seedDocs } from '../../domain/content/seed-docs.js';
import { buildSiteApp, type SiteApp } from './app.js';
import { loadDocsSource } from './docs/docs-source.js';

/**
 * The documentation site on `ctx`, ready to listen. On first start it writes emutrack's own
 * documentation as its contents (SITE_SEED_DOCS).
 */
export async function buildSeededSite(ctx: AppContext): Promise<SiteApp> {
  const { db, config, logger } = ctx;
  if (config.SITE_SEED_DOCS) {
    const already = await db.query(`SELECT 1 FROM site_options WHERE name = 'docs_seeded'`);
    if (
      already.rowCount === 0 &&
      (await seedDocs(db, await loadDocsSource({ db, config, logger })))
    ) {
      logger.info("wrote the documentation as the site's first contents");
    }
  }
  return buildSiteApp({ db, config, logger });
}
